// Fault-tolerance analyser benchmark (not a test): prints combinations per
// second of the exhaustive analysis on the 3x3x3 torus (section 5.1) for a few
// mechanisms, with all cores.
//
//   bench_fault_tolerance [MAX_FAULTS]   default 4 (1,752,381 combinations)
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <string>
#include <thread>

#include "routing_logic/inode_analyzer.hpp"

int main(int argc, char* argv[]) {
  using namespace ftsim::routing;
  const int max_faults = argc > 1 ? std::stoi(argv[1]) : 4;
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const KAryNCube torus({3, 3, 3}, true);
  fmt::print("exhaustive 1..{} faults on {} ({} links), {} threads\n", max_faults, torus.spec(), torus.num_links(),
             threads);
  fmt::print("{:<8} {:>12} {:>10} {:>16}\n", "mech", "combinations", "seconds", "combinations/s");
  for (const char* m : {"I", "I+D", "Ix2", "I+D+M", "Ix3"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const inodes::FaultToleranceAnalyzer an(torus, inodes::parse_mechanism(m));
    const auto rows = an.exhaustive(1, max_faults, {}, threads, nullptr);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::uint64_t n = 0;
    for (const auto& r : rows) n += r.combinations;
    fmt::print("{:<8} {:>12} {:>10.2f} {:>16.0f}\n", m, n, s, static_cast<double>(n) / s);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("peak RSS {:.1f} MiB\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}
