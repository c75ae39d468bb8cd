#include "tb/cli/cli_sweep.hpp"

#include "tb/cli/cli_commands.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "common/config_error.hpp"
#include "tb/output_files.hpp"
#include "tb/sweep/sweep_mpi.hpp"

namespace ftsim::tb {

namespace {
namespace fs = std::filesystem;

/// "DIR/results.csv, DIR/accepted_load.png, ...": only the files that exist.
std::string written_files(const std::string& dir) {
  std::string written = dir + "/results.csv";
  for (const char* png : {"accepted_load.png", "latency.png", "dropped.png", "recovery.png"})
    if (fs::exists(dir + "/" + png)) written += ", " + dir + "/" + png;
  return written;
}

/// The absolute path of an executable found on PATH, or "" when none.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::string p(path);
  std::size_t pos = 0;
  while (pos <= p.size()) {
    std::size_t next = p.find(':', pos);
    if (next == std::string::npos) next = p.size();
    const fs::path candidate = fs::path(p.substr(pos, next - pos)) / name;
    if (!candidate.parent_path().empty() && access(candidate.c_str(), X_OK) == 0) return candidate.string();
    pos = next + 1;
  }
  return "";
}

int task_id_from_env(int given) {
  if (given >= 0) return given;
  const char* env = std::getenv("SLURM_ARRAY_TASK_ID");
  if (env == nullptr)
    throw ConfigError("--tasks: give --task-id or run inside a Slurm array task (SLURM_ARRAY_TASK_ID unset)");
  char* end = nullptr;
  const long id = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || id < 0 || id > 1000000)
    throw ConfigError(fmt::format("SLURM_ARRAY_TASK_ID '{}': not a task id (an integer >= 0)", env));
  return static_cast<int>(id);
}

int finish(const std::string& out_dir, int failed) {
  std::cout << fmt::format("ftsim: wrote {}\n", written_files(out_dir));
  if (failed < 0) return -failed;
  if (failed > 0) {
    std::cerr << fmt::format("ftsim sweep: {} runs exited non-zero; see their run.log\n", failed);
    return 1;
  }
  return 0;
}
}  // namespace

int sweep_command(const std::string& sweep_file, const std::string& out_dir, int jobs, bool quiet, bool resume,
                  const SweepEdits& edits, const SweepBackend& backend) {
  SweepOptions so;
  so.sweep_path = sweep_file;
  so.jobs = jobs;
  so.quiet = quiet;
  so.resume = resume;
  so.overrides = edits.sets;
  so.grid_sets = edits.grids;
  so.runs = edits.runs;
  so.self_exe = fs::canonical("/proc/self/exe").string();
  if (!backend.collect.empty()) {
    so.out_dir = backend.collect;
    const CollectResult r = collect_sweep(so);
    if (!quiet)
      std::cerr << fmt::format("ftsim sweep: collected {} of {} points ({} failed, {} not finished)\n", r.finished,
                               r.points, r.failed, r.points - r.finished);
    return finish(so.out_dir, r.failed);
  }
  prepare_output_dir(out_dir, "--out");
  so.out_dir = out_dir;
  if (backend.tasks > 0 || backend.task_id >= 0) {
    so.task_count = backend.tasks;
    so.task_id = task_id_from_env(backend.task_id);
    const int failed = run_sweep_task(so);
    if (!quiet)
      std::cerr << fmt::format(
          "ftsim sweep: task {} of {} done ({} failed); merge with: ftsim sweep {}{} --collect {}\n", so.task_id,
          so.task_count, failed, sweep_file, sweep_edit_flags(so), out_dir);
    return failed > 0 ? 1 : 0;
  }
  if (backend.slurm) {
    const SlurmScript script = write_slurm_script(so, backend.slurm_options);
    std::cout << fmt::format("ftsim: wrote {} ({} points in {} array tasks)\n", script.path, script.points,
                             script.tasks);
    const std::string sbatch = find_on_path("sbatch");
    if (backend.no_submit || sbatch.empty()) {
      std::cout << fmt::format("ftsim: submit with: sbatch {}\n", script.path);
    } else {
      const std::string cmd = fmt::format("'{}' '{}'", sbatch, script.path);
      std::fflush(stdout);
      const int rc = std::system(cmd.c_str());
      if (rc != 0) {
        std::cerr << fmt::format("ftsim sweep: sbatch failed (exit {}); submit by hand with: sbatch {}\n",
                                 WIFEXITED(rc) ? WEXITSTATUS(rc) : rc, script.path);
        return 1;
      }
    }
    std::cout << fmt::format("ftsim: merge the points with: ftsim sweep {}{} --collect {}\n", sweep_file,
                             sweep_edit_flags(so), out_dir);
    return 0;
  }
  if (backend.mpi || launched_by_mpi()) {
#ifdef FTSIM_HAVE_MPI
    bool is_root = false;
    const int failed = run_sweep_mpi(so, &is_root);
    return is_root ? finish(out_dir, failed) : (failed > 0 ? 1 : 0);
#else
    throw ConfigError(
        "sweep: this ftsim was built without MPI (install libopenmpi-dev and rebuild with -DFTSIM_WITH_MPI=ON), "
        "but --mpi was given or an MPI launcher started it; run `ftsim sweep` without mpirun for a local pool, "
        "or use --slurm");
#endif
  }
  return finish(out_dir, run_sweep(so));
}

}  // namespace ftsim::tb

namespace ftsim::tb::cli {

namespace {

class SweepCommand final : public Command {
 public:
  SweepCommand(CLI::App& app, const Defaults& d) {
    // --jobs N: parallel workers everywhere (processes for sweep, threads for
    // analyze), default all cores; analyze also accepts its older --threads.
    auto* sweep =
        app.add_subcommand("sweep", "expand a grid into runs on a worker pool; writes DIR/results.csv and plots");
    sweep->add_option("sweep", sweep_file, "sweep YAML file")->required();
    sweep->add_option("--jobs,--threads", jobs, "parallel runs (worker processes; default: all cores)")
        ->check(CLI::Range(1, 1024));
    sweep->add_option("--set", sets, "override a key in every point: dotted.key=value (repeatable; not a grid axis)");
    sweep->add_option("--grid", sweep_grids,
                      "replace (or add) a grid axis: KEY=V1,V2,... (repeatable; e.g. --grid faults.random_links=0,4)");
    sweep->add_option("--runs", sweep_runs,
                      "runs per point: N, or 'paper' for the paper's count; sets the replication axis named by the "
                      "sweep file's runs.key to first..first+N-1");
    sweep->add_option("--out", sweep_out, "output directory");
    sweep->add_flag("--resume", sweep_resume, "keep finished points (run directories with stats.json), run the rest");
    sweep->add_flag("--quiet", quiet, "no progress on stderr");
    // Distributed backends (issue 15): MPI ranks, a Slurm job array.
    sweep->add_flag("--mpi", sweep_mpi,
                    "MPI backend: spread the points over the ranks of `mpirun -n N ftsim sweep ...` "
                    "(chosen automatically under mpirun)");
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
    auto* tasks_opt = sweep->add_option("--tasks", sweep_tasks,
                                        "array task mode: run only this task's share of the points (i, i+T, ...) "
                                        "out of T tasks; no results.csv (see --collect)");
    sweep->add_option("--task-id", sweep_task_id, "this task's id, 0..T-1 (default: $SLURM_ARRAY_TASK_ID)")
        ->needs(tasks_opt);
    auto* collect_opt = sweep->add_option(
        "--collect", sweep_collect, "merge the finished points of DIR into DIR/results.csv and plots (also mid-run)");
    collect_opt->excludes(slurm_opt)->excludes(tasks_opt);
    slurm_opt->excludes(tasks_opt);
    jobs = d.jobs;
    m_app = sweep;
  }
  int execute() override {
    return ftsim::tb::sweep_command(sweep_file, sweep_out, jobs, quiet, sweep_resume,
                                    ftsim::tb::SweepEdits{sets, sweep_grids, sweep_runs},
                                    ftsim::tb::SweepBackend{sweep_mpi, sweep_slurm, sweep_no_submit, slurm_opts,
                                                            sweep_tasks, sweep_task_id, sweep_collect});
  }

 private:
  std::vector<std::string> sets;
  bool quiet = false;
  std::string sweep_file;
  int jobs = 1;
  std::string sweep_out = "results/sweep";
  bool sweep_resume = false;
  std::vector<std::string> sweep_grids;
  std::string sweep_runs;
  bool sweep_mpi = false;
  bool sweep_slurm = false;
  bool sweep_no_submit = false;
  ftsim::tb::SlurmOptions slurm_opts;
  int sweep_tasks = 0;
  int sweep_task_id = -1;
  std::string sweep_collect;
};

}  // namespace

void add_sweep_command(CLI::App& app, const Defaults& d, Commands& out) {
  out.push_back(std::make_unique<SweepCommand>(app, d));
}

}  // namespace ftsim::tb::cli
