// Input-queued virtual-channel router: RC -> VA -> SA -> ST -> LT.
#pragma once
#include <systemc>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "hw/channels.hpp"
#include "hw/mechanism.hpp"
#include "hw/network_context.hpp"
#include "hw/router_units.hpp"
#include "tables/forwarding_table.hpp"

namespace ftsim::hw {

class NetworkInterface;

/// The router's datapath state: its ports' input and output units, the
/// route unit, the parameters, the per-port sets of queues in each state and
/// the operations on them, including the VC allocator's request formation
/// and grant application. A private base of Router (members keep the
/// router's m_ names). The VC allocator and the crossbar
/// (hw/router_units.hpp) never see it: they take small input structs and
/// return output structs (VcAllocInputs / VcGrant, CrossbarInput /
/// CrossbarOutput) and keep their own state.
struct RouterDatapath {
  RouterDatapath(routing::RouterId id, NetworkContext& ctx) : m_id(id), m_ctx(ctx), m_route("route_unit") {}

  routing::RouterId m_id;
  NetworkContext& m_ctx;
  std::vector<std::unique_ptr<InputUnit>> m_in;  ///< per port (child modules `input_<port>`)
  RouteUnit m_route;                             ///< child module `route_unit`
  std::vector<std::unique_ptr<OutputUnit>> m_out;
  std::uint64_t m_last_tick = ~0ULL;    ///< the cycle the router last ticked
  std::uint64_t m_control_outputs = 0;  ///< bit o: output o has control packets queued
  // Input ports with a queue in each QueueBits set: kActive (switch
  // allocation), kVcAlloc (VC allocation), idle with flits (route
  // computation). Kept by set_state, receive and route_computation.
  std::uint64_t m_active_ports = 0;
  std::uint64_t m_va_ports = 0;
  std::uint64_t m_route_ports = 0;
  int m_lanes = 1;            ///< queues per input VC
  bool m_per_output = false;  ///< router.voq: per_output
  routing::RouteSet m_lookahead_route;
  int m_nq = 1;                      ///< queues per input port
  std::uint32_t m_ejection_vcs = 1;  ///< output VCs of the node's port: one per ejection port

  // VC allocation's parked heads (one queue per VC, radix x queues <= 64):
  // a head whose evaluation found no output VC it may take leaves the
  // waiting set until a VC it watches could take it (not allocated, with
  // its wake_credits) or the route epoch changes; so fruitless evaluations
  // are not repeated, and the heads evaluated are exactly those whose
  // evaluation could succeed. Nothing on the per-flit path changes: the
  // check runs where VC allocation starts (wake_parked_heads).
  bool m_parking = false;
  std::uint64_t m_parked = 0;         ///< keys (port x queues + queue) of the parked heads
  std::uint64_t m_watched_ports = 0;  ///< bit o: output o has watchers
  std::uint32_t m_parked_epoch = 0;   ///< the route epoch they were parked under
  /// Parks the head of queue v of port p, whose evaluation found no output
  /// VC (len flits; from_node: from the node's port).
  [[gnu::noinline]] void park_head(int p, int v, int len, bool from_node);
  /// Before VC allocation: returns to the waiting set the parked heads of
  /// each watched output with a watched VC now not allocated and at its
  /// wake_credits, and all of them under a new route epoch. Inlined into
  /// VC request formation (a call of its own cost 13 M instructions of the
  /// bench's 2.6 G at load 0.2).
  inline void wake_parked_heads();
  /// Returns the parked heads watching VC v of output o to the waiting set.
  void wake_watchers(int o, int v);
  /// Forgets every parked head without waking it (their queues were emptied).
  void clear_parked();
  /// A head left VC allocation other than by a grant (purged, drained).
  void forget_parked(int p, int q) {
    if (m_parking) m_parked &= ~(1ULL << (p * m_nq + q));
  }
  /// The credits a VC of op that no packet holds must have to take a head of
  /// len flits through candidate cand (0: any): the node's port any; wormhole
  /// the whole buffer (atomic: an empty VC, since a VC never holds more than
  /// the buffer's credits) or any (non-atomic); VCT the packet, or two of
  /// the longest packets where it enters a bubble ring (Immunet section 2)
  /// or (from_node) injects under an adaptive_bubble router.injection. VC requests and
  /// parking read it once per candidate.
  int credits_needed(const OutputUnit& op, const routing::RouteCandidate& cand, int len, bool from_node) const;

  /// Moves queue q of port p to state s, keeping the port's QueueBits.
  void set_state(int p, int q, InputVc::State s) {
    InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
    InputVc& iv = ip.queues[static_cast<std::size_t>(q)];
    const std::uint64_t bit = 1ULL << p;
    iv.state = s;
    if (s == InputVc::State::kVcAlloc) {
      ip.waiting_va.set(q);
      m_va_ports |= bit;
    } else {
      ip.waiting_va.reset(q);
      if (!ip.waiting_va.any()) m_va_ports &= ~bit;
    }
    if (s == InputVc::State::kActive) {
      ip.active.set(q);
      m_active_ports |= bit;
    } else {
      ip.active.reset(q);
      if (!ip.active.any()) m_active_ports &= ~bit;
    }
    if (s == InputVc::State::kIdle && !iv.fifo.empty()) {
      ip.route_pending.set(q);
      m_route_ports |= bit;
    }
  }
  // set_state for the three moves of a packet's hop, leaving alone the
  // QueueBits the state it leaves has clear: an idle queue is in neither
  // the waiting nor the active set, an active one not in the waiting set
  // (set_state keeps them so; parking takes only heads in kVcAlloc out of
  // the waiting set, and wakes only parked heads).
  // kOneWord: the port's queue sets are one word (one queue per VC).
  /// set_state(p, q, kVcAlloc) for an idle queue (its head routed).
  template <bool kOneWord>
  void idle_to_vc_alloc(int p, int q) {
    InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
    ip.queues[static_cast<std::size_t>(q)].state = InputVc::State::kVcAlloc;
    ip.waiting_va.set<kOneWord>(q);
    m_va_ports |= 1ULL << p;
  }
  /// set_state(p, q, kActive) for a queue in kVcAlloc (its head granted a VC).
  template <bool kOneWord>
  void vc_alloc_to_active(int p, int q) {
    InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
    const std::uint64_t bit = 1ULL << p;
    ip.queues[static_cast<std::size_t>(q)].state = InputVc::State::kActive;
    ip.waiting_va.reset<kOneWord>(q);
    if (!ip.waiting_va.any<kOneWord>()) m_va_ports &= ~bit;
    ip.active.set<kOneWord>(q);
    m_active_ports |= bit;
  }
  /// set_state(p, q, kIdle) for an active queue (its tail sent or its packet dropped).
  template <bool kOneWord>
  void active_to_idle(int p, int q) {
    InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
    InputVc& iv = ip.queues[static_cast<std::size_t>(q)];
    const std::uint64_t bit = 1ULL << p;
    iv.state = InputVc::State::kIdle;
    ip.active.reset<kOneWord>(q);
    if (!ip.active.any<kOneWord>()) m_active_ports &= ~bit;
    if (!iv.fifo.empty()) {
      ip.route_pending.set<kOneWord>(q);
      m_route_ports |= bit;
    }
  }
  /// Fills the route of queue q of port p for its head packet; false: no route.
  bool compute_route(int p, int q, std::uint32_t packet);
  /// compute_route, inlined into route computation (its one hot caller);
  /// kPlain: the router is plain (Router::m_plain).
  template <bool kPlain>
  bool compute_route_inline(int p, int q, std::uint32_t packet);
  /// router.voq: per_output: the downstream output queue of output op's VC
  /// ov with room for `packet` (len flits), by look-ahead at the downstream
  /// router, in candidate priority order, rotating with the cycle; -1: none.
  int lookahead_lane(const OutputUnit& op, int out_port, int ov, std::uint32_t packet, int len, std::uint64_t c);
  /// One flit of output o's head control packet leaves at cycle c (out of
  /// line: control packets are rare and the crossbar's loop stays small).
  [[gnu::noinline, gnu::cold]] void send_control_flit(int o, std::uint64_t c);

  // VC allocation, the router's side: the waiting heads' requests in, the
  // allocator's grants applied.
  /// Forms this cycle's VC requests into m_vc_requests (cleared first): for
  /// each input queue in kVcAlloc whose VA stage may start at cycle c, the
  /// output VC its route and the selection function pick (wavefront: every
  /// output VC at its best priority). Re-runs route computation for a head
  /// whose routing inputs changed; drops a head left without a route.
  void form_vc_requests(std::uint64_t c);
  /// Gives output VC g.out_vc of port g.out_port to the head of queue
  /// g.queue of port g.in_port (its VA stage ends at c + lat_va).
  template <bool kOneWord>
  void apply_vc_grant(const VcGrant& g, std::uint64_t c);
  /// The VC allocator's inputs for this cycle's requests.
  VcAllocInputs vc_alloc_inputs() const;
  std::vector<VcRequest> m_vc_requests;
  std::vector<VcGrant> m_vc_grants;
  std::uint64_t m_node_ports = 0;  ///< bit p: input port p is fed by a network interface
  int m_vcs_max = 1;               ///< the most output VCs of any port (kept by bind_port)

 private:
  /// VOQ: for each waiting queue of input port p, into m_older_ports, the
  /// output ports (bit per port) asked for by the packets of its VC that
  /// arrived before it and still wait for VC allocation; one pass over the
  /// VC's arrival list (prefix union), trimming heads that left VC allocation.
  void older_ports_of_input(int p);
  /// Output port o's VCs that are not allocated (0 when o is unconnected or
  /// dead), bit per VC.
  std::uint32_t unallocated_vcs(int o) const;
  /// form_vc_requests() with the queues per VC (m_lanes) known to be 1
  /// (kQueuesPerVc false) or not, so that the common case compiles without
  /// the virtual output queues' branches.
  template <bool kQueuesPerVc>
  void form_vc_requests_of(std::uint64_t c);
  /// Forms queue v of port p's request (if any).
  template <bool kQueuesPerVc>
  void request_vc(int p, int v, std::uint64_t c, bool& older_ready, std::uint64_t free_ports);
  /// Wavefront: every output VC that can take queue v of port p's head at
  /// relation priority `best_prio`.
  void request_every_vc(int p, int v, int best_prio, int len, bool from_node);
  std::vector<std::uint32_t> m_free_vcs;     ///< per output port: VCs not allocated
  std::vector<std::uint64_t> m_older_ports;  ///< per queue of the current input port
};

/// The router: a tick once a cycle (called by the network's RouterClock, or
/// by the router's own clocked SC_METHOD when NetworkContext::router_clock
/// is null) that evaluates its units (child modules, hw/router_units.hpp) in
/// reverse pipeline order from registered state: receive -> switch
/// allocation + crossbar traversal -> VC allocation -> route computation
/// (see docs/architecture.md for why the units have no processes of their
/// own). Children: `input_<port>` and `output_<port>` per port (each with
/// `vc<i>`), `route_unit`, `vc_allocator`, `switch_allocator`, `crossbar`.
/// A router with nothing buffered and nothing arriving sleeps until a
/// neighbour or its network interface writes to it, so idle routers cost
/// nothing; under a RouterClock a flit on its way wakes it on the cycle the
/// flit becomes readable, and returned credits wake no one (sleep_if_idle;
/// docs/architecture.md, deviation 3).
///
/// Flow control is credit based; wormhole allocates a downstream VC only
/// when it is empty (atomic allocation) or, with `vc_realloc: non_atomic`,
/// once the previous packet's tail has left; VCT needs room for the whole
/// packet, or for two packets when the move enters a bubble ring.
/// `queues: voq` splits each input VC into per-packet queues (virtual output
/// queues, see QueueOrganisation). `RouterParams::injection` regulates how the
/// node's own packets compete for output VCs (fair, transit priority, or a
/// bubble on adaptive injection).
class Router : public sc_core::sc_module, private RouterDatapath {
 public:
  sc_core::sc_in<bool> clk;

  SC_HAS_PROCESS(Router);
  /// id: topology router id; radix: ports. Throws ConfigError via the
  /// network when params are out of range. mechanism: builds the
  /// mechanism's per-router hardware as a child of this router (empty: none);
  /// see hw/mechanism.hpp for the hooks the router calls.
  Router(sc_core::sc_module_name name, routing::RouterId id, int radix, NetworkContext& ctx,
         const RouterMechanismFactory& mechanism = {});
  ~Router() override;

  /// Connects port p: `in` carries flits into this router, `out` carries flits
  /// out of it. ejection: the port leads to a network interface (infinite sink).
  void bind_port(int p, LinkDirection* in, LinkDirection* out, bool ejection);
  /// Ticks `ni` with this router (at most 64 interfaces).
  void attach_interface(NetworkInterface* ni);

  /// Wakes a sleeping router (called by writers of its channels).
  void wake();
  /// Wakes a sleeping router at cycle `cycle` (> the current one), when a
  /// flit written now becomes readable: under a RouterClock the router
  /// sleeps through the cycles in between (nothing to read), with its own
  /// process it wakes at once (wake()).
  void wake_at(std::uint64_t cycle);

  /// Fault handling. fail(): every flit in this router's buffers belongs to a
  /// dropped packet (switch_failure) and the router stops.
  void fail();
  bool failed() const { return m_failed; }
  /// The mechanism's per-router hardware (a child module), or nullptr.
  RouterMechanism* mechanism() const { return m_mechanism.get(); }
  /// Safe-VC drain for a mechanism's table-update hardware (the paper is
  /// cited where it is used, in the mechanism's folder): when the safe VC
  /// (VC 0) of input port p has fewer than `need_free` free flits and holds a whole
  /// packet at its head that is not being forwarded, removes that packet
  /// (returning its credits) and gives its id. Returns false otherwise.
  bool drain_safe_head(int p, int need_free, std::uint32_t* packet);
  /// A mechanism's control packets on the links (a mechanism that rebuilds
  /// tables in band shares the safe ring between application packets and
  /// its control packets; the paper is cited in the mechanism's folder):
  /// queues a control packet of
  /// `flits` flits (>= 1) on output port p at cycle `now`. From the next
  /// cycle its flits compete for the link in the output's switch-allocation
  /// round robin as one more requester beside the input ports, one flit per
  /// won cycle, and wait while the receiver drives STOP. They need no
  /// credits: the receiver's mechanism buffers take them.
  /// `data` is shown on the data lines. When the last flit has left at cycle
  /// s, on_sent(s) is called (from the router's clocked method); a failed
  /// link or router loses the packet and calls on_sent(kControlLost).
  ///
  /// With `packet` (a PacketStore id marked PacketInfo::control, `flits`
  /// long) the control packet is a packet in the safe VC (VC 0) instead:
  /// it also needs that output VC free and the credits of an entering
  /// packet (room for two packets when `bubble`, the safe ring's bubble
  /// rule, else for itself), takes one credit per flit, and its flits enter
  /// the receiver's VC 0 queue behind the packets there; when it is whole at
  /// the head of that queue the receiver's mechanism consumes it
  /// (RouterMechanism::on_control_packet). A loss then drops the packet
  /// (NetworkContext::control_lost) instead of calling on_sent.
  using ControlSent = std::function<void(std::uint64_t cycle)>;
  static constexpr std::uint32_t kNoControlPacket = ~0U;
  void queue_control(int p, int flits, std::uint32_t data, std::uint64_t now, ControlSent on_sent,
                     std::uint32_t packet = kNoControlPacket, bool bubble = false);
  static constexpr std::uint64_t kControlLost = ~0ULL;
  /// Brings a failed router back (empty buffers, fresh credits, all ports
  /// down until the network marks them alive after detection).
  void repair();
  /// Marks an output port usable or not for routing (after fault detection).
  void set_port_alive(int p, bool alive);
  /// Resynchronises credits of output port p after a link repair: credits =
  /// B - downstream occupancy.
  /// With router.voq: per_output, `downstream_lanes[v][o]` is the
  /// downstream VC v's occupancy of its output-o queue (lane_occupancy).
  void resync_credits(int p, const std::vector<int>& downstream_occupancy,
                      const std::vector<std::vector<int>>& downstream_lanes = {});
  /// router.voq: per_output: flits of input port p's VC v held for each
  /// output port o, [v][o] (the receiver side of resync_credits).
  std::vector<std::vector<int>> lane_occupancy(int p) const;
  /// router.voq: per_output look-ahead: the candidates the route unit gives
  /// now to a head arriving on input port p, VC v with header h (into out).
  void lookahead(int p, int v, const routing::PacketHeader& h, std::uint64_t cycle, routing::RouteSet& out);

  /// Read-only inspection for the deadlock watchdog, tests and traces.
  routing::RouterId id() const { return m_id; }
  int radix() const { return static_cast<int>(m_in.size()); }
  /// The units (child modules), port p in 0..radix()-1.
  const InputUnit& input_unit(int p) const { return *m_in[static_cast<std::size_t>(p)]; }
  const OutputUnit& output_unit(int p) const { return *m_out[static_cast<std::size_t>(p)]; }
  const RouteUnit& route_unit() const { return m_route; }
  const SwitchAllocator& switch_allocator() const { return m_sa; }
  /// VC allocation's parked heads (bit port x queues_per_port() + queue):
  /// heads in kVcAlloc whose evaluation found no output VC, left out of the
  /// allocation until one they watch could take them (RouterDatapath::park_head).
  std::uint64_t parked_heads() const { return m_parked; }
  /// Input queues per port: VCs x queues per VC (1, or B with VOQ). Queue q
  /// belongs to input VC q / queues_per_vc().
  int queues_per_port() const { return m_nq; }
  int queues_per_vc() const { return m_lanes; }
  /// Input queue q (0..queues_per_port()-1) of port p.
  const InputVc& input_queue(int p, int q) const { return m_in[p]->queues[q]; }
  /// "vc1", or "vc1.q2" with virtual output queues (wave and report names).
  std::string queue_name(int q) const;
  const OutputVc& output_vc(int p, int v) const { return m_out[p]->vcs[v]; }
  /// router.voq: per_output: output port p's VC v's credits per downstream
  /// output queue (flits), indexed by the downstream router's output port.
  const std::vector<int>& output_lane_credits(int p, int v) const { return m_out[p]->lane_credits[v]; }
  /// Credits of output port p's VC v now (flits of room downstream): those
  /// read (OutputVc::credits) and those readable on the link that a
  /// sleeping router has not read yet.
  int credits(int p, int v) const;
  /// Flits buffered in input VC v of port p (all its queues).
  int input_occupancy(int p, int v) const { return m_in[p]->occupancy(v); }
  int buffered_flits() const { return m_buffered; }
  /// Cycles this router has been ticked (awake) since elaboration.
  std::uint64_t ticks() const { return m_ticks; }
  tables::ForwardingTable& forwarding_table() { return m_route.table; }
  const tables::ForwardingTable& forwarding_table() const { return m_route.table; }
  std::uint64_t port_alive_mask() const { return m_route.port_alive; }

  /// Registers this router's waves under its hierarchical name: VC occupancy,
  /// allocator grants and the last flit switched per output port.
  void trace(sc_core::sc_trace_file* tf) const;

 private:
  /// The router's own clocked process (no RouterClock): tick(now()).
  void own_tick() { tick(now()); }
  /// The cycle's work at cycle c (c == now()): tick_of<true> while the
  /// router is plain (m_plain) and no VCD is open, else tick_of<false>.
  void tick(std::uint64_t c);
  /// tick()'s work; kPlain leaves out the tests that a plain router's tick
  /// would always pass the same way (the same cycle behaviour, fewer
  /// instructions: issue 54).
  template <bool kPlain>
  void tick_of(std::uint64_t c);
  std::uint64_t now() const;
  template <bool kPlain>
  void receive(std::uint64_t now);
  template <bool kPlain>
  void route_computation(std::uint64_t now);
  void discard_front(int p, int q, std::uint64_t now);
  /// Route computation of queue q of port p if it is idle with flits.
  template <bool kPlain>
  void route_queue(int p, int q, std::uint64_t now);
  /// Called at the end of cycle c's tick when nothing is buffered, queued
  /// or to be injected (and no VCD is open): sleeps until wake() when no
  /// link holds a flit for it, else (under a RouterClock) until the cycle
  /// its first flit is readable. Credits alone never keep a router awake:
  /// one with nothing buffered reads them when it next wakes, before
  /// anything can use them.
  void sleep_if_idle(std::uint64_t c);
  /// Outputs whose head control packet may take the link this cycle.
  std::uint64_t control_ready(std::uint64_t now);
  void lose_control(OutputUnit& op);

  // Child modules (constructed in this order, so the hierarchy reads as the
  // pipeline): the input units and route unit (RouterDatapath), then these,
  // then the output units (RouterDatapath, created in the constructor body).
  VcAllocator m_va;
  SwitchAllocator m_sa;
  Crossbar m_xbar;
  std::unique_ptr<RouterMechanism> m_mechanism;
  const bool* m_hold_transit = nullptr;  // the mechanism's switch hook
  bool m_vc_allocated_hook = false;      // the mechanism's VC-allocated hook is wanted
  /// Plain router (set at construction): no mechanism (so no switch hook,
  /// VC-allocated hook or control packets of its own), one queue per input
  /// VC (no VOQ lanes, no look-ahead credits) and the switch allocator's
  /// plain path (SwitchAllocator::plain_path). Most mesh and torus runs
  /// without a mechanism, the bench among them. queue_control clears it
  /// (a control packet takes the general tick for the rest of the run).
  bool m_plain = false;
  std::vector<NetworkInterface*> m_nis;
  int m_buffered = 0;
  int m_waiting_va = 0;  // input queues in kVcAlloc
  std::uint64_t m_seen_drop_epoch = 0;
  /// Stops ticking until wake(): nothing buffered and nothing arriving.
  void sleep();
  friend class RouterClock;    // ticks the routers it clocks
  RouterClock* const m_clock;  ///< nullptr: this router's own SC_METHOD ticks it
  bool m_sleeping = false;
  bool m_failed = false;
  std::uint64_t m_ticks = 0;
  std::uint64_t m_wake_at = ~0ULL;  ///< asleep: the cycle a RouterClock wakes it (~0: only wake())
  /// Own process only (null under a RouterClock): ends a sleep. A named
  /// kernel event costs about 0.3 KB per router (issue 54, memory).
  std::unique_ptr<sc_core::sc_event> m_wake_event;
  // Ports with something to read (LinkDirection's port sets): flits on an
  // input link, credits on an output link, flits on the link to a network
  // interface (which this router ticks).
  std::uint64_t m_rx_ports = 0;
  std::uint64_t m_credit_ports = 0;
  std::uint64_t m_eject_ports = 0;
  // The network interfaces' work: bit i of m_ni_pending while interface i
  // (attach order) has a packet to send (NetworkInterface::announce_to).
  // With it clear and nothing on the ejection links, the tick skips the
  // interfaces (credits back to an interface wait until it injects again).
  std::uint64_t m_ni_pending = 0;
  InputVc m_lookahead;  ///< scratch of lookahead()
};

/// Clocks every router of a network with one SC_METHOD instead of one per
/// router (docs/architecture.md, "Deviations", 1): on each rising edge it
/// ticks the routers that are awake, in the order they were added; a router
/// woken later in that time step (by a network interface, a fault, or a
/// router ticked after it) is ticked in a delta cycle of the same step, as
/// its own process would have been. Channels written at cycle t are read
/// from t + 1, so the order of ticks inside a cycle does not change a
/// result. Saves the kernel's per-router activation (measured:
/// docs/performance.md).
class RouterClock : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk;

  SC_HAS_PROCESS(RouterClock);
  explicit RouterClock(sc_core::sc_module_name name);
  /// Called by Router's constructor when NetworkContext::router_clock is this.
  void add(Router* r) {
    m_routers.push_back(r);
    m_ctx = &r->m_ctx;
  }
  /// A sleeping router r was woken: tick it this time step.
  void woken(Router* r) {
    m_pending.push_back(r);
    if (!m_stepping) m_wake.notify(sc_core::SC_ZERO_TIME);
  }
  /// Sleeping router r is to wake at cycle r->m_wake_at (after the current
  /// one, less than kWheelSlots cycles ahead).
  void wake_later(Router* r) { m_wheel[r->m_wake_at & (kWheelSlots - 1)].push_back(r); }
  /// How far ahead wake_later() reaches, in cycles (a power of two).
  static constexpr std::uint64_t kWheelSlots = 16;
  /// The cycle of the last rising edge stepped.
  std::uint64_t cycle() const { return m_cycle; }

 private:
  void step();
  // Timing wheel: slot c mod kWheelSlots holds the routers to wake at cycle
  // c (an entry whose router woke or was rescheduled since is skipped).
  std::vector<Router*> m_wheel[kWheelSlots];
  std::uint64_t m_cycle = 0;
  const NetworkContext* m_ctx = nullptr;
  std::vector<Router*> m_routers;
  std::vector<Router*> m_pending;  ///< woken since the last step
  std::vector<Router*> m_batch;
  sc_core::sc_event m_wake;
  bool m_stepping = false;
};

inline void Router::wake() {
  if (m_sleeping) {
    m_sleeping = false;
    m_wake_at = ~0ULL;
    if (m_clock != nullptr)
      m_clock->woken(this);
    else
      m_wake_event->notify(sc_core::SC_ZERO_TIME);
  }
}

inline void Router::wake_at(std::uint64_t cycle) {
  if (!m_sleeping || cycle >= m_wake_at) return;
  if (m_clock == nullptr || cycle <= m_clock->cycle() || cycle - m_clock->cycle() >= RouterClock::kWheelSlots) {
    wake();
    return;
  }
  m_wake_at = cycle;
  m_clock->wake_later(this);
}

// Per flit: inline.
inline void InputUnit::return_credit(int v, int lane, std::uint64_t now, int latency) {
  if (link == nullptr || link->failed) return;
  // The sender is not woken: while it has nothing buffered, no one waits
  // for the credit (Router::sleep_if_idle).
  link->push_credit(now + static_cast<std::uint64_t>(latency), credit_code(v, lane));
}

}  // namespace ftsim::hw
