// Dimension-order routing (DOR) on meshes and tori.
#pragma once
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::routing {

/// Minimal direction for one dimension of a k-ary n-cube: +1, -1 or 0 when
/// the coordinates agree. On a torus with an even k and a distance of exactly
/// k/2 both directions are minimal; DOR takes + then.
inline int dor_direction(const KAryNCube& t, int from, int to, int dim) {
  return dim_direction(t, from, to, dim).sign;
}

/// Deterministic DOR: correct dimension 0 first, then 1, ... Mesh: any VC,
/// acyclic CDG. Torus, mode kBubble: one ring per dimension line, entered only
/// with room for two packets (bubble flow control, Puente et al.; Immunet
/// section 2). Torus, mode kDateline: VCs split into two classes, the lower
/// half before the wrap-around link of the current dimension, the upper half
/// after it (Dally and Seitz).
class DorRouting : public RoutingRelation {
 public:
  /// kUnprotected: DOR with no deadlock avoidance on tori (the ring cycles
  /// stay); a baseline that deadlocks, for the watchdog and for teaching.
  enum class Mode { kBubble, kDateline, kUnprotected };
  explicit DorRouting(Mode mode) : m_mode(mode) {}
  std::string name() const override {
    return m_mode == Mode::kBubble ? "dor" : m_mode == Mode::kDateline ? "dor-dateline" : "dor-unprotected";
  }
  int min_vcs() const override { return m_mode == Mode::kDateline ? 2 : 1; }
  bool needs_bubble() const override;
  DeadlockClaim deadlock_claim() const override;
  void route(const RouteQuery& q, RouteSet& out) const override;

  /// DOR output port for a packet at router r heading to node dst, or the
  /// local port at the destination. Also used as the escape function.
  PortId next_port(RouterId r, NodeId dst) const;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  Mode m_mode;
  const KAryNCube* m_cube = nullptr;
};

}  // namespace ftsim::routing
