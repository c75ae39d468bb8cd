// Fault-tolerance analyser benchmark (not a test): prints combinations per
// second of the exhaustive analysis on the 3x3x3 torus (section 5.1) for every
// mechanism, with all cores (issue 15's target: 1..5 faults in under 60 s
// each); then the distance-1 region of the 4x4x4 and 5x5x5 tori (36 links,
// 1..4 faults), whose rate sets the CPU-hours of the region model to 10
// faults (389,329,651 combinations from 1 to 10) under MPI.
//
//   bench_fault_tolerance [MAX_FAULTS]   default 5 (28,354,132 combinations)
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "routing_logic/inodes/inode_analyzer.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/routing_relation.hpp"

int main(int argc, char* argv[]) {
  using namespace ftsim::routing;
  const int max_faults = argc > 1 ? std::stoi(argv[1]) : 5;
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const KAryNCube torus({3, 3, 3}, true);
  fmt::print("exhaustive 1..{} faults on {} ({} links), {} threads\n", max_faults, torus.spec(), torus.num_links(),
             threads);
  fmt::print("{:<10} {:>12} {:>10} {:>16}\n", "mech", "combinations", "seconds", "combinations/s");
  for (const char* m : {"I", "I+D", "Ix2", "Ix3", "M", "D+M", "I+M", "I+D+M", "I+D+Mfree"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const inodes::FaultToleranceAnalyzer an(torus, inodes::parse_mechanism(m));
    const auto rows = an.exhaustive(1, max_faults, {}, threads, nullptr);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::uint64_t n = 0;
    for (const auto& r : rows) n += r.combinations;
    fmt::print("{:<10} {:>12} {:>10.2f} {:>16.0f}\n", m, n, s, static_cast<double>(n) / s);
  }
  fmt::print("\ndistance-1 region, 1..4 faults, {} threads\n", threads);
  fmt::print("{:<12} {:<10} {:>12} {:>10} {:>16} {:>22}\n", "torus", "mech", "combinations", "seconds",
             "combinations/s", "1..10 faults, CPU-h");
  for (const char* spec : {"4x4x4", "5x5x5"}) {
    const auto topo = make_topology(std::string("torus:") + spec);
    const auto& cube = dynamic_cast<const KAryNCube&>(*topo);
    const auto region = inodes::FaultToleranceAnalyzer::distance1_region(cube, 0);
    std::uint64_t to_ten = 0;
    for (int f = 1; f <= 10; ++f) to_ten += inodes::binomial(static_cast<int>(region.size()), f);
    for (const char* m : {"I", "I+D", "Ix2", "Ix3", "I+D+M"}) {
      const auto t0 = std::chrono::steady_clock::now();
      const inodes::FaultToleranceAnalyzer an(cube, inodes::parse_mechanism(m), region);
      const auto rows = an.exhaustive(1, 4, {}, threads, nullptr);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::uint64_t n = 0;
      for (const auto& r : rows) n += r.combinations;
      const double rate = static_cast<double>(n) / s;
      fmt::print("{:<12} {:<10} {:>12} {:>10.2f} {:>16.0f} {:>22.1f}\n", spec, m, n, s, rate,
                 static_cast<double>(to_ten) / rate * threads / 3600.0);
    }
  }
  // Route computation of the cycle-level relation (set_static_faults) for one
  // link fault and one node fault on the paper's 8x8x8 torus, with every
  // misrouting mechanism: a node fault must cost about what its links cost.
  const auto big = make_topology("torus:8x8x8");
  const auto& cube = dynamic_cast<const KAryNCube&>(*big);
  FaultSet link;
  link.links = {cube.parse_link("3,3,3:x+")};
  FaultSet node;
  node.routers = {cube.parse_router("3,3,3")};
  FaultSet node_links;  // the same router's six links, the router alive
  for (PortId p = 1; p < cube.radix(node.routers[0]); ++p)
    node_links.links.push_back(cube.peer(node.routers[0], p).link);
  // Figure 9's largest fault count: 14 links drawn with a fixed seed.
  FaultSet fourteen;
  for (LinkId l = 7; static_cast<int>(fourteen.links.size()) < 14; l = (l * 48271 + 11) % cube.num_links())
    if (std::find(fourteen.links.begin(), fourteen.links.end(), l) == fourteen.links.end()) fourteen.links.push_back(l);
  fmt::print("\nroute computation on {} (set_static_faults, {} threads)\n", big->spec(), threads);
  fmt::print("{:<30} {:>10} {:>10} {:>14} {:>12}\n", "mech", "1 link, s", "1 node, s", "its 6 links, s", "14 links, s");
  for (const char* m : {"I", "I+D", "Ix2", "M", "D+M", "I+M", "I+D+M", "I+D+Mfree", "I+D+M@fewest-intermediates",
                        "I+D+M@extensions-when-i-fails"}) {
    double secs[4];
    for (int k = 0; k < 4; ++k) {
      auto rel = make_routing(std::string("inodes:") + m);
      rel->configure(*big, 5);
      const auto t0 = std::chrono::steady_clock::now();
      rel->set_static_faults(k == 0 ? link : k == 1 ? node : k == 2 ? node_links : fourteen);
      secs[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    fmt::print("{:<30} {:>10.3f} {:>10.3f} {:>14.3f} {:>12.3f}\n", m, secs[0], secs[1], secs[2], secs[3]);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("peak RSS {:.1f} MiB\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}
