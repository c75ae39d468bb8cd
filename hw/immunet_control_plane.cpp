#include "hw/immunet_control_plane.hpp"

#include <algorithm>

#include "hw/network_interface.hpp"
#include "hw/router.hpp"
#include "tables/immunet_tables.hpp"

namespace ftsim::hw {

using routing::KAryNCube;

namespace {
EmergencyParams logic_params(const routing::KAryNCube& t, const ImmunetParams& p) {
  EmergencyParams e;
  e.ports = 2 * t.dimensions();
  e.epl_bits = p.epl_bits;
  int idb = 1;
  while ((1L << idb) < t.num_routers()) ++idb;
  e.id_bits = idb;
  e.handle_cycles = p.handle_cycles;
  e.ack_window = p.ack_window;
  return e;
}
}  // namespace

ImmunetControlPlane::ImmunetControlPlane(sc_core::sc_module_name name, NetworkContext& ctx,
                                         const routing::KAryNCube& topo, std::vector<Router*> routers,
                                         std::vector<NetworkInterface*> interfaces,
                                         std::vector<LinkDirection*> in_links, std::vector<LinkDirection*> out_links,
                                         const ImmunetParams& params)
    : sc_module(name),
      m_ctx(ctx),
      m_topo(topo),
      m_routers(std::move(routers)),
      m_nis(std::move(interfaces)),
      m_in_links(std::move(in_links)),
      m_out_links(std::move(out_links)),
      m_params(params) {
  const EmergencyParams ep = logic_params(topo, params);
  const int n = topo.num_routers();
  const int radix = topo.max_radix();
  const auto ss = tables::fault_free_ss_table(topo);
  double dist_sum = 0;
  m_nodes.reserve(static_cast<std::size_t>(n));  // routers keep pointers to the views
  for (int r = 0; r < n; ++r) {
    m_nodes.emplace_back(ep);
    Node& nd = m_nodes.back();
    nd.out.assign(ep.ports, EmergencyWires{});
    nd.port_enable = (1u << ep.ports) - 1u;
    const auto s = tables::fault_free_safe_table(topo, r);
    const auto a = tables::fault_free_adaptive_table(topo, r);
    nd.safe.resize(n);
    nd.adaptive.resize(n);
    nd.dist.resize(n);
    for (int d = 0; d < n; ++d) {
      nd.safe[d] = s.mask(d);
      nd.adaptive[d] = a.mask(d);
      nd.dist[d] = a.distance(d);
      dist_sum += a.distance(d);
    }
    nd.ss_next.assign(radix, -1);
    for (int p = 1; p < radix; ++p) {
      const int o = ss.next(tables::ss_index(p));
      nd.ss_next[p] = static_cast<std::int8_t>(o < 0 ? -1 : tables::ss_port(o));
    }
    nd.view.single_ring = false;
    publish(r);
    m_routers[r]->set_immunet_view(&m_nodes[r].view);
  }
  m_mean_before = dist_sum / (static_cast<double>(n) * (n - 1));
  if (params.boot_tree_ring) {
    // The tables a completed reconfiguration would leave with no fault: the
    // BFS tree from router 0, its tour, and optimised safe tables (towards
    // the child whose subtree holds the destination, else the parent).
    const auto tree = tables::emergency_tree(topo, {}, 0);
    for (int r = 0; r < n; ++r) {
      Node& nd = m_nodes[r];
      const auto tss = tables::tour_ss_table(topo, tree, r);
      for (int p = 1; p < radix; ++p) {
        const int o = tss.next(tables::ss_index(p));
        nd.ss_next[p] = static_cast<std::int8_t>(o < 0 ? -1 : tables::ss_port(o));
      }
      const std::uint64_t up =
          tree.parent_port[r] >= 0 ? (1ULL << tree.parent_port[r]) : (1ULL << tree.children[r].front());
      for (int d = 0; d < n; ++d) nd.safe[d] = up;
      nd.safe[r] = 1ULL << KAryNCube::kLocalPort;
      nd.view.single_ring = true;
    }
    for (int d = 0; d < n; ++d)  // walk up from every destination, marking the port below
      for (int x = d; tree.parent_port[x] >= 0;) {
        const routing::PortPeer& pp = topo.peer(x, tree.parent_port[x]);
        m_nodes[pp.id].safe[d] = 1ULL << pp.port;
        x = pp.id;
      }
  }
  m_idle.assign(ep.ports, EmergencyWires{});
  m_inputs.in.assign(ep.ports, EmergencyWires{});
  m_inputs.normal = m_idle;
  SC_METHOD(tick);
  sensitive << m_wake;
  dont_initialize();
}

void ImmunetControlPlane::publish(int r) {
  Node& nd = m_nodes[r];
  nd.view.safe = nd.safe.data();
  nd.view.adaptive = nd.adaptive.data();
  nd.view.ss_next = nd.ss_next.data();
  nd.view.distance = nd.dist.data();
  nd.view.lost_distance = static_cast<std::int32_t>(m_topo.num_nodes());
}

std::uint64_t ImmunetControlPlane::now() const {
  return sc_core::sc_time_stamp().value() / m_ctx.period_ticks;
}

bool ImmunetControlPlane::busy() const {
  return m_active;
}

void ImmunetControlPlane::detect(routing::RouterId r, routing::PortId p, std::uint64_t fail_cycle) {
  Node& nd = m_nodes[r];
  if (nd.dead) return;
  nd.port_enable &= ~(1u << (p - 1));
  nd.detect_pending = true;
  if (!m_report.happened || fail_cycle < m_report.first_fault_cycle) m_report.first_fault_cycle = fail_cycle;
  if (!m_report.happened) m_report.first_detect_cycle = now();
  m_report.happened = true;
  if (!m_active) {
    m_active = true;
    // The control plane runs in the second half of each cycle, after the
    // routers (which reset their traced wires at the rising edge).
    m_wake.notify(sc_core::sc_time::from_value(m_ctx.period_ticks / 2));
  }
}

void ImmunetControlPlane::router_failed(routing::RouterId r) {
  Node& nd = m_nodes[r];
  if (!nd.dead && nd.view.emergency) --m_in_emergency;
  nd.dead = true;
  for (int p = 1; p < m_topo.max_radix(); ++p)
    if (LinkDirection* l = m_in_links[static_cast<std::size_t>(r) * m_topo.max_radix() + p]) l->bundle.stop = false;
}

void ImmunetControlPlane::tick() {
  const std::uint64_t c = now();
  const int n = static_cast<int>(m_nodes.size());
  const int ports = 2 * m_topo.dimensions();
  // Phase 1: every live node drives its wires from its current state.
  for (int r = 0; r < n; ++r) {
    Node& nd = m_nodes[r];
    if (nd.dead) continue;
    nd.out = nd.logic.outputs(m_idle, nd.port_enable).out;
    for (int i = 0; i < ports; ++i) {
      const EmergencyWires& w = nd.out[i];
      if (!(w.req0 && w.req1)) continue;
      if (LinkDirection* l = m_out_links[static_cast<std::size_t>(r) * m_topo.max_radix() + i + 1]) {
        l->bundle.req0 = l->bundle.req1 = true;
        l->bundle.data = w.data;
      }
    }
  }
  // Phase 2: every live node samples its neighbours' wires at the clock edge.
  for (int r = 0; r < n; ++r) {
    Node& nd = m_nodes[r];
    if (nd.dead) continue;
    for (int i = 0; i < ports; ++i) {
      const routing::PortPeer& pp = m_topo.peer(r, i + 1);
      const bool up = (nd.port_enable >> i & 1u) && pp.kind == routing::PortPeer::Kind::kRouter && !m_nodes[pp.id].dead;
      m_inputs.in[i] = up ? m_nodes[pp.id].out[pp.port - 1] : EmergencyWires{};
    }
    m_inputs.port_enable = nd.port_enable;
    m_inputs.fault_detect = nd.detect_pending;
    m_inputs.node_id = static_cast<std::uint32_t>(r);
    nd.detect_pending = false;
    const EmergencyState before = nd.logic.state();
    nd.logic.step(m_inputs);
    const EmergencyState& after = nd.logic.state();
    if (after.emergency && (!before.emergency || after.epl != before.epl || !before.valid)) on_adopt(r);
    if (after.done && !before.done) on_done(r);
    // STOP on every input channel of r while in the emergency state.
    for (int p = 1; p <= ports; ++p)
      if (LinkDirection* l = m_in_links[static_cast<std::size_t>(r) * m_topo.max_radix() + p])
        l->bundle.stop = after.emergency;
  }
  // Control packets of the table updates.
  if (m_link_pending > 0) collect_link_sends();
  while (!m_messages.empty() && m_messages.top().when <= c) {
    const Message m = m_messages.top().m;
    m_messages.pop();
    deliver(m, c);
  }
  const bool was_active = m_active;
  m_active = m_in_emergency > 0 || !m_messages.empty() || m_link_pending > 0;
  for (int r = 0; r < n && !m_active; ++r) {
    const auto& s = m_nodes[r].logic.state();
    m_active = !m_nodes[r].dead &&
               (s.handle_count > 0 || s.window_count > 0 || s.ack_now || s.propagate_now || m_nodes[r].detect_pending);
  }
  if (was_active && !m_active) {
    // The reconfiguration is over: the tables are final, lost nodes are known.
    for (int r = 0; r < n; ++r) {
      if (m_nodes[r].dead || m_nodes[r].view.tables_complete) continue;
      m_nodes[r].view.tables_complete = true;
      ++m_nodes[r].view.epoch;
      m_routers[r]->wake();
    }
  }
  if (m_active) {
    // Sleep through stretches with only control packets in flight.
    const bool only_messages = m_in_emergency == 0 && m_link_pending == 0 && !m_messages.empty();
    bool logic_idle = true;
    for (int r = 0; r < n && logic_idle; ++r) {
      const auto& s = m_nodes[r].logic.state();
      logic_idle = m_nodes[r].dead || !(s.handle_count > 0 || s.window_count > 0 || s.ack_now || s.propagate_now);
    }
    const std::uint64_t gap = (only_messages && logic_idle) ? m_messages.top().when - c : 1;
    next_trigger(sc_core::sc_time::from_value(m_ctx.period_ticks) * static_cast<double>(gap));
  }
}

void ImmunetControlPlane::on_adopt(int r) {
  Node& nd = m_nodes[r];
  ++m_report.emergencies;
  if (nd.view.emergency == false) ++m_in_emergency;
  nd.view.emergency = true;
  m_nis[r]->set_injection_stopped(true);
  // The distance-vector rebuild starts with every distance at N (section
  // 4.3). The port masks are cleared too: keeping the old masks until a
  // control packet overwrites them mixes old and new minimal directions, and
  // two routers can then send a packet back and forth on adaptive VCs (we
  // measured the network collapsing that way); with cleared masks, packets for
  // destinations not yet rebuilt take the safe ring.
  const int n = static_cast<int>(m_nodes.size());
  for (int d = 0; d < n; ++d) {
    nd.adaptive[d] = 0;
    nd.dist[d] = n;
  }
  nd.adaptive[r] = 1ULL << KAryNCube::kLocalPort;
  nd.dist[r] = 0;
  nd.view.tables_complete = false;
  ++nd.view.epoch;
}

void ImmunetControlPlane::on_done(int r) {
  Node& nd = m_nodes[r];
  const EmergencyState& s = nd.logic.state();
  const int radix = m_topo.max_radix();
  const int ports = 2 * m_topo.dimensions();
  // SS table: the tour of the tree through this node (Figure 5).
  std::vector<routing::PortId> cyc;
  if (!s.root) cyc.push_back(s.parent + 1);
  for (int i = 0; i < ports; ++i)
    if (s.children >> i & 1u) cyc.push_back(i + 1);
  nd.ss_next.assign(radix, -1);
  for (std::size_t i = 0; i < cyc.size(); ++i) nd.ss_next[cyc[i]] = static_cast<std::int8_t>(cyc[(i + 1) % cyc.size()]);
  // Provisional safe table (section 4.2): every packet entering the ring goes
  // towards the parent (the root: its first child).
  const int n = static_cast<int>(m_nodes.size());
  const std::uint64_t towards = cyc.empty() ? 1ULL : (1ULL << cyc.front());
  for (int d = 0; d < n; ++d) nd.safe[d] = towards;
  nd.safe[r] = 1ULL << KAryNCube::kLocalPort;
  nd.view.single_ring = true;
  nd.view.emergency = false;
  ++nd.view.epoch;
  --m_in_emergency;
  m_nis[r]->set_injection_stopped(false);
  // Table Update Module: drain the head packet of a safe queue that has no
  // room for a bubble, so the new ring cannot start deadlocked.
  for (int p = 0; p <= ports; ++p) {
    std::uint32_t id = 0;
    if (m_routers[r]->drain_safe_head(p, 2 * m_ctx.max_packet_flits, &id)) {
      m_nis[r]->requeue_front(id);
      ++m_report.drained_packets;
    }
  }
  m_routers[r]->wake();
  const std::uint64_t c = now();
  m_report.emergency_end_cycle = c;
  m_report.last_table_update_cycle = c;
  m_report.final_epl = s.epl;
  if (s.root) m_report.root = r;
  // Optimised safe table: one control packet per node, up to the root.
  if (!s.root) send(Message{true, r, s.epl, 0, r, s.parent + 1}, c);
  // Adaptive tables: distance vector, one packet to every live neighbour.
  for (int i = 0; i < ports; ++i)
    if (nd.port_enable >> i & 1u) send(Message{false, r, s.epl, 0, r, i + 1}, c);
}

void ImmunetControlPlane::send(const Message& m, std::uint64_t now) {
  // m.to / m.port name the sender and its output port; convert to the receiver.
  const routing::PortPeer& pp = m_topo.peer(m.to, m.port);
  if (pp.kind != routing::PortPeer::Kind::kRouter || m_nodes[pp.id].dead) return;
  Message out = m;
  out.to = pp.id;
  out.port = pp.port;
  // Hops: every link transmission. Packets emitted: a safe-table packet is
  // created once by its origin and forwarded hop by hop up to the root (one
  // packet, depth hops); a distance-vector packet is consumed by the
  // neighbour that receives it, which emits new ones (one packet, one hop).
  (m.safe ? m_report.safe_control_hops : m_report.adaptive_control_hops)++;
  if (!m.safe)
    ++m_report.adaptive_control_packets;
  else if (m.to == m.origin)
    ++m_report.safe_control_packets;
  const int flits = m_params.control_packet_flits;
  if (flits <= 0) {
    m_messages.push(Timed{now + static_cast<std::uint64_t>(m_params.control_packet_cycles), m_seq++, out});
  } else {
    std::uint32_t token;
    if (m_free_tokens.empty()) {
      token = static_cast<std::uint32_t>(m_on_link.size());
      m_on_link.push_back({});
    } else {
      token = m_free_tokens.back();
      m_free_tokens.pop_back();
    }
    m_on_link[token] = OnLink{out, now, m_seq++};
    ++m_link_pending;
    m_routers[m.to]->queue_control(m.port, flits, token, now);
  }
  if (!m_active) {
    m_active = true;
    m_wake.notify(sc_core::sc_time::from_value(m_ctx.period_ticks / 2));
  }
}

void ImmunetControlPlane::collect_link_sends() {
  // A hop whose last flit left at cycle s is handled by the receiver at
  // s + control_packet_cycles - flits: at zero load (s = send + flits) that
  // is exactly control_packet_cycles after the send, so the link only adds
  // the cycles the flits waited for it.
  const auto flits = static_cast<std::uint64_t>(m_params.control_packet_flits);
  for (Router* r : m_routers) {
    auto& sent = r->sent_control();
    for (const auto& [token, s] : sent) {
      const OnLink& ol = m_on_link[token];
      --m_link_pending;
      m_free_tokens.push_back(token);
      if (s == Router::kControlLost) {
        ++m_report.lost_control_packets;
        continue;
      }
      const std::uint64_t wait = s - (ol.queued + flits);
      m_report.control_link_flits += flits;
      m_report.control_link_wait_cycles += wait;
      m_report.control_link_wait_max = std::max(m_report.control_link_wait_max, wait);
      m_messages.push(Timed{s + static_cast<std::uint64_t>(m_params.control_packet_cycles) - flits, ol.seq, ol.m});
    }
    sent.clear();
  }
}

void ImmunetControlPlane::deliver(const Message& m, std::uint64_t now) {
  Node& nd = m_nodes[m.to];
  if (nd.dead) return;
  const EmergencyState& s = nd.logic.state();
  if (!s.valid || s.epl != m.epl) {  // a newer emergency is in progress: discard
    ++m_report.stale_control_packets;
    return;
  }
  if (m.safe) {
    nd.safe[m.origin] = 1ULL << m.port;  // the descendant is below this port
    ++nd.view.epoch;
    m_report.last_table_update_cycle = now;
    if (!s.root) send(Message{true, m.origin, m.epl, 0, m.to, s.parent + 1}, now);
    return;
  }
  // Section 4.3, with one change to what is retransmitted: a longer distance
  // is discarded; a shorter one replaces the entry (only the arrival port's
  // column set) and is retransmitted on every other live port; an equal one
  // only sets the arrival port's column and is not retransmitted. Every
  // minimal port still ends in the mask: a node's final distance D is set by
  // a strict improvement, and each minimal neighbour's own last strict
  // improvement (to D-1) is retransmitted to it, arriving after that or tying
  // it. Retransmitting ties (the literal reading) sends one packet per
  // minimal path, which grows much faster than N^2; this sends about
  // (degree - 1) N^2, which is what section 6.1 reports ("grows as
  // n-squared").
  const int d = m.dist + 1;
  if (d > nd.dist[m.origin]) return;
  const bool improved = d < nd.dist[m.origin];
  if (improved) {
    nd.dist[m.origin] = d;
    nd.adaptive[m.origin] = 1ULL << m.port;
  } else {
    nd.adaptive[m.origin] |= 1ULL << m.port;
  }
  m_report.last_table_update_cycle = now;
  ++nd.view.epoch;
  m_routers[m.to]->wake();
  if (!improved) return;
  const int ports = 2 * m_topo.dimensions();
  for (int i = 0; i < ports; ++i)
    if ((nd.port_enable >> i & 1u) && i + 1 != m.port) send(Message{false, m.origin, m.epl, d, m.to, i + 1}, now);
}

void ImmunetControlPlane::trace(sc_core::sc_trace_file* tf, const std::vector<char>& selected) const {
  for (std::size_t r = 0; r < m_nodes.size(); ++r) {
    if (!selected.empty() && !selected[r]) continue;
    const std::string b = std::string(m_routers[r]->name()) + ".rm.";
    const EmergencyState& s = m_nodes[r].logic.state();
    sc_core::sc_trace(tf, s.epl, b + "epl");
    sc_core::sc_trace(tf, s.valid, b + "valid");
    sc_core::sc_trace(tf, s.root, b + "root");
    sc_core::sc_trace(tf, s.parent, b + "parent");
    sc_core::sc_trace(tf, s.children, b + "children");
    sc_core::sc_trace(tf, s.emergency, b + "emergency");
    sc_core::sc_trace(tf, s.done, b + "done");
  }
}

long ImmunetControlPlane::safe_table_bits() const {
  return static_cast<long>(m_topo.num_nodes()) * m_topo.max_radix();
}

long ImmunetControlPlane::adaptive_table_bits() const {
  int w = 0;
  while ((1L << w) < m_topo.num_nodes() + 1L) ++w;
  return static_cast<long>(m_topo.num_nodes()) * (m_topo.max_radix() + w);
}

long ImmunetControlPlane::ss_table_bits() const {
  const long p = 2L * m_topo.dimensions();
  return p * p;
}

void ImmunetControlPlane::finalize() {
  m_report.mean_distance_before = m_mean_before;
  m_report.complete = !m_active;
  const int n = static_cast<int>(m_nodes.size());
  double sum = 0;
  double pairs = 0;
  for (int r = 0; r < n; ++r) {
    if (m_nodes[r].dead) continue;
    for (int d = 0; d < n; ++d)
      if (d != r && m_nodes[d].dead == false && m_nodes[r].dist[d] < n) {
        sum += m_nodes[r].dist[d];
        pairs += 1;
      }
  }
  m_report.mean_distance_after = pairs > 0 ? sum / pairs : 0.0;
  m_report.lost_nodes.clear();
  const int ref = m_report.root >= 0 ? m_report.root : 0;
  if (m_report.complete) {
    for (int d = 0; d < n; ++d)
      if (m_nodes[ref].dist[d] >= n) m_report.lost_nodes.push_back(d);
    return;
  }
  // The run ended during a reconfiguration: the distance tables are still
  // being rebuilt, so they would list healthy nodes. Use what the routers'
  // detectors know instead: the nodes the root cannot reach over enabled
  // ports of live routers.
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<int> stack;
  if (!m_nodes[ref].dead) {
    stack.push_back(ref);
    seen[static_cast<std::size_t>(ref)] = 1;
  }
  const int ports = 2 * m_topo.dimensions();
  while (!stack.empty()) {
    const int r = stack.back();
    stack.pop_back();
    for (int i = 0; i < ports; ++i) {
      if (!(m_nodes[r].port_enable >> i & 1u)) continue;
      const routing::PortPeer& pp = m_topo.peer(r, i + 1);
      if (pp.kind != routing::PortPeer::Kind::kRouter || m_nodes[pp.id].dead || seen[pp.id]) continue;
      seen[pp.id] = 1;
      stack.push_back(pp.id);
    }
  }
  for (int d = 0; d < n; ++d)
    if (!seen[static_cast<std::size_t>(d)]) m_report.lost_nodes.push_back(d);
}

}  // namespace ftsim::hw
