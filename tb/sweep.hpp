// ftsim sweep: a grid of independent runs on a local worker pool.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ftsim::tb {

struct SweepOptions {
  std::string sweep_path;
  std::string out_dir;
  int jobs = 1;
  bool quiet = false;
  bool resume = false;   ///< keep points that finished (exit_code and a complete stats.json); rerun the rest
  std::string self_exe;  ///< the ftsim binary to run for each point
  /// `--set` assignments applied to every point, after the file's `set`.
  std::vector<std::string> overrides;
};

/// One grid point: its overrides and its run directory.
struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> values;  ///< grid key -> value text
  std::vector<std::string> overrides;                       ///< all --set assignments
  std::string dir;
};

/// Expands SWEEP.yaml: keys `experiment` (base YAML, relative to the sweep
/// file), `set` (fixed dotted-key overrides), `grid` (dotted key -> list of
/// values; the runs are the cartesian product), optional `plot.x` (default
/// traffic.load). `extra_sets` ("dotted.key=value", from `sweep --set`) are
/// applied to every point after `set`; a grid axis cannot be among them.
/// *name (when given) receives the sweep's `name`, else the file's stem.
/// Throws ftsim::ConfigError naming the key.
std::vector<SweepPoint> expand_sweep(const std::string& sweep_path, const std::string& out_dir,
                                     std::string* base_experiment, std::string* plot_x,
                                     const std::vector<std::string>& extra_sets = {}, std::string* name = nullptr);

/// DIR/results.csv: one row per point. Columns: run, each grid key (values
/// unquoted when numeric), exit_code (empty when the point did not run),
/// status (ok | failed | interrupted | not_run), warnings (stats.json
/// warning codes joined by ';'), then stats.json fields named by their
/// stats.json paths ("latency_cycles.mean"). Numbers and booleans as JSON
/// writes them; null (absent) as an empty cell.
std::string results_csv(const std::vector<SweepPoint>& points, const std::vector<int>& codes,
                        const std::vector<std::string>& status, const std::vector<nlohmann::json>& stats);

/// Runs every point with `ftsim run` in up to `jobs` worker processes, then
/// writes DIR/results.csv and the PNG plots. Returns the number of failed runs,
/// or -(128 + signal) when SIGINT/SIGTERM/SIGHUP stopped the sweep: the
/// running points are stopped (they write partial outputs), and results.csv
/// is written with the unfinished points marked; --resume finishes them.
int run_sweep(const SweepOptions& opts);

}  // namespace ftsim::tb
