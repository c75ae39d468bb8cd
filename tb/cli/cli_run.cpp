// `ftsim run`: one experiment, its summary, waves and time-series plot.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "common/config_error.hpp"
#include "tb/cli/cli_commands.hpp"
#include "tb/experiment_runner.hpp"
#include "tb/gnuplot.hpp"
#include "tb/output_files.hpp"
#include "tb/run_summary.hpp"

#ifdef FTSIM_PGO_GENERATE
extern "C" void __gcov_dump();  // libgcov (GCC -fprofile-generate)
#endif

namespace ftsim::tb::cli {

namespace {

/// Time-series plot (DIR/timeseries.png): offered and accepted load, and mean
/// latency, over cycles; the warm-up and measurement window shaded, and
/// vertical lines at every fault, repair, and (Immunet) the first detection,
/// the end of the emergency and the last table update. gnuplot runs without a
/// shell and leaves no script or log behind. Returns false (with gnuplot's
/// message in *error) when gnuplot is not installed; throws OutputError when
/// the plot could not be written.
bool plot_timeseries(const std::string& dir, const std::string& title, const nlohmann::json& stats,
                     std::uint64_t warmup, std::uint64_t measure, std::string* error) {
  using ftsim::tb::gnuplot_quote;
  std::ostringstream g;
  const std::string csv = gnuplot_quote(dir + "/timeseries.csv");
  g << "set terminal pngcairo size 1000,750 noenhanced\nset output " << gnuplot_quote(dir + "/timeseries.png")
    << "\nset datafile separator ','\nset multiplot layout 2,1 title " << gnuplot_quote(title) << "\n"
    << "set grid\nset key outside right top\nset yrange [0:*]\nset xrange [0:*]\n";
  // Markers: x = cycle, full height, label at the top.
  std::vector<std::pair<std::uint64_t, std::string>> marks;
  if (stats.contains("faults"))
    for (const auto& f : stats["faults"]) {
      const std::string what = f.value("label", std::string("fault"));
      if (f.contains("at") && f["at"].is_number() && f["at"].get<double>() >= 0)
        marks.emplace_back(f["at"].get<std::uint64_t>(), "fault " + what);
      if (f.contains("repair") && f["repair"].is_number() && f["repair"].get<double>() >= 0)
        marks.emplace_back(f["repair"].get<std::uint64_t>(), "repair " + what);
    }
  if (stats.contains("reconfiguration") && stats["reconfiguration"].value("happened", false)) {
    const auto& r = stats["reconfiguration"];
    marks.emplace_back(r["first_detect_cycle"].get<std::uint64_t>(), "detected");
    marks.emplace_back(r["emergency_end_cycle"].get<std::uint64_t>(), "emergency over");
    marks.emplace_back(r["last_table_update_cycle"].get<std::uint64_t>(), "tables final");
  }
  std::sort(marks.begin(), marks.end());
  const char* colours[] = {"#c0392b", "#8e44ad", "#2471a3", "#117a65"};
  int i = 0;
  for (const auto& [x, label] : marks) {
    const char* col = colours[label.rfind("fault", 0) == 0 ? 0 : label.rfind("repair", 0) == 0 ? 3 : 1 + (i % 2)];
    g << "set arrow from " << x << ", graph 0 to " << x << ", graph 1 nohead dt 2 lw 1.5 lc rgb '" << col << "'\n"
      << "set label " << gnuplot_quote(label) << " at " << x << ", graph " << (0.97 - 0.07 * (i % 4))
      << " left offset 0.5,0 textcolor rgb '" << col << "' font ',9'\n";
    ++i;
  }
  g << "set object 1 rect from 0, graph 0 to " << warmup << ", graph 1 behind fc rgb '#eeeeee' fs solid noborder\n"
    << "set label " << gnuplot_quote("warm-up") << " at " << warmup / 2 << ", graph 0.04 center font ',9'\n"
    << "set label " << gnuplot_quote("measurement window") << " at " << warmup + measure / 2
    << ", graph 0.04 center font ',9'\n"
    << "set label " << gnuplot_quote("drain") << " at " << warmup + measure
    << ", graph 0.04 left offset 1,0 font ',9'\n"
    << "set lmargin 10\nset rmargin 18\n"
    << "set object 2 rect from " << warmup + measure
    << ", graph 0 to graph 1, graph 1 behind fc rgb '#eeeeee' fs "
       "solid noborder\n"
    << "set ylabel 'load (flits/node/cycle)'\nplot " << csv
    << " every ::1 using 2:3 with lines lw 1.5 title 'offered', '' every ::1 using 2:4 with lines lw 2 title "
       "'accepted'\n"
    << "unset label\nset xlabel 'cycle'\nset ylabel 'mean latency (cycles)'\nplot " << csv
    << " every ::1 using 2:6 with lines lw 1.5 title 'latency'\nunset multiplot\n";
  return ftsim::tb::draw_plots(g.str(), {dir + "/timeseries.png"}, error);
}

class RunCommand final : public Command {
 public:
  RunCommand(CLI::App& app, const Defaults& d) {
    auto* run = app.add_subcommand("run", "run one experiment; writes DIR/stats.json and DIR/timeseries.csv");
    run->add_option("experiment", experiment, "experiment YAML file")->required();
    run->add_option("--set", sets, "override a key: dotted.key=value (repeatable)");
    run->add_option("--out", out_dir, "output directory (default results)");
    auto* vcd_opt = run->add_option("--vcd", vcd, "write VCD waves to FILE");
    run->add_option("--trace-from", trace_from, "first traced cycle")
        ->needs(vcd_opt)
        ->check(integer_in(0, std::numeric_limits<std::int64_t>::max()));
    run->add_option("--trace-to", trace_to, "last traced cycle")
        ->needs(vcd_opt)
        ->check(integer_in(0, std::numeric_limits<std::int64_t>::max()));
    run->add_option("--trace-routers", trace_routers,
                    "trace only these routers: labels and mesh/torus regions separated by ';' "
                    "(e.g. \"3,3;4,3\" or \"2..5,2..5\"; default all)")
        ->needs(vcd_opt);
    run->add_flag("--quiet", quiet, "no progress on stderr");
    run->add_flag("--plot", plot, "also plot the time series to DIR/timeseries.png (gnuplot)");
    m_command_line = d.command_line;
    m_app = run;
  }
  int execute() override {
    const auto cfg = ftsim::tb::load_experiment(experiment, sets);
    // Everything the user gave is checked before any output exists: a bad
    // --trace-routers used to leave an empty folder and a 0-byte VCD.
    if (!vcd.empty() && trace_to >= 0 && trace_to < trace_from)
      throw ftsim::ConfigError(fmt::format("--trace-to {} is before --trace-from {}", trace_to, trace_from));
    const std::int64_t last_cycle = cfg.sim.warmup_cycles + cfg.sim.measure_cycles + cfg.sim.max_drain_cycles;
    if (!vcd.empty() && trace_from >= last_cycle)
      throw ftsim::ConfigError(
          fmt::format("--trace-from {} is beyond the run: it ends by cycle {} (warm-up + measurement + at most "
                      "sim.max_drain_cycles of drain)",
                      trace_from, last_cycle));
    if (!trace_routers.empty()) ftsim::tb::check_trace_routers(cfg, trace_routers);
    if (!vcd.empty()) ftsim::tb::check_output_file(vcd, "--vcd");
    ftsim::tb::prepare_output_dir(out_dir, "--out");
    ftsim::tb::RunOptions ro;
    ro.out_dir = out_dir;
    ro.vcd_path = vcd;
    ro.trace_from = trace_from;
    ro.trace_to = trace_to;
    ro.trace_routers = trace_routers;
    ro.quiet = quiet;
    ro.experiment_name = experiment;
    ro.command_line = m_command_line;
    const auto res = ftsim::tb::run_experiment(cfg, ro);
    if (!quiet) {
      std::cout << ftsim::tb::run_summary(res.stats);
      std::cout << fmt::format("ftsim: wrote {}/stats.json and {}/timeseries.csv{}\n", out_dir, out_dir,
                               res.stats.value("complete", true) ? "" : " (incomplete: interrupted)");
      if (!vcd.empty() && res.stats["cycles"].get<std::int64_t>() > trace_from)
        std::cout << fmt::format("ftsim: wrote waves to {}\n", vcd);
    }
    if (!vcd.empty() && res.stats["cycles"].get<std::int64_t>() <= trace_from)
      std::cerr << fmt::format("ftsim: no waves written: the run ended at cycle {}, before --trace-from {}\n",
                               res.stats["cycles"].get<std::int64_t>(), trace_from);
    if (plot) {
      std::string why;
      const std::string title =
          cfg.source["name"] && cfg.source["name"].IsScalar() ? cfg.source["name"].Scalar() : experiment;
      if (plot_timeseries(out_dir, title, res.stats, cfg.sim.warmup_cycles, cfg.sim.measure_cycles, &why)) {
        if (!quiet) std::cout << fmt::format("ftsim: wrote plot {}/timeseries.png\n", out_dir);
      } else {
        std::cerr << "ftsim: gnuplot is not installed; the plot was not written\n" << why;
      }
    }
    if (res.exit_code != 0) std::cerr << "ftsim: " << res.message << "\n";
    // Every output is closed: skip the destructors. Tearing down the SystemC
    // hierarchy of a large network took a minute (200x200 mesh) for nothing.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
#ifdef FTSIM_PGO_GENERATE
    __gcov_dump();  // an instrumented build (FTSIM_PGO=generate): _Exit skips the handler that writes the profile
#endif
    std::_Exit(res.exit_code);
    return res.exit_code;  // not reached
  }

 private:
  std::string m_command_line;
  std::string experiment;
  std::vector<std::string> sets;
  std::string out_dir = "results";
  std::string vcd;
  std::int64_t trace_from = 0;
  std::int64_t trace_to = -1;
  std::string trace_routers;
  bool quiet = false;
  bool plot = false;
};

}  // namespace

void add_run_command(CLI::App& app, const Defaults& d, Commands& out) {
  out.push_back(std::make_unique<RunCommand>(app, d));
}

}  // namespace ftsim::tb::cli
