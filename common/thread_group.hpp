// Worker threads whose exceptions reach the thread that joins them. An
// exception escaping a std::thread's function calls std::terminate (the
// process aborts with "terminate called after throwing ..."), so every pool
// of workers in the analyses goes through this.
#pragma once
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ftsim {

class ThreadGroup {
 public:
  ThreadGroup() = default;
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;
  /// Joins what is still running; an exception not collected by join() is
  /// dropped (a destructor must not throw).
  ~ThreadGroup() {
    for (auto& t : m_threads)
      if (t.joinable()) t.join();
  }

  /// Starts f() on a new thread. If f throws, the first such exception of
  /// the group is kept for join(); the other threads run on.
  template <typename F>
  void spawn(F&& f) {
    m_threads.emplace_back([this, fn = std::forward<F>(f)]() mutable {
      try {
        fn();
      } catch (...) {
        const std::lock_guard<std::mutex> lock(m_mu);
        if (!m_error) m_error = std::current_exception();
      }
    });
  }

  /// Waits for every thread, then rethrows the first exception one threw.
  void join() {
    for (auto& t : m_threads)
      if (t.joinable()) t.join();
    m_threads.clear();
    if (m_error) {
      std::exception_ptr e = std::move(m_error);
      m_error = nullptr;
      std::rethrow_exception(e);
    }
  }

 private:
  std::vector<std::thread> m_threads;
  std::mutex m_mu;
  std::exception_ptr m_error;
};

/// Runs f() on n threads (at least one) and rethrows the first exception.
template <typename F>
void run_on_threads(int n, const F& f) {
  ThreadGroup group;
  for (int t = 0; t < (n < 1 ? 1 : n); ++t) group.spawn(f);
  group.join();
}

}  // namespace ftsim
