// The units of one router as SystemC child modules (Garnet-style boundaries):
// input unit and output unit per port, route unit, VC allocator, switch
// allocator and crossbar. They have no processes of their own: the router's
// one clocked method evaluates them in reverse pipeline order (see
// docs/architecture.md), so the hierarchy is real for debuggers, waves and
// sc_find_object (`net.router_3_2.input_east.vc1`) at no cost per cycle.
#pragma once
#include <systemc>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/channels.hpp"
#include "hw/mechanism.hpp"
#include "hw/network_context.hpp"
#include "tables/forwarding_table.hpp"

namespace ftsim::hw {

class Router;

/// The route candidates of one queue's head (what RouteUnit::compute
/// returned), stored with the capacity the relation has used so far rather
/// than RouteSet's fixed 32 (392 bytes per queue, most of an input queue's
/// memory: issue 54). Same fields as routing::RouteSet.
struct StoredRoute {
  std::vector<routing::RouteCandidate> items;  ///< the first `size` are the candidates (never shrinks)
  int size = 0;
  bool discarded = false;  ///< as RouteSet::discarded
  /// Copies `s`; returns its port set (bit per candidate's port), gathered
  /// in the same pass.
  std::uint64_t assign(const routing::RouteSet& s) {
    const auto n = static_cast<std::size_t>(s.size);
    if (items.size() < n) items.resize(n);
    routing::RouteCandidate* to = items.data();
    std::uint64_t ports = 0;
    for (std::size_t i = 0; i < n; ++i) {
      to[i] = s.items[i];
      ports |= 1ULL << s.items[i].port;
    }
    size = s.size;
    discarded = s.discarded;
    return ports;
  }
  const routing::RouteCandidate* begin() const { return items.data(); }
  const routing::RouteCandidate* end() const { return items.data() + size; }
};

/// One input queue: a FIFO of flits and the state of the packet at its head.
/// With input queues (`router.queues: input`) there is one per input VC and
/// it holds up to B flits; with virtual output queues each input VC has B of
/// them sharing the VC's B flits, one per resident packet.
///
/// Layout: the fields the switch allocator and the crossbar read for every
/// sending queue every cycle (the FIFO's head, `ready`, the output port, VC
/// and look-ahead queue, the state) come first, and the queue starts a cache
/// line, so that they are one line (static_assert below); the route and the
/// VOQ arrival order follow in the second.
struct alignas(64) InputVc {
  enum class State : std::uint8_t { kIdle, kVcAlloc, kActive };
  DelayLine<Flit> fifo;     ///< entries carry the arrival cycle
  std::uint64_t ready = 0;  ///< cycle from which the next stage may act
  int out_port = -1;
  int out_vc = -1;
  std::uint32_t packet = 0;
  State state = State::kIdle;
  int next_port = -1;             ///< router.voq: per_output: the downstream output queue the packet was granted
  std::uint64_t route_ports = 0;  ///< bit per port of `route`'s candidates
  StoredRoute route;              ///< candidates from RC
  std::uint32_t route_epoch = 0;  ///< table epoch `route` was computed under
  std::uint32_t arrival = 0;      ///< VOQ: arrival order of the head packet at this port
};
static_assert(offsetof(InputVc, next_port) + sizeof(int) <= 64,
              "InputVc: the per-flit fields fit its first cache line");

/// One bit per input queue of a port (VC-major, vcs x lanes): the queues in
/// one state, so that the per-cycle stages visit those queues only (with
/// VOQ a port has up to 16 x 4096 queues, most of them empty).
class QueueBits {
 public:
  QueueBits() = default;
  QueueBits(const QueueBits&) = delete;  // m_words may point into the object
  QueueBits& operator=(const QueueBits&) = delete;
  ~QueueBits() { release(); }
  /// Up to 64 queues the word is inside the object (the unit's own cache
  /// lines, no heap block to load first); more go to the heap.
  void resize(int queues) {
    release();
    m_size = static_cast<std::uint32_t>((queues + 63) / 64);
    m_word = 0;
    m_words = one_word() ? &m_word : new std::uint64_t[m_size]();
  }
  // kOneWord: the caller knows the set is one word (up to 64 queues: one
  // queue per VC), so the word is read in place, without the pointer.
  template <bool kOneWord = false>
  void set(int q) {
    if (kOneWord)
      m_word |= 1ULL << q;
    else
      m_words[static_cast<std::size_t>(q >> 6)] |= 1ULL << (q & 63);
  }
  template <bool kOneWord = false>
  void reset(int q) {
    if (kOneWord)
      m_word &= ~(1ULL << q);
    else
      m_words[static_cast<std::size_t>(q >> 6)] &= ~(1ULL << (q & 63));
  }
  bool test(int q) const { return (m_words[static_cast<std::size_t>(q >> 6)] >> (q & 63) & 1U) != 0; }
  template <bool kOneWord = false>
  bool any() const {
    if (kOneWord || one_word()) return m_word != 0;
    for (std::uint32_t i = 0; i < m_size; ++i)
      if (m_words[i] != 0) return true;
    return false;
  }
  void clear() { std::fill(m_words, m_words + m_size, 0); }
  /// The queue when exactly one is set and the set is one word (up to 64
  /// queues); -1 otherwise.
  template <bool kOneWord = false>
  int only() const {
    if (!kOneWord && !one_word()) return -1;
    const std::uint64_t w = m_word;
    return w != 0 && (w & (w - 1)) == 0 ? __builtin_ctzll(w) : -1;
  }
  /// Calls f(q) for the set bits q in [from, to), ascending, until f returns
  /// true; returns whether it did. f may reset the bit it is given.
  template <bool kOneWord = false, typename F>
  bool visit(int from, int to, F&& f) const {
    if (kOneWord || one_word()) {  // up to 64 queues: one word
      std::uint64_t bits = m_word & (to >= 64 ? ~0ULL : (1ULL << to) - 1) & (from >= 64 ? 0 : ~0ULL << from);
      for (; bits != 0; bits &= bits - 1)
        if (f(__builtin_ctzll(bits))) return true;
      return false;
    }
    for (int w = from >> 6; w << 6 < to; ++w) {
      std::uint64_t bits = m_words[static_cast<std::size_t>(w)];
      if (w == from >> 6) bits &= ~0ULL << (from & 63);
      for (; bits != 0; bits &= bits - 1) {
        const int q = (w << 6) + __builtin_ctzll(bits);
        if (q >= to) return false;
        if (f(q)) return true;
      }
    }
    return false;
  }
  /// Round robin: visit(from, to, f), then visit(0, from, f) unless f
  /// stopped it. One word (up to 64 queues): a single rotated scan.
  /// Always inlined, with no call inside, so the caller's closure stays in
  /// registers (a call would keep every variable it captures in memory:
  /// +3% instructions in the switch allocator, measured).
  template <bool kOneWord = false, typename F>
  __attribute__((always_inline)) bool visit_from(int from, int to, F&& f) const {
    if (kOneWord || one_word()) {
      const std::uint64_t w = m_word & (to >= 64 ? ~0ULL : (1ULL << to) - 1);
      const std::uint64_t high = from >= 64 ? 0 : w & (~0ULL << from);
      for (std::uint64_t bits = high; bits != 0; bits &= bits - 1)
        if (f(__builtin_ctzll(bits))) return true;
      for (std::uint64_t bits = w & ~high; bits != 0; bits &= bits - 1)
        if (f(__builtin_ctzll(bits))) return true;
      return false;
    }
    // [from, to), then [0, from).
    for (int pass = 0; pass < 2; ++pass) {
      const int lo = pass == 0 ? from : 0;
      const int hi = pass == 0 ? to : from;
      for (int w = lo >> 6; w << 6 < hi; ++w) {
        std::uint64_t bits = m_words[static_cast<std::size_t>(w)];
        if (w == lo >> 6) bits &= ~0ULL << (lo & 63);
        const int base = w << 6;
        if (hi - base < 64) bits &= (1ULL << (hi - base)) - 1;  // below hi
        for (; bits != 0; bits &= bits - 1)
          if (f(base + __builtin_ctzll(bits))) return true;
      }
    }
    return false;
  }

 private:
  bool one_word() const { return m_size <= 1; }
  void release() {
    if (m_words != &m_word) delete[] m_words;
    m_words = &m_word;
  }
  std::uint64_t* m_words = &m_word;  ///< m_size words: &m_word, or a heap block
  std::uint64_t m_word = 0;          ///< the only word, up to 64 queues
  std::uint32_t m_size = 1;          ///< words: 1 up to 64 queues
};

/// Upstream view of one downstream VC: 16 bytes, four to a cache line (the
/// switch allocator reads the credits of every sending queue's VC every
/// cycle); the look-ahead credits of virtual output queues are the output
/// unit's (OutputUnit::lane_credits).
struct OutputVc {
  /// Credits the router has read (flits of room downstream). A router with
  /// nothing buffered does not wake for a returned credit: it reads the
  /// credits waiting on its link when it next wakes, before anything can use
  /// them; Router::credits() counts those too.
  int credits = 0;
  /// VC allocation's parked heads (RouterDatapath::park_head): the least
  /// credits with which this VC, once not allocated, could take one of
  /// them (INT_MAX: none waits for it).
  int wake_credits = INT_MAX;
  bool allocated = false;  ///< held by a packet until its tail is sent
  /// Flits sent on this VC during the measurement window (channel load).
  std::uint64_t window_flits = 0;
  /// The parked heads (keys port x queues + queue) that could take this VC.
  std::uint64_t watchers = 0;
};

/// A named VC inside an input or output unit (`...input_east.vc1`), so that
/// a debugger or a test finds it with sc_find_object once elaboration has
/// ended. Its state lives in the unit's contiguous arrays (the hot path
/// never goes through this object). Nothing but the name, the kind and the
/// chain: 120 bytes, one 128-byte heap block each, 20 per router of a 2-VC
/// mesh (issue 54, memory). The units create them in
/// before_end_of_elaboration, after every router's hot state: created with
/// the units, they sat between the routers' per-cycle data, which then
/// spread over more pages and cache lines (the full 8x8x8 Figure 9 run 10%
/// slower in wall time, docs/performance.md, sixteenth stage).
class VcObject : public sc_core::sc_object {
 public:
  explicit VcObject(const char* name) : sc_object(name) {}
  ~VcObject() override = default;
  /// The unit's next VC (a chain, so that a unit keeps its VCs' names
  /// without a vector's heap block).
  std::unique_ptr<VcObject> next;
};
/// VcObject of one kind (`kind()`: Kind).
template <const char* Kind>
class VcObjectOf final : public VcObject {
 public:
  explicit VcObjectOf(const char* name) : VcObject(name) {}
  const char* kind() const override { return Kind; }
};
inline constexpr char kInputVcKind[] = "ftsim_input_vc";
inline constexpr char kOutputVcKind[] = "ftsim_output_vc";

/// Input unit of one port: the input VCs' queues (one FIFO per VC, or B
/// virtual output queues per VC), their pipeline state, and the credit
/// return to the upstream router. Child `vc<i>` per input VC.
class InputUnit : public sc_core::sc_module {
 public:
  /// vcs: input VCs (1..16); lanes: queues per VC (1, or B with VOQ).
  InputUnit(sc_core::sc_module_name name, int vcs, int lanes);
  const char* kind() const override { return "ftsim_input_unit"; }

  // The fields read every cycle or for every flit first, together (about
  // three cache lines), the rest after them.
  LinkDirection* link = nullptr;
  std::vector<InputVc> queues;  ///< vcs x lanes entries, VC-major
  int crossbar_inputs = 1;      ///< flits this port may send per cycle
  std::uint32_t arrivals = 0;   ///< VOQ: heads received (arrival order counter)
  /// Queues by state, kept by RouterDatapath::set_state, the hop's three
  /// transitions (idle_to_vc_alloc, ...) and Router::receive:
  /// waiting for VC allocation (kVcAlloc), sending (kActive), and maybe
  /// needing route computation (every idle queue with flits is set).
  QueueBits waiting_va, active, route_pending;
  std::array<int, 16> vc_flits{};  ///< per input VC (up to 16): flits buffered in its queues, 0..B
  std::vector<int> rx_lane;        ///< VOQ: per input VC, the queue receiving its current packet
  /// VOQ: per input VC, the heads received in arrival order (queue and
  /// arrival number), trimmed lazily by the VC allocator.
  struct Arrival {
    int queue;
    std::uint32_t arrival;
  };
  std::vector<std::vector<Arrival>> arrival_order;
  /// Whether `a` still holds a head that has not been allocated a VC.
  bool waiting_head(const Arrival& a) const {
    const InputVc& o = queues[static_cast<std::size_t>(a.queue)];
    return o.arrival == a.arrival && o.state != InputVc::State::kActive && !o.fifo.empty();
  }
  /// Records a head's arrival in VC v; trims the list when it outgrows the
  /// VC's queues (heads that never reach VC allocation, e.g. dropped at RC).
  void record_arrival(int v, int queue) {
    auto& order = arrival_order[static_cast<std::size_t>(v)];
    order.push_back(Arrival{queue, ++arrivals});
    queues[static_cast<std::size_t>(queue)].arrival = arrivals;
    if (order.size() > 2 * static_cast<std::size_t>(m_lanes))
      order.erase(std::remove_if(order.begin(), order.end(), [&](const Arrival& a) { return !waiting_head(a); }),
                  order.end());
  }

  /// Flits buffered in input VC v (all its queues), 0..B.
  int occupancy(int v) const { return vc_flits[static_cast<std::size_t>(v)]; }
  /// Returns one credit for input VC v (and its output queue `lane`, -1:
  /// the shared pool) upstream, visible after `latency` cycles (defined
  /// inline in hw/router.hpp).
  inline void return_credit(int v, int lane, std::uint64_t now, int latency);

 private:
  /// Names the VCs (child objects `vc<i>`).
  void before_end_of_elaboration() override;
  int m_lanes;
  std::unique_ptr<VcObject> m_vc_objects;  ///< vc0, chained through VcObject::next
};

/// Output unit of one port: the upstream view (credits, allocation) of each
/// downstream VC, the phit bundle it drives, and the Immunet Table Update
/// Module's control packets waiting for the link. Child `vc<i>` per output VC.
class OutputUnit : public sc_core::sc_module {
 public:
  OutputUnit(sc_core::sc_module_name name, int vcs, int credits);
  const char* kind() const override { return "ftsim_output_unit"; }
  /// Makes the unit the node's port: `ports` output VCs (one per ejection
  /// port) with unbounded credits; `ports` crossbar outputs.
  void make_ejection(int ports);

  LinkDirection* link = nullptr;
  std::vector<OutputVc> vcs;
  /// router.voq: per_output: per output VC, the credits of each of the
  /// downstream VC's output queues, indexed by the downstream router's
  /// output port (empty otherwise).
  std::vector<std::vector<int>> lane_credits;
  /// Bit v set while output VC v (v < 32) is not allocated; kept by
  /// set_allocated (the VC allocator reads it instead of scanning vcs).
  std::uint32_t unallocated = 0;
  void set_allocated(int v, bool a) {
    vcs[static_cast<std::size_t>(v)].allocated = a;
    if (v < 32) {
      if (a)
        unallocated &= ~(1U << v);
      else
        unallocated |= 1U << v;
    }
  }
  bool ejection = false;
  bool connected = false;
  int capacity = 1;  ///< crossbar outputs (flits per cycle)
  /// The VCs VC allocation's parked heads wait for (bit v: vcs[v] has
  /// watchers); RouterDatapath::park_head and wake_parked_heads.
  std::uint32_t watched_vcs = 0;
  /// Bit v for each of the unit's VCs (v < 32), kept by the constructor and
  /// make_ejection.
  std::uint32_t vc_bits = 0;
  /// Energy events (issue 52), whole run: flits that crossed the crossbar
  /// to this output onto a live link, and the heads among them;
  /// tb::Network::gather_energy_events() sums them per router.
  std::uint64_t flits_sent = 0;
  std::uint64_t heads_sent = 0;
  int grant = -1;        ///< traced: input port granted this cycle (radix: control packet)
  TracedFlit last_flit;  ///< traced (written only in trace mode)
  struct Control {
    std::uint32_t data;  ///< shown on the data lines (the wave view)
    int flits_left;
    std::uint64_t queued;
    bool head;
    std::function<void(std::uint64_t)> on_sent;  ///< called with the cycle the last flit left, or kControlLost
    /// A packet in the safe VC (PacketStore id; Router::kNoControlPacket: a
    /// link slot only, no buffer at the receiver).
    std::uint32_t packet;
    bool bubble;  ///< packet: the safe VC is a bubble ring here (room for two packets to enter)
  };
  /// Table Update Module packets waiting for the link, oldest first (a
  /// vector: a std::deque allocates 576 bytes per port even when empty,
  /// 2.5 MiB on a 32x32 mesh, and control packets queue only under Immunet).
  std::vector<Control> control;

  static constexpr int kInfiniteCredits = INT_MAX / 4;

 private:
  /// Names the VCs (child objects `vc<i>`, one per entry of vcs).
  void before_end_of_elaboration() override;
  std::unique_ptr<VcObject> m_vc_objects;  ///< vc0, chained through VcObject::next
};

/// What the route unit reads for one head: where it is and its header (the
/// relation may update stateful header fields, hence not const).
struct RouteUnitInput {
  routing::RouterId router;
  int in_port;
  int in_vc;
  bool injected_here;  ///< the head came from this router's network interface
  routing::PacketHeader& header;
  std::uint64_t cycle;
};

/// Route unit: computes the candidate (output port, VC mask) set of a head
/// flit from the routing relation and the router's routing state: the ports
/// known alive, the forwarding table (LFT) and whatever the mechanism's
/// per-router hardware adds to the view (Immunet's tables, the fat tree's
/// U-turn re-route vector; RouterMechanism::fill_view).
class RouteUnit : public sc_core::sc_module {
 public:
  explicit RouteUnit(sc_core::sc_module_name name) : sc_module(name) {}
  const char* kind() const override { return "ftsim_route_unit"; }

  /// Computes the route of `in`'s head into `out` (the queue's route
  /// registers: route, route_epoch, route_ports); returns false when the
  /// relation has no route (or discards the packet).
  /// kPlain: no mechanism (its view is not filled).
  template <bool kPlain>
  bool compute(const NetworkContext& ctx, const RouteUnitInput& in, InputVc& out);
  /// Epoch of the routing inputs: the mechanism's table epoch plus port
  /// changes. A packet waiting for VC allocation re-runs route computation
  /// when it moved.
  std::uint32_t epoch() const { return (table_epoch != nullptr ? *table_epoch : 0) + alive_epoch; }
  /// Marks output port p usable or not (after fault detection).
  void set_port_alive(int p, bool alive);

  tables::ForwardingTable table;               ///< LFT (behind the TLM management plane)
  RouterMechanism* mechanism = nullptr;        ///< the mechanism's hardware (route-computation hook)
  const std::uint32_t* table_epoch = nullptr;  ///< the mechanism's tables-changed counter
  std::uint64_t port_alive = ~0ULL;
  std::uint32_t alive_epoch = 0;

 private:
  routing::RouteSet m_scratch;  ///< the relation's answer before it is stored in the queue
};

/// One crossbar connection granted by the switch allocator for this cycle.
struct SwitchGrant {
  int in_port;  ///< -1: the Table Update Module's control packet
  int queue;    ///< input queue of in_port
  int out_port;
};

/// Everything the switch allocator reads in one cycle: the input queues
/// (state, output port and VC, flits, ready cycle), the output units
/// (credits, STOP, failed links, crossbar outputs) and two port sets.
struct SwitchAllocInputs {
  const std::vector<std::unique_ptr<InputUnit>>& in;
  const std::vector<std::unique_ptr<OutputUnit>>& out;
  std::uint64_t active_ports;  ///< bit p: input port p has a queue in kActive (the only ones that can be ready)
  std::uint64_t control;       ///< bit o: output o has a control packet ready
};

/// Switch allocator (`router.switch_allocator`). Requesters are crossbar
/// inputs (one per input port, the node's port `injection_ports`, or one per
/// input VC with the per-VC crossbar); resources are crossbar outputs (one
/// per output port, the node's port `ejection_ports`).
/// - separable_input_first: each crossbar input picks one ready queue round
///   robin, then each output grants round robin over port x queue keys.
/// - islip: iSLIP (McKeown, "The iSLIP scheduling algorithm for input-queued
///   switches", 1999): every input port requests every output one of its
///   ready queues wants; outputs grant round robin from a grant pointer,
///   inputs accept round robin from an accept pointer; pointers move one past
///   the match only when it is accepted in the first iteration;
///   `router.islip_iterations` rounds per cycle. The queue that serves an
///   accepted (input, output) match is the next ready one round robin.
/// An Immunet control packet is one more requester of its output (key after
/// every input queue in separable allocation; input `radix` in iSLIP).
class SwitchAllocator : public sc_core::sc_module {
 public:
  SwitchAllocator(sc_core::sc_module_name name, const RouterParams& params);
  const char* kind() const override { return "ftsim_switch_allocator"; }
  /// Sizes the arbiters for `radix` ports of `queues` queues each.
  void configure(int radix, int queues, int lanes);
  /// Allocates cycle c and hands each grant, in grant order, to
  /// `crossbar(const SwitchGrant&)` (the crossbar's select lines). Defined
  /// in hw/switch_allocator_impl.hpp, included where it is called, so the
  /// grant path inlines.
  template <typename CrossbarSink>
  void allocate(const SwitchAllocInputs& x, std::uint64_t c, CrossbarSink&& crossbar);
  /// allocate() for kPlain = false; with kPlain = true, the plain router's
  /// allocation (plain_path() holds and no control packet waits:
  /// x.control == 0): the same grants, without the tests of the other
  /// allocators, crossbars and the control packet.
  template <bool kPlain, typename CrossbarSink>
  void allocate_of(const SwitchAllocInputs& x, std::uint64_t c, CrossbarSink&& crossbar);
  /// Whether this allocator is separable input first over one-word key
  /// sets with the multiplexed crossbar, the one-queue path on and no
  /// sending sets: what allocate_of<true> computes (issue 54).
  bool plain_path() const {
    return m_params.switch_allocator == SwitchAllocatorKind::kSeparableInputFirst &&
           m_params.crossbar == CrossbarKind::kMultiplexed && m_key_sets && m_one_queue_path && !m_track_sending;
  }
  /// Separable input first: whether the output stage may use its one-word
  /// key sets (set by configure() when radix x queues < 64; false: the
  /// request lists, for any size). The two give the same grants; tests
  /// compare them.
  void use_key_sets(bool on) { m_key_sets = on && m_radix * m_nq < 64; }
  /// Separable input first: whether a cycle with one active queue and no
  /// control packet (one flow through the router, most cycles at low load)
  /// takes the short path: the grant and pointer moves the two stages would
  /// make, without running them (default on; tests compare both).
  void use_one_queue_path(bool on) { m_one_queue_path = on; }
  /// Separable input first with the per-VC crossbar, one queue per VC and
  /// every key (port x queues + queue) in one word: every queue is its own
  /// crossbar input, so the input stage passes every ready queue on and an
  /// output's requests are its ready sending queues. With `on` (and that
  /// router) the allocator keeps, per output port, the keys of the queues
  /// in kActive sending through it (start_sending / stop_sending, called by
  /// the router as queues get and release their output VC), and each output
  /// checks its own from its pointer on until its grants are made: the same
  /// grants in the same order as the two stages, with fewer readiness
  /// checks. Call after configure(); the sets start empty.
  void track_sending(bool on) {
    m_track_sending = on && m_params.switch_allocator == SwitchAllocatorKind::kSeparableInputFirst &&
                      m_params.crossbar == CrossbarKind::kPerVc && m_lanes == 1 && m_radix * m_nq < 64;
    clear_sending();
  }
  /// No queue sends (a failed switch's queues were emptied).
  void clear_sending() {
    std::fill(m_sending.begin(), m_sending.end(), 0);
    m_sending_outputs = 0;
  }
  bool tracks_sending() const { return m_track_sending; }
  /// Queue q of port p (now kActive) sends through output o.
  void start_sending(int p, int q, int o) {
    m_sending[static_cast<std::size_t>(o)] |= 1ULL << (p * m_nq + q);
    m_sending_outputs |= 1ULL << o;
  }
  /// Queue q of port p no longer sends through output o.
  void stop_sending(int p, int q, int o) {
    if ((m_sending[static_cast<std::size_t>(o)] &= ~(1ULL << (p * m_nq + q))) == 0) m_sending_outputs &= ~(1ULL << o);
  }
  /// The keys sending through output o (bit p x queues + q).
  std::uint64_t sending_keys(int o) const { return m_sending[static_cast<std::size_t>(o)]; }

 private:
  struct Request {
    int in_port, queue, out_port;
  };
  /// True when input queue `iv`, which is in kActive, may send a flit at
  /// cycle c (credits, STOP).
  bool ready(const InputVc& iv, const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t c) const;
  /// Separable allocation's input stage, shared by both output-stage forms:
  /// each crossbar input of every active port picks one ready queue, round
  /// robin from the port's pointer, and hands it to record(p, q, key, o, first) (key: p x queues + q)
  /// (first: o's first request this cycle). Returns the requested outputs
  /// (bit o).
  template <bool kPlain, typename Record>
  std::uint64_t separable_input_stage(const std::vector<std::unique_ptr<InputUnit>>& in,
                                      const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t active_ports,
                                      std::uint64_t c, Record&& record);
  template <typename CrossbarSink>
  void separable(const std::vector<std::unique_ptr<InputUnit>>& in, const std::vector<std::unique_ptr<OutputUnit>>& out,
                 std::uint64_t active_ports, std::uint64_t control, std::uint64_t c, CrossbarSink& crossbar);
  /// separable() when every key (port x queues + queue) and the control
  /// packet's key fit one 64-bit word: each output's requests are a bit set
  /// of keys, and its round-robin winner the first key at or after its
  /// pointer (find-first-set), the same grants as the request lists.
  template <bool kPlain, typename CrossbarSink>
  void separable_keys(const std::vector<std::unique_ptr<InputUnit>>& in,
                      const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t active_ports,
                      std::uint64_t control, std::uint64_t c, CrossbarSink& crossbar);
  /// separable_keys() from the sending sets (track_sending): each output
  /// visits its sending queues from its pointer on, checks readiness only
  /// until its grants are made, and grants as separable_keys() would.
  template <typename CrossbarSink>
  [[gnu::noinline]] void separable_sending(const std::vector<std::unique_ptr<InputUnit>>& in,
                                           const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t control,
                                           std::uint64_t c, CrossbarSink& crossbar);
  /// Separable allocation when port p's queue q is the only active queue
  /// and no control packet waits: q is granted its output when ready, and
  /// the input's and output's round-robin pointers move as the two stages
  /// would move them.
  template <bool kPlain, typename CrossbarSink>
  void one_queue(const std::vector<std::unique_ptr<InputUnit>>& in, const std::vector<std::unique_ptr<OutputUnit>>& out,
                 int p, int q, std::uint64_t c, CrossbarSink& crossbar);
  /// Fills m_grants.
  void islip(const std::vector<std::unique_ptr<InputUnit>>& in, const std::vector<std::unique_ptr<OutputUnit>>& out,
             std::uint64_t control, std::uint64_t c);

  const RouterParams& m_params;
  int m_radix = 0;
  int m_nq = 1;
  int m_lanes = 1;
  bool m_key_sets = false;               ///< separable: separable_keys() instead of the request lists
  bool m_one_queue_path = true;          ///< separable: one_queue() when one queue is active
  bool m_track_sending = false;          ///< separable: separable_sending() (track_sending)
  std::uint64_t m_sending_outputs = 0;   ///< bit o: m_sending[o] is not empty
  std::vector<std::uint64_t> m_sending;  ///< per output port: keys of the queues sending through it
  /// Key k's port and queue (k / nq, k % nq) for keys < 64, as tables
  /// (separable_sending reads them per queue visited; issue 54).
  std::array<std::uint8_t, 64> m_key_port{};
  std::array<std::uint8_t, 64> m_key_queue{};
  std::vector<int> m_in_rr;     ///< per input port: next queue (separable) / accept pointer (iSLIP)
  std::vector<int> m_out_rr;    ///< per output port: next key (separable) / grant pointer (iSLIP)
  std::vector<int> m_queue_rr;  ///< iSLIP: per input port, next queue to serve a match
  std::vector<Request> m_requests;
  /// Separable: per output port, the first of its requests in m_requests
  /// (-1: none), chained through m_next, so an output scans its own only.
  std::vector<int> m_first;
  std::vector<int> m_next;
  /// separable_keys: per output port, the keys requesting it this cycle.
  std::vector<std::uint64_t> m_out_keys;
  std::vector<SwitchGrant> m_grants;  ///< iSLIP: this cycle's matches
  // iSLIP scratch (no allocation per cycle once sized).
  std::vector<int> m_scratch;             ///< per (port, queue): requested output, -1 none or served
  std::vector<std::uint64_t> m_wants;     ///< per input: outputs requested
  std::vector<std::uint64_t> m_granted;   ///< per input: outputs that granted it this iteration
  std::vector<int> m_in_left;             ///< per input: crossbar inputs still free
  std::vector<int> m_out_left;            ///< per output: crossbar outputs still free
  std::vector<std::uint32_t> m_vcs_used;  ///< per input: VCs already matched (per-VC crossbar)
};

/// One request to the VC allocator: input queue `queue` of input port
/// `in_port` asks for output VC `out_vc` of output port `out_port`. Formed
/// by the router from the queue's route (RouterDatapath::form_vc_requests);
/// a granted request comes back unchanged as a VcGrant, and the router
/// applies it (RouterDatapath::apply_vc_grant).
struct VcRequest {
  int in_port, queue, out_port, out_vc;
  bool counts_move;  ///< the relation counts this hop in the header (misrouting hops)
  int next_port;     ///< router.voq: per_output: the downstream output queue, else -1
};
using VcGrant = VcRequest;

/// Everything the VC allocator reads in one cycle.
struct VcAllocInputs {
  /// In formation order (input port, then queue). Separable input-first: at
  /// most one per input queue; wavefront: every output VC a head can take.
  const std::vector<VcRequest>& requests;
  int radix;                 ///< input (= output) ports
  int queues;                ///< input queues per port (rows: radix x queues)
  int vcs_max;               ///< the most output VCs of any port (wavefront columns: radix x vcs_max)
  std::uint64_t node_ports;  ///< bit p: input port p is fed by a network interface
  bool transit_first;        ///< the node ports' requests rank after every in-transit request
};

/// VC allocator (`router.vc_allocator`): arbitration only. Input: the
/// cycle's requests (VcAllocInputs); output: the grants, in grant order
/// (each input queue and each output VC at most once); state: its own
/// round-robin pointers and priority diagonal.
/// - separable_input_first: each waiting input queue has picked one output
///   VC among its candidates (lowest priority value first, then the
///   selection function; the router forms that request); each output VC
///   grants one requester round robin over the (port x queues + queue)
///   index (after every in-transit request under transit priority).
/// - wavefront (Tamir and Chi 1993): each waiting head requests every output
///   VC that can take it at its lowest priority value; rows are heads
///   (port x queues + queue), columns output VCs (port x V + VC, V the most
///   VCs of any output), the matrix is N x N with N the larger of the two
///   counts. The wavefront visits the diagonals (row + column) mod N from
///   the priority diagonal on and grants a cell when its row and column are
///   still free; cells of one diagonal never share a row or a column, so
///   the result is a maximal matching. The priority diagonal advances by one
///   in each cycle with requests. Under transit priority the node port's
///   heads come after every in-transit head. Input queues only (config).
class VcAllocator : public sc_core::sc_module {
 public:
  VcAllocator(sc_core::sc_module_name name, VcAllocatorKind kind) : sc_module(name), m_kind(kind) {}
  const char* kind() const override { return "ftsim_vc_allocator"; }
  /// Appends this cycle's grants to `grants` (cleared first), in grant order.
  void allocate(const VcAllocInputs& in, std::vector<VcGrant>& grants);
  /// Sizes the round-robin pointers: `vcs` output VCs of port p.
  void configure(int radix, int vcs) { m_rr.assign(static_cast<std::size_t>(radix), std::vector<int>(vcs, 0)); }
  void resize_port(int p, int vcs) { m_rr[static_cast<std::size_t>(p)].assign(static_cast<std::size_t>(vcs), 0); }

 private:
  /// Separable input-first output stage: round robin per output VC.
  void arbitrate_input_first(const VcAllocInputs& in, std::vector<VcGrant>& grants);
  /// Wavefront over the requests.
  void arbitrate_wavefront(const VcAllocInputs& in, std::vector<VcGrant>& grants);
  VcAllocatorKind m_kind;
  int m_diagonal = 0;                        ///< wavefront: the priority diagonal, one step per cycle with requests
  std::vector<std::size_t> m_order;          ///< wavefront: request indices in grant order
  std::vector<char> m_row_used, m_col_used;  ///< wavefront: heads and output VCs granted
  std::vector<std::vector<int>> m_rr;        ///< per output port and VC: round-robin pointer
};

/// The crossbar connection of one switch grant: the input queue that sends
/// and the output unit that takes the flit.
struct CrossbarInput {
  InputUnit& in;
  int in_port;
  int queue;  ///< input queue of in_port
  int lanes;  ///< queues per input VC (router.voq)
  OutputUnit& out;
  int out_port;
  routing::RouterId router;  ///< for the per-router energy counters
};

/// What a traversal did.
struct CrossbarOutput {
  /// The packet's tail left (or the packet was dropped): the output VC is
  /// free again and the input queue goes back to idle (the router's part).
  bool released;
};

/// Crossbar and switch traversal: moves the granted flit from its input
/// queue onto its output link (visible downstream after SA + ST + link
/// latency), returns the credit upstream, and drives the phit bundle.
/// Crossbar inputs per port: `router.crossbar` (multiplexed: 1, the node's
/// port `injection_ports`; per_vc: one per input VC). Stateless: the
/// queues and links it connects hold the state.
class Crossbar : public sc_core::sc_module {
 public:
  explicit Crossbar(sc_core::sc_module_name name) : sc_module(name) {}
  const char* kind() const override { return "ftsim_crossbar"; }
  /// Traverses one flit at cycle c. Defined in router.cpp (the only
  /// caller), so the grant path inlines. kPlain: the router is plain
  /// (Router::m_plain: one queue per VC, no look-ahead lanes, no VCD open),
  /// so those tests are left out; the same traversal.
  template <bool kPlain>
  CrossbarOutput traverse(const CrossbarInput& x, NetworkContext& ctx, std::uint64_t c);
  /// Cycles from a flit's switch allocation to its being readable
  /// downstream: router.lat_sa + lat_st + lat_link (set by the router).
  std::uint64_t flit_delay = 3;
};

// VcAllocator's per-cycle path, inline so the router's tick folds it in
// (the wavefront stays out of line, in router_units.cpp).

__attribute__((always_inline)) inline void VcAllocator::allocate(const VcAllocInputs& in,
                                                                 std::vector<VcGrant>& grants) {
  grants.clear();
  if (m_kind == VcAllocatorKind::kWavefront)
    arbitrate_wavefront(in, grants);
  else
    arbitrate_input_first(in, grants);
}

__attribute__((always_inline)) inline void VcAllocator::arbitrate_input_first(const VcAllocInputs& in,
                                                                              std::vector<VcGrant>& grants) {
  const std::vector<VcRequest>& requests = in.requests;
  const int nq = in.queues;
  // Output-VC arbitration, round robin over the requesters' (port, queue)
  // index. With transit priority (alone or with the bubble) a request from
  // the node's input port ranks after every in-transit request (distance + n).
  const int n = in.radix * nq;
  auto rank = [&](const VcRequest& q, int rr) {
    const int d = ((q.in_port * nq + q.queue) - rr + n) % n;
    return in.transit_first && (in.node_ports >> q.in_port & 1U) ? d + n : d;
  };
  // Each output VC is decided at its first request, over that request and
  // every later one for the same VC.
  const std::size_t count = requests.size();
  for (std::size_t i = 0; i < count; ++i) {
    const VcRequest& req = requests[i];
    bool decided = false;
    for (std::size_t k = 0; k < i && !decided; ++k)
      decided = requests[k].out_port == req.out_port && requests[k].out_vc == req.out_vc;
    if (decided) continue;
    int& rr = m_rr[static_cast<std::size_t>(req.out_port)][static_cast<std::size_t>(req.out_vc)];
    std::size_t win = i;
    int win_dist = rank(req, rr);
    for (std::size_t j = i + 1; j < count; ++j) {
      const VcRequest& s = requests[j];
      if (s.out_port != req.out_port || s.out_vc != req.out_vc) continue;
      const int d = rank(s, rr);
      if (d < win_dist) {
        win = j;
        win_dist = d;
      }
    }
    const VcRequest& w = requests[win];
    rr = (w.in_port * nq + w.queue + 1) % n;
    grants.push_back(w);
  }
}

}  // namespace ftsim::hw
