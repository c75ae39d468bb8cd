// The `ftsim sweep` subcommand's driver: picks the backend (local worker
// pool, MPI ranks, Slurm job array or array task, collect) and prints what it
// wrote. Part of the ftsim command, not of the libraries (it may link MPI).
#pragma once
#include <string>
#include <vector>

#include "tb/sweep/sweep.hpp"

namespace ftsim::tb {

/// The backend flags of `ftsim sweep` (issue 15).
struct SweepBackend {
  bool mpi = false;        ///< --mpi (also chosen when an MPI launcher started the process)
  bool slurm = false;      ///< --slurm: write (and submit) the job array
  bool no_submit = false;  ///< --no-submit
  SlurmOptions slurm_options;
  int tasks = 0;        ///< --tasks T: array task mode
  int task_id = -1;     ///< --task-id (default $SLURM_ARRAY_TASK_ID)
  std::string collect;  ///< --collect DIR
};

/// What the command line changes in the sweep file's points.
struct SweepEdits {
  std::vector<std::string> sets;   ///< --set dotted.key=value (every point)
  std::vector<std::string> grids;  ///< --grid KEY=V1,V2,... (an axis's values)
  std::string runs;                ///< --runs N|paper (the replication axis)
};

/// Runs `ftsim sweep`; returns the process exit code (0, 1 when runs failed,
/// 128 + signal when interrupted). Throws ConfigError for bad input (exit 2).
int sweep_command(const std::string& sweep_file, const std::string& out_dir, int jobs, bool quiet, bool resume,
                  const SweepEdits& edits, const SweepBackend& backend);

}  // namespace ftsim::tb
