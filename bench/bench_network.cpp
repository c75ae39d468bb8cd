// Simulation speed benchmark (not a test): prints node-cycles per second and
// peak RSS for the configurations of docs/performance.md.
//
//   bench_network            runs all four configurations, one child process each
//   bench_network TOPO LOAD  runs one (8x8 mesh or torus, DOR, 2 VCs x 4 flits,
//                            4-flit packets, 10,000 warm-up + 30,000 measured cycles)
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <systemc>

#include "tb/experiment_runner.hpp"

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  if (argc == 3) {
    const std::string topo = argv[1];
    const std::string load = argv[2];
    const bool torus = topo.rfind("torus", 0) == 0;
    // Torus DOR uses bubble flow control, which needs VCT and two packets per
    // queue; the mesh runs wormhole with the same 2 VCs x 4 flits as BookSim2.
    const std::string yaml = fmt::format(
        "topology: {}\nrouting: dor\nrouter: {{vcs: 2, buffer_flits: {}, flow_control: {}}}\n"
        "traffic: {{pattern: uniform, load: {}, packet_flits: 4}}\n"
        "sim: {{warmup_cycles: 10000, measure_cycles: 30000, max_drain_cycles: 0, seed: 1}}\n",
        topo, torus ? 8 : 4, torus ? "vct" : "wormhole", load);
    const auto cfg = ftsim::tb::parse_experiment(yaml, {});
    ftsim::tb::RunOptions o;
    o.quiet = true;
    const auto r = ftsim::tb::run_experiment(cfg, o);
    const auto& j = r.stats;
    std::printf(
        "%-10s load %-4s  %8.3f M node-cycles/s  (%lld cycles, %.3f s simulated, accepted %.4f, latency %.1f)\n",
        topo.c_str(), load.c_str(), j["node_cycles_per_second"].get<double>() / 1e6, j["cycles"].get<long long>(),
        j["simulation_seconds"].get<double>(), j["accepted_load"].get<double>(),
        j["latency_cycles"]["mean"].get<double>());
    return r.exit_code;
  }
  std::printf("ftsim bench: 8x8, DOR, 2 VCs, 4-flit packets, uniform, 10,000 + 30,000 cycles\n");
  for (const char* topo : {"mesh:8x8", "torus:8x8"})
    for (const char* load : {"0.1", "0.2"}) {
      std::fflush(stdout);
      const pid_t pid = fork();
      if (pid == 0) {
        execl("/proc/self/exe", argv[0], topo, load, static_cast<char*>(nullptr));
        _exit(127);
      }
      int status = 0;
      struct rusage ru {};
      wait4(pid, &status, 0, &ru);
      std::printf("%-10s load %-4s  peak RSS %.1f MiB\n", topo, load, static_cast<double>(ru.ru_maxrss) / 1024.0);
    }
  return 0;
}
