// `ftsim analyze saturation`: the saturation throughput of one
// configuration, found by a search on the offered load (issue 48). Each
// probe is `ftsim run` in a child process (SystemC elaborates once per
// process); the search itself is tb/saturation_search.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/config_error.hpp"
#include "tb/cli/cli_commands.hpp"
#include "tb/cli_text.hpp"
#include "tb/experiment_config.hpp"
#include "tb/output_files.hpp"
#include "tb/analysis/saturation_search.hpp"

namespace ftsim::tb::cli {

namespace {

namespace fs = std::filesystem;

class SaturationCommand final : public Command {
 public:
  explicit SaturationCommand(CLI::App* analyze) {
    auto* a = analyze->add_subcommand(
        "saturation",
        "saturation throughput of an experiment: bisection on traffic.load for the knee (the largest load carried, "
        "to within --precision), and the peak accepted load; payload flits/cycle of the whole network");
    a->add_option("experiment", m_experiment, "experiment YAML file")->required();
    a->add_option("--set", m_sets, "override a key: dotted.key=value (repeatable)");
    a->add_option("--low", m_opt.low, "lowest load searched, flits/node/cycle (default 0.05)");
    a->add_option("--high", m_opt.high, "highest load searched (default 1.0)");
    a->add_option("--tolerance", m_opt.tolerance,
                  "a load is carried when accepted >= (1 - tolerance) x offered, payload (default 0.02)");
    a->add_option("--precision", m_opt.precision,
                  "stop when the bracket is at most precision x the knee wide (default 0.01)");
    a->add_option("--bracket", m_bracket,
                  "A,B: start from this bracket (e.g. a similar configuration's knee), widened when needed");
    a->add_option("--runs-dir", m_runs_dir, "folder for the probes' runs (default: OUT without .json, + .runs)");
    a->add_option("--out", m_out, "JSON file to write")->required();
    a->add_flag("--quiet", m_quiet, "no progress or summary");
    m_app = a;
  }

  int execute() override {
    check_output_file(m_out, "--out");
    (void)load_experiment(m_experiment, m_sets);  // a bad file or --set: exit 2 before any probe
    if (!m_bracket.empty()) {
      const auto comma = m_bracket.find(',');
      try {
        if (comma == std::string::npos) throw std::invalid_argument(m_bracket);
        m_opt.bracket = std::make_pair(std::stod(m_bracket.substr(0, comma)), std::stod(m_bracket.substr(comma + 1)));
      } catch (const std::exception&) {
        throw ConfigError(fmt::format("--bracket '{}': expected A,B (two loads, A < B)", m_bracket));
      }
    }
    std::string runs = m_runs_dir;
    if (runs.empty()) {
      runs = m_out;
      if (runs.size() > 5 && runs.compare(runs.size() - 5, 5, ".json") == 0) runs.resize(runs.size() - 5);
      runs += ".runs";
    }
    prepare_output_dir(runs, "--runs-dir");
    const std::string self = fs::canonical("/proc/self/exe").string();
    Progress progress("analyze saturation", "probes", !m_quiet, 0.0);
    int n = 0;
    auto probe = [&](double load) {
      const std::string dir = fmt::format("{}/load_{:.4f}", runs, load);
      std::vector<std::string> args{self, "run", m_experiment, "--quiet", "--out", dir};
      for (const auto& s : m_sets) {
        args.push_back("--set");
        args.push_back(s);
      }
      args.push_back("--set");
      args.push_back(fmt::format("traffic.load={:.4f}", load));
      // A finished probe of an earlier, interrupted search of the same
      // configuration is reused; anything else runs again.
      const std::string stats_path = dir + "/stats.json";
      std::vector<std::string> sets = m_sets;
      sets.push_back(args.back());
      if (fs::exists(stats_path) && !same_configuration(stats_path, sets)) fs::remove(stats_path);
      if (!fs::exists(stats_path)) {
        const int code = run_child(args, dir);
        if (code != 0 && code != 3)
          throw ConfigError(fmt::format("probe at load {:.4f} failed (exit {}); see {}/run.log", load, code, dir));
      }
      std::ifstream in(stats_path);
      nlohmann::json stats;
      try {
        in >> stats;
      } catch (const std::exception&) {
        throw ConfigError(fmt::format("probe at load {:.4f}: {} is missing or cut short", load, stats_path));
      }
      SaturationProbe p = probe_from_stats(load, stats);
      p.where = dir;
      progress.update(
          static_cast<std::uint64_t>(++n), 0,
          fmt::format("load {:.4f}: accepted {:.4f} of {:.4f} payload flits/node/cycle", load, p.accepted, p.offered));
      return p;
    };
    const SaturationResult r = find_saturation(probe, m_opt);
    nlohmann::json j = saturation_json(r, m_opt);
    j["experiment"] = m_experiment;
    j["set"] = m_sets;
    write_file_atomically(m_out, j.dump(2) + "\n");
    if (!m_quiet) {
      if (r.knee)
        std::cout << fmt::format(
            "knee {:.4f} flits/node/cycle{}: {:.1f} payload flits/cycle on {} live nodes; peak {:.1f} at load {:.4f} "
            "({} probes)\n",
            r.knee->load, r.saturated_in_range ? "" : " (carried at --high: not saturated)", r.knee->accepted_network,
            r.knee->live_nodes, r.peak.accepted_network, r.peak.load, r.probes.size());
      else
        std::cout << fmt::format("not even --low {} is carried; peak {:.1f} payload flits/cycle\n", m_opt.low,
                                 r.peak.accepted_network);
      std::cout << fmt::format("ftsim: wrote {}\n", m_out);
    }
    return 0;
  }

 private:
  /// Runs `args` with stdout and stderr in DIR/run.log; its exit code.
  static int run_child(const std::vector<std::string>& args, const std::string& dir) {
    fs::create_directories(dir);
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      if (std::FILE* f = std::fopen((dir + "/run.log").c_str(), "w")) {
        dup2(fileno(f), 1);
        dup2(fileno(f), 2);
      }
      execv(argv[0], argv.data());
      _exit(127);
    }
    if (pid < 0) throw ConfigError("saturation search: fork failed");
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) throw ConfigError("saturation search: waitpid failed");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  /// True when the stats.json at `path` is of the experiment with `sets`.
  bool same_configuration(const std::string& path, const std::vector<std::string>& sets) const {
    try {
      std::ifstream in(path);
      nlohmann::json stats;
      in >> stats;
      return stats.contains("config") && stats["config"] == resolved_config_json(load_experiment(m_experiment, sets));
    } catch (const std::exception&) {
      return false;
    }
  }

  std::string m_experiment, m_out, m_runs_dir, m_bracket;
  std::vector<std::string> m_sets;
  SaturationOptions m_opt;
  bool m_quiet = false;
};

}  // namespace

void add_saturation_command(CLI::App* analyze, Commands& out) {
  out.push_back(std::make_unique<SaturationCommand>(analyze));
}

}  // namespace ftsim::tb::cli
