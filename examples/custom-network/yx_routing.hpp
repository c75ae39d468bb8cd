// A user routing relation: YX dimension-order routing on a 2-D mesh (first
// all hops in Y, then in X), deterministic and deadlock-free on a mesh with
// any VC. It ignores faults: a packet whose next link is down has no route.
#pragma once
#include <atomic>

#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/routing_relation.hpp"

namespace example {

class YxRouting : public ftsim::routing::RoutingRelation {
 public:
  std::string name() const override { return "yx"; }
  void route(const ftsim::routing::RouteQuery& q, ftsim::routing::RouteSet& out) const override;
  /// Number of route() calls so far (all instances), to show it was used.
  static std::uint64_t calls() { return s_calls.load(); }

 protected:
  void check_topology(const ftsim::routing::Topology& topo) const override;

 private:
  static std::atomic<std::uint64_t> s_calls;
};

}  // namespace example
