#include "routing_logic/updown.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

void UpDownRouting::check_topology(const Topology& topo) const {
  if (dynamic_cast<const KAryNTree*>(&topo) == nullptr)
    throw ConfigError(fmt::format("routing 'updown' needs a kary-ntree topology, got {}", topo.spec()));
}

void UpDownRouting::on_configure() {
  m_tree = static_cast<const KAryNTree*>(&topology());
}

PortId UpDownRouting::down_port(RouterId r, NodeId dst) const {
  return m_tree->is_ancestor(r, dst) ? m_tree->node_digit(dst, m_tree->tier(r)) : kNone;
}

void UpDownRouting::route(const RouteQuery& q, RouteSet& out) const {
  const NodeId dst = q.header->dst;
  PortId down = down_port(q.router, dst);
  if (down != kNone) {
    if (q.view.forwarding != nullptr && dst < q.view.forwarding_size) down = q.view.forwarding[dst];
    if (down >= 0 && (q.view.port_alive >> down & 1U)) out.add(RouteCandidate{down, all_vcs(), 0, false});
    return;
  }
  const int k = m_tree->k();
  for (PortId p = k; p < 2 * k; ++p) {
    if (topology().peer(q.router, p).kind != PortPeer::Kind::kRouter) continue;
    if (q.view.port_alive >> p & 1U) out.add(RouteCandidate{p, all_vcs(), 0, false});
  }
}

}  // namespace ftsim::routing
