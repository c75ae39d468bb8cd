// MiKANT shortest-path routing (Algorithm 1).
#pragma once
#include "routing_logic/mikant/mikant.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::routing {

/// Deterministic shortest path of MiKANT: different group, or not yet at the
/// nearest common ancestor (W_{n-2..L} != T_{n-2..L}): up port T_L + k;
/// otherwise down port T_{L-1}, or T_{n-1} at level 0.
/// Source: mikant-link-fault-tolerance.txt section 2.2, Algorithm 1.
class MikantShortestRouting : public RoutingRelation {
 public:
  std::string name() const override { return "mikant-shortest"; }
  void route(const RouteQuery& q, RouteSet& out) const override;
  DeadlockClaim deadlock_claim() const override {
    return {DeadlockClaim::Kind::kAcyclicCdg, false, "MiKANT Algorithm 1: no detours, acyclic CDG"};
  }
  /// The Algorithm 1 port at switch w for destination node t.
  PortId next_port(RouterId w, NodeId t) const;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  const Mikant* m_mk = nullptr;
};

}  // namespace ftsim::routing
