// What a run tells its user at the end: warnings about results that must not
// be read at face value, and a one-screen summary.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace ftsim::tb {

/// Accepted load below this share of the offered load flags the run as
/// beyond saturation (the source queues grow without bound, so latency
/// measures the run's length, not the network).
inline constexpr double kSaturationAcceptedShare = 0.95;

/// stats.json "warnings": an array of {"code", "message"} for a run whose
/// figures must not be read at face value. Codes:
///   interrupted           stopped by a signal; figures cover part of the run
///   deadlock              a deadlock was recorded as the outcome
///   conservation_violated injected != delivered + dropped + in flight
///   no_measured_packets   nothing was created in the measurement window
///   not_drained           measured packets still undelivered at the end
///                         (latency covers the delivered ones only)
///   beyond_saturation     accepted < 95% of offered (fault-free capacity
///                         exceeded, or faults removed capacity)
/// `stats` is the stats.json object (fields offered_load, accepted_load,
/// packets.measured, packets.measured_undelivered, drained, deadlock,
/// conservation_ok, interrupted); absent fields raise no warning.
nlohmann::json run_warnings(const nlohmann::json& stats);

/// The one-screen summary printed at the end of `ftsim run`: experiment,
/// offered and accepted load (flits/node/cycle), latency mean and p99
/// (cycles), packets lost by reason, faults, reconfiguration times (Immunet,
/// DDRC or DQR), and every warning. At most ~20 lines.
std::string run_summary(const nlohmann::json& stats);

}  // namespace ftsim::tb
