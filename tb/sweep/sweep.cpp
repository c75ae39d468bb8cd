#include "tb/sweep/sweep.hpp"

#include "tb/gnuplot.hpp"
#include "tb/sweep/sweep_mpi.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/text_input.hpp"
#include "routing_logic/types.hpp"
#include "tb/cli_text.hpp"
#include "tb/experiment_config.hpp"
#include "tb/output_files.hpp"
#include "tb/yaml_input.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;
namespace fs = std::filesystem;

namespace {
std::string scalar(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}
}  // namespace

std::vector<SweepPoint> expand_sweep(const std::string& sweep_path, const std::string& out_dir,
                                     std::string* base_experiment, std::string* plot_x,
                                     const std::vector<std::string>& extra_sets, std::string* name,
                                     const std::vector<std::string>& grid_sets, const std::string& runs) {
  const YAML::Node root = parse_yaml_document(read_yaml_file(sweep_path, "sweep file"), sweep_path);
  if (name != nullptr) {
    *name = root.IsMap() && root["name"] && root["name"].IsScalar() ? root["name"].Scalar()
                                                                    : fs::path(sweep_path).stem().string();
    // The name titles plots and the Slurm job; a newline in it once wrote a
    // command of its own into sweep.sbatch.
    check_no_control_characters(*name, fmt::format("{}: key 'name'", sweep_path));
  }
  if (!root.IsMap()) throw ConfigError(fmt::format("{}: the sweep must be a mapping", sweep_path));
  const std::set<std::string> allowed{"name", "description", "experiment", "set", "grid", "plot", "runs"};
  for (const auto& kv : root)
    if (!allowed.count(kv.first.as<std::string>()))
      throw ConfigError(
          fmt::format("{}: unknown key '{}' (line {}){}; allowed: name, description, experiment, set, "
                      "grid, plot, runs",
                      sweep_path, kv.first.as<std::string>(), kv.first.Mark().line + 1,
                      did_you_mean(kv.first.as<std::string>(), {allowed.begin(), allowed.end()})));
  if (!root["experiment"] || !root["experiment"].IsScalar())
    throw ConfigError(fmt::format("{}: key 'experiment' (path of the base experiment YAML) is required", sweep_path));
  fs::path base = root["experiment"].Scalar();
  std::error_code ec;  // a name too long or otherwise invalid is "not found", not an exception
  if (base.is_relative() && !fs::exists(base, ec)) base = fs::path(sweep_path).parent_path() / base;
  if (!fs::exists(base, ec)) throw ConfigError(fmt::format("{}: experiment '{}' not found", sweep_path, base.string()));
  *base_experiment = base.string();
  *plot_x = "traffic.load";
  if (const YAML::Node pl = root["plot"]) {
    if (!pl.IsMap() || (pl.size() > 0 && (!pl["x"] || !pl["x"].IsScalar() || pl.size() != 1)))
      throw ConfigError(
          fmt::format("{}: key 'plot' must be a mapping with one key, x: a grid key (for example "
                      "plot: {{x: traffic.load}})",
                      sweep_path));
    if (pl["x"]) *plot_x = pl["x"].Scalar();
  }

  std::vector<std::string> fixed;
  if (const YAML::Node s = root["set"]) {
    if (!s.IsMap()) throw ConfigError(fmt::format("{}: key 'set' must map dotted keys to values", sweep_path));
    for (const auto& kv : s) fixed.push_back(kv.first.as<std::string>() + "=" + scalar(kv.second));
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  if (const YAML::Node g = root["grid"]) {
    if (!g.IsMap()) throw ConfigError(fmt::format("{}: key 'grid' must map dotted keys to lists", sweep_path));
    for (const auto& kv : g) {
      const std::string key = kv.first.as<std::string>();
      if (!kv.second.IsSequence() || kv.second.size() == 0)
        throw ConfigError(fmt::format("{}: grid.{} must be a non-empty list", sweep_path, key));
      std::vector<std::string> vals;
      for (const auto& v : kv.second) vals.push_back(scalar(v));
      axes.emplace_back(key, vals);
    }
  }
  // `ftsim sweep --grid KEY=V1,V2,...`: replaces (or adds) an axis.
  auto set_axis = [&](const std::string& key, std::vector<std::string> vals) {
    for (auto& [k, v] : axes)
      if (k == key) {
        v = std::move(vals);
        return;
      }
    axes.emplace_back(key, std::move(vals));
  };
  for (const auto& e : grid_sets) {
    const auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == e.size())
      throw ConfigError(fmt::format("--grid '{}': expected KEY=V1,V2,... (for example traffic.load=0.3,0.5)", e));
    std::vector<std::string> vals;
    for (std::size_t pos = eq + 1;;) {
      const auto comma = e.find(',', pos);
      vals.push_back(e.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      if (vals.back().empty()) throw ConfigError(fmt::format("--grid '{}': empty value", e));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    set_axis(e.substr(0, eq), std::move(vals));
  }
  // The replication axis (key `runs`) and `--runs N|paper`.
  std::string runs_key;
  long runs_paper = 0;
  long runs_first = 1;
  if (const YAML::Node r = root["runs"]) {
    if (!r.IsMap() || !r["key"] || !r["key"].IsScalar())
      throw ConfigError(
          fmt::format("{}: key 'runs' must be a mapping with key: the grid axis that replicates a point (for example "
                      "runs: {{key: faults.random_seed, paper: 500}})",
                      sweep_path));
    for (const auto& kv : r)
      if (const std::string k = kv.first.as<std::string>(); k != "key" && k != "paper" && k != "first")
        throw ConfigError(fmt::format("{}: runs.{}: unknown key; allowed: key, paper, first", sweep_path, k));
    runs_key = r["key"].Scalar();
    auto whole = [&](const char* k, long lo, long hi) {
      try {
        const long v = r[k].as<long>();
        if (v >= lo && v <= hi) return v;
      } catch (const YAML::Exception&) {
      }
      throw ConfigError(fmt::format("{}: runs.{} = '{}': expected an integer in {}..{}", sweep_path, k,
                                    r[k].IsScalar() ? r[k].Scalar() : "(not a scalar)", lo, hi));
    };
    if (r["paper"]) runs_paper = whole("paper", 1, 100000);
    if (r["first"]) runs_first = whole("first", 0, 1000000000);
  }
  if (!runs.empty()) {
    if (runs_key.empty())
      throw ConfigError(fmt::format(
          "--runs {}: {} has no 'runs' key naming its replication axis (runs: {{key: faults.random_seed}}); "
          "use --grid KEY=V1,V2,... instead",
          runs, sweep_path));
    long n = 0;
    if (runs == "paper") {
      if (runs_paper == 0)
        throw ConfigError(fmt::format("--runs paper: {} gives no runs.paper (the paper's runs per point)", sweep_path));
      n = runs_paper;
    } else {
      char* end = nullptr;
      n = std::strtol(runs.c_str(), &end, 10);
      if (end == runs.c_str() || *end != '\0' || n < 1 || n > 100000)
        throw ConfigError(fmt::format("--runs '{}': expected 'paper' or an integer in 1..100000", runs));
    }
    std::vector<std::string> vals;
    for (long i = 0; i < n; ++i) vals.push_back(std::to_string(runs_first + i));
    // The replication axis varies slowest (last axis): the points of runs
    // 1..N keep their run directories under --runs M > N, so `--runs M
    // --resume` extends a finished sweep.
    axes.erase(std::remove_if(axes.begin(), axes.end(), [&](const auto& a) { return a.first == runs_key; }),
               axes.end());
    axes.emplace_back(runs_key, std::move(vals));
  }
  // `ftsim sweep --set`: after the file's `set`, for every point; a grid
  // axis cannot be fixed this way.
  for (const auto& e : extra_sets) {
    const std::string key = e.substr(0, e.find('='));
    for (const auto& [k, vals] : axes)
      if (k == key)
        throw ConfigError(
            fmt::format("--set '{}': '{}' is a grid axis of {}; edit the grid instead", e, key, sweep_path));
    fixed.push_back(e);
  }
  constexpr double kMaxPoints = 100000;
  double count = 1;
  for (const auto& [k, vals] : axes) count *= static_cast<double>(vals.size());
  if (count > kMaxPoints)
    throw ConfigError(
        fmt::format("{}: the grid has {:.0f} points; at most {:.0f} allowed", sweep_path, count, kMaxPoints));
  std::vector<SweepPoint> points;
  std::vector<std::size_t> idx(axes.size(), 0);
  for (;;) {
    SweepPoint p;
    p.overrides = fixed;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      p.values.emplace_back(axes[a].first, axes[a].second[idx[a]]);
      p.overrides.push_back(axes[a].first + "=" + axes[a].second[idx[a]]);
    }
    p.dir = fmt::format("{}/run_{:04d}", out_dir, points.size());
    points.push_back(p);
    std::size_t a = 0;
    while (a < axes.size() && ++idx[a] == axes[a].second.size()) idx[a++] = 0;
    if (a == axes.size()) break;
  }
  // Every point must be a valid experiment before anything is launched: a
  // typo in a grid key would otherwise start every run only to fail each.
  for (std::size_t i = 0; i < points.size(); ++i) {
    try {
      (void)load_experiment(*base_experiment, points[i].overrides);
    } catch (const ConfigError& e) {
      std::string where;
      for (const auto& [k, v] : points[i].values) where += (where.empty() ? "" : ", ") + k + "=" + v;
      throw ConfigError(fmt::format("{}: point {} of {} ({}) is not a valid experiment: {}", sweep_path, i + 1,
                                    points.size(), where, e.what()));
    }
  }
  return points;
}

namespace {
/// The stats.json value at a dotted path ("latency_cycles.mean"), null when absent.
nlohmann::json field(const nlohmann::json& s, const std::string& path);

pid_t spawn(const SweepOptions& opts, const std::string& base, const SweepPoint& p) {
  std::vector<std::string> args{opts.self_exe, "run", base, "--out", p.dir, "--quiet"};
  for (const auto& o : p.overrides) {
    args.push_back("--set");
    args.push_back(o);
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The run dies with its sweep, however the sweep ends (even SIGKILL):
    // an orphan would finish later, unsupervised, and race a resumed sweep.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(128 + SIGKILL);  // the sweep died before prctl took effect
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = p.dir + "/run.log";
    if (std::FILE* f = std::fopen(log.c_str(), "w")) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

/// An axis label in words with its unit, for a sweep key.
std::string axis_label(const std::string& key) {
  static const std::map<std::string, std::string> kWords = {
      {"traffic.load", "offered load (flits/node/cycle)"},
      {"faults.random_links", "faulty links"},
      {"faults.random_seed", "fault draw (seed)"},
      {"router.vcs", "virtual channels per port"},
      {"router.buffer_flits", "buffer depth (flits per VC)"},
      {"traffic.packet_flits", "packet length (flits)"},
      {"sim.seed", "seed"},
      {"dqr.block_cycles", "cycles per 64-entry block"},
      {"ddrc.distribution_cycles", "table distribution time (cycles)"},
      {"immunet.control_packet_cycles", "control packet time per hop (cycles)"}};
  const auto it = kWords.find(key);
  if (it != kWords.end()) return it->second;
  std::string words = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}

/// Mean and sample standard deviation (0 for one value).
std::pair<double, double> mean_sd(const std::vector<double>& v) {
  if (v.empty()) return {std::nan(""), 0.0};
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double q = 0;
  for (double x : v) q += (x - m) * (x - m);
  return {m, v.size() > 1 ? std::sqrt(q / static_cast<double>(v.size() - 1)) : 0.0};
}

/// The sweep's plots (gnuplot, PNG): accepted_load.png and latency.png
/// against the x key, and for fault sweeps (x = faults.*) dropped.png
/// (packets dropped) and, when a run reconfigured, recovery.png
/// (reconfiguration time). One series per combination of the other grid
/// keys; seeds and fault draws (keys ending in "seed") are averaged, with
/// error bars of one sample standard deviation. Points where any run has a
/// stats.json warning are circled in red. accepted-vs-offered carries the
/// y = x reference.
void write_plots(const std::string& out_dir, const std::string& title, const std::string& csv_path,
                 const std::vector<SweepPoint>& points, const std::vector<nlohmann::json>& stats,
                 const std::string& x_key) {
  struct Samples {
    std::vector<double> accepted, latency, dropped, recovery;
    bool flagged = false;
  };
  std::map<std::string, std::map<double, Samples>> series;
  bool any_recovery = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!stats[i].is_object()) continue;
    std::string label;
    double x = 0;
    bool has_x = false;
    for (const auto& [k, v] : points[i].values) {
      if (k == x_key) {
        try {
          x = std::stod(v);
          has_x = true;
        } catch (const std::exception&) {
        }
      } else if (k.size() < 4 || k.compare(k.size() - 4, 4, "seed") != 0) {  // seeds are averaged
        label += (label.empty() ? "" : " ") + k + "=" + v;
      }
    }
    if (!has_x && x_key == "traffic.load" && stats[i].contains("offered_load") &&
        stats[i]["offered_load"].is_number()) {
      x = stats[i]["offered_load"].get<double>();
      has_x = true;
    }
    if (!has_x) continue;
    Samples& smp = series[label.empty() ? "mean over seeds" : label][x];
    const auto& st = stats[i];
    const nlohmann::json acc = field(st, "accepted_load");
    smp.accepted.push_back(acc.is_number() ? acc.get<double>() : 0.0);
    const nlohmann::json lat = field(st, "latency_cycles.mean");
    if (lat.is_number()) smp.latency.push_back(lat.get<double>());
    const nlohmann::json drop = field(st, "packets.dropped");
    if (drop.is_number()) smp.dropped.push_back(drop.get<double>());
    nlohmann::json rec = field(st, "reconfiguration.reconfiguration_cycles");
    for (const char* sm : {"ddrc", "dqr"})
      if (rec.is_null() && st.contains(sm) && st[sm].contains("update_cycles") && !st[sm]["update_cycles"].empty() &&
          st.contains("faults") && !st["faults"].empty() && st["faults"][0]["at"].is_number())
        rec = st[sm]["update_cycles"].back().get<double>() - st["faults"][0]["at"].get<double>();
    if (rec.is_number()) {
      smp.recovery.push_back(rec.get<double>());
      any_recovery = true;
    }
    if (st.contains("warnings") && st["warnings"].is_array() && !st["warnings"].empty()) smp.flagged = true;
  }
  if (series.empty()) return;
  const std::string dat = out_dir + "/plot_data.dat";
  std::ostringstream d;
  d << "# x accepted accepted_sd latency latency_sd dropped dropped_sd recovery recovery_sd\n";
  int block = 0;
  std::vector<std::string> labels;
  for (const auto& [label, pts] : series) {
    d << "# " << label << "\n";
    for (const auto& [x, smp] : pts) {
      d << x;
      for (const auto* v : {&smp.accepted, &smp.latency, &smp.dropped, &smp.recovery}) {
        const auto [m, sd] = mean_sd(*v);
        d << " " << m << " " << sd;
      }
      d << "\n";
    }
    d << "\n\n";
    labels.push_back(label);
    ++block;
  }
  const int flagged_block = block;
  bool any_flagged = false;
  d << "# points with warnings\n";
  for (const auto& [label, pts] : series)
    for (const auto& [x, smp] : pts)
      if (smp.flagged) {
        d << x << " " << mean_sd(smp.accepted).first << " 0 " << mean_sd(smp.latency).first << " 0\n";
        any_flagged = true;
      }
  d << "\n\n";
  write_file_atomically(dat, d.str());
  // One plot command: every series with error bars, then the flagged points.
  auto plot_cmd = [&](int col, bool flags) {
    std::string cmd;
    for (std::size_t b = 0; b < labels.size(); ++b)
      cmd += fmt::format("{}{} index {} using 1:{}:{} with yerrorlines lw 1.5 title {}", b ? ", " : "",
                         gnuplot_quote(dat), b, col, col + 1, gnuplot_quote(labels[b]));
    if (flags && any_flagged)
      cmd += fmt::format(", {} index {} using 1:{} with points pt 6 ps 2.2 lw 1.5 lc rgb '#c0392b' title {}",
                         gnuplot_quote(dat), flagged_block, col,
                         gnuplot_quote("a run with a warning (stats.json: not drained, beyond saturation)"));
    return cmd;
  };
  const bool fault_sweep = x_key.rfind("faults.", 0) == 0;
  // Integer x (fault counts, VCs): integer tics, at most about ten.
  bool integer_x = true;
  double max_x = 0;
  for (const auto& [label, pts] : series)
    for (const auto& [x, smp] : pts) {
      integer_x = integer_x && x == std::floor(x);
      max_x = std::max(max_x, x);
    }
  std::ostringstream g;
  if (integer_x) g << "set xtics " << std::max(1.0, std::ceil(max_x / 10.0)) << "\n";
  g << "set terminal pngcairo size 900,650 noenhanced\nset grid\nset key below left horizontal\n"
    << "set title " << gnuplot_quote(title) << "\nset xlabel " << gnuplot_quote(axis_label(x_key))
    << "\nset yrange [0:*]\nset xrange [0:*]\nset offsets graph 0.02, graph 0.02, graph 0.05, 0\n"
    << "set output " << gnuplot_quote(out_dir + "/accepted_load.png")
    << "\nset ylabel 'accepted load (flits/node/cycle)'\nplot " << plot_cmd(2, true)
    << (x_key == "traffic.load" ? ", x with lines dt 2 lc rgb '#888888' title 'accepted = offered'" : "") << "\n"
    << "set output " << gnuplot_quote(out_dir + "/latency.png") << "\nset ylabel 'mean latency (cycles)'\nplot "
    << plot_cmd(4, true) << "\n";
  if (fault_sweep)
    g << "set output " << gnuplot_quote(out_dir + "/dropped.png") << "\nset ylabel 'packets dropped'\nplot "
      << plot_cmd(6, false) << "\n";
  if (fault_sweep && any_recovery)
    g << "set output " << gnuplot_quote(out_dir + "/recovery.png")
      << "\nset ylabel 'reconfiguration time after the fault (cycles)'\nplot " << plot_cmd(8, false) << "\n";
  std::vector<std::string> pngs{out_dir + "/accepted_load.png", out_dir + "/latency.png"};
  if (fault_sweep) pngs.push_back(out_dir + "/dropped.png");
  if (fault_sweep && any_recovery) pngs.push_back(out_dir + "/recovery.png");
  std::string why;
  if (!draw_plots(g.str(), pngs, &why))
    std::fprintf(stderr, "ftsim sweep: gnuplot is not installed; %s is still written, the plots are not\n%s",
                 csv_path.c_str(), why.c_str());
}

}  // namespace

namespace {
/// Children of the running sweep, for the signal handler.
std::vector<pid_t>* g_children = nullptr;
volatile sig_atomic_t g_sweep_signal = 0;
extern "C" void stop_sweep(int sig) {
  if (g_sweep_signal != 0) _exit(128 + sig);  // a second signal: stop at once
  g_sweep_signal = sig;
  if (g_children != nullptr)
    for (pid_t c : *g_children) kill(c, SIGTERM);  // each run writes its partial outputs and exits
}

/// The stats.json fields results.csv carries, by their stats.json paths
/// (a nested field as "a.b").
const char* const kCsvFields[] = {"offered_load",
                                  "accepted_load",
                                  "latency_cycles.mean",
                                  "latency_cycles.p50",
                                  "latency_cycles.p99",
                                  "latency_cycles.max",
                                  "mean_hops",
                                  "packets.injected",
                                  "packets.delivered",
                                  "packets.dropped",
                                  "packets.in_flight",
                                  "packets.measured",
                                  "packets.measured_undelivered",
                                  "link_failure_losses.on_link",
                                  "link_failure_losses.routed_before_detection",
                                  "link_failure_losses.cut_in_buffers",
                                  "drained",
                                  "deadlock",
                                  "cycles",
                                  "wall_seconds",
                                  "node_cycles_per_second",
                                  "live_nodes",
                                  "accepted_flits_per_cycle",
                                  "dropped_by_reason.no_route",
                                  "dropped_by_reason.link_failure",
                                  "dropped_by_reason.reroute_discarded",
                                  "dropped_by_reason.switch_failure",
                                  "reconfiguration.reconfiguration_cycles",
                                  "deadlock_report.last_move_cycle"};

/// One CSV cell: numbers and booleans as JSON writes them, text quoted only
/// when it must be (RFC 4180), null as an empty cell.
std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return {};
  if (!v.is_string()) return v.dump();
  const std::string t = v.get<std::string>();
  if (t.find_first_of(",\"\n\r") == std::string::npos) return t;
  std::string q = "\"";
  for (char ch : t) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

/// A grid value as the sweep file wrote it: a number when it parses as one.
nlohmann::json grid_value(const std::string& text) {
  try {
    std::size_t used = 0;
    const double d = std::stod(text, &used);
    if (used == text.size() && std::isfinite(d)) {
      const auto i = static_cast<long long>(d);
      return static_cast<double>(i) == d && text.find_first_of(".eE") == std::string::npos ? nlohmann::json(i)
                                                                                           : nlohmann::json(d);
    }
  } catch (const std::exception&) {
  }
  return text;
}

nlohmann::json field(const nlohmann::json& s, const std::string& path) {
  const nlohmann::json* cur = &s;
  std::size_t from = 0;
  while (true) {
    const std::size_t dot = path.find('.', from);
    const std::string key = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
    if (!cur->is_object() || !cur->contains(key)) return nullptr;
    cur = &(*cur)[key];
    if (dot == std::string::npos) return *cur;
    from = dot + 1;
  }
}

}  // namespace

void check_stats_shape(const nlohmann::json& s, const std::string& path) {
  auto bad = [&](const std::string& key, const std::string& want) {
    throw ConfigError(
        fmt::format("{}: not a stats.json as ftsim writes it: '{}' must be {}; delete that run's folder "
                    "to run it again (nothing was written)",
                    path, key, want));
  };
  if (!s.is_object()) bad("(the document)", "an object");
  for (const char* k : {"offered_load", "accepted_load"})
    if (s.contains(k) && !s[k].is_number() && !s[k].is_null()) bad(k, "a number");
  for (const char* k : {"latency_cycles", "packets", "reconfiguration", "config"})
    if (s.contains(k) && !s[k].is_object()) bad(k, "an object");
  if (s.contains("warnings")) {
    if (!s["warnings"].is_array()) bad("warnings", "a list");
    for (const auto& w : s["warnings"])
      if (!w.is_object() || !w.contains("code") || !w["code"].is_string())
        bad("warnings", "a list of objects, each with a text 'code'");
  }
  if (s.contains("faults")) {
    if (!s["faults"].is_array()) bad("faults", "a list");
    for (const auto& f : s["faults"])
      if (!f.is_object() || (f.contains("at") && !f["at"].is_number()))
        bad("faults", "a list of objects with a number 'at'");
  }
  for (const char* sm : {"ddrc", "dqr"})
    if (s.contains(sm)) {
      if (!s[sm].is_object()) bad(sm, "an object");
      if (s[sm].contains("update_cycles")) {
        if (!s[sm]["update_cycles"].is_array()) bad(std::string(sm) + ".update_cycles", "a list of numbers");
        for (const auto& c : s[sm]["update_cycles"])
          if (!c.is_number()) bad(std::string(sm) + ".update_cycles", "a list of numbers");
      }
    }
}

std::string results_csv(const std::vector<SweepPoint>& points, const std::vector<int>& codes,
                        const std::vector<std::string>& status, const std::vector<nlohmann::json>& stats) {
  std::string out = "run";
  if (!points.empty())
    for (const auto& [k, v] : points[0].values) out += "," + csv_cell(k);
  out += ",exit_code,status,warnings";
  for (const char* f : kCsvFields) out += std::string(",") + f;
  out += "\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    out += std::to_string(i);
    for (const auto& [k, v] : points[i].values) out += "," + csv_cell(grid_value(v));
    out += "," + (codes[i] < 0 ? std::string() : std::to_string(codes[i])) + "," + status[i] + ",";
    const auto& s = stats[i];
    if (s.is_object() && s.contains("warnings") && s["warnings"].is_array()) {
      std::string w;
      for (const auto& e : s["warnings"])
        if (e.is_object() && e.contains("code") && e["code"].is_string())
          w += (w.empty() ? "" : ";") + e["code"].get<std::string>();
      out += csv_cell(w);
    }
    for (const char* f : kCsvFields) out += "," + (s.is_object() ? csv_cell(field(s, f)) : std::string());
    out += "\n";
  }
  return out;
}

namespace {
/// The stats.json of a finished point (see point_finished), or null.
nlohmann::json finished_stats(const SweepPoint& p, int* code) {
  std::ifstream ec(p.dir + "/exit_code");
  if (!(ec >> *code)) return nullptr;
  std::ifstream in(p.dir + "/stats.json");
  if (!in) return nullptr;
  try {
    nlohmann::json j;
    in >> j;
    if (!j.is_object() || !j.contains("packets")) return nullptr;
    check_stats_shape(j, p.dir + "/stats.json");
    return j;
  } catch (const nlohmann::json::exception&) {
    return nullptr;  // cut short: the run did not finish
  }
}

/// The first dotted key, among those both objects have, whose values
/// differ ("" when none); *ours and *theirs receive the two values.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& prefix,
                             std::string* ours, std::string* theirs) {
  for (const auto& [k, va] : a.items()) {
    const auto it = b.find(k);
    if (it == b.end()) continue;  // a key added (or removed) by another ftsim version
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    if (va.is_object() && it->is_object()) {
      std::string d = first_difference(va, *it, key, ours, theirs);
      if (!d.empty()) return d;
    } else if (va != *it) {
      *ours = va.dump();
      *theirs = it->dump();
      return key;
    }
  }
  return {};
}
}  // namespace

bool point_finished(const SweepPoint& p, int* code) {
  return !finished_stats(p, code).is_null();
}

void check_finished_points(const SweepPlan& plan, const std::vector<std::size_t>* only) {
  std::string text;
  try {
    text = read_yaml_file(plan.base, "experiment file");
  } catch (const std::exception&) {
    return;  // the runs themselves report the unreadable file
  }
  auto check = [&](std::size_t i) {
    const SweepPoint& p = plan.points[i];
    int code = 0;
    const nlohmann::json stats = finished_stats(p, &code);
    if (stats.is_null() || !stats.contains("config") || !stats["config"].is_object()) return;
    nlohmann::json expected;
    try {
      expected = resolved_config_json(parse_experiment(text, p.overrides, plan.base));
    } catch (const std::exception&) {
      return;  // an invalid point: its run reports it
    }
    std::string ours, theirs;
    const std::string key = first_difference(expected, stats["config"], "", &ours, &theirs);
    if (!key.empty())
      throw ConfigError(
          fmt::format("{}: a finished run of another configuration ({} is {} there, {} in this sweep); the sweep file, "
                      "its experiment, --set or --grid changed since it ran. Give a new --out, or delete that run "
                      "directory to run it again (nothing was run or overwritten)",
                      p.dir, key, theirs, ours));
  };
  if (only != nullptr)
    for (const std::size_t i : *only) check(i);
  else
    for (std::size_t i = 0; i < plan.points.size(); ++i) check(i);
}

void write_sweep_manifest(const SweepOptions& opts, const SweepPlan& plan) {
  const nlohmann::json m = {{"ftsim_sweep", 1},
                            {"name", plan.title},
                            {"sweep_file", fs::absolute(opts.sweep_path).lexically_normal().string()},
                            {"experiment", plan.base},
                            {"points", plan.points.size()}};
  write_file_atomically(opts.out_dir + "/" + kSweepManifest, m.dump(2) + "\n");
}

int lock_sweep_dir(const std::string& out_dir, bool shared) {
  const std::string lock_path = out_dir + "/.sweep.lock";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) throw ConfigError(fmt::format("--out {}: cannot create the lock file {}", out_dir, lock_path));
  if (flock(lock_fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    ::close(lock_fd);
    throw ConfigError(
        fmt::format("--out {}: another sweep is running in this directory (it holds {}); wait for it "
                    "or stop it first",
                    out_dir, lock_path));
  }
  return lock_fd;
}

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

namespace {
/// Removes the outputs that mark a point finished, before it runs again.
void clear_point(const SweepPoint& p) {
  std::error_code ec;
  fs::remove(p.dir + "/exit_code", ec);
  fs::remove(p.dir + "/stats.json", ec);
}
}  // namespace

SweepPlan plan_sweep(const SweepOptions& opts) {
  SweepPlan plan;
  plan.points = expand_sweep(opts.sweep_path, opts.out_dir, &plan.base, &plan.x_key, opts.overrides, &plan.title,
                             opts.grid_sets, opts.runs);
  return plan;
}

int run_point(const SweepOptions& opts, const std::string& base, const SweepPoint& p) {
  fs::create_directories(p.dir);
  clear_point(p);
  const pid_t pid = spawn(opts, base, p);
  if (pid < 0) throw std::runtime_error(fmt::format("sweep point {}: fork failed", p.dir));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("sweep point {}: waitpid failed", p.dir));
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  write_file_atomically(p.dir + "/exit_code", fmt::format("{}\n", code));
  return code;
}

int write_sweep_results(const std::string& out_dir, const SweepPlan& plan, const std::vector<int>& codes,
                        const std::vector<bool>& interrupted) {
  const auto& points = plan.points;
  std::vector<nlohmann::json> stats(points.size());
  int failed = 0;
  const std::string csv_path = out_dir + "/results.csv";
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::ifstream in(points[i].dir + "/stats.json");
    if (in) {
      try {
        in >> stats[i];
      } catch (const nlohmann::json::exception&) {
        stats[i] = nullptr;
      }
      if (!stats[i].is_null()) check_stats_shape(stats[i], points[i].dir + "/stats.json");
    }
    if (codes[i] > 0) ++failed;
  }
  std::vector<std::string> status(points.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    status[i] = interrupted[i] ? "interrupted" : codes[i] < 0 ? "not_run" : codes[i] == 0 ? "ok" : "failed";
  write_file_atomically(csv_path, results_csv(points, codes, status, stats));
  write_plots(out_dir, plan.title, csv_path, points, stats, plan.x_key);
  return failed;
}

int run_sweep(const SweepOptions& opts) {
  const SweepPlan plan = plan_sweep(opts);
  const auto& points = plan.points;
  const std::string& base = plan.base;
  if (opts.resume) check_finished_points(plan);
  fs::create_directories(opts.out_dir);
  // One sweep per directory: a second one (or a resume while the first still
  // runs) would start a second process on the same point.
  const int lock_fd = lock_sweep_dir(opts.out_dir, false);
  write_sweep_manifest(opts, plan);
  std::vector<pid_t> children;
  children.reserve(static_cast<std::size_t>(opts.jobs) + 1);  // no reallocation while the handler reads it
  g_children = &children;
  g_sweep_signal = 0;
  // No SA_RESTART: a signal interrupts wait() so the sweep notices it.
  constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_actions[3];
  {
    struct sigaction sa {};
    sa.sa_handler = stop_sweep;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &sa, &old_actions[i]);
  }
  Progress progress("sweep", "runs", !opts.quiet, 0.0);
  for (const auto& p : points) fs::create_directories(p.dir);
  std::vector<int> codes(points.size(), -1);  // -1: not run (null in results.csv)
  std::vector<bool> interrupted(points.size(), false);
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  std::size_t done = 0;
  while (done < points.size()) {
    while (g_sweep_signal == 0 && next < points.size() && static_cast<int>(running.size()) < opts.jobs) {
      // --resume: a finished point (exit_code and a complete stats.json) is
      // kept; anything else runs again from scratch.
      int code = 0;
      if (opts.resume && point_finished(points[next], &code)) {
        codes[next] = code;
        ++done;
        ++next;
        progress.add_resumed(1);
        continue;
      }
      clear_point(points[next]);
      const pid_t child = spawn(opts, base, points[next]);
      running[child] = next;
      children.push_back(child);
      ++next;
    }
    if (running.empty()) break;
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0) {
      if (errno == EINTR) continue;  // a signal: the loop stops launching and collects the running points
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    children.erase(std::remove(children.begin(), children.end(), pid), children.end());
    if (g_sweep_signal != 0 && code >= 128) {
      // Stopped by the sweep's signal: partial outputs, no exit_code, so
      // --resume runs the point again.
      interrupted[it->second] = true;
    } else {
      codes[it->second] = code;
      write_file_atomically(points[it->second].dir + "/exit_code", fmt::format("{}\n", code));
      ++done;
      progress.update(done, points.size(), fmt::format("{} exit {}", points[it->second].dir, code));
    }
    running.erase(it);
  }
  const int stop_signal = g_sweep_signal;
  g_children = nullptr;
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &old_actions[i], nullptr);
  const int failed = write_sweep_results(opts.out_dir, plan, codes, interrupted);
  ::close(lock_fd);
  if (stop_signal != 0) {
    std::size_t finished = 0;
    for (int c : codes) finished += c >= 0 ? 1 : 0;
    std::fprintf(stderr,
                 "ftsim sweep: interrupted by signal %d: %zu of %zu points finished; %s/results.csv written "
                 "with the rest marked (status interrupted or not_run); run again with --resume to finish\n",
                 stop_signal, finished, points.size(), opts.out_dir.c_str());
    return -(128 + stop_signal);
  }
  return failed;
}

std::vector<std::size_t> task_share(std::size_t points, int task_count, int task_id) {
  std::vector<std::size_t> share;
  for (std::size_t i = static_cast<std::size_t>(task_id); i < points; i += static_cast<std::size_t>(task_count))
    share.push_back(i);
  return share;
}

int run_sweep_task(const SweepOptions& opts) {
  if (opts.task_count < 1)
    throw ConfigError(fmt::format("--tasks {}: give the array's task count, at least 1", opts.task_count));
  if (opts.task_id < 0 || opts.task_id >= opts.task_count)
    throw ConfigError(fmt::format("--task-id {}: out of range 0..{} (--tasks {})", opts.task_id, opts.task_count - 1,
                                  opts.task_count));
  const SweepPlan plan = plan_sweep(opts);
  fs::create_directories(opts.out_dir);
  const int lock_fd = lock_sweep_dir(opts.out_dir, true);
  write_sweep_manifest(opts, plan);
  const auto share = task_share(plan.points.size(), opts.task_count, opts.task_id);
  if (opts.resume) check_finished_points(plan, &share);
  Progress progress(fmt::format("sweep task {}/{}", opts.task_id, opts.task_count), "runs", !opts.quiet, 0.0);
  int failed = 0;
  std::size_t done = 0;
  for (const std::size_t i : share) {
    int code = 0;
    if (opts.resume && point_finished(plan.points[i], &code))
      progress.add_resumed(1);
    else
      code = run_point(opts, plan.base, plan.points[i]);
    failed += code != 0 ? 1 : 0;
    progress.update(++done, share.size(), fmt::format("{} exit {}", plan.points[i].dir, code));
  }
  ::close(lock_fd);
  return failed;
}

CollectResult collect_sweep(const SweepOptions& opts) {
  const SweepPlan plan = plan_sweep(opts);
  std::error_code ec;
  if (!fs::is_directory(opts.out_dir, ec))
    throw ConfigError(fmt::format("--collect {}: no such directory (the sweep's --out){}", opts.out_dir,
                                  ec ? ": " + ec.message() : std::string()));
  // Only a folder a sweep wrote: its results.csv is about to be replaced.
  // (.sweep.lock: folders of ftsim versions before the manifest.)
  if (!fs::exists(opts.out_dir + "/" + kSweepManifest, ec) && !fs::exists(opts.out_dir + "/.sweep.lock", ec))
    throw ConfigError(
        fmt::format("--collect {}: not a sweep's folder (no {}); nothing was written. Give the --out "
                    "of `ftsim sweep`",
                    opts.out_dir, kSweepManifest));
  check_finished_points(plan);
  CollectResult r;
  r.points = plan.points.size();
  std::vector<int> codes(plan.points.size(), -1);
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    int code = 0;
    if (point_finished(plan.points[i], &code)) {
      codes[i] = code;
      ++r.finished;
    }
  }
  r.failed = write_sweep_results(opts.out_dir, plan, codes, std::vector<bool>(plan.points.size(), false));
  return r;
}

namespace {
/// A word for a POSIX shell, single-quoted.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

std::string sweep_edit_flags(const SweepOptions& opts) {
  std::string flags;
  for (const auto& o : opts.overrides) flags += " --set " + shell_quote(o);
  for (const auto& g : opts.grid_sets) flags += " --grid " + shell_quote(g);
  if (!opts.runs.empty()) flags += " --runs " + shell_quote(opts.runs);
  return flags;
}

SlurmScript write_slurm_script(const SweepOptions& opts, const SlurmOptions& slurm) {
  const SweepPlan plan = plan_sweep(opts);
  // Every value that enters the script: words are single-quoted, but a
  // control character would still end a comment or an #SBATCH line early.
  check_no_control_characters(opts.sweep_path, "the sweep file's path");
  check_no_control_characters(opts.out_dir, "--out");
  check_no_control_characters(opts.self_exe, "the ftsim binary's path");
  check_no_control_characters(opts.runs, "--runs");
  for (const auto& o : opts.overrides) check_no_control_characters(o, "--set");
  for (const auto& g : opts.grid_sets) check_no_control_characters(g, "--grid");
  for (const auto& o : slurm.sbatch_options) check_no_control_characters(o, "--sbatch-option");
  const int n_points = static_cast<int>(plan.points.size());
  if (slurm.tasks < 0 || slurm.tasks > kMaxSlurmTasks)
    throw ConfigError(fmt::format("--slurm-tasks {}: out of range 1..{} (0: one task per point, at most {})",
                                  slurm.tasks, kMaxSlurmTasks, kMaxSlurmTasks));
  if (slurm.max_running < 1) throw ConfigError(fmt::format("--slurm-max-running {}: at least 1", slurm.max_running));
  SlurmScript s;
  s.tasks = slurm.tasks == 0 ? std::min(n_points, kMaxSlurmTasks) : std::min(slurm.tasks, n_points);
  std::error_code ec;
  if (fs::exists(opts.out_dir + "/slurm", ec) && !fs::is_directory(opts.out_dir + "/slurm", ec))
    throw ConfigError(
        fmt::format("--slurm: {}/slurm is an existing file; the job script and its logs go in a folder "
                    "of that name. Move the file or give another --out",
                    opts.out_dir));
  fs::create_directories(opts.out_dir + "/slurm", ec);
  if (ec) throw ConfigError(fmt::format("--slurm: cannot create {}/slurm: {}", opts.out_dir, ec.message()));
  write_sweep_manifest(opts, plan);
  const std::string out = fs::absolute(opts.out_dir).lexically_normal().string();
  const std::string sweep = fs::absolute(opts.sweep_path).lexically_normal().string();
  std::string cmd = fmt::format("{} sweep {} --out {} --tasks {} --resume --quiet", shell_quote(opts.self_exe),
                                shell_quote(sweep), shell_quote(out), s.tasks);
  cmd += sweep_edit_flags(opts);
  std::string text = "#!/bin/bash\n";
  text += fmt::format("# ftsim sweep '{}': {} points in {} array tasks (task i runs points i, i+{}, ...).\n",
                      plan.title, n_points, s.tasks, s.tasks);
  text += fmt::format("# Submit: sbatch {}/slurm/sweep.sbatch\n", out);
  text +=
      fmt::format("# Merge (also while it runs): ftsim sweep {}{} --collect {}\n", sweep, sweep_edit_flags(opts), out);
  // sbatch reads an #SBATCH line as words: the job name keeps letters,
  // digits and . _ - only.
  std::string job = "ftsim-" + plan.title;
  for (char& c : job)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  text += fmt::format("#SBATCH --job-name={}\n", job);
  text += fmt::format("#SBATCH --array=0-{}%{}\n", s.tasks - 1, slurm.max_running);
  text += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  text += fmt::format("#SBATCH --output={}/slurm/task-%a.log\n", out);
  for (const auto& o : slurm.sbatch_options) text += "#SBATCH " + o + "\n";
  text += "set -e\n";
  text += "exec " + cmd + "\n";
  s.path = out + "/slurm/sweep.sbatch";
  write_file_atomically(s.path, text);
  fs::permissions(s.path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  s.points = n_points;
  return s;
}

}  // namespace ftsim::tb
