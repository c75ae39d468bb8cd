// ftsim sweep on MPI ranks (issue 15, section 1): `mpirun -n N ftsim sweep
// FILE.yaml --out DIR`. Compiled into the ftsim command only when the build
// finds MPI (FTSIM_HAVE_MPI); the library itself never links MPI.
#pragma once
#include "tb/sweep.hpp"

namespace ftsim::tb {

/// True when an MPI launcher started this process (Open MPI's
/// OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK from other launchers).
bool launched_by_mpi();

/// The MPI backend. Every rank expands the same grid; rank 0 takes the
/// directory's lock, skips finished points under --resume, and hands out
/// point indices one at a time to the ranks that ask (dynamic load balancing:
/// points differ in cost by orders of magnitude); rank 0 runs points itself
/// between messages. Each point is one `ftsim run` process, exactly as in a
/// local sweep, so the outputs are identical bit for bit. Rank 0 writes
/// results.csv and the plots. Returns the number of failed points on rank 0
/// (*is_root = true) and 0 on the other ranks. Throws ConfigError on rank 0
/// for a bad sweep (the other ranks return 2 quietly).
int run_sweep_mpi(const SweepOptions& opts, bool* is_root);

}  // namespace ftsim::tb
