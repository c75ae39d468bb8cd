// The ftsim command: builds the command line from the subcommands
// (tb/cli/cli_commands.hpp) and runs the one chosen; `ftsim list` lives here.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <systemc>
#include <thread>

#include "common/config_error.hpp"
#include "common/text_input.hpp"
#include "routing_logic/routing_relation.hpp"
#include "tb/cli/cli_commands.hpp"
#include "tb/cli_text.hpp"
#include "tb/experiment_config.hpp"
#include "tb/mechanism_registry.hpp"
#include "tb/plugin_registry.hpp"
#include "tb/traffic_pattern.hpp"
#include "tb/version.hpp"
#ifdef FTSIM_HAVE_VERILATED_RM
#include "rtl_ref/verilated_emergency_logic.hpp"
#endif

namespace {

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

class ListCommand final : public ftsim::tb::cli::Command {
 public:
  explicit ListCommand(CLI::App& app) {
    m_app = app.add_subcommand(
        "list", "print topologies, routing relations, mechanisms, traffic patterns, experiment keys and files");
    m_app->add_option("what", m_what, "all (default), topologies, routing, mechanisms, patterns, keys, experiments")
        ->check(CLI::IsMember(
            {"all", "topologies", "routing", "mechanisms", "patterns", "fault-models", "keys", "experiments"}));
    m_app->add_option("--experiments-dir", m_dir,
                      "folder of experiment files (default: ./experiments, else the one next to the ftsim binary)");
  }
  int execute() override {
    list_command(m_what, m_dir);
    return 0;
  }

 private:
  std::string m_what = "all";
  std::string m_dir;
};

}  // namespace

// libsystemc defines main() and prints its banner before sc_main; ours
// takes precedence, silences the banner and hands over to SystemC.
int main(int argc, char* argv[]) {
#ifdef FTSIM_HAVE_VERILATED_RM
  // immunet.rtl: verilated (rtl_ref/verilated_emergency_logic.hpp).
  ftsim::tb::register_emergency_blocks(
      "verilated",
      "rtl_ref's Verilog emergency logic through Verilator (" + ftsim::rtl::verilated_parameter_sets() + ")",
      ftsim::rtl::verilated_emergency_blocks());
#endif
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  namespace cli = ftsim::tb::cli;
  CLI::App app{"ftsim: cycle-level model of fault-tolerant interconnection-network routers"};
#ifdef FTSIM_HAVE_MPI
  constexpr const char* kMpiBackend = "on";
#else
  constexpr const char* kMpiBackend = "off";
#endif
  app.set_version_flag("--version", fmt::format("ftsim {} (commit {}; MPI sweep backend {})", ftsim::version(),
                                                ftsim::git_commit(), kMpiBackend));
  app.require_subcommand(1);
  cli::Defaults defaults;
  for (int i = 0; i < argc; ++i) defaults.command_line += (i ? " " : "") + std::string(argv[i]);
  // --jobs N: parallel workers everywhere (processes for sweep, threads for
  // analyze), default all cores.
  defaults.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cli::Commands commands;
  cli::add_run_command(app, defaults, commands);
  cli::add_sweep_command(app, defaults, commands);
  cli::add_analyze_commands(app, defaults, commands);
  cli::add_lft_commands(app, commands);
  cli::add_cost_command(app, commands);
  commands.push_back(std::make_unique<ListCommand>(app));

  // Parse errors read like every other error: "ftsim: error: ...".
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string name;
    for (const CLI::App* x = a; x != nullptr; x = x->get_parent())
      name = x->get_parent() == nullptr ? "ftsim" + name : " " + x->get_name() + name;
    return fmt::format("ftsim: error: {}\nRun `{} --help` for the options.\n", e.what(), name);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A first word that is no command ("ftsim frobnicate") made CLI11 say
    // only "A subcommand is required".
    std::vector<std::string> names;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (argc == 1) {
      std::cerr << fmt::format("ftsim: error: give a command: {} (`ftsim --help` explains them)\n",
                               fmt::join(names, ", "));
      return 2;
    }
    if (argv[1][0] != '-' && app.get_subcommands().empty() && e.get_exit_code() != 0) {
      std::cerr << fmt::format("ftsim: error: unknown command '{}'; the commands are: {}\n", ftsim::shown(argv[1]),
                               fmt::join(names, ", "));
      const std::string guess = ftsim::tb::closest_match(argv[1], names);
      if (!guess.empty()) std::cerr << fmt::format("ftsim: did you mean '{}'?\n", guess);
      return 2;
    }
    const int rc = app.exit(e);
    if (rc != 0) {
      const std::string guess = cli_suggestion(app, argc, argv);
      if (!guess.empty()) std::cerr << fmt::format("ftsim: did you mean '{}'?\n", guess);
    }
    return rc == 0 ? 0 : 2;
  }

  try {
    for (const auto& c : commands)
      if (c->parsed()) return c->execute();
    std::cerr << "ftsim: error: no subcommand chosen\n";
    return 2;
  } catch (const ftsim::ConfigError& e) {
    std::cerr << "ftsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave: a symlink loop, a file where a folder belongs,
    // no permission.
    std::cerr << "ftsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "ftsim: error: out of memory: the network, fabric or input is too large for this machine; choose a "
                 "smaller one (docs/reliability.md lists the limits)\n";
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
