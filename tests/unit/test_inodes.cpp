// Intermediate nodes, disabled adaptivity and misrouting: route computation
// and the fault-tolerance analyser against hand counts and a brute-force
// reference written here from the paper's definitions (no shared code).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <queue>
#include <random>
#include <set>

#include "routing_logic/cdg.hpp"
#include "routing_logic/inodes/inode_analyzer.hpp"
#include "routing_logic/inodes/inode_routes.hpp"
#include "routing_logic/inodes/inode_routing.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/kary_ncube.hpp"

namespace {
using ftsim::ConfigError;

using namespace ftsim::routing;
using namespace ftsim::routing::inodes;

TEST(InodeMechanism, ParsesTable1NamesAndRejectsOthers) {
  for (const auto& n : table1_mechanisms()) EXPECT_EQ(parse_mechanism(n).name(), n);
  EXPECT_EQ(parse_mechanism("M+D+I").name(), "I+D+M");
  EXPECT_EQ(parse_mechanism("Ix2+D").max_intermediates, 2);
  EXPECT_EQ(parse_mechanism("none").name(), "none");
  EXPECT_THROW(parse_mechanism("I+X"), ConfigError);
  EXPECT_THROW(parse_mechanism("Ix4"), ConfigError);
  EXPECT_THROW(parse_mechanism("I+I"), ConfigError);
  EXPECT_THROW(parse_mechanism(""), ConfigError);
  // The non-paper free continuation and the preferences round-trip; the
  // default preference is not spelled out.
  EXPECT_EQ(parse_mechanism("I+D+Mfree").name(), "I+D+Mfree");
  EXPECT_EQ(parse_mechanism("Mdim+D").name(), "D+Mdim");
  EXPECT_TRUE(parse_mechanism("I+Mdim").misroute_one_per_dimension);
  EXPECT_FALSE(parse_mechanism("I+M").misroute_one_per_dimension);
  EXPECT_TRUE(parse_mechanism("I+D+Mfree").free_continuation);
  EXPECT_FALSE(parse_mechanism("I+D+M").free_continuation);
  EXPECT_EQ(parse_mechanism("I+D+M@extensions-last").name(), "I+D+M");
  EXPECT_EQ(parse_mechanism("I+D+M@adaptivity-first").name(), "I+D+M@adaptivity-first");
  EXPECT_EQ(parse_mechanism("I+M@fewest-intermediates").name(), "I+M@fewest-intermediates");
  EXPECT_EQ(parse_mechanism("Ix2+D@extensions-when-i-fails").preference, Preference::kExtensionsWhenIFails);
  EXPECT_EQ(parse_mechanism("D+M").preference, Preference::kExtensionsLast);
  EXPECT_THROW(parse_mechanism("I+M@shortest"), ConfigError);
  EXPECT_THROW(parse_mechanism("M+Mfree"), ConfigError);
}

TEST(InodeAnalyzerScan, VectorAndPlainMinSumsAgreeWithBruteForce) {
  // The exhaustive analysis's intermediate-node scan: min over i of a[i] +
  // b[i], with keys below 2^40 and the no-route key 2^60 mixed in, for every
  // length 1..40 (the AVX2 build handles four at a time plus a remainder).
  std::mt19937_64 rng(5);
  for (std::uint32_t n = 1; n <= 40; ++n)
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<std::uint64_t> a(n), b(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        a[i] = rng() % 4 == 0 ? 1ULL << 60 : rng() % (1ULL << 40);
        b[i] = rng() % 4 == 0 ? 1ULL << 60 : rng() % (1ULL << 40);
      }
      std::uint64_t want = a[0] + b[0];
      for (std::uint32_t i = 1; i < n; ++i) want = std::min(want, a[i] + b[i]);
      ASSERT_EQ(inodes::detail::min_sum(a.data(), b.data(), n, false), want) << n;
      ASSERT_EQ(inodes::detail::min_sum(a.data(), b.data(), n, true), want) << n;
    }
  // Say which build the other tests exercised (both agree, above).
  std::printf("min_sum: %s\n", inodes::detail::min_sum_simd_available() ? "AVX2 build in use" : "plain build only");
}

TEST(InodeRouteKey, PreferencesOrderTheSameRoutesDifferently) {
  // A minimal misrouting prefix (length 4, one misrouted subpath) against a
  // minimal route through one intermediate node (length 4, I = 1).
  const RouteKey misrouted{4, 0, 0, 1, 1}, via_node{4, 1, 0, 0, 0}, longer_via_node{6, 1, 0, 0, 0};
  EXPECT_TRUE(key_less(via_node, misrouted, Preference::kExtensionsLast));
  EXPECT_TRUE(key_less(misrouted, via_node, Preference::kFewestIntermediates));
  EXPECT_TRUE(key_less(misrouted, longer_via_node, Preference::kExtensionsLast));
  EXPECT_TRUE(key_less(longer_via_node, misrouted, Preference::kExtensionsWhenIFails));
  // A minimal deterministic subpath against a minimal misrouting prefix:
  // the default prefers D (fewer misrouted subpaths), adaptivity-first M.
  const RouteKey deterministic{4, 0, 1, 0, 1};
  EXPECT_TRUE(key_less(deterministic, misrouted, Preference::kExtensionsLast));
  EXPECT_TRUE(key_less(misrouted, deterministic, Preference::kAdaptivityFirst));
  EXPECT_TRUE(key_less(via_node, misrouted, Preference::kAdaptivityFirst));
  for (Preference p : {Preference::kExtensionsLast, Preference::kExtensionsWhenIFails, Preference::kFewestIntermediates,
                       Preference::kAdaptivityFirst}) {
    const RouteKey k{7, 2, 1, 1, 2};
    EXPECT_TRUE(RouteKey::from_ordered(k.ordered(p), p) == k);
    EXPECT_TRUE(unpack_key(pack_key(k, p), p) == k);
    // Packing keeps order and addition.
    EXPECT_EQ(pack_key(k + via_node, p), pack_key(k, p) + pack_key(via_node, p));
    EXPECT_EQ(key_less(misrouted, via_node, p), pack_key(misrouted, p) < pack_key(via_node, p));
  }
}

TEST(InodeGeometry, RestAfterAPrefixContinuesTheDirectionOrderByHand) {
  // 4x4 torus, directions X+ Y+ X- Y- = 0 1 2 3. From (0,0) to (2,0) the X
  // offset is a tie (2 = k/2): unrestricted, both half rings are minimal (4
  // links); after a prefix ending in Y+ (min_dir 1) only X- may be used:
  // (0,0) -> (3,0) -> (2,0), 2 links, and the deterministic path is the same.
  const KAryNCube t({4, 4}, true);
  const CubeGeometry g(t);
  const NodeId a = t.parse_router("0,0"), b = t.parse_router("2,0");
  auto count = [&](int lo) {
    int c = 0;
    for (LinkId l = 0; l < t.num_links(); ++l) c += g.on_ordered_minimal_path(l, a, b, lo);
    return c;
  };
  EXPECT_EQ(count(0), 4);
  EXPECT_EQ(count(1), 2);
  EXPECT_EQ(count(2), 2);
  std::vector<NodeId> hops;
  g.deterministic_path(
      a, b, true, [&](LinkId l) { hops.push_back(t.link(l).a == a || t.link(l).b == a ? 1 : 2); }, 1);
  EXPECT_EQ(hops.size(), 2U);
  EXPECT_EQ(g.deterministic_direction(a, b, true, 0), 0);  // X+ on a tie
  EXPECT_EQ(g.deterministic_direction(a, b, true, 1), 2);  // X- once Y+ is passed
  EXPECT_TRUE(g.continues_order(a, b, 2));
  EXPECT_FALSE(g.continues_order(a, b, 3));  // after Y- no X move is left
  // (0,0) -> (1,1) needs X+ and Y+: fine after X+ (0), not after Y+ (1).
  const NodeId c = t.parse_router("1,1");
  EXPECT_TRUE(g.continues_order(a, c, 0));
  EXPECT_FALSE(g.continues_order(a, c, 1));
  // Bipartite (every walk keeps the parity of the distance, so the route
  // search skips the other lengths): meshes and even-radix tori only.
  EXPECT_TRUE(g.bipartite());
  EXPECT_TRUE(CubeGeometry(KAryNCube({3, 5}, false)).bipartite());
  EXPECT_FALSE(CubeGeometry(KAryNCube({4, 3}, true)).bipartite());
  EXPECT_FALSE(CubeGeometry(KAryNCube({3, 3, 3}, true)).bipartite());
  // A mesh has no ties: the bound only accepts or rejects.
  const KAryNCube m({3, 3}, false);
  const CubeGeometry gm(m);
  EXPECT_FALSE(gm.continues_order(m.parse_router("0,2"), m.parse_router("1,1"), 1));  // X+ after Y+
  EXPECT_TRUE(gm.continues_order(m.parse_router("0,2"), m.parse_router("0,1"), 1));   // Y- after Y+
}

TEST(InodeMisrouting, APairOnlyAContinuationAgainstTheOrderCouldRoute) {
  // Hand example, 3x3 mesh, D+M, the link (0,1)-(1,1) faulty, pair
  // (0,1) -> (1,1). Every detour goes round through row 0 or row 2: Y+ X+ Y-
  // or Y- X+ Y+, and in direction order X+ Y+ X- Y- X+ never follows Y+ or
  // Y-. The paper's rule therefore has no route: prefixes from (0,1) are
  // X+ (the faulty link), Y+ 1 (rest needs X+ < Y+), Y- 1 (rest needs X+,
  // Y+ < Y-), and nothing can follow Y+ (X- leaves the mesh, Y- walks back)
  // or Y-. The free continuation routes it: prefix Y+ 1 to (0,2), then the
  // deterministic direction-order rest X+ to (1,2), Y- to (1,1): 3 links.
  const KAryNCube m({3, 3}, false);
  const CubeGeometry g(m);
  const NodeId s = m.parse_router("0,1"), d = m.parse_router("1,1");
  LinkId faulty = kNone;
  for (PortId p = 1; p < m.radix(s); ++p)
    if (m.peer(s, p).kind == PortPeer::Kind::kRouter && m.peer(s, p).id == d) faulty = m.peer(s, p).link;
  ASSERT_NE(faulty, kNone);
  const FaultyLinks fl(g, {faulty});
  Route r;
  EXPECT_FALSE(find_route(g, parse_mechanism("D+M"), fl, s, d, r));
  ASSERT_TRUE(find_route(g, parse_mechanism("D+Mfree"), fl, s, d, r));
  EXPECT_EQ(r.key.length, 3);
  EXPECT_EQ(r.count, 1);
  EXPECT_TRUE(r.segments[0].deterministic);
  ASSERT_EQ(r.segments[0].misroute_steps, 1);
  EXPECT_EQ(r.segments[0].misroute[0].direction, 1);  // Y+
  EXPECT_EQ(r.segments[0].misroute[0].hops, 1);
  // The analyser agrees pair by pair.
  const auto paper = FaultToleranceAnalyzer(m, parse_mechanism("D+M")).evaluate({faulty});
  const auto free = FaultToleranceAnalyzer(m, parse_mechanism("D+Mfree")).evaluate({faulty});
  EXPECT_EQ(paper[static_cast<std::size_t>(s * 9 + d)].status, PairOutcome::Status::kUnroutable);
  EXPECT_EQ(free[static_cast<std::size_t>(s * 9 + d)].status, PairOutcome::Status::kRouted);
  // With an intermediate node the paper's rule routes it: I+M goes through
  // (0,2) or (0,0) (two subpaths, each starting a fresh order).
  ASSERT_TRUE(find_route(g, parse_mechanism("I+M"), fl, s, d, r));
  EXPECT_EQ(r.key.length, 3);
  EXPECT_EQ(r.key.intermediates, 1);
}

TEST(InodeGeometry, MinimalPathLinksAndPrefixCountsByHand) {
  const KAryNCube mesh({3, 3}, false);
  const CubeGeometry g(mesh);
  auto count_minimal = [&](NodeId a, NodeId b) {
    int c = 0;
    for (LinkId l = 0; l < mesh.num_links(); ++l) c += g.on_minimal_path(l, a, b);
    return c;
  };
  // Corner to corner of a 3x3 mesh: every one of the 12 links is on a
  // monotone path; (0,0) to (1,1): the four links of the unit square.
  EXPECT_EQ(count_minimal(0, 8), 12);
  EXPECT_EQ(count_minimal(0, 4), 4);
  EXPECT_EQ(count_minimal(0, 1), 1);
  // 3x3x3 torus prefixes from one node: directions X+Y+Z+X-Y-Z- (0..5), hops
  // 1..2, strictly increasing, no d- directly after d+. Pairs: 15 minus
  // (X+,X-), (Y+,Y-), (Z+,Z-) = 12. Triples: 20 minus those with such a
  // consecutive pair: X+X-Y-, X+X-Z-, X+Y+Y-, Y+Y-Z-, X+Z+Z-, Y+Z+Z- = 14.
  // 1 step 6*2 + 2 steps 12*4 + 3 steps 14*8 = 12 + 48 + 112 = 172.
  const KAryNCube torus({3, 3, 3}, true);
  const CubeGeometry gt(torus);
  int prefixes = 0;
  gt.for_each_prefix(0, 100, [&](const Segment&, NodeId, int) { ++prefixes; });
  EXPECT_EQ(prefixes, 172);
  // One direction per dimension (Mdim): per dimension absent, + (1..2 hops)
  // or - (1..2 hops), in direction order: 5^3 - 1 = 124 prefixes.
  int per_dimension = 0;
  gt.for_each_prefix(
      0, 100, [&](const Segment&, NodeId, int) { ++per_dimension; }, kNone, true);
  EXPECT_EQ(per_dimension, 124);
  // Mesh corner (0,0): X+ 1..2 (2), Y+ 1..2 (2), X+ then Y+ (2*2), and
  // X+ h, Y+ 1..2, X- 1..h (1*2 + 2*2 = 6): 14 prefixes. Y- or X- first
  // leave the mesh; Y+ then X- too.
  int mesh_prefixes = 0;
  g.for_each_prefix(0, 100, [&](const Segment&, NodeId, int) { ++mesh_prefixes; });
  EXPECT_EQ(mesh_prefixes, 14);
}

TEST(InodeGeometry, DistanceOneRegionHasThirtyThreeLinksOn3x3x3And36On5x5x5) {
  // Section 5.1.1: 36 links around a centre node, 33 in the 3x3x3 torus.
  const KAryNCube t3({3, 3, 3}, true), t5({5, 5, 5}, true);
  EXPECT_EQ(FaultToleranceAnalyzer(t3, parse_mechanism("I")).distance1_region(13).size(), 33U);
  // 5x5x5 has 375 links, over the analyser's limit: count by hand instead.
  const CubeGeometry g5(t5);
  int c = 0;
  for (const Link& lk : t5.links()) c += g5.distance(0, lk.a) <= 1 || g5.distance(0, lk.b) <= 1;
  EXPECT_EQ(c, 36);
}

TEST(InodeRoutingInfo, Ix2TableFor65536NodesIs256KB) {
  // Section 5.2, footnote 13: two bytes per intermediate node, (2B+2B)*65,536.
  EXPECT_EQ(routing_info_entry_bytes(parse_mechanism("Ix2"), 65536) * 65536, 256 * 1024);
  // Figure 8 subheader for I+D+M on 512 nodes: 9 address bits, 3 x (3+3)
  // misroute bits, 1 disable-adaptive bit.
  EXPECT_EQ(subheader_bits(parse_mechanism("I+D+M"), 512), 9 + 18 + 1);
}

// ------------------------------------------------------------ brute force

/// A reference written from the definitions: BFS distances over the wiring,
/// minimal-path link sets by enumerating every shortest path, deterministic
/// paths by coordinates, prefixes by a separate recursion, and routes as
/// explicit chains of node sequences.
class BruteForce {
 public:
  BruteForce(const KAryNCube& c, const Mechanism& m) : m_c(c), m_m(m), m_n(c.num_nodes()) {
    m_dist.assign(static_cast<std::size_t>(m_n), std::vector<int>(static_cast<std::size_t>(m_n), -1));
    for (NodeId s = 0; s < m_n; ++s) {
      std::queue<NodeId> q;
      q.push(s);
      m_dist[s][s] = 0;
      while (!q.empty()) {
        const NodeId u = q.front();
        q.pop();
        for (PortId p = 1; p < c.radix(u); ++p) {
          const PortPeer& pp = c.peer(u, p);
          if (pp.kind != PortPeer::Kind::kRouter || m_dist[s][pp.id] >= 0) continue;
          m_dist[s][pp.id] = m_dist[s][u] + 1;
          q.push(pp.id);
        }
      }
    }
    // Segment options per ordered pair: (links, key).
    m_seg.resize(static_cast<std::size_t>(m_n * m_n));
    for (NodeId a = 0; a < m_n; ++a)
      for (NodeId b = 0; b < m_n; ++b)
        if (a != b) m_seg[a * m_n + b] = segment_options(a, b);
  }

  /// Best key or nullopt-like (-1 length) when no fault-free route exists.
  RouteKey best(NodeId s, NodeId d, const std::set<LinkId>& f) const {
    RouteKey best{-1, 0, 0, 0, 0};
    std::vector<NodeId> chain{s};
    std::function<void()> rec = [&] {
      const int inter = static_cast<int>(chain.size()) - 1;
      // close the chain at d
      std::vector<NodeId> full = chain;
      full.push_back(d);
      consider(full, f, best);
      if (inter == m_m.max_intermediates) return;
      for (NodeId b = 0; b < m_n; ++b) {
        if (b == s || b == d || b == chain.back()) continue;
        chain.push_back(b);
        rec();
        chain.pop_back();
      }
    };
    rec();
    return best;
  }

 private:
  struct Opt {
    std::vector<LinkId> links;
    RouteKey key;
  };

  void consider(const std::vector<NodeId>& nodes, const std::set<LinkId>& f, RouteKey& best) const {
    // Product of the segment options along the chain.
    std::function<void(std::size_t, RouteKey)> rec = [&](std::size_t i, RouteKey acc) {
      if (i + 1 == nodes.size()) {
        acc.intermediates = static_cast<int>(nodes.size()) - 2;
        if (best.length < 0 || key_less(acc, best, m_m.preference)) best = acc;
        return;
      }
      for (const Opt& o : m_seg[nodes[i] * m_n + nodes[i + 1]]) {
        bool clear = true;
        for (LinkId l : o.links) clear = clear && !f.count(l);
        if (clear) rec(i + 1, acc + o.key);
      }
    };
    rec(0, RouteKey{});
  }

  LinkId link_between(NodeId u, NodeId v) const {
    for (PortId p = 1; p < m_c.radix(u); ++p)
      if (m_c.peer(u, p).kind == PortPeer::Kind::kRouter && m_c.peer(u, p).id == v) return m_c.peer(u, p).link;
    return kNone;
  }

  /// Direction index of leaving through port p: X+ Y+ Z+ X- Y- Z- = 0..2n-1.
  int direction_of(PortId p) const {
    const int n = m_c.dimensions();
    return KAryNCube::is_plus(p) ? KAryNCube::dim_of(p) : n + KAryNCube::dim_of(p);
  }

  /// Links of every shortest path from a to b whose every hop has direction
  /// index >= min_dir; `exists` tells whether there is such a path at all.
  std::vector<LinkId> all_minimal_links(NodeId a, NodeId b, int min_dir = 0, bool* exists = nullptr) const {
    std::set<LinkId> s;
    std::vector<LinkId> path;
    bool any = false;
    std::function<void(NodeId)> walk = [&](NodeId u) {
      if (u == b) {
        any = true;
        s.insert(path.begin(), path.end());
        return;
      }
      for (PortId p = 1; p < m_c.radix(u); ++p) {
        const PortPeer& pp = m_c.peer(u, p);
        if (pp.kind != PortPeer::Kind::kRouter || m_dist[pp.id][b] != m_dist[u][b] - 1) continue;
        if (direction_of(p) < min_dir) continue;
        path.push_back(pp.link);
        walk(pp.id);
        path.pop_back();
      }
    };
    walk(a);
    if (exists != nullptr) *exists = any;
    return {s.begin(), s.end()};
  }

  /// Direction-order path from a to b over directions >= min_dir, built
  /// greedily: every hop takes the lowest-index direction >= min_dir that
  /// brings the packet one hop closer (X+ Y+ Z+ X- Y- Z-; on a k/2 tie X+
  /// comes before X-).
  std::vector<LinkId> greedy_direction_order(NodeId a, NodeId b, int min_dir) const {
    std::vector<LinkId> out;
    NodeId u = a;
    while (u != b) {
      PortId best = kNone;
      for (PortId p = 1; p < m_c.radix(u); ++p) {
        const PortPeer& pp = m_c.peer(u, p);
        if (pp.kind != PortPeer::Kind::kRouter || m_dist[pp.id][b] != m_dist[u][b] - 1) continue;
        if (direction_of(p) < min_dir) continue;
        if (best == kNone || direction_of(p) < direction_of(best)) best = p;
      }
      out.push_back(m_c.peer(u, best).link);
      u = m_c.peer(u, best).id;
    }
    return out;
  }

  /// One hop from u along dimension dim, + or -.
  NodeId hop(NodeId u, int dim, bool plus) const {
    const PortPeer& pp = m_c.peer(u, KAryNCube::port_of(dim, plus));
    return pp.kind == PortPeer::Kind::kRouter ? pp.id : kNone;
  }

  std::vector<LinkId> deterministic(NodeId a, NodeId b, bool direction_order) const {
    const int n = m_c.dimensions();
    std::vector<int> sign(static_cast<std::size_t>(n));
    for (int d = 0; d < n; ++d) {
      const int k = m_c.radix_of(d), ca = m_c.coord(a, d), cb = m_c.coord(b, d);
      if (ca == cb) continue;
      if (m_c.torus()) {
        const int fwd = (cb - ca + k) % k;
        sign[static_cast<std::size_t>(d)] = fwd <= k - fwd ? 1 : -1;
      } else {
        sign[static_cast<std::size_t>(d)] = cb > ca ? 1 : -1;
      }
    }
    std::vector<LinkId> out;
    NodeId u = a;
    auto go = [&](int d) {
      while (m_c.coord(u, d) != m_c.coord(b, d)) {
        const NodeId v = hop(u, d, sign[static_cast<std::size_t>(d)] > 0);
        out.push_back(link_between(u, v));
        u = v;
      }
    };
    if (direction_order) {
      for (int d = 0; d < n; ++d)
        if (sign[static_cast<std::size_t>(d)] > 0) go(d);
      for (int d = 0; d < n; ++d)
        if (sign[static_cast<std::size_t>(d)] < 0) go(d);
    } else {
      for (int d = 0; d < n; ++d) go(d);
    }
    return out;
  }

  std::vector<Opt> segment_options(NodeId a, NodeId b) const {
    std::vector<Opt> out;
    const bool dir_order = m_m.misroute;
    const int l = m_dist[a][b];
    out.push_back({all_minimal_links(a, b), {l, 0, 0, 0, 0}});
    if (m_m.deterministic) out.push_back({deterministic(a, b, dir_order), {l, 0, 1, 0, 1}});
    if (!m_m.misroute) return out;
    // Prefixes: up to three directions in X+Y+Z+X-Y-Z- order, 1..min(8,k-1)
    // hops. Unlike the code under test this keeps d- after d+ (a walk back),
    // which checks that dropping those prefixes never changes the best route.
    // The rest after a prefix ending in direction L (paper's rule, section
    // 4.3): only shortest paths whose every hop has direction index >= L, and
    // none at all when no such path exists; with Mfree any shortest path.
    const int n = m_c.dimensions();
    std::vector<LinkId> pre;
    std::function<void(NodeId, int, int, std::vector<int>&)> rec = [&](NodeId u, int first, int steps,
                                                                       std::vector<int>& used) {
      for (int dir = first; dir < 2 * n; ++dir) {
        const int dim = dir % n;
        const bool plus = dir < n;
        // Mdim: one direction per dimension in the whole prefix.
        if (m_m.misroute_one_per_dimension && std::find(used.begin(), used.end(), dim) != used.end()) continue;
        NodeId v = u;
        const std::size_t mark = pre.size();
        for (int h = 1; h <= std::min(8, m_c.radix_of(dim) - 1); ++h) {
          const NodeId w = hop(v, dim, plus);
          if (w == kNone) break;
          pre.push_back(link_between(v, w));
          v = w;
          const int plen = static_cast<int>(pre.size());
          const int lo = m_m.free_continuation ? 0 : dir;
          bool exists = true;
          const auto rest = all_minimal_links(v, b, lo, &exists);
          if (exists || v == b) {
            std::vector<LinkId> a1 = pre;
            a1.insert(a1.end(), rest.begin(), rest.end());
            out.push_back({a1, {plen + m_dist[v][b], 0, 0, 1, 1}});
            if (m_m.deterministic) {
              std::vector<LinkId> a2 = pre;
              const auto drest =
                  m_m.free_continuation ? deterministic(v, b, dir_order) : greedy_direction_order(v, b, lo);
              a2.insert(a2.end(), drest.begin(), drest.end());
              out.push_back({a2, {plen + m_dist[v][b], 0, 1, 1, 1}});
            }
          }
          if (steps + 1 < 3) {
            used.push_back(dim);
            rec(v, dir + 1, steps + 1, used);
            used.pop_back();
          }
        }
        pre.resize(mark);
      }
    };
    std::vector<int> used;
    rec(a, 0, 0, used);
    return out;
  }

  const KAryNCube& m_c;
  Mechanism m_m;
  int m_n;
  std::vector<std::vector<int>> m_dist;
  std::vector<std::vector<Opt>> m_seg;
};

bool connected(const KAryNCube& c, const std::set<LinkId>& f, NodeId s, NodeId d) {
  std::vector<bool> seen(static_cast<std::size_t>(c.num_nodes()));
  std::vector<NodeId> st{s};
  seen[s] = true;
  while (!st.empty()) {
    const NodeId u = st.back();
    st.pop_back();
    for (PortId p = 1; p < c.radix(u); ++p) {
      const PortPeer& pp = c.peer(u, p);
      if (pp.kind == PortPeer::Kind::kRouter && !f.count(pp.link) && !seen[pp.id]) {
        seen[pp.id] = true;
        st.push_back(pp.id);
      }
    }
  }
  return seen[d];
}

/// Compares analyser, route search and brute force on every pair of every
/// given fault combination; returns (not tolerated combinations, affected
/// connected pairs) by brute force.
std::pair<int, long> compare_all(const KAryNCube& c, const std::string& mech_name,
                                 const std::vector<std::vector<LinkId>>& combos, bool check_search,
                                 const std::vector<LinkId>& candidates = {}) {
  const Mechanism mech = parse_mechanism(mech_name);
  const BruteForce bf(c, mech);
  const FaultToleranceAnalyzer an(c, mech, candidates);
  const CubeGeometry geo(c);
  const int n = c.num_nodes();
  int not_tolerated = 0;
  long affected = 0;
  for (const auto& combo : combos) {
    const std::set<LinkId> f(combo.begin(), combo.end());
    const auto out = an.evaluate(combo);
    const FaultyLinks fl(geo, combo);
    bool tolerated = true;
    for (NodeId s = 0; s < n; ++s)
      for (NodeId d = 0; d < n; ++d) {
        if (s == d) continue;
        const RouteKey ref = bf.best(s, d, f);
        const PairOutcome& o = out[static_cast<std::size_t>(s * n + d)];
        const bool conn = connected(c, f, s, d);
        if (ref.length < 0) {
          EXPECT_NE(o.status, PairOutcome::Status::kRouted) << mech_name << " " << s << "->" << d;
          EXPECT_EQ(o.status == PairOutcome::Status::kDisconnected, !conn);
          if (conn) tolerated = false;
        } else {
          EXPECT_EQ(o.status, PairOutcome::Status::kRouted) << mech_name << " " << s << "->" << d;
          EXPECT_TRUE(o.key == ref) << mech_name << " " << s << "->" << d << " length " << o.key.length << " vs "
                                    << ref.length << " I " << o.key.intermediates << " vs " << ref.intermediates;
        }
        if (conn && !(ref.length >= 0 && ref.intermediates == 0 && ref.deterministic == 0 && ref.misrouted == 0 &&
                      ref.length == geo.distance(s, d)))
          ++affected;
        if (check_search && ref.length >= 0) {
          Route r;
          const bool found = find_route(geo, mech, fl, s, d, r);
          EXPECT_TRUE(found) << mech_name << " " << s << "->" << d;
          EXPECT_TRUE(found && r.key == ref) << "search " << mech_name << " " << s << "->" << d;
        }
      }
    not_tolerated += !tolerated;
  }
  return {not_tolerated, affected};
}

std::vector<std::vector<LinkId>> all_combos(int links, int k) {
  std::vector<std::vector<LinkId>> out;
  std::vector<LinkId> cur;
  std::function<void(int)> rec = [&](int start) {
    if (static_cast<int>(cur.size()) == k) {
      out.push_back(cur);
      return;
    }
    for (int l = start; l < links; ++l) {
      cur.push_back(l);
      rec(l + 1);
      cur.pop_back();
    }
  };
  rec(0);
  return out;
}

std::vector<std::vector<LinkId>> random_combos(int links, int k, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<LinkId>> out;
  for (int i = 0; i < count; ++i) {
    std::vector<LinkId> all(static_cast<std::size_t>(links));
    for (int l = 0; l < links; ++l) all[static_cast<std::size_t>(l)] = l;
    std::shuffle(all.begin(), all.end(), rng);
    out.emplace_back(all.begin(), all.begin() + k);
  }
  return out;
}

TEST(InodeBruteForce, AdaptiveAndDeterministicMechanismsOnTorus3x3AllTwoFaultSets) {
  const KAryNCube t({3, 3}, true);
  for (const char* m : {"none", "I", "D", "I+D", "Ix2", "Ix2+D"}) compare_all(t, m, all_combos(t.num_links(), 2), true);
}

TEST(InodeBruteForce, MeshesAllTwoFaultSetsAndRandomFourFaultSets) {
  const KAryNCube m33({3, 3}, false), m43({4, 3}, false);
  for (const char* m : {"I", "D", "I+D", "Ix2", "Ix3"}) {
    compare_all(m33, m, all_combos(m33.num_links(), 2), true);
    compare_all(m43, m, random_combos(m43.num_links(), 4, 30, 7), false);
  }
}

TEST(InodeBruteForce, MisroutingMechanismsOnRandomFaultSets) {
  const KAryNCube t({3, 3}, true), t4({4, 3}, true), m({3, 4}, false);
  for (const char* mech :
       {"M", "D+M", "I+M", "I+D+M", "I+D+Mfree", "D+Mfree", "Mdim", "D+Mdim", "I+Mdim", "I+D+Mdim"}) {
    compare_all(t, mech, random_combos(t.num_links(), 3, 6, 3), true);
    compare_all(t4, mech, random_combos(t4.num_links(), 4, 4, 11), true);  // k/2 ties in X
    compare_all(m, mech, random_combos(m.num_links(), 3, 6, 5), true);
  }
}

TEST(InodeBruteForce, EveryPreferenceMatchesTheReference) {
  const KAryNCube t({3, 3}, true), m({4, 3}, false);
  for (const char* pref :
       {"@extensions-when-i-fails", "@fewest-intermediates", "@extensions-last", "@adaptivity-first"})
    for (const char* mech : {"I+D", "I+D+M", "Ix2+D", "D+M"}) {
      const std::string name = std::string(mech) + pref;
      compare_all(t, name, random_combos(t.num_links(), 3, 4, 17), true);
      compare_all(m, name, random_combos(m.num_links(), 4, 4, 19), true);
    }
}

TEST(InodeBruteForce, ExhaustiveTotalsMatchTheReference) {
  // The aggregate over every 1..3-fault combination of the 3x3 torus: the
  // analyser's not-tolerated count and affected-pair total against the
  // reference's own count.
  // Ix2, Ix3 and I+D+M: levels above 1, whose last fault of each
  // combination (a leaf) updates keys only.
  const KAryNCube t({3, 3}, true);
  for (const char* m : {"I", "I+D", "Ix2", "Ix3", "I+D+M"}) {
    const FaultToleranceAnalyzer an(t, parse_mechanism(m));
    const auto rows = an.exhaustive(1, 3, {}, 2, nullptr);
    ASSERT_EQ(rows.size(), 3U);
    for (int k = 1; k <= 3; ++k) {
      const auto combos = all_combos(t.num_links(), k);
      const auto [nt, aff] = compare_all(t, m, combos, false);
      const auto& r = rows[static_cast<std::size_t>(k - 1)];
      EXPECT_EQ(r.combinations, combos.size());
      EXPECT_EQ(r.combinations, binomial(18, k));
      EXPECT_EQ(r.not_tolerated, static_cast<std::uint64_t>(nt)) << m << " faults " << k;
      EXPECT_EQ(r.affected, static_cast<std::uint64_t>(aff)) << m << " faults " << k;
    }
  }
}

TEST(InodeAnalyzer, ResultsDoNotDependOnThreadCountAndSamplesAreReproducible) {
  const KAryNCube t({3, 3, 3}, true);
  const FaultToleranceAnalyzer an(t, parse_mechanism("I"));
  const auto a = an.exhaustive(1, 2, {}, 1, nullptr);
  const auto b = an.exhaustive(1, 2, {}, 3, nullptr);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].not_tolerated, b[i].not_tolerated);
    EXPECT_EQ(a[i].affected, b[i].affected);
    EXPECT_EQ(a[i].by_category, b[i].by_category);
  }
  // One fault on a 3x3x3 torus: the link's two end nodes are adjacent and
  // every minimal path between them is that link, so plain I with a single
  // intermediate node reroutes over two hops; no combination fails (hand
  // argument: the 3-ring around the link gives a 2-hop path through the
  // third node, whose minimal paths avoid the link).
  EXPECT_EQ(a[0].not_tolerated, 0U);
  EXPECT_EQ(a[0].combinations, 81U);
  const auto s1 = an.sampled(3, 3, 300, 9, 1, nullptr);
  const auto s2 = an.sampled(3, 3, 300, 9, 2, nullptr);
  EXPECT_EQ(s1[0].not_tolerated, s2[0].not_tolerated);
  EXPECT_EQ(s1[0].affected, s2[0].affected);
}

bool same_rows(const std::vector<FaultCountResult>& a, const std::vector<FaultCountResult>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].faults != b[i].faults || a[i].combinations != b[i].combinations ||
        a[i].not_tolerated != b[i].not_tolerated || a[i].pairs != b[i].pairs || a[i].affected != b[i].affected ||
        a[i].unroutable != b[i].unroutable || a[i].by_category != b[i].by_category)
      return false;
  return true;
}

std::vector<FaultCountResult> sum_rows(std::vector<FaultCountResult> a, const std::vector<FaultCountResult>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

TEST(InodeAnalyzer, TasksInAnyGroupingSumToTheWholeAnalysis) {
  // The MPI backend runs a plan's tasks in chunks on different ranks and sums
  // the rows. Every grouping must give the single run's counts, and the tasks
  // must cover each combination exactly once: per fault count, C(links, f)
  // combinations (counted independently by binomial()).
  const KAryNCube t({3, 3, 3}, true);
  const FaultToleranceAnalyzer an(t, parse_mechanism("I"));
  const auto region = an.distance1_region(13);
  ASSERT_EQ(region.size(), 33U);
  struct Case {
    int fmin, fmax;
    std::vector<LinkId> links;
  };
  const std::vector<LinkId> twelve(region.begin(), region.begin() + 12);
  for (const Case& c : {Case{1, 3, {}}, Case{2, 3, {}}, Case{1, 4, region}, Case{1, 6, twelve}, Case{5, 5, twelve}}) {
    const auto plan = an.plan_exhaustive(c.fmin, c.fmax, c.links);
    // Prefix depth: at most fmax - 2, and 12 + 66 + 220 + 495 tasks stay
    // within 20,000 for 12 links.
    EXPECT_EQ(plan.depth, c.fmax == 6 ? 4 : c.fmax == 5 ? 3 : c.fmax == 4 ? 2 : 1);
    const int m = c.links.empty() ? t.num_links() : static_cast<int>(c.links.size());
    std::uint64_t expected = 0, listed = 0;
    for (int f = c.fmin; f <= c.fmax; ++f) expected += binomial(m, f);
    for (std::size_t i = 0; i < plan.tasks(); ++i) listed += plan.task_combinations(i);
    EXPECT_EQ(plan.combinations, expected);
    EXPECT_EQ(listed, expected);
    const auto whole = an.run(plan, 0, plan.tasks(), 2, nullptr);
    for (int f = c.fmin; f <= c.fmax; ++f)
      EXPECT_EQ(whole[static_cast<std::size_t>(f - c.fmin)].combinations, binomial(m, f)) << "faults " << f;
    EXPECT_TRUE(same_rows(whole, an.exhaustive(c.fmin, c.fmax, c.links, 1, nullptr)));
    const std::size_t n = plan.tasks();
    for (std::size_t cut : {std::size_t{1}, n / 3}) {
      // Later chunk first: the order must not matter either.
      const auto tail = an.run(plan, cut, n, 1, nullptr);
      const auto head = an.run(plan, 0, cut, 1, nullptr);
      EXPECT_TRUE(same_rows(sum_rows(tail, head), whole)) << "cut at task " << cut << " of " << n;
    }
  }
  const auto sp = an.plan_sampled(3, 4, 700, 5);
  EXPECT_EQ(sp.tasks(), 6U);  // ceil(700 / 256) = 3 tasks per fault count
  const auto all = an.run(sp, 0, sp.tasks(), 1, nullptr);
  EXPECT_TRUE(same_rows(all, an.sampled(3, 4, 700, 5, 2, nullptr)));
  EXPECT_TRUE(same_rows(
      sum_rows(an.run(sp, 4, 6, 1, nullptr), sum_rows(an.run(sp, 0, 1, 1, nullptr), an.run(sp, 1, 4, 1, nullptr))),
      all));
}

TEST(InodeAnalyzer, RegionCandidatesGiveTheCountsOfTheWholeNetwork) {
  // Keeping only the links that may fail in the masks changes no outcome:
  // the analyser restricted to the distance-1 region counts exactly what the
  // whole-network analyser (checked against brute force above) counts for
  // combinations inside the region.
  const KAryNCube t({3, 3, 3}, true);
  for (const char* m : {"I", "Ix2", "I+D+M", "D+M"}) {
    const FaultToleranceAnalyzer whole(t, parse_mechanism(m));
    const auto region = whole.distance1_region(4);
    const FaultToleranceAnalyzer restricted(t, parse_mechanism(m), region);
    EXPECT_LE(restricted.option_count(), whole.option_count()) << m;
    EXPECT_TRUE(same_rows(restricted.exhaustive(1, 3, {}, 2, nullptr), whole.exhaustive(1, 3, region, 2, nullptr)))
        << m;
  }
}

TEST(InodeAnalyzer, ToriAbove256LinksAreAnalysedInARegion) {
  // 5x5x5 torus: 375 links, more than the analyser's 256 bits; its distance-1
  // region (36 links: 7 nodes x 6 links minus the 6 shared) fits. Outcomes
  // checked pair by pair against the brute-force reference.
  const KAryNCube t({5, 5, 5}, true);
  EXPECT_THROW(FaultToleranceAnalyzer(t, parse_mechanism("I")), ConfigError);
  const auto region = FaultToleranceAnalyzer::distance1_region(t, 62);
  ASSERT_EQ(region.size(), 36U);
  std::mt19937 rng(3);
  std::vector<std::vector<LinkId>> combos;
  for (int i = 0; i < 2; ++i) {
    auto r = region;
    std::shuffle(r.begin(), r.end(), rng);
    combos.emplace_back(r.begin(), r.begin() + 3);
  }
  compare_all(t, "I", combos, false, region);
  const FaultToleranceAnalyzer an(t, parse_mechanism("I"), region);
  LinkId outside = 0;
  while (std::find(region.begin(), region.end(), outside) != region.end()) ++outside;
  EXPECT_THROW(an.evaluate({outside}), ConfigError);
  EXPECT_THROW(FaultToleranceAnalyzer(t, parse_mechanism("I"), {region[0], region[0]}), ConfigError);
}

}  // namespace

TEST(InodeRouting, NodeFaultRoutesEqualThoseOfItsLinksAndSkipTheDeadNode) {
  // A dead router is its six links down plus a node that neither sends nor
  // receives. Every pair of live nodes gets the route it gets with the six
  // links down; pairs with the dead node are not searched at all (searching
  // them made one node fault cost 19 s on this torus with I+D+M).
  const auto topo = make_topology("torus:4x4x4");
  const auto& cube = dynamic_cast<const KAryNCube&>(*topo);
  const RouterId dead = cube.parse_router("1,1,1");
  FaultSet node;
  node.routers = {dead};
  FaultSet links;
  for (PortId p = 1; p < cube.radix(dead); ++p) links.links.push_back(cube.peer(dead, p).link);
  for (const char* m : {"I+D", "I+D+M"}) {
    auto by_node = make_routing(std::string("inodes:") + m);
    auto by_links = make_routing(std::string("inodes:") + m);
    by_node->configure(*topo, 5);
    by_links->configure(*topo, 5);
    by_node->set_static_faults(node);
    by_links->set_static_faults(links);
    const auto& a = dynamic_cast<const InodeRouting&>(*by_node);
    const auto& b = dynamic_cast<const InodeRouting&>(*by_links);
    for (NodeId s = 0; s < topo->num_nodes(); ++s)
      for (NodeId d = 0; d < topo->num_nodes(); ++d) {
        if (s == d || s == dead || d == dead) continue;
        const Route* ra = a.route_of(s, d);
        const Route* rb = b.route_of(s, d);
        ASSERT_EQ(ra == nullptr, rb == nullptr) << m << " " << s << "->" << d;
        if (ra != nullptr) {
          EXPECT_TRUE(ra->key == rb->key) << m << " " << s << "->" << d;
        }
      }
    // The link-fault relation searched the dead node's pairs too (and found
    // none): it knows more affected pairs than the node-fault relation.
    std::size_t affected_node = 0, affected_links = 0;
    for (const auto& [k, v] : a.report())
      if (k == "affected_pairs") affected_node = static_cast<std::size_t>(v);
    for (const auto& [k, v] : b.report())
      if (k == "affected_pairs") affected_links = static_cast<std::size_t>(v);
    EXPECT_EQ(affected_links - affected_node, 2U * 63U) << m;
  }
}

TEST(InodeRouting, PaperMisroutingHasAnAcyclicEscapeCdgWithOneEscapeVcPerSubpath) {
  // Duato's condition for VCT: the escape sub-relation's direct dependencies
  // are acyclic (on a torus apart from the edges inside one ring, which
  // bubble flow control covers). The paper's rule gives every subpath one
  // escape VC: M and D+M run with 2 VCs, I+M and I+D+M with 3 (the paper's
  // four leave two adaptive VCs). Fault sets are drawn until some pairs are
  // misrouted, so the prefixes and their continuations are in the graph.
  struct Case {
    const char* topology;
    const char* mechanism;
    int vcs;
  };
  for (const Case& c :
       {Case{"mesh:4x4", "M", 2}, Case{"mesh:4x4", "D+M", 2}, Case{"torus:4x4", "D+M", 2},
        Case{"torus:4x4", "I+D+M@fewest-intermediates", 3}, Case{"mesh:5x5", "I+M@fewest-intermediates", 3},
        Case{"torus:4x4", "I+D+M", 4}, Case{"mesh:4x4", "D+Mfree", 3}, Case{"torus:4x4", "D+Mdim", 2},
        Case{"torus:4x4", "I+D+Mdim", 4}}) {
    const auto topo = make_topology(c.topology);
    const auto& cube = dynamic_cast<const KAryNCube&>(*topo);
    auto rel = make_routing(std::string("inodes:") + c.mechanism);
    rel->configure(*topo, c.vcs);
    EXPECT_EQ(rel->min_vcs(), std::string(c.mechanism).rfind("I+D+M", 0) == 0 ? 3 : c.vcs) << c.mechanism;
    std::mt19937 rng(7);
    double misrouted_pairs = 0;
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<LinkId> all(static_cast<std::size_t>(topo->num_links()));
      for (LinkId l = 0; l < topo->num_links(); ++l) all[static_cast<std::size_t>(l)] = l;
      std::shuffle(all.begin(), all.end(), rng);
      FaultSet f;
      f.links.assign(all.begin(), all.begin() + 3);
      rel->set_static_faults(f);
      double unroutable = 0;
      for (const auto& [k, v] : rel->report()) {
        if (k == "unroutable_pairs") unroutable = v;
        if (k.find("pairs_using_") == 0 && k.back() == 'M') misrouted_pairs += v;
      }
      CdgOptions opt;
      opt.escape_extended = true;
      opt.vct = true;
      if (cube.torus())
        opt.keep_edge = [&](const ChannelRef& a, const ChannelRef& b) {
          return !(a.port == b.port &&
                   cube.neighbour(a.router, KAryNCube::dim_of(a.port), KAryNCube::is_plus(a.port)) == b.router);
        };
      const auto g = build_cdg(*rel, f, opt);
      const auto cycle = g.find_cycle();
      EXPECT_TRUE(cycle.empty()) << c.topology << " " << c.mechanism << " trial " << trial << ": cycle through "
                                 << (cycle.empty() ? std::string() : describe_channel(*topo, g.channel(cycle[0])));
      // Only the pairs without a fault-free route stay undelivered or meet
      // a dead end (they get no candidate at all and are dropped at the
      // source); every routed pair is delivered on every path.
      EXPECT_LE(g.undelivered_pairs, static_cast<long>(unroutable)) << c.topology << " " << c.mechanism;
      EXPECT_EQ(g.dead_end_pairs, g.undelivered_pairs) << c.topology << " " << c.mechanism;
    }
    EXPECT_GT(misrouted_pairs, 0) << c.topology << " " << c.mechanism << ": no pair used misrouting";
  }
}

TEST(InodeSymmetry, TranslationClassesGiveThePlainCountsForEveryMechanism) {
  // Issue 54: the symmetric enumeration (sets containing node 0's + link of
  // each dimension, scaled by nodes / faults) against every combination,
  // field by field: 1..4 faults on the 3x3 and 4x4 tori (k/2 ties) for every
  // mechanism of Table 1 and the Mdim reading, 5 faults on the 4x4 torus for
  // two of them.
  auto same = [](const std::vector<FaultCountResult>& a, const std::vector<FaultCountResult>& b,
                 const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].combinations, b[i].combinations) << what << " faults " << a[i].faults;
      EXPECT_EQ(a[i].not_tolerated, b[i].not_tolerated) << what << " faults " << a[i].faults;
      EXPECT_EQ(a[i].pairs, b[i].pairs) << what << " faults " << a[i].faults;
      EXPECT_EQ(a[i].affected, b[i].affected) << what << " faults " << a[i].faults;
      EXPECT_EQ(a[i].unroutable, b[i].unroutable) << what << " faults " << a[i].faults;
      EXPECT_EQ(a[i].by_category, b[i].by_category) << what << " faults " << a[i].faults;
    }
  };
  std::vector<std::string> mechs = table1_mechanisms();
  for (const char* m : {"I+D+Mdim", "D+M@adaptivity-first"}) mechs.emplace_back(m);
  for (const auto& dims : {std::vector<int>{3, 3}, std::vector<int>{4, 4}}) {
    const KAryNCube t(dims, true);
    for (const auto& m : mechs) {
      const FaultToleranceAnalyzer an(t, parse_mechanism(m));
      ASSERT_TRUE(an.translation_symmetric());
      const auto plain = an.exhaustive(1, 4, {}, 2, {});
      const auto plan = an.plan_exhaustive_symmetric(1, 4);
      auto sym = an.run(plan, 0, plan.tasks(), 2, {});
      FaultToleranceAnalyzer::unfold(plan, sym);
      same(plain, sym, t.spec() + " " + m);
      // The work: sets containing one of the d representatives, a share of
      // at most d * f / links of each count.
      EXPECT_LT(plan.combinations, plain[3].combinations + plain[2].combinations) << m;
    }
  }
  const KAryNCube t44({4, 4}, true);
  for (const char* m : {"I+D+M", "Ix2"}) {
    const FaultToleranceAnalyzer an(t44, parse_mechanism(m));
    const auto plan = an.plan_exhaustive_symmetric(5, 5);
    auto sym = an.run(plan, 0, plan.tasks(), 2, {});
    FaultToleranceAnalyzer::unfold(plan, sym);
    same(an.exhaustive(5, 5, {}, 2, {}), sym, std::string("torus:4x4 5 faults ") + m);
  }
  // Not applicable: a mesh, or a region of candidate links.
  const KAryNCube mesh({3, 3}, false);
  EXPECT_FALSE(FaultToleranceAnalyzer(mesh, parse_mechanism("I")).translation_symmetric());
  EXPECT_THROW(FaultToleranceAnalyzer(mesh, parse_mechanism("I")).plan_exhaustive_symmetric(1, 2), ConfigError);
}
