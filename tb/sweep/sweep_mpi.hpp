// ftsim sweep on MPI ranks (issue 15, section 1): `mpirun -n N ftsim sweep
// FILE.yaml --out DIR`. Compiled into the ftsim command only when the build
// finds MPI (FTSIM_HAVE_MPI); the library itself never links MPI.
#pragma once
#include <nlohmann/json.hpp>

#include "tb/analysis/fault_tolerance_analysis.hpp"
#include "tb/sweep/sweep.hpp"

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

/// `mpirun -n N ftsim analyze fault-tolerance ...` on the same dispatcher:
/// every rank builds the analyser and its task plan (deterministic); rank 0
/// hands out chunks of consecutive tasks of about 1/16 rank's share of the
/// combinations each, largest first, and sums the counts the ranks send
/// back, so the report equals the single-process one (the rows are integer
/// counts; the report says backend "mpi" and the ranks). `opts.threads`
/// threads per rank. Returns the report on rank 0 (*is_root = true) and an
/// empty object elsewhere. Throws ConfigError on rank 0 for bad options.
nlohmann::json analyze_fault_tolerance_mpi(FaultToleranceOptions opts, bool* is_root);

}  // namespace ftsim::tb
