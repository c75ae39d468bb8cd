// Intermediate nodes, disabled adaptivity and misrouting: route computation
// and the fault-tolerance analyser against hand counts and a brute-force
// reference written here from the paper's definitions (no shared code).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <random>
#include <set>

#include "routing_logic/inode_analyzer.hpp"
#include "routing_logic/inode_routes.hpp"
#include "routing_logic/inode_routing.hpp"
#include "routing_logic/kary_ncube.hpp"
#include "routing_logic/routing_relation.hpp"

namespace {

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
    RouteKey best{-1, 0, 0, 0};
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
        if (best.length < 0 || acc < best) best = acc;
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

  std::vector<LinkId> all_minimal_links(NodeId a, NodeId b) const {
    std::set<LinkId> s;
    std::vector<LinkId> path;
    std::function<void(NodeId)> walk = [&](NodeId u) {
      if (u == b) {
        s.insert(path.begin(), path.end());
        return;
      }
      for (PortId p = 1; p < m_c.radix(u); ++p) {
        const PortPeer& pp = m_c.peer(u, p);
        if (pp.kind != PortPeer::Kind::kRouter || m_dist[pp.id][b] != m_dist[u][b] - 1) continue;
        path.push_back(pp.link);
        walk(pp.id);
        path.pop_back();
      }
    };
    walk(a);
    return {s.begin(), s.end()};
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
    out.push_back({all_minimal_links(a, b), {l, 0, 0, 0}});
    if (m_m.deterministic) out.push_back({deterministic(a, b, dir_order), {l, 0, 1, 0}});
    if (!m_m.misroute) return out;
    // Prefixes: up to three directions in X+Y+Z+X-Y-Z- order, 1..min(8,k-1)
    // hops. Unlike the code under test this keeps d- after d+ (a walk back),
    // which checks that dropping those prefixes never changes the best route.
    const int n = m_c.dimensions();
    std::vector<LinkId> pre;
    std::function<void(NodeId, int, int, std::vector<int>&)> rec = [&](NodeId u, int first, int steps,
                                                                       std::vector<int>& used) {
      for (int dir = first; dir < 2 * n; ++dir) {
        const int dim = dir % n;
        const bool plus = dir < n;
        NodeId v = u;
        const std::size_t mark = pre.size();
        for (int h = 1; h <= std::min(8, m_c.radix_of(dim) - 1); ++h) {
          const NodeId w = hop(v, dim, plus);
          if (w == kNone) break;
          pre.push_back(link_between(v, w));
          v = w;
          const int plen = static_cast<int>(pre.size());
          std::vector<LinkId> a1 = pre;
          const auto rest = all_minimal_links(v, b);
          a1.insert(a1.end(), rest.begin(), rest.end());
          out.push_back({a1, {plen + m_dist[v][b], 0, 0, 1}});
          if (m_m.deterministic) {
            std::vector<LinkId> a2 = pre;
            const auto drest = deterministic(v, b, dir_order);
            a2.insert(a2.end(), drest.begin(), drest.end());
            out.push_back({a2, {plen + m_dist[v][b], 0, 1, 1}});
          }
          if (steps + 1 < 3) {
            rec(v, dir + 1, steps + 1, used);
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
                                 const std::vector<std::vector<LinkId>>& combos, bool check_search) {
  const Mechanism mech = parse_mechanism(mech_name);
  const BruteForce bf(c, mech);
  const FaultToleranceAnalyzer an(c, mech);
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
  const KAryNCube t({3, 3}, true), m({3, 4}, false);
  for (const char* mech : {"M", "D+M", "I+M", "I+D+M"}) {
    compare_all(t, mech, random_combos(t.num_links(), 3, 6, 3), true);
    compare_all(m, mech, random_combos(m.num_links(), 3, 6, 5), true);
  }
}

TEST(InodeBruteForce, ExhaustiveTotalsMatchTheReference) {
  // The aggregate over every 1..3-fault combination of the 3x3 torus: the
  // analyser's not-tolerated count and affected-pair total against the
  // reference's own count.
  const KAryNCube t({3, 3}, true);
  for (const char* m : {"I", "I+D"}) {
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
