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

#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::routing::inodes {

/// How a route is preferred among the fault-free ones (compared
/// lexicographically). The default, kExtensionsLast, is derived from the
/// paper's text (docs/reproduction/intermediate-nodes.md, "Preference"):
/// shortest first (Theorem 1, requirement 3; section 4.2: "j is minimized in
/// order to get the shortest path length possible"); at equal length an
/// adaptive route through intermediate nodes before disabling adaptivity
/// (section 4.2 uses D where "the set T_j n T_RS n T_D is empty") and before
/// misrouting (sections 1 and 4: the extensions "restrict routing even
/// more"; section 5.2: "most of the affected paths will only use an
/// intermediate node"), fewer intermediate nodes first (section 4.1.2), and
/// D before M (section 4 presents D, then misrouting as "the last
/// complementary mechanism"; section 5.2: an intermediate node costs O(1)
/// while misrouting must "explore all the possible hops ... until a
/// fault-free path is found").
enum class Preference : std::uint8_t {
  /// Length, then deterministic subpaths, then misrouted subpaths, then
  /// intermediate nodes: at equal length a misrouting prefix (after which
  /// "packets are adaptively routed", Table 1) beats a deterministic
  /// subpath. Not derived from the text: it was ftsim's default until issue
  /// 48, chosen because D+M kept more throughput with it (a reproduction may
  /// not choose a rule that way); kept by name for comparison.
  kAdaptivityFirst,
  /// The default (see above). Length, then misrouted subpaths, then
  /// deterministic subpaths, then intermediate nodes.
  kExtensionsLast,
  /// Fewest subpaths using D or M first, at any length, then as
  /// kExtensionsLast: the extensions only when intermediate nodes alone find
  /// no route within the search bound.
  kExtensionsWhenIFails,
  /// Length, then intermediate nodes, then deterministic, then misrouted
  /// subpaths (ftsim before issue 11; not the paper's reading: a minimal
  /// misrouting prefix beats a minimal route through one intermediate node).
  kFewestIntermediates,
};

/// The preference a mechanism name without "@..." gets.
constexpr Preference kDefaultPreference = Preference::kExtensionsLast;

/// A combination of the mechanisms of Table 1. "I" is max_intermediates = 1,
/// "IxN" is N, "D" allows deterministic subpaths, "M" allows a misrouting
/// prefix at the start of every subpath. Any combination is accepted (a
/// superset of Table 1); "none" is plain minimal adaptive routing.
struct Mechanism {
  int max_intermediates = 0;  ///< 0..3
  bool deterministic = false;
  bool misroute = false;
  /// Non-paper variant (term "Mfree"): after a misrouting prefix the rest of
  /// the subpath starts a fresh route in any direction. The paper's rule
  /// (false, term "M"): the rest continues the direction order X+Y+Z+X-Y-Z-
  /// from the prefix's last direction (sections 3, 4.3, 5.3.2), so one escape
  /// channel per subpath suffices.
  bool free_continuation = false;
  /// Variant (term "Mdim"): a misrouting prefix takes at most one direction
  /// per dimension (one sign and one hop count per dimension, still in
  /// direction order, 1..8 hops each): a reading of Fig. 8's header fields
  /// d_i and h_i as one field per dimension. The default ("M", false) is the
  /// text's: up to three directions of X+Y+Z+X-Y-Z- in order, so X+ and X-
  /// may both appear (section 4.3.1 and Fig. 6b: "one hop in the X+
  /// direction, then one hop in the Y+ direction, and one hop in the X-
  /// direction"; Table 1: "up to three directions").
  bool misroute_one_per_dimension = false;
  Preference preference = kDefaultPreference;
  /// Canonical name: "I", "Ix2", "I+D", "I+D+M", "Ix2+D", "D+M", "none",
  /// "I+D+Mfree", with "@<preference>" appended when it is not the default.
  std::string name() const;
};

/// Names of the preferences: "extensions-last", "extensions-when-i-fails",
/// "fewest-intermediates", "adaptivity-first".
std::string preference_name(Preference p);

/// Parses "I", "D", "M", "I+D", "I+M", "D+M", "I+D+M", "IxN" (N = 1..3),
/// "Ix2+D", "none" (order of the +-terms is free), "Mfree" in place of "M" for
/// the non-paper free continuation, and an optional "@<preference>" suffix.
/// Throws ConfigError naming the text and the accepted forms.
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

/// Cost of a route, compared under a Preference (section 4.1.2: shorter
/// paths first, fewer intermediate nodes among paths of equal length; the
/// rest is the issue-11 reading of sections 1, 4 and 5.2). Additive over
/// subpaths.
struct RouteKey {
  int length = 0;  ///< links
  int intermediates = 0;
  int deterministic = 0;  ///< subpaths with adaptivity disabled
  int misrouted = 0;      ///< subpaths with a misrouting prefix
  int extended = 0;       ///< subpaths using D or M (or both)
  bool operator==(const RouteKey& o) const;
  RouteKey operator+(const RouteKey& o) const {
    return {length + o.length, intermediates + o.intermediates, deterministic + o.deterministic,
            misrouted + o.misrouted, extended + o.extended};
  }
  /// The five fields in the order `p` compares them, most significant first
  /// (the fields a preference does not name come last).
  std::array<int, 5> ordered(Preference p) const;
  /// Inverse of ordered().
  static RouteKey from_ordered(const std::array<int, 5>& f, Preference p);
};

/// Strict order of route keys under preference p.
inline bool key_less(const RouteKey& a, const RouteKey& b, Preference p) {
  return a.ordered(p) < b.ordered(p);
}

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
  /// True for a mesh and for a torus whose radices are all even: every walk
  /// from a to b then has the parity of distance(a, b).
  bool bipartite() const;
  /// Link leaving router r in direction index dir, or kNone at a mesh edge.
  LinkId link(NodeId r, int dir) const;
  NodeId step(NodeId r, int dir) const;
  /// Largest useful hop count of one misroute step: min(8, k-1) (more hops
  /// on a torus ring revisit the start).
  int max_misroute_hops(int dir) const;
  /// True when link l lies on some minimal path from a to b (either
  /// orientation).
  bool on_minimal_path(LinkId l, NodeId a, NodeId b) const;
  /// True when every dimension still to travel from a to b has a minimal
  /// direction of index >= min_dir (direction order, section 4.3): the rest
  /// of a subpath after a prefix ending in direction min_dir continues the
  /// order. On a torus, an offset of k/2 may be travelled in either
  /// direction; min_dir = 0 always holds.
  bool continues_order(NodeId a, NodeId b, int min_dir) const;
  /// True when link l lies on a minimal path from a to b whose every hop has
  /// direction index >= min_dir (only the k/2 ties of a torus are narrowed:
  /// a tie in dimension d with d+ < min_dir must go d-). Precondition:
  /// continues_order(a, b, min_dir).
  bool on_ordered_minimal_path(LinkId l, NodeId a, NodeId b, int min_dir) const;
  /// True when b is k/2 hops from a along dimension d of a torus (both
  /// directions minimal).
  bool tie(NodeId a, NodeId b, int d) const;
  /// Calls f(link) for every link of the deterministic path from a to b:
  /// dimension order (X, Y, Z, minimal direction, + on a tie) or, when
  /// direction_order, X+ Y+ Z+ X- Y- Z- (section 4.3, 5.3.2) using only
  /// directions of index >= min_dir (a tie goes + when d+ >= min_dir, else
  /// -). Precondition: continues_order(a, b, min_dir).
  void deterministic_path(NodeId a, NodeId b, bool direction_order, const std::function<void(LinkId)>& f,
                          int min_dir = 0) const;
  /// Direction index of the deterministic next hop from a towards b (see
  /// deterministic_path), or -1 when a == b.
  int deterministic_direction(NodeId a, NodeId b, bool direction_order, int min_dir = 0) const;
  /// The same from the DimDirection of every dimension from a to b
  /// (`way[0..dims()-1]`, dim_direction), for a caller that already has them.
  int deterministic_direction(const DimDirection* way, bool direction_order, int min_dir = 0) const;
  /// Walks a misrouting prefix from a; calls f(link) per hop. Returns the end
  /// node, or kNone when the walk leaves a mesh.
  NodeId misroute_walk(NodeId a, const Segment& seg, const std::function<void(LinkId)>& f) const;
  /// All misrouting prefixes from a (1..3 steps, strictly increasing
  /// direction order, 1..max_misroute_hops hops each) of total length <=
  /// max_length; f(prefix segment with misroute filled, end node, length).
  /// With a target, only prefixes whose length plus the distance from their
  /// end to the target stays <= max_length (a hop never lowers that sum, so
  /// the walk is cut as soon as it exceeds it).
  /// one_per_dimension: at most one direction per dimension (the "Mdim"
  /// reading, Mechanism::misroute_one_per_dimension).
  void for_each_prefix(NodeId a, int max_length, const std::function<void(const Segment&, NodeId, int)>& f,
                       NodeId target = kNone, bool one_per_dimension = false) const;

 private:
  const KAryNCube& m_cube;
};

/// Fault oracle over a fixed link set: answers whether a segment is clear.
class FaultyLinks {
 public:
  FaultyLinks(const CubeGeometry& geo, const std::vector<LinkId>& faults);
  bool faulty(LinkId l) const { return l >= 0 && m_faulty[static_cast<std::size_t>(l)]; }
  /// No fault on any minimal path from a to b (node a "reaches" b, section
  /// 3.1); with min_dir > 0, on any such path using directions >= min_dir.
  bool adaptive_clear(NodeId a, NodeId b, int min_dir = 0) const;
  bool deterministic_clear(NodeId a, NodeId b, bool direction_order, int min_dir = 0) const;
  /// The whole segment from a: prefix walk then the adaptive or deterministic
  /// rest (false when the rest may not continue the direction order, see
  /// rest_min_direction).
  bool segment_clear(NodeId a, const Segment& seg, const Mechanism& mech) const;
  const std::vector<LinkId>& faults() const { return m_faults; }

 private:
  const CubeGeometry& m_geo;
  std::vector<LinkId> m_faults;
  std::vector<bool> m_faulty;
  /// Per fault i: distances from its end a to every node (2i * nodes ..)
  /// and from its end b (2i + 1).
  std::vector<int> m_end_distance;
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

/// Smallest direction index the rest of `seg` may use after its prefix: the
/// prefix's last direction under the paper's rule, 0 without a prefix or
/// with free continuation.
inline int rest_min_direction(const Mechanism& m, const Segment& seg) {
  if (m.free_continuation || seg.misroute_steps == 0) return 0;
  return seg.misroute[static_cast<std::size_t>(seg.misroute_steps - 1)].direction;
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
