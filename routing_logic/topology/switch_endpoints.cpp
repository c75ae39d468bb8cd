#include "routing_logic/topology/switch_endpoints.hpp"

namespace ftsim::routing {

SwitchEndpointTopology::SwitchEndpointTopology(std::unique_ptr<Topology> base) : m_base(std::move(base)) {
  const Topology& b = *m_base;
  const PortId self = b.max_radix();
  resize(b.num_routers(), b.max_radix() + 1, b.num_nodes() + b.num_routers());
  // Base links first, in id order, so that link ids are unchanged.
  for (const Link& k : b.links()) {
    if (k.b_is_node)
      attach_node(k.b, k.a, k.a_port, true);
    else
      connect(k.a, k.a_port, static_cast<RouterId>(k.b), k.b_port);
  }
  for (NodeId n = 0; n < b.num_nodes(); ++n)  // nodes without a link (direct networks)
    if (b.peer(b.node_router(n), b.node_port(n)).link == kNone) attach_node(n, b.node_router(n), b.node_port(n), false);
  for (RouterId r = 0; r < b.num_routers(); ++r) attach_node(b.num_nodes() + r, r, self, false);
}

std::string SwitchEndpointTopology::node_label(NodeId n) const {
  return is_switch_endpoint(n) ? m_base->router_label(n - m_base->num_nodes()) : m_base->node_label(n);
}

std::string SwitchEndpointTopology::port_name(RouterId r, PortId p) const {
  return p == m_base->max_radix() ? "self" : m_base->port_name(r, p);
}

}  // namespace ftsim::routing
