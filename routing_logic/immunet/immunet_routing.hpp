// Immunet's adaptive bubble routing (ABR) over Safe, Adaptive and SS tables.
#pragma once
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::routing {

/// Two virtual networks (immunet-fault-tolerant-routing.txt, sections 2-3):
/// VC 0 is the safe VC (bubble rings), VCs 1..V-1 are adaptive (VCT, minimal,
/// steered by the Adaptive Table). The adaptive candidates come first
/// (priority 0); the safe VC (priority 1) is taken only when every profitable
/// adaptive VC is exhausted.
///
/// Safe VC: a packet already on the safe ring follows the SS table (no
/// bubble needed). With the fault-free dimension rings it leaves the ring
/// where the Safe Table (DOR) says so, entering the next dimension's ring
/// (bubble). With the single tour ring it stays on the ring until its
/// destination, so it never re-enters the ring it is on. Entering the safe
/// network (from the node, from an adaptive VC, or from a port that is not on
/// the ring) goes to the Safe Table's port and needs the bubble.
///
/// Livelock bound (section 3): PacketHeader::moves counts moves from the safe
/// to the adaptive network; after max_moves the packet stays on the safe
/// network, which reaches every survivor.
class ImmunetRouting : public RoutingRelation {
 public:
  explicit ImmunetRouting(int max_moves = 4) : m_max_moves(max_moves) {}
  std::string name() const override { return "immunet"; }
  int min_vcs() const override { return 2; }
  bool needs_bubble() const override { return true; }
  VcClass vc_class(VcId vc) const override { return vc == 0 ? VcClass::kEscape : VcClass::kAdaptive; }
  void route(const RouteQuery& q, RouteSet& out) const override;
  int max_moves() const { return m_max_moves; }
  /// Livelock bound (immunet.max_moves), 0..255.
  void set_max_moves(int moves) { m_max_moves = moves; }

 protected:
  void check_topology(const Topology& topo) const override;

 private:
  int m_max_moves;
};

}  // namespace ftsim::routing
