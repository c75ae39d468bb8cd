#include "routing_logic/mikant/mikant_shortest.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

void MikantShortestRouting::check_topology(const Topology& topo) const {
  if (dynamic_cast<const Mikant*>(&topo) == nullptr)
    throw ConfigError(fmt::format("routing 'mikant-shortest' needs a mikant topology, got {}", topo.spec()));
}

void MikantShortestRouting::on_configure() {
  m_mk = static_cast<const Mikant*>(&topology());
}

PortId MikantShortestRouting::next_port(RouterId w, NodeId t) const {
  const int k = m_mk->k();
  const int n = m_mk->n();
  const int lw = m_mk->level(w);
  if (m_mk->group(w) != m_mk->node_group(t)) return m_mk->node_digit(t, lw) + k;  // Case 0
  for (int i = lw; i <= n - 2; ++i)
    if (m_mk->switch_digit(w, i) != m_mk->node_digit(t, i)) return m_mk->node_digit(t, lw) + k;  // Case 3
  if (lw > 0) return m_mk->node_digit(t, lw - 1);                                                // Case 1
  return m_mk->node_digit(t, n - 1);                                                             // Case 2
}

void MikantShortestRouting::route(const RouteQuery& q, RouteSet& out) const {
  const PortId p = next_port(q.router, q.header->dst);
  if (q.view.port_alive >> p & 1U) out.add(RouteCandidate{p, all_vcs(), 0, false});
}

}  // namespace ftsim::routing
