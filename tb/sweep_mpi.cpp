#include "tb/sweep_mpi.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <future>

#include "common/config_error.hpp"
#include "tb/cli_text.hpp"

namespace ftsim::tb {

namespace {
constexpr int kTagWork = 1;    ///< rank 0 -> worker: a point index, or -1 = stop
constexpr int kTagResult = 2;  ///< worker -> rank 0: {point index, exit code}

void stop_workers(int size) {
  const int stop = -1;
  for (int w = 1; w < size; ++w) MPI_Send(&stop, 1, MPI_INT, w, kTagWork, MPI_COMM_WORLD);
}

/// Ranks 1..N-1: run the points rank 0 sends until it sends -1.
void worker_loop(const SweepOptions& opts, const SweepPlan& plan) {
  for (;;) {
    int index = -1;
    MPI_Recv(&index, 1, MPI_INT, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index < 0) return;
    const int code = run_point(opts, plan.base, plan.points[static_cast<std::size_t>(index)]);
    const int result[2] = {index, code};
    MPI_Send(result, 2, MPI_INT, 0, kTagResult, MPI_COMM_WORLD);
  }
}

/// Rank 0: dispatch, run points itself between messages, collect.
int root_loop(const SweepOptions& opts, const SweepPlan& plan, int size) {
  const auto& points = plan.points;
  std::vector<int> codes(points.size(), -1);
  std::deque<std::size_t> pending;
  for (std::size_t i = 0; i < points.size(); ++i) {
    int code = 0;
    if (opts.resume && point_finished(points[i], &code))
      codes[i] = code;
    else
      pending.push_back(i);
  }
  const std::size_t to_run = pending.size();
  Progress progress(fmt::format("sweep ({} MPI ranks)", size), "runs", !opts.quiet, 0.0);
  auto next_for = [&](int worker) {
    int index = -1;
    if (!pending.empty()) {
      index = static_cast<int>(pending.front());
      pending.pop_front();
    }
    MPI_Send(&index, 1, MPI_INT, worker, kTagWork, MPI_COMM_WORLD);
  };
  for (int w = 1; w < size; ++w) next_for(w);
  std::size_t done = 0;
  auto finish = [&](std::size_t index, int code) {
    codes[index] = code;
    ++done;
    progress.update(done, to_run, fmt::format("{} exit {}", points[index].dir, code));
  };
  constexpr std::size_t kIdle = static_cast<std::size_t>(-1);
  std::size_t own_index = kIdle;  // the point rank 0 runs itself, kIdle when none
  std::future<int> own;
  while (done < to_run) {
    bool progressed = false;
    if (own_index == kIdle && !pending.empty()) {
      own_index = pending.front();
      pending.pop_front();
      own = std::async(std::launch::async,
                       [&opts, &plan, i = own_index] { return run_point(opts, plan.base, plan.points[i]); });
    }
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &st);
    if (flag != 0) {
      int result[2] = {0, 0};
      MPI_Recv(result, 2, MPI_INT, st.MPI_SOURCE, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      finish(static_cast<std::size_t>(result[0]), result[1]);
      next_for(st.MPI_SOURCE);
      progressed = true;
    }
    if (own_index != kIdle && own.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      finish(own_index, own.get());
      own_index = kIdle;
      progressed = true;
    }
    if (!progressed) usleep(10000);  // nothing to do for 10 ms: no busy wait on rank 0's core
  }
  return write_sweep_results(opts.out_dir, plan, codes, std::vector<bool>(points.size(), false));
}
}  // namespace

int run_sweep_mpi(const SweepOptions& opts, bool* is_root) {
  MPI_Init(nullptr, nullptr);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *is_root = rank == 0;
  SweepPlan plan;
  try {
    plan = plan_sweep(opts);  // deterministic: every rank fails alike
  } catch (...) {
    MPI_Finalize();
    if (rank == 0) throw;
    return 2;
  }
  int failed = 0;
  if (rank == 0) {
    int lock_fd = -1;
    try {
      std::filesystem::create_directories(opts.out_dir);
      lock_fd = lock_sweep_dir(opts.out_dir, false);
    } catch (...) {
      stop_workers(size);
      MPI_Finalize();
      throw;
    }
    failed = root_loop(opts, plan, size);
    ::close(lock_fd);
  } else {
    worker_loop(opts, plan);
  }
  MPI_Finalize();
  return failed;
}

}  // namespace ftsim::tb
