// ftsim sweep: a grid of independent runs on a local worker pool.
#pragma once
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
/// traffic.load). Throws routing::ConfigError naming the key.
std::vector<SweepPoint> expand_sweep(const std::string& sweep_path, const std::string& out_dir,
                                     std::string* base_experiment, std::string* plot_x);

/// Runs every point with `ftsim run` in up to `jobs` worker processes, then
/// writes DIR/results.csv and the PNG plots. Returns the number of failed runs.
int run_sweep(const SweepOptions& opts);

}  // namespace ftsim::tb
