// Communication phases (issue 53 item 2): a workload is a sequence of phases,
// each a destination pattern and an amount of work per node ending at a
// barrier, so that a run's result is an execution time. One PhaseEndpoint per
// node in place of a generator and a sink; one PhaseController steps the
// phases and keeps the barrier.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "hw/immediate_target_socket.hpp"
#include "hw/network_context.hpp"
#include "hw/network_interface.hpp"
#include "tb/experiment_config.hpp"
#include "tb/traffic_pattern.hpp"

namespace ftsim::tb {

class PhaseController;

/// One node's endpoint: bound like a RequestReplyEndpoint (`socket` to the
/// interface's `target`, the interface's `deliver` to `deliveries`). When
/// phase k starts at cycle s it queues its packets_per_node packets at
/// s + compute_cycles + i * ceil(packet_flits / load), i = 0.., each to the
/// phase's pattern (all_to_all: its i-th packet to the (i mod (live - 1) +
/// 1)-th next live node of its component), tagged with k. A node whose
/// pattern gives no destination, or that failed, sends nothing more in the
/// phase. Units: cycles, flits.
class PhaseEndpoint : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<PhaseEndpoint> socket;
  hw::ImmediateTargetSocket<PhaseEndpoint> deliveries;
  SC_HAS_PROCESS(PhaseEndpoint);
  PhaseEndpoint(sc_core::sc_module_name name, routing::NodeId node, PhaseController& controller, std::uint64_t seed,
                sc_core::sc_time period);
  /// Phase k starts at `cycle` (the controller's call).
  void start(std::size_t phase, std::uint64_t cycle);
  /// Packets this node received, per source node (tests).
  const std::vector<std::uint64_t>& received_from() const { return m_from; }

 private:
  void step();
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  std::uint64_t now() const;

  routing::NodeId m_node;
  PhaseController& m_ctl;
  std::mt19937_64 m_rng;
  sc_core::sc_time m_period;
  sc_core::sc_event m_wake;
  std::size_t m_phase = 0;
  std::int64_t m_left = 0;       ///< packets still to send in this phase
  std::int64_t m_index = 0;      ///< packets sent in this phase
  std::uint64_t m_next = 0;      ///< cycle of the next send
  std::uint64_t m_interval = 1;  ///< cycles between sends
  bool m_failed = false;
  std::vector<std::uint64_t> m_from;
  tlm::tlm_generic_payload m_gp;
  hw::MessageTagExtension m_tag;
};

/// The phases and their barrier. Phase k ends at the first cycle at which
/// every node has queued all its packets of the phase and each of them has
/// been delivered or dropped (all packets in flight belong to the running
/// phase, so the drops counted since it began are its losses); phase k + 1
/// starts barrier_cycles after that. Checked every cycle while a phase
/// drains. Units: cycles.
class PhaseController : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(PhaseController);
  PhaseController(sc_core::sc_module_name name, const routing::Topology& topo, const TrafficSpec& spec,
                  const hw::NetworkStats& stats, sc_core::sc_time period);
  void add(PhaseEndpoint& e) { m_endpoints.push_back(&e); }

  struct Phase {
    std::uint64_t start = 0, sends_done = 0, end = 0;
    std::uint64_t sent = 0, delivered = 0, lost = 0;
    bool done = false;
  };
  const std::vector<Phase>& phases() const { return m_phases; }
  const TrafficSpec& spec() const { return m_spec; }
  /// True when every phase has ended.
  bool finished() const { return m_current >= m_spec.phases.size(); }
  /// Cycle the last phase ended (the workload's execution time), 0 before.
  std::uint64_t execution_cycles() const { return finished() && !m_phases.empty() ? m_phases.back().end : 0; }
  /// Live components for the patterns (Network::set_traffic_components).
  void set_components(const std::vector<int>& comp);

  // For the endpoints.
  const PhaseSpec& phase_spec(std::size_t k) const { return m_spec.phases[k]; }
  routing::NodeId destination(std::size_t k, routing::NodeId src, std::int64_t index, std::mt19937_64& rng) const;
  void sent(std::size_t k) { ++m_phases[k].sent; }
  void node_done(std::size_t k);
  void delivered(std::size_t k);
  int flit_bytes() const { return m_spec.flit_bytes; }

 private:
  void step();
  std::uint64_t now() const;

  const routing::Topology& m_topo;
  TrafficSpec m_spec;
  const hw::NetworkStats& m_stats;
  sc_core::sc_time m_period;
  std::vector<std::unique_ptr<TrafficPattern>> m_patterns;  ///< per phase (null: all_to_all)
  std::vector<int> m_comp;
  std::vector<PhaseEndpoint*> m_endpoints;
  std::vector<Phase> m_phases;
  std::size_t m_current = 0;
  std::size_t m_nodes_done = 0;
  std::uint64_t m_dropped_at_start = 0;
  std::uint64_t m_next_start = 0;
  bool m_draining = false;
  sc_core::sc_event m_wake;
};

}  // namespace ftsim::tb
