// Topology counts and wiring against the papers' definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "routing_logic/mikant/mikant.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/topology/kary_ntree.hpp"

using namespace ftsim::routing;

namespace {
using ftsim::ConfigError;
int count_switch_links(const Topology& t) {
  int n = 0;
  for (const auto& l : t.links()) n += l.b_is_node ? 0 : 1;
  return n;
}

// Every router-router port pair must be symmetric.
void expect_symmetric(const Topology& t) {
  for (RouterId r = 0; r < t.num_routers(); ++r)
    for (PortId p = 0; p < t.radix(r); ++p) {
      const PortPeer& pp = t.peer(r, p);
      if (pp.kind != PortPeer::Kind::kRouter) continue;
      const PortPeer& back = t.peer(pp.id, pp.port);
      ASSERT_EQ(back.kind, PortPeer::Kind::kRouter);
      EXPECT_EQ(back.id, r);
      EXPECT_EQ(back.port, p);
      EXPECT_EQ(back.link, pp.link);
    }
}

double mean_distance(const Topology& t, bool include_self) {
  double sum = 0;
  double pairs = 0;
  int diameter = 0;
  for (NodeId s = 0; s < t.num_nodes(); ++s) {
    const auto d = t.node_distances_from(s);
    for (NodeId x = 0; x < t.num_nodes(); ++x) {
      if (x == s && !include_self) continue;
      sum += d[x];
      pairs += 1;
      diameter = std::max(diameter, d[x]);
    }
  }
  return sum / pairs;
}

int diameter(const Topology& t) {
  int dia = 0;
  for (NodeId s = 0; s < t.num_nodes(); ++s)
    for (int d : t.node_distances_from(s)) dia = std::max(dia, d);
  return dia;
}
}  // namespace

TEST(Torus, ThreeAryThreeCubeHas81Links) {
  auto t = make_topology("torus:3x3x3");
  EXPECT_EQ(t->num_routers(), 27);
  EXPECT_EQ(t->num_nodes(), 27);
  EXPECT_EQ(t->num_links(), 81);  // n * k^n = 3 * 27
  expect_symmetric(*t);
}

TEST(Mesh, EightByEightLinkCountAndDistance) {
  auto t = make_topology("mesh:8x8");
  EXPECT_EQ(t->num_links(), 2 * 8 * 7);  // 7 links per row/column line, 8 lines, 2 dims
  // Mean Manhattan distance, self excluded: 2 * (k^2-1)/(3k) * N/(N-1) = 5.333.
  EXPECT_NEAR(mean_distance(*t, false), 2.0 * 63.0 / 24.0 * 64.0 / 63.0, 1e-9);
  EXPECT_NEAR(mean_distance(*t, false), 5.3333, 1e-3);
  expect_symmetric(*t);
}

TEST(Torus, EightByEightDistance) {
  auto t = make_topology("torus:8x8");
  // Even k: mean ring distance with self = k/4 = 2, two dims: 4, self excluded: 4*64/63.
  EXPECT_NEAR(mean_distance(*t, false), 4.0 * 64.0 / 63.0, 1e-9);
  EXPECT_EQ(diameter(*t), 8);
}

TEST(Torus, LabelsRoundTrip) {
  auto t = make_topology("torus:4x3");
  for (LinkId l = 0; l < t->num_links(); ++l) EXPECT_EQ(t->parse_link(t->link_label(l)), l);
  const auto* c = dynamic_cast<const KAryNCube*>(t.get());
  // "2,1:x-" is the link from (1,1) in +x.
  EXPECT_EQ(t->parse_link("2,1:x-"), t->parse_link("1,1:x+"));
  EXPECT_EQ(t->parse_router("3,2"), 3 + 4 * 2);
  EXPECT_EQ(c->neighbour(t->parse_router("3,2"), 0, true), t->parse_router("0,2"));
  EXPECT_THROW(t->parse_router("4,0"), ConfigError);
  EXPECT_THROW(t->parse_link("1,1:z+"), ConfigError);
  EXPECT_THROW(t->parse_link_any("#999"), ConfigError);
  EXPECT_EQ(t->parse_link_any("#5"), 5);
}

TEST(Mesh, EdgeLinkDoesNotExist) {
  auto t = make_topology("mesh:4x4");
  EXPECT_THROW(t->parse_link("3,0:x+"), ConfigError);
  EXPECT_NO_THROW(t->parse_link("2,0:x+"));
}

TEST(KAryNTree, PaperCounts) {
  auto a = make_topology("kary-ntree:4,3");
  EXPECT_EQ(a->num_routers(), 48);  // n * k^(n-1) = 3 * 16
  EXPECT_EQ(a->num_nodes(), 64);    // k^n
  auto b = make_topology("kary-ntree:2,6");
  EXPECT_EQ(b->num_routers(), 192);  // 6 * 32
  EXPECT_EQ(b->num_nodes(), 64);
  // Switch-switch links: (n-1) tier boundaries x k^(n-1) switches x k down links.
  EXPECT_EQ(count_switch_links(*a), 2 * 16 * 4);
  EXPECT_EQ(count_switch_links(*b), 5 * 32 * 2);
  expect_symmetric(*a);
  expect_symmetric(*b);
}

TEST(KAryNTree, Definition1EdgesByBruteForce) {
  // <w,l> and <w',l+1> are linked iff w_i == w'_i for all i != l.
  const KAryNTree t(3, 3);
  std::set<std::pair<int, int>> edges;
  for (RouterId r = 0; r < t.num_routers(); ++r)
    for (PortId p = 0; p < t.radix(r); ++p)
      if (t.peer(r, p).kind == PortPeer::Kind::kRouter)
        edges.insert({std::min(r, t.peer(r, p).id), std::max(r, t.peer(r, p).id)});
  std::set<std::pair<int, int>> expected;
  for (RouterId a = 0; a < t.num_routers(); ++a)
    for (RouterId b = 0; b < t.num_routers(); ++b) {
      if (t.tier(b) != t.tier(a) + 1) continue;
      bool ok = true;
      for (int i = 0; i < 2; ++i)
        if (i != t.tier(a) && t.switch_digit(a, i) != t.switch_digit(b, i)) ok = false;
      if (ok) expected.insert({std::min(a, b), std::max(a, b)});
    }
  EXPECT_EQ(edges, expected);
  // Leaf <w,n-1> holds node p iff p_i == w_i for i < n-1.
  for (NodeId p = 0; p < t.num_nodes(); ++p) {
    const RouterId leaf = t.node_router(p);
    EXPECT_EQ(t.tier(leaf), 2);
    EXPECT_EQ(t.switch_digit(leaf, 0), t.node_digit(p, 0));
    EXPECT_EQ(t.switch_digit(leaf, 1), t.node_digit(p, 1));
  }
  // Top tier has no up links.
  for (RouterId r = 0; r < 9; ++r)
    for (PortId p = 3; p < 6; ++p) EXPECT_EQ(t.peer(r, p).kind, PortPeer::Kind::kUnconnected);
}

TEST(KAryNTree, LabelsRoundTrip) {
  auto t = make_topology("kary-ntree:4,3");
  for (LinkId l = 0; l < t->num_links(); ++l) EXPECT_EQ(t->parse_link_any(t->link_label(l)), l);
  EXPECT_EQ(t->router_label(t->parse_router("<13,2>")), "<13,2>");
  EXPECT_THROW(t->parse_router("<13,3>"), ConfigError);
  EXPECT_THROW(t->parse_link("<13,0>:up1"), ConfigError);  // tier 0 has no up links
}

TEST(Mikant, PaperCountsAndFormulas) {
  for (auto [k, n] : {std::pair{3, 3}, {2, 2}, {2, 4}, {4, 3}, {3, 2}}) {
    const Mikant t(k, n);
    const int kn = static_cast<int>(std::pow(k, n));
    EXPECT_EQ(t.num_routers(), 2 * (n - 1) * kn / k);
    EXPECT_EQ(t.num_nodes(), 2 * kn);
    EXPECT_EQ(t.num_links(), (2 * n - 1) * kn);
    expect_symmetric(t);
    // Section 2.1: diameter 2n and average distance 2n - 1/(k-1) + 1/((k-1)k^n) - 1/2,
    // averaged over all N^2 ordered pairs (self included), counted in links.
    EXPECT_EQ(diameter(t), 2 * n);
    const double avg = 2.0 * n - 1.0 / (k - 1) + 1.0 / ((k - 1.0) * kn) - 0.5;
    EXPECT_NEAR(mean_distance(t, true), avg, 1e-9) << "k=" << k << " n=" << n;
  }
  const Mikant t(3, 3);
  EXPECT_EQ(t.num_routers(), 36);
  EXPECT_EQ(t.num_nodes(), 54);
  EXPECT_EQ(t.num_links(), 135);
}

TEST(Mikant, PaperExampleWiring) {
  const Mikant t(3, 3);
  // <0,1,0,0> connects to <1,1,0,0>, <1,1,1,0>, <1,1,2,0> via links <1,2,s,0,0>.
  const RouterId w = t.parse_router("<0,1,0,0>");
  for (int s = 0; s < 3; ++s) {
    const PortPeer& pp = t.peer(w, 3 + s);
    ASSERT_EQ(pp.kind, PortPeer::Kind::kRouter);
    EXPECT_EQ(t.router_label(pp.id), "<1,1," + std::to_string(s) + ",0>");
    EXPECT_EQ(t.link_label(pp.link), "<1,2," + std::to_string(s) + ",0,0>");
  }
  // ... and down to <0,0,0,s> via links <0,1,0,0,s>.
  for (int s = 0; s < 3; ++s) {
    const PortPeer& pp = t.peer(w, s);
    EXPECT_EQ(t.router_label(pp.id), "<0,0,0," + std::to_string(s) + ">");
    EXPECT_EQ(t.link_label(pp.link), "<0,1,0,0," + std::to_string(s) + ">");
  }
  // <0,0,0,0> holds nodes <0,c,0,0> via links <0,0,0,0,c>.
  const RouterId l0 = t.parse_router("<0,0,0,0>");
  for (int c = 0; c < 3; ++c) {
    const PortPeer& pp = t.peer(l0, c);
    ASSERT_EQ(pp.kind, PortPeer::Kind::kNode);
    EXPECT_EQ(t.node_label(pp.id), "<0," + std::to_string(c) + ",0,0>");
    EXPECT_EQ(t.link_label(pp.link), "<0,0,0,0," + std::to_string(c) + ">");
  }
  for (LinkId l = 0; l < t.num_links(); ++l) EXPECT_EQ(t.parse_link(t.link_label(l)), l);
}

TEST(TopologyFactory, RejectsBadSpecs) {
  EXPECT_THROW(make_topology("ring:8"), ConfigError);
  EXPECT_THROW(make_topology("mesh:1x8"), ConfigError);
  EXPECT_THROW(make_topology("torus:8xa"), ConfigError);
  EXPECT_THROW(make_topology("kary-ntree:1,3"), ConfigError);
  EXPECT_THROW(make_topology("mikant:3,1"), ConfigError);
  EXPECT_THROW(make_topology("mikant:3"), ConfigError);
  EXPECT_THROW(make_topology("mesh8x8"), ConfigError);
}

// The coordinate table against the mixed-radix digits of the router id,
// computed here by repeated division (dimension 0 varies fastest), and the
// neighbours against a +/-1 step of one digit.
TEST(KAryNCube, CoordinatesAreTheMixedRadixDigitsOfTheRouterId) {
  for (const auto& dims : std::vector<std::vector<int>>{{7}, {4, 4}, {3, 5}, {2, 3, 4}, {8, 8, 8}, {2, 2, 2, 3}}) {
    for (const bool torus : {false, true}) {
      const KAryNCube t(dims, torus);
      for (int r = 0; r < t.num_routers(); ++r) {
        int rest = r;
        for (int d = 0; d < t.dimensions(); ++d) {
          const int k = dims[static_cast<std::size_t>(d)];
          ASSERT_EQ(t.coord(r, d), rest % k) << "router " << r << " dimension " << d;
          rest /= k;
          for (const bool plus : {false, true}) {
            const int c = t.coord(r, d);
            if (!torus && ((plus && c == k - 1) || (!plus && c == 0))) continue;
            const int n = t.neighbour(r, d, plus);
            EXPECT_EQ(t.coord(n, d), (c + (plus ? 1 : k - 1)) % k);
            for (int e = 0; e < t.dimensions(); ++e) {
              if (e != d) {
                EXPECT_EQ(t.coord(n, e), t.coord(r, e));
              }
            }
          }
        }
        EXPECT_EQ(rest, 0);
      }
    }
  }
}

// dim_direction against walks along the dimension's line: the hops to the
// target's coordinate going + and going - (neighbour by neighbour, a mesh
// edge ends a walk), the shorter one's sign (+ on equal walks: a tie).
TEST(KAryNCube, DimDirectionIsTheShorterWalkAlongTheDimension) {
  constexpr int kNoWalk = 1 << 20;
  for (const auto& dims : std::vector<std::vector<int>>{{7}, {8}, {4, 4}, {3, 5}, {2, 3, 4}, {6, 4}}) {
    for (const bool torus : {false, true}) {
      const KAryNCube t(dims, torus);
      auto walk = [&](int from, int to, int d, bool plus) {
        const int k = dims[static_cast<std::size_t>(d)];
        int r = from;
        for (int hops = 0; hops < k; ++hops) {
          if (t.coord(r, d) == t.coord(to, d)) return hops;
          const int c = t.coord(r, d);
          if (!torus && ((plus && c == k - 1) || (!plus && c == 0))) return kNoWalk;
          r = t.neighbour(r, d, plus);
        }
        return kNoWalk;
      };
      for (int a = 0; a < t.num_routers(); ++a) {
        for (int b = 0; b < t.num_routers(); ++b) {
          const auto all = dim_directions(t, a, b);
          for (int d = 0; d < t.dimensions(); ++d) {
            const DimDirection w = dim_direction(t, a, b, d);
            EXPECT_EQ(all[static_cast<std::size_t>(d)].sign, w.sign);
            EXPECT_EQ(all[static_cast<std::size_t>(d)].tie, w.tie);
            const int plus = walk(a, b, d, true), minus = walk(a, b, d, false);
            if (plus == 0) {
              EXPECT_EQ(w.sign, 0);
              EXPECT_FALSE(w.tie);
              continue;
            }
            ASSERT_TRUE(plus < kNoWalk || minus < kNoWalk);
            EXPECT_EQ(w.sign, plus <= minus ? 1 : -1) << a << " -> " << b << " dimension " << d;
            EXPECT_EQ(w.tie, plus == minus) << a << " -> " << b << " dimension " << d;
          }
        }
      }
    }
  }
}

// The way table's ends (KAryNCube::way, 2k entries per dimension): on a ring
// and a line of the largest radix, every coordinate difference from both
// ends, against the hop counts of walks (k - 1 - c going + from c on a
// line; (t - f) mod k and (f - t) mod k round a ring), and a 3-dimension
// torus's second and third tables against the same.
TEST(KAryNCube, WayTableCoversEveryDifferenceUpToTheLargestRadix) {
  for (const bool torus : {false, true}) {
    const int k = 1024;
    const KAryNCube t({k}, torus);
    for (const int from : {0, k - 1, k / 2})
      for (int to = 0; to < k; ++to) {
        const DimDirection w = dim_direction(t, from, to, 0);
        if (from == to) {
          EXPECT_EQ(w.sign, 0);
          EXPECT_FALSE(w.tie);
          continue;
        }
        if (!torus) {
          EXPECT_EQ(w.sign, to > from ? 1 : -1) << from << " -> " << to;
          EXPECT_FALSE(w.tie);
          continue;
        }
        const int plus = ((to - from) % k + k) % k, minus = ((from - to) % k + k) % k;
        EXPECT_EQ(w.sign, plus <= minus ? 1 : -1) << from << " -> " << to;
        EXPECT_EQ(w.tie, plus == minus) << from << " -> " << to;
      }
  }
  const KAryNCube cube({3, 4, 5}, true);
  for (int a = 0; a < cube.num_routers(); ++a)
    for (int b = 0; b < cube.num_routers(); ++b)
      for (int d = 0; d < 3; ++d) {
        const int k = cube.radix_of(d), ca = cube.coord(a, d), cb = cube.coord(b, d);
        const int plus = ((cb - ca) % k + k) % k, minus = ((ca - cb) % k + k) % k;
        const DimDirection w = cube.way(d, cb - ca);
        EXPECT_EQ(w.sign, ca == cb ? 0 : plus <= minus ? 1 : -1);
        EXPECT_EQ(w.tie, ca != cb && plus == minus);
      }
}
