#include "hw/immunet/immunet_control_plane.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hw/current_cycle.hpp"
#include "hw/network_interface.hpp"
#include "hw/router.hpp"
#include "tables/immunet_tables.hpp"

namespace ftsim::hw {

using routing::KAryNCube;

ImmunetControlPlane::ImmunetControlPlane(sc_core::sc_module_name name, NetworkContext& ctx,
                                         const routing::KAryNCube& topo, std::vector<Router*> routers,
                                         std::vector<NetworkInterface*> interfaces,
                                         std::vector<LinkDirection*> in_links, std::vector<LinkDirection*> out_links,
                                         const ImmunetParams& params, ManagementBus& bus)
    : sc_module(name),
      m_ctx(ctx),
      m_topo(topo),
      m_routers(std::move(routers)),
      m_nis(std::move(interfaces)),
      m_in_links(std::move(in_links)),
      m_out_links(std::move(out_links)),
      m_params(params) {
  const EmergencyParams ep = immunet_emergency_params(topo, params);
  const int n = topo.num_routers();
  const int radix = topo.max_radix();
  const auto ss = tables::fault_free_ss_table(topo);
  auto ss_word = [](int o) { return o < 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(tables::ss_port(o)); };
  double dist_sum = 0;
  m_nodes.resize(static_cast<std::size_t>(n));
  // Boot tables through the back-door (section 2's fault-free tables).
  for (int r = 0; r < n; ++r) {
    Node& nd = m_nodes[r];
    nd.hw = dynamic_cast<ImmunetRouter*>(m_routers[r]->mechanism());
    if (nd.hw == nullptr)
      throw std::logic_error(std::string(m_routers[r]->name()) + ": built without Immunet hardware");
    nd.rm = &nd.hw->reconfiguration_module;
    const auto s = tables::fault_free_safe_table(topo, r);
    const auto a = tables::fault_free_adaptive_table(topo, r);
    for (int d = 0; d < n; ++d) {
      nd.hw->safe_table.write_word(d, static_cast<std::uint32_t>(s.mask(d)));
      nd.hw->adaptive_table.write_word(2 * d, static_cast<std::uint32_t>(a.mask(d)));
      nd.hw->adaptive_table.write_word(2 * d + 1, static_cast<std::uint32_t>(a.distance(d)));
      dist_sum += a.distance(d);
    }
    for (int p = 1; p < radix; ++p) nd.hw->ss_table.write_word(p, ss_word(ss.next(tables::ss_index(p))));
    nd.hw->set_single_ring(false);
  }
  m_mean_before = dist_sum / (static_cast<double>(n) * (n - 1));
  if (params.boot_tree_ring) {
    // The tables a completed reconfiguration would leave with no fault: the
    // BFS tree from router 0, its tour, and optimised safe tables (towards
    // the child whose subtree holds the destination, else the parent).
    const auto tree = tables::emergency_tree(topo, {}, 0);
    for (int r = 0; r < n; ++r) {
      ImmunetRouter& hw = *m_nodes[r].hw;
      const auto tss = tables::tour_ss_table(topo, tree, r);
      for (int p = 1; p < radix; ++p) hw.ss_table.write_word(p, ss_word(tss.next(tables::ss_index(p))));
      const std::uint32_t up =
          tree.parent_port[r] >= 0 ? (1U << tree.parent_port[r]) : (1U << tree.children[r].front());
      for (int d = 0; d < n; ++d) hw.safe_table.write_word(d, up);
      hw.safe_table.write_word(r, 1U << KAryNCube::kLocalPort);
      hw.set_single_ring(true);
    }
    for (int d = 0; d < n; ++d)  // walk up from every destination, marking the port below
      for (int x = d; tree.parent_port[x] >= 0;) {
        const routing::PortPeer& pp = topo.peer(x, tree.parent_port[x]);
        m_nodes[pp.id].hw->safe_table.write_word(d, 1U << pp.port);
        x = pp.id;
      }
  }
  // From here on the Table Update Modules write through the management plane.
  for (int r = 0; r < n; ++r) m_nodes[r].hw->table_update_module.attach(bus, r);
  m_idle.assign(ep.ports, EmergencyWires{});
  m_inputs.in.assign(ep.ports, EmergencyWires{});
  m_inputs.normal = m_idle;
  SC_METHOD(tick);
  sensitive << m_wake;
  dont_initialize();
}

std::uint64_t ImmunetControlPlane::now() const {
  return current_cycle(m_ctx);
}

bool ImmunetControlPlane::busy() const {
  return m_active;
}

void ImmunetControlPlane::detect(routing::RouterId r, routing::PortId p, std::uint64_t fail_cycle) {
  Node& nd = m_nodes[r];
  if (nd.dead) return;
  nd.rm->port_enable &= ~(1u << (p - 1));
  nd.rm->detect_pending = true;
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
  if (!nd.dead && nd.hw->view().emergency) --m_in_emergency;
  nd.dead = true;
  for (int p = 1; p < m_topo.max_radix(); ++p)
    if (LinkDirection* l = m_in_links[static_cast<std::size_t>(r) * m_topo.max_radix() + p]) l->bundle.stop = false;
}

void ImmunetControlPlane::tick() {
  const std::uint64_t c = now();
  const int n = static_cast<int>(m_nodes.size());
  const int ports = 2 * m_topo.dimensions();
  // Phase 1: every live node's Output Blocks drive the wires from its
  // Reconfiguration Module's current state.
  for (int r = 0; r < n; ++r) {
    Node& nd = m_nodes[r];
    if (nd.dead) continue;
    const EmergencyOutputs o = nd.rm->logic.outputs(m_idle, nd.rm->port_enable);
    for (int i = 0; i < ports; ++i) {
      const EmergencyWires& w = nd.hw->output_blocks[static_cast<std::size_t>(i)]->out = o.out[i];
      if (!(w.req0 && w.req1)) continue;
      if (LinkDirection* l = m_out_links[static_cast<std::size_t>(r) * m_topo.max_radix() + i + 1]) {
        l->bundle.req0 = l->bundle.req1 = true;
        l->bundle.data = w.data;
      }
    }
  }
  // Phase 2: every live node's Input Blocks sample the neighbours' wires at
  // the clock edge and its Reconfiguration Module steps.
  for (int r = 0; r < n; ++r) {
    Node& nd = m_nodes[r];
    if (nd.dead) continue;
    for (int i = 0; i < ports; ++i) {
      const routing::PortPeer& pp = m_topo.peer(r, i + 1);
      const bool up =
          (nd.rm->port_enable >> i & 1u) && pp.kind == routing::PortPeer::Kind::kRouter && !m_nodes[pp.id].dead;
      EmergencyWires& in = nd.hw->input_blocks[static_cast<std::size_t>(i)]->in;
      in = up ? m_nodes[pp.id].hw->output_blocks[static_cast<std::size_t>(pp.port - 1)]->out : EmergencyWires{};
      m_inputs.in[i] = in;
    }
    m_inputs.port_enable = nd.rm->port_enable;
    m_inputs.fault_detect = nd.rm->detect_pending;
    m_inputs.node_id = static_cast<std::uint32_t>(r);
    nd.rm->detect_pending = false;
    const EmergencyState before = nd.rm->logic.state();
    nd.rm->logic.step(m_inputs);
    const EmergencyState& after = nd.rm->logic.state();
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
    const auto& s = m_nodes[r].rm->logic.state();
    m_active = !m_nodes[r].dead && (s.handle_count > 0 || s.window_count > 0 || s.ack_now || s.propagate_now ||
                                    m_nodes[r].rm->detect_pending);
  }
  if (was_active && !m_active) {
    // The reconfiguration is over: the tables are final, lost nodes are known.
    for (int r = 0; r < n; ++r) {
      if (m_nodes[r].dead || m_nodes[r].hw->view().tables_complete) continue;
      m_nodes[r].hw->set_tables_complete(true);
      m_routers[r]->wake();
    }
  }
  if (m_active) {
    // Sleep through stretches with only control packets in flight.
    const bool only_messages = m_in_emergency == 0 && m_link_pending == 0 && !m_messages.empty();
    bool logic_idle = true;
    for (int r = 0; r < n && logic_idle; ++r) {
      const auto& s = m_nodes[r].rm->logic.state();
      logic_idle = m_nodes[r].dead || !(s.handle_count > 0 || s.window_count > 0 || s.ack_now || s.propagate_now);
    }
    const std::uint64_t gap = (only_messages && logic_idle) ? m_messages.top().when - c : 1;
    next_trigger(sc_core::sc_time::from_value(m_ctx.period_ticks) * static_cast<double>(gap));
  }
}

void ImmunetControlPlane::on_adopt(int r) {
  Node& nd = m_nodes[r];
  ++m_report.emergencies;
  if (!nd.hw->view().emergency) ++m_in_emergency;
  nd.hw->set_emergency(true);
  m_nis[r]->set_injection_stopped(true);
  // The distance-vector rebuild starts with every distance at N (section
  // 4.3). The port masks are cleared too: keeping the old masks until a
  // control packet overwrites them mixes old and new minimal directions, and
  // two routers can then send a packet back and forth on adaptive VCs (we
  // measured the network collapsing that way); with cleared masks, packets for
  // destinations not yet rebuilt take the safe ring.
  nd.hw->table_update_module.begin_rebuild();
  nd.hw->set_tables_complete(false);
}

void ImmunetControlPlane::on_done(int r) {
  Node& nd = m_nodes[r];
  const EmergencyState& s = nd.rm->logic.state();
  const int ports = 2 * m_topo.dimensions();
  // The Table Update Module installs the SS table of the tree's tour
  // (Figure 5) and the provisional safe table (section 4.2).
  ImmunetTableUpdateModule& tum = nd.hw->table_update_module;
  tum.install_tree(s);
  nd.hw->set_emergency(false);
  --m_in_emergency;
  m_nis[r]->set_injection_stopped(false);
  // Table Update Module: drain the head packet of a safe queue that has no
  // room for a bubble, so the new ring cannot start deadlocked.
  for (int p = 0; p <= ports; ++p) {
    std::uint32_t id = 0;
    if (m_routers[r]->drain_safe_head(p, 2 * m_ctx.max_packet_flits, &id)) {
      m_nis[r]->requeue_front(id);
      ++tum.drained;
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
    if (nd.rm->port_enable >> i & 1u) send(Message{false, r, s.epl, 0, r, i + 1}, c);
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
  const EmergencyState& s = nd.rm->logic.state();
  if (!s.valid || s.epl != m.epl) {  // a newer emergency is in progress: discard
    ++m_report.stale_control_packets;
    return;
  }
  if (m.safe) {
    nd.hw->table_update_module.set_safe(m.origin, m.port);  // the descendant is below this port
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
  const int verdict = nd.hw->table_update_module.apply_distance(m.origin, m.port, d);
  if (verdict < 0) return;
  const bool improved = verdict > 0;
  m_report.last_table_update_cycle = now;
  m_routers[m.to]->wake();
  if (!improved) return;
  const int ports = 2 * m_topo.dimensions();
  for (int i = 0; i < ports; ++i)
    if ((nd.rm->port_enable >> i & 1u) && i + 1 != m.port) send(Message{false, m.origin, m.epl, d, m.to, i + 1}, now);
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
      if (d != r && m_nodes[d].dead == false && adaptive_distance(r, d) < n) {
        sum += adaptive_distance(r, d);
        pairs += 1;
      }
  }
  m_report.mean_distance_after = pairs > 0 ? sum / pairs : 0.0;
  m_report.lost_nodes.clear();
  const int ref = m_report.root >= 0 ? m_report.root : 0;
  if (m_report.complete) {
    for (int d = 0; d < n; ++d)
      if (adaptive_distance(ref, d) >= n) m_report.lost_nodes.push_back(d);
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
      if (!(m_nodes[r].rm->port_enable >> i & 1u)) continue;
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
