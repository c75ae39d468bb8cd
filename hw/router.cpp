#include "hw/router.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "hw/current_cycle.hpp"
#include "hw/network_interface.hpp"
#include "hw/switch_allocator_impl.hpp"

namespace ftsim::hw {

namespace {

// The receive path's consistency errors, out of line and cold: their
// formatting would otherwise sit in the router tick's inlined code.
[[noreturn]] __attribute__((cold, noinline)) void throw_overflow(const std::string& what) {
  throw std::logic_error(what);
}

[[noreturn]] __attribute__((cold, noinline)) void throw_credit_overflow(const OutputUnit& op, std::uint64_t c,
                                                                        int credits, int depth) {
  throw_overflow(fmt::format("credit overflow at {} cycle {}: {} > {}", op.name(), c, credits, depth));
}

[[noreturn]] __attribute__((cold, noinline)) void throw_lane_credit_overflow(const OutputUnit& op, int lane,
                                                                             std::uint64_t c, int credits, int depth) {
  throw_overflow(fmt::format("credit overflow at {} queue {} cycle {}: {} > {}", op.name(), lane, c, credits, depth));
}

[[noreturn]] __attribute__((cold, noinline)) void throw_buffer_overflow(const InputUnit& ip, int vc, std::uint64_t c) {
  throw_overflow(fmt::format("buffer overflow at {} vc {} cycle {}", ip.name(), vc, c));
}

}  // namespace

using routing::RouteCandidate;

void sc_trace(sc_core::sc_trace_file* tf, const TracedFlit& f, const std::string& name) {
  sc_core::sc_trace(tf, f.packet, name + ".packet");
  sc_core::sc_trace(tf, f.seq, name + ".seq");
  sc_core::sc_trace(tf, f.vc, name + ".vc");
  sc_core::sc_trace(tf, f.head, name + ".head");
  sc_core::sc_trace(tf, f.tail, name + ".tail");
  sc_core::sc_trace(tf, f.valid, name + ".valid");
  sc_core::sc_trace(tf, f.src, name + ".src");
  sc_core::sc_trace(tf, f.dst, name + ".dst");
  sc_core::sc_trace(tf, f.kind, name + ".kind");
}

Router::Router(sc_core::sc_module_name name, routing::RouterId id, int radix, NetworkContext& ctx,
               const RouterMechanismFactory& mechanism)
    : sc_module(name),
      RouterDatapath(id, ctx),
      clk("clk"),
      m_va("vc_allocator", ctx.params.vc_allocator),
      m_sa("switch_allocator", ctx.params),
      m_xbar("crossbar"),
      m_clock(ctx.router_clock) {
  const int vcs = ctx.params.vcs;
  // VOQ: a resident packet holds at least one flit, so B queues per VC suffice.
  m_lanes = ctx.params.queues == QueueOrganisation::kVoq ? ctx.params.buffer_flits : 1;
  m_nq = vcs * m_lanes;
  m_ejection_vcs = (1U << ctx.params.ejection_ports) - 1U;
  m_vcs_max = vcs;
  m_in.reserve(static_cast<std::size_t>(radix));
  m_out.reserve(static_cast<std::size_t>(radix));
  for (int p = 0; p < radix; ++p) {
    const std::string pn = ctx.topology->port_name(id, p);
    m_in.push_back(std::make_unique<InputUnit>(("input_" + pn).c_str(), vcs, m_lanes));
    m_out.push_back(std::make_unique<OutputUnit>(("output_" + pn).c_str(), vcs, ctx.params.buffer_flits));
  }
  m_per_output = ctx.params.queues == QueueOrganisation::kVoq && ctx.params.voq == VoqReading::kPerOutput;
  if (m_per_output)
    for (auto& op : m_out)
      op->lane_credits.assign(
          op->vcs.size(), std::vector<int>(static_cast<std::size_t>(ctx.topology->max_radix()), ctx.params.voq_flits));
  m_sa.configure(radix, m_nq, m_lanes);
  m_sa.track_sending(true);  // the per-VC crossbar's routers (SwitchAllocator::track_sending)
  m_parking = m_lanes == 1 && radix * m_nq <= 64;
  m_va.configure(radix, vcs);
  if (mechanism) m_mechanism = mechanism(*this);  // built here: a child of this router
  if (m_mechanism) {
    m_route.mechanism = m_mechanism.get();
    m_route.table_epoch = m_mechanism->table_epoch();
    m_hold_transit = m_mechanism->hold_transit();
    m_vc_allocated_hook = m_mechanism->wants_vc_allocated();
  }
  m_xbar.flit_delay = static_cast<std::uint64_t>(ctx.params.lat_sa + ctx.params.lat_st + ctx.params.lat_link);
  m_plain = !m_mechanism && m_lanes == 1 && !m_per_output && m_sa.plain_path();
  if (m_clock != nullptr) {
    m_clock->add(this);
  } else {
    m_wake_event = std::make_unique<sc_core::sc_event>();
    SC_METHOD(own_tick);
    sensitive << clk.pos();
    dont_initialize();
  }
}

Router::~Router() = default;

void Router::sleep() {
  m_sleeping = true;
  if (m_clock == nullptr) next_trigger(*m_wake_event);  // else the RouterClock skips it until wake()
}

RouterClock::RouterClock(sc_core::sc_module_name name) : sc_module(name), clk("clk") {
  SC_METHOD(step);
  sensitive << clk.pos() << m_wake;
  dont_initialize();
}

void RouterClock::step() {
  if (m_ctx == nullptr) return;  // no router added: the routers have their own processes
  m_stepping = true;             // wakes during the step join m_pending without a notification
  const std::uint64_t c = current_cycle(*m_ctx);
  if (clk.posedge()) {
    m_cycle = c;
    // The routers due now wake before the ticks, so they tick in the order
    // they were added, as if they had been awake.
    std::vector<Router*>& due = m_wheel[c & (kWheelSlots - 1)];
    for (Router* r : due)
      if (r->m_sleeping && r->m_wake_at == c) {
        r->m_sleeping = false;
        r->m_wake_at = ~0ULL;
      }
    due.clear();
    for (Router* r : m_routers)
      if (!r->m_sleeping) r->tick(c);
  }
  while (!m_pending.empty()) {  // woken since: ticked now (tick() skips a router already ticked this cycle)
    m_batch.swap(m_pending);
    for (Router* r : m_batch)
      if (!r->m_sleeping) r->tick(c);
    m_batch.clear();
  }
  m_stepping = false;
}

// ---------------------------------------------------------------------------
// The units' per-cycle paths, here so that they inline into the router's
// clocked method (one translation unit; hw/router_units.cpp has the rest).

template <bool kPlain>
inline bool RouteUnit::compute(const NetworkContext& ctx, const RouteUnitInput& in, InputVc& iv) {
  routing::RouteQuery q;
  q.router = in.router;
  q.in_port = in.in_port;
  q.in_vc = in.in_vc;
  q.injected_here = in.injected_here;
  q.header = &in.header;
  q.view.port_alive = port_alive;
  q.view.cycle = in.cycle;
  if (!kPlain && mechanism != nullptr) mechanism->fill_view(q.view);
  if (!table.empty()) {
    q.view.forwarding = table.data();
    q.view.forwarding_size = table.size();
  }
  m_scratch.clear();
  ctx.relation->route(q, m_scratch);
  iv.route_ports = iv.route.assign(m_scratch);
  iv.route_epoch = epoch();
  return m_scratch.size > 0;
}

bool SwitchAllocator::ready(const InputVc& iv, const std::vector<std::unique_ptr<OutputUnit>>& out,
                            std::uint64_t c) const {
  // Callers visit active queues only (QueueBits `active`), so the state is kActive.
  if (iv.ready > c || iv.fifo.empty()) return false;
  const OutputUnit& op = *out[static_cast<std::size_t>(iv.out_port)];
  // A failed link accepts everything (and loses it): STOP from a dead
  // receiver must not hold the sender for ever.
  const bool failed = op.link != nullptr && op.link->failed;
  return failed || (op.vcs[iv.out_vc].credits > 0 && (op.link == nullptr || !op.link->bundle.stop));
}

// ---------------------------------------------------------------------------
// VC allocator

void RouterDatapath::older_ports_of_input(int p) {
  auto& ip = *m_in[static_cast<std::size_t>(p)];
  m_older_ports.resize(static_cast<std::size_t>(m_nq));  // read only for waiting queues, all set below
  for (auto& order : ip.arrival_order) {
    // Heads of this VC in arrival order; drop those that left VC allocation
    // (sent, discarded, or their queue reused by a later head).
    std::uint64_t older = 0;
    std::size_t kept = 0;
    for (const InputUnit::Arrival& a : order) {
      if (!ip.waiting_head(a)) continue;
      order[kept++] = a;
      const InputVc& o = ip.queues[static_cast<std::size_t>(a.queue)];
      if (o.state != InputVc::State::kVcAlloc) continue;  // before route computation
      m_older_ports[static_cast<std::size_t>(a.queue)] = older;
      older |= o.route_ports;
    }
    order.resize(kept);
  }
}

std::uint32_t RouterDatapath::unallocated_vcs(int o) const {
  const OutputUnit& op = *m_out[static_cast<std::size_t>(o)];
  return op.connected && (m_route.port_alive >> o & 1U) ? op.unallocated : 0;
}

// Wavefront: every output VC that takes the packet at the best priority
// (input queues only, so no VOQ order and no look-ahead lane). Out of line:
// the input-first path stays small enough to inline.
__attribute__((noinline)) void RouterDatapath::request_every_vc(int p, int v, int best_prio, int len, bool from_node) {
  const InputVc& iv = m_in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(v)];
  const int n_cand = iv.route.size;
  for (int ci = 0; ci < n_cand; ++ci) {
    const RouteCandidate& cand = iv.route.items[static_cast<std::size_t>(ci)];
    if (cand.priority != best_prio) continue;
    const OutputUnit& op = *m_out[static_cast<std::size_t>(cand.port)];
    std::uint32_t mask = (op.ejection ? m_ejection_vcs : cand.vc_mask) & unallocated_vcs(cand.port);
    const int need = credits_needed(op, cand, len, from_node);  // as in request_vc
    for (; mask != 0; mask &= mask - 1) {
      const int ov = __builtin_ctz(mask);
      if (op.vcs[static_cast<std::size_t>(ov)].credits < need) continue;
      bool seen = false;  // the same VC through two candidates: the first one's move flag
      for (std::size_t k = m_vc_requests.size();
           k-- > 0 && m_vc_requests[k].in_port == p && m_vc_requests[k].queue == v;)
        seen |= m_vc_requests[k].out_port == cand.port && m_vc_requests[k].out_vc == ov;
      if (!seen) m_vc_requests.push_back(VcRequest{p, v, cand.port, ov, cand.counts_move, -1});
    }
  }
}

template <bool kQueuesPerVc>
inline void RouterDatapath::request_vc(int p, int v, std::uint64_t c, bool& older_ready, std::uint64_t free_ports) {
  NetworkContext& ctx = m_ctx;
  const int nq = m_nq;
  const int lanes = kQueuesPerVc ? m_lanes : 1;
  const SelectionKind sel = ctx.params.selection;
  InputVc& iv = m_in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(v)];
  if (iv.ready > c) return;
  if (lanes > 1 && !older_ready) {
    older_ports_of_input(p);
    older_ready = true;
  }
  if (iv.route_epoch != m_route.epoch()) {
    const bool routed = compute_route(p, v, iv.packet);
    if (lanes > 1) older_ports_of_input(p);  // the later heads compare with the new route
    if (!routed) {
      // purged by route_computation below
      ctx.drop(iv.packet, iv.route.discarded ? DropReason::kRerouteDiscard : DropReason::kNoRoute);
      return;
    }
  }
  const int len = ctx.packets[iv.packet].length;
  const bool from_node = m_out[static_cast<std::size_t>(p)]->ejection;
  int best_port = -1;
  int best_vc = -1;
  bool best_move = false;
  int best_next = -1;
  int best_score = -1;
  int best_prio = INT_MAX;
  // VOQ: packets to one output port leave in arrival order.
  const std::uint64_t blocked = lanes == 1 ? 0 : m_older_ports[static_cast<std::size_t>(v)];
  // No candidate port with a free VC (or all of them held by older
  // packets): no request, whatever the credits.
  if ((iv.route_ports & free_ports & ~blocked) == 0) return;
  // Selection function (router.selection): max_credits scans from the
  // first candidate; the round-robin kinds from a rotating one.
  const int n_cand = iv.route.size;
  const int first =
      sel == SelectionKind::kMaxCredits || n_cand < 2
          ? 0
          : static_cast<int>((static_cast<std::uint64_t>(p * nq + v) + c) % static_cast<std::uint64_t>(n_cand));
  for (int ci = 0; ci < n_cand; ++ci) {
    const int idx = first + ci < n_cand ? first + ci : first + ci - n_cand;
    const RouteCandidate& cand = iv.route.items[static_cast<std::size_t>(idx)];
    if (cand.priority > best_prio || (blocked >> cand.port & 1U)) continue;
    const OutputUnit& op = *m_out[static_cast<std::size_t>(cand.port)];
    // The node's port: one "VC" per ejection port, whatever the relation's mask.
    std::uint32_t mask = (op.ejection ? m_ejection_vcs : cand.vc_mask) &
                         (lanes > 1 ? m_free_vcs[static_cast<std::size_t>(cand.port)] : unallocated_vcs(cand.port));
    if (mask == 0) continue;
    // A VC of the mask (none is allocated) takes the head with the credits
    // the candidate needs (credits_needed, once per candidate).
    const int need = credits_needed(op, cand, len, from_node);
    for (; mask != 0; mask &= mask - 1) {
      const int ov = __builtin_ctz(mask);
      if (op.vcs[ov].credits < need) continue;
      const int score = sel == SelectionKind::kRoundRobin ? 0 : op.vcs[ov].credits;
      if (cand.priority < best_prio || score > best_score) {
        int next = -1;
        if (kQueuesPerVc && m_per_output && !op.ejection && op.link != nullptr && op.link->receiver != nullptr) {
          next = lookahead_lane(op, cand.port, ov, iv.packet, len, c);
          if (next < 0) continue;  // no next-hop queue with room: this VC cannot take the packet
        }
        best_prio = cand.priority;
        best_score = score;
        best_port = cand.port;
        best_vc = ov;
        best_move = cand.counts_move;
        best_next = next;
      }
    }
  }
  if (best_port < 0) {
    if (!kQueuesPerVc && m_parking) park_head(p, v, len, from_node);
    return;
  }
  if (ctx.params.vc_allocator != VcAllocatorKind::kWavefront) {
    m_vc_requests.push_back(VcRequest{p, v, best_port, best_vc, best_move, best_next});
    return;
  }
  request_every_vc(p, v, best_prio, len, from_node);
}

void RouterDatapath::form_vc_requests(std::uint64_t c) {
  if (m_lanes > 1)
    form_vc_requests_of<true>(c);
  else
    form_vc_requests_of<false>(c);
}

template <bool kQueuesPerVc>
void RouterDatapath::form_vc_requests_of(std::uint64_t c) {
  const int radix = static_cast<int>(m_in.size());
  const int nq = m_nq;
  m_vc_requests.clear();
  if (m_parked != 0) wake_parked_heads();
  const int lanes = kQueuesPerVc ? m_lanes : 1;
  // VOQ (many waiting heads per port): all ports at once, and the ports with
  // a free VC, to skip heads that cannot request.
  std::uint64_t free_ports = ~0ULL;
  if (lanes > 1) {
    m_free_vcs.resize(static_cast<std::size_t>(radix));
    free_ports = 0;
    for (int o = 0; o < radix; ++o) {
      m_free_vcs[static_cast<std::size_t>(o)] = unallocated_vcs(o);
      if (m_free_vcs[static_cast<std::size_t>(o)] != 0) free_ports |= 1ULL << o;
    }
  }
  for (std::uint64_t ports = m_va_ports; ports != 0; ports &= ports - 1) {
    const int p = __builtin_ctzll(ports);
    const InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
    // VOQ: the older packets' ports of every queue of this input at once
    // (again after a head is rerouted under a new route epoch).
    bool older_ready = false;
    ip.waiting_va.visit<!kQueuesPerVc>(0, nq, [&](int v) {
      request_vc<kQueuesPerVc>(p, v, c, older_ready, free_ports);
      return false;
    });
  }
}

VcAllocInputs RouterDatapath::vc_alloc_inputs() const {
  return VcAllocInputs{m_vc_requests, static_cast<int>(m_in.size()),           m_nq, m_vcs_max,
                       m_node_ports,  transit_priority(m_ctx.params.injection)};
}

template <bool kOneWord>
inline void RouterDatapath::apply_vc_grant(const VcGrant& w, std::uint64_t c) {
  NetworkContext& ctx = m_ctx;
  InputVc& iv = m_in[static_cast<std::size_t>(w.in_port)]->queues[static_cast<std::size_t>(w.queue)];
  m_out[static_cast<std::size_t>(w.out_port)]->set_allocated(w.out_vc, true);
  vc_alloc_to_active<kOneWord>(w.in_port, w.queue);
  if (w.counts_move) {
    auto& moves = ctx.packets[iv.packet].header.moves;
    if (moves < 255) ++moves;
  }
  iv.out_port = w.out_port;
  iv.out_vc = w.out_vc;
  iv.next_port = w.next_port;
  iv.ready = c + ctx.params.lat_va;
}

// ---------------------------------------------------------------------------
// Crossbar

template <bool kPlain>
__attribute__((always_inline)) inline CrossbarOutput Crossbar::traverse(const CrossbarInput& x, NetworkContext& ctx,
                                                                        std::uint64_t c) {
  const auto& prm = ctx.params;
  {
    OutputUnit& op = x.out;
    InputUnit& ip = x.in;
    InputVc& iv = ip.queues[static_cast<std::size_t>(x.queue)];
    // The flit is read in place and leaves the FIFO last; the link's copy
    // gets the downstream VC and lane written into it (bytes in memory, not
    // fields inserted into a register copy).
    // (Its head and tail bits are read where they are used: kept in
    // registers across the traversal, they were spilled.)
    const Flit& f = iv.fifo.front().item;
    const int in_vc = kPlain || x.lanes == 1 ? x.queue : x.queue / x.lanes;
    --ip.vc_flits[static_cast<std::size_t>(in_vc)];
    ip.return_credit(in_vc, kPlain ? -1 : f.lane, c, prm.lat_credit);  // (plain: no look-ahead lanes)
    if (!kPlain) op.grant = x.in_port;  // (traced only: a plain tick runs with no VCD open)
    PacketInfo& pk = ctx.packets[f.packet];
    if (op.link->failed) {
      ctx.drop_on_failed_link(f.packet, f.head ? NetworkContext::LinkLoss::kRoutedBeforeDetection
                                               : NetworkContext::LinkLoss::kCutInBuffers);
    } else {
      if (!op.ejection) {
        OutputVc& ov = op.vcs[iv.out_vc];
        --ov.credits;
        if (!kPlain && iv.next_port >= 0)
          --op.lane_credits[static_cast<std::size_t>(iv.out_vc)][static_cast<std::size_t>(iv.next_port)];
      }
      if (ctx.stats.in_window(c)) ++op.vcs[iv.out_vc].window_flits;
      const std::uint64_t ready = c + flit_delay;
      Flit& sent = op.link->push_flit(ready, f);
      sent.vc = static_cast<std::uint8_t>(iv.out_vc);
      if (!kPlain) sent.lane = static_cast<std::int8_t>(iv.next_port);  // (plain: -1, as the flit's)
      if (op.link->receiver != nullptr) op.link->receiver->wake_at(ready);
      if (f.head && !op.ejection) {
        ++pk.hops;
        ctx.relation->on_hop(pk.header, x.router, x.out_port, iv.out_vc);  // header state of stateful relations
      }
      if (!kPlain && ctx.trace_mode) {  // the wave view's lines (nothing else reads them)
        op.link->bundle.data = sent.packet;
        op.link->bundle.req0 = !f.head;  // exactly one request line per flit in normal operation
        op.link->bundle.req1 = f.head;
        op.last_flit.set(sent, pk.header.src, pk.header.dst);
      }
      ++op.flits_sent;  // energy events, gathered per router after the run
      op.heads_sent += f.head;
      ctx.stats.last_move_cycle = c;
    }
    const bool tail = f.tail;
    iv.fifo.pop();
    if (tail || (ctx.drop_epoch != 0 && pk.dropped)) {
      op.set_allocated(iv.out_vc, false);
      return CrossbarOutput{true};
    }
  }
  return CrossbarOutput{false};
}

// ---------------------------------------------------------------------------
// Router

void Router::bind_port(int p, LinkDirection* in, LinkDirection* out, bool ejection) {
  InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
  OutputUnit& op = *m_out[static_cast<std::size_t>(p)];
  ip.link = in;
  const auto& prm = m_ctx.params;
  ip.crossbar_inputs = prm.crossbar == CrossbarKind::kPerVc ? prm.vcs : (ejection ? prm.injection_ports : 1);
  op.link = out;
  op.connected = true;
  if (in != nullptr) {
    in->receiver = this;
    in->receiver_port = p;
    in->flit_ports = &m_rx_ports;
    in->flit_bit = 1ULL << p;
    if (!m_ctx.stats.node_arrivals.empty()) in->arrivals = &m_ctx.stats.node_arrivals[static_cast<std::size_t>(m_id)];
  }
  if (out != nullptr) {
    out->sender = this;
    // Credits on the link to a network interface: none (it sinks
    // everything); its flits are read by the interface this router ticks.
    if (ejection) {
      out->flit_ports = &m_eject_ports;
      out->flit_bit = 1ULL << p;
    } else {
      out->credit_ports = &m_credit_ports;
      out->credit_bit = 1ULL << p;
    }
  }
  if (ejection) {
    // Each ejection port carries one packet at a time: it is modelled as an
    // output VC of the node's port with unbounded credits (the NI sinks).
    const std::size_t before = op.vcs.size();
    op.make_ejection(m_ctx.params.ejection_ports);
    m_node_ports |= 1ULL << p;
    m_vcs_max = std::max(m_vcs_max, static_cast<int>(op.vcs.size()));
    if (op.vcs.size() != before) m_va.resize_port(p, static_cast<int>(op.vcs.size()));
  }
}

std::string Router::queue_name(int q) const {
  return m_lanes == 1 ? fmt::format("vc{}", q) : fmt::format("vc{}.q{}", q / m_lanes, q % m_lanes);
}

std::uint64_t Router::now() const {
  return current_cycle(m_ctx);
}

int Router::credits(int p, int v) const {
  const OutputUnit& op = *m_out[static_cast<std::size_t>(p)];
  int n = op.vcs[static_cast<std::size_t>(v)].credits;
  if (op.link == nullptr || op.ejection) return n;
  const auto& line = op.link->credits();
  const std::uint64_t c = now();
  for (std::size_t i = 0; i < line.size() && line.at(i).ready <= c; ++i) n += credit_vc(line.at(i).item) == v;
  return n;
}

void Router::set_port_alive(int p, bool alive) {
  m_route.set_port_alive(p, alive);
}

void Router::resync_credits(int p, const std::vector<int>& downstream_occupancy,
                            const std::vector<std::vector<int>>& downstream_lanes) {
  OutputUnit& op = *m_out[static_cast<std::size_t>(p)];
  if (op.ejection) return;
  for (std::size_t v = 0; v < op.vcs.size(); ++v) {
    op.vcs[v].credits = m_ctx.params.buffer_flits - downstream_occupancy[v];
    if (v < op.lane_credits.size())
      for (std::size_t o = 0; o < op.lane_credits[v].size(); ++o)
        op.lane_credits[v][o] =
            m_ctx.params.voq_flits -
            (v < downstream_lanes.size() && o < downstream_lanes[v].size() ? downstream_lanes[v][o] : 0);
    op.set_allocated(static_cast<int>(v), false);
  }
  wake();
}

std::vector<std::vector<int>> Router::lane_occupancy(int p) const {
  const InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
  std::vector<std::vector<int>> out(static_cast<std::size_t>(m_ctx.params.vcs),
                                    std::vector<int>(static_cast<std::size_t>(m_ctx.topology->max_radix()), 0));
  for (int q = 0; q < m_nq; ++q) {
    const InputVc& iv = ip.queues[static_cast<std::size_t>(q)];
    for (std::size_t i = 0; i < iv.fifo.size(); ++i) {
      const Flit& f = iv.fifo.at(i).item;
      if (f.lane >= 0) ++out[static_cast<std::size_t>(q / m_lanes)][static_cast<std::size_t>(f.lane)];
    }
  }
  return out;
}

void Router::lookahead(int p, int v, const routing::PacketHeader& h, std::uint64_t cycle, routing::RouteSet& out) {
  routing::PacketHeader copy = h;
  m_route.compute<false>(m_ctx, RouteUnitInput{m_id, p, v, m_out[static_cast<std::size_t>(p)]->ejection, copy, cycle},
                         m_lookahead);
  out.clear();
  for (const routing::RouteCandidate& cand : m_lookahead.route) out.add(cand);
  out.discarded = m_lookahead.route.discarded;
}

int RouterDatapath::lookahead_lane(const OutputUnit& op, int out_port, int ov, std::uint32_t packet, int len,
                                   std::uint64_t c) {
  // The header as the downstream router will see it: after this hop.
  routing::PacketHeader h = m_ctx.packets[packet].header;
  m_ctx.relation->on_hop(h, m_id, out_port, ov);
  op.link->receiver->lookahead(op.link->receiver_port, ov, h, c, m_lookahead_route);
  const routing::RouteSet& rs = m_lookahead_route;
  const std::vector<int>& credits = op.lane_credits[static_cast<std::size_t>(ov)];
  int best = -1;
  int best_prio = INT_MAX;
  const int n = rs.size;
  const int first = n < 2 ? 0 : static_cast<int>(c % static_cast<std::uint64_t>(n));
  for (int i = 0; i < n; ++i) {
    const routing::RouteCandidate& cand = rs.items[static_cast<std::size_t>((first + i) % n)];
    if (cand.priority >= best_prio) continue;
    if (cand.port >= 0 && static_cast<std::size_t>(cand.port) < credits.size() &&
        credits[static_cast<std::size_t>(cand.port)] >= len) {
      best = cand.port;
      best_prio = cand.priority;
    }
  }
  return best;
}

void Router::fail() {
  m_failed = true;
  for (auto& ip : m_in) {
    for (auto& iv : ip->queues) {
      for (std::size_t i = 0; i < iv.fifo.size(); ++i)
        m_ctx.drop(iv.fifo.at(i).item.packet, DropReason::kSwitchFailure);
      iv.fifo.clear();
      iv.state = InputVc::State::kIdle;
    }
    std::fill(ip->vc_flits.begin(), ip->vc_flits.end(), 0);
    for (auto& order : ip->arrival_order) order.clear();
    ip->waiting_va.clear();
    ip->active.clear();
    ip->route_pending.clear();
  }
  m_active_ports = m_va_ports = m_route_ports = 0;
  m_sa.clear_sending();
  clear_parked();
  m_buffered = 0;
  m_waiting_va = 0;
  // The links to this router's own interfaces (direct networks: not topology
  // links, so the network does not fail them) die with it: flits on them
  // belong to lost packets. Left there, a packet already ejecting stayed in
  // flight for ever, neither delivered nor dropped.
  for (std::size_t p = 0; p < m_out.size(); ++p) {
    for (LinkDirection* l : {m_in[p]->link, m_out[p]->link}) {
      if (l == nullptr || l->link_id >= 0) continue;
      for (std::size_t i = 0; i < l->flits().size(); ++i)
        m_ctx.drop(l->flits().at(i).item.packet, DropReason::kSwitchFailure);
      l->clear();
    }
  }
  for (auto& op : m_out) lose_control(*op);
  m_control_outputs = 0;
  for (auto* ni : m_nis) ni->fail();
  m_route.port_alive = 0;
}

void Router::repair() {
  m_failed = false;
  for (auto& op : m_out)
    for (std::size_t v = 0; v < op->vcs.size(); ++v) {
      op->set_allocated(static_cast<int>(v), false);
      op->vcs[v].credits = op->ejection ? OutputUnit::kInfiniteCredits : m_ctx.params.buffer_flits;
    }
  for (auto& op : m_out)
    for (auto& lanes : op->lane_credits) std::fill(lanes.begin(), lanes.end(), m_ctx.params.voq_flits);
  for (auto* ni : m_nis) ni->repair();
  // Ports to other routers stay down until the network detects each repaired
  // link; the ports to this router's own interfaces (direct networks: no
  // topology link, nothing to detect) come back with the router. Leaving them
  // down kept the router from ever ejecting again and wedged the network.
  m_route.port_alive = 0;
  for (std::size_t p = 0; p < m_out.size(); ++p)
    if (m_out[p]->ejection && m_out[p]->link != nullptr && m_out[p]->link->link_id < 0) m_route.port_alive |= 1ULL << p;
  ++m_route.alive_epoch;
  wake();
}

bool Router::drain_safe_head(int p, int need_free, std::uint32_t* packet) {
  if (p >= static_cast<int>(m_in.size()) || m_in[p]->queues.empty()) return false;
  InputVc& iv = m_in[p]->queues[0];
  if (iv.fifo.empty() || iv.state == InputVc::State::kActive) return false;
  if (m_ctx.params.buffer_flits - static_cast<int>(iv.fifo.size()) >= need_free) return false;
  const Flit head = iv.fifo.front().item;
  if (!head.head || m_ctx.packets[head.packet].control) return false;
  std::size_t len = 0;
  while (len < iv.fifo.size() && iv.fifo.at(len).item.packet == head.packet) {
    if (iv.fifo.at(len).item.tail) break;
    ++len;
  }
  if (len == iv.fifo.size() || iv.fifo.at(len).item.packet != head.packet) return false;  // tail not here yet
  const std::uint64_t c = now();
  for (std::size_t i = 0; i <= len; ++i) discard_front(p, 0, c);
  if (iv.state == InputVc::State::kVcAlloc) {
    --m_waiting_va;
    forget_parked(p, 0);
  }
  set_state(p, 0, InputVc::State::kIdle);
  *packet = head.packet;
  wake();
  return true;
}

void Router::queue_control(int p, int flits, std::uint32_t data, std::uint64_t now, ControlSent on_sent,
                           std::uint32_t packet, bool bubble) {
  OutputUnit& op = *m_out[static_cast<std::size_t>(p)];
  if (m_failed || op.link == nullptr || op.link->failed) {
    if (packet != kNoControlPacket)
      m_ctx.drop(packet, DropReason::kLinkFailure);
    else
      on_sent(kControlLost);
    return;
  }
  op.control.push_back(OutputUnit::Control{data, flits, now, true, std::move(on_sent), packet, bubble});
  m_control_outputs |= 1ULL << p;
  m_plain = false;  // control packets take the general tick (normally only a mechanism's router queues them)
  wake();
}

void RouterDatapath::send_control_flit(int o, std::uint64_t c) {
  OutputUnit& op = *m_out[static_cast<std::size_t>(o)];
  op.grant = static_cast<int>(m_in.size());
  OutputUnit::Control& ctl = op.control.front();
  op.link->bundle.data = ctl.data;
  op.link->bundle.req0 = !ctl.head;  // one request line per flit, req1 on the head, as for packets
  op.link->bundle.req1 = ctl.head;
  if (ctl.packet != Router::kNoControlPacket) {  // a flit of a packet in the safe VC
    const auto& prm = m_ctx.params;
    const int len = m_ctx.packets[ctl.packet].length;
    Flit f;
    f.packet = ctl.packet;
    f.seq = static_cast<std::uint16_t>(len - ctl.flits_left);
    f.vc = 0;
    f.head = ctl.head;
    f.tail = ctl.flits_left == 1;
    if (f.head) op.set_allocated(0, true);
    --op.vcs[0].credits;
    const std::uint64_t ready = c + prm.lat_sa + prm.lat_st + prm.lat_link;
    op.link->push_flit(ready, f);
    if (op.link->receiver != nullptr) op.link->receiver->wake_at(ready);
    if (f.tail) {
      op.set_allocated(0, false);
    }
  }
  ctl.head = false;
  if (--ctl.flits_left > 0) return;
  const Router::ControlSent done = std::move(ctl.on_sent);
  op.control.erase(op.control.begin());
  if (op.control.empty()) m_control_outputs &= ~(1ULL << o);
  done(c);
}

void Router::lose_control(OutputUnit& op) {
  std::vector<OutputUnit::Control> lost;
  lost.swap(op.control);
  for (auto& ctl : lost) {
    if (ctl.packet == kNoControlPacket) {
      ctl.on_sent(kControlLost);
      continue;
    }
    if (!ctl.head) {
      op.set_allocated(0, false);  // cut after its head left: the receiver discards the rest
    }
    m_ctx.drop(ctl.packet, DropReason::kLinkFailure);
  }
}

std::uint64_t Router::control_ready(std::uint64_t now) {
  std::uint64_t ready = 0;
  for (std::uint64_t m = m_control_outputs; m != 0; m &= m - 1) {
    const int o = __builtin_ctzll(m);
    OutputUnit& op = *m_out[static_cast<std::size_t>(o)];
    if (op.link->failed) {
      lose_control(op);
      m_control_outputs &= ~(1ULL << o);
    } else if (op.control.front().queued < now && !op.link->bundle.stop) {
      const OutputUnit::Control& ctl = op.control.front();
      if (ctl.packet != kNoControlPacket) {  // a packet in the safe VC: VC allocation and credits as for packets
        const OutputVc& ov = op.vcs[0];
        const int need = ctl.head ? (ctl.bubble ? 2 * m_ctx.max_packet_flits : ctl.flits_left) : 1;
        if ((ctl.head && ov.allocated) || ov.credits < need) continue;
      }
      ready |= 1ULL << o;
    }
  }
  return ready;
}

void Router::attach_interface(NetworkInterface* ni) {
  if (m_nis.size() >= 64)
    throw std::logic_error(fmt::format("{}: more than 64 network interfaces on one router", name()));
  ni->announce_to(&m_ni_pending, 1ULL << m_nis.size());
  m_nis.push_back(ni);
}

void Router::sleep_if_idle(std::uint64_t c) {
  if ((m_rx_ports | m_eject_ports) == 0) {
    sleep();
    return;
  }
  if (m_clock == nullptr) return;
  // Flits on their way (their lines are in ready order): sleep until the
  // first one is readable, unless that is the next cycle anyway.
  std::uint64_t next = ~0ULL;
  for (std::uint64_t m = m_rx_ports; m != 0; m &= m - 1)
    next = std::min(next, m_in[static_cast<std::size_t>(__builtin_ctzll(m))]->link->flits().front().ready);
  for (std::uint64_t m = m_eject_ports; m != 0; m &= m - 1)
    next = std::min(next, m_out[static_cast<std::size_t>(__builtin_ctzll(m))]->link->flits().front().ready);
  if (next <= c + 1 || next - c >= RouterClock::kWheelSlots) return;
  sleep();
  m_wake_at = next;
  m_clock->wake_later(this);
}

void Router::tick(std::uint64_t c) {
  if (m_plain && !m_ctx.trace_mode)  // (a plain router has no control packets: queue_control clears m_plain)
    tick_of<true>(c);
  else
    tick_of<false>(c);
}

template <bool kPlain>
void Router::tick_of(std::uint64_t c) {
  if (m_failed) {
    sleep();
    return;
  }
  if (c == m_last_tick) return;  // woken twice in one cycle
  m_last_tick = c;
  ++m_ticks;
  if (!kPlain && m_ctx.trace_mode) {
    for (auto& op : m_out) {
      op->grant = -1;
      op->last_flit = TracedFlit{};
      if (op->link != nullptr) op->link->bundle.req0 = op->link->bundle.req1 = false;
    }
  }
  if ((m_ni_pending | m_eject_ports) != 0)
    for (auto* ni : m_nis) ni->tick(c);
  receive<kPlain>(c);
  if (m_buffered > 0 || (!kPlain && m_control_outputs != 0) || m_seen_drop_epoch != m_ctx.drop_epoch) {
    // The mechanism's switch hook: while it reconfigures, a mechanism may
    // keep packets in transit in the local buffers instead of forwarding
    // them to the output ports (RouterMechanism::hold_transit).
    if (kPlain || m_hold_transit == nullptr || !*m_hold_transit) {
      const std::uint64_t control = !kPlain && m_control_outputs != 0 ? control_ready(c) : 0;
      // The crossbar's part of a grant: inlined into the plain allocator's
      // grant loop; the general allocator calls it (inlining it there made
      // the 8x8x8 run 4.8% longer).
      auto grant = [&](const SwitchGrant& g) __attribute__((always_inline)) {
        if (!kPlain && g.in_port < 0) {  // a mechanism's control packet takes the link
          send_control_flit(g.out_port, c);
          return;
        }
        const auto out = m_xbar.traverse<kPlain>(
            CrossbarInput{*m_in[static_cast<std::size_t>(g.in_port)], g.in_port, g.queue, m_lanes,
                          *m_out[static_cast<std::size_t>(g.out_port)], g.out_port, m_id},
            m_ctx, c);
        --m_buffered;
        if (out.released) {
          if (!kPlain && m_sa.tracks_sending()) m_sa.stop_sending(g.in_port, g.queue, g.out_port);
          active_to_idle<kPlain>(g.in_port, g.queue);
        }
      };
      const SwitchAllocInputs inputs{m_in, m_out, m_active_ports, control};
      if constexpr (kPlain)
        m_sa.allocate_of<true>(inputs, c, grant);
      else
        m_sa.allocate_of<false>(inputs, c, [&](const SwitchGrant& g) { grant(g); });
    }
    if (m_waiting_va > 0) {
      // VC allocation: the waiting heads' requests in, the grants applied.
      form_vc_requests(c);
      if (!m_vc_requests.empty()) {
        m_va.allocate(vc_alloc_inputs(), m_vc_grants);
        for (const VcGrant& g : m_vc_grants) {
          apply_vc_grant<kPlain>(g, c);
          if (!kPlain && m_sa.tracks_sending()) m_sa.start_sending(g.in_port, g.queue, g.out_port);
          if (!kPlain && m_vc_allocated_hook)
            m_mechanism->on_vc_allocated(
                g.in_port, g.queue, g.out_port, g.out_vc,
                m_in[static_cast<std::size_t>(g.in_port)]->queues[static_cast<std::size_t>(g.queue)].packet, c);
        }
        m_waiting_va -= static_cast<int>(m_vc_grants.size());
      }
    }
    // Route computation has work only for marked ports or after a drop.
    if (m_route_ports != 0 || m_seen_drop_epoch != m_ctx.drop_epoch) route_computation<kPlain>(c);
  }
  if ((kPlain || (!m_ctx.trace_mode && m_control_outputs == 0)) && m_buffered == 0 && m_ni_pending == 0)
    sleep_if_idle(c);
}

void Router::discard_front(int p, int q, std::uint64_t now) {
  InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
  InputVc& iv = ip.queues[static_cast<std::size_t>(q)];
  const int lane = iv.fifo.front().item.lane;
  iv.fifo.pop();
  --ip.vc_flits[static_cast<std::size_t>(q / m_lanes)];
  --m_buffered;
  ip.return_credit(q / m_lanes, lane, now, m_ctx.params.lat_credit);
}

template <bool kPlain>
__attribute__((always_inline)) inline void Router::receive(std::uint64_t c) {
  const int depth = m_ctx.params.buffer_flits;
  // Only the ports whose links hold credits or flits (ascending, as a scan
  // of every port would visit them).
  for (std::uint64_t m = m_credit_ports; m != 0; m &= m - 1) {
    OutputUnit& op = *m_out[static_cast<std::size_t>(__builtin_ctzll(m))];
    LinkDirection* l = op.link;
    if (l->credits().front().ready > c) continue;  // (the port's bit: its line holds credits)
    for (bool more = true; more;) {
      const std::uint16_t code = l->credits().front().item;
      OutputVc& ov = op.vcs[static_cast<std::size_t>(credit_vc(code))];
      more = l->pop_credit_next_ready(c);
      if (++ov.credits > depth) throw_credit_overflow(op, c, ov.credits, depth);
      if (const int lane = credit_lane(code); !kPlain && lane >= 0) {
        int& lc = op.lane_credits[static_cast<std::size_t>(credit_vc(code))][static_cast<std::size_t>(lane)];
        if (++lc > m_ctx.params.voq_flits) throw_lane_credit_overflow(op, lane, c, lc, m_ctx.params.voq_flits);
      }
    }
  }
  for (std::uint64_t m = m_rx_ports; m != 0; m &= m - 1) {
    InputUnit& ip = *m_in[static_cast<std::size_t>(__builtin_ctzll(m))];
    LinkDirection* l = ip.link;
    if (l->flits().front().ready > c) continue;  // (the port's bit: its line holds flits)
    for (bool more = true; more;) {
      const auto& e = l->flits().front();
      const Flit f = e.item;
      const std::uint64_t arrival = e.ready;
      more = l->pop_flit_next_ready(c);
      // Packets are only ever dropped after a drop_epoch increment: with none
      // in the run yet, no flit can belong to a dropped packet.
      if (m_ctx.drop_epoch != 0 && m_ctx.packets[f.packet].dropped) {
        ip.return_credit(f.vc, f.lane, c, m_ctx.params.lat_credit);
        continue;
      }
      int q = f.vc;
      if (!kPlain && m_lanes > 1) {  // VOQ: a head takes a free queue of its VC, the rest follow it
        q = f.vc * m_lanes;
        if (f.head) {
          int lane = 0;
          while (lane < m_lanes &&
                 !(ip.queues[q + lane].fifo.empty() && ip.queues[q + lane].state == InputVc::State::kIdle))
            ++lane;
          if (lane == m_lanes) throw_buffer_overflow(ip, f.vc, c);
          ip.rx_lane[f.vc] = lane;
          ip.record_arrival(f.vc, q + lane);
        }
        q += ip.rx_lane[f.vc];
      }
      InputVc& iv = ip.queues[q];
      if (ip.vc_flits[f.vc] >= depth) throw_buffer_overflow(ip, f.vc, c);
      iv.fifo.push(arrival, f);
      if (iv.state == InputVc::State::kIdle) {  // else active_to_idle marks it when idle
        ip.route_pending.set<kPlain>(q);
        m_route_ports |= 1ULL << __builtin_ctzll(m);
      }
      ++ip.vc_flits[f.vc];
      ++m_buffered;
    }
  }
}

int RouterDatapath::credits_needed(const OutputUnit& op, const RouteCandidate& cand, int len, bool from_node) const {
  if (op.ejection) return 0;
  if (!m_ctx.params.vct) return m_ctx.params.vc_realloc == VcRealloc::kNonAtomic ? 0 : m_ctx.params.buffer_flits;
  const bool bubble = cand.enters_ring || (from_node && adaptive_bubble(m_ctx.params.injection));
  return bubble ? 2 * m_ctx.max_packet_flits : len;
}

void RouterDatapath::park_head(int p, int v, int len, bool from_node) {
  const InputVc& iv = m_in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(v)];
  const std::uint64_t key = 1ULL << (p * m_nq + v);
  // The head could take VC ov of a candidate's port once ov is not
  // allocated and has the credits it needs through that candidate (as
  // request_vc decides); each such VC keeps its watchers and the least
  // credits any of them needs.
  for (int ci = 0; ci < iv.route.size; ++ci) {
    const RouteCandidate& cand = iv.route.items[static_cast<std::size_t>(ci)];
    OutputUnit& op = *m_out[static_cast<std::size_t>(cand.port)];
    const std::uint32_t vcs = (op.ejection ? m_ejection_vcs : cand.vc_mask) & op.vc_bits;
    op.watched_vcs |= vcs;
    m_watched_ports |= 1ULL << cand.port;
    const int need = credits_needed(op, cand, len, from_node);
    for (std::uint32_t mask = vcs; mask != 0; mask &= mask - 1) {
      OutputVc& ov = op.vcs[static_cast<std::size_t>(__builtin_ctz(mask))];
      ov.watchers |= key;
      if (need < ov.wake_credits) ov.wake_credits = need;
    }
  }
  InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
  ip.waiting_va.reset<true>(v);  // (parking: one queue per VC)
  if (!ip.waiting_va.any<true>()) m_va_ports &= ~(1ULL << p);
  m_parked |= key;
  m_parked_epoch = m_route.epoch();
}

void RouterDatapath::wake_watchers(int o, int v) {
  OutputUnit& op = *m_out[static_cast<std::size_t>(o)];
  OutputVc& ov = op.vcs[static_cast<std::size_t>(v)];
  std::uint64_t keys = ov.watchers & m_parked;
  ov.watchers = 0;  // every parked head watching it is woken (the others are stale)
  ov.wake_credits = INT_MAX;
  if ((op.watched_vcs &= ~(1U << v)) == 0) m_watched_ports &= ~(1ULL << o);
  m_parked &= ~keys;
  for (; keys != 0; keys &= keys - 1) {
    const int key = __builtin_ctzll(keys);
    const int p = key / m_nq;
    m_in[static_cast<std::size_t>(p)]->waiting_va.set<true>(key - p * m_nq);  // (parking: one queue per VC)
    m_va_ports |= 1ULL << p;
  }
}

__attribute__((always_inline)) inline void RouterDatapath::wake_parked_heads() {
  if (m_parked_epoch != m_route.epoch()) {  // every parked head re-computes its route
    for (std::uint64_t ports = m_watched_ports; ports != 0; ports &= ports - 1) {
      const int o = __builtin_ctzll(ports);
      for (std::uint32_t mask = m_out[static_cast<std::size_t>(o)]->watched_vcs; mask != 0; mask &= mask - 1)
        wake_watchers(o, __builtin_ctz(mask));
    }
    m_parked = 0;  // (none is left: each parked head watches a VC)
    return;
  }
  // Every watched output (one or two per parked head): its watched VCs
  // that are not allocated and have the credits one of their watchers
  // needs. (Keeping a set of the outputs whose VCs changed since the last
  // check cost more on the per-flit path than the outputs it spared.)
  for (std::uint64_t ports = m_watched_ports; ports != 0; ports &= ports - 1) {
    const int o = __builtin_ctzll(ports);
    const OutputUnit& op = *m_out[static_cast<std::size_t>(o)];
    // A parked head's evaluation can succeed only through a VC it watches
    // that is not allocated and has its credits (and on a live port: a
    // port coming alive or dying changes the route epoch).
    for (std::uint32_t mask = op.watched_vcs & op.unallocated; mask != 0; mask &= mask - 1) {
      const int v = __builtin_ctz(mask);
      const OutputVc& ov = op.vcs[static_cast<std::size_t>(v)];
      if (ov.credits >= ov.wake_credits) wake_watchers(o, v);
    }
  }
}

void RouterDatapath::clear_parked() {
  m_parked = 0;
  for (std::uint64_t ports = m_watched_ports; ports != 0; ports &= ports - 1) {
    OutputUnit& op = *m_out[static_cast<std::size_t>(__builtin_ctzll(ports))];
    for (OutputVc& ov : op.vcs) {
      ov.watchers = 0;
      ov.wake_credits = INT_MAX;
    }
    op.watched_vcs = 0;
  }
  m_watched_ports = 0;
}

template <bool kPlain>
__attribute__((always_inline)) inline bool RouterDatapath::compute_route_inline(int p, int q, std::uint32_t packet) {
  InputVc& iv = m_in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(q)];
  const bool routed = m_route.compute<kPlain>(
      m_ctx,
      RouteUnitInput{m_id, p, kPlain ? q : q / m_lanes, m_out[static_cast<std::size_t>(p)]->ejection,
                     m_ctx.packets[packet].header, m_last_tick},
      iv);
  // router.voq: per_output: the packet sits in the queue of the output the
  // upstream router chose by look-ahead, and leaves through it (all of the
  // route's candidates there). Should that output have left the route since
  // (a fault detected in between), the packet takes the route as it is; its
  // credits still return to the queue it occupies.
  if (!kPlain && routed && m_per_output && !iv.fifo.empty()) {
    const int lane = iv.fifo.front().item.lane;
    if (lane >= 0 && (iv.route_ports >> lane & 1U) != 0) {
      int kept = 0;
      for (int i = 0; i < iv.route.size; ++i)
        if (iv.route.items[static_cast<std::size_t>(i)].port == lane)
          iv.route.items[static_cast<std::size_t>(kept++)] = iv.route.items[static_cast<std::size_t>(i)];
      iv.route.size = kept;
      iv.route_ports = 1ULL << lane;
    }
  }
  return routed;
}

bool RouterDatapath::compute_route(int p, int q, std::uint32_t packet) {
  return compute_route_inline<false>(p, q, packet);
}

template <bool kPlain>
__attribute__((always_inline)) inline void Router::route_computation(std::uint64_t c) {
  const int radix = static_cast<int>(m_in.size());
  const bool check_drops = m_seen_drop_epoch != m_ctx.drop_epoch;
  m_seen_drop_epoch = m_ctx.drop_epoch;
  const int nq = m_nq;
  if (!check_drops) {
    // Only idle queues with flits need a route: those are marked, on the
    // ports marked. route_queue may mark a queue again (set_state) only on
    // the port it works on, after its bit was visited and before the reset.
    for (std::uint64_t ports = m_route_ports; ports != 0; ports &= ports - 1) {
      const int p = __builtin_ctzll(ports);
      InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
      ip.route_pending.visit<kPlain>(0, nq, [&](int v) {
        route_queue<kPlain>(p, v, c);
        ip.route_pending.reset<kPlain>(v);
        return false;
      });
      if (!ip.route_pending.any<kPlain>()) m_route_ports &= ~(1ULL << p);
    }
    return;
  }
  for (int p = 0; p < radix; ++p) {
    InputUnit& ip = *m_in[static_cast<std::size_t>(p)];
    InputVc* const queues = ip.queues.data();
    for (int v = 0; v < nq; ++v) {
      InputVc& iv = queues[v];
      if (iv.state != InputVc::State::kIdle && m_ctx.packets[iv.packet].dropped) {
        if (iv.state == InputVc::State::kActive) {
          m_out[iv.out_port]->set_allocated(iv.out_vc, false);
          if (m_sa.tracks_sending()) m_sa.stop_sending(p, v, iv.out_port);
        }
        if (iv.state == InputVc::State::kVcAlloc) {
          --m_waiting_va;
          forget_parked(p, v);
        }
        set_state(p, v, InputVc::State::kIdle);
      }
      route_queue<kPlain>(p, v, c);
    }
    ip.route_pending.clear();  // no idle queue with flits is left
  }
  m_route_ports = 0;
}

template <bool kPlain>
void Router::route_queue(int p, int v, std::uint64_t c) {
  InputVc& iv = m_in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(v)];
  while (iv.state == InputVc::State::kIdle && !iv.fifo.empty()) {
    const Flit f = iv.fifo.front().item;
    if (m_ctx.packets[f.packet].dropped) {
      discard_front(p, v, c);
      continue;
    }
    if (!f.head)
      throw std::logic_error(fmt::format("{} input {} vc {} cycle {}: body flit of live packet {} at an idle VC",
                                         name(), m_ctx.topology->port_name(m_id, p), v, c, f.packet));
    if (m_ctx.packets[f.packet].control) {  // a mechanism's control packet: consumed here once whole
      const int len = m_ctx.packets[f.packet].length;
      if (static_cast<int>(iv.fifo.size()) < len) break;  // the rest is on its way
      for (int i = 0; i < len; ++i) discard_front(p, v, c);
      if (m_mechanism) m_mechanism->on_control_packet(f.packet, p, c);
      m_ctx.packets.release(f.packet);
      continue;
    }
    if (!compute_route_inline<kPlain>(p, v, f.packet)) {
      m_ctx.drop(f.packet, iv.route.discarded ? DropReason::kRerouteDiscard : DropReason::kNoRoute);
      discard_front(p, v, c);
      continue;
    }
    idle_to_vc_alloc<kPlain>(p, v);
    ++m_waiting_va;
    iv.packet = f.packet;
    iv.ready = c + m_ctx.params.lat_rc;
  }
}

void Router::trace(sc_core::sc_trace_file* tf) const {
  for (std::size_t p = 0; p < m_in.size(); ++p) {
    const OutputUnit& op = *m_out[p];
    if (!op.connected) continue;
    const std::string ib = m_in[p]->name();
    for (int q = 0; q < m_nq; ++q) {
      const std::string vb = fmt::format("{}.{}", ib, queue_name(q));
      sc_core::sc_trace(tf, m_in[p]->queues[q].fifo.count(), vb + ".occupancy");  // flits in the FIFO
      sc_core::sc_trace(tf, reinterpret_cast<const unsigned char&>(m_in[p]->queues[q].state), vb + ".state");
    }
    const std::string ob = op.name();
    for (std::size_t v = 0; v < op.vcs.size(); ++v) {
      sc_core::sc_trace(tf, op.vcs[v].credits, fmt::format("{}.vc{}.credits", ob, v));
      sc_core::sc_trace(tf, op.vcs[v].allocated, fmt::format("{}.vc{}.allocated", ob, v));
    }
    sc_core::sc_trace(tf, op.grant, ob + ".grant");
    sc_trace(tf, op.last_flit, ob + ".flit");
    if (const LinkDirection* l = op.link) {
      sc_core::sc_trace(tf, l->bundle.data, ob + ".data");
      sc_core::sc_trace(tf, l->bundle.req0, ob + ".req0");
      sc_core::sc_trace(tf, l->bundle.req1, ob + ".req1");
      sc_core::sc_trace(tf, l->bundle.stop, ob + ".stop");
      sc_core::sc_trace(tf, l->alive, ob + ".alive");
    }
  }
  if (m_mechanism) m_mechanism->trace(tf, name());
}

}  // namespace ftsim::hw
