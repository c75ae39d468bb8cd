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

/// Follows destination-based tables (tables[router][node] = output port or
/// kNone) from router r towards node d, calling hop(router, port) for every
/// switch-to-switch hop. Returns true when the tables deliver d over live
/// links; false on a missing entry, a link with dead[link] != 0, a node port
/// that is not d's, or a loop (more hops than routers).
template <typename Hop>
bool follow_tables(const Topology& topo, const std::vector<std::vector<PortId>>& tables, const std::vector<char>& dead,
                   RouterId r, NodeId d, Hop&& hop) {
  for (int hops = 0; hops <= topo.num_routers(); ++hops) {
    const PortId p = tables[static_cast<std::size_t>(r)][static_cast<std::size_t>(d)];
    if (p == kNone) return false;
    const PortPeer& pp = topo.peer(r, p);
    if (pp.link != kNone && dead[static_cast<std::size_t>(pp.link)]) return false;
    if (pp.kind == PortPeer::Kind::kNode) return pp.id == d;
    if (pp.kind != PortPeer::Kind::kRouter) return false;
    hop(r, p);
    r = pp.id;
  }
  return false;
}

/// The destination-based tables of a deterministic relation: at every
/// switch, for every destination node, the single port it offers a packet
/// injected there (tables[router][node], kNone when it offers none). Throws
/// ConfigError when the relation offers more than one port somewhere (it is
/// adaptive and has no table form).
std::vector<std::vector<PortId>> deterministic_tables(const RoutingRelation& rel);

/// Destination-based up*/down* tables for any connected topology (notes on
/// DQR, Q11: an initial routing for fat trees and ibnet fabrics). Levels by
/// breadth-first search from the root switches: those without attached
/// nodes, or switch 0 when every switch has nodes. "Up" is towards a lower
/// (level, switch id). A switch with a down-only path to the destination
/// takes its shortest one; otherwise it goes up towards the nearest switch
/// that has one. The result is deadlock-free on one VC (no down -> up turn)
/// and destination-consistent. Switch endpoints (Topology::is_switch_endpoint)
/// do not count as attached nodes for the roots, and a switch that cannot
/// reach one by an up*/down* path gets no entry (kNone) for it. Throws
/// ConfigError when a terminal node cannot be reached.
std::vector<std::vector<PortId>> updown_tables(const Topology& topo);

/// The same over the fabric that survives faults: links with
/// dead_links[link] != 0 and switches with dead_switches[router] != 0 (and
/// the nodes attached to them) are left out; the roots are the live
/// switches without live attached nodes, or the first live switch. Used by
/// DQR's fallback, a full reroute (docs/reproduction/dqr.md, issue 50 item
/// 5). Entries of dead switches and for nodes of dead switches are kNone.
/// Throws ConfigError when a live terminal node cannot be reached, or when
/// a mask's size differs from the topology's link or switch count.
std::vector<std::vector<PortId>> updown_tables(const Topology& topo, const std::vector<char>& dead_links,
                                               const std::vector<char>& dead_switches);

}  // namespace ftsim::routing
