// `ftsim analyze fault-tolerance`: runs the intermediate-node analyser in one
// of the three fault models of section 5.1.1 and writes the JSON report.
// Source: intermediate-nodes-direct-networks.txt, section 5.1 and Table 3.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

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
};

/// Runs the analysis. The report holds `results: [{faults, combinations,
/// not_tolerated_percent, affected_paths_percent, mechanism_share: {...}}]`
/// plus the run's parameters, timing and routing-info memory. Throws
/// ftsim::ConfigError for a bad topology, mechanism or fault range.
nlohmann::json analyze_fault_tolerance(const FaultToleranceOptions& opts);

}  // namespace ftsim::tb
