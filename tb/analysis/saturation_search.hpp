// Saturation throughput as a measured quantity (issue 48): a search on the
// offered load for the knee (the largest load the network still carries)
// and the peak accepted load, in payload flits per cycle of the whole
// network. The search is pure logic over a probe function, so it is tested
// on analytic probes; `ftsim analyze saturation` probes with `ftsim run`.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ftsim::tb {

/// One run at one offered load.
struct SaturationProbe {
  double load = 0;              ///< traffic.load asked for, payload flits/node/cycle
  double offered = 0;           ///< payload flits/live node/cycle created in the window
  double accepted = 0;          ///< payload flits/live node/cycle delivered in the window
  double accepted_network = 0;  ///< payload flits/cycle delivered, whole network
  double overhead_network = 0;  ///< header overhead flits/cycle delivered, whole network (never throughput)
  double live_nodes = 0;
  bool deadlock = false;
  bool sustained = false;  ///< set by the search: accepted >= (1 - tolerance) x offered, no deadlock
  std::string where;       ///< the run's folder (CLI probes)
};

struct SaturationOptions {
  double low = 0.05;        ///< lowest load searched, flits/node/cycle (> 0)
  double high = 1.0;        ///< highest load searched (> low)
  double tolerance = 0.02;  ///< a load is carried when accepted >= (1 - tolerance) x offered
  double precision = 0.01;  ///< stop when the bracket's width is at most precision x its lower end
  /// Start from this bracket (e.g. the knee of a similar configuration)
  /// instead of [low, high]; it is widened towards low / high when its ends
  /// turn out on the wrong side.
  std::optional<std::pair<double, double>> bracket;
};

struct SaturationResult {
  std::vector<SaturationProbe> probes;  ///< in the order they ran
  /// The largest load found carried (the knee; the lower end of the final
  /// bracket) and its probe. When even `high` is carried, knee = high and
  /// saturated_in_range = false; when `low` is not carried, knee = none.
  std::optional<SaturationProbe> knee;
  std::optional<SaturationProbe> saturated;  ///< the smallest load found not carried (the bracket's upper end)
  SaturationProbe peak;                      ///< the probe with the largest accepted_network
  bool saturated_in_range = true;
};

/// Finds the knee by bisection between a carried and a not-carried load
/// (the network carries every load up to its saturation and none beyond),
/// to within `precision` relative, calling `probe(load)` once per load.
/// Loads are rounded to 1e-4. Throws ConfigError for options out of range.
SaturationResult find_saturation(const std::function<SaturationProbe(double)>& probe, const SaturationOptions& opt);

/// The JSON report of a search: options, knee, saturated, peak, probes.
nlohmann::json saturation_json(const SaturationResult& r, const SaturationOptions& opt);

/// A probe from a run's stats.json (payload fields, live nodes, deadlock).
SaturationProbe probe_from_stats(double load, const nlohmann::json& stats);

}  // namespace ftsim::tb
