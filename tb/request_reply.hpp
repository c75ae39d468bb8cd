// Closed-loop request/reply traffic (issue 53): each node is a requester
// with a bounded number of outstanding requests (MSHRs) and a home node that
// answers every request it receives with a reply.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "hw/immediate_target_socket.hpp"
#include "hw/network_interface.hpp"
#include "tb/experiment_config.hpp"
#include "tb/traffic_generator.hpp"
#include "tb/traffic_pattern.hpp"

namespace ftsim::tb {

/// One node's closed-loop endpoint, bound to its network interface in place
/// of a TrafficGenerator and a MessageSink: `socket` to the interface's
/// `target`, the interface's `deliver` to `deliveries`.
///
/// Requester: at cycle 0 it queues min(mshrs, requests_per_node) requests
/// (traffic.request_flits each) to home nodes drawn from the traffic
/// pattern; each reply frees its slot, and the next request is queued
/// `think_cycles` later while work remains (requests_per_node, 0: no end).
/// A node whose pattern gives no destination (a hotspot pattern's own
/// hotspot, a dead node) issues nothing. Home node: a request delivered at
/// cycle d is answered with a reply (traffic.reply_flits) queued at
/// d + service_cycles. Messages are matched by the MessageTagExtension:
/// tag = 2 x (request's issue cycle) + (1 for a reply), echoed by the reply,
/// so the round trip is the reply's delivery cycle minus the issue cycle.
/// A request or reply lost to a fault keeps its slot for ever (counted as
/// outstanding at the end). Units: cycles, flits.
class RequestReplyEndpoint : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<RequestReplyEndpoint> socket;
  hw::ImmediateTargetSocket<RequestReplyEndpoint> deliveries;
  SC_HAS_PROCESS(RequestReplyEndpoint);
  /// stats: the network's counters (its measurement window decides which
  /// round trips are recorded: requests issued inside it).
  RequestReplyEndpoint(sc_core::sc_module_name name, routing::NodeId node, const TrafficPattern& pattern,
                       const TrafficSpec& spec, std::uint64_t seed, sc_core::sc_time period,
                       const hw::NetworkStats& stats);

  struct Counters {
    std::uint64_t issued = 0;            ///< requests queued at the interface
    std::uint64_t completed = 0;         ///< replies received
    std::uint64_t served = 0;            ///< requests received as home node
    std::uint64_t replies_sent = 0;      ///< replies queued at the interface
    std::uint64_t refused = 0;           ///< messages the interface refused (failed node)
    std::uint64_t window_completed = 0;  ///< replies to requests issued inside the measurement window
    std::uint64_t last_completion = 0;   ///< cycle of the last reply received
  };
  const Counters& counters() const { return m_c; }
  /// Round trips (cycles) of the requests issued inside the measurement window.
  const std::vector<std::uint32_t>& round_trips() const { return m_round_trips; }
  /// Requests issued and not answered yet.
  std::uint64_t outstanding() const { return m_c.issued - m_c.completed; }
  /// True when the node has no more requests to make and all were answered
  /// (always false with requests_per_node 0).
  bool finished() const;
  /// Replies the home node still has to queue (service time running).
  std::size_t replies_pending() const { return m_actions.size() - m_requests_waiting; }

 private:
  struct Action {
    std::uint64_t cycle;
    bool reply;
    routing::NodeId dst;  ///< reply: the requester
    std::uint64_t tag;    ///< reply: the request's tag | 1
    bool operator>(const Action& o) const { return cycle > o.cycle; }
  };
  void step();
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  std::uint64_t now() const;
  void schedule(const Action& a);
  bool send(routing::NodeId dst, int flits, std::uint64_t tag);
  bool more_work() const;

  routing::NodeId m_node;
  const TrafficPattern& m_pattern;
  TrafficSpec m_spec;
  std::mt19937_64 m_rng;
  sc_core::sc_time m_period;
  const hw::NetworkStats& m_stats;
  sc_core::sc_event m_wake;
  std::priority_queue<Action, std::vector<Action>, std::greater<Action>> m_actions;
  std::size_t m_requests_waiting = 0;  ///< requests in m_actions (think time running)
  std::uint64_t m_reserved = 0;        ///< requests issued or waiting in m_actions
  bool m_no_destination = false;
  bool m_stopped = false;
  Counters m_c;
  std::vector<std::uint32_t> m_round_trips;
  tlm::tlm_generic_payload m_gp;
  hw::MessageTagExtension m_tag;
};

}  // namespace ftsim::tb
