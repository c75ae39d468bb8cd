// ftsim sweep: a grid of independent runs, each point one `ftsim run`
// process, on a local worker pool, on MPI ranks (tb/sweep/sweep_mpi.hpp) or as a
// Slurm job array (issue 15).
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
  /// `--runs N|paper`: the replication axis named by the sweep file's `runs`
  /// key gets the values first..first+N-1 (paper: the file's runs.paper).
  /// Empty: the file's grid as written.
  std::string runs;
  /// `--grid KEY=V1,V2,...`: replaces grid axis KEY's values (or adds the
  /// axis), applied before `runs`.
  std::vector<std::string> grid_sets;
  /// Slurm array task mode (run_sweep_task): the array's task count (>= 1)
  /// and this task's id (0..task_count-1).
  int task_count = 0;
  int task_id = -1;
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
/// traffic.load), optional `runs: {key: K, paper: P, first: F}` (K: the grid
/// axis that replicates a point, usually faults.random_seed or sim.seed; P:
/// the paper's runs per point, 1..100000; F: first value, default 1).
/// `extra_sets` ("dotted.key=value", from `sweep --set`) are applied to every
/// point after `set`; a grid axis cannot be among them. `grid_sets`
/// ("key=v1,v2,...") replace or add axes; `runs` ("N" or "paper") sets the
/// replication axis to F..F+N-1. *name (when given) receives the sweep's
/// `name`, else the file's stem. Throws ftsim::ConfigError naming the key.
std::vector<SweepPoint> expand_sweep(const std::string& sweep_path, const std::string& out_dir,
                                     std::string* base_experiment, std::string* plot_x,
                                     const std::vector<std::string>& extra_sets = {}, std::string* name = nullptr,
                                     const std::vector<std::string>& grid_sets = {}, const std::string& runs = {});

/// The flags that change a sweep's points (--set, --grid, --runs), quoted
/// for a shell, each with a leading space: every command that re-expands
/// the sweep (array tasks, --collect) needs them.
std::string sweep_edit_flags(const SweepOptions& opts);

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

/// An expanded sweep: its points, base experiment, x key and title.
struct SweepPlan {
  std::vector<SweepPoint> points;
  std::string base;
  std::string x_key;
  std::string title;
};
SweepPlan plan_sweep(const SweepOptions& opts);

/// Checks the types of the stats.json fields a sweep reads (loads, latency,
/// packets, warnings, faults, the subnet managers' update cycles). Throws
/// ConfigError naming `path` and the field when one has another shape (a
/// file edited by hand, or not written by ftsim).
void check_stats_shape(const nlohmann::json& stats, const std::string& path);

/// True when the point's run finished: its exit_code file and a complete
/// stats.json exist (stats.json is written atomically; a killed run leaves
/// no exit_code). *code receives the exit code.
bool point_finished(const SweepPoint& p, int* code);
/// --resume and --collect: throws ConfigError (naming the run directory and
/// the first differing key) when a finished point's stats.json "config"
/// differs from the configuration this sweep gives that point (the sweep
/// file, its experiment, --set or --grid changed since the run), so that one
/// results.csv never mixes configurations. Keys only one side has (another
/// ftsim version) are not compared. `only`: these point indices (default
/// all).
void check_finished_points(const SweepPlan& plan, const std::vector<std::size_t>* only = nullptr);

/// Takes DIR/.sweep.lock: exclusive for a local or MPI sweep (one per
/// directory), shared for Slurm array tasks (they run disjoint points side by
/// side). Returns the descriptor (close it to release). Throws ConfigError
/// when another sweep holds it.
int lock_sweep_dir(const std::string& out_dir, bool shared);

/// The file that marks a folder as a sweep's output (JSON: name, sweep_file,
/// experiment, points); `--collect` refuses a folder without it.
inline constexpr const char* kSweepManifest = "sweep.json";
/// Writes OUT/sweep.json for the plan (atomically; array tasks write the same
/// text side by side).
void write_sweep_manifest(const SweepOptions& opts, const SweepPlan& plan);

/// Runs one point as `ftsim run` in a child process and waits for it; writes
/// the point's exit_code file. Returns the exit code (128 + signal when the
/// run was killed).
int run_point(const SweepOptions& opts, const std::string& base, const SweepPoint& p);

/// Writes DIR/results.csv and the plots from the points' run directories.
/// codes[i] < 0: the point did not run. Returns the number of failed points.
int write_sweep_results(const std::string& out_dir, const SweepPlan& plan, const std::vector<int>& codes,
                        const std::vector<bool>& interrupted);

/// The points of one array task: i, i + task_count, i + 2 task_count, ...
/// (strided, so that a cost trend along a grid axis is spread over the tasks).
std::vector<std::size_t> task_share(std::size_t points, int task_count, int task_id);

/// Slurm array task: runs this task's share of the points one after the
/// other (a finished point is kept with --resume), under a shared lock on
/// the directory (the other tasks run beside it). Writes no results.csv:
/// `collect_sweep` does. Returns the number of failed points. Throws
/// ConfigError for a task id outside 0..task_count-1.
int run_sweep_task(const SweepOptions& opts);

struct CollectResult {
  std::size_t points = 0;    ///< points in the grid
  std::size_t finished = 0;  ///< points with exit_code and a complete stats.json
  int failed = 0;            ///< finished with a non-zero exit code
};
/// `ftsim sweep FILE --collect DIR`: merges the finished points of DIR into
/// results.csv and the plots; unfinished points are `not_run` (so a partial
/// array can be collected while it runs). Throws ConfigError when DIR is not
/// a directory.
CollectResult collect_sweep(const SweepOptions& opts);

/// Largest array a job script asks for (Slurm's default MaxArraySize is 1001).
constexpr int kMaxSlurmTasks = 1000;
struct SlurmOptions {
  int tasks = 0;                            ///< array tasks; 0: one per point, at most kMaxSlurmTasks
  int max_running = 64;                     ///< `%M`: tasks running at once
  std::vector<std::string> sbatch_options;  ///< extra `#SBATCH` lines ("--partition=short")
};
struct SlurmScript {
  std::string path;  ///< DIR/slurm/sweep.sbatch (absolute)
  int tasks = 0;
  int points = 0;
};
/// Writes DIR/slurm/sweep.sbatch: a job array `--array=0-(T-1)%M`, each task
/// running `ftsim sweep FILE --out DIR --tasks T --resume` (its task id from
/// SLURM_ARRAY_TASK_ID), logs in DIR/slurm/task-<id>.log. Paths in the
/// script are absolute. Throws ConfigError for --slurm-tasks outside
/// 0..kMaxSlurmTasks or --slurm-max-running < 1.
SlurmScript write_slurm_script(const SweepOptions& opts, const SlurmOptions& slurm);

}  // namespace ftsim::tb
