// Test harness: elaborates a network from YAML text and runs it for a number
// of cycles (one network per test process).
#pragma once
#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "tb/experiment_config.hpp"
#include "tb/fault_injector.hpp"
#include "tb/network.hpp"

namespace ftsim::test {

struct Harness {
  tb::ExperimentConfig cfg;
  std::unique_ptr<tb::Network> net;
  std::unique_ptr<tb::FaultInjector> faults;
  std::vector<tb::ResolvedFault> resolved;

  explicit Harness(const std::string& yaml, const std::vector<std::string>& sets = {}) {
    cfg = tb::parse_experiment(yaml, sets);
    net = std::make_unique<tb::Network>("net", cfg);
    for (auto& s : net->sinks) s.record = true;
    resolved = tb::resolve_faults(net->topology(), cfg.faults, net->reports_lost_nodes());
    faults = std::make_unique<tb::FaultInjector>("faults", *net, resolved, cfg.faults.detection_delay);
  }
  void run(std::uint64_t cycles) { sc_core::sc_start(net->clk.period() * static_cast<double>(cycles)); }
  const hw::NetworkStats& stats() { return net->context().stats; }
};

}  // namespace ftsim::test
