#include "tb/sweep/sweep_mpi.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <numeric>

#include "common/config_error.hpp"
#include "tb/cli_text.hpp"
#include "tb/analysis/fault_tolerance_analysis.hpp"

namespace ftsim::tb {

namespace {
constexpr int kTagWork = 1;    ///< rank 0 -> worker: an item index, or -1 = stop
constexpr int kTagResult = 2;  ///< worker -> rank 0: {item index, payload...}

/// A unit of work's result: `width` 64-bit words (a sweep point's exit code;
/// an analysis chunk's summed counts).
using Payload = std::vector<std::uint64_t>;
using RunItem = std::function<Payload(std::size_t)>;

void stop_workers(int size) {
  const long long stop = -1;
  for (int w = 1; w < size; ++w) MPI_Send(&stop, 1, MPI_LONG_LONG, w, kTagWork, MPI_COMM_WORLD);
}

/// Ranks 1..N-1: run the items rank 0 sends until it sends -1.
void worker_loop(std::size_t width, const RunItem& run) {
  for (;;) {
    long long index = -1;
    MPI_Recv(&index, 1, MPI_LONG_LONG, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index < 0) return;
    Payload msg{static_cast<std::uint64_t>(index)};
    const Payload out = run(static_cast<std::size_t>(index));
    msg.insert(msg.end(), out.begin(), out.end());
    msg.resize(width + 1);
    MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_UINT64_T, 0, kTagResult, MPI_COMM_WORLD);
  }
}

/// Rank 0: dynamic load balancing shared by sweeps and analyses. Hands the
/// pending items out one at a time to the ranks that ask, runs items itself
/// between messages, calls done(index, payload) on this thread in completion
/// order, and stops the workers at the end.
void root_loop(int size, std::deque<std::size_t> pending, std::size_t width, const RunItem& run,
               const std::function<void(std::size_t, const Payload&)>& done) {
  std::size_t outstanding = pending.size();
  auto next_for = [&](int worker) {
    long long index = -1;
    if (!pending.empty()) {
      index = static_cast<long long>(pending.front());
      pending.pop_front();
    }
    MPI_Send(&index, 1, MPI_LONG_LONG, worker, kTagWork, MPI_COMM_WORLD);
  };
  // Every worker gets one item (or the stop) now, another after each result.
  for (int w = 1; w < size; ++w) next_for(w);
  constexpr std::size_t kIdle = static_cast<std::size_t>(-1);
  std::size_t own_index = kIdle;  // the item rank 0 runs itself, kIdle when none
  std::future<Payload> own;
  Payload msg(width + 1);
  while (outstanding > 0) {
    bool progressed = false;
    if (own_index == kIdle && !pending.empty()) {
      own_index = pending.front();
      pending.pop_front();
      own = std::async(std::launch::async, [&run, i = own_index] { return run(i); });
    }
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &st);
    if (flag != 0) {
      MPI_Recv(msg.data(), static_cast<int>(msg.size()), MPI_UINT64_T, st.MPI_SOURCE, kTagResult, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      --outstanding;
      done(static_cast<std::size_t>(msg[0]), Payload(msg.begin() + 1, msg.end()));
      next_for(st.MPI_SOURCE);
      progressed = true;
    }
    if (own_index != kIdle && own.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      --outstanding;
      done(own_index, own.get());
      own_index = kIdle;
      progressed = true;
    }
    if (!progressed) usleep(1000);  // nothing to do for 1 ms: no busy wait on rank 0's core
  }
}

RunItem run_sweep_item(const SweepOptions& opts, const SweepPlan& plan) {
  return [&opts, &plan](std::size_t i) {
    return Payload{static_cast<std::uint64_t>(static_cast<std::int64_t>(run_point(opts, plan.base, plan.points[i])))};
  };
}

/// Sweep points on rank 0: skip finished ones under --resume, dispatch the
/// rest, write results.csv and plots.
int sweep_root(const SweepOptions& opts, const SweepPlan& plan, int size) {
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
  std::size_t finished = 0;
  root_loop(size, std::move(pending), 1, run_sweep_item(opts, plan), [&](std::size_t index, const Payload& p) {
    codes[index] = static_cast<int>(static_cast<std::int64_t>(p[0]));
    ++finished;
    progress.update(finished, to_run, fmt::format("{} exit {}", points[index].dir, codes[index]));
  });
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
      write_sweep_manifest(opts, plan);
      if (opts.resume) check_finished_points(plan);
    } catch (...) {
      stop_workers(size);
      MPI_Finalize();
      throw;
    }
    failed = sweep_root(opts, plan, size);
    ::close(lock_fd);
  } else {
    worker_loop(1, run_sweep_item(opts, plan));
  }
  MPI_Finalize();
  return failed;
}

namespace {
namespace in = routing::inodes;
constexpr std::size_t kRowWords = 5 + in::kCategories;

Payload pack_rows(const std::vector<in::FaultCountResult>& rows) {
  Payload p;
  for (const auto& r : rows) {
    p.insert(p.end(), {r.combinations, r.not_tolerated, r.pairs, r.affected, r.unroutable});
    p.insert(p.end(), r.by_category.begin(), r.by_category.end());
  }
  return p;
}

void add_rows(const Payload& p, std::vector<in::FaultCountResult>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::uint64_t* w = p.data() + i * kRowWords;
    in::FaultCountResult r;
    r.combinations = w[0];
    r.not_tolerated = w[1];
    r.pairs = w[2];
    r.affected = w[3];
    r.unroutable = w[4];
    std::copy(w + 5, w + kRowWords, r.by_category.begin());
    rows[i] += r;
  }
}
}  // namespace

nlohmann::json analyze_fault_tolerance_mpi(FaultToleranceOptions opts, bool* is_root) {
  MPI_Init(nullptr, nullptr);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *is_root = rank == 0;
  if (rank != 0) opts.progress = false;
  opts.backend = "mpi";
  opts.ranks = size;
  opts.runner = [rank, size, &opts](const in::FaultToleranceAnalyzer& an, const in::FaultToleranceAnalyzer::Plan& plan,
                                    const in::ProgressFn& progress) {
    // Chunks of consecutive tasks of about 1/(16 ranks) of the combinations
    // each: the largest tasks come first and stand alone, the small ones are
    // grouped, so the dispatch balances without a message per task.
    std::vector<std::pair<std::size_t, std::size_t>> chunks;
    const std::uint64_t target =
        std::max<std::uint64_t>(1, plan.combinations / (static_cast<std::uint64_t>(size) * 16));
    std::uint64_t acc = 0;
    std::size_t begin = 0;
    for (std::size_t t = 0; t < plan.tasks(); ++t) {
      acc += plan.task_combinations(t);
      if (acc >= target || t + 1 == plan.tasks()) {
        chunks.emplace_back(begin, t + 1);
        begin = t + 1;
        acc = 0;
      }
    }
    const std::size_t counts = static_cast<std::size_t>(plan.fmax - plan.fmin + 1);
    const RunItem run = [&](std::size_t c) {
      return pack_rows(an.run(plan, chunks[c].first, chunks[c].second, opts.threads, nullptr));
    };
    std::vector<in::FaultCountResult> rows(counts);
    for (std::size_t i = 0; i < counts; ++i) rows[i].faults = plan.fmin + static_cast<int>(i);
    if (rank != 0) {
      worker_loop(counts * kRowWords, run);
      return rows;
    }
    std::deque<std::size_t> pending(chunks.size());
    std::iota(pending.begin(), pending.end(), std::size_t{0});
    std::uint64_t done = 0;
    root_loop(size, std::move(pending), counts * kRowWords, run, [&](std::size_t c, const Payload& p) {
      add_rows(p, rows);
      for (std::size_t t = chunks[c].first; t < chunks[c].second; ++t) done += plan.task_combinations(t);
      if (progress) progress(done, plan.combinations);
    });
    return rows;
  };
  nlohmann::json report;
  try {
    report = analyze_fault_tolerance(opts);  // deterministic: every rank fails alike
  } catch (...) {
    MPI_Finalize();
    if (rank == 0) throw;
    return {};
  }
  MPI_Finalize();
  return rank == 0 ? report : nlohmann::json{};
}

}  // namespace ftsim::tb
