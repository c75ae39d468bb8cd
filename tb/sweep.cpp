#include "tb/sweep.hpp"

#include "tb/gnuplot.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "routing_logic/types.hpp"
#include "tb/experiment_config.hpp"
#include "tb/output_files.hpp"
#include "tb/yaml_input.hpp"

namespace ftsim::tb {

using routing::ConfigError;
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
                                     std::string* base_experiment, std::string* plot_x) {
  const YAML::Node root = parse_yaml_document(read_yaml_file(sweep_path, "sweep file"), sweep_path);
  if (!root.IsMap()) throw ConfigError(fmt::format("{}: the sweep must be a mapping", sweep_path));
  const std::set<std::string> allowed{"name", "description", "experiment", "set", "grid", "plot"};
  for (const auto& kv : root)
    if (!allowed.count(kv.first.as<std::string>()))
      throw ConfigError(fmt::format("{}: unknown key '{}'; allowed: name, description, experiment, set, grid, plot",
                                    sweep_path, kv.first.as<std::string>()));
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

void write_plots(const std::string& out_dir, const std::string& csv_path, const std::vector<SweepPoint>& points,
                 const std::vector<nlohmann::json>& stats, const std::string& x_key) {
  // Series: every combination of grid values except x and the seeds (keys
  // ending in "seed"), which are averaged.
  std::map<std::string, std::map<double, std::vector<std::pair<double, double>>>> series;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (stats[i].is_null()) continue;
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
    if (!has_x && x_key == "traffic.load" && stats[i].contains("offered_load")) {
      x = stats[i]["offered_load"].get<double>();
      has_x = true;
    }
    if (!has_x) continue;
    const auto& lat = stats[i]["latency_cycles"]["mean"];
    series[label.empty() ? "all" : label][x].emplace_back(stats[i].value("accepted_load", 0.0),
                                                          lat.is_null() ? 0.0 : lat.get<double>());
  }
  if (series.empty()) return;
  const std::string dat = out_dir + "/plot_data.dat";
  std::ofstream d(dat);
  std::string acc_cmd;
  std::string lat_cmd;
  int block = 0;
  for (const auto& [label, pts] : series) {
    d << "# " << label << "\n";
    for (const auto& [x, ys] : pts) {
      double a = 0;
      double l = 0;
      for (const auto& [ya, yl] : ys) {
        a += ya;
        l += yl;
      }
      d << x << " " << a / static_cast<double>(ys.size()) << " " << l / static_cast<double>(ys.size()) << "\n";
    }
    d << "\n\n";
    acc_cmd += fmt::format("{}{} index {} using 1:2 with linespoints title {}", block ? ", " : "", gnuplot_quote(dat),
                           block, gnuplot_quote(label));
    lat_cmd += fmt::format("{}{} index {} using 1:3 with linespoints title {}", block ? ", " : "", gnuplot_quote(dat),
                           block, gnuplot_quote(label));
    ++block;
  }
  d.close();
  std::ostringstream g;
  g << "set terminal pngcairo size 900,600 noenhanced\nset grid\nset key left top\n"
    << "set xlabel " << gnuplot_quote(x_key == "traffic.load" ? "offered load (flits/node/cycle)" : x_key) << "\n"
    << "set output " << gnuplot_quote(out_dir + "/accepted_load.png")
    << "\nset ylabel 'accepted load (flits/node/cycle)'\nplot " << acc_cmd << "\n"
    << "set output " << gnuplot_quote(out_dir + "/latency.png")
    << "\nset ylabel 'mean latency (cycles)'\nset logscale y\nplot " << lat_cmd << "\n";
  std::string why;
  if (!run_gnuplot(g.str(), &why))
    std::fprintf(stderr, "ftsim sweep: gnuplot failed; %s is still written, the plots are not\n%s", csv_path.c_str(),
                 why.c_str());
}

}  // namespace

namespace {
/// Children of the running sweep, for the signal handler.
std::vector<pid_t>* g_children = nullptr;
extern "C" void stop_sweep(int sig) {
  if (g_children != nullptr)
    for (pid_t c : *g_children) kill(c, SIGTERM);
  std::signal(sig, SIG_DFL);
  raise(sig);
}

/// A point is finished when its exit_code file and a complete stats.json
/// exist (stats.json is written atomically, and a run that was killed
/// leaves no exit_code).
bool point_finished(const SweepPoint& p, int* code) {
  std::ifstream ec(p.dir + "/exit_code");
  if (!(ec >> *code)) return false;
  std::ifstream in(p.dir + "/stats.json");
  if (!in) return false;
  try {
    nlohmann::json j;
    in >> j;
    return j.is_object() && j.contains("packets");
  } catch (const std::exception&) {
    return false;
  }
}
}  // namespace

int run_sweep(const SweepOptions& opts) {
  std::string base;
  std::string x_key;
  const auto points = expand_sweep(opts.sweep_path, opts.out_dir, &base, &x_key);
  fs::create_directories(opts.out_dir);
  // One sweep per directory: a second one (or a resume while the first still
  // runs) would start a second process on the same point.
  const std::string lock_path = opts.out_dir + "/.sweep.lock";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) throw ConfigError(fmt::format("--out {}: cannot create the lock file {}", opts.out_dir, lock_path));
  if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd);
    throw ConfigError(
        fmt::format("--out {}: another sweep is running in this directory (it holds {}); wait for it "
                    "or stop it first",
                    opts.out_dir, lock_path));
  }
  std::vector<pid_t> children;
  g_children = &children;
  std::signal(SIGINT, stop_sweep);
  std::signal(SIGTERM, stop_sweep);
  std::signal(SIGHUP, stop_sweep);
  for (const auto& p : points) fs::create_directories(p.dir);
  std::vector<int> codes(points.size(), -1);
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  std::size_t done = 0;
  while (done < points.size()) {
    while (next < points.size() && static_cast<int>(running.size()) < opts.jobs) {
      // --resume: a finished point (exit_code and a complete stats.json) is
      // kept; anything else runs again from scratch.
      int code = 0;
      if (opts.resume && point_finished(points[next], &code)) {
        codes[next] = code;
        ++done;
        ++next;
        continue;
      }
      std::error_code ec;
      fs::remove(points[next].dir + "/exit_code", ec);
      fs::remove(points[next].dir + "/stats.json", ec);
      const pid_t child = spawn(opts, base, points[next]);
      running[child] = next;
      children.push_back(child);
      ++next;
    }
    if (running.empty()) break;
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0) break;
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    codes[it->second] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    write_file_atomically(points[it->second].dir + "/exit_code", fmt::format("{}\n", codes[it->second]));
    children.erase(std::remove(children.begin(), children.end(), pid), children.end());
    ++done;
    if (!opts.quiet)
      std::fprintf(stderr, "ftsim sweep: [%zu/%zu] %s exit %d\n", done, points.size(), points[it->second].dir.c_str(),
                   codes[it->second]);
    running.erase(it);
  }
  std::vector<nlohmann::json> stats(points.size());
  int failed = 0;
  const std::string csv_path = opts.out_dir + "/results.csv";
  std::ofstream csv(csv_path);
  csv << "run";
  if (!points.empty())
    for (const auto& [k, v] : points[0].values) csv << "," << k;
  csv << ",exit_code,offered_load,accepted_load,latency_mean,latency_p50,latency_p99,latency_max,mean_hops,"
         "injected,delivered,dropped,in_flight,deadlock,cycles,wall_seconds,node_cycles_per_second,live_nodes,"
         "accepted_flits_per_cycle,dropped_no_route,dropped_link_failure,dropped_reroute_discarded,deadlock_cycle\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    std::ifstream in(p.dir + "/stats.json");
    if (in) {
      try {
        in >> stats[i];
      } catch (const std::exception&) {
        stats[i] = nullptr;
      }
    }
    if (codes[i] != 0) ++failed;
    csv << i;
    for (const auto& [k, v] : p.values) csv << ",\"" << v << "\"";
    csv << "," << codes[i];
    const auto& s = stats[i];
    auto num = [&](const nlohmann::json& v) { return v.is_null() ? std::string() : v.dump(); };
    if (s.is_object()) {
      csv << "," << num(s["offered_load"]) << "," << num(s["accepted_load"]) << "," << num(s["latency_cycles"]["mean"])
          << "," << num(s["latency_cycles"]["p50"]) << "," << num(s["latency_cycles"]["p99"]) << ","
          << num(s["latency_cycles"]["max"]) << "," << num(s["mean_hops"]) << "," << num(s["packets"]["injected"])
          << "," << num(s["packets"]["delivered"]) << "," << num(s["packets"]["dropped"]) << ","
          << num(s["packets"]["in_flight"]) << "," << (s["deadlock"].get<bool>() ? 1 : 0) << "," << num(s["cycles"])
          << "," << num(s["wall_seconds"]) << "," << num(s["node_cycles_per_second"]) << "," << num(s["live_nodes"])
          << "," << num(s.value("accepted_flits_per_cycle", nlohmann::json())) << ","
          << num(s["dropped_by_reason"].value("no_route", nlohmann::json())) << ","
          << num(s["dropped_by_reason"].value("link_failure", nlohmann::json())) << ","
          << num(s["dropped_by_reason"].value("reroute_discarded", nlohmann::json())) << ","
          << (s.contains("deadlock_report") ? num(s["deadlock_report"]["last_move_cycle"]) : std::string());
    } else {
      csv << ",,,,,,,,,,,,,,,,,,,,,";
    }
    csv << "\n";
  }
  csv.close();
  write_plots(opts.out_dir, csv_path, points, stats, x_key);
  g_children = nullptr;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  ::close(lock_fd);
  return failed;
}

}  // namespace ftsim::tb
