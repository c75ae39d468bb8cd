// Everything the routers and interfaces of one network share: parameters, the
// routing relation, the packet records and the statistics sink. One instance
// per network, passed by reference; no globals.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "hw/packet_store.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::hw {

/// How packets from the local node compete with packets in transit for the
/// router's output VCs (config key `router.injection`).
enum class InjectionPolicy : std::uint8_t {
  /// The node's input port takes part in VC allocation like any other input
  /// (round robin over every input VC).
  kFair,
  /// VC allocation: a request from the node's input port loses to every
  /// in-transit request for the same output VC in the same cycle.
  kTransitPriority,
  /// A packet from the node takes an output VC only when that VC has room
  /// for two packets (the bubble condition of Immunet section 2, which BFC
  /// applies to injection into a safe ring, applied to the adaptive network
  /// too). VCT only; with wormhole allocation needs an empty VC anyway.
  kAdaptiveBubble,
  /// Both rules at once.
  kTransitPriorityAdaptiveBubble,
};
inline bool transit_priority(InjectionPolicy p) {
  return p == InjectionPolicy::kTransitPriority || p == InjectionPolicy::kTransitPriorityAdaptiveBubble;
}
inline bool adaptive_bubble(InjectionPolicy p) {
  return p == InjectionPolicy::kAdaptiveBubble || p == InjectionPolicy::kTransitPriorityAdaptiveBubble;
}

/// How each input VC's buffer is organised (config key `router.queues`).
enum class QueueOrganisation : std::uint8_t {
  /// One FIFO per input VC: the packet at its head blocks every packet behind
  /// it (head-of-line blocking).
  kInput,
  /// Virtual output queues per input VC: the VC's B flits are one shared
  /// pool in which each resident packet is its own queue entry with its own
  /// route, VC and switch state. A packet may leave before older packets of
  /// the same input VC unless an older packet still waiting for VC allocation
  /// asks for the same output port (packets to one output keep their order).
  /// Fat-tree DLR section IX: "a virtual output queue for a VC".
  kVoq,
};

/// How the virtual output queues of an input VC share its buffer (config
/// key `router.voq`, with `router.queues: voq`). Fat-tree DLR section IX.A:
/// "The size of a virtual output queue for a VC is 512 bytes, which is
/// sufficient to allow buffering of up to two 256 byte packets".
enum class VoqReading : std::uint8_t {
  /// The VC's B flits are one pool over all its outputs (one output may hold
  /// all of them).
  kShared,
  /// One queue of `router.voq_flits` flits per output port and VC, each with
  /// its own credits: the sender chooses, by look-ahead routing at the
  /// receiver, the receiver's output (the "next-hop queue", Appendix A) whose
  /// queue has room for the packet, and sends only then. The VC's B flits
  /// still bound the total.
  kPerOutput,
};

/// Crossbar inputs (config key `router.crossbar`).
enum class CrossbarKind : std::uint8_t {
  /// One crossbar input per input port: at most one flit leaves an input
  /// port per cycle (the node's port: `injection_ports`).
  kMultiplexed,
  /// One crossbar input per input VC (intermediate nodes section 5.3.1:
  /// "non-multiplexed crossbar"): VCs of one port may leave in the same cycle
  /// towards different outputs.
  kPerVc,
};

/// When an output VC may be given to the next packet under wormhole flow
/// control (config key `router.vc_realloc`). VCT always needs room for the
/// whole packet and is not affected.
enum class VcRealloc : std::uint8_t {
  /// Only when the downstream VC is empty (all its credits back).
  kAtomic,
  /// As soon as the previous packet's tail has left this router; the next
  /// packet queues behind it downstream (BookSim2's default).
  kNonAtomic,
};

/// Switch allocator kind (config key `router.switch_allocator`); see
/// hw::SwitchAllocator for the rules.
enum class SwitchAllocatorKind : std::uint8_t {
  /// Separable, input first, round-robin arbiters at both stages.
  kSeparableInputFirst,
  /// iSLIP (McKeown 1999): request all, grant and accept round robin,
  /// pointers updated on first-iteration matches only.
  kIslip,
};

/// VC allocator kind (config key `router.vc_allocator`); see hw::VcAllocator.
enum class VcAllocatorKind : std::uint8_t {
  /// Separable, input first: each waiting head asks for one output VC (the
  /// selection function's choice), each output VC grants one of its
  /// requesters round robin. Two heads that pick the same VC lose a cycle
  /// even when another VC of that port is free.
  kSeparableInputFirst,
  /// Wavefront (Tamir and Chi, IEEE TPDS 4(1), 1993): each head asks for
  /// every output VC that can take it at its best relation priority; a
  /// wavefront over the head x output-VC matrix, its priority diagonal
  /// rotating by one each cycle, grants a maximal matching. The selection
  /// function does not apply (the position in the matrix decides).
  kWavefront,
};

/// Selection function (config key `router.selection`): which of the routing
/// relation's candidate outputs a packet asks the VC allocator for, among
/// those whose output VC can take it, lowest `priority` first. The fat-tree
/// paper (section VII, Definition 2) leaves it open ("may depend on ...
/// queue length").
enum class SelectionKind : std::uint8_t {
  /// The output VC with the most credits; ties go to the relation's first
  /// candidate.
  kMaxCredits,
  /// The most credits; ties go round robin: the scan starts at candidate
  /// (input queue index + cycle) mod candidates.
  kMaxCreditsRoundRobin,
  /// The first output VC that can take the packet, credits ignored, in the
  /// same rotating order: no input follows the others to the output that
  /// looked emptiest in the same cycle.
  kRoundRobin,
};

/// Router micro-architecture parameters. Latencies are in cycles, each >= 1.
struct RouterParams {
  int vcs = 2;           ///< VCs per input port, 1..16
  int buffer_flits = 8;  ///< depth B of each VC FIFO, in flits
  bool vct = false;      ///< virtual cut-through (true) or wormhole (false)
  int lat_rc = 1;        ///< route computation
  int lat_va = 1;        ///< VC allocation
  int lat_sa = 1;        ///< switch allocation
  int lat_st = 1;        ///< switch (crossbar) traversal
  int lat_link = 1;      ///< link traversal
  int lat_credit = 1;    ///< credit return
  InjectionPolicy injection = InjectionPolicy::kFair;
  QueueOrganisation queues = QueueOrganisation::kInput;
  VoqReading voq = VoqReading::kShared;  ///< with queues == kVoq
  int voq_flits = 4;                     ///< per_output: flits per output queue of a VC, 1..buffer_flits
  CrossbarKind crossbar = CrossbarKind::kMultiplexed;
  VcRealloc vc_realloc = VcRealloc::kAtomic;
  SwitchAllocatorKind switch_allocator = SwitchAllocatorKind::kSeparableInputFirst;
  VcAllocatorKind vc_allocator = VcAllocatorKind::kSeparableInputFirst;
  int islip_iterations = 1;  ///< iSLIP request-grant-accept rounds per cycle, 1..8
  SelectionKind selection = SelectionKind::kMaxCredits;
  /// Flits per cycle the node can inject (packets in progress at once, each
  /// on its own VC) and crossbar inputs of the node's port; 1..16.
  int injection_ports = 1;
  /// Flits per cycle the router can eject to its node (crossbar outputs of
  /// the node's port); 1..16. Packets ejecting at once are also bounded by
  /// the VCs, one packet per VC.
  int ejection_ports = 1;
  /// Cycles per hop at zero load: RC + VA + SA + ST + LT.
  int hop_latency() const { return lat_rc + lat_va + lat_sa + lat_st + lat_link; }
};

/// Counters every run reports. Flit and packet counts are totals over the run;
/// the window_* fields cover the measurement window only.
struct NetworkStats {
  std::uint64_t created = 0;    ///< packets entered source queues
  std::uint64_t injected = 0;   ///< packets whose head left the NI
  std::uint64_t delivered = 0;  ///< packets whose tail reached the destination NI
  std::uint64_t dropped[static_cast<int>(DropReason::kCount)] = {};
  /// Of dropped[kLinkFailure], by cause (LinkLoss): the packet was on the
  /// link when it failed; its head was routed into the dead link (the output
  /// VC granted before detection); its head had crossed and the rest was cut
  /// off in the buffers at the link's ends.
  std::uint64_t link_loss[3] = {};
  /// Flits the network interfaces wrote into routers (the routers' hops:
  /// crossbar_flits()).
  std::uint64_t flits_injected = 0;
  std::uint64_t last_move_cycle = 0;  ///< last cycle a flit moved anywhere (watchdog)
  // Events for the energy model (issue 52), whole run: a flit read from an
  // input buffer through the crossbar (and granted by the switch
  // allocator), of those the flits ejected to a node, and the heads among
  // them (one route computation and one VC allocation each).
  // Per router (index: router id; sized by the network): flits read out of
  // its input buffers through the crossbar, of those ejected to its nodes,
  // the heads among them, and the flits written into its input buffers
  // (from its nodes and from its links). Totals: crossbar_flits() etc.
  // The routers count these per output unit (OutputUnit::flits_sent,
  // heads_sent: two increments per flit instead of four indexed ones,
  // issue 54); tb::Network::gather_energy_events() fills the four vectors
  // from them, so they are valid after that call (the experiment runner
  // makes it before it reads them).
  std::vector<std::uint64_t> router_crossbar, router_ejected, router_heads, router_arrivals;
  /// Per router: flits written into its input buffers by its network
  /// interfaces (counted as they are written; router_arrivals adds the
  /// flits from its links when gathered).
  std::vector<std::uint64_t> node_arrivals;
  static std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    std::uint64_t t = 0;
    for (auto x : v) t += x;
    return t;
  }
  std::uint64_t crossbar_flits() const { return sum(router_crossbar); }
  std::uint64_t ejected_flits() const { return sum(router_ejected); }
  std::uint64_t crossbar_heads() const { return sum(router_heads); }
  // Measurement window.
  std::uint64_t window_start = 0;
  std::uint64_t window_end = 0;
  std::uint64_t window_flits_created = 0;
  std::uint64_t window_flits_delivered = 0;
  /// The same without header overhead flits (the subheader per intermediate
  /// node, PacketInfo::overhead): what the traffic asked to move.
  std::uint64_t window_payload_created = 0;
  std::uint64_t window_payload_delivered = 0;
  std::uint64_t measured_outstanding = 0;        ///< measured packets not yet delivered/dropped
  std::vector<std::uint32_t> latencies;          ///< of measured packets, creation to tail delivery
  std::vector<std::uint32_t> network_latencies;  ///< injection to tail delivery
  std::uint64_t hops_sum = 0;
  std::uint64_t hops_count = 0;
  // Per-interval time series (reset by the monitor).
  std::uint64_t ts_flits_created = 0;
  std::uint64_t ts_flits_delivered = 0;
  std::uint64_t ts_packets_delivered = 0;
  std::uint64_t ts_latency_sum = 0;
  std::uint64_t ts_hops_sum = 0;  ///< router-to-router hops of the packets delivered
  std::uint64_t ts_dropped = 0;
  std::uint64_t dropped_total() const {
    std::uint64_t s = 0;
    for (auto d : dropped) s += d;
    return s;
  }
  bool in_window(std::uint64_t c) const { return c >= window_start && c < window_end; }
};

class RouterClock;

struct NetworkContext {
  RouterParams params;
  /// Clocks the network's routers with one process (RouterClock); nullptr:
  /// each router has its own clocked SC_METHOD (a router on its own, as in
  /// the unit tests). Set before the routers are built.
  RouterClock* router_clock = nullptr;
  const routing::RoutingRelation* relation = nullptr;
  const routing::Topology* topology = nullptr;
  PacketStore packets;
  NetworkStats stats;
  std::uint64_t period_ticks = 1;  ///< sc_time value of one clock period
  bool trace_mode = false;         ///< every router ticks every cycle (VCD)
  int max_packet_flits = 1;
  /// Incremented by every drop, so routers re-check their packets' dropped
  /// flags only after a drop happened (keeps the fault-free hot path lean).
  std::uint64_t drop_epoch = 0;

  /// Marks a packet dropped once, with a reason.
  /// Causes of a link-failure loss (NetworkStats::link_loss).
  enum class LinkLoss { kOnLink = 0, kRoutedBeforeDetection = 1, kCutInBuffers = 2 };
  /// drop(id, kLinkFailure), counting the cause when the packet was live.
  void drop_on_failed_link(std::uint32_t id, LinkLoss cause) {
    if (packets[id].dropped) return;
    if (!packets[id].control) ++stats.link_loss[static_cast<int>(cause)];
    drop(id, DropReason::kLinkFailure);
  }
  /// A control packet (PacketInfo::control) was dropped: the mechanism that
  /// sent it counts it (it is not traffic). Set at elaboration.
  std::function<void(std::uint32_t packet)> control_lost;
  void drop(std::uint32_t id, DropReason reason) {
    PacketInfo& p = packets[id];
    if (p.dropped) return;
    p.dropped = true;
    ++drop_epoch;
    if (p.control) {
      if (control_lost) control_lost(id);
      return;
    }
    ++stats.dropped[static_cast<int>(reason)];
    ++stats.ts_dropped;
    if (p.measured) --stats.measured_outstanding;
  }
};

}  // namespace ftsim::hw
