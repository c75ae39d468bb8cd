// DQR (dynamic-quick-reconfiguration.txt): channel list and turn enabling,
// checked against a brute-force cycle search and hand-built examples.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fstream>
#include <random>
#include <set>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "routing_logic/cdg.hpp"
#include "routing_logic/dqr/channel_list.hpp"
#include "routing_logic/dqr/dqr.hpp"
#include "routing_logic/topology/ibnet.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/lash.hpp"
#include "routing_logic/lft_routing.hpp"
#include "routing_logic/topology/switch_endpoints.hpp"
#include "tables/lft.hpp"
#include "tests/support/acyclic.hpp"

using ftsim::routing::dqr::ChannelList;
using ftsim::test::acyclic_deps;

namespace {

using Edges = std::vector<std::pair<int, int>>;

// Brute force: does the directed graph have a cycle? Repeatedly removes
// vertices without predecessors (independent of the list's own code).
bool cyclic(int n, const Edges& edges) {
  std::set<std::pair<int, int>> e(edges.begin(), edges.end());
  std::vector<char> gone(static_cast<std::size_t>(n), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int v = 0; v < n; ++v) {
      if (gone[static_cast<std::size_t>(v)]) continue;
      bool has_pred = false;
      for (const auto& [a, b] : e)
        if (b == v && !gone[static_cast<std::size_t>(a)]) has_pred = true;
      if (!has_pred) {
        gone[static_cast<std::size_t>(v)] = 1;
        progress = true;
      }
    }
  }
  for (int v = 0; v < n; ++v)
    if (!gone[static_cast<std::size_t>(v)]) return true;
  return false;
}

}  // namespace

TEST(ChannelList, FigureTwoStyleEnableMovesTheTargetAndWhatItFeeds) {
  // Channels 0..4: a chain 0 -> 1 -> 2 -> 3 and a free channel 4. Kahn with
  // the lowest id first gives 0 1 2 3 4.
  ChannelList cl(5, {{0, 1}, {1, 2}, {2, 3}});
  EXPECT_EQ(cl.order(), (std::vector<int>{0, 1, 2, 3, 4}));
  // 0 -> 1 -> 2 and now 2 -> 0 would close 0 -> 1 -> 2 -> 0: refused.
  EXPECT_EQ(cl.channels_to_move(2, 0), std::nullopt);
  EXPECT_EQ(cl.enable(2, 0), -1);
  EXPECT_TRUE(cl.valid());
  // 4 -> 1: channels reachable from 1 below 4 are 1, 2, 3 (T = 3).
  ASSERT_TRUE(cl.channels_to_move(4, 1).has_value());
  EXPECT_EQ(*cl.channels_to_move(4, 1), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(cl.enable(4, 1), 3);
  EXPECT_EQ(cl.order(), (std::vector<int>{0, 4, 1, 2, 3}));
  EXPECT_TRUE(cl.has_dependency(4, 1));
  EXPECT_TRUE(cl.valid());
  // A legal turn moves nothing; enabling it twice changes nothing.
  EXPECT_EQ(cl.enable(0, 3), 0);
  EXPECT_EQ(cl.enable(0, 3), 0);
  EXPECT_EQ(cl.num_dependencies(), 5U);
  EXPECT_EQ(cl.enable(3, 3), -1);  // a channel cannot depend on itself
}

TEST(ChannelList, CyclicInitialDependenciesAreRejectedWithTheCycle) {
  try {
    ChannelList cl(4, {{0, 1}, {1, 2}, {2, 0}, {2, 3}});
    FAIL() << "accepted a cyclic dependency set";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0 -> 1 -> 2 -> 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ChannelList(3, {{0, 3}}), std::invalid_argument);
}

TEST(ChannelList, RandomGraphsRefuseExactlyTheTurnsThatCloseACycle) {
  // Random DAGs (edges from a random permutation's lower to higher rank) and
  // random turns to enable, accepted or not: after every call the list is a
  // valid order of all recorded dependencies, a refusal happens exactly when
  // the union with the new turn is cyclic (brute force), and an accepted
  // turn moved exactly channels_to_move() channels.
  std::mt19937 rng(7);
  int refused = 0, accepted = 0, moved = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 10);
    std::vector<int> rank(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) rank[static_cast<std::size_t>(i)] = i;
    std::shuffle(rank.begin(), rank.end(), rng);
    Edges deps;
    for (int k = 0; k < n; ++k) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)]) deps.emplace_back(a, b);
    }
    ChannelList cl(n, deps);
    ASSERT_TRUE(cl.valid());
    for (int step = 0; step < 12; ++step) {
      const int u = static_cast<int>(rng() % n), v = static_cast<int>(rng() % n);
      Edges with = deps;
      with.emplace_back(u, v);
      const bool closes = u == v || cyclic(n, with);
      const auto to_move = cl.channels_to_move(u, v);
      const int t = cl.enable(u, v);
      EXPECT_EQ(t == -1, closes) << "turn " << u << " -> " << v;
      EXPECT_EQ(!to_move.has_value(), closes);
      if (!closes) {
        EXPECT_EQ(static_cast<std::size_t>(t), to_move->size());
        deps.push_back({u, v});
        ++accepted;
        moved += t > 0;
      } else {
        ++refused;
      }
      ASSERT_TRUE(cl.valid());
      for (const auto& [a, b] : deps) EXPECT_LT(cl.position(a), cl.position(b));
    }
  }
  // The draw exercises all three outcomes.
  EXPECT_GT(refused, 20);
  EXPECT_GT(accepted, 20);
  EXPECT_GT(moved, 10);
}

TEST(ChannelList, ATrialRollsBackToTheExactListItStartedFrom) {
  // Random DAGs as above; inside nested trials random turns are enabled
  // (some move channels, some are refused). Each rollback must restore the
  // order and the dependency set saved (by copy) when its trial began, and
  // refusals inside a trial must agree with the brute-force cycle check.
  std::mt19937 rng(11);
  int moved_in_trials = 0;
  for (int round = 0; round < 40; ++round) {
    const int n = 4 + static_cast<int>(rng() % 9);
    Edges deps;
    for (int k = 0; k < n; ++k) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (a < b) deps.emplace_back(a, b);
    }
    ChannelList cl(n, deps);
    const ChannelList outer_copy = cl;
    const std::size_t outer = cl.begin_trial();
    Edges with = deps;
    for (int step = 0; step < 4; ++step) {
      const int u = static_cast<int>(rng() % n), v = static_cast<int>(rng() % n);
      Edges try_with = with;
      try_with.emplace_back(u, v);
      const int t = cl.enable(u, v);
      EXPECT_EQ(t == -1, u == v || cyclic(n, try_with));
      if (t >= 0) with = try_with;
      moved_in_trials += t > 0;
    }
    const ChannelList inner_copy = cl;
    const std::size_t inner = cl.begin_trial();
    for (int step = 0; step < 4; ++step) {
      const int t = cl.enable(static_cast<int>(rng() % n), static_cast<int>(rng() % n));
      moved_in_trials += t > 0;
    }
    EXPECT_THROW(cl.rollback(outer), std::logic_error);  // not the innermost trial
    EXPECT_THROW(cl.remove_dependency(0, 1), std::logic_error);
    cl.rollback(inner);
    EXPECT_EQ(cl.order(), inner_copy.order());
    EXPECT_EQ(cl.num_dependencies(), inner_copy.num_dependencies());
    cl.rollback(outer);
    EXPECT_EQ(cl.order(), outer_copy.order());
    EXPECT_EQ(cl.num_dependencies(), outer_copy.num_dependencies());
    ASSERT_TRUE(cl.valid());
    for (int u = 0; u < n; ++u)
      for (int v = 0; v < n; ++v) {
        EXPECT_EQ(cl.has_dependency(u, v), outer_copy.has_dependency(u, v)) << u << " -> " << v;
        EXPECT_EQ(cl.position(u), outer_copy.position(u));
      }
    EXPECT_THROW(cl.rollback(outer), std::logic_error);  // already closed
  }
  EXPECT_GT(moved_in_trials, 20);  // the rollbacks undid real moves
}

// --- OpenSM forwarding tables ----------------------------------------------

namespace {

using ftsim::ConfigError;
using ftsim::routing::kNone;
using ftsim::routing::PortId;
namespace rt = ftsim::routing;

std::string fixture(const std::string& rel) {
  std::ifstream f(std::string(FTSIM_FIXTURES_DIR) + "/opensm/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A deterministic relation's tables (library function, tested below).
ftsim::tables::NodeTables tables_of(const rt::RoutingRelation& rel) {
  ftsim::tables::NodeTables out;
  out.port = rt::deterministic_tables(rel);
  return out;
}

// Switches a flow from node s to node d visits under the engine's tables.
std::vector<std::string> route_of(const rt::Topology& t, const ftsim::routing::dqr::Engine& e, rt::NodeId s,
                                  rt::NodeId d) {
  std::vector<std::string> out{t.router_label(t.node_router(s))};
  const bool ok =
      rt::follow_tables(t, e.tables(), e.dead_links(), t.node_router(s), d,
                        [&](rt::RouterId r, rt::PortId p) { out.push_back(t.router_label(t.peer(r, p).id)); });
  if (!ok) out.push_back("undelivered");
  return out;
}

}  // namespace

TEST(OpenSmLft, DumpRoundTripIsTheIdentityOnEveryFixture) {
  for (const char* d : {"ftsmall", "ftsmall-updn", "mesh4x4-dor", "mesh4x4-updn", "torus4x4-dor", "torus4x4-lash",
                        "mesh10x10-dor-initial", "mesh10x10-dor-fault"}) {
    const std::string text = fixture(std::string(d) + "/opensm-lfts.dump");
    ASSERT_FALSE(text.empty()) << d;
    const auto set = ftsim::tables::LftSet::parse_dump(text, d);
    EXPECT_EQ(set.dump(), text) << d;
  }
  // Sizes by hand: mesh4x4 has 16 switches x 32 LIDs; ftsmall-updn leaves
  // S0's route to S1 and back out (13 of 14 lines in S0's block).
  EXPECT_EQ(ftsim::tables::LftSet::parse_dump(fixture("mesh4x4-dor/opensm-lfts.dump"), "m").entries(), 16U * 32U);
  const auto updn = ftsim::tables::LftSet::parse_dump(fixture("ftsmall-updn/opensm-lfts.dump"), "f");
  ASSERT_NE(updn.find_switch("S0"), nullptr);
  EXPECT_EQ(updn.find_switch("S0")->port.size(), 13U);
}

TEST(OpenSmLft, MalformedDumpLinesNameTheirLine) {
  std::string text = fixture("mesh4x4-dor/opensm-lfts.dump");
  // Line 3 is "0x0002 000 # Switch ...": make its port 300.
  const auto at = text.find("0x0002 000");
  text.replace(at, 10, "0x0002 300");
  try {
    ftsim::tables::LftSet::parse_dump(text, "bad.dump");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.dump:3: port 300 out of range, allowed 0..254"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ftsim::tables::LftSet::parse_dump("0x0001 001\n", "x"), ConfigError);  // outside a block
  EXPECT_THROW(ftsim::tables::LftSet::parse_dump("hello\n", "x"), ConfigError);
}

TEST(OpenSmLft, FtsimDorEqualsOpenSmDorEntryForEntry) {
  // ftsim's dor on a mesh/torus, exported with the fixture's LIDs, must give
  // OpenSM's dump byte for byte (every HCA and switch LID of every switch).
  struct Case {
    const char* spec;
    const char* dir;
  };
  for (const Case& c : {Case{"mesh:4x4", "mesh4x4-dor"}, Case{"torus:4x4", "torus4x4-dor"},
                        Case{"mesh:10x10", "mesh10x10-dor-initial"}}) {
    const auto topo = rt::make_topology(c.spec);
    auto dor = rt::make_routing("dor");
    dor->configure(*topo, 2);
    const std::string text = fixture(std::string(c.dir) + "/opensm-lfts.dump");
    const auto osm = ftsim::tables::LftSet::parse_dump(text, c.dir);
    const auto mine = tables_of(*dor);
    const auto placed = ftsim::tables::place(osm, *topo);
    int differ = 0;
    for (std::size_t r = 0; r < mine.port.size(); ++r)
      for (std::size_t n = 0; n < mine.port[r].size(); ++n) differ += mine.port[r][n] != placed.port[r][n];
    EXPECT_EQ(differ, 0) << c.spec;
    EXPECT_EQ(ftsim::tables::export_tables(mine, *topo, osm).dump(), text) << c.spec;
  }
}

TEST(OpenSmLft, SwitchesAndHcasAreMatchedByGuidWhenTheNamesDiffer) {
  // Issue 50 item 3: OpenSM's updn dump of ft_small with every node renamed
  // (descriptions changed, GUIDs kept) must still place on the fabric read
  // from real ibnetdiscover output (matched by switch GUID and HCA port
  // GUID), giving the same tables entry for entry, and `lft diff` must see
  // no change between the two dumps (switches keyed by GUID).
  const std::string text = fixture("ftsmall-updn/opensm-lfts.dump");
  std::string renamed = text;
  for (const std::string n :
       {"L0", "L1", "L2", "L3", "S0", "S1", "H_0_0", "H_0_1", "H_1_0", "H_1_1", "H_2_0", "H_2_1", "H_3_0", "H_3_1"})
    for (std::size_t at = 0; (at = renamed.find("'" + n + "'", at)) != std::string::npos; at += n.size() + 6)
      renamed.replace(at, n.size() + 2, "'node-" + n + "'");
  ASSERT_NE(renamed, text);
  const auto a = ftsim::tables::LftSet::parse_dump(text, "a");
  const auto b = ftsim::tables::LftSet::parse_dump(renamed, "b");
  const rt::IbNetTopology fabric(fixture("../ibnetdiscover/ft_small.ibnetdiscover"), "ft_small.ibnetdiscover");
  const auto pa = ftsim::tables::place(a, fabric), pb = ftsim::tables::place(b, fabric);
  EXPECT_EQ(pa.port, pb.port);
  int entries = 0;
  for (const auto& row : pa.port)
    for (const auto p : row) entries += p != rt::kNone;
  EXPECT_EQ(entries, 6 * 8);  // every switch has an entry for every HCA
  const auto d = ftsim::tables::diff_tables(a, b, &fabric, {});
  EXPECT_EQ(d.entries_changed, 0U);
  EXPECT_EQ(d.switches_changed, 0U);
  EXPECT_EQ(d.unrouted_b, d.unrouted_a);
  // Without GUIDs (the ibsim netfile names the nodes), the renamed dump does not place.
  const rt::IbNetTopology netfile(fixture("ft_small.net"), "ft_small.net");
  EXPECT_THROW(ftsim::tables::place(b, netfile), ConfigError);
}

TEST(OpenSmLft, IbnetFabricFromTheNetfile) {
  // mesh4x4.net: 16 switches and 16 HCAs; 2*4*3 = 24 switch links plus 16
  // HCA links. ftsmall: 4 leaves x 2 HCAs, 2 spines, 8 leaf-spine links.
  const rt::IbNetTopology mesh(fixture("mesh4x4.net"), "mesh4x4.net");
  EXPECT_EQ(mesh.num_routers(), 16);
  EXPECT_EQ(mesh.num_nodes(), 16);
  EXPECT_EQ(mesh.num_links(), 24 + 16);
  EXPECT_EQ(mesh.peer(mesh.find_router("SW_0_0"), 1).id, mesh.find_router("SW_1_0"));  // IB port 2 = +x
  const rt::IbNetTopology again(mesh.netfile(), "round-trip");
  EXPECT_EQ(again.netfile(), mesh.netfile());
  const rt::IbNetTopology ft(fixture("ft_small.net"), "ft_small.net");
  EXPECT_EQ(ft.num_routers(), 6);
  EXPECT_EQ(ft.num_nodes(), 8);
  EXPECT_EQ(ft.num_links(), 8 + 8);
  // The OpenSM tables place on the fabric by name.
  const auto osm = ftsim::tables::LftSet::parse_dump(fixture("ftsmall/opensm-lfts.dump"), "ftsmall");
  const auto placed = ftsim::tables::place(osm, ft);
  EXPECT_EQ(
      placed.port[static_cast<std::size_t>(ft.find_router("L0"))][static_cast<std::size_t>(ft.find_node("H_0_1"))],
      1);  // IB port 2
  // The paper's 648-port fat tree: 36 leaves x 18 HCAs, 18 spines.
  const rt::IbNetTopology big(36, 18, 18);
  EXPECT_EQ(big.num_nodes(), 648);
  EXPECT_EQ(big.num_routers(), 54);
  EXPECT_EQ(big.num_links(), 648 + 36 * 18);
  // Errors name the line.
  try {
    rt::IbNetTopology bad("Switch 4 \"A\"\n[5] \"B\"[1]\n", "bad.net");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.net:2: port 5 of 'A' out of range, allowed 1..4"), std::string::npos)
        << e.what();
  }
}

TEST(OpenSmLft, OpenSmRerouteAroundAFaultHasACyclicCdg) {
  // mesh10x10, link SW_4_4 p2 <-> SW_5_4 p3 (ftsim 4,4:x+) failed; OpenSM's
  // dor rerouted around it on both sides. The initial tables' CDG is
  // acyclic; the rerouted one has a cycle, which must be named, and it must
  // pass through the detours next to the failed link (switches 4,3..5,5).
  const auto topo = rt::make_topology("mesh:10x10");
  for (const char* dir : {"mesh10x10-dor-initial", "mesh10x10-dor-fault"}) {
    const auto osm = ftsim::tables::LftSet::parse_dump(fixture(std::string(dir) + "/opensm-lfts.dump"), dir);
    rt::LftRouting lft;
    lft.configure(*topo, 1);
    lft.set_tables(ftsim::tables::place(osm, *topo).port);
    rt::FaultSet faults;
    if (std::string(dir).find("fault") != std::string::npos) faults.links.push_back(topo->parse_link("4,4:x+"));
    const auto cdg = rt::build_cdg(lft, faults);
    EXPECT_EQ(cdg.undelivered_pairs, 0) << dir;
    const auto cycle = cdg.find_cycle();
    if (std::string(dir).find("initial") != std::string::npos) {
      EXPECT_TRUE(cycle.empty());
      continue;
    }
    ASSERT_FALSE(cycle.empty());
    std::string names;
    for (int c : cycle) {
      const auto ch = cdg.channel(c);
      names += rt::describe_channel(*topo, ch) + "; ";
      const auto* cube = static_cast<const rt::KAryNCube*>(topo.get());
      EXPECT_GE(cube->coord(ch.router, 0), 4) << names;
      EXPECT_LE(cube->coord(ch.router, 0), 5) << names;
      EXPECT_GE(cube->coord(ch.router, 1), 3) << names;
      EXPECT_LE(cube->coord(ch.router, 1), 5) << names;
    }
    EXPECT_GE(cycle.size(), 4U) << names;
  }
}

// --- Reconfiguration (section IV-B) ------------------------------------------

TEST(DqrReconfigure, EverySingleLinkFaultOfXyMeshes) {
  // XY routing on k x k meshes, every link failed alone. Checked for each
  // fault: the disconnected flows are those crossing the link (hand count
  // k (i+1)(k-1-i) per direction for a link between columns/rows i and i+1),
  // their average over all links is 1/(3(k-1)) of the N(N-1) flows (notes
  // section 8); after a successful reconfiguration every flow is delivered
  // and the old and new dependencies together are acyclic (independent Kahn
  // check), which is DQR's deadlock-freedom argument (section III).
  for (int k : {4, 5, 6}) {
    const auto topo = rt::make_topology(fmt::format("mesh:{}x{}", k, k));
    auto dor = rt::make_routing("dor");
    dor->configure(*topo, 1);
    const auto initial = tables_of(*dor).port;
    const double flows = static_cast<double>(k * k) * (k * k - 1);
    double fraction_sum = 0;
    int ok = 0;
    for (rt::LinkId l = 0; l < topo->num_links(); ++l) {
      ftsim::routing::dqr::Engine eng(*topo, initial);
      const auto old_deps = eng.traced_dependencies();
      const auto r = eng.reconfigure({l});
      const auto* cube = static_cast<const rt::KAryNCube*>(topo.get());
      const rt::Link& lk = topo->link(l);
      const int d = rt::KAryNCube::dim_of(lk.a_port);
      const int i = std::min(cube->coord(lk.a, d), cube->coord(static_cast<rt::RouterId>(lk.b), d));
      EXPECT_EQ(r.flows_disconnected, static_cast<std::size_t>(2 * k * (i + 1) * (k - 1 - i))) << topo->link_label(l);
      fraction_sum += static_cast<double>(r.flows_disconnected) / flows;
      if (!r.success) continue;
      ++ok;
      EXPECT_EQ(eng.undelivered_flows(), 0U);
      auto both = old_deps;
      const auto new_deps = eng.traced_dependencies();
      both.insert(both.end(), new_deps.begin(), new_deps.end());
      EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), both)) << topo->link_label(l);
      for (const auto& [u, v] : new_deps) EXPECT_TRUE(eng.channel_list().has_dependency(u, v));
      EXPECT_TRUE(eng.channel_list().valid());
      EXPECT_GT(r.entries_changed, 0U);
    }
    EXPECT_NEAR(fraction_sum / topo->num_links(), 1.0 / (3.0 * (k - 1)), 1e-12) << k;
    std::printf("mesh %dx%d: %d of %d single link faults reconfigured (whole-path check)\n", k, k, ok,
                topo->num_links());
    // Measured: every single link fault is reconfigured (the paper
    // guarantees it with the mesh plug-in; this is the end-to-end search).
    EXPECT_EQ(ok, topo->num_links());
  }
}

TEST(DqrReconfigure, SameFaultAsTheOpenSmFixtureWithoutItsCycle) {
  // mesh10x10, XY, link 4,4:x+ failed (the fixture where OpenSM's reroute
  // has a cyclic CDG). Hand count: the flows crossing the link turn at 4,4
  // (towards the 50 HCAs of columns 5..9) and at 5,4 (towards the 50 of
  // columns 0..4): DQR rewrites exactly those 100 entries, as OpenSM does
  // for the HCA LIDs, and the new tables' CDG (built independently from the
  // lft relation) is acyclic.
  const auto topo = rt::make_topology("mesh:10x10");
  auto dor = rt::make_routing("dor");
  dor->configure(*topo, 1);
  ftsim::routing::dqr::Engine eng(*topo, tables_of(*dor).port);
  const auto link = topo->parse_link("4,4:x+");
  const auto r = eng.reconfigure({link});
  ASSERT_TRUE(r.success) << r.failure;
  EXPECT_EQ(r.flows_disconnected, 500U);
  EXPECT_EQ(r.entries_changed, 100U);
  rt::LftRouting lft;
  lft.configure(*topo, 1);
  lft.set_tables(eng.tables());
  rt::FaultSet faults;
  faults.links.push_back(link);
  const auto cdg = rt::build_cdg(lft, faults);
  EXPECT_EQ(cdg.undelivered_pairs, 0);
  EXPECT_TRUE(cdg.find_cycle().empty());
  // Exported with the fixture's LIDs, the switch LIDs follow their HCAs: 200
  // LFT entries differ from the initial dump, as in OpenSM's reroute.
  const auto initial = ftsim::tables::LftSet::parse_dump(fixture("mesh10x10-dor-initial/opensm-lfts.dump"), "i");
  ftsim::tables::NodeTables nt;
  nt.port = eng.tables();
  const auto mine = ftsim::tables::export_tables(nt, *topo, initial);
  EXPECT_EQ(ftsim::tables::diff_tables(initial, mine, nullptr, {}).entries_changed, 200U);
}

TEST(DqrReconfigure, ProgressiveFaultsKeepTheUnionAcyclic) {
  // Section V's procedure on a 6x6 mesh: fault, reconfigure, and while it
  // succeeds fault again. After every success the dependencies of every
  // table set so far, together, are acyclic (independent Kahn check), and
  // a failed reconfiguration leaves the tables as they were.
  const auto topo = rt::make_topology("mesh:6x6");
  auto dor = rt::make_routing("dor");
  dor->configure(*topo, 1);
  std::mt19937 rng(3);
  int successes = 0, failures = 0, disconnections = 0;
  for (int run = 0; run < 10; ++run) {
    ftsim::routing::dqr::Engine eng(*topo, tables_of(*dor).port);
    auto all = eng.traced_dependencies();
    std::vector<rt::LinkId> order(static_cast<std::size_t>(topo->num_links()));
    for (int i = 0; i < topo->num_links(); ++i) order[static_cast<std::size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (rt::LinkId l : order) {
      const auto before = eng.tables();
      const auto r = eng.reconfigure({l});
      if (!r.success) {
        ++failures;
        disconnections += r.disconnected;
        EXPECT_EQ(eng.tables(), before);
        break;
      }
      ++successes;
      const auto now = eng.traced_dependencies();
      all.insert(all.end(), now.begin(), now.end());
      ASSERT_TRUE(acyclic_deps(2 * topo->num_links(), all)) << "after " << successes << " faults";
      EXPECT_EQ(eng.undelivered_flows(), 0U);
    }
  }
  EXPECT_GT(successes, 10);
  EXPECT_GT(failures, 0);  // some sequence ends (disconnection or no path)
  // A corner switch of a mesh has two links: failing both disconnects it,
  // which is reported as such (hand-built, not drawn).
  ftsim::routing::dqr::Engine eng(*topo, tables_of(*dor).port);
  EXPECT_TRUE(eng.reconfigure({topo->parse_link("0,0:x+")}).success);
  const auto r = eng.reconfigure({topo->parse_link("0,0:y+")});
  EXPECT_FALSE(r.success);
  EXPECT_TRUE(r.disconnected);
  EXPECT_NE(r.failure.find("disconnect"), std::string::npos) << r.failure;
  std::printf("6x6 progressive: %d reconfigurations, %d failures, %d of them disconnections\n", successes, failures,
              disconnections);
}

TEST(DqrVariants, MeshPluginDetoursTowardsTheCentre) {
  // 5x5 XY mesh (section IV-C, [4]). Link 1,0 - 2,0 on the bottom row: the
  // centre side is +y, so traffic from 1,0 eastwards climbs to row 1 and
  // merges there into its XY route (1,1 routes x+ along row 1, then y-).
  // Hand-derived routes: to 4,0: 1,0 1,1 2,1 3,1 4,1 4,0; to 2,0: 1,0 1,1
  // 2,1 2,0. On the top row (y = 4) the centre side is -y.
  const auto topo = rt::make_topology("mesh:5x5");
  auto dor = rt::make_routing("dor");
  dor->configure(*topo, 1);
  const auto opt = ftsim::routing::dqr::variant_options("mesh-plugin");
  ftsim::routing::dqr::Engine eng(*topo, tables_of(*dor).port);
  const auto r = eng.reconfigure({topo->parse_link("1,0:x+")}, opt);
  ASSERT_TRUE(r.success) << r.failure;
  EXPECT_EQ(r.plugin_detours, 2U);
  EXPECT_EQ(r.plugin_refused, 0U);
  const auto node = [&](const char* label) { return static_cast<rt::NodeId>(topo->parse_router(label)); };
  EXPECT_EQ(route_of(*topo, eng, node("1,0"), node("4,0")),
            (std::vector<std::string>{"1,0", "1,1", "2,1", "3,1", "4,1", "4,0"}));
  EXPECT_EQ(route_of(*topo, eng, node("0,0"), node("2,0")),
            (std::vector<std::string>{"0,0", "1,0", "1,1", "2,1", "2,0"}));
  ftsim::routing::dqr::Engine top(*topo, tables_of(*dor).port);
  ASSERT_TRUE(top.reconfigure({topo->parse_link("1,4:x+")}, opt).success);
  EXPECT_EQ(route_of(*topo, top, node("1,4"), node("2,4")), (std::vector<std::string>{"1,4", "1,3", "2,3", "2,4"}));
}

TEST(DqrVariants, MeshPluginReconfiguresEverySingleLinkFault) {
  // The paper's guarantee (sections IV-C, VI): with the mesh plug-in every
  // single link fault of an XY mesh is reconfigured, the plug-in's detour
  // is enabled in both directions, and the old and new dependencies
  // together are acyclic (independent Kahn check). 15x15 and 20x20 are
  // checked by the CLI test (analyze dqr --every-single-fault).
  for (int k : {5, 10}) {
    const auto topo = rt::make_topology(fmt::format("mesh:{}x{}", k, k));
    auto dor = rt::make_routing("dor");
    dor->configure(*topo, 1);
    const ftsim::routing::dqr::Engine proto(*topo, tables_of(*dor).port);
    const auto old_deps = proto.traced_dependencies();
    int links = 0;
    for (rt::LinkId l = 0; l < topo->num_links(); ++l) {
      if (topo->link(l).b_is_node) continue;
      ++links;
      ftsim::routing::dqr::Engine eng = proto;
      const auto r = eng.reconfigure({l}, ftsim::routing::dqr::variant_options("mesh-plugin"));
      ASSERT_TRUE(r.success) << topo->link_label(l) << ": " << r.failure;
      EXPECT_EQ(r.plugin_detours, 2U) << topo->link_label(l);
      auto both = old_deps;
      const auto now = eng.traced_dependencies();
      both.insert(both.end(), now.begin(), now.end());
      EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), both)) << topo->link_label(l);
      EXPECT_GE(r.stretch_mean, 1.0);
    }
    EXPECT_EQ(links, 2 * k * (k - 1));
  }
}

TEST(DqrVariants, BlocksChangedByHandOnMesh10x10) {
  // Link 4,4 - 5,4 fails under XY: 4,4 rewrites its entries for the 50
  // nodes of columns 5..9 and 5,4 those of columns 0..4 (100 entries).
  // Nodes are numbered x + 10 y, LIDs = id + 1, so each switch's 50
  // entries span LIDs 1..100: blocks 0 (LIDs 0..63) and 1 (64..127) on each
  // of the two switches, 4 blocks. Every variant rewrites exactly these.
  const auto topo = rt::make_topology("mesh:10x10");
  auto dor = rt::make_routing("dor");
  dor->configure(*topo, 1);
  const ftsim::routing::dqr::Engine proto(*topo, tables_of(*dor).port);
  for (const auto& v : {"lr-path", "mesh-plugin", "local-search"}) {
    ftsim::routing::dqr::Engine eng = proto;
    const auto r = eng.reconfigure({topo->parse_link("4,4:x+")}, ftsim::routing::dqr::variant_options(v));
    ASSERT_TRUE(r.success) << v << ": " << r.failure;
    EXPECT_EQ(r.entries_changed, 100U) << v;
    EXPECT_EQ(r.blocks_changed, 4U) << v;
    EXPECT_EQ(r.flows_disconnected, 500U) << v;
  }
}

TEST(DqrVariants, UnknownVariantNamesTheAllowedOnes) {
  try {
    ftsim::routing::dqr::variant_options("lr-whole");
    FAIL() << "no throw";
  } catch (const ftsim::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("lr-whole"), std::string::npos) << m;
    EXPECT_NE(m.find("mesh-plugin"), std::string::npos) << m;
  }
  // Six paper variants, their six -noretry ablations, local-search.
  EXPECT_EQ(ftsim::routing::dqr::variant_names().size(), 13U);
}

TEST(DqrVariants, WithoutTheUpstreamRetryDestinationTablesFailWhereFlowsEnterFromEveryDirection) {
  // 10x10 XY mesh, link 1,0 - 1,1 down. For destination 1,0 the broken
  // switch next to the fault is 1,1: flows reach it from x+ (row 1 to the
  // right), x- (node 0,1) and y- (column 1 above). Its new port for 1,0 is
  // shared by all of them, and every live port (x+, x-, y+) is a U-turn for
  // one: no path from 1,1 serves them all (hand argument). The paper's
  // variants then search from the switches feeding it and succeed; the
  // -noretry ablation fails, even with the mesh plug-in the paper guarantees
  // for one fault.
  const auto topo = rt::make_topology("mesh:10x10");
  auto dor = rt::make_routing("dor");
  dor->configure(*topo, 1);
  const ftsim::routing::dqr::Engine proto(*topo, tables_of(*dor).port);
  const rt::LinkId l = topo->parse_link("1,0:y+");
  for (const char* v : {"mesh-plugin", "lr-path", "local-search"}) {
    ftsim::routing::dqr::Engine eng = proto;
    EXPECT_TRUE(eng.reconfigure({l}, ftsim::routing::dqr::variant_options(v)).success) << v;
  }
  ftsim::routing::dqr::Engine eng = proto;
  const auto r = eng.reconfigure({l}, ftsim::routing::dqr::variant_options("mesh-plugin-noretry"));
  EXPECT_FALSE(r.success);
  EXPECT_NE(r.failure.find("destination 1,0: no deadlock-free path from switch 1,1"), std::string::npos) << r.failure;
}

TEST(InitialTables, UpDownOnATwoTierFatTree) {
  // fat-tree2:4,2,3: 4 leaves with 3 HCAs each, 2 spines. Up*/down* from
  // the spines (the switches without HCAs): a flow between HCAs of two
  // leaves crosses leaf, spine, leaf (2 switch hops); within a leaf, 0.
  // Destinations spread over both spines (d mod 2). The engine accepts the
  // tables (every flow delivered, CDG acyclic).
  const auto topo = rt::make_topology("fat-tree2:4,2,3");
  const auto t = rt::updown_tables(*topo);
  const ftsim::routing::dqr::Engine eng(*topo, t);
  std::set<rt::RouterId> spines_used;
  for (rt::NodeId s = 0; s < topo->num_nodes(); ++s)
    for (rt::NodeId d = 0; d < topo->num_nodes(); ++d) {
      if (s == d) continue;
      int hops = 0;
      ASSERT_TRUE(
          rt::follow_tables(*topo, t, eng.dead_links(), topo->node_router(s), d, [&](rt::RouterId r, rt::PortId p) {
            ++hops;
            if (hops == 1) spines_used.insert(topo->peer(r, p).id);
          }));
      EXPECT_EQ(hops, topo->node_router(s) == topo->node_router(d) ? 0 : 2);
    }
  EXPECT_EQ(spines_used.size(), 2U);
}

TEST(SwitchEndpoints, UpDownRoutesEveryLidButSpineToSpine) {
  // fat-tree2:4,2,2 plus one endpoint per switch: 8 HCAs (nodes 0..7), then
  // L0..L3, S0, S1 (nodes 8..13) on each switch's extra port "self". Links
  // are unchanged (8 HCA + 8 leaf-spine). Up*/down* from the spines: leaf to
  // spine 1 switch hop, spine to leaf 1, leaf to leaf 2, HCA to its own leaf
  // 0; spine to spine has no up*/down* path and stays unrouted, as in
  // OpenSM's updn dump of ft_small (fixtures/opensm/ftsmall-updn: S0 has no
  // entry for S1). Flows: 14 x 13 - 2 = 180.
  const rt::SwitchEndpointTopology topo(rt::make_topology("fat-tree2:4,2,2"));
  ASSERT_EQ(topo.num_nodes(), 14);
  ASSERT_EQ(topo.num_links(), 16);
  EXPECT_EQ(topo.node_label(12), "S0");
  EXPECT_TRUE(topo.is_switch_endpoint(12));
  EXPECT_FALSE(topo.is_switch_endpoint(7));
  EXPECT_EQ(topo.port_name(topo.node_router(12), topo.node_port(12)), "self");
  const auto t = rt::updown_tables(topo);
  const rt::RouterId s0 = topo.node_router(12), s1 = topo.node_router(13);
  EXPECT_EQ(t[static_cast<std::size_t>(s0)][13], rt::kNone);
  EXPECT_EQ(t[static_cast<std::size_t>(s1)][12], rt::kNone);
  // Every leaf goes straight up to the spine it addresses (leaf port 2 + j
  // is spine j): roots are settled before the switches below them.
  for (rt::NodeId leaf = 8; leaf < 12; ++leaf)
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(t[static_cast<std::size_t>(topo.node_router(leaf))][static_cast<std::size_t>(12 + j)], 2 + j);
  const ftsim::routing::dqr::Engine eng(topo, t, {}, ftsim::routing::dqr::FlowSet::kRouted);
  EXPECT_EQ(eng.flow_count(), 180U);
  EXPECT_FALSE(eng.is_flow(12, 13));
  EXPECT_TRUE(eng.is_flow(13, 8));
  auto hops = [&](rt::NodeId s, rt::NodeId d) {
    int n = 0;
    EXPECT_TRUE(
        rt::follow_tables(topo, t, eng.dead_links(), topo.node_router(s), d, [&](rt::RouterId, rt::PortId) { ++n; }));
    return n;
  };
  EXPECT_EQ(hops(8, 12), 1);  // L0 -> S0
  EXPECT_EQ(hops(13, 9), 1);  // S1 -> L1
  EXPECT_EQ(hops(8, 11), 2);  // L0 -> L3
  EXPECT_EQ(hops(0, 8), 0);   // H_0_0 -> its leaf L0
  EXPECT_EQ(hops(12, 7), 1);  // S0 -> H_3_1 (down to L3)
  // Without switch endpoints the same routine still throws nothing and
  // routes every HCA pair (the kAllPairs engine accepts it).
  EXPECT_NO_THROW(ftsim::routing::dqr::Engine(topo.base(), rt::updown_tables(topo.base())));
}

TEST(SwitchEndpoints, ALeafSpineFaultNeedsADownUpTurnOnlyWithSwitchEndpoints) {
  // Section IV-A: "for fat trees that require switch to switch
  // connectivity, a single link fault can lead to the need for introducing
  // new downward to upward turns". Fail L0-S0 on fat-tree2:4,2,2. HCA flows
  // only: every leaf still reaches L0 up through S1, so end-to-end reroute
  // needs no illegal turn. With switch endpoints, S0's own flow to L0 has
  // only downward links left: S0 -> Lx -> S1 -> L0 (3 hops), a down -> up
  // turn at Lx that must be enabled by moving channels.
  namespace dqr = ftsim::routing::dqr;
  const auto base = rt::make_topology("fat-tree2:4,2,2");
  const rt::RouterId l0 = base->node_router(0);
  const rt::LinkId l0s0 = base->peer(l0, 2).link;
  {
    dqr::Engine eng(*base, rt::updown_tables(*base));
    const auto r = eng.reconfigure({l0s0}, dqr::variant_options("e2e-path"));
    ASSERT_TRUE(r.success) << r.failure;
    EXPECT_EQ(r.turns_moved, 0U);
    EXPECT_EQ(eng.undelivered_flows(), 0U);
  }
  const rt::SwitchEndpointTopology topo(rt::make_topology("fat-tree2:4,2,2"));
  for (const char* variant : {"e2e-path", "lr-path"}) {
    dqr::Engine eng(topo, rt::updown_tables(topo), {}, dqr::FlowSet::kRouted);
    const auto initial = eng.traced_dependencies();
    const auto r = eng.reconfigure({l0s0}, dqr::variant_options(variant));
    ASSERT_TRUE(r.success) << variant << ": " << r.failure;
    EXPECT_GE(r.turns_moved, 1U) << variant;
    EXPECT_EQ(eng.undelivered_flows(), 0U) << variant;
    int n = 0;
    ASSERT_TRUE(rt::follow_tables(topo, eng.tables(), eng.dead_links(), topo.node_router(12), 8,
                                  [&](rt::RouterId, rt::PortId) { ++n; }));
    EXPECT_EQ(n, 3) << variant;
    auto both = eng.traced_dependencies();
    both.insert(both.end(), initial.begin(), initial.end());
    EXPECT_TRUE(acyclic_deps(2 * topo.num_links(), both)) << variant;
    EXPECT_FALSE(eng.is_flow(12, 13));  // spine to spine stays no flow
  }
}

TEST(InitialTables, AdaptiveRelationHasNoTableForm) {
  const auto topo = rt::make_topology("mesh:4x4");
  auto duato = rt::make_routing("duato");
  duato->configure(*topo, 2);
  EXPECT_THROW(rt::deterministic_tables(*duato), ftsim::ConfigError);
}

TEST(ChannelList, ExtraDependenciesCountTowardsACycle) {
  // Order 0, 1, 2 with 0 -> 1 recorded. Enabling 2 -> 0 moves 0 and 1 above
  // 2; with the legal 1 -> 2 of the same path treated as present, 0 reaches
  // 2 and the turn closes 0 -> 1 -> 2 -> 0 (brute force agrees).
  ChannelList list(3, {{0, 1}});
  ASSERT_EQ(list.order(), (std::vector<int>{0, 1, 2}));
  const auto alone = list.channels_to_move(2, 0);
  ASSERT_TRUE(alone.has_value());
  EXPECT_EQ(*alone, (std::vector<int>{0, 1}));
  EXPECT_FALSE(cyclic(3, {{0, 1}, {2, 0}}));
  const std::vector<std::pair<int, int>> extra{{1, 2}};
  EXPECT_FALSE(list.channels_to_move(2, 0, &extra).has_value());
  EXPECT_TRUE(cyclic(3, {{0, 1}, {1, 2}, {2, 0}}));
  // remove_dependency undoes a trial; the order stays valid.
  ASSERT_EQ(list.enable(1, 2), 0);
  list.remove_dependency(1, 2);
  EXPECT_FALSE(list.has_dependency(1, 2));
  EXPECT_EQ(list.num_dependencies(), 1U);
  EXPECT_TRUE(list.valid());
}

namespace {

// Every flow's dependencies, traced through `tables` and placed in its
// layer (channel = layer * 2 * links + 2 * link + direction), for an
// independent acyclicity check.
std::vector<std::pair<int, int>> layered_dependencies(const rt::Topology& t,
                                                      const std::vector<std::vector<PortId>>& tables,
                                                      const ftsim::routing::dqr::Layers& layers,
                                                      const std::vector<char>& dead) {
  std::vector<std::pair<int, int>> deps;
  const int base = 2 * t.num_links();
  for (rt::NodeId s = 0; s < t.num_nodes(); ++s)
    for (rt::NodeId d = 0; d < t.num_nodes(); ++d) {
      if (s == d) continue;
      const int off = layers.of(s, d, t.num_nodes()) * base;
      int prev = -1;
      rt::follow_tables(t, tables, dead, t.node_router(s), d, [&](rt::RouterId r, rt::PortId p) {
        const rt::LinkId l = t.peer(r, p).link;
        const int c = off + 2 * l + (t.link(l).a == r ? 0 : 1);
        if (prev >= 0) deps.emplace_back(prev, c);
        prev = c;
      });
    }
  return deps;
}

}  // namespace

TEST(Lash, EveryLayerIsAcyclicAndPairsShareTheirLayer) {
  for (const std::string spec : {"torus:4x4", "torus:5x5", "torus:6x6", "torus:8x8", "mesh:5x5"}) {
    SCOPED_TRACE(spec);
    const auto topo = rt::make_topology(spec);
    const auto tables = ftsim::routing::dqr::lash_tables(*topo);
    const auto layers = ftsim::routing::dqr::lash_layers(*topo, tables);
    const std::vector<char> alive(static_cast<std::size_t>(topo->num_links()), 0);
    // Minimal: every flow takes its shortest number of hops (ring distance
    // summed over the dimensions, computed here from the coordinates).
    const auto* cube = dynamic_cast<const rt::KAryNCube*>(topo.get());
    ASSERT_NE(cube, nullptr);
    for (rt::NodeId s = 0; s < topo->num_nodes(); ++s)
      for (rt::NodeId d = 0; d < topo->num_nodes(); ++d) {
        int hops = 0, expect = 0;
        for (int dim = 0; dim < cube->dimensions(); ++dim) {
          const int k = cube->radix_of(dim);
          const int diff = std::abs(cube->coord(topo->node_router(s), dim) - cube->coord(topo->node_router(d), dim));
          expect += cube->torus() ? std::min(diff, k - diff) : diff;
        }
        ASSERT_TRUE(rt::follow_tables(*topo, tables, alive, topo->node_router(s), d,
                                      [&](rt::RouterId, rt::PortId) { ++hops; }));
        ASSERT_EQ(hops, expect);
        ASSERT_EQ(layers.of(s, d, topo->num_nodes()), layers.of(d, s, topo->num_nodes()));
      }
    EXPECT_TRUE(acyclic_deps(layers.count * 2 * topo->num_links(), layered_dependencies(*topo, tables, layers, alive)));
    // All flows in one layer: the mesh's XY order is acyclic; the tori of
    // size 5 and up are not (a ring's + paths wrap around), so LASH needs
    // several layers there.
    const ftsim::routing::dqr::Layers one;
    const bool one_layer_ok = acyclic_deps(2 * topo->num_links(), layered_dependencies(*topo, tables, one, alive));
    EXPECT_EQ(layers.count == 1, one_layer_ok) << layers.count << " layers";
    if (spec != "torus:4x4" && spec != "mesh:5x5") {
      EXPECT_FALSE(one_layer_ok);
    }
    std::printf("%s: %d LASH layers\n", spec.c_str(), layers.count);
  }
  EXPECT_THROW(ftsim::routing::dqr::lash_tables(*rt::make_topology("fat-tree2:4,2,2")), ConfigError);
}

TEST(DqrLayers, EverySingleLinkFaultOfLashToriWithWholePathChecks) {
  // The paper's one-fault claim for tori (abstract, section VI) with LASH
  // layers and every layer searched: every switch-to-switch link of the
  // 4x4..7x7 tori fails alone and DQR (paths checked whole) reconfigures;
  // the union of old and new dependencies is acyclic in every layer (Kahn,
  // over the traced flows of both table sets) and every flow is delivered.
  std::size_t links = 0, moved = 0;
  for (int k = 4; k <= 7; ++k) {
    const auto topo = rt::make_topology(fmt::format("torus:{}x{}", k, k));
    const auto tables = ftsim::routing::dqr::lash_tables(*topo);
    const auto layers = ftsim::routing::dqr::lash_layers(*topo, tables);
    const ftsim::routing::dqr::Engine proto(*topo, tables, layers);
    const std::vector<char> alive(static_cast<std::size_t>(topo->num_links()), 0);
    const auto before = layered_dependencies(*topo, tables, layers, alive);
    for (rt::LinkId l = 0; l < topo->num_links(); ++l) {
      if (topo->link(l).b_is_node) continue;
      SCOPED_TRACE(topo->link_label(l));
      ++links;
      ftsim::routing::dqr::Engine eng = proto;
      const auto r = eng.reconfigure({l}, ftsim::routing::dqr::variant_options("lr-path-all"));
      ASSERT_TRUE(r.success) << r.failure;
      EXPECT_EQ(eng.undelivered_flows(), 0U);
      moved += r.flows_moved;
      // Old dependencies in the old layers, new ones in the (possibly moved) new layers.
      auto all = before;
      const auto now = layered_dependencies(*topo, eng.tables(), eng.layers(), eng.dead_links());
      all.insert(all.end(), now.begin(), now.end());
      ASSERT_TRUE(acyclic_deps(layers.count * 2 * topo->num_links(), all));
    }
  }
  EXPECT_EQ(links, 2U * (16 + 25 + 36 + 49));
  std::printf("%zu single link faults of LASH tori reconfigured, %zu flows moved to another layer\n", links, moved);
}

TEST(DqrLayers, SameLayerSearchNeverMovesAFlow) {
  const auto topo = rt::make_topology("torus:6x6");
  const auto tables = ftsim::routing::dqr::lash_tables(*topo);
  const auto layers = ftsim::routing::dqr::lash_layers(*topo, tables);
  ASSERT_GT(layers.count, 1);
  auto opt = ftsim::routing::dqr::variant_options("e2e-path");
  opt.move_layers = false;
  std::mt19937 rng(5);
  for (int run = 0; run < 5; ++run) {
    ftsim::routing::dqr::Engine eng(*topo, tables, layers);
    for (int f = 0; f < 4; ++f) {
      const rt::LinkId l = static_cast<rt::LinkId>(rng() % static_cast<unsigned>(topo->num_links()));
      if (eng.dead_links()[static_cast<std::size_t>(l)] || !eng.connected_without(l)) continue;
      const auto r = eng.reconfigure({l}, opt);
      EXPECT_EQ(r.flows_moved, 0U);
      EXPECT_EQ(eng.layers().of_flow, layers.of_flow);
      if (!r.success) break;
    }
  }
  // Layer counts out of range are refused.
  ftsim::routing::dqr::Layers bad = layers;
  bad.of_flow[1] = static_cast<std::uint8_t>(layers.count);
  EXPECT_THROW(ftsim::routing::dqr::Engine(*topo, tables, bad), ConfigError);
}

TEST(OpenSmLft, NetfileHasTheFixtureLinksOfMeshAndTorus) {
  // The fixtures' netfiles come from the OpenSM tools' generator; ftsim's
  // netfile of the same topology has the same HCA and link lines (only the
  // switches' declared port counts differ: the fixtures declare 8).
  for (const std::string name : {"mesh4x4", "torus4x4"}) {
    SCOPED_TRACE(name);
    const auto topo = rt::make_topology((name == "mesh4x4" ? "mesh:" : "torus:") + std::string("4x4"));
    auto lines = [](const std::string& text) {
      std::multiset<std::string> out;
      std::stringstream ss(text);
      for (std::string l; std::getline(ss, l);)
        if (!l.empty() && l.rfind("Switch", 0) != 0) out.insert(l);
      return out;
    };
    const auto ours = lines(ftsim::tables::netfile(*topo));
    EXPECT_EQ(ours, lines(fixture(name + ".net")));
    EXPECT_EQ(ours.size(), 16U * 2 + (name == "mesh4x4" ? 16U + 48U : 16U + 64U));
  }
}

TEST(DqrTransition, AnyWriteOrderMatchesEveryPartialWriteEnumerated) {
  // A non-atomic update passes through states where some of the changed
  // (switch, destination) entries are written and the others are not. Brute
  // force: enumerate every subset of every destination's changed entries,
  // trace every flow through that state, and collect the turns; then the
  // union with the old and new turns must be acyclic exactly when
  // check_transition says so, and the turns outside old and new must be as
  // many as it counts (single link faults of the 4x4 and 5x5 meshes and a
  // second fault after each, lr-path).
  int checked = 0, cyclic_cases = 0, mixed_cases = 0, loops = 0;
  for (const std::string spec : {"mesh:4x4", "mesh:5x5"}) {
    const auto topo = rt::make_topology(spec);
    auto dor = rt::make_routing("dor");
    dor->configure(*topo, 1);
    const ftsim::routing::dqr::Layers one;
    for (int step = 0; step < 2 * topo->num_links(); ++step) {
      // Single faults, then pairs (the second rewrite of a destination is
      // where partial writes can mix two detours).
      const rt::LinkId l = step % topo->num_links();
      if (topo->link(l).b_is_node) continue;
      ftsim::routing::dqr::Engine eng(*topo, tables_of(*dor).port);
      if (!eng.reconfigure({l}, ftsim::routing::dqr::variant_options("lr-path")).success) continue;
      auto initial = eng.tables();  // the state before the checked update
      if (step < topo->num_links()) {
        initial = tables_of(*dor).port;
      } else {
        const rt::LinkId l2 = (l * 7 + 3) % topo->num_links();
        if (l2 == l || topo->link(l2).b_is_node || !eng.connected_without(l2)) continue;
        if (!eng.reconfigure({l2}, ftsim::routing::dqr::variant_options("lr-path")).success) continue;
      }
      const auto& after = eng.tables();
      const auto chk = ftsim::routing::dqr::check_transition(*topo, initial, after, eng.dead_links(), one, one);
      if (!chk.loop_free) {
        ++loops;
        continue;
      }
      std::set<std::pair<int, int>> old_new, mixed;
      auto trace_all = [&](const std::vector<std::vector<PortId>>& t, rt::NodeId d, std::set<std::pair<int, int>>& to) {
        for (rt::NodeId s = 0; s < topo->num_nodes(); ++s) {
          if (s == d) continue;
          int prev = -1;
          rt::follow_tables(*topo, t, eng.dead_links(), topo->node_router(s), d, [&](rt::RouterId r, rt::PortId p) {
            const rt::LinkId k = topo->peer(r, p).link;
            const int c = 2 * k + (topo->link(k).a == r ? 0 : 1);
            if (prev >= 0) to.emplace(prev, c);
            prev = c;
          });
        }
      };
      for (rt::NodeId d = 0; d < topo->num_nodes(); ++d) {
        trace_all(initial, d, old_new);
        trace_all(after, d, old_new);
        std::vector<rt::RouterId> changed;
        for (rt::RouterId r = 0; r < topo->num_routers(); ++r)
          if (initial[static_cast<std::size_t>(r)][static_cast<std::size_t>(d)] !=
              after[static_cast<std::size_t>(r)][static_cast<std::size_t>(d)])
            changed.push_back(r);
        ASSERT_LE(changed.size(), 12U);
        for (unsigned mask = 0; mask < (1u << changed.size()); ++mask) {
          auto state = initial;
          for (std::size_t i = 0; i < changed.size(); ++i)
            if (mask & (1u << i))
              state[static_cast<std::size_t>(changed[i])][static_cast<std::size_t>(d)] =
                  after[static_cast<std::size_t>(changed[i])][static_cast<std::size_t>(d)];
          trace_all(state, d, mixed);
        }
      }
      std::size_t only_mixed = 0;
      for (const auto& t : mixed) only_mixed += old_new.count(t) == 0;
      mixed.insert(old_new.begin(), old_new.end());
      const bool acyclic = acyclic_deps(2 * topo->num_links(), {mixed.begin(), mixed.end()});
      EXPECT_EQ(chk.acyclic, acyclic) << spec << " " << topo->link_label(l);
      EXPECT_EQ(chk.mixed_turns, only_mixed) << spec << " " << topo->link_label(l);
      ++checked;
      cyclic_cases += !acyclic;
      mixed_cases += only_mixed > 0;
    }
  }
  EXPECT_GT(checked, 40);
  std::printf(
      "%d single faults: %d with turns only a partial write takes, %d whose partial writes can close a "
      "cycle; %d with a transient loop\n",
      checked, mixed_cases, cyclic_cases, loops);
}

TEST(DqrTransition, HandBuiltPartialWriteClosesACycleThatOldAndNewTablesDoNot) {
  // A 3x2 mesh, switches a=(0,0) b=(1,0) c=(2,0) / d=(0,1) e=(1,1) f=(2,1),
  // tables for four destinations only (the others unrouted). Destinations
  // a, b, d route the same before and after and give the turns b>e>d,
  // e>d>a and d>a>b of the square a-b-e-d. Destination f moves: before,
  // a>b>c>f (the turn b>c>f); after, a>d>e>f and b>e>f. While the two
  // entries of a and b are written, a packet from a can take a's old entry
  // (to b) and b's new one (to e): the turn a>b>e, which neither table set
  // has, and which closes the cycle a>b>e>d>a. Hand count: exactly one
  // mixed turn; the old and new dependencies alone are acyclic (checked
  // with Kahn's algorithm below, independent of check_transition).
  namespace rt = ftsim::routing;
  const auto topo = rt::make_topology("mesh:3x2");
  auto sw = [&](const char* l) { return topo->parse_router(l); };
  const rt::RouterId a = sw("0,0"), b = sw("1,0"), c = sw("2,0"), d = sw("0,1"), e = sw("1,1"), f = sw("2,1");
  auto port_to = [&](rt::RouterId from, rt::RouterId to) {
    for (rt::PortId p = 0; p < topo->radix(from); ++p)
      if (topo->peer(from, p).kind == rt::PortPeer::Kind::kRouter && topo->peer(from, p).id == to) return p;
    ADD_FAILURE() << "no link " << from << "-" << to;
    return rt::kNone;
  };
  auto eject = [&](rt::RouterId r) {
    for (rt::PortId p = 0; p < topo->radix(r); ++p)
      if (topo->peer(r, p).kind == rt::PortPeer::Kind::kNode) return p;
    return rt::kNone;
  };
  const auto n = static_cast<std::size_t>(topo->num_nodes());
  std::vector<std::vector<rt::PortId>> before(static_cast<std::size_t>(topo->num_routers()),
                                              std::vector<rt::PortId>(n, rt::kNone));
  auto node_of = [&](rt::RouterId r) {
    for (rt::NodeId x = 0; x < topo->num_nodes(); ++x)
      if (topo->node_router(x) == r) return static_cast<std::size_t>(x);
    return n;
  };
  auto route = [&](std::vector<std::vector<rt::PortId>>& t, rt::RouterId dest,
                   std::initializer_list<std::pair<rt::RouterId, rt::RouterId>> hops) {
    t[static_cast<std::size_t>(dest)][node_of(dest)] = eject(dest);
    for (const auto& [from, to] : hops) t[static_cast<std::size_t>(from)][node_of(dest)] = port_to(from, to);
  };
  route(before, d, {{a, d}, {b, e}, {c, b}, {e, d}, {f, e}});  // b>e>d
  route(before, a, {{b, a}, {c, b}, {d, a}, {e, d}, {f, e}});  // e>d>a
  route(before, b, {{a, b}, {c, b}, {d, a}, {e, b}, {f, c}});  // d>a>b
  auto after = before;
  route(before, f, {{a, b}, {b, c}, {c, f}, {d, e}, {e, f}});
  route(after, f, {{a, d}, {b, e}, {c, f}, {d, e}, {e, f}});
  const std::vector<char> dead(static_cast<std::size_t>(topo->num_links()), 0);
  const ftsim::routing::dqr::Layers one;
  const auto chk = ftsim::routing::dqr::check_transition(*topo, before, after, dead, one, one);
  EXPECT_TRUE(chk.loop_free);
  EXPECT_EQ(chk.mixed_turns, 1U);
  EXPECT_FALSE(chk.acyclic);
  // Old and new dependencies alone: acyclic (the partial write is the only
  // way to the cycle).
  std::set<std::pair<int, int>> deps;
  for (const auto* t : {&before, &after})
    for (rt::NodeId dst = 0; dst < topo->num_nodes(); ++dst)
      for (rt::NodeId s = 0; s < topo->num_nodes(); ++s) {
        if (s == dst) continue;
        int prev = -1;
        rt::follow_tables(*topo, *t, dead, topo->node_router(s), dst, [&](rt::RouterId r, rt::PortId p) {
          const rt::LinkId k = topo->peer(r, p).link;
          const int ch = 2 * k + (topo->link(k).a == r ? 0 : 1);
          if (prev >= 0) deps.emplace(prev, ch);
          prev = ch;
        });
      }
  EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), {deps.begin(), deps.end()}));
  // The same update written in one step (the tables equal): nothing mixed.
  const auto same = ftsim::routing::dqr::check_transition(*topo, after, after, dead, one, one);
  EXPECT_EQ(same.mixed_turns, 0U);
  EXPECT_TRUE(same.acyclic);
}
