// Fault-tolerant routes through intermediate nodes (I, IxN), disabled
// adaptivity (D) and direction-order misrouting (M) on meshes and tori.
// Pure C++. Source: intermediate-nodes-direct-networks.txt, sections 3-4 and
// Table 1.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routing_logic/kary_ncube.hpp"

namespace ftsim::routing::inodes {

/// A combination of the mechanisms of Table 1. "I" is max_intermediates = 1,
/// "IxN" is N, "D" allows deterministic subpaths, "M" allows a misrouting
/// prefix at the start of every subpath. Any combination is accepted (a
/// superset of Table 1); "none" is plain minimal adaptive routing.
struct Mechanism {
  int max_intermediates = 0;  ///< 0..3
  bool deterministic = false;
  bool misroute = false;
  /// Canonical name: "I", "Ix2", "I+D", "I+D+M", "Ix2+D", "D+M", "none".
  std::string name() const;
};

/// Parses "I", "D", "M", "I+D", "I+M", "D+M", "I+D+M", "IxN" (N = 1..3),
/// "Ix2+D", "none" (order of the +-terms is free). Throws ConfigError naming the
/// text and the accepted forms.
Mechanism parse_mechanism(const std::string& text);

/// The combinations evaluated in the paper (Table 1 and section 5.1).
std::vector<std::string> table1_mechanisms();

/// Direction index 0..2n-1 in direction order X+ Y+ Z+ X- Y- Z- (section 4.3):
/// direction d+ is d, d- is n + d.
inline int direction_index(int dim, bool plus, int dims) {
  return plus ? dim : dims + dim;
}

/// One forced move of a misrouting prefix: `hops` hops (1..8) in `direction`.
struct MisrouteStep {
  std::uint8_t direction = 0;
  std::uint8_t hops = 0;
};

/// A subpath from the previous end point to `to`: an optional misrouting
/// prefix of up to three steps in strictly increasing direction order, then
/// minimal adaptive routing, or deterministic routing when `deterministic`.
struct Segment {
  NodeId to = kNone;
  std::uint8_t misroute_steps = 0;  ///< 0..3
  std::array<MisrouteStep, 3> misroute{};
  bool deterministic = false;
};

/// Preference key (section 4.1.2 and the issue): shorter path first, then
/// fewer intermediate nodes, then fewer deterministic subpaths, then fewer
/// misrouted subpaths. Compared lexicographically.
struct RouteKey {
  int length = 0;  ///< links
  int intermediates = 0;
  int deterministic = 0;
  int misrouted = 0;
  bool operator<(const RouteKey& o) const;
  bool operator==(const RouteKey& o) const;
  bool operator<=(const RouteKey& o) const { return !(o < *this); }
  RouteKey operator+(const RouteKey& o) const {
    return {length + o.length, intermediates + o.intermediates, deterministic + o.deterministic,
            misrouted + o.misrouted};
  }
};

/// Mechanism-share category of a route (Table 3): "direct" for an unaffected
/// minimal adaptive route, otherwise the mechanisms it uses ("I", "Ix2",
/// "I+D", "D+M", ...).
std::string category_name(const RouteKey& key);
/// Dense index of a category: intermediates (0..3) * 4 + det * 2 + mis.
inline int category_index(const RouteKey& k) {
  return (k.intermediates > 3 ? 3 : k.intermediates) * 4 + (k.deterministic > 0 ? 2 : 0) + (k.misrouted > 0 ? 1 : 0);
}
constexpr int kCategories = 16;

/// A source route: up to four subpaths (three intermediate nodes).
struct Route {
  std::array<Segment, 4> segments{};
  int count = 0;
  RouteKey key;
};

/// Geometry of a mesh or torus for route computation: distances, minimal-path
/// link sets, deterministic paths and misrouting walks, all in O(path length).
class CubeGeometry {
 public:
  explicit CubeGeometry(const KAryNCube& cube) : m_cube(cube) {}
  const KAryNCube& cube() const { return m_cube; }
  int dims() const { return m_cube.dimensions(); }
  int directions() const { return 2 * dims(); }
  /// Minimal hop count from a to b.
  int distance(NodeId a, NodeId b) const;
  /// Link leaving router r in direction index dir, or kNone at a mesh edge.
  LinkId link(NodeId r, int dir) const;
  NodeId step(NodeId r, int dir) const;
  /// Largest useful hop count of one misroute step: min(8, k-1) (more hops
  /// on a torus ring revisit the start).
  int max_misroute_hops(int dir) const;
  /// True when link l lies on some minimal path from a to b (either
  /// orientation).
  bool on_minimal_path(LinkId l, NodeId a, NodeId b) const;
  /// Calls f(link) for every link of the deterministic path from a to b:
  /// dimension order (X, Y, Z, minimal direction, + on a tie) or, when
  /// direction_order, X+ Y+ Z+ X- Y- Z- (section 4.3, 5.3.2).
  void deterministic_path(NodeId a, NodeId b, bool direction_order, const std::function<void(LinkId)>& f) const;
  /// Walks a misrouting prefix from a; calls f(link) per hop. Returns the end
  /// node, or kNone when the walk leaves a mesh.
  NodeId misroute_walk(NodeId a, const Segment& seg, const std::function<void(LinkId)>& f) const;
  /// All misrouting prefixes from a (1..3 steps, strictly increasing
  /// direction order, 1..max_misroute_hops hops each) of total length <=
  /// max_length; f(prefix segment with misroute filled, end node, length).
  /// With a target, only prefixes whose length plus the distance from their
  /// end to the target stays <= max_length (a hop never lowers that sum, so
  /// the walk is cut as soon as it exceeds it).
  void for_each_prefix(NodeId a, int max_length, const std::function<void(const Segment&, NodeId, int)>& f,
                       NodeId target = kNone) const;

 private:
  const KAryNCube& m_cube;
};

/// Fault oracle over a fixed link set: answers whether a segment is clear.
class FaultyLinks {
 public:
  FaultyLinks(const CubeGeometry& geo, const std::vector<LinkId>& faults);
  bool faulty(LinkId l) const { return l >= 0 && m_faulty[static_cast<std::size_t>(l)]; }
  /// No fault on any minimal path from a to b (node a "reaches" b, section 3.1).
  bool adaptive_clear(NodeId a, NodeId b) const;
  bool deterministic_clear(NodeId a, NodeId b, bool direction_order) const;
  /// The whole segment from a: prefix walk then the adaptive or deterministic
  /// rest.
  bool segment_clear(NodeId a, const Segment& seg, bool direction_order) const;
  const std::vector<LinkId>& faults() const { return m_faults; }

 private:
  const CubeGeometry& m_geo;
  std::vector<LinkId> m_faults;
  std::vector<bool> m_faulty;
};

/// Enumerates every route from s to d allowed by `mech` with length <=
/// max_length, calling f(route). Intermediate nodes differ from s, d and
/// their predecessor. Order: by number of segments, then node id, then
/// segment options; keys are not sorted.
void enumerate_routes(const CubeGeometry& geo, const Mechanism& mech, NodeId s, NodeId d, int max_length,
                      const std::function<void(const Route&)>& f);

/// Same, restricted to routes with exactly `intermediates` intermediate nodes
/// whose every subpath passes segment_ok(from, segment) (a pruning filter:
/// a rejected subpath is not extended).
void enumerate_routes(const CubeGeometry& geo, const Mechanism& mech, NodeId s, NodeId d, int max_length,
                      int intermediates, const std::function<bool(NodeId, const Segment&)>& segment_ok,
                      const std::function<void(const Route&)>& f);

/// The same preferred route as the analyser's (Theorems 1 and 2, Corollary 1,
/// section 4.3), found by a bounded search for the cycle-level model on large
/// networks: the preferred fault-free route from s to d (smallest RouteKey; among equal
/// keys one drawn uniformly by a generator seeded with (s, d)), searching
/// lengths l(s,d), l(s,d)+1, ... up to max_extra hops beyond minimal.
/// Returns false when none exists.
bool find_route(const CubeGeometry& geo, const Mechanism& mech, const FaultyLinks& faults, NodeId s, NodeId d,
                Route& out, int max_extra = 24);

/// Deterministic paths use direction order when misrouting is enabled
/// (section 5.3.2), dimension order otherwise.
inline bool uses_direction_order(const Mechanism& m) {
  return m.misroute;
}

/// Bits of one subheader of the Figure 8 packet header for `mech` on a
/// network of `nodes` nodes: destination/intermediate address, three
/// misroute fields of 3 direction bits + 3 hop bits (M), the disable-adaptive
/// bit (D). The whole header adds the I bit and one subheader per
/// intermediate node.
int subheader_bits(const Mechanism& mech, int nodes);
/// Bytes of one source's routing-info table entry (section 5.2): per
/// destination, two bytes per intermediate node plus the misroute and D
/// fields, rounded up to bytes.
int routing_info_entry_bytes(const Mechanism& mech, int nodes);

}  // namespace ftsim::routing::inodes
