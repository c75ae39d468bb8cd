// Up/down routing on k-ary n-trees.
#pragma once
#include "routing_logic/topology/kary_ntree.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::routing {

/// Adaptive upward to a least common ancestor, deterministic downward.
/// At switch <w,l>: when w_i = d_i for every i < l the switch is a common
/// ancestor and the packet goes down port d_l (at a leaf, d_{n-1} is the
/// node's port); otherwise every live up port is a minimal candidate. There is
/// no down-to-up turn, so the CDG is acyclic. When the router has a
/// forwarding table (RouterView::forwarding), the downward port is read from
/// it, so a subnet manager can rewrite it through the management plane.
/// Source: fat-tree-dynamic-local-rerouting.txt sections II and V.
class UpDownRouting : public RoutingRelation {
 public:
  std::string name() const override { return "updown"; }
  void route(const RouteQuery& q, RouteSet& out) const override;
  DeadlockClaim deadlock_claim() const override {
    return {DeadlockClaim::Kind::kAcyclicCdg, false, "up*/down*: no down-to-up turn"};
  }
  /// Downward port at switch r towards node dst, or kNone when r is not an
  /// ancestor of dst.
  PortId down_port(RouterId r, NodeId dst) const;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  const KAryNTree* m_tree = nullptr;
};

}  // namespace ftsim::routing
