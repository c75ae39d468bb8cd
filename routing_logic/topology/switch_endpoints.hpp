// Switch endpoints: a fabric whose switches are destinations and sources of
// their own, as InfiniBand switches are (every switch has a LID on its
// management port 0). Pure C++.
// Source: dynamic-quick-reconfiguration.txt, section V ("a two-tier fat tree
// ... with switch-to-switch paths") and section IV-A ("for fat trees that
// require switch to switch connectivity, a single link fault can lead to the
// need for introducing new downward to upward turns").
#pragma once
#include <memory>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// `base` plus one endpoint per switch: node base.num_nodes() + r is switch
/// r's own port (IB port 0), attached to router r on the extra port
/// base.max_radix() (port name "self"). The endpoint is not a link (it
/// cannot fail); routers, links, link ids and the base's nodes keep their
/// numbers and labels. Switch endpoint labels are the switch labels.
class SwitchEndpointTopology : public Topology {
 public:
  explicit SwitchEndpointTopology(std::unique_ptr<Topology> base);

  std::string spec() const override { return m_base->spec(); }
  bool is_direct() const override { return m_base->is_direct(); }
  std::string router_label(RouterId r) const override { return m_base->router_label(r); }
  std::string node_label(NodeId n) const override;
  std::string port_name(RouterId r, PortId p) const override;
  std::string link_label(LinkId l) const override { return m_base->link_label(l); }
  LinkId parse_link(const std::string& label) const override { return m_base->parse_link(label); }
  RouterId parse_router(const std::string& label) const override { return m_base->parse_router(label); }
  bool is_switch_endpoint(NodeId n) const override { return n >= m_base->num_nodes(); }

  const Topology& base() const { return *m_base; }

 private:
  std::unique_ptr<Topology> m_base;
};

}  // namespace ftsim::routing
