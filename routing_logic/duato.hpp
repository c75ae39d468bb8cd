// Duato's fully adaptive minimal routing with a DOR escape channel.
#pragma once
#include "routing_logic/dor.hpp"

namespace ftsim::routing {

/// VC 0 is the escape VC: DOR, with bubble flow control on tori. VCs 1..V-1
/// are adaptive: any minimal direction. The selection function prefers the
/// adaptive candidates (priority 0) and falls back to the escape VC
/// (priority 1), so a packet takes the escape VC only when every profitable
/// adaptive VC is exhausted. Deadlock freedom follows from Duato's theorem:
/// the escape sub-relation's extended CDG is acyclic (mesh) or acyclic between
/// rings with bubble flow control inside each ring (torus).
/// Sources: intermediate-nodes-direct-networks.txt section 2; Immunet section 2.
class DuatoRouting : public RoutingRelation {
 public:
  std::string name() const override { return "duato"; }
  int min_vcs() const override { return 2; }
  bool needs_bubble() const override { return m_escape.needs_bubble(); }
  VcClass vc_class(VcId vc) const override { return vc == 0 ? VcClass::kEscape : VcClass::kAdaptive; }
  /// Duato's theorem: the escape sub-relation (DOR on VC 0, bubble on tori)
  /// has an acyclic extended CDG.
  DeadlockClaim deadlock_claim() const override {
    return {DeadlockClaim::Kind::kAcyclicEscapeCdg, m_escape.needs_bubble(),
            "Duato's theorem: escape VC 0 under dimension order"};
  }
  void route(const RouteQuery& q, RouteSet& out) const override;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  DorRouting m_escape{DorRouting::Mode::kBubble};
  const KAryNCube* m_cube = nullptr;
};

}  // namespace ftsim::routing
