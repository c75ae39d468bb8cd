// Runs one experiment in this process and collects its statistics.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

#include "tb/experiment_config.hpp"

namespace ftsim::tb {

class Network;

struct RunOptions {
  std::string out_dir;          ///< where stats.json and timeseries.csv go; empty: do not write
  std::string vcd_path;         ///< empty: no waves
  std::int64_t trace_from = 0;  ///< first traced cycle
  std::int64_t trace_to = -1;   ///< last traced cycle (-1: end of run)
  /// Routers to trace (parse_router_selection syntax); empty: every router.
  std::string trace_routers;
  bool quiet = false;  ///< no progress on stderr
  std::string experiment_name;
  std::string command_line;  ///< recorded in stats.json "ftsim" (provenance)
  /// Tests: called once the network is elaborated, before cycle 0 (to inject
  /// a defect the configuration cannot express).
  std::function<void(Network&)> on_elaborated;
};

/// Outcome of a run. exit_code: 0 ok, 3 deadlock (unless the experiment
/// records deadlock as an outcome), 4 conservation violated.
struct RunResult {
  nlohmann::json stats;
  int exit_code = 0;
  std::string message;
};

/// stats.json's latency object of `values` (cycles): mean, nearest-rank p50
/// and p99 (the value at rank ceil(p * n), 1-based), max, count; null
/// fields and count 0 when empty. Order of `values` does not matter.
nlohmann::json latency_percentiles(std::vector<std::uint32_t> values);

/// Checks a --trace-routers selection against the experiment's topology
/// before any output exists. Throws ftsim::ConfigError naming the token.
void check_trace_routers(const ExperimentConfig& cfg, const std::string& spec);

/// Elaborates the network, runs warm-up, measurement and drain, checks
/// conservation (injected = delivered + dropped + in_flight) and writes the
/// outputs. SystemC elaborates once per process, so call this at most once.
/// Throws ftsim::ConfigError for invalid configurations.
RunResult run_experiment(const ExperimentConfig& cfg, const RunOptions& opts);

/// stats.json "channel_utilisation": load of the router-to-router channels
/// over the measurement window of `measure_cycles` cycles. Fields: channels
/// (count), mean and max utilisation (flits/cycle per channel, 0..1),
/// escape_flit_share (0..1: flits sent on escape VCs / all flits), hottest
/// (the 8 busiest channels: "router.port", utilisation, escape_utilisation).
/// Shows where a routing relation concentrates traffic, e.g. around faults.
nlohmann::json channel_utilisation(const Network& net, int vcs, double measure_cycles);

}  // namespace ftsim::tb
