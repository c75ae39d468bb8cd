// The `ftsim` command line, one subcommand per class: each registers its
// options on the CLI11 app in its constructor and runs in execute() after the
// parse (issue 13: sc_main split per subcommand). Only the ftsim command's
// translation units include this (CLI11 is not part of the libraries).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ftsim::tb::cli {

/// One subcommand of `ftsim`.
class Command {
 public:
  virtual ~Command() = default;
  /// True when the command line chose this subcommand.
  bool parsed() const { return m_app != nullptr && m_app->parsed(); }
  /// Runs it; returns the process exit code. Throws ConfigError for bad
  /// input (exit 2).
  virtual int execute() = 0;

 protected:
  CLI::App* m_app = nullptr;  ///< the subcommand's CLI11 app, owned by the root app
};
using Commands = std::vector<std::unique_ptr<Command>>;

/// What every subcommand may need from the process.
struct Defaults {
  std::string command_line;  ///< argv joined, recorded in stats.json
  int jobs = 1;              ///< --jobs default: the machine's cores
};

/// `ftsim run` (tb/cli/cli_run.cpp).
void add_run_command(CLI::App& app, const Defaults& d, Commands& out);
/// `ftsim sweep` (tb/cli/cli_sweep.cpp).
void add_sweep_command(CLI::App& app, const Defaults& d, Commands& out);
/// `ftsim analyze routing-success|fault-tolerance|connectivity|dqr`
/// (tb/cli/cli_analyze.cpp).
void add_analyze_commands(CLI::App& app, const Defaults& d, Commands& out);
/// `ftsim analyze saturation` (tb/cli/cli_saturation.cpp), under `analyze`.
void add_saturation_command(CLI::App* analyze, Commands& out);
/// `ftsim lft diff|netfile|export` (tb/cli/cli_lft.cpp).
void add_lft_commands(CLI::App& app, Commands& out);
/// `ftsim cost` (tb/cli/cli_cost.cpp).
void add_cost_command(CLI::App& app, Commands& out);

/// A CLI11 check for an unsigned integer option in min..max, read whole:
/// CLI11's own checks clamped 18446744073709551616 to 2^64 - 1 and printed
/// the range of a double (a 309-digit number). Negative and non-integer
/// text is refused too.
CLI::Validator integer_in(std::uint64_t min, std::uint64_t max);

/// Splits a comma list of names (--variant, --algorithms). Throws
/// ConfigError naming `option` for an empty list or an empty name.
std::vector<std::string> split_names(const std::string& text, const std::string& option);

/// Parses "A..B", "A..B:STEP", "A,B,C" or "A" into non-negative integers (at
/// most 100,000 of them). Throws ConfigError naming `option`.
std::vector<int> parse_range(const std::string& text, const std::string& option);

}  // namespace ftsim::tb::cli
