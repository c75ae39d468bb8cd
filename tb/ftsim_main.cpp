// The ftsim command: run, sweep, list.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <systemc>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "routing_logic/routing_relation.hpp"
#include "tb/experiment_runner.hpp"
#include "tb/sweep.hpp"

namespace {

int plot_timeseries(const std::string& dir) {
  const std::string gp = dir + "/timeseries.gp";
  std::ofstream g(gp);
  g << "set terminal pngcairo size 900,700\nset output '" << dir << "/timeseries.png'\n"
    << "set datafile separator ','\nset multiplot layout 2,1\nset grid\nset key right bottom\n"
    << "set ylabel 'flits/node/cycle'\nplot '" << dir
    << "/timeseries.csv' every ::1 using 2:3 with lines title 'offered', '' every ::1 using 2:4 with lines title "
       "'accepted'\n"
    << "set xlabel 'cycle'\nset ylabel 'mean latency (cycles)'\nplot '" << dir
    << "/timeseries.csv' every ::1 using 2:6 with lines title 'latency'\nunset multiplot\n";
  g.close();
  return std::system(fmt::format("gnuplot '{}' 2> '{}/gnuplot.log'", gp, dir).c_str());
}

}  // namespace

// libsystemc defines main() and prints its banner before sc_main; ours
// takes precedence, silences the banner and hands over to SystemC.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  CLI::App app{"ftsim: cycle-level model of fault-tolerant interconnection-network routers"};
  app.require_subcommand(1);

  std::string experiment;
  std::vector<std::string> sets;
  std::string out_dir = "results";
  std::string vcd;
  std::int64_t trace_from = 0;
  std::int64_t trace_to = -1;
  bool quiet = false;
  bool plot = false;
  auto* run = app.add_subcommand("run", "run one experiment; writes DIR/stats.json and DIR/timeseries.csv");
  run->add_option("experiment", experiment, "experiment YAML file")->required();
  run->add_option("--set", sets, "override a key: dotted.key=value (repeatable)");
  run->add_option("--out", out_dir, "output directory (default results)");
  auto* vcd_opt = run->add_option("--vcd", vcd, "write VCD waves to FILE");
  run->add_option("--trace-from", trace_from, "first traced cycle")->needs(vcd_opt)->check(CLI::NonNegativeNumber);
  run->add_option("--trace-to", trace_to, "last traced cycle")->needs(vcd_opt)->check(CLI::NonNegativeNumber);
  run->add_flag("--quiet", quiet, "no progress on stderr");
  run->add_flag("--plot", plot, "also plot the time series to DIR/timeseries.png (gnuplot)");

  std::string sweep_file;
  int jobs = 2;
  std::string sweep_out = "results/sweep";
  auto* sweep =
      app.add_subcommand("sweep", "expand a grid into runs on a worker pool; writes DIR/results.csv and plots");
  sweep->add_option("sweep", sweep_file, "sweep YAML file")->required();
  sweep->add_option("--jobs", jobs, "worker processes")->check(CLI::Range(1, 1024));
  sweep->add_option("--out", sweep_out, "output directory");
  sweep->add_flag("--quiet", quiet, "no progress on stderr");

  auto* list = app.add_subcommand("list", "print topologies, routing relations, mechanisms and traffic patterns");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  try {
    if (list->parsed()) {
      std::cout << "topologies:\n";
      for (const auto& t : ftsim::routing::topology_names()) std::cout << "  " << t << "\n";
      std::cout << "routing relations:\n";
      for (const auto& [n, d] : ftsim::routing::routing_names()) std::cout << fmt::format("  {:<16} {}\n", n, d);
      std::cout << "mechanisms:\n"
                << fmt::format("  {:<16} {}\n", "immunet",
                               "routing: immunet; emergency state, spanning-tree BFC safe ring, provisional and "
                               "optimised safe tables, distance-vector adaptive tables (torus)");
      std::cout << "traffic patterns:\n";
      for (const auto& [n, d] : ftsim::tb::traffic_pattern_names()) std::cout << fmt::format("  {:<16} {}\n", n, d);
      return 0;
    }
    if (sweep->parsed()) {
      ftsim::tb::SweepOptions so;
      so.sweep_path = sweep_file;
      so.out_dir = sweep_out;
      so.jobs = jobs;
      so.quiet = quiet;
      so.self_exe = std::filesystem::canonical("/proc/self/exe").string();
      const int failed = ftsim::tb::run_sweep(so);
      std::cout << fmt::format("ftsim: wrote {}/results.csv, {}/accepted_load.png, {}/latency.png\n", sweep_out,
                               sweep_out, sweep_out);
      if (failed > 0) {
        std::cerr << fmt::format("ftsim sweep: {} runs exited non-zero; see their run.log\n", failed);
        return 1;
      }
      return 0;
    }
    const auto cfg = ftsim::tb::load_experiment(experiment, sets);
    ftsim::tb::RunOptions ro;
    ro.out_dir = out_dir;
    ro.vcd_path = vcd;
    ro.trace_from = trace_from;
    ro.trace_to = trace_to;
    ro.quiet = quiet;
    ro.experiment_name = experiment;
    if (!vcd.empty() && trace_to >= 0 && trace_to < trace_from)
      throw ftsim::routing::ConfigError(fmt::format("--trace-to {} is before --trace-from {}", trace_to, trace_from));
    const auto res = ftsim::tb::run_experiment(cfg, ro);
    if (!quiet) {
      std::cout << fmt::format("ftsim: wrote {}/stats.json and {}/timeseries.csv\n", out_dir, out_dir);
      if (!vcd.empty()) std::cout << fmt::format("ftsim: wrote waves to {}\n", vcd);
    }
    if (plot) {
      if (plot_timeseries(out_dir) == 0) {
        if (!quiet) std::cout << fmt::format("ftsim: wrote plot {}/timeseries.png\n", out_dir);
      } else {
        std::cerr << "ftsim: gnuplot failed; the plot was not written\n";
      }
    }
    if (res.exit_code != 0) std::cerr << "ftsim: " << res.message << "\n";
    return res.exit_code;
  } catch (const ftsim::routing::ConfigError& e) {
    std::cerr << "ftsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ftsim: internal error: " << e.what() << "\n";
    return 4;
  }
}
