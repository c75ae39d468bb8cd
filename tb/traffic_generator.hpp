// Bernoulli traffic source (a TLM-2.0 initiator) and a message sink.
#pragma once
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "tb/traffic_pattern.hpp"

namespace ftsim::tb {

/// Derives a per-component seed from the master seed and a component id
/// (splitmix64), so that every node's stream is independent and reproducible.
std::uint64_t derive_seed(std::uint64_t master, std::uint64_t component);

/// Sends a message of `bytes` to node `dst` through a network interface's
/// target socket (b_transport, address = destination) and returns the
/// response status: TLM_OK_RESPONSE, TLM_ADDRESS_ERROR_RESPONSE (no such
/// node) or TLM_GENERIC_ERROR_RESPONSE (the node has failed).
template <typename Socket>
tlm::tlm_response_status send_message(Socket& socket, tlm::tlm_generic_payload& gp, routing::NodeId dst,
                                      unsigned bytes) {
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(static_cast<sc_dt::uint64>(dst));
  gp.set_data_ptr(nullptr);
  gp.set_data_length(bytes);
  gp.set_streaming_width(bytes);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(gp, delay);
  return gp.get_response_status();
}

class InjectionCalendar;

/// Bernoulli injection: each cycle a new packet is created with probability
/// load / mean packet length, so the offered load is `load` flits/node/cycle.
/// The gap to the next packet is drawn from the equivalent geometric
/// distribution, so the generator wakes once per packet, not once per cycle.
/// Messages go out through `socket` with b_transport (address = destination).
/// Its draws come from its own random stream, so the packets it creates
/// (cycle, destination, length) do not depend on who wakes it: its own
/// process (calendar null) or an InjectionCalendar shared by a network's
/// generators (one kernel event per cycle with packets instead of one per
/// packet; issue 54).
class TrafficGenerator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TrafficGenerator> socket;
  SC_HAS_PROCESS(TrafficGenerator);
  TrafficGenerator(sc_core::sc_module_name name, routing::NodeId node, const TrafficPattern& pattern,
                   const TrafficSpec& spec, std::uint64_t seed, sc_core::sc_time period,
                   InjectionCalendar* calendar = nullptr);
  void stop() { m_stopped = true; }
  std::uint64_t sent() const { return m_sent; }
  /// Cycles from time 0 to the first packet (>= 1); 0 once stopped.
  std::uint64_t first_gap();
  /// Creates this cycle's packet and returns the cycles to the next one
  /// (>= 1), or 0 once stopped (stop() or a failed node).
  std::uint64_t fire_packet();

 private:
  void fire();
  std::uint64_t next_gap();
  routing::NodeId m_node;
  const TrafficPattern& m_pattern;
  // The fields of traffic.* a generator reads (a whole TrafficSpec per node
  // was about 0.3 KB of each generator's 3.5 KB; issue 54, memory).
  int m_packet_flits;
  int m_packet_flits_long;
  int m_flit_bytes;
  double m_long_fraction;
  std::mt19937_64 m_rng;
  sc_core::sc_time m_period;
  double m_prob;  ///< packets per cycle (Bernoulli), load / mean packet flits
  /// ln(1 - m_prob), the geometric gap's denominator: computed once, not by a
  /// log1p call per packet (issue 54). Unused when m_prob >= 1.
  double m_log_no_packet;
  bool m_stopped = false;
  bool m_started = false;
  std::uint64_t m_sent = 0;
  tlm::tlm_generic_payload m_gp;
};

/// Wakes a network's traffic generators from one process: a binary heap of
/// (due cycle, generator index), so a cycle's packets cost one kernel event
/// in all, in generator order, instead of one timed event per packet in the
/// kernel's queue. Runs at the same time steps as the generators' own
/// processes would (before the routers' clock edge in each cycle).
/// Min-priority queue of (due cycle, generator) pairs, for InjectionCalendar:
/// each pair packed into one 64-bit key, cycle << generator_bits | generator,
/// so that the order is one integer comparison and, generators being unique,
/// a strict total order (the pop order does not depend on the heap's shape).
/// A binary heap with replace_top, the calendar's common step (a generator
/// fires and is due again), one sift-down instead of a pop and a push.
/// Cycles are clamped to max_cycle() (2^(64 - generator_bits) - 1, beyond any
/// run: 2^44 for a million generators).
class DueQueue {
 public:
  /// generators: how many there are (ids 0..generators-1), >= 1.
  explicit DueQueue(std::uint32_t generators = 1);
  bool empty() const { return m_heap.empty(); }
  std::size_t size() const { return m_heap.size(); }
  std::uint64_t top_cycle() const { return m_heap.front() >> m_bits; }
  std::uint32_t top_generator() const { return static_cast<std::uint32_t>(m_heap.front() & m_mask); }
  std::uint64_t max_cycle() const { return ~0ULL >> m_bits; }
  void push(std::uint64_t cycle, std::uint32_t generator);
  /// The top's generator is due again at `cycle` (the top moves down).
  void replace_top(std::uint64_t cycle);
  void pop();

 private:
  std::uint64_t key(std::uint64_t cycle, std::uint32_t generator) const {
    return std::min(cycle, max_cycle()) << m_bits | generator;
  }
  void sift_down(std::uint64_t k);
  int m_bits;
  std::uint64_t m_mask;
  std::vector<std::uint64_t> m_heap;
};

class InjectionCalendar : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(InjectionCalendar);
  /// `period`: the clock period (one cycle).
  InjectionCalendar(sc_core::sc_module_name name, sc_core::sc_time period);
  /// Registers a generator before the simulation starts (index = order).
  void add(TrafficGenerator* g) { m_generators.push_back(g); }

 private:
  void step();
  void schedule(std::uint64_t now);
  std::vector<TrafficGenerator*> m_generators;
  DueQueue m_due;
  sc_core::sc_time m_period;
  bool m_started = false;
};

/// Counts delivered messages for one node (kept by MessageSinks).
class MessageSink {
 public:
  std::uint64_t received() const { return m_received; }
  std::uint64_t bytes() const { return m_bytes; }
  /// When true, every delivery's (source, hops, latency) is kept (tests).
  bool record = false;
  struct Record {
    int src;
    int hops;
    std::uint64_t latency;
  };
  std::vector<Record> records;
  /// Counts one delivered message (its DeliveryExtension, when present,
  /// gives the record).
  void take(const tlm::tlm_generic_payload& gp);

 private:
  std::uint64_t m_received = 0;
  std::uint64_t m_bytes = 0;
};

/// The TLM-2.0 target of every node's deliveries: one multi-passthrough
/// target socket that each interface's `deliver` binds. A delivery goes to
/// the sink of its address (the receiving node, as the interface sets it);
/// an address outside 0..sinks-1 gets TLM_ADDRESS_ERROR_RESPONSE. One
/// module and one socket for the network instead of one of each per node
/// (issue 54, memory: about 1.5 KB per node of module, socket and names).
class MessageSinks : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<MessageSinks> socket;
  /// `sinks`: one per node, outliving this module.
  MessageSinks(sc_core::sc_module_name name, std::vector<MessageSink>& sinks);

 private:
  void b_transport(int binding, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  std::vector<MessageSink>& m_sinks;
};

}  // namespace ftsim::tb
