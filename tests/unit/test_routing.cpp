// Routing relations: delivery, minimality and deadlock freedom via the CDG.
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "routing_logic/cdg.hpp"
#include "routing_logic/dor.hpp"
#include "routing_logic/mikant/mikant.hpp"
#include "routing_logic/mikant/mikant_shortest.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/topology/kary_ntree.hpp"
#include "routing_logic/updown.hpp"

using namespace ftsim::routing;

namespace {

struct Built {
  std::unique_ptr<Topology> topo;
  std::unique_ptr<RoutingRelation> rel;
};

Built build(const std::string& spec, const std::string& routing, int vcs) {
  Built b{make_topology(spec), make_routing(routing)};
  b.rel->configure(*b.topo, vcs);
  return b;
}

// Walks one deterministic path (first candidate, lowest VC) and counts links.
int walk(const RoutingRelation& rel, NodeId s, NodeId d) {
  const Topology& t = rel.topology();
  PacketHeader h;
  h.src = s;
  h.dst = d;
  RouterId r = t.node_router(s);
  PortId in = t.node_port(s);
  VcId vc = 0;
  bool injected = true;
  int links = t.is_direct() ? 0 : 1;
  for (int guard = 0; guard < 1000; ++guard) {
    RouteQuery q;
    q.router = r;
    q.in_port = in;
    q.in_vc = vc;
    q.injected_here = injected;
    q.header = &h;
    RouteSet out;
    rel.route(q, out);
    if (out.size == 0) return -1;
    const RouteCandidate& c = out.items[0];
    const PortPeer& pp = t.peer(r, c.port);
    if (pp.kind == PortPeer::Kind::kNode) return pp.id == d ? links + (t.is_direct() ? 0 : 1) : -1;
    int v = 0;
    while (!(c.vc_mask >> v & 1U)) ++v;
    rel.on_hop(h, r, c.port, v);
    ++links;
    r = pp.id;
    in = pp.port;
    vc = v;
    injected = false;
  }
  return -1;
}

// Independent check: the relation's path length equals the BFS distance.
void expect_minimal(const RoutingRelation& rel) {
  const Topology& t = rel.topology();
  for (NodeId s = 0; s < t.num_nodes(); ++s) {
    const auto dist = t.node_distances_from(s);
    for (NodeId d = 0; d < t.num_nodes(); ++d) {
      if (d == s) continue;
      ASSERT_EQ(walk(rel, s, d), dist[d]) << rel.name() << " " << t.node_label(s) << " -> " << t.node_label(d);
    }
  }
}

// Keeps only the dependencies between rings: for a bubble torus, the edges
// inside one ring (same dimension and direction, consecutive along the line)
// are handled by bubble flow control, not by acyclicity.
bool between_rings(const KAryNCube& t, const ChannelRef& a, const ChannelRef& b) {
  return !same_ring(t, a, b);
}

}  // namespace

TEST(Dor, MinimalOnMeshAndTorus) {
  expect_minimal(*build("mesh:5x4", "dor", 1).rel);
  expect_minimal(*build("torus:5x4", "dor", 1).rel);
  expect_minimal(*build("torus:4x4", "dor-dateline", 2).rel);
  expect_minimal(*build("torus:3x3x3", "dor", 1).rel);
}

TEST(UpDown, MinimalOnTrees) {
  expect_minimal(*build("kary-ntree:4,3", "updown", 1).rel);
  expect_minimal(*build("kary-ntree:2,4", "updown", 1).rel);
}

TEST(MikantShortest, Algorithm1IsShortestPath) {
  expect_minimal(*build("mikant:3,3", "mikant-shortest", 1).rel);
  expect_minimal(*build("mikant:2,4", "mikant-shortest", 1).rel);
  expect_minimal(*build("mikant:4,2", "mikant-shortest", 1).rel);
}

TEST(MikantShortest, PaperWorkedExamples) {
  auto b = build("mikant:3,3", "mikant-shortest", 1);
  const auto& mk = dynamic_cast<const Mikant&>(*b.topo);
  const auto& rel = dynamic_cast<const MikantShortestRouting&>(*b.rel);
  auto node = [&](int g, int c2, int c1, int c0) { return g * 27 + c2 * 9 + c1 * 3 + c0; };
  // Section 2.2: W=<1,0,0,1>, T=<0,2,1,2> -> port 5 to <1,1,0,2>; there -> port 4 to <0,1,1,2>.
  const NodeId t = node(0, 2, 1, 2);
  EXPECT_EQ(mk.node_label(t), "<0,2,1,2>");
  RouterId w = mk.parse_router("<1,0,0,1>");
  EXPECT_EQ(rel.next_port(w, t), 5);
  EXPECT_EQ(mk.router_label(mk.peer(w, 5).id), "<1,1,0,2>");
  w = mk.parse_router("<1,1,0,2>");
  EXPECT_EQ(rel.next_port(w, t), 4);
  EXPECT_EQ(mk.router_label(mk.peer(w, 4).id), "<0,1,1,2>");
  // Case 1: <0,1,1,2> -> port 2 to <0,0,1,2>; Case 2: there -> port T_2 = 2 to T.
  w = mk.parse_router("<0,1,1,2>");
  EXPECT_EQ(rel.next_port(w, t), 2);
  EXPECT_EQ(mk.router_label(mk.peer(w, 2).id), "<0,0,1,2>");
  w = mk.parse_router("<0,0,1,2>");
  EXPECT_EQ(rel.next_port(w, t), 2);
  EXPECT_EQ(mk.peer(w, 2).id, t);
  // Case 3: <0,0,0,0> -> port 5 to <0,1,0,2>.
  w = mk.parse_router("<0,0,0,0>");
  EXPECT_EQ(rel.next_port(w, t), 5);
  EXPECT_EQ(mk.router_label(mk.peer(w, 5).id), "<0,1,0,2>");
}

TEST(Cdg, DorMeshIsAcyclicAndDelivers) {
  auto b = build("mesh:4x4", "dor", 2);
  const auto g = build_cdg(*b.rel, {});
  EXPECT_TRUE(g.acyclic());
  EXPECT_EQ(g.pairs, 16 * 15);
  EXPECT_EQ(g.undelivered_pairs, 0);
  EXPECT_GT(g.num_edges(), 0);
}

TEST(Cdg, DorTorusWithoutDatelineIsCyclicAndCaught) {
  // The bubble relation uses one VC class around each ring: its plain CDG has
  // the ring cycles, which is what bubble flow control exists for.
  auto b = build("torus:4x4", "dor", 1);
  const auto g = build_cdg(*b.rel, {});
  const auto cyc = g.find_cycle();
  ASSERT_FALSE(cyc.empty());
  // The cycle found is a ring: every channel in one dimension and direction.
  const ChannelRef first = g.channel(cyc[0]);
  for (int c : cyc) EXPECT_EQ(g.channel(c).port, first.port);
  EXPECT_EQ(cyc.size(), 4U);
  // Without the intra-ring edges the rest (dimension order) is acyclic.
  const auto& cube = dynamic_cast<const KAryNCube&>(*b.topo);
  CdgOptions opt;
  opt.keep_edge = [&](const ChannelRef& a, const ChannelRef& c) { return between_rings(cube, a, c); };
  EXPECT_TRUE(build_cdg(*b.rel, {}, opt).acyclic());
}

TEST(Cdg, DatelineTorusIsAcyclic) {
  for (const char* spec : {"torus:4x4", "torus:5x3", "torus:3x3x3"}) {
    auto b = build(spec, "dor-dateline", 2);
    const auto g = build_cdg(*b.rel, {});
    EXPECT_TRUE(g.acyclic()) << spec;
    EXPECT_EQ(g.undelivered_pairs, 0) << spec;
  }
}

TEST(Cdg, DuatoMeshEscapeExtendedCdgIsAcyclic) {
  auto b = build("mesh:4x4", "duato", 3);
  CdgOptions opt;
  opt.escape_extended = true;
  const auto g = build_cdg(*b.rel, {}, opt);
  EXPECT_TRUE(g.acyclic());
  EXPECT_EQ(g.undelivered_pairs, 0);
  // The whole relation (adaptive VCs included) has cycles: adaptivity alone is not deadlock-free.
  EXPECT_FALSE(build_cdg(*b.rel, {}).acyclic());
}

TEST(Cdg, DuatoTorusEscapeIsAcyclicBetweenBubbleRings) {
  // On tori the escape VC uses bubble flow control, which needs VCT. For VCT,
  // Duato's condition is on the escape sub-relation's direct dependencies.
  auto b = build("torus:4x4", "duato", 2);
  const auto& cube = dynamic_cast<const KAryNCube&>(*b.topo);
  CdgOptions opt;
  opt.escape_extended = true;
  opt.vct = true;
  opt.keep_edge = [&](const ChannelRef& a, const ChannelRef& c) { return between_rings(cube, a, c); };
  EXPECT_TRUE(build_cdg(*b.rel, {}, opt).acyclic());
  opt.keep_edge = nullptr;
  EXPECT_FALSE(build_cdg(*b.rel, {}, opt).acyclic());  // the rings themselves
  // With wormhole's indirect dependencies, X rings of successive rows chain
  // around the Y wrap link: the same relation would not be safe for wormhole.
  opt.vct = false;
  opt.keep_edge = [&](const ChannelRef& a, const ChannelRef& c) { return between_rings(cube, a, c); };
  EXPECT_FALSE(build_cdg(*b.rel, {}, opt).acyclic());
}

TEST(Cdg, UpDownAndMikantAcyclic) {
  for (auto [spec, routing] :
       {std::pair{"kary-ntree:4,3", "updown"}, {"kary-ntree:2,4", "updown"}, {"mikant:3,3", "mikant-shortest"}}) {
    auto b = build(spec, routing, 2);
    const auto g = build_cdg(*b.rel, {});
    EXPECT_TRUE(g.acyclic()) << spec;
    EXPECT_EQ(g.undelivered_pairs, 0) << spec;
  }
}

TEST(Cdg, FaultsMakeDorDropAndUpDownReroute) {
  // One failed mesh link: DOR cannot avoid it, so some pairs are not delivered;
  // brute force: the pairs whose DOR path crosses (1,1)->(2,1) in either direction.
  auto b = build("mesh:4x4", "dor", 1);
  const LinkId l = b.topo->parse_link("1,1:x+");
  FaultSet fs;
  fs.links = {l};
  const auto g = build_cdg(*b.rel, fs);
  long crossing = 0;
  const auto& cube = dynamic_cast<const KAryNCube&>(*b.topo);
  for (NodeId s = 0; s < 16; ++s)
    for (NodeId d = 0; d < 16; ++d) {
      if (s == d) continue;
      // X first along row y(s); crosses between x=1 and x=2 on row 1.
      const int sx = cube.coord(s, 0), sy = cube.coord(s, 1), dx = cube.coord(d, 0);
      if (sy == 1 && std::min(sx, dx) <= 1 && std::max(sx, dx) >= 2) ++crossing;
    }
  EXPECT_EQ(g.undelivered_pairs, crossing);
  EXPECT_EQ(crossing, 2 * 2 * 2 * 4);  // 2 left x 2 right columns, both directions, 4 destination rows
  // Up/down on a tree with one failed up link still delivers everything adaptively
  // except when the failed link is the only way down (tree: downward links are unique).
  auto t = build("kary-ntree:2,3", "updown", 1);
  FaultSet ft;
  ft.links = {t.topo->parse_link("<00,1>:down0")};
  const auto gt = build_cdg(*t.rel, ft);
  EXPECT_GT(gt.dead_end_pairs, 0);
}

namespace {
// DOR without deadlock avoidance on a torus, claiming an acyclic CDG: a
// false claim, for the check to catch.
class FalselyClaimedDor : public DorRouting {
 public:
  FalselyClaimedDor() : DorRouting(Mode::kUnprotected) {}
  DeadlockClaim deadlock_claim() const override {
    return {DeadlockClaim::Kind::kAcyclicCdg, false, "a false claim for the test"};
  }
};
}  // namespace

TEST(DeadlockClaim, TrueClaimsCheckAcyclic) {
  for (auto [spec, routing, vcs, vct] : {std::tuple{"torus:4x4", "dor", 1, true},
                                         {"mesh:4x4", "dor", 1, false},
                                         {"torus:4x4", "dor-dateline", 2, false},
                                         {"torus:4x4", "duato", 2, true},
                                         {"kary-ntree:4,2", "updown", 1, false},
                                         {"mikant:3,2", "mikant-shortest", 1, false}}) {
    auto b = build(spec, routing, vcs);
    const DeadlockCheck c = check_deadlock_claim(*b.rel, {}, vct);
    EXPECT_TRUE(c.acyclic) << spec << " " << routing << ": " << (c.cycle.empty() ? "" : c.cycle[0]);
    // Channels are numbered router x max radix x VCs (cdg.hpp).
    int max_radix = 0;
    for (RouterId r = 0; r < b.topo->num_routers(); ++r) max_radix = std::max(max_radix, b.topo->radix(r));
    EXPECT_EQ(c.channels, b.topo->num_routers() * max_radix * vcs) << spec;
  }
}

// Unprotected DOR on a 4x4 torus has exactly the ring cycles: dimension order
// never turns back to an earlier dimension, so every cycle stays in one ring
// of 4 routers, one port, one VC.
TEST(DeadlockClaim, FalseClaimIsCaughtWithARingCycle) {
  auto topo = make_topology("torus:4x4");
  FalselyClaimedDor rel;
  rel.configure(*topo, 1);
  const DeadlockCheck c = check_deadlock_claim(rel, {}, true);
  EXPECT_FALSE(c.acyclic);
  ASSERT_EQ(c.cycle.size(), 4u);
  const std::string port = c.cycle[0].substr(c.cycle[0].find(" port "));
  for (const auto& ch : c.cycle) EXPECT_EQ(ch.substr(ch.find(" port ")), port) << ch;
}

// Duato's escape on a torus is safe for VCT only: with wormhole's indirect
// dependencies the check finds a cycle (see Cdg.DuatoTorus... above).
TEST(DeadlockClaim, DuatoOnATorusNeedsVirtualCutThrough) {
  auto b = build("torus:4x4", "duato", 2);
  EXPECT_TRUE(check_deadlock_claim(*b.rel, {}, true).acyclic);
  EXPECT_FALSE(check_deadlock_claim(*b.rel, {}, false).acyclic);
}

TEST(DeadlockClaim, RelationsWithoutAClaimAreRefused) {
  auto b = build("torus:4x4", "dor-unprotected", 1);
  try {
    check_deadlock_claim(*b.rel, {}, true);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ftsim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("routing 'dor-unprotected' makes no deadlock-freedom claim"),
              std::string::npos);
  }
}

namespace {
/// A relation's header layout as an extension would declare it: 7 bytes.
struct SampleHeader {
  std::uint8_t step = 0;
  std::uint8_t digit = 0;
  std::uint16_t mask = 0;
  std::uint8_t port = 0;
  std::uint8_t spare[2] = {0, 0};
};
}  // namespace

TEST(HeaderState, TypedAreaRoundTripsAndAFreshHeaderReadsAsZero) {
  PacketHeader h;
  const auto fresh = h.state.get<SampleHeader>();
  EXPECT_EQ(fresh.step, 0);
  EXPECT_EQ(fresh.mask, 0);
  EXPECT_EQ(fresh.port, 0);
  SampleHeader s;
  s.step = 3;
  s.digit = 250;
  s.mask = 0xA5C3;
  s.port = 17;
  h.state.set(s);
  const auto back = h.state.get<SampleHeader>();
  EXPECT_EQ(back.step, 3);
  EXPECT_EQ(back.digit, 250);
  EXPECT_EQ(back.mask, 0xA5C3);
  EXPECT_EQ(back.port, 17);
  // Equality (the CDG builder's state key) sees the typed area and the move
  // counter, which lives outside it.
  PacketHeader other = h;
  EXPECT_TRUE(other == h);
  other.moves = 1;
  EXPECT_FALSE(other == h);
  EXPECT_EQ(other.state.get<SampleHeader>().mask, 0xA5C3);
  other = h;
  s.port = 18;
  other.state.set(s);
  EXPECT_FALSE(other == h);
  static_assert(sizeof(SampleHeader) <= HeaderState::kBytes);
}

TEST(RouterViewMechanismState, GivesThePointerBackOnlyAsItsOwnType) {
  // The typed slot a mechanism's hardware fills for its relation: Immunet's
  // tables come back as ImmunetView (const or not) and as nothing else.
  ImmunetView tables;
  RerouteState reroute;
  RouterView view;
  EXPECT_TRUE(view.mechanism.empty());
  EXPECT_EQ(view.mechanism.get<const ImmunetView>(), nullptr);
  view.mechanism.set(&tables);
  EXPECT_EQ(view.mechanism.get<const ImmunetView>(), &tables);
  EXPECT_EQ(view.mechanism.get<ImmunetView>(), &tables);
  EXPECT_EQ(view.mechanism.get<RerouteState>(), nullptr);
  view.mechanism.set(&reroute);
  EXPECT_EQ(view.mechanism.get<RerouteState>(), &reroute);
  EXPECT_EQ(view.mechanism.get<const ImmunetView>(), nullptr);
}
