#include "routing_logic/immunet/immunet_routing.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

void ImmunetRouting::check_topology(const Topology& topo) const {
  const auto* c = dynamic_cast<const KAryNCube*>(&topo);
  if (c == nullptr || !c->torus())
    throw ConfigError(fmt::format("routing 'immunet' needs a torus (k-ary n-cube), got {}", topo.spec()));
}

void ImmunetRouting::route(const RouteQuery& q, RouteSet& out) const {
  const ImmunetView* t = q.view.mechanism.get<const ImmunetView>();
  const NodeId dst = q.header->dst;
  if (t == nullptr) return;  // no tables: the router has none yet (no route)
  if (q.router == dst) {
    out.add(RouteCandidate{KAryNCube::kLocalPort, 1U, 0, false});
    return;
  }
  // A lost destination (distance N after the rebuild): no route, the packet is
  // dropped instead of circling the safe ring for ever.
  if (t->tables_complete && t->distance != nullptr && t->distance[dst] >= t->lost_distance) return;
  // With the single tour ring, the safe VC of a link that is not on the ring
  // belongs to the adaptive network (section 3: "the rest of the network
  // resources ... can be employed as a minimal adaptive virtual network").
  auto on_ring = [&](PortId p) { return !t->single_ring || t->ss_next[p] >= 0; };
  const bool in_safe = !q.injected_here && vc_class(q.in_vc) == VcClass::kEscape && on_ring(q.in_port);
  const bool may_adapt = !in_safe || q.header->moves < m_max_moves;
  if (may_adapt) {
    const std::uint64_t am = t->adaptive[dst] & q.view.port_alive & ~1ULL;
    for (PortId p = 1; p < 64 && (am >> p) != 0; ++p)
      if (am >> p & 1U) out.add(RouteCandidate{p, on_ring(p) ? all_vcs() & ~1U : all_vcs(), 0, false, in_safe});
  }
  // Safe network.
  const int ss = in_safe ? t->ss_next[q.in_port] : -1;
  if (ss >= 0) {
    if (t->single_ring) {
      if (q.view.port_alive >> ss & 1U) out.add(RouteCandidate{ss, 1U, 1, false});
      return;
    }
    const std::uint64_t sm = t->safe[dst];
    if (sm >> ss & 1U) {  // DOR continues in this ring
      if (q.view.port_alive >> ss & 1U) out.add(RouteCandidate{ss, 1U, 1, false});
      return;
    }
  }
  const std::uint64_t sm = t->safe[dst] & q.view.port_alive & ~1ULL;
  for (PortId p = 1; p < 64 && (sm >> p) != 0; ++p)
    if (sm >> p & 1U) {
      out.add(RouteCandidate{p, 1U, 1, true});
      break;
    }
}

}  // namespace ftsim::routing
