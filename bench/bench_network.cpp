// Simulation speed benchmark (not a test): prints node-cycles per second,
// peak resident memory (and per router) and the model's state per router
// and per VC (sizeof) for the configurations of docs/performance.md. Each
// configuration runs in its own child process (SystemC elaborates once per
// process), so the peak RSS printed is that configuration's alone.
//
//   bench_network             the 8x8 set: mesh and torus, DOR, 2 VCs, 4-flit
//                             packets, loads 0.1 and 0.2, 10,000 + 30,000 cycles
//   bench_network --scaling   16x16 and 32x32 meshes, the 8x8x8 torus and the
//                             16-ary 3-tree (4,096 nodes), each at load 0.1 and
//                             at its saturation throughput, 2,000 + 5,000
//                             cycles; with the peak memory per router
//   bench_network --papers    the papers' grids at their loads: the fat-tree
//                             DLR base (experiments/dlr-base.yaml, 4-ary 3-tree,
//                             load 0.70, DDLR and ADLR) and the intermediate-
//                             node base (inodes-8x8x8-base.yaml, load 0.6)
//   bench_network TOPO LOAD [WARMUP MEASURE]   one synthetic configuration
//   bench_network FILE.yaml LOAD [KEY=VALUE...] one experiment file
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <systemc>
#include <vector>

#include "hw/router.hpp"
#include "tb/experiment_runner.hpp"

namespace {

/// Synthetic configuration: DOR on meshes/tori (torus: VCT bubble, two
/// packets per queue; mesh: wormhole, 2 VCs x 4 flits as BookSim2), adaptive
/// up/down on k-ary n-trees (VCT, 2 VCs x 8 flits).
std::string synthetic_yaml(const std::string& topo, const std::string& load, const std::string& warmup,
                           const std::string& measure) {
  const bool torus = topo.rfind("torus", 0) == 0;
  const bool tree = topo.rfind("kary-ntree", 0) == 0;
  return fmt::format(
      "topology: {}\nrouting: {}\nrouter: {{vcs: 2, buffer_flits: {}, flow_control: {}}}\n"
      "traffic: {{pattern: uniform, load: {}, packet_flits: 4}}\n"
      "sim: {{warmup_cycles: {}, measure_cycles: {}, max_drain_cycles: 0, seed: 1}}\n",
      topo, tree ? "updown" : "dor", torus || tree ? 8 : 4, torus || tree ? "vct" : "wormhole", load, warmup, measure);
}

int run_one(int argc, char* argv[]) {
  const std::string what = argv[1];
  const std::string load = argv[2];
  const bool is_file = what.size() > 5 && what.compare(what.size() - 5, 5, ".yaml") == 0;
  ftsim::tb::ExperimentConfig cfg;
  if (is_file) {
    std::vector<std::string> overrides{"traffic.load=" + load};
    for (int i = 3; i < argc; ++i) overrides.emplace_back(argv[i]);
    cfg = ftsim::tb::load_experiment(what, overrides);
  } else {
    cfg = ftsim::tb::parse_experiment(
        synthetic_yaml(what, load, argc > 3 ? argv[3] : "10000", argc > 4 ? argv[4] : "30000"), {});
  }
  ftsim::tb::RunOptions o;
  o.quiet = true;
  const auto r = ftsim::tb::run_experiment(cfg, o);
  const auto& j = r.stats;
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  const double rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  const auto routers = j["routers"].get<long long>();
  std::string label = what;
  if (is_file) {
    label = what.substr(what.find_last_of('/') + 1);
    for (int i = 3; i < argc; ++i) label += std::string(" ") + argv[i];
  }
  std::printf(
      "%-28s load %-4s %8.3f M node-cycles/s  accepted %.4f  latency %7.1f  %lld cycles %6.2f s  "
      "peak RSS %7.1f MiB  %5lld routers  %6.1f KiB/router\n",
      label.c_str(), load.c_str(), j["node_cycles_per_second"].get<double>() / 1e6, j["accepted_load"].get<double>(),
      j["latency_cycles"]["mean"].is_number() ? j["latency_cycles"]["mean"].get<double>() : 0.0,  // no packet delivered
      j["cycles"].get<long long>(), j["simulation_seconds"].get<double>(), rss_mib, routers,
      rss_mib * 1024.0 / static_cast<double>(routers));
  // The model's own state (sizeof, this build): per router and per VC; the
  // rest of the peak RSS is SystemC's objects, names and processes, the
  // traffic endpoints and the flits' FIFO storage as it grows.
  const std::size_t fifo_entry = sizeof(ftsim::hw::DelayEntry<ftsim::hw::Flit>);
  std::printf(
      "%-28s state: Router %zu B, per port InputUnit %zu B + OutputUnit %zu B; per VC InputVc %zu B + OutputVc %zu "
      "B + FIFO %d flits x %zu B = %zu B\n",
      "", sizeof(ftsim::hw::Router), sizeof(ftsim::hw::InputUnit), sizeof(ftsim::hw::OutputUnit),
      sizeof(ftsim::hw::InputVc), sizeof(ftsim::hw::OutputVc), cfg.router.buffer_flits, fifo_entry,
      sizeof(ftsim::hw::InputVc) + sizeof(ftsim::hw::OutputVc) +
          static_cast<std::size_t>(cfg.router.buffer_flits) * fifo_entry);
  return r.exit_code;
}

/// Runs one configuration in a child process; returns its exit status.
int spawn(const char* self, const std::vector<std::string>& args) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(self)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

const char* const kUsage =
    "usage: bench_network                      the 8x8 set (mesh and torus, DOR, loads 0.1 and 0.2)\n"
    "       bench_network --scaling            16x16, 32x32 meshes, 8x8x8 torus, 16-ary 3-tree\n"
    "       bench_network --papers             the papers' base experiments at their loads\n"
    "       bench_network TOPO LOAD [WARMUP MEASURE]\n"
    "       bench_network FILE.yaml LOAD [KEY=VALUE...]\n"
    "Prints node-cycles per second, accepted load, latency and peak memory (not a test).\n";

int sc_main(int argc, char* argv[]) {
  if (argc >= 3) return run_one(argc, argv);
  const std::string set = argc == 2 ? argv[1] : "";
  if (set == "--help" || set == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  int failures = 0;
  if (set.empty()) {
    std::printf("ftsim bench: 8x8, DOR, 2 VCs, 4-flit packets, uniform, 10,000 + 30,000 cycles\n");
    for (const char* topo : {"mesh:8x8", "torus:8x8"})
      for (const char* load : {"0.1", "0.2"}) failures += spawn(argv[0], {topo, load}) != 0;
  } else if (set == "--scaling") {
    // Near saturation: the saturation throughput measured with this set at
    // an overload (accepted flits/node/cycle: mesh 16x16 0.109 at 0.2, 32x32
    // 0.058 at 0.1, torus 8x8x8 0.384 at 0.5, 16-ary 3-tree 0.251 at 0.6;
    // docs/performance.md). On the 32x32 mesh load 0.1 is itself above
    // saturation, on the 16x16 mesh just below it.
    std::printf("ftsim bench --scaling: uniform, 4-flit packets, 2,000 + 5,000 cycles\n");
    const std::vector<std::pair<const char*, std::vector<const char*>>> grid = {
        {"mesh:16x16", {"0.1", "0.11"}},
        {"mesh:32x32", {"0.1", "0.055"}},
        {"torus:8x8x8", {"0.1", "0.38"}},
        {"kary-ntree:16,3", {"0.1", "0.25"}},
    };
    for (const auto& [topo, loads] : grid)
      for (const char* load : loads) failures += spawn(argv[0], {topo, load, "2000", "5000"}) != 0;
  } else if (set == "--papers") {
    const std::string dir = FTSIM_EXPERIMENTS_DIR;
    std::printf("ftsim bench --papers: the papers' base experiments at their loads\n");
    failures += spawn(argv[0], {dir + "/dlr-base.yaml", "0.70", "routing=ddlr"}) != 0;
    failures += spawn(argv[0], {dir + "/dlr-base.yaml", "0.70", "routing=adlr", "router.vcs=1"}) != 0;
    failures += spawn(argv[0], {dir + "/dlr-base.yaml", "0.70", "routing=ddlr", "topology=kary-ntree:2,6"}) != 0;
    failures += spawn(argv[0], {dir + "/inodes-8x8x8-base.yaml", "0.6"}) != 0;
  } else {
    std::fprintf(stderr, "bench_network: unknown set '%s'\n%s", set.c_str(), kUsage);
    return 2;
  }
  return failures == 0 ? 0 : 1;
}
