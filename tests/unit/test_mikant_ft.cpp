// MiKANT fault-tolerant routing: the paper's worked paths and properties of
// the trial analysis derived independently of the implementation.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <set>

#include "routing_logic/cdg.hpp"
#include "routing_logic/mikant/mikant.hpp"
#include "routing_logic/routing_trials.hpp"
#include "tests/support/acyclic.hpp"

using namespace ftsim::routing;

namespace {

struct Built {
  std::unique_ptr<Topology> topo;
  std::unique_ptr<RoutingRelation> rel;
};

Built build(const std::string& routing) {
  Built b{make_topology("mikant:3,3"), make_routing(routing)};
  b.rel->configure(*b.topo, 1);
  return b;
}

// Every switch sequence the relation can produce from switch `from` (entered
// from `in_port`) to node t, exploring every candidate.
std::set<std::vector<std::string>> all_paths(const RoutingRelation& rel, const std::vector<std::uint64_t>& alive,
                                             RouterId from, PortId in_port, NodeId t) {
  const Topology& topo = rel.topology();
  std::set<std::vector<std::string>> paths;
  std::vector<std::string> cur;
  std::function<void(RouterId, PortId, PacketHeader)> dfs = [&](RouterId r, PortId in, PacketHeader h) {
    cur.push_back(topo.router_label(r));
    if (cur.size() < 12) {
      RouteQuery q;
      q.router = r;
      q.in_port = in;
      q.header = &h;
      q.view.port_alive = alive[r];
      RouteSet out;
      rel.route(q, out);
      for (const auto& c : out) {
        const PortPeer& pp = topo.peer(r, c.port);
        if (pp.kind == PortPeer::Kind::kNode) {
          if (pp.id == t) paths.insert(cur);
          continue;
        }
        PacketHeader nh = h;
        rel.on_hop(nh, r, c.port, 0);
        dfs(pp.id, pp.port, nh);
      }
    }
    cur.pop_back();
  };
  PacketHeader h;
  h.dst = t;
  dfs(from, in_port, h);
  return paths;
}

NodeId node(const Mikant& m, const std::string& label) {
  for (NodeId n = 0; n < m.num_nodes(); ++n)
    if (m.node_label(n) == label) return n;
  return kNone;
}

}  // namespace

TEST(MikantFt, GoNeighborSwitchFigure2Paths) {
  auto b = build("go-neighbor-switch");
  const auto& m = dynamic_cast<const Mikant&>(*b.topo);
  FaultSet fs;
  fs.links = {m.parse_link("<1,2,0,0,0>")};  // between <1,1,0,0> and <0,1,0,0>
  const auto alive = alive_port_masks(m, fs);
  const RouterId w = m.parse_router("<0,1,0,0>");
  const NodeId t = node(m, "<1,0,0,0>");
  const auto paths = all_paths(*b.rel, alive, w, 0, t);
  // The two paths of section 3.1.1.
  EXPECT_TRUE(paths.count({"<0,1,0,0>", "<0,0,0,1>", "<0,1,0,1>", "<1,1,0,1>", "<1,0,0,0>"}));
  EXPECT_TRUE(paths.count({"<0,1,0,0>", "<0,0,0,0>", "<0,1,0,2>", "<1,1,0,2>", "<1,0,0,0>"}));
  // Every path: down to any of the 3 lower switches, up to one of the 2
  // neighbours whose digit differs from W's, across, down: 3 x 2 = 6 paths.
  EXPECT_EQ(paths.size(), 6U);
  // Algorithm 1 alone fails here.
  auto s = build("mikant-shortest");
  EXPECT_TRUE(all_paths(*s.rel, alive, w, 0, t).empty());
}

TEST(MikantFt, GoDownLevelFigure3Paths) {
  auto b = build("go-down-level");
  const auto& m = dynamic_cast<const Mikant&>(*b.topo);
  FaultSet fs;
  fs.links = {m.parse_link("<0,1,0,0,0>")};  // between <0,1,0,0> and <0,0,0,0>
  const auto alive = alive_port_masks(m, fs);
  const RouterId w = m.parse_router("<0,1,0,0>");
  const NodeId t = node(m, "<0,2,0,0>");
  const auto paths = all_paths(*b.rel, alive, w, 3, t);
  EXPECT_TRUE(paths.count({"<0,1,0,0>", "<0,0,0,1>", "<0,1,0,1>", "<0,0,0,0>"}));
  EXPECT_TRUE(paths.count({"<0,1,0,0>", "<0,0,0,2>", "<0,1,0,2>", "<0,0,0,0>"}));
  // Down to <0,0,0,x> with x != 0 (2 choices), up to <0,1,0,s> with s != 0
  // (2 choices), down to <0,0,0,0>: 4 paths.
  EXPECT_EQ(paths.size(), 4U);
  // GNS alone does not act on a faulty down link.
  auto g = build("go-neighbor-switch");
  EXPECT_TRUE(all_paths(*g.rel, alive, w, 3, t).empty());
}

TEST(MikantFt, ThreeTurnFigure5Paths) {
  auto b = build("three-turn");
  const auto& m = dynamic_cast<const Mikant&>(*b.topo);
  FaultSet fs;
  fs.links = {m.parse_link("<1,2,1,1,0>")};  // between <1,1,1,1> and <0,1,0,1>
  const auto alive = alive_port_masks(m, fs);
  const RouterId w = m.parse_router("<0,1,0,1>");
  const NodeId t = node(m, "<1,0,1,1>");
  const auto paths = all_paths(*b.rel, alive, w, 0, t);
  // Section 3.1.4's first path, and its second one read as <0,1,2,1>: the
  // printed <0,1,2,0> is not adjacent to <1,1,2,1> (a group change keeps D0).
  EXPECT_TRUE(paths.count({"<0,1,0,1>", "<1,1,0,1>", "<0,1,1,1>", "<1,1,1,1>", "<1,0,1,1>"}));
  EXPECT_TRUE(paths.count({"<0,1,0,1>", "<1,1,2,1>", "<0,1,2,1>", "<1,1,1,1>", "<1,0,1,1>"}));
  EXPECT_FALSE(m.peer(m.parse_router("<1,1,2,1>"), 3).id == m.parse_router("<0,1,2,0>"));
  // Across to digit a != T_1 (2 ways), back to digit b != W_1 (2 ways): 4 paths.
  EXPECT_EQ(paths.size(), 4U);
}

TEST(MikantFt, XTurnsFigure4Paths) {
  auto b = build("gns+xt+gdl");
  const auto& m = dynamic_cast<const Mikant&>(*b.topo);
  FaultSet fs;  // <1,2,0,s,0> joins <1,1,0,s> and <0,1,0,s>: W and both neighbours are cut from digit 0
  fs.links = {m.parse_link("<1,2,0,0,0>"), m.parse_link("<1,2,0,1,0>"), m.parse_link("<1,2,0,2,0>")};
  const auto alive = alive_port_masks(m, fs);
  const RouterId w = m.parse_router("<0,1,0,0>");
  const NodeId t = node(m, "<1,2,0,0>");
  const auto paths = all_paths(*b.rel, alive, w, 0, t);
  EXPECT_TRUE(paths.count({"<0,1,0,0>", "<1,1,1,0>", "<1,0,1,1>", "<1,1,1,2>", "<0,1,1,2>", "<1,1,0,2>", "<1,0,0,0>"}));
  EXPECT_TRUE(paths.count({"<0,1,0,0>", "<1,1,2,0>", "<1,0,2,0>", "<1,1,2,1>", "<0,1,1,1>", "<1,1,0,1>", "<1,0,0,0>"}));
  // GNS alone cannot get there: all three switches' links across to digit 0 are cut.
  auto g = build("gns+gdl");
  EXPECT_TRUE(all_paths(*g.rel, alive, w, 0, t).empty());
  // Every X-Turns path from W itself: across a != 0 (2), down x (3), up c != 0
  // (2), back b != 0 (2), across, down: 24 paths start with an X-Turn at W.
  int from_w = 0;
  for (const auto& p : paths)
    if (p[1].rfind("<1,", 0) == 0) ++from_w;
  EXPECT_EQ(from_w, 24);
}

TEST(MikantFt, DetoursAvoidFaultsAndDoNotRepeatALevel) {
  // Cut the links across of W = <0,1,0,0> and of both its neighbours
  // <0,1,0,1> and <0,1,0,2> towards group 1's digit 0 (<1,2,0,s,0> joins
  // <1,1,0,s> and <0,1,0,s>): GNS must fail rather than loop.
  auto b = build("gns+gdl");
  const auto& m = dynamic_cast<const Mikant&>(*b.topo);
  FaultSet fs;
  fs.links = {m.parse_link("<1,2,0,0,0>"), m.parse_link("<1,2,0,1,0>"), m.parse_link("<1,2,0,2,0>")};
  for (const LinkId l : fs.links) {
    const Link& lk = m.link(l);
    ASSERT_EQ(m.router_label(lk.b), "<0,1,0," + std::to_string(m.switch_digit(lk.a, 0)) + ">");
  }
  const auto alive = alive_port_masks(m, fs);
  const auto w = walk(*b.rel, alive, node(m, "<0,0,0,0>"), node(m, "<1,0,0,0>"));
  EXPECT_FALSE(w.delivered);
  EXPECT_LT(w.links, 64);
}

TEST(MikantFt, TrialAnalysisProperties) {
  const std::vector<std::string> algos{"shortest",     "go-neighbor-switch", "go-down-level", "gns+gdl",
                                       "connectivity", "three-turn",         "tt+gdl",        "gns+xt+gdl"};
  const auto rows = routing_success("mikant:3,3", algos, {0, 4, 12}, 20000, 7, 2);
  ASSERT_EQ(rows.size(), 24U);
  // No fault: everyone delivers along shortest paths; the mean over random
  // pairs approaches the paper's average distance with self excluded:
  // (2n - 1/(k-1) + 1/((k-1)k^n) - 1/2) * N / (N - 1) = 5.1132.
  const double mean = (6.0 - 0.5 + 1.0 / 54.0 - 0.5) * 54.0 / 53.0;
  for (std::size_t a = 0; a < 8; ++a) {
    EXPECT_DOUBLE_EQ(rows[a].success_ratio, 1.0);
    EXPECT_NEAR(rows[a].mean_path_length, mean, 0.03);  // ~4 standard errors
  }
  // The detours only act where Algorithm 1 fails, on the same trials, so the
  // success ratios are ordered; connectivity bounds them all.
  for (int f = 1; f < 3; ++f) {
    const auto* r = &rows[static_cast<std::size_t>(f) * 8];
    EXPECT_GE(r[1].success_ratio, r[0].success_ratio);
    EXPECT_GE(r[2].success_ratio, r[0].success_ratio);
    EXPECT_GE(r[3].success_ratio, r[1].success_ratio);
    EXPECT_GE(r[3].success_ratio, r[2].success_ratio);
    EXPECT_GE(r[5].success_ratio, r[0].success_ratio);                                      // three-turn >= shortest
    EXPECT_GE(r[6].success_ratio, r[5].success_ratio);                                      // tt+gdl >= three-turn
    EXPECT_GE(r[6].success_ratio, r[2].success_ratio);                                      // tt+gdl >= gdl
    EXPECT_GE(r[7].success_ratio, r[3].success_ratio);                                      // gns+xt+gdl >= gns+gdl
    for (int a : {0, 1, 2, 3, 5, 6, 7}) EXPECT_GE(r[4].success_ratio, r[a].success_ratio);  // connectivity bounds all
    EXPECT_LT(r[0].success_ratio, 1.0);
  }
  // Results do not depend on the number of threads.
  const auto one = routing_success("mikant:3,3", algos, {0, 4, 12}, 20000, 7, 1);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_DOUBLE_EQ(rows[i].success_ratio, one[i].success_ratio);
}

TEST(MikantFt, ConnectivityMatchesComponents) {
  // live_distance >= 0 exactly when node_components puts both nodes together.
  const auto topo = make_topology("mikant:3,3");
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    FaultSet fs;
    for (int i = 0; i < 25; ++i) fs.links.push_back(static_cast<LinkId>(rng() % 135));
    const auto alive = alive_port_masks(*topo, fs);
    const auto comp = node_components(*topo, fs);
    const NodeId s = static_cast<NodeId>(rng() % 54);
    const NodeId d = static_cast<NodeId>(rng() % 54);
    if (s == d) continue;
    EXPECT_EQ(live_distance(*topo, alive, s, d) >= 0, comp[s] == comp[d]) << "trial " << trial;
  }
}

// The CDG as an edge list for the independent Kahn check.
bool acyclic_by_kahn(const ChannelDependencyGraph& g) {
  std::vector<std::pair<int, int>> edges;
  for (int c = 0; c < g.num_channels(); ++c)
    for (int s : g.successors(c)) edges.emplace_back(c, s);
  return ftsim::test::acyclic_deps(g.num_channels(), edges);
}

TEST(MikantFt, ChannelDependencyCyclesUnderRandomFaults) {
  // The paper claims its saved W_{n-2}/W_0 parameters avoid deadlock. We
  // measure: with one VC, how many random fault sets give a cyclic CDG.
  // Algorithm 1 never detours, so its CDG is a subgraph of the fault-free
  // one, which is acyclic: it must stay acyclic under any faults.
  const auto topo = make_topology("mikant:3,3");
  std::mt19937_64 rng(11);
  std::vector<FaultSet> sets;
  for (int i = 0; i < 40; ++i) {
    FaultSet fs;
    for (int j = 0; j < 6; ++j) {
      LinkId l;
      do l = static_cast<LinkId>(rng() % topo->num_links());
      while (topo->link(l).b_is_node);
      fs.links.push_back(l);
    }
    sets.push_back(fs);
  }
  for (const char* name :
       {"mikant-shortest", "go-neighbor-switch", "go-down-level", "three-turn", "gns+gdl", "gns+xt+gdl", "tt+gdl"}) {
    auto rel = make_routing(name);
    rel->configure(*topo, 1);
    // Without faults no algorithm detours: each routes as Algorithm 1, whose
    // CDG is acyclic.
    const auto fault_free = build_cdg(*rel, {});
    EXPECT_TRUE(fault_free.acyclic()) << name;
    EXPECT_TRUE(acyclic_by_kahn(fault_free)) << name;
    int cyclic = 0;
    for (const auto& fs : sets) {
      const auto g = build_cdg(*rel, fs);
      // The printed count is checked by a second, independent algorithm.
      EXPECT_EQ(g.acyclic(), acyclic_by_kahn(g)) << name;
      cyclic += g.acyclic() ? 0 : 1;
    }
    std::printf("%-20s cyclic CDG in %d of %zu fault sets (6 switch-switch links each)\n", name, cyclic, sets.size());
    if (std::string(name) == "mikant-shortest") {
      EXPECT_EQ(cyclic, 0);
    }
  }
}
