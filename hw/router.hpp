// Input-queued virtual-channel router: RC -> VA -> SA -> ST -> LT.
#pragma once
#include <systemc>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "hw/channels.hpp"
#include "hw/network_context.hpp"
#include "tables/forwarding_table.hpp"

namespace ftsim::hw {

class NetworkInterface;

/// One input queue: a FIFO of flits and the state of the packet at its head.
/// With input queues (`router.queues: input`) there is one per input VC and
/// it holds up to B flits; with virtual output queues each input VC has B of
/// them sharing the VC's B flits, one per resident packet.
struct InputVc {
  enum class State : std::uint8_t { kIdle, kVcAlloc, kActive };
  DelayLine<Flit> fifo;  ///< entries carry the arrival cycle
  State state = State::kIdle;
  std::uint64_t ready = 0;  ///< cycle from which the next stage may act
  routing::RouteSet route;  ///< candidates from RC
  int out_port = -1;
  int out_vc = -1;
  std::uint32_t packet = 0;
  std::uint32_t occupancy = 0;    ///< traced: flits in the FIFO
  std::uint32_t route_epoch = 0;  ///< table epoch `route` was computed under
  std::uint32_t arrival = 0;      ///< VOQ: arrival order of the head packet at this port
};

/// Upstream view of one downstream VC.
struct OutputVc {
  int credits = 0;
  bool allocated = false;  ///< held by a packet until its tail is sent
  /// Flits sent on this VC during the measurement window (channel load).
  std::uint64_t window_flits = 0;
};

/// The router. The stages are modelled inside one clocked SC_METHOD that
/// evaluates them in reverse pipeline order from registered state (see
/// docs/architecture.md for why they are not separate processes). A router
/// with nothing buffered and nothing arriving sleeps on an event until a
/// neighbour or its network interface writes to it, so idle routers cost
/// nothing.
///
/// Allocators are separable and input-first with round-robin arbiters. VC
/// allocation: each waiting input queue picks one output VC among its
/// candidates (lowest priority value first, then most credits, ties by round
/// robin), then each output VC grants one requester round robin. Switch
/// allocation: each crossbar input picks one ready queue round robin, each
/// output port grants as many crossbar inputs as it has crossbar outputs (1;
/// the node's port: `ejection_ports`) round robin. Crossbar inputs: one per
/// input port (`crossbar: multiplexed`; the node's port: `injection_ports`)
/// or one per input VC (`crossbar: per_vc`). Flow control is credit based;
/// wormhole allocates a downstream VC only when it is empty (atomic
/// allocation) or, with `vc_realloc: non_atomic`, once the previous packet's
/// tail has left; VCT needs room for the whole packet, or for two packets
/// when the move enters a bubble ring. `queues: voq` splits each input VC into
/// per-packet queues (virtual output queues, see QueueOrganisation).
/// `RouterParams::injection` regulates how the node's own packets compete for
/// output VCs (fair, transit priority, or a bubble on adaptive injection).
class Router : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk;

  SC_HAS_PROCESS(Router);
  /// id: topology router id; radix: ports. Throws ConfigError via the
  /// network when params are out of range.
  Router(sc_core::sc_module_name name, routing::RouterId id, int radix, NetworkContext& ctx);

  /// Connects port p: `in` carries flits into this router, `out` carries flits
  /// out of it. ejection: the port leads to a network interface (infinite sink).
  void bind_port(int p, LinkDirection* in, LinkDirection* out, bool ejection);
  void attach_interface(NetworkInterface* ni) { m_nis.push_back(ni); }

  /// Wakes a sleeping router (called by writers of its channels).
  void wake() {
    if (m_sleeping) {
      m_sleeping = false;
      m_wake_event.notify(sc_core::SC_ZERO_TIME);
    }
  }

  /// Fault handling. fail(): every flit in this router's buffers belongs to a
  /// dropped packet (switch_failure) and the router stops.
  void fail();
  bool failed() const { return m_failed; }
  /// Immunet tables this router routes with (owned by the control plane).
  void set_immunet_view(const routing::ImmunetView* v) { m_immunet = v; }
  /// Table Update Module drain (Immunet section 4.2): when the safe VC (VC 0)
  /// of input port p has fewer than `need_free` free flits and holds a whole
  /// packet at its head that is not being forwarded, removes that packet
  /// (returning its credits) and gives its id. Returns false otherwise.
  bool drain_safe_head(int p, int need_free, std::uint32_t* packet);
  /// Immunet Table Update Module (section 4.2: "the BFC safe ring will be
  /// shared between packets belonging to the applications ... and some control
  /// packets"): queues a control packet of `flits` flits (>= 1) on output port
  /// p at cycle `now`. From the next cycle its flits compete for the link in
  /// the output's switch-allocation round robin as one more requester beside
  /// the input ports, one flit per won cycle, and wait while the receiver
  /// drives STOP. They need no credits: the receiver's Table Update Module
  /// buffers take them (section 5). When the last flit has left at cycle s,
  /// (token, s) is appended to sent_control(); a failed link or router loses
  /// the packet and reports (token, kControlLost).
  void queue_control(int p, int flits, std::uint32_t token, std::uint64_t now);
  static constexpr std::uint64_t kControlLost = ~0ULL;
  /// Control packets whose last flit left (or that were lost) since the
  /// caller last cleared the list: (token, cycle).
  std::vector<std::pair<std::uint32_t, std::uint64_t>>& sent_control() { return m_control_sent; }
  /// Brings a failed router back (empty buffers, fresh credits, all ports
  /// down until the network marks them alive after detection).
  void repair();
  /// Marks an output port usable or not for routing (after fault detection).
  void set_port_alive(int p, bool alive);
  /// Resynchronises credits of output port p after a link repair: credits =
  /// B - downstream occupancy.
  void resync_credits(int p, const std::vector<int>& downstream_occupancy);

  /// Read-only inspection for the deadlock watchdog, tests and traces.
  routing::RouterId id() const { return m_id; }
  int radix() const { return static_cast<int>(m_in.size()); }
  /// Input queues per port: VCs x queues per VC (1, or B with VOQ). Queue q
  /// belongs to input VC q / queues_per_vc().
  int queues_per_port() const { return m_nq; }
  int queues_per_vc() const { return m_lanes; }
  /// Input queue q (0..queues_per_port()-1) of port p.
  const InputVc& input_queue(int p, int q) const { return m_in[p].vcs[q]; }
  /// "vc1", or "vc1.q2" with virtual output queues (wave and report names).
  std::string queue_name(int q) const;
  const OutputVc& output_vc(int p, int v) const { return m_out[p].vcs[v]; }
  /// Flits buffered in input VC v of port p (all its queues).
  int input_occupancy(int p, int v) const {
    int n = 0;
    for (int l = 0; l < m_lanes; ++l) n += static_cast<int>(m_in[p].vcs[v * m_lanes + l].fifo.size());
    return n;
  }
  int buffered_flits() const { return m_buffered; }
  tables::ForwardingTable& forwarding_table() { return m_table; }
  std::uint64_t port_alive_mask() const { return m_port_alive; }

  /// Registers this router's waves under its hierarchical name: VC occupancy,
  /// allocator grants and the last flit switched per output port.
  void trace(sc_core::sc_trace_file* tf) const;

 private:
  struct InputPort {
    LinkDirection* link = nullptr;
    std::vector<InputVc> vcs;  // queues_per_port() entries, VC-major
    std::vector<int> rx_lane;  // VOQ: per input VC, the queue receiving its current packet
    std::uint32_t arrivals = 0;
    int crossbar_inputs = 1;  // flits the port may send per cycle
    int rr_sa = 0;            // input-side SA arbiter (queue index)
  };
  struct OutputPort {
    LinkDirection* link = nullptr;
    std::vector<OutputVc> vcs;
    bool ejection = false;
    bool connected = false;
    int rr_sa = 0;           // output-side SA arbiter: crossbar-input key port * queues_per_port() + queue
    int capacity = 1;        // crossbar outputs (flits per cycle)
    int grant = -1;          // traced: input port granted this cycle
    TracedFlit last_flit;    // traced (written only in trace mode)
    std::vector<int> rr_va;  // per output VC arbiter
    struct Control {
      std::uint32_t token;
      int flits_left;
      std::uint64_t queued;
      bool head;
    };
    std::deque<Control> control;  // Table Update Module packets waiting for the link
  };

  void tick();
  std::uint64_t now() const;
  void receive(std::uint64_t now);
  void switch_allocation(std::uint64_t now);
  void vc_allocation(std::uint64_t now);
  /// VOQ: output ports asked for by packets of queue q's input VC that
  /// arrived before it and still wait for VC allocation (bit per port).
  std::uint64_t older_waiting_ports(int p, int q) const;
  void route_computation(std::uint64_t now);
  /// Fills iv.route for the head packet of input VC (p, v); false: no route.
  bool compute_route(int p, int v, std::uint32_t packet);
  /// from_node: the request comes from the node's input port (injection).
  bool output_vc_free(const OutputPort& op, int v, const routing::RouteCandidate& c, int len, bool from_node) const;
  void send_credit(int in_port, int vc, std::uint64_t now);
  void discard_front(int p, int v, std::uint64_t now);
  bool has_work() const;
  /// Outputs whose head control packet may take the link this cycle.
  std::uint64_t control_ready(std::uint64_t now);
  void lose_control(OutputPort& op);

  routing::RouterId m_id;
  NetworkContext& m_ctx;
  std::vector<InputPort> m_in;
  std::vector<OutputPort> m_out;
  std::vector<NetworkInterface*> m_nis;
  tables::ForwardingTable m_table;
  const routing::ImmunetView* m_immunet = nullptr;
  std::uint64_t m_port_alive = ~0ULL;
  routing::RerouteState m_reroute;  ///< ADLR re-route vector (fat trees)
  std::uint32_t m_alive_epoch = 0;  ///< bumped when port_alive changes
  /// Epoch of the routing inputs: Immunet's table epoch plus port changes.
  std::uint32_t route_epoch() const { return (m_immunet != nullptr ? m_immunet->epoch : 0) + m_alive_epoch; }
  std::uint64_t m_last_tick = ~0ULL;
  int m_buffered = 0;
  int m_waiting_va = 0;                 // input VCs in kVcAlloc
  std::uint64_t m_control_outputs = 0;  // bit o: output o has control packets queued
  std::vector<std::pair<std::uint32_t, std::uint64_t>> m_control_sent;
  std::uint64_t m_seen_drop_epoch = 0;
  bool m_sleeping = false;
  bool m_failed = false;
  sc_core::sc_event m_wake_event;
  int m_lanes = 1;                   ///< queues per input VC
  int m_nq = 1;                      ///< queues per input port
  std::uint32_t m_ejection_vcs = 1;  ///< output VCs of the node's port: one per ejection port
  // Scratch for the allocators (no allocation per cycle).
  struct SaRequest {
    int in_port, queue, out_port;
  };
  std::vector<SaRequest> m_sa_requests;
  struct VaRequest {
    int in_port, in_vc, out_port, out_vc;
    bool counts_move;
  };
  std::vector<VaRequest> m_va_requests;
};

}  // namespace ftsim::hw
