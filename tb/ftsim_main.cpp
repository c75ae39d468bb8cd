// The ftsim command: run, sweep, list.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <CLI/CLI.hpp>
#include <systemc>

#include <fmt/ranges.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <thread>
#include "routing_logic/dqr.hpp"
#include "routing_logic/fat_tree_analysis.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/routing_trials.hpp"
#include "tables/lft.hpp"
#include "tb/cli_sweep.hpp"
#include "tb/cli_text.hpp"
#include "tb/dqr_analysis.hpp"
#include "tb/experiment_runner.hpp"
#include "tb/fault_tolerance_analysis.hpp"
#include "tb/gnuplot.hpp"
#include "tb/mechanism_registry.hpp"
#include "tb/output_files.hpp"
#include "tb/plugin_registry.hpp"
#include "tb/run_summary.hpp"
#include "tb/sweep.hpp"
#include "tb/sweep_mpi.hpp"
#include "tb/version.hpp"

namespace {

/// Time-series plot (DIR/timeseries.png): offered and accepted load, and mean
/// latency, over cycles; the warm-up and measurement window shaded, and
/// vertical lines at every fault, repair, and (Immunet) the first detection,
/// the end of the emergency and the last table update. gnuplot runs without a
/// shell and leaves no script or log behind. Returns false (with gnuplot's
/// message in *error) when the plot was not written.
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
  return ftsim::tb::run_gnuplot(g.str(), error);
}

/// "did you mean" for the first command-line word CLI11 rejected: an unknown
/// subcommand or an unknown --flag of the subcommand it follows. Empty when
/// nothing is close.
std::string cli_suggestion(CLI::App& app, int argc, char* argv[]) {
  CLI::App* cur = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string tok = argv[i];
    std::vector<std::string> subs;
    for (CLI::App* sub : cur->get_subcommands([](CLI::App*) { return true; })) subs.push_back(sub->get_name());
    if (std::find(subs.begin(), subs.end(), tok) != subs.end()) {
      cur = cur->get_subcommand(tok);
      continue;
    }
    if (tok.rfind("--", 0) == 0) {
      const std::string name = tok.substr(0, tok.find('='));
      std::vector<std::string> flags;
      for (const CLI::Option* o : cur->get_options())
        for (const auto& l : o->get_lnames()) flags.push_back("--" + l);
      if (std::find(flags.begin(), flags.end(), name) != flags.end()) continue;
      return ftsim::tb::closest_match(name, flags);
    }
    if (!subs.empty() && cur->get_require_subcommand_min() > 0) return ftsim::tb::closest_match(tok, subs);
  }
  return {};
}

/// Every dotted experiment key with its default, from the resolved default
/// configuration (the same layout as stats.json "config").
void print_keys(const nlohmann::json& j, const std::string& prefix) {
  for (const auto& [k, v] : j.items()) {
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v.is_object())
      print_keys(v, key);
    else
      std::cout << fmt::format("  {:<34} {}\n", key, v.dump());
  }
}

/// `ftsim list [what]`: what the model offers, the experiment keys and the
/// experiment files with their first comment line.
void list_command(const std::string& what, std::string dir) {
  const bool all = what == "all";
  if (all || what == "topologies") {
    std::cout << "topologies:\n";
    for (const auto& t : ftsim::routing::topology_names()) std::cout << "  " << t << "\n";
  }
  if (all || what == "routing") {
    std::cout << "routing relations:\n";
    for (const auto& [n, d] : ftsim::routing::routing_names()) std::cout << fmt::format("  {:<16} {}\n", n, d);
  }
  if (all || what == "mechanisms") {
    std::cout << "mechanisms (and the keys of their experiment sections):\n";
    for (const auto& m : ftsim::tb::mechanism_plugins()) {
      std::cout << fmt::format("  {:<16} {}\n", m.name, m.description);
      for (const auto& k : m.keys)
        std::cout << fmt::format("    {:<32} {:<28} {}\n", m.section + "." + k.name, k.allowed, k.meaning);
    }
  }
  if (all || what == "patterns") {
    std::cout << "traffic patterns:\n";
    for (const auto& [n, d] : ftsim::tb::traffic_pattern_names()) std::cout << fmt::format("  {:<16} {}\n", n, d);
  }
  if (all || what == "fault-models") {
    std::cout << "fault models (faults.model):\n";
    for (const auto& [n, d] : ftsim::tb::fault_model_names()) std::cout << fmt::format("  {:<16} {}\n", n, d);
  }
  if (all || what == "keys") {
    std::cout << "experiment keys (default value; docs/user-guide.md explains each):\n";
    nlohmann::json d = ftsim::tb::resolved_config_json(ftsim::tb::parse_experiment("{}", {}));
    d["faults"].erase("schedule");
    print_keys(d, "");
    std::cout << fmt::format("  {:<34} {}\n", "faults.schedule",
                             "[{link: LABEL | link_id: N | switch: LABEL | node: LABEL, at: CYCLE, repair: CYCLE}]");
  }
  if (all || what == "experiments") {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (dir.empty()) {
      dir = "experiments";
      if (!fs::is_directory(dir, ec)) {
        const fs::path exe = fs::canonical("/proc/self/exe", ec);
        for (const fs::path& cand : {exe.parent_path().parent_path() / "experiments",
                                     exe.parent_path().parent_path() / "share/ftsim/experiments"})
          if (fs::is_directory(cand, ec)) {
            dir = cand.string();
            break;
          }
      }
    }
    std::vector<fs::path> files;
    if (fs::is_directory(dir, ec))
      for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::cout << fmt::format("experiment files in {}{}:\n", dir, files.empty() ? " (none found)" : "");
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string first;
      std::getline(in, first);
      // The first comment line, without its "# ".
      const std::size_t text = first.rfind('#', 0) == 0 ? first.find_first_not_of("# ") : std::string::npos;
      first = text == std::string::npos ? std::string() : first.substr(text);
      std::cout << fmt::format("  {:<40} {}\n", f.filename().string(), first);
    }
  }
}

constexpr long long kMaxRangeValues = 100000;

/// Parses "A..B", "A..B:STEP", "A,B,C" or "A" into integers (at most
/// kMaxRangeValues of them). Throws ConfigError naming the option.
std::vector<int> parse_range(const std::string& text, const std::string& option) {
  std::vector<int> out;
  auto num = [&](const std::string& t) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(t, &used);
      if (used != t.size() || v < 0) throw std::invalid_argument(t);
      return v;
    } catch (const std::exception&) {
      throw ftsim::ConfigError(
          fmt::format("{} '{}': '{}' is not a non-negative integer; use A..B, A..B:STEP or A,B,C", option, text, t));
    }
  };
  const std::size_t dots = text.find("..");
  if (dots != std::string::npos) {
    std::string rest = text.substr(dots + 2);
    int step = 1;
    const std::size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      step = num(rest.substr(colon + 1));
      rest = rest.substr(0, colon);
    }
    const int a = num(text.substr(0, dots));
    const int b = num(rest);
    if (step < 1 || b < a)
      throw ftsim::ConfigError(fmt::format("{} '{}': expected A..B with A <= B and STEP >= 1", option, text));
    const long long count = (static_cast<long long>(b) - a) / step + 1;
    if (count > kMaxRangeValues)
      throw ftsim::ConfigError(
          fmt::format("{} '{}': {} values; at most {} allowed", option, text, count, kMaxRangeValues));
    for (long long v = a; v <= b; v += step) out.push_back(static_cast<int>(v));  // no int overflow at INT_MAX
    return out;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t next = text.find(',', pos);
    if (next == std::string::npos) next = text.size();
    out.push_back(num(text.substr(pos, next - pos)));
    pos = next + 1;
  }
  return out;
}

}  // namespace

// libsystemc defines main() and prints its banner before sc_main; ours
// takes precedence, silences the banner and hands over to SystemC.
/// `ftsim lft diff A B`: prints the comparison and optionally writes it as
/// JSON. Throws ConfigError for unreadable or malformed dumps and unknown
/// links.
void lft_diff_command(const std::string& lft_a, const std::string& lft_b, const std::string& lft_topology,
                      const std::vector<std::string>& lft_faults, const std::string& lft_json) {
  if (!lft_json.empty()) ftsim::tb::check_output_file(lft_json, "--json");
  if (!lft_faults.empty() && lft_topology.empty()) throw ftsim::ConfigError("lft diff: --fault needs --topology");
  const auto a = ftsim::tables::LftSet::load(lft_a);
  const auto b = ftsim::tables::LftSet::load(lft_b);
  std::unique_ptr<ftsim::routing::Topology> topo;
  ftsim::routing::FaultSet faults;
  if (!lft_topology.empty()) {
    topo = ftsim::routing::make_topology(lft_topology);
    for (const auto& f : lft_faults) faults.links.push_back(topo->parse_link_any(f));
  }
  const auto d = ftsim::tables::diff_tables(a, b, topo.get(), faults);
  nlohmann::json j = {{"a", lft_a},
                      {"b", lft_b},
                      {"entries_a", a.entries()},
                      {"entries_b", b.entries()},
                      {"entries_changed", d.entries_changed},
                      {"blocks_changed", d.blocks_changed},
                      {"switches_changed", d.switches_changed}};
  std::cout << fmt::format("entries changed   {} of {} ({} switches, {} 64-entry blocks)\n", d.entries_changed,
                           a.entries(), d.switches_changed, d.blocks_changed);
  if (d.traced) {
    j["topology"] = topo->spec();
    j["faults"] = lft_faults;
    j["flows"] = d.flows;
    j["flows_rerouted"] = d.flows_rerouted;
    j["flows_rerouted_fraction"] = d.flows ? static_cast<double>(d.flows_rerouted) / d.flows : 0.0;
    j["unrouted_a"] = d.unrouted_a;
    j["unrouted_b"] = d.unrouted_b;
    j["stretch_mean"] = d.stretch_mean;
    j["stretch_max"] = d.stretch_max;
    j["cdg_acyclic_a"] = d.acyclic_a;
    j["cdg_acyclic_b"] = d.acyclic_b;
    j["cycle_a"] = d.cycle_a;
    j["cycle_b"] = d.cycle_b;
    std::cout << fmt::format("flows rerouted    {} of {} HCA pairs ({:.2f}%), unrouted A {} B {}\n", d.flows_rerouted,
                             d.flows, d.flows ? 100.0 * d.flows_rerouted / d.flows : 0.0, d.unrouted_a, d.unrouted_b);
    std::cout << fmt::format("stretch           mean {:.3f}, max {:.3f} (switches traversed, B / A)\n", d.stretch_mean,
                             d.stretch_max);
    std::cout << fmt::format("CDG A             {}\n",
                             d.acyclic_a ? "acyclic" : "CYCLIC: " + fmt::format("{}", fmt::join(d.cycle_a, " -> ")));
    std::cout << fmt::format("CDG B             {}\n",
                             d.acyclic_b ? "acyclic" : "CYCLIC: " + fmt::format("{}", fmt::join(d.cycle_b, " -> ")));
  }
  if (!lft_json.empty()) ftsim::tb::write_file_atomically(lft_json, j.dump(2) + "\n");
}

/// `ftsim lft export`: the initial tables of `initial` (dor, updn or
/// import:DIR) on `topology`, optionally reconfigured by DQR `variant` after
/// the listed link faults, written as OUT/opensm-lfts.dump (OpenSM's dump
/// format; LIDs as in the imported dump, else HCAs first from LID 1). Throws
/// ConfigError for an unknown topology, initial or variant, a link that does
/// not exist, or a reconfiguration that fails.
void lft_export_command(const std::string& topology, const std::string& initial, const std::vector<std::string>& faults,
                        const std::string& variant, const std::string& out) {
  namespace rt = ftsim::routing;
  const auto topo = rt::make_topology(topology);
  auto init = ftsim::tb::dqr_initial(*topo, initial);
  auto& tables = init.tables;
  ftsim::tables::LftSet like;
  if (initial.rfind("import:", 0) == 0) like = ftsim::tables::LftSet::load(initial.substr(7));
  std::string what = "initial " + initial;
  if (!faults.empty()) {
    std::vector<rt::LinkId> links;
    for (const auto& f : faults) links.push_back(topo->parse_link_any(f));
    rt::dqr::Engine engine(*topo, tables, init.layers);
    const auto r = engine.reconfigure(links, rt::dqr::variant_options(variant));
    if (!r.success)
      throw ftsim::ConfigError(fmt::format("lft export: DQR {} could not reconfigure around {}: {}", variant,
                                           fmt::join(faults, ", "), r.failure));
    tables = engine.tables();
    what += fmt::format(", DQR {} after {} ({} entries changed)", variant, fmt::join(faults, ", "), r.entries_changed);
  }
  ftsim::tables::NodeTables nt;
  nt.port = tables;
  const auto set = ftsim::tables::export_tables(nt, *topo, like);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw ftsim::ConfigError(fmt::format("--out {}: cannot create the folder: {}", out, ec.message()));
  const std::string path = (std::filesystem::path(out) / "opensm-lfts.dump").string();
  ftsim::tb::write_file_atomically(path, set.dump());
  std::cout << fmt::format("ftsim: wrote {} ({} switches, {} entries; {})\n", path, set.switches.size(), set.entries(),
                           what);
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  CLI::App app{"ftsim: cycle-level model of fault-tolerant interconnection-network routers"};
#ifdef FTSIM_HAVE_MPI
  constexpr const char* kMpiBackend = "on";
#else
  constexpr const char* kMpiBackend = "off";
#endif
  app.set_version_flag("--version", fmt::format("ftsim {} (commit {}; MPI sweep backend {})", ftsim::version(),
                                                ftsim::git_commit(), kMpiBackend));
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  app.require_subcommand(1);

  std::string experiment;
  std::vector<std::string> sets;
  std::string out_dir = "results";
  std::string vcd;
  std::int64_t trace_from = 0;
  std::int64_t trace_to = -1;
  std::string trace_routers;
  bool quiet = false;
  bool plot = false;
  auto* run = app.add_subcommand("run", "run one experiment; writes DIR/stats.json and DIR/timeseries.csv");
  run->add_option("experiment", experiment, "experiment YAML file")->required();
  run->add_option("--set", sets, "override a key: dotted.key=value (repeatable)");
  run->add_option("--out", out_dir, "output directory (default results)");
  auto* vcd_opt = run->add_option("--vcd", vcd, "write VCD waves to FILE");
  run->add_option("--trace-from", trace_from, "first traced cycle")->needs(vcd_opt)->check(CLI::NonNegativeNumber);
  run->add_option("--trace-to", trace_to, "last traced cycle")->needs(vcd_opt)->check(CLI::NonNegativeNumber);
  run->add_option("--trace-routers", trace_routers,
                  "trace only these routers: labels and mesh/torus regions separated by ';' "
                  "(e.g. \"3,3;4,3\" or \"2..5,2..5\"; default all)")
      ->needs(vcd_opt);
  run->add_flag("--quiet", quiet, "no progress on stderr");
  run->add_flag("--plot", plot, "also plot the time series to DIR/timeseries.png (gnuplot)");

  std::string sweep_file;
  // --jobs N: parallel workers everywhere (processes for sweep, threads for
  // analyze), default all cores; analyze also accepts its older --threads.
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string sweep_out = "results/sweep";
  bool sweep_resume = false;
  auto* sweep =
      app.add_subcommand("sweep", "expand a grid into runs on a worker pool; writes DIR/results.csv and plots");
  sweep->add_option("sweep", sweep_file, "sweep YAML file")->required();
  sweep->add_option("--jobs,--threads", jobs, "parallel runs (worker processes; default: all cores)")
      ->check(CLI::Range(1, 1024));
  sweep->add_option("--set", sets, "override a key in every point: dotted.key=value (repeatable; not a grid axis)");
  std::vector<std::string> sweep_grids;
  sweep->add_option("--grid", sweep_grids,
                    "replace (or add) a grid axis: KEY=V1,V2,... (repeatable; e.g. --grid faults.random_links=0,4)");
  std::string sweep_runs;
  sweep->add_option("--runs", sweep_runs,
                    "runs per point: N, or 'paper' for the paper's count; sets the replication axis named by the "
                    "sweep file's runs.key to first..first+N-1");
  sweep->add_option("--out", sweep_out, "output directory");
  sweep->add_flag("--resume", sweep_resume, "keep finished points (run directories with stats.json), run the rest");
  sweep->add_flag("--quiet", quiet, "no progress on stderr");
  // Distributed backends (issue 15): MPI ranks, a Slurm job array.
  bool sweep_mpi = false;
  sweep->add_flag("--mpi", sweep_mpi,
                  "MPI backend: spread the points over the ranks of `mpirun -n N ftsim sweep ...` "
                  "(chosen automatically under mpirun)");
  bool sweep_slurm = false;
  bool sweep_no_submit = false;
  ftsim::tb::SlurmOptions slurm_opts;
  auto* slurm_opt = sweep->add_flag("--slurm", sweep_slurm,
                                    "write DIR/slurm/sweep.sbatch (a job array running the points) and submit "
                                    "it with sbatch when sbatch exists; merge with --collect DIR");
  sweep->add_option("--slurm-tasks", slurm_opts.tasks, "array tasks (default: one per point, at most 1000)")
      ->needs(slurm_opt);
  sweep->add_option("--slurm-max-running", slurm_opts.max_running, "array tasks running at once (%M; default 64)")
      ->needs(slurm_opt);
  sweep
      ->add_option("--sbatch-option", slurm_opts.sbatch_options,
                   "an extra #SBATCH line, e.g. --sbatch-option=--partition=short (repeatable)")
      ->needs(slurm_opt);
  sweep->add_flag("--no-submit", sweep_no_submit, "write the job script, do not call sbatch")->needs(slurm_opt);
  int sweep_tasks = 0;
  int sweep_task_id = -1;
  auto* tasks_opt = sweep->add_option("--tasks", sweep_tasks,
                                      "array task mode: run only this task's share of the points (i, i+T, ...) "
                                      "out of T tasks; no results.csv (see --collect)");
  sweep->add_option("--task-id", sweep_task_id, "this task's id, 0..T-1 (default: $SLURM_ARRAY_TASK_ID)")
      ->needs(tasks_opt);
  std::string sweep_collect;
  auto* collect_opt = sweep->add_option(
      "--collect", sweep_collect, "merge the finished points of DIR into DIR/results.csv and plots (also mid-run)");
  collect_opt->excludes(slurm_opt)->excludes(tasks_opt);
  slurm_opt->excludes(tasks_opt);

  auto* analyze = app.add_subcommand("analyze", "offline analyses (no timing)");
  analyze->require_subcommand(1);
  std::string an_topology = "mikant:3,3";
  std::string an_algorithms = "all";
  std::string an_faults = "0..20";
  std::string an_rate;
  long an_trials = 100000;
  std::uint64_t an_seed = 1;
  std::string an_out;
  int an_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto* success = analyze->add_subcommand(
      "routing-success", "success ratio and mean path length of routing algorithms under random link faults");
  success->add_option("--topology", an_topology, "topology spec (default mikant:3,3)");
  success->add_option(
      "--algorithms", an_algorithms,
      "comma list of shortest, go-neighbor-switch, go-down-level, three-turn, gns+gdl, gns+xt+gdl, tt+gdl, "
      "connectivity, or all");
  success->add_option("--faults", an_faults, "faulty links per trial: A..B, A..B:STEP or A,B,C (default 0..20)");
  success->add_option("--fault-rate", an_rate, "percent of links faulty instead of a count: A..B[:STEP], 0..100");
  success->add_option("--trials", an_trials, "trials per fault count (default 100000)")
      ->check(CLI::Range(1L, 100000000L));
  success->add_option("--seed", an_seed, "seed (default 1)")->check(CLI::NonNegativeNumber);
  success->add_option("--jobs,--threads", an_threads, "parallel workers (threads; default: all cores)")
      ->check(CLI::Range(1, 256));
  success->add_option("--out", an_out, "JSON file to write")->required();
  success->add_flag("--quiet", quiet, "no summary line");

  ftsim::tb::FaultToleranceOptions ft;
  std::string ft_faults = "1..3";
  std::string ft_region;
  bool ft_exhaustive = false;
  std::string ft_out;
  auto* ftol = analyze->add_subcommand(
      "fault-tolerance",
      "intermediate nodes (I, IxN), disabled adaptivity (D) and misrouting (M): share of fault combinations not "
      "tolerated and of affected paths per mechanism (mesh/torus)");
  ftol->add_option("--topology", ft.topology, "mesh or torus spec (default torus:3x3x3)");
  ftol->add_option("--mechanism", ft.mechanism, "I, D, M, I+D, I+M, D+M, I+D+M, IxN (N=1..3), Ix2+D, none (default I)");
  ftol->add_option("--faults", ft_faults, "faulty links per combination: A..B (default 1..3)");
  auto* ex_flag = ftol->add_flag("--exhaustive", ft_exhaustive, "every combination of the whole network");
  auto* region_opt = ftol->add_option("--region", ft_region, "distance1: every combination inside the region")
                         ->check(CLI::IsMember({"distance1"}));
  ftol->add_option("--center", ft.region_center, "region centre node id (default 0)")->check(CLI::NonNegativeNumber);
  auto* samples_opt = ftol->add_option("--samples", ft.samples, "random combinations per fault count")
                          ->check(CLI::Range(1L, 1000000000L));
  ftol->add_option("--seed", ft.seed, "seed for --samples (default 1)")->check(CLI::NonNegativeNumber);
  ftol->add_option("--jobs,--threads", ft.threads, "parallel workers (threads; default: all cores)")
      ->check(CLI::Range(1, 256));
  ftol->add_option("--out", ft_out, "JSON file to write")->required();
  bool ft_mpi = false;
  ftol->add_flag(
      "--mpi", ft_mpi,
      "MPI backend: spread the combinations over the ranks of `mpirun -n N ftsim analyze "
      "fault-tolerance ...` (chosen automatically under mpirun; --jobs is then threads per rank, default 1)");
  ftol->add_flag("--quiet", quiet, "no progress or summary");
  ex_flag->excludes(region_opt)->excludes(samples_opt);
  region_opt->excludes(samples_opt);
  ft.threads = an_threads;

  std::string cn_topology = "kary-ntree:4,3";
  std::string cn_mechanism = "dlr";
  std::string cn_faults = "1..10";
  long cn_samples = 500;
  std::uint64_t cn_seed = 1;
  std::string cn_out;
  auto* conn = analyze->add_subcommand(
      "connectivity", "probability that a fat-tree mechanism's routing keeps every end-node pair connected");
  conn->add_option("--topology", cn_topology, "kary-ntree:K,N (default kary-ntree:4,3)");
  conn->add_option("--mechanism", cn_mechanism, "dlr (DDLR/ADLR rerouting) or ddrc (recomputed tables)")
      ->check(CLI::IsMember({"dlr", "ddrc"}));
  conn->add_option("--faults", cn_faults, "faulty switch-switch links: A..B, A..B:STEP or A,B,C (default 1..10)");
  conn->add_option("--samples", cn_samples, "fault sets per count; exact enumeration when C(L,f) <= samples")
      ->check(CLI::Range(1L, 100000000L));
  conn->add_option("--seed", cn_seed, "seed (default 1)")->check(CLI::NonNegativeNumber);
  conn->add_option("--jobs,--threads", an_threads, "parallel workers (threads; default: all cores)")
      ->check(CLI::Range(1, 256));
  conn->add_option("--out", cn_out, "JSON file to write")->required();
  conn->add_flag("--quiet", quiet, "no summary line");

  ftsim::tb::DqrAnalysisOptions dq;
  std::string dq_variants = "lr-path", dq_faults = "1..10", dq_out;
  auto* dqr = analyze->add_subcommand(
      "dqr",
      "dynamic quick reconfiguration (DQR) under progressive random link faults: success probability, flows "
      "rerouted, LFT entries and blocks changed, turns enabled, T, stretch and compute time per fault count");
  dqr->add_option("--topology", dq.topology,
                  "mesh:KxK, torus:KxK, fat-tree2:L,S,H or ibnet:FILE.net (default mesh:10x10)");
  dqr->add_option("--initial", dq.initial,
                  "initial tables: dor, updn (up*/down*), lash (tori: minimal DOR paths in LASH virtual layers) or "
                  "import:DIR (OpenSM opensm-lfts.dump) (default dor)");
  std::string dq_layers = "all";
  dqr->add_option("--layers", dq_layers,
                  "with several virtual layers (lash): all = a flow set may move to another layer when its own "
                  "has no path (the paper's tori), same = never (default all)")
      ->check(CLI::IsMember({"all", "same"}));
  dqr->add_option("--variant", dq_variants,
                  "comma list of e2e-single, e2e-path, lr-single, lr-path, lr-path-all, mesh-plugin, local-search, or "
                  "all (default lr-path)");
  dqr->add_option("--faults", dq_faults, "fault counts 1..N: each run adds up to N faults (default 1..10)");
  dqr->add_option("--runs", dq.runs, "runs per variant (default 500, as in the paper)")->check(CLI::Range(1, 10000000));
  dqr->add_option("--seed", dq.seed, "seed (default 1)")->check(CLI::NonNegativeNumber);
  dqr->add_option("--jobs,--threads", dq.threads, "parallel workers (threads; default: all cores)")
      ->check(CLI::Range(1, 256));
  dqr->add_option("--out", dq_out, "JSON file to write")->required();
  dqr->add_flag("--quiet", quiet, "no progress or summary");
  dqr->add_flag("--every-single-fault", dq.every_single_fault,
                "also fail every link alone and count the successes (the one-fault guarantee)");
  dqr->add_flag("--check-transition", dq.check_transition,
                "check every table update under non-atomic writes in any order (acyclic, loop-free, turns only a "
                "partial write takes): per point transition_acyclic, transition_loop_free, transition_mixed_turns");
  dq.threads = an_threads;

  auto* lft = app.add_subcommand("lft", "InfiniBand linear forwarding tables (OpenSM dumps)");
  lft->require_subcommand(1);
  std::string lft_a, lft_b, lft_topology, lft_json;
  std::vector<std::string> lft_faults;
  auto* lft_diff = lft->add_subcommand(
      "diff",
      "compare two table sets: entries, 64-entry blocks and switches changed; with --topology also flows "
      "rerouted, stretch and whether each set's channel dependency graph is acyclic (with a cycle)");
  lft_diff->add_option("A", lft_a, "opensm-lfts.dump file, or a folder holding one (the reference)")->required();
  lft_diff->add_option("B", lft_b, "opensm-lfts.dump file or folder (the new tables)")->required();
  lft_diff->add_option("--topology", lft_topology,
                       "fabric to trace flows on: ibnet:FILE.net, fat-tree2:L,S,H, or mesh:KxK / torus:KxK "
                       "(switches SW_a_b = router a,b)");
  lft_diff->add_option("--fault", lft_faults,
                       "a failed link B must avoid (native label, e.g. 4,4:x+ or SW_4_4[2]); "
                       "repeatable; needs --topology");
  lft_diff->add_option("--json", lft_json, "also write the figures as JSON to this file");
  std::string nf_topology, nf_out;
  auto* lft_netfile = lft->add_subcommand(
      "netfile", "write an ibsim netfile of a topology (to run OpenSM on the same fabric; names as lft export)");
  lft_netfile->add_option("--topology", nf_topology, "mesh:KxK, torus:KxK, fat-tree2:L,S,H or ibnet:FILE.net")
      ->required();
  lft_netfile->add_option("--out", nf_out, "netfile to write")->required();
  std::string ex_topology, ex_initial = "dor", ex_variant = "lr-path", ex_out;
  std::vector<std::string> ex_faults;
  auto* lft_export = lft->add_subcommand(
      "export", "write a topology's tables (initial, or after DQR around link faults) as OUT/opensm-lfts.dump");
  lft_export->add_option("--topology", ex_topology, "mesh:KxK, torus:KxK, fat-tree2:L,S,H or ibnet:FILE.net")
      ->required();
  lft_export->add_option("--initial", ex_initial, "dor, updn, lash or import:DIR (default dor)");
  lft_export->add_option("--fault", ex_faults, "a failed link (repeatable): reconfigure with DQR around it");
  lft_export->add_option("--variant", ex_variant, "DQR variant for --fault (default lr-path)");
  lft_export->add_option("--out", ex_out, "output folder")->required();

  auto* list = app.add_subcommand(
      "list", "print topologies, routing relations, mechanisms, traffic patterns, experiment keys and files");
  std::string list_what = "all";
  list->add_option("what", list_what, "all (default), topologies, routing, mechanisms, patterns, keys, experiments")
      ->check(CLI::IsMember(
          {"all", "topologies", "routing", "mechanisms", "patterns", "fault-models", "keys", "experiments"}));
  std::string list_dir;
  list->add_option("--experiments-dir", list_dir,
                   "folder of experiment files (default: ./experiments, else the one next to the ftsim binary)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    if (rc != 0) {
      const std::string guess = cli_suggestion(app, argc, argv);
      if (!guess.empty()) std::cerr << fmt::format("ftsim: did you mean '{}'?\n", guess);
    }
    return rc == 0 ? 0 : 2;
  }

  try {
    if (list->parsed()) {
      list_command(list_what, list_dir);
      return 0;
    }
    if (lft_diff->parsed()) {
      lft_diff_command(lft_a, lft_b, lft_topology, lft_faults, lft_json);
      return 0;
    }
    if (lft_export->parsed()) {
      lft_export_command(ex_topology, ex_initial, ex_faults, ex_variant, ex_out);
      return 0;
    }
    if (lft_netfile->parsed()) {
      ftsim::tb::check_output_file(nf_out, "--out");
      const auto topo = ftsim::routing::make_topology(nf_topology);
      ftsim::tb::write_file_atomically(nf_out, ftsim::tables::netfile(*topo));
      std::cout << fmt::format("ftsim: wrote {} ({} switches, {} HCAs)\n", nf_out, topo->num_routers(),
                               topo->num_nodes());
      return 0;
    }
    if (ftol->parsed()) ftsim::tb::check_output_file(ft_out, "--out");
    if (conn->parsed()) ftsim::tb::check_output_file(cn_out, "--out");
    if (success->parsed()) ftsim::tb::check_output_file(an_out, "--out");
    if (ftol->parsed()) {
      if (!ft_exhaustive && ft_region.empty() && ft.samples == 0)
        throw ftsim::ConfigError(
            "analyze fault-tolerance: choose one fault model: --exhaustive, --region distance1 or --samples N");
      ft.mode = ft_exhaustive        ? ftsim::tb::FaultToleranceOptions::Mode::kExhaustive
                : !ft_region.empty() ? ftsim::tb::FaultToleranceOptions::Mode::kRegion
                                     : ftsim::tb::FaultToleranceOptions::Mode::kSamples;
      ft.faults = parse_range(ft_faults, "--faults");
      ft.progress = !quiet;
      nlohmann::json j;
      if (ft_mpi || ftsim::tb::launched_by_mpi()) {
#ifdef FTSIM_HAVE_MPI
        if (ftol->get_option("--jobs")->count() == 0) ft.threads = 1;  // one rank per core
        bool is_root = false;
        j = ftsim::tb::analyze_fault_tolerance_mpi(ft, &is_root);
        if (!is_root) return 0;
#else
        throw ftsim::ConfigError(
            "analyze fault-tolerance: this ftsim was built without MPI (install libopenmpi-dev and rebuild with "
            "-DFTSIM_WITH_MPI=ON), but --mpi was given or an MPI launcher started it");
#endif
      } else {
        j = ftsim::tb::analyze_fault_tolerance(ft);
      }
      ftsim::tb::write_file_atomically(ft_out, j.dump(2) + "\n");
      if (!quiet)
        std::cout << fmt::format("ftsim: wrote {} ({} combinations, {:.1f} s, {:.0f} combinations/s)\n", ft_out,
                                 j["combinations"].get<std::uint64_t>(), j["wall_seconds"].get<double>(),
                                 j["combinations_per_second"].get<double>());
      return 0;
    }
    if (dqr->parsed()) {
      ftsim::tb::check_output_file(dq_out, "--out");
      const auto counts = parse_range(dq_faults, "--faults");
      if (counts.empty() || counts.front() != 1 || counts.back() < 1)
        throw ftsim::ConfigError(fmt::format("--faults '{}': a range 1..N with N >= 1", dq_faults));
      dq.max_faults = counts.back();
      dq.variants.clear();
      if (dq_variants == "all") {
        dq.variants = ftsim::routing::dqr::variant_names();
      } else {
        std::stringstream ss(dq_variants);
        for (std::string v; std::getline(ss, v, ',');) dq.variants.push_back(v);
      }
      dq.progress = !quiet;
      dq.move_layers = dq_layers == "all";
      const auto j = ftsim::tb::analyze_dqr(dq);
      ftsim::tb::write_file_atomically(dq_out, j.dump(2) + "\n");
      if (!quiet) {
        for (const auto& v : j["variants"]) {
          std::string line;
          for (const auto& p : v["points"]) line += fmt::format(" {:.2f}", p["success_probability"].get<double>());
          std::cout << fmt::format("{:<13} P(1..{}):{}\n", v["variant"].get<std::string>(), dq.max_faults, line);
          if (v.contains("single_faults"))
            std::cout << fmt::format("{:<13} single link faults reconfigured: {} of {}\n", "",
                                     v["single_faults"]["succeeded"].get<std::size_t>(),
                                     v["single_faults"]["links"].get<std::size_t>());
        }
        std::cout << fmt::format("ftsim: wrote {} ({:.1f} s)\n", dq_out, j["wall_seconds"].get<double>());
      }
      return 0;
    }
    if (conn->parsed()) {
      auto topo = ftsim::routing::make_topology(cn_topology);
      const auto* tree = dynamic_cast<const ftsim::routing::KAryNTree*>(topo.get());
      if (tree == nullptr)
        throw ftsim::ConfigError(fmt::format("--topology {}: connectivity analysis needs kary-ntree:K,N", cn_topology));
      const auto counts = parse_range(cn_faults, "--faults");
      const auto wall0 = std::chrono::steady_clock::now();
      ftsim::tb::Progress progress("analyze connectivity " + cn_mechanism, "fault counts", !quiet, 2.0);
      const auto rows = ftsim::routing::fat_tree_connectivity(
          *tree, cn_mechanism, counts, cn_samples, cn_seed, an_threads,
          [&](std::uint64_t done, std::uint64_t total) { progress.step(done, total); });
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
      nlohmann::json j;
      j["topology"] = tree->spec();
      j["mechanism"] = cn_mechanism;
      j["samples"] = cn_samples;
      j["seed"] = cn_seed;
      j["wall_seconds"] = secs;
      j["definition"] =
          "a fault set counts as connected when the routing function (DDLR's rerouting for dlr, the recomputed "
          "up*/down* tables for ddrc) delivers every ordered pair of end nodes; faults are switch-switch links";
      nlohmann::json res = nlohmann::json::array();
      for (const auto& r : rows)
        res.push_back({{"faults", r.faults},
                       {"connected_probability", r.connected_probability},
                       {"samples", r.samples},
                       {"exact", r.exact}});
      j["results"] = res;
      ftsim::tb::write_file_atomically(cn_out, j.dump(2) + "\n");
      if (!quiet) std::cout << fmt::format("ftsim: wrote {} ({} rows, {:.1f} s)\n", cn_out, rows.size(), secs);
      return 0;
    }
    if (success->parsed()) {
      const std::vector<std::string> implemented{"shortest", "go-neighbor-switch", "go-down-level", "three-turn",
                                                 "gns+gdl",  "gns+xt+gdl",         "tt+gdl",        "connectivity"};
      const std::vector<std::string> planned;
      std::vector<std::string> algos;
      if (an_algorithms == "all") {
        algos = implemented;
      } else {
        std::stringstream ss(an_algorithms);
        std::string a;
        while (std::getline(ss, a, ',')) {
          if (std::find(implemented.begin(), implemented.end(), a) != implemented.end()) {
            algos.push_back(a);
          } else if (std::find(planned.begin(), planned.end(), a) != planned.end()) {
            throw ftsim::ConfigError(fmt::format("--algorithms: '{}' is not implemented yet; available: {}", a,
                                                 fmt::join(implemented, ", ")));
          } else {
            throw ftsim::ConfigError(
                fmt::format("--algorithms: unknown '{}'; allowed: {}, or all", a, fmt::join(implemented, ", ")));
          }
        }
      }
      auto topo = ftsim::routing::make_topology(an_topology);
      std::vector<int> counts;
      std::vector<double> rates;
      if (!an_rate.empty()) {
        for (int r : parse_range(an_rate, "--fault-rate")) {
          if (r > 100) throw ftsim::ConfigError(fmt::format("--fault-rate {}: allowed 0..100", r));
          rates.push_back(r);
          counts.push_back(static_cast<int>(std::lround(r / 100.0 * topo->num_links())));
        }
      } else {
        counts = parse_range(an_faults, "--faults");
      }
      const auto wall0 = std::chrono::steady_clock::now();
      ftsim::tb::Progress progress("analyze routing-success", "fault counts", !quiet, 2.0);
      const auto rows =
          ftsim::routing::routing_success(an_topology, algos, counts, an_trials, an_seed, an_threads,
                                          [&](std::uint64_t done, std::uint64_t total) { progress.step(done, total); });
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
      nlohmann::json j;
      j["topology"] = topo->spec();
      j["links"] = topo->num_links();
      j["trials"] = an_trials;
      j["seed"] = an_seed;
      j["wall_seconds"] = secs;
      j["trials_per_second"] =
          secs > 0 ? static_cast<double>(an_trials) * static_cast<double>(counts.size()) / secs : 0.0;
      nlohmann::json res = nlohmann::json::array();
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        nlohmann::json row = {{"algorithm", r.algorithm},
                              {"faults", r.faults},
                              {"success_ratio", r.success_ratio},
                              {"mean_path_length", r.mean_path_length},
                              {"trials", r.trials}};
        if (!rates.empty()) row["fault_rate"] = rates[i / algos.size()];
        res.push_back(row);
      }
      j["results"] = res;
      ftsim::tb::write_file_atomically(an_out, j.dump(2) + "\n");
      if (!quiet) std::cout << fmt::format("ftsim: wrote {} ({} rows, {:.1f} s)\n", an_out, rows.size(), secs);
      return 0;
    }
    if (sweep->parsed())
      return ftsim::tb::sweep_command(sweep_file, sweep_out, jobs, quiet, sweep_resume,
                                      ftsim::tb::SweepEdits{sets, sweep_grids, sweep_runs},
                                      ftsim::tb::SweepBackend{sweep_mpi, sweep_slurm, sweep_no_submit, slurm_opts,
                                                              sweep_tasks, sweep_task_id, sweep_collect});
    const auto cfg = ftsim::tb::load_experiment(experiment, sets);
    ftsim::tb::prepare_output_dir(out_dir, "--out");
    if (!vcd.empty()) {
      // Found before the simulation: the folder is created, and a file that
      // cannot be written is a user error (exit 2), not an internal one.
      const std::filesystem::path vp(vcd);
      std::error_code ec;
      if (vp.has_parent_path()) std::filesystem::create_directories(vp.parent_path(), ec);
      if (ec)
        throw ftsim::ConfigError(
            fmt::format("--vcd {}: cannot create the folder {}: {}", vcd, vp.parent_path().string(), ec.message()));
      if (std::filesystem::is_directory(vp) || !std::ofstream(vcd, std::ios::app))
        throw ftsim::ConfigError(fmt::format("--vcd {}: cannot write this file", vcd));
    }
    ftsim::tb::RunOptions ro;
    ro.out_dir = out_dir;
    ro.vcd_path = vcd;
    ro.trace_from = trace_from;
    ro.trace_to = trace_to;
    ro.trace_routers = trace_routers;
    ro.quiet = quiet;
    ro.experiment_name = experiment;
    ro.command_line = command_line;
    if (!vcd.empty() && trace_to >= 0 && trace_to < trace_from)
      throw ftsim::ConfigError(fmt::format("--trace-to {} is before --trace-from {}", trace_to, trace_from));
    const std::int64_t last_cycle = cfg.sim.warmup_cycles + cfg.sim.measure_cycles + cfg.sim.max_drain_cycles;
    if (!vcd.empty() && trace_from >= last_cycle)
      throw ftsim::ConfigError(
          fmt::format("--trace-from {} is beyond the run: it ends by cycle {} (warm-up + measurement + at most "
                      "sim.max_drain_cycles of drain)",
                      trace_from, last_cycle));
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
      const std::string title = cfg.source["name"] ? cfg.source["name"].as<std::string>() : experiment;
      if (plot_timeseries(out_dir, title, res.stats, cfg.sim.warmup_cycles, cfg.sim.measure_cycles, &why)) {
        if (!quiet) std::cout << fmt::format("ftsim: wrote plot {}/timeseries.png\n", out_dir);
      } else {
        std::cerr << "ftsim: gnuplot failed; the plot was not written\n" << why;
      }
    }
    if (res.exit_code != 0) std::cerr << "ftsim: " << res.message << "\n";
    // Every output is closed: skip the destructors. Tearing down the SystemC
    // hierarchy of a large network took a minute (200x200 mesh) for nothing.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(res.exit_code);
  } catch (const ftsim::ConfigError& e) {
    std::cerr << "ftsim: error: " << e.what() << "\n";
    return 2;
  } catch (const YAML::Exception& e) {
    // A value of the wrong shape that no check above named: still the
    // input's fault, not ours.
    std::cerr << fmt::format("ftsim: error: input value of the wrong type at line {}, column {}: {}\n", e.mark.line + 1,
                             e.mark.column + 1, e.msg);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ftsim: internal error: " << e.what() << "\n";
    return 4;
  }
}
