#include "hw/router.hpp"

#include <fmt/format.h>

#include <climits>

#include "hw/network_interface.hpp"

namespace ftsim::hw {

using routing::RouteCandidate;

namespace {
constexpr int kInfiniteCredits = INT_MAX / 4;
}

void sc_trace(sc_core::sc_trace_file* tf, const Flit& f, const std::string& name) {
  sc_core::sc_trace(tf, f.packet, name + ".packet");
  sc_core::sc_trace(tf, f.seq, name + ".seq");
  sc_core::sc_trace(tf, f.vc, name + ".vc");
  sc_core::sc_trace(tf, f.head, name + ".head");
  sc_core::sc_trace(tf, f.tail, name + ".tail");
  sc_core::sc_trace(tf, f.valid, name + ".valid");
}

void sc_trace(sc_core::sc_trace_file* tf, const TracedFlit& f, const std::string& name) {
  sc_trace(tf, f.flit, name);
  sc_core::sc_trace(tf, f.src, name + ".src");
  sc_core::sc_trace(tf, f.dst, name + ".dst");
  sc_core::sc_trace(tf, f.kind, name + ".kind");
}

Router::Router(sc_core::sc_module_name name, routing::RouterId id, int radix, NetworkContext& ctx)
    : sc_module(name), clk("clk"), m_id(id), m_ctx(ctx), m_in(radix), m_out(radix) {
  const int vcs = ctx.params.vcs;
  // VOQ: a resident packet holds at least one flit, so B queues per VC suffice.
  m_lanes = ctx.params.queues == QueueOrganisation::kVoq ? ctx.params.buffer_flits : 1;
  m_nq = vcs * m_lanes;
  m_ejection_vcs = (1U << ctx.params.ejection_ports) - 1U;
  m_sa_requests.reserve(static_cast<std::size_t>(radix * vcs));
  for (int p = 0; p < radix; ++p) {
    m_in[p].vcs.resize(static_cast<std::size_t>(m_nq));
    m_in[p].rx_lane.assign(static_cast<std::size_t>(vcs), 0);
    m_out[p].vcs.resize(vcs);
    m_out[p].rr_va.assign(vcs, 0);
    for (auto& ov : m_out[p].vcs) ov.credits = ctx.params.buffer_flits;
  }
  SC_METHOD(tick);
  sensitive << clk.pos();
  dont_initialize();
}

void Router::bind_port(int p, LinkDirection* in, LinkDirection* out, bool ejection) {
  m_in[p].link = in;
  const auto& prm = m_ctx.params;
  m_in[p].crossbar_inputs = prm.crossbar == CrossbarKind::kPerVc ? prm.vcs : (ejection ? prm.injection_ports : 1);
  m_out[p].link = out;
  m_out[p].ejection = ejection;
  m_out[p].connected = true;
  if (in != nullptr) in->receiver = this;
  if (out != nullptr) out->sender = this;
  if (ejection) {
    // Each ejection port carries one packet at a time: it is modelled as an
    // output VC of the node's port with unbounded credits (the NI sinks).
    const int ports = m_ctx.params.ejection_ports;
    if (static_cast<int>(m_out[p].vcs.size()) < ports) {
      m_out[p].vcs.resize(static_cast<std::size_t>(ports));
      m_out[p].rr_va.assign(static_cast<std::size_t>(ports), 0);
    }
    for (auto& ov : m_out[p].vcs) ov.credits = kInfiniteCredits;
    m_out[p].capacity = ports;
  }
}

std::string Router::queue_name(int q) const {
  return m_lanes == 1 ? fmt::format("vc{}", q) : fmt::format("vc{}.q{}", q / m_lanes, q % m_lanes);
}

std::uint64_t Router::now() const {
  return sc_core::sc_time_stamp().value() / m_ctx.period_ticks;
}

void Router::set_port_alive(int p, bool alive) {
  const std::uint64_t before = m_port_alive;
  if (alive)
    m_port_alive |= (1ULL << p);
  else
    m_port_alive &= ~(1ULL << p);
  // Packets waiting for VC allocation re-run route computation, so a route
  // computed before a fault was detected does not wait forever on a dead port
  // (and a repaired link is used again). Immunet has its own table epoch.
  if (before != m_port_alive && m_immunet == nullptr) ++m_alive_epoch;
}

void Router::resync_credits(int p, const std::vector<int>& downstream_occupancy) {
  OutputPort& op = m_out[p];
  if (op.ejection) return;
  for (std::size_t v = 0; v < op.vcs.size(); ++v) {
    op.vcs[v].credits = m_ctx.params.buffer_flits - downstream_occupancy[v];
    op.vcs[v].allocated = false;
  }
  wake();
}

void Router::fail() {
  m_failed = true;
  for (auto& ip : m_in) {
    for (auto& iv : ip.vcs) {
      for (std::size_t i = 0; i < iv.fifo.size(); ++i)
        m_ctx.drop(iv.fifo.at(i).item.packet, DropReason::kSwitchFailure);
      iv.fifo.clear();
      iv.occupancy = 0;
      iv.state = InputVc::State::kIdle;
    }
  }
  m_buffered = 0;
  m_waiting_va = 0;
  // The links to this router's own interfaces (direct networks: not topology
  // links, so the network does not fail them) die with it: flits on them
  // belong to lost packets. Left there, a packet already ejecting stayed in
  // flight for ever, neither delivered nor dropped.
  for (std::size_t p = 0; p < m_out.size(); ++p) {
    for (LinkDirection* l : {m_in[p].link, m_out[p].link}) {
      if (l == nullptr || l->link_id >= 0) continue;
      for (std::size_t i = 0; i < l->flits.size(); ++i)
        m_ctx.drop(l->flits.at(i).item.packet, DropReason::kSwitchFailure);
      l->flits.clear();
      l->credits.clear();
    }
  }
  for (auto& op : m_out) lose_control(op);
  m_control_outputs = 0;
  for (auto* ni : m_nis) ni->fail();
  m_port_alive = 0;
}

void Router::repair() {
  m_failed = false;
  for (auto& op : m_out)
    for (auto& ov : op.vcs) {
      ov.allocated = false;
      ov.credits = op.ejection ? kInfiniteCredits : m_ctx.params.buffer_flits;
    }
  for (auto* ni : m_nis) ni->repair();
  // Ports to other routers stay down until the network detects each repaired
  // link; the ports to this router's own interfaces (direct networks: no
  // topology link, nothing to detect) come back with the router. Leaving them
  // down kept the router from ever ejecting again and wedged the network.
  m_port_alive = 0;
  for (std::size_t p = 0; p < m_out.size(); ++p)
    if (m_out[p].ejection && m_out[p].link != nullptr && m_out[p].link->link_id < 0) m_port_alive |= 1ULL << p;
  ++m_alive_epoch;
  wake();
}

bool Router::drain_safe_head(int p, int need_free, std::uint32_t* packet) {
  if (p >= static_cast<int>(m_in.size()) || m_in[p].vcs.empty()) return false;
  InputVc& iv = m_in[p].vcs[0];
  if (iv.fifo.empty() || iv.state == InputVc::State::kActive) return false;
  if (m_ctx.params.buffer_flits - static_cast<int>(iv.fifo.size()) >= need_free) return false;
  const Flit head = iv.fifo.front().item;
  if (!head.head) return false;
  std::size_t len = 0;
  while (len < iv.fifo.size() && iv.fifo.at(len).item.packet == head.packet) {
    if (iv.fifo.at(len).item.tail) break;
    ++len;
  }
  if (len == iv.fifo.size() || iv.fifo.at(len).item.packet != head.packet) return false;  // tail not here yet
  const std::uint64_t c = now();
  for (std::size_t i = 0; i <= len; ++i) discard_front(p, 0, c);
  if (iv.state == InputVc::State::kVcAlloc) --m_waiting_va;
  iv.state = InputVc::State::kIdle;
  *packet = head.packet;
  wake();
  return true;
}

void Router::queue_control(int p, int flits, std::uint32_t token, std::uint64_t now) {
  OutputPort& op = m_out[static_cast<std::size_t>(p)];
  if (m_failed || op.link == nullptr || op.link->failed) {
    m_control_sent.emplace_back(token, kControlLost);
    return;
  }
  op.control.push_back(OutputPort::Control{token, flits, now, true});
  m_control_outputs |= 1ULL << p;
  wake();
}

void Router::lose_control(OutputPort& op) {
  for (const auto& ctl : op.control) m_control_sent.emplace_back(ctl.token, kControlLost);
  op.control.clear();
}

std::uint64_t Router::control_ready(std::uint64_t now) {
  std::uint64_t ready = 0;
  for (std::uint64_t m = m_control_outputs; m != 0; m &= m - 1) {
    const int o = __builtin_ctzll(m);
    OutputPort& op = m_out[static_cast<std::size_t>(o)];
    if (op.link->failed) {
      lose_control(op);
      m_control_outputs &= ~(1ULL << o);
    } else if (op.control.front().queued < now && !op.link->bundle.stop) {
      ready |= 1ULL << o;
    }
  }
  return ready;
}

bool Router::has_work() const {
  if (m_control_outputs != 0) return true;
  if (m_buffered > 0) return true;
  for (std::size_t p = 0; p < m_in.size(); ++p) {
    if (m_in[p].link != nullptr && !m_in[p].link->flits.empty()) return true;
    const LinkDirection* out = m_out[p].link;
    if (out != nullptr && (!out->credits.empty() || (m_out[p].ejection && !out->flits.empty()))) return true;
  }
  for (const auto* ni : m_nis)
    if (ni->busy()) return true;
  return false;
}

void Router::tick() {
  if (m_failed) {
    m_sleeping = true;
    next_trigger(m_wake_event);
    return;
  }
  const std::uint64_t c = now();
  if (c == m_last_tick) return;  // woken twice in one cycle
  m_last_tick = c;
  if (m_ctx.trace_mode) {
    for (auto& op : m_out) {
      op.grant = -1;
      op.last_flit = TracedFlit{};
      if (op.link != nullptr) op.link->bundle.req0 = op.link->bundle.req1 = false;
    }
  }
  for (auto* ni : m_nis) ni->tick(c);
  receive(c);
  if (m_buffered > 0 || m_control_outputs != 0 || m_seen_drop_epoch != m_ctx.drop_epoch) {
    // Immunet: in the emergency state packets in transit stay in the local
    // buffers and are not retransmitted to the output ports (section 5).
    if (m_immunet == nullptr || !m_immunet->emergency) switch_allocation(c);
    if (m_waiting_va > 0) vc_allocation(c);
    route_computation(c);
  }
  if (!m_ctx.trace_mode && !has_work()) {
    m_sleeping = true;
    next_trigger(m_wake_event);
  }
}

void Router::send_credit(int in_port, int vc, std::uint64_t now) {
  LinkDirection* l = m_in[in_port].link;
  if (l == nullptr || l->failed) return;
  l->credits.push(now + m_ctx.params.lat_credit, static_cast<std::uint8_t>(vc));
  if (l->sender != nullptr) l->sender->wake();
}

void Router::discard_front(int p, int v, std::uint64_t now) {
  InputVc& iv = m_in[p].vcs[v];
  iv.fifo.pop();
  --iv.occupancy;
  --m_buffered;
  send_credit(p, v / m_lanes, now);
}

void Router::receive(std::uint64_t c) {
  const int depth = m_ctx.params.buffer_flits;
  for (std::size_t p = 0; p < m_out.size(); ++p) {
    LinkDirection* l = m_out[p].link;
    if (l == nullptr || m_out[p].ejection) continue;
    while (l->credits.ready(c)) {
      OutputVc& ov = m_out[p].vcs[l->credits.front().item];
      l->credits.pop();
      if (++ov.credits > depth)
        throw std::logic_error(fmt::format("credit overflow at {} output {} cycle {}: {} > {}", name(),
                                           m_ctx.topology->port_name(m_id, static_cast<int>(p)), c, ov.credits, depth));
    }
  }
  for (std::size_t p = 0; p < m_in.size(); ++p) {
    LinkDirection* l = m_in[p].link;
    if (l == nullptr) continue;
    while (l->flits.ready(c)) {
      const auto& e = l->flits.front();
      const Flit f = e.item;
      const std::uint64_t arrival = e.ready;
      l->flits.pop();
      if (m_ctx.packets[f.packet].dropped) {
        send_credit(static_cast<int>(p), f.vc, c);
        continue;
      }
      InputPort& ip = m_in[p];
      int q = f.vc;
      if (m_lanes > 1) {  // VOQ: a head takes a free queue of its VC, the rest follow it
        q = f.vc * m_lanes;
        if (f.head) {
          int l = 0;
          while (l < m_lanes && !(ip.vcs[q + l].fifo.empty() && ip.vcs[q + l].state == InputVc::State::kIdle)) ++l;
          if (l == m_lanes)
            throw std::logic_error(fmt::format("buffer overflow at {} input {} vc {} cycle {}", name(),
                                               m_ctx.topology->port_name(m_id, static_cast<int>(p)), f.vc, c));
          ip.rx_lane[f.vc] = l;
          ip.vcs[q + l].arrival = ++ip.arrivals;
        }
        q += ip.rx_lane[f.vc];
      }
      InputVc& iv = ip.vcs[q];
      if ((m_lanes == 1 ? static_cast<int>(iv.fifo.size()) : input_occupancy(static_cast<int>(p), f.vc)) >= depth)
        throw std::logic_error(fmt::format("buffer overflow at {} input {} vc {} cycle {}", name(),
                                           m_ctx.topology->port_name(m_id, static_cast<int>(p)), f.vc, c));
      iv.fifo.push(arrival, f);
      ++iv.occupancy;
      ++m_buffered;
    }
  }
}

void Router::switch_allocation(std::uint64_t c) {
  const int radix = static_cast<int>(m_in.size());
  const auto& prm = m_ctx.params;
  const bool per_vc = prm.crossbar == CrossbarKind::kPerVc;
  // Input stage: each crossbar input of port p picks one ready queue, round
  // robin from the port's pointer. Multiplexed: one crossbar input per port
  // (the node's port: injection_ports); per VC: one per input VC.
  m_sa_requests.clear();
  std::uint64_t requested_outputs = 0;
  for (int p = 0; p < radix; ++p) {
    InputPort& ip = m_in[p];
    int picked = 0;
    std::uint32_t vcs_picked = 0;
    for (int i = 0, q = ip.rr_sa; i < m_nq; ++i, q = q + 1 == m_nq ? 0 : q + 1) {
      const InputVc& iv = ip.vcs[q];
      if (iv.state != InputVc::State::kActive || iv.ready > c || iv.fifo.empty()) continue;
      if (per_vc && (vcs_picked >> (q / m_lanes) & 1U)) continue;
      const OutputPort& op = m_out[iv.out_port];
      // A failed link accepts everything (and loses it): STOP from a dead
      // receiver must not hold the sender for ever.
      const bool failed = op.link != nullptr && op.link->failed;
      if (!failed && (op.vcs[iv.out_vc].credits <= 0 || (op.link != nullptr && op.link->bundle.stop))) continue;
      m_sa_requests.push_back(SaRequest{p, q, iv.out_port});
      requested_outputs |= 1ULL << iv.out_port;
      if (++picked == ip.crossbar_inputs) break;
      vcs_picked |= 1U << (q / m_lanes);
    }
  }
  // Immunet's Table Update Module is one more requester of an output with a
  // control packet queued (key radix * queues_per_port(), last in the round robin).
  const std::uint64_t control = m_control_outputs != 0 ? control_ready(c) : 0;
  requested_outputs |= control;
  if (requested_outputs == 0) return;
  // Output stage: output o grants up to `capacity` crossbar inputs, round
  // robin over the keys port * queues_per_port() + queue.
  const int n_keys = radix * m_nq;
  for (std::uint64_t m = requested_outputs; m != 0; m &= m - 1) {
    const int o = __builtin_ctzll(m);
    OutputPort& op = m_out[o];
    const bool has_control = control >> o & 1U;
    const int modulus = has_control ? n_keys + 1 : n_keys;
    for (int grant = 0; grant < op.capacity; ++grant) {
      int win = -1;  // index into m_sa_requests, or -2 for the control packet
      int win_dist = modulus;
      if (has_control && grant == 0) {
        win = -2;
        win_dist = n_keys - op.rr_sa;
      }
      for (std::size_t i = 0; i < m_sa_requests.size(); ++i) {
        const SaRequest& r = m_sa_requests[i];
        if (r.out_port != o) continue;
        int d = r.in_port * m_nq + r.queue - op.rr_sa;
        if (d < 0) d += modulus;
        if (d < win_dist) {
          win = static_cast<int>(i);
          win_dist = d;
        }
      }
      if (win == -1) break;
      if (win == -2) {
        op.rr_sa = 0;
        op.grant = radix;
        OutputPort::Control& ctl = op.control.front();
        op.link->bundle.data = ctl.token;
        op.link->bundle.req0 = !ctl.head;  // one request line per flit, req1 on the head, as for packets
        op.link->bundle.req1 = ctl.head;
        ctl.head = false;
        if (--ctl.flits_left == 0) {
          m_control_sent.emplace_back(ctl.token, c);
          op.control.pop_front();
          if (op.control.empty()) m_control_outputs &= ~(1ULL << o);
        }
        break;  // the control packet takes the link for this cycle
      }
      const SaRequest r = m_sa_requests[static_cast<std::size_t>(win)];
      m_sa_requests[static_cast<std::size_t>(win)].out_port = -1;  // granted
      const int winner = r.in_port;
      const int q = r.queue;
      InputPort& ip = m_in[winner];
      InputVc& iv = ip.vcs[q];
      Flit f = iv.fifo.front().item;
      iv.fifo.pop();
      --iv.occupancy;
      --m_buffered;
      send_credit(winner, q / m_lanes, c);
      ip.rr_sa = (q + 1) % m_nq;
      // Multiplexed: the next search starts at the next port; per VC: at the next crossbar input.
      op.rr_sa = per_vc ? (winner * m_nq + q + 1) % n_keys : ((winner + 1) % radix) * m_nq;
      op.grant = winner;
      PacketInfo& pk = m_ctx.packets[f.packet];
      if (op.link->failed) {
        m_ctx.drop(f.packet, DropReason::kLinkFailure);
      } else {
        f.vc = static_cast<std::uint8_t>(iv.out_vc);
        if (!op.ejection) --op.vcs[iv.out_vc].credits;
        if (m_ctx.stats.in_window(c)) ++op.vcs[iv.out_vc].window_flits;
        op.link->flits.push(c + prm.lat_sa + prm.lat_st + prm.lat_link, f);
        if (op.link->receiver != nullptr) op.link->receiver->wake();
        if (f.head && !op.ejection) {
          ++pk.hops;
          m_ctx.relation->on_hop(pk.header, m_id, o, iv.out_vc);  // header state of stateful relations
        }
        op.link->bundle.data = f.packet;
        op.link->bundle.req0 = !f.head;  // exactly one request line per flit in normal operation
        op.link->bundle.req1 = f.head;
        if (m_ctx.trace_mode) {
          op.last_flit.flit = f;
          op.last_flit.flit.valid = true;
          op.last_flit.src = pk.header.src;
          op.last_flit.dst = pk.header.dst;
          op.last_flit.kind = TracedFlit::kind_of(f);
        }
        ++m_ctx.stats.flits_moved;
        m_ctx.stats.last_move_cycle = c;
      }
      if (f.tail || pk.dropped) {
        op.vcs[iv.out_vc].allocated = false;
        iv.state = InputVc::State::kIdle;
      }
    }
  }
}

bool Router::output_vc_free(const OutputPort& op, int v, const RouteCandidate& cand, int len, bool from_node) const {
  const OutputVc& ov = op.vcs[v];
  if (ov.allocated) return false;
  if (op.ejection) return true;
  if (!m_ctx.params.vct)  // wormhole: atomic allocation needs an empty VC
    return m_ctx.params.vc_realloc == VcRealloc::kNonAtomic || ov.credits == m_ctx.params.buffer_flits;
  const bool bubble = cand.enters_ring || (from_node && adaptive_bubble(m_ctx.params.injection));
  return ov.credits >= (bubble ? 2 * m_ctx.max_packet_flits : len);
}

std::uint64_t Router::older_waiting_ports(int p, int q) const {
  const int first = q / m_lanes * m_lanes;
  const std::uint32_t arrival = m_in[p].vcs[q].arrival;
  std::uint64_t ports = 0;
  for (int l = first; l < first + m_lanes; ++l) {
    const InputVc& o = m_in[p].vcs[l];
    // Unsigned difference: arrival counters may wrap.
    if (l == q || o.state != InputVc::State::kVcAlloc || static_cast<std::int32_t>(o.arrival - arrival) >= 0) continue;
    for (const RouteCandidate& cand : o.route) ports |= 1ULL << cand.port;
  }
  return ports;
}

void Router::vc_allocation(std::uint64_t c) {
  const int radix = static_cast<int>(m_in.size());
  m_va_requests.clear();
  for (int p = 0; p < radix; ++p) {
    for (int v = 0; v < m_nq; ++v) {
      InputVc& iv = m_in[p].vcs[v];
      if (iv.state != InputVc::State::kVcAlloc || iv.ready > c) continue;
      if (iv.route_epoch != route_epoch() && !compute_route(p, v, iv.packet)) {
        // purged by route_computation below
        m_ctx.drop(iv.packet, iv.route.discarded ? DropReason::kRerouteDiscard : DropReason::kNoRoute);
        continue;
      }
      const int len = m_ctx.packets[iv.packet].length;
      const bool from_node = m_out[p].ejection;
      int best_port = -1;
      int best_vc = -1;
      bool best_move = false;
      int best_score = -1;
      int best_prio = INT_MAX;
      // VOQ: packets to one output port leave in arrival order.
      const std::uint64_t blocked = m_lanes > 1 ? older_waiting_ports(p, v) : 0;
      for (const RouteCandidate& cand : iv.route) {
        if (cand.priority > best_prio || (blocked >> cand.port & 1U)) continue;
        const OutputPort& op = m_out[cand.port];
        if (!op.connected || !(m_port_alive >> cand.port & 1U)) continue;
        // The node's port: one "VC" per ejection port, whatever the relation's mask.
        const std::uint32_t mask = op.ejection ? m_ejection_vcs : cand.vc_mask;
        const int out_vcs = static_cast<int>(op.vcs.size());
        for (int ov = 0; ov < out_vcs; ++ov) {
          if (!(mask >> ov & 1U) || !output_vc_free(op, ov, cand, len, from_node)) continue;
          const int score = op.vcs[ov].credits;
          if (cand.priority < best_prio || score > best_score) {
            best_prio = cand.priority;
            best_score = score;
            best_port = cand.port;
            best_vc = ov;
            best_move = cand.counts_move;
          }
        }
      }
      if (best_port >= 0) m_va_requests.push_back(VaRequest{p, v, best_port, best_vc, best_move});
    }
  }
  // Output-VC arbitration, round robin over the requesters' (port, vc) index.
  // With transit priority (alone or with the bubble) a request from the
  // node's input port ranks after every in-transit request (distance + n).
  const int n = radix * m_nq;
  const bool transit_first = transit_priority(m_ctx.params.injection);
  auto rank = [&](const VaRequest& q, int rr) {
    const int d = ((q.in_port * m_nq + q.in_vc) - rr + n) % n;
    return transit_first && m_out[q.in_port].ejection ? d + n : d;
  };
  for (std::size_t i = 0; i < m_va_requests.size(); ++i) {
    const VaRequest& r = m_va_requests[i];
    if (r.out_port < 0) continue;
    OutputPort& op = m_out[r.out_port];
    const int rr = op.rr_va[r.out_vc];
    std::size_t win = i;
    int win_dist = rank(r, rr);
    for (std::size_t j = i + 1; j < m_va_requests.size(); ++j) {
      const VaRequest& s = m_va_requests[j];
      if (s.out_port != r.out_port || s.out_vc != r.out_vc) continue;
      const int d = rank(s, rr);
      if (d < win_dist) {
        win = j;
        win_dist = d;
      }
    }
    const VaRequest w = m_va_requests[win];
    for (std::size_t j = i; j < m_va_requests.size(); ++j)  // retire this output VC's requests
      if (m_va_requests[j].out_port == w.out_port && m_va_requests[j].out_vc == w.out_vc && j != i)
        m_va_requests[j].out_port = -1;
    InputVc& iv = m_in[w.in_port].vcs[w.in_vc];
    op.vcs[w.out_vc].allocated = true;
    op.rr_va[w.out_vc] = (w.in_port * m_nq + w.in_vc + 1) % n;
    iv.state = InputVc::State::kActive;
    if (w.counts_move) {
      auto& moves = m_ctx.packets[iv.packet].header.state[0];
      if (moves < 255) ++moves;
    }
    --m_waiting_va;
    iv.out_port = w.out_port;
    iv.out_vc = w.out_vc;
    iv.ready = c + m_ctx.params.lat_va;
  }
}

bool Router::compute_route(int p, int v, std::uint32_t packet) {
  InputVc& iv = m_in[p].vcs[v];
  routing::RouteQuery q;
  q.router = m_id;
  q.in_port = p;
  q.in_vc = v / m_lanes;
  q.injected_here = m_out[p].ejection;
  q.header = &m_ctx.packets[packet].header;
  q.view.port_alive = m_port_alive;
  q.view.immunet = m_immunet;
  q.view.reroute = &m_reroute;
  q.view.cycle = m_last_tick;
  if (!m_table.empty()) {
    q.view.forwarding = m_table.data();
    q.view.forwarding_size = m_table.size();
  }
  iv.route.clear();
  m_ctx.relation->route(q, iv.route);
  iv.route_epoch = route_epoch();
  return iv.route.size > 0;
}

void Router::route_computation(std::uint64_t c) {
  const int radix = static_cast<int>(m_in.size());
  const bool check_drops = m_seen_drop_epoch != m_ctx.drop_epoch;
  m_seen_drop_epoch = m_ctx.drop_epoch;
  for (int p = 0; p < radix; ++p) {
    for (int v = 0; v < m_nq; ++v) {
      InputVc& iv = m_in[p].vcs[v];
      if (check_drops && iv.state != InputVc::State::kIdle && m_ctx.packets[iv.packet].dropped) {
        if (iv.state == InputVc::State::kActive) m_out[iv.out_port].vcs[iv.out_vc].allocated = false;
        if (iv.state == InputVc::State::kVcAlloc) --m_waiting_va;
        iv.state = InputVc::State::kIdle;
      }
      if (iv.state != InputVc::State::kIdle || iv.fifo.empty()) continue;
      while (iv.state == InputVc::State::kIdle && !iv.fifo.empty()) {
        const Flit f = iv.fifo.front().item;
        if (m_ctx.packets[f.packet].dropped) {
          discard_front(p, v, c);
          continue;
        }
        if (!f.head)
          throw std::logic_error(fmt::format("{} input {} vc {} cycle {}: body flit of live packet {} at an idle VC",
                                             name(), m_ctx.topology->port_name(m_id, p), v, c, f.packet));
        if (!compute_route(p, v, f.packet)) {
          m_ctx.drop(f.packet, iv.route.discarded ? DropReason::kRerouteDiscard : DropReason::kNoRoute);
          discard_front(p, v, c);
          continue;
        }
        iv.state = InputVc::State::kVcAlloc;
        ++m_waiting_va;
        iv.packet = f.packet;
        iv.ready = c + m_ctx.params.lat_rc;
      }
    }
  }
}

void Router::trace(sc_core::sc_trace_file* tf) const {
  const std::string base = name();
  for (std::size_t p = 0; p < m_in.size(); ++p) {
    if (!m_out[p].connected) continue;
    const std::string pn = m_ctx.topology->port_name(m_id, static_cast<int>(p));
    for (int q = 0; q < m_nq; ++q) {
      const std::string vb = fmt::format("{}.input_{}.{}", base, pn, queue_name(q));
      sc_core::sc_trace(tf, m_in[p].vcs[q].occupancy, vb + ".occupancy");
      sc_core::sc_trace(tf, reinterpret_cast<const unsigned char&>(m_in[p].vcs[q].state), vb + ".state");
    }
    for (std::size_t v = 0; v < m_out[p].vcs.size(); ++v) {
      sc_core::sc_trace(tf, m_out[p].vcs[v].credits, fmt::format("{}.output_{}.vc{}.credits", base, pn, v));
      sc_core::sc_trace(tf, m_out[p].vcs[v].allocated, fmt::format("{}.output_{}.vc{}.allocated", base, pn, v));
    }
    const std::string ob = fmt::format("{}.output_{}", base, pn);
    sc_core::sc_trace(tf, m_out[p].grant, ob + ".grant");
    sc_trace(tf, m_out[p].last_flit, ob + ".flit");
    if (const LinkDirection* l = m_out[p].link) {
      sc_core::sc_trace(tf, l->bundle.data, ob + ".data");
      sc_core::sc_trace(tf, l->bundle.req0, ob + ".req0");
      sc_core::sc_trace(tf, l->bundle.req1, ob + ".req1");
      sc_core::sc_trace(tf, l->bundle.stop, ob + ".stop");
      sc_core::sc_trace(tf, l->alive, ob + ".alive");
    }
  }
}

}  // namespace ftsim::hw
