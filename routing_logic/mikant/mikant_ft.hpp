// MiKANT link-fault-tolerant routing: Go-Neighbor-Switch (GNS) and
// Go-Down-Level (GDL) on top of Algorithm 1, as routing relations.
// Source: mikant-link-fault-tolerance.txt, sections 3.1.1, 3.1.2 and 3.2.1.
#pragma once
#include "routing_logic/mikant/mikant.hpp"
#include "routing_logic/mikant/mikant_shortest.hpp"

namespace ftsim::routing {

/// Which detours are enabled on top of Algorithm 1.
struct MikantFtFeatures {
  bool go_neighbor_switch = false;
  bool go_down_level = false;
  bool x_turns = false;  ///< only with go_neighbor_switch (Algorithm 2)
  bool three_turn = false;
};

/// A switch knows only whether its own links work (RouterView::port_alive).
/// At switch W with Algorithm 1's port p:
/// - p works: take it.
/// - GNS, p is an up port (towards the nearest common ancestor or the other
///   group) and L_W >= 1: go down any working port to Y at level L_W - 1, then
///   from Y up any working port to a neighbour W_N of W at level L_W (W_N
///   differs from W in digit L_W - 1), which continues with Algorithm 1
///   (Figure 2: <0,1,0,0> -> <0,0,0,1> -> <0,1,0,1> -> <1,1,0,1>).
/// - GDL, p is a down port T_{L_W-1} (downward phase) and L_W >= 1: go down a
///   working port x != T_{L_W-1} to Y, then up from Y to W' at level L_W with
///   digit L_W - 1 != W's, an ancestor of T too, which continues down
///   (Figure 3: <0,1,0,0> -> <0,0,0,1> -> <0,1,0,1> -> <0,0,0,0>).
/// - Three-Turn (section 3.1.4), at a top-level switch W (L_W = n-2) whose
///   link across to the destination's group is faulty: across to any other
///   switch of that group (digit n-2 != T_{n-2}), back across to a switch of
///   W's group other than W (digit n-2 != the saved W_{n-2}), and across again
///   with Algorithm 1 (three group changes).
/// - X-Turns (section 3.1.3, Algorithm 2, only with GNS), same situation:
///   across to a switch with digit n-2 != T_{n-2}, a neighbour switch there
///   (down, then up to digit n-3 != the saved W_{n-3}), back across to W's
///   group (digit n-2 != the saved W_{n-2}), then Algorithm 1 across again.
///   GNS's candidates come first, so a switch takes X-Turns when it cannot
///   go to a neighbour (at W's neighbour after a GNS, for instance).
/// Every working choice is a candidate (the relation is adaptive). The header
/// state is a MikantHeader; a packet never repeats a detour (no revisits, no
/// loops).
/// MikantFtRouting's PacketHeader::state. All zero at injection.
struct MikantHeader {
  std::uint8_t pending = 0;       ///< the pending detour step (kNoDetour.. in mikant_ft.cpp)
  std::uint8_t avoid_digit = 0;   ///< the digit the next up hop must avoid
  std::uint8_t used_levels = 0;   ///< bit l set: the GNS/GDL detour of level l was used
  std::uint8_t saved_w_top = 0;   ///< the saved digit W_{n-2} (never back to W)
  std::uint8_t crossed_once = 0;  ///< 1 once Three-Turn or X-Turns was used
};

class MikantFtRouting : public RoutingRelation {
 public:
  MikantFtRouting(std::string name, MikantFtFeatures f) : m_name(std::move(name)), m_features(f) {}
  std::string name() const override { return m_name; }
  void route(const RouteQuery& q, RouteSet& out) const override;
  void on_hop(PacketHeader& h, RouterId r, PortId port, VcId vc) const override;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  std::string m_name;
  MikantFtFeatures m_features;
  const Mikant* m_mk = nullptr;
  MikantShortestRouting m_shortest;
};

}  // namespace ftsim::routing
