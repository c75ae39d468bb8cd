// Table-driven routing by destination: InfiniBand linear forwarding tables
// (one output port per switch and destination). Pure C++.
// Source: dynamic-quick-reconfiguration.txt, sections I and IV ("update
// routing tables"); the tables come from OpenSM dumps or from DQR.
#pragma once
#include <vector>

#include "routing_logic/routing_relation.hpp"

namespace ftsim::routing {

/// Routes every packet by its switch's table entry for the destination node,
/// on any VC (or, with layers, on the VC of the packet's layer). A missing
/// entry or a dead port drops the packet (no_route), as an InfiniBand switch
/// drops packets for an unrouted LID. With RouterView::forwarding present
/// (the router's table memory on the management plane) that table is read
/// instead of the relation's copy, so live table writes take effect.
class LftRouting : public RoutingRelation {
 public:
  std::string name() const override { return "lft"; }
  /// tables[router][node] = output port or kNone. Throws ConfigError when
  /// the shape does not match the configured topology or a port does not
  /// exist.
  void set_tables(std::vector<std::vector<PortId>> tables);
  const std::vector<std::vector<PortId>>& tables() const { return m_tables; }
  void route(const RouteQuery& q, RouteSet& out) const override;

 protected:
  void check_topology(const Topology& /*topo*/) const override {}
  void on_configure() override;

 private:
  std::vector<std::vector<PortId>> m_tables;
};

}  // namespace ftsim::routing
