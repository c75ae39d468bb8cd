// `ftsim analyze fault-tolerance`: runs the intermediate-node analyser in one
// of the three fault models of section 5.1.1 and writes the JSON report.
// Source: intermediate-nodes-direct-networks.txt, section 5.1 and Table 3.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routing_logic/inodes/inode_analyzer.hpp"

namespace ftsim::tb {

struct FaultToleranceOptions {
  std::string topology = "torus:3x3x3";
  std::string mechanism = "I";
  std::vector<int> faults{1, 2, 3};  ///< consecutive fault counts
  enum class Mode { kExhaustive, kRegion, kSamples } mode = Mode::kExhaustive;
  int region_center = 0;  ///< node at the centre of the distance-1 region
  long samples = 0;
  std::uint64_t seed = 1;
  int threads = 1;
  bool progress = true;  ///< progress lines on stderr
  /// Exhaustive on a torus: enumerate by translation symmetry
  /// (FaultToleranceAnalyzer::plan_exhaustive_symmetric), same counts,
  /// a share faults / nodes of the work per dimension.
  bool symmetry = true;
  /// Runs every task of the plan and returns the summed rows (one per fault
  /// count). Empty: this process's `threads` threads. The MPI backend
  /// (tb/sweep/sweep_mpi.hpp) spreads the tasks over the ranks instead.
  std::function<std::vector<routing::inodes::FaultCountResult>(const routing::inodes::FaultToleranceAnalyzer&,
                                                               const routing::inodes::FaultToleranceAnalyzer::Plan&,
                                                               const routing::inodes::ProgressFn&)>
      runner;
  /// Stated in the report ("threads" or "mpi ranks").
  std::string backend = "threads";
  int ranks = 1;
};

/// Runs the analysis. Faults are drawn from every link (exhaustive, samples)
/// or from the distance-1 region only (region: the analyser then keeps only
/// the region's links in its masks, so tori of more than 256 links work).
/// The report holds `results: [{faults, combinations,
/// not_tolerated_percent, affected_paths_percent, mechanism_share: {...}}]`
/// plus the run's parameters, timing and routing-info memory. Throws
/// ftsim::ConfigError for a bad topology, mechanism or fault range.
nlohmann::json analyze_fault_tolerance(const FaultToleranceOptions& opts);

}  // namespace ftsim::tb
