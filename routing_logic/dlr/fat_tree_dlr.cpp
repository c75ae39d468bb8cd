#include "routing_logic/dlr/fat_tree_dlr.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

namespace {

void check_tree(const Topology& topo, const std::string& name) {
  if (dynamic_cast<const KAryNTree*>(&topo) == nullptr)
    throw ConfigError(fmt::format("routing '{}' needs a kary-ntree topology, got {}", name, topo.spec()));
}

}  // namespace

// ------------------------------------------------------------ updown-det

void UpDownDeterministicRouting::check_topology(const Topology& topo) const {
  check_tree(topo, name());
}

void UpDownDeterministicRouting::on_configure() {
  m_tree = static_cast<const KAryNTree*>(&topology());
}

PortId UpDownDeterministicRouting::default_port(RouterId r, NodeId d) const {
  const int l = m_tree->tier(r);
  if (m_tree->is_ancestor(r, d)) return m_tree->node_digit(d, l);
  return m_tree->k() + m_tree->node_digit(d, l);
}

void UpDownDeterministicRouting::route(const RouteQuery& q, RouteSet& out) const {
  const NodeId d = q.header->dst;
  PortId p = default_port(q.router, d);
  if (q.view.forwarding != nullptr && d < q.view.forwarding_size) p = q.view.forwarding[d];
  if (p >= 0 && (q.view.port_alive >> p & 1U)) out.add(RouteCandidate{p, all_vcs(), 0, false});
}

// ------------------------------------------------------------ DLR

std::string FatTreeDlrRouting::name() const {
  switch (m_variant) {
    case Variant::kDeterministic:
      return "ddlr";
    case Variant::kOneFault:
      return "ddlr-1fault";
    case Variant::kAdaptive:
      return "adlr";
    case Variant::kDeterministicSwitch:
      return "ddlr-switch";
    case Variant::kAdaptiveSwitch:
      return "adlr-switch";
  }
  return "ddlr";
}

void FatTreeDlrRouting::check_topology(const Topology& topo) const {
  check_tree(topo, name());
}

bool FatTreeDlrRouting::is_ancestor(RouterId s, NodeId d) const {
  return m_tree->is_ancestor(s, d);
}

void FatTreeDlrRouting::on_configure() {
  m_tree = static_cast<const KAryNTree*>(&topology());
  m_k = m_tree->k();
  m_table.clear();
  if (m_variant != Variant::kDeterministic) return;
  const std::size_t entries = static_cast<std::size_t>(m_tree->num_routers()) *
                              static_cast<std::size_t>(m_tree->num_nodes()) * static_cast<std::size_t>(2 * m_k) * 2;
  if (entries > (std::size_t{1} << 24)) return;  // computed on the fly instead
  m_table.resize(entries);
  std::size_t i = 0;
  for (RouterId s = 0; s < m_tree->num_routers(); ++s)
    for (NodeId d = 0; d < m_tree->num_nodes(); ++d)
      for (PortId p = 0; p < 2 * m_k; ++p)
        for (VcId v = 0; v < 2; ++v) m_table[i++] = compute_entry(s, d, p, v);
}

FatTreeDlrRouting::Entry FatTreeDlrRouting::compute_entry(RouterId s, NodeId d, PortId p, VcId v) const {
  // Algorithm 1, ROUTEDESTINATION(s, d), for one (in port, in VC).
  constexpr std::int8_t kNl = 0, kMl = 1;
  const int l = m_tree->tier(s);
  const bool up_port = p >= m_k;
  if (!is_ancestor(s, d)) {
    const auto dp = static_cast<std::int8_t>(m_k + m_tree->node_digit(d, l));  // balanced: D-mod-k
    if (!up_port) return v == kNl ? Entry{dp, kNl} : Entry{};                  // regular upward route
    // First U-turn (step 3a): the first port of D, skipping the arrival port,
    // which leads back to c: section III sends the packet "to an arbitrary
    // upper-tier switch in the group (different from c)", and step 2b's
    // bounce through c is for groups "with more than one fault".
    if (v == kNl) return Entry{static_cast<std::int8_t>(p == m_k ? m_k + 1 : m_k), kMl};
    const PortId next = next_in_sequence(p);  // subsequent U-turns
    return next == kNone ? Entry{kDiscard, kMl} : Entry{static_cast<std::int8_t>(next), kMl};
  }
  const auto dp = static_cast<std::int8_t>(m_tree->node_digit(d, l));
  if (p == dp) return Entry{};
  if (v == kNl) return Entry{dp, kNl};
  return up_port ? Entry{dp, kNl}   // below the fault's tier: back to NL
                 : Entry{dp, kMl};  // down after the U-turn, still in ML
}

FatTreeDlrRouting::Entry FatTreeDlrRouting::table_entry(RouterId s, NodeId d, PortId p, VcId v) const {
  if (m_table.empty()) return compute_entry(s, d, p, v);
  const std::size_t i =
      ((static_cast<std::size_t>(s) * static_cast<std::size_t>(m_tree->num_nodes()) + static_cast<std::size_t>(d)) *
           static_cast<std::size_t>(2 * m_k) +
       static_cast<std::size_t>(p)) *
          2 +
      static_cast<std::size_t>(v);
  return m_table[i];
}

PortId FatTreeDlrRouting::first_alive(const RouteQuery& q, PortId first, PortId last, PortId except) const {
  for (PortId p = first; p < last; ++p)
    if (p != except && alive(q, p)) return p;
  return kNone;
}

void FatTreeDlrRouting::route(const RouteQuery& q, RouteSet& out) const {
  // Hybrid with DDRC: a packet in the normal layer on its regular up/down
  // path follows the subnet manager's table while that table's link is alive;
  // rerouting takes over only where it is not (before the update arrives).
  if (q.view.forwarding != nullptr && q.in_vc == 0 && q.header->dst < q.view.forwarding_size &&
      (q.in_port < m_k || is_ancestor(q.router, q.header->dst))) {
    const PortId p = q.view.forwarding[q.header->dst];
    if (p >= 0 && alive(q, p)) {
      const bool to_node = topology().peer(q.router, p).kind == PortPeer::Kind::kNode;
      out.add(RouteCandidate{p, to_node || m_variant == Variant::kDeterministic ? 1U : all_vcs(), 0, false});
      return;
    }
  }
  switch (m_variant) {
    case Variant::kDeterministic:
      route_deterministic(q, out);
      return;
    case Variant::kOneFault:
      route_one_fault(q, out);
      return;
    case Variant::kAdaptive:
      route_adaptive(q, out);
      return;
    case Variant::kDeterministicSwitch:
      route_switch(q, out, false);
      return;
    case Variant::kAdaptiveSwitch:
      route_switch(q, out, true);
      return;
  }
}

void FatTreeDlrRouting::route_deterministic(const RouteQuery& q, RouteSet& out) const {
  const NodeId d = q.header->dst;
  const VcId in_vc = q.in_vc > 1 ? 1 : q.in_vc;
  const Entry e = table_entry(q.router, d, q.in_port, in_vc);
  if (e.port == kDiscard) {
    out.discarded = true;
    return;
  }
  if (e.port == kNone) return;
  // Node links carry VC 0 only.
  const bool to_node = topology().peer(q.router, e.port).kind == PortPeer::Kind::kNode;
  if (alive(q, e.port)) {
    out.add(RouteCandidate{e.port, to_node ? 1U : 1U << e.vc, 0, false});
    return;
  }
  const bool up = e.port >= m_k;
  if (up && e.vc == 1) {  // a U-turn: next live port of D (never back to c)
    const PortId back = in_vc == 0 ? q.in_port : kNone;
    PortId p = next_in_sequence(e.port);
    while (p != kNone && (p == back || !alive(q, p))) p = next_in_sequence(p);
    if (p == kNone) {
      out.discarded = true;
      return;
    }
    out.add(RouteCandidate{p, 2U, 0, false});
    return;
  }
  if (e.vc == 0) {  // mechanism (i): another port in the same direction, NL
    const PortId alt = up ? first_alive(q, m_k, 2 * m_k, e.port) : first_alive(q, 0, m_k, e.port);
    if (alt != kNone) out.add(RouteCandidate{alt, 1U, 0, false});
    return;
  }
  out.add(RouteCandidate{q.in_port, 2U, 0, false});  // mechanism (ii): back where it came from, ML
}

void FatTreeDlrRouting::route_one_fault(const RouteQuery& q, RouteSet& out) const {
  const NodeId d = q.header->dst;
  const int l = m_tree->tier(q.router);
  if (is_ancestor(q.router, d)) {
    const PortId dp = m_tree->node_digit(d, l);
    const PortId p = alive(q, dp) ? dp : first_alive(q, 0, m_k, dp);
    if (p != kNone) out.add(RouteCandidate{p, 1U, 0, false});
    return;
  }
  if (q.in_port < m_k) {  // upward phase
    const PortId up = m_k + m_tree->node_digit(d, l);
    const PortId p = alive(q, up) ? up : first_alive(q, m_k, 2 * m_k, up);
    if (p != kNone) out.add(RouteCandidate{p, 1U, 0, false});
    return;
  }
  // U-turn: the lowest live upward port other than the arrival port.
  if (q.header->state.get<DlrHeader>().u_turns > 2 * m_k) {
    out.discarded = true;  // livelock guard: more faults than the variant handles
    return;
  }
  const PortId p = first_alive(q, m_k, 2 * m_k, q.in_port);
  if (p != kNone)
    out.add(RouteCandidate{p, 1U, 0, false});
  else
    out.discarded = true;
}

void FatTreeDlrRouting::route_adaptive(const RouteQuery& q, RouteSet& out) const {
  const NodeId d = q.header->dst;
  const int l = m_tree->tier(q.router);
  const std::uint32_t vcs = all_vcs();
  if (is_ancestor(q.router, d)) {
    const PortId dp = m_tree->node_digit(d, l);
    const bool to_node = topology().peer(q.router, dp).kind == PortPeer::Kind::kNode;
    if (alive(q, dp)) {
      out.add(RouteCandidate{dp, to_node ? 1U : vcs, 0, false});
      return;
    }
    if (q.in_port >= m_k) {  // from above: any other live downward port (step 2a)
      for (PortId p = 0; p < m_k; ++p)
        if (p != dp && alive(q, p)) out.add(RouteCandidate{p, vcs, 0, false});
    } else if (topology().peer(q.router, q.in_port).kind == PortPeer::Kind::kRouter) {
      out.add(RouteCandidate{q.in_port, vcs, 0, false});  // from below: back down the same link (step 2b)
    }
    return;
  }
  if (q.in_port < m_k) {  // upward phase: every live upward port
    for (PortId p = m_k; p < 2 * m_k; ++p)
      if (alive(q, p)) out.add(RouteCandidate{p, vcs, 0, false});
    return;
  }
  adaptive_uturn(q, out);
}

void FatTreeDlrRouting::adaptive_uturn(const RouteQuery& q, RouteSet& out) const {
  const std::uint32_t vcs = all_vcs();
  std::uint64_t tested = 1ULL << (q.in_port - m_k);
  if (RerouteState* st = q.view.mechanism.get<RerouteState>()) {
    if (st->bits != 0 && q.view.cycle > st->last_uturn + m_timeout) st->bits = 0;  // time-out
    st->bits |= tested;
    st->last_uturn = q.view.cycle;
    tested = st->bits;
  }
  for (PortId p = m_k; p < 2 * m_k; ++p)
    if (!(tested >> (p - m_k) & 1U) && alive(q, p)) out.add(RouteCandidate{p, vcs, 0, false});
  if (out.size == 0) out.discarded = true;
}

void FatTreeDlrRouting::route_switch(const RouteQuery& q, RouteSet& out, bool adaptive) const {
  constexpr std::uint32_t kNl = 1U, kMl1 = 2U, kMl2 = 4U;
  const NodeId d = q.header->dst;
  const int l = m_tree->tier(q.router);
  const bool from_above = q.in_port >= m_k;
  const int pf = port_field(*q.header);
  const std::uint32_t layer = adaptive ? 1U : 1U << (q.in_vc > 2 ? 2 : q.in_vc);
  auto add = [&](PortId p, std::uint32_t vc_mask) {
    const bool to_node = topology().peer(q.router, p).kind == PortPeer::Kind::kNode;
    out.add(RouteCandidate{p, to_node ? 1U : (adaptive ? all_vcs() : vc_mask), 0, false});
  };
  if (is_ancestor(q.router, d)) {
    const PortId dp = m_tree->node_digit(d, l);
    if (alive(q, dp)) {  // step 2: down, with the layer transitions a-d
      std::uint32_t next = kNl;
      if (layer == kMl2) next = from_above ? kMl1 : kMl2;
      add(dp, next);
      return;
    }
    // From below in NL (the upward phase ends at a switch whose downward link
    // is dead) the deterministic variant takes another downward link as in
    // step 3a, like R_det^link's mechanism (i); bouncing it back (3b) would
    // send a packet that made no U-turn yet into the U-turn logic in ML2,
    // which steps 4.b.i-ii do not cover.
    if (from_above || (!adaptive && layer == kNl)) {  // step 3a: another downward link
      const std::uint32_t next = layer == kMl2 ? kMl1 : kNl;
      for (PortId p = 0; p < m_k; ++p)
        if (p != dp && alive(q, p)) {
          add(p, next);
          if (!adaptive) return;
        }
      return;
    }
    // Step 3b: back down to the same lower switch, in ML2; a packet coming up
    // from a bottom-tier U-turn in ML1 goes back in ML1 (R_det^link's
    // mechanism (ii)), so that its U-turn switch continues along D.
    if (topology().peer(q.router, q.in_port).kind == PortPeer::Kind::kRouter)
      add(q.in_port, layer == kMl1 ? kMl1 : kMl2);
    return;
  }
  if (!from_above) {  // upward: the table's port, or another live one (steps 1, 5/6)
    const std::uint32_t next = pf == -2 ? kMl2 : kNl;
    const PortId up = m_k + m_tree->node_digit(d, l);
    if (adaptive) {
      for (PortId p = m_k; p < 2 * m_k; ++p)
        if (alive(q, p)) add(p, next);
      return;
    }
    const PortId p = alive(q, up) ? up : first_alive(q, m_k, 2 * m_k, up);
    if (p != kNone) add(p, next);
    return;
  }
  // From above with no downward path (step 4).
  const bool bottom = l == m_tree->n() - 1;
  if (pf >= 0) {  // 4c / 4d: back down to the U-turn switch
    if (alive(q, pf)) add(pf, kMl1);
    return;
  }
  if (pf == -1 && !bottom) {  // 4a: re-route one more tier down
    for (PortId p = 0; p < m_k; ++p)
      if (alive(q, p)) {
        add(p, kNl);
        if (!adaptive) return;
      }
    return;
  }
  // A U-turn switch (4b; 4c for the bottom tier of the adaptive variant).
  if (adaptive) {
    adaptive_uturn(q, out);
    return;
  }
  PortId p = layer == kNl ? first_alive(q, m_k, 2 * m_k, q.in_port) : next_in_sequence(q.in_port);
  while (p != kNone && layer != kNl && !alive(q, p)) p = next_in_sequence(p);
  if (p == kNone) {
    out.discarded = true;  // 4.b.iii
    return;
  }
  add(p, kMl1);
}

void FatTreeDlrRouting::on_hop(PacketHeader& h, RouterId r, PortId port, VcId /*vc*/) const {
  if (m_variant == Variant::kDeterministicSwitch || m_variant == Variant::kAdaptiveSwitch) {
    auto s = h.state.get<DlrHeader>();
    const bool from_above = s.from_above != 0;
    const PortId arrival = s.arrival_port;
    const int pf = s.port_field();
    if (is_ancestor(r, h.dst)) {
      if (port == m_tree->node_digit(h.dst, m_tree->tier(r))) s.set_port_field(-1);  // on its way down
    } else if (!from_above && pf == -2) {
      s.set_port_field(arrival);  // step 5/6: remember where the U-turn switch is
    } else if (from_above && pf == -1 && m_tree->tier(r) != m_tree->n() - 1) {
      s.set_port_field(-2);  // 4a: the next switch down is the U-turn switch
    } else if (from_above && pf >= 0) {
      s.set_port_field(-2);  // 4c/4d: returning to the U-turn switch
    }
    const PortPeer& pp = m_tree->peer(r, port);
    s.from_above = port < m_k ? 1 : 0;
    s.arrival_port = static_cast<std::uint8_t>(pp.kind == PortPeer::Kind::kRouter ? pp.port : 0);
    h.state.set(s);
    return;
  }
  if (m_variant != Variant::kOneFault) return;
  auto s = h.state.get<DlrHeader>();
  const bool down = port < m_k;
  if (!down && s.from_above != 0 && s.u_turns < 255) ++s.u_turns;
  s.from_above = down ? 1 : 0;
  h.state.set(s);
}

}  // namespace ftsim::routing
