// Cycle-level routing through intermediate nodes with disabled adaptivity and
// misrouting: packets follow routes computed offline per source. Pure C++.
// Source: intermediate-nodes-direct-networks.txt, sections 3-4, 5.2, 5.3.2.
#pragma once
#include <unordered_map>
#include <unordered_set>

#include "routing_logic/inodes/inode_routes.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::routing {

/// Duato's minimal adaptive routing with one escape VC per subpath. With at
/// most N intermediate nodes, VCs 0..N are the escape VCs (VC i serves
/// subpath i: DOR, or direction order X+Y+Z+X-Y-Z- when misrouting is on,
/// with bubble flow control on tori) and VCs N+1..V-1 are adaptive, shared by
/// all subpaths (section 3: "a separate escape channel for each phase"). At
/// an intermediate node the packet moves to the next escape network, which
/// counts as entering a ring (two free packet buffers).
///
/// Misrouting (section 4.3, the paper's rule): the prefix's up to three
/// directions increase in direction order and the rest of the subpath, on
/// the adaptive VCs and on the escape VC, uses only directions at or after
/// the prefix's last one (a k/2 tie of a torus goes the later way when the
/// earlier one is already passed). Every escape hop of a subpath therefore
/// follows direction order, so one escape VC per subpath stays acyclic
/// (bubble inside a torus ring): I+M and I+D+M run with 2 escape VCs, the
/// paper's four VCs leave two adaptive ones (section 5.3.1).
///
/// The non-paper variant "Mfree" lets the rest start afresh in any direction
/// (ftsim before issue 11). A prefix followed by a fresh path is not
/// direction-ordered as a whole, so that variant gives each subpath two
/// escape VCs, 2i for its prefix phase and 2i+1 after it (I+Mfree and
/// I+D+Mfree need 5 VCs).
/// A deterministic subpath uses the deterministic next hop on the adaptive
/// VCs and the subpath's escape VC.
///
/// Header state (the Figure 8 header; the subheaders themselves come from the
/// source's routing-info table, looked up by (src, dst)): the header state is
/// an InodeHeader (subpath index, 0 while the I bit is set; misroute step;
/// hops done in that step). Routes are computed by set_static_faults(): unaffected
/// pairs route plainly; affected pairs get the preferred fault-free route of
/// inodes::find_route; pairs without one are dropped (reason no_route) and
/// counted in report().
/// InodeRouting's PacketHeader::state: where the packet is on its route
/// (Figure 8's subheaders). All zero at injection.
struct InodeHeader {
  std::uint8_t subpath = 0;        ///< index of the current subpath (Route::segments)
  std::uint8_t misroute_step = 0;  ///< misroute step of that subpath
  std::uint8_t step_hops = 0;      ///< hops done in that step
};

class InodeRouting : public RoutingRelation {
 public:
  explicit InodeRouting(inodes::Mechanism mech) : m_mech(mech) {}
  std::string name() const override { return "inodes:" + m_mech.name(); }
  int min_vcs() const override { return escape_vcs() + 1; }
  bool needs_bubble() const override;
  VcClass vc_class(VcId vc) const override { return vc < escape_vcs() ? VcClass::kEscape : VcClass::kAdaptive; }
  std::uint32_t injection_vcs() const override { return adaptive_vcs() | 1U; }
  void route(const RouteQuery& q, RouteSet& out) const override;
  void on_hop(PacketHeader& h, RouterId r, PortId port, VcId vc) const override;
  void set_static_faults(const FaultSet& faults) override;
  bool static_faults_only() const override { return true; }
  int header_overhead_flits(NodeId src, NodeId dst, int flit_bytes) const override;
  int max_header_overhead_flits(int flit_bytes) const override;
  std::vector<std::pair<std::string, double>> report() const override;

  const inodes::Mechanism& mechanism() const { return m_mech; }
  /// The route of a pair (nullptr: no fault-free route). Unaffected pairs get
  /// a one-subpath adaptive route.
  const inodes::Route* route_of(NodeId src, NodeId dst) const;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  /// Two escape VCs per subpath for Mfree (the prefix phase has its own
  /// escape network), one otherwise.
  bool split_escape() const { return m_mech.misroute && m_mech.free_continuation; }
  /// Escape VCs: one per subpath (two with Mfree).
  int escape_vcs() const { return (m_mech.max_intermediates + 1) * (split_escape() ? 2 : 1); }
  /// Escape VC of subpath `seg`, in its prefix phase or after it.
  int escape_vc(int seg, bool prefix) const { return split_escape() ? 2 * seg + (prefix ? 0 : 1) : seg; }
  std::uint32_t adaptive_vcs() const { return all_vcs() & ~((1U << escape_vcs()) - 1U); }
  /// Subpath index, misroute step and hops after skipping intermediate nodes
  /// already reached at router r.
  void position(const inodes::Route& rt, const PacketHeader& h, RouterId r, int& seg, int& step, int& hops) const;
  /// Deterministic next hop towards a target using directions >= min_dir
  /// (see inodes::CubeGeometry::deterministic_direction), from the
  /// DimDirection of every dimension from the router to the target.
  PortId deterministic_port(const DimDirection* way, int min_dir) const;
  static std::uint64_t pair_key(NodeId s, NodeId d) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(s)) << 32 | static_cast<std::uint32_t>(d);
  }

  inodes::Mechanism m_mech;
  const KAryNCube* m_cube = nullptr;
  std::unique_ptr<inodes::CubeGeometry> m_geo;
  std::unordered_map<std::uint64_t, inodes::Route> m_routes;  ///< affected pairs with a route
  std::unordered_set<std::uint64_t> m_unroutable;
  std::vector<inodes::Route> m_direct;  ///< per destination: one adaptive subpath
  std::size_t m_affected = 0;
  std::array<std::size_t, inodes::kCategories> m_by_category{};
  double m_compute_seconds = 0;
};

}  // namespace ftsim::routing
