// DQR beyond link faults (issue 50 item 5): a switch failing as one fault
// event, the full-reroute fallback when a variant fails, and the repair that
// gives back the initial entries. Numbers are hand counts on small fabrics or
// checks written independently of the engine (Kahn, breadth-first levels).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "common/config_error.hpp"
#include "routing_logic/dqr/dqr.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/lft_routing.hpp"
#include "routing_logic/routing_relation.hpp"
#include "tests/support/acyclic.hpp"

namespace rt = ftsim::routing;
namespace dqr = ftsim::routing::dqr;
using ftsim::test::acyclic_deps;

namespace {

std::vector<std::vector<rt::PortId>> dor_tables(const rt::Topology& topo) {
  auto dor = rt::make_routing("dor");
  dor->configure(topo, 1);
  return rt::deterministic_tables(*dor);
}

// Does some route of the engine's tables pass switch x (as a transit or an end)?
bool some_route_visits(const rt::Topology& topo, const dqr::Engine& eng, rt::RouterId x) {
  for (rt::NodeId s = 0; s < topo.num_nodes(); ++s)
    for (rt::NodeId d = 0; d < topo.num_nodes(); ++d) {
      if (!eng.is_flow(s, d)) continue;
      bool hit = topo.node_router(s) == x;
      rt::follow_tables(topo, eng.tables(), eng.dead_links(), topo.node_router(s), d,
                        [&](rt::RouterId r, rt::PortId p) { hit |= r == x || topo.peer(r, p).id == x; });
      if (hit) return true;
    }
  return false;
}

// The restore's write order, checked by brute force: (1) every written
// switch's initial next hop, when written too, comes earlier; (2) every
// route a packet can take while the entries are written in that order (the
// rerouted route of a flow up to its k-th switch, then the restored tables
// from there) is delivered without a loop, and its turns together with the old and
// the restored dependencies are acyclic (Kahn). Returns the number of such
// transient routes.
std::size_t check_ordered_restore(const rt::Topology& topo, const dqr::Engine& eng,
                                  const std::vector<std::vector<rt::PortId>>& rerouted,
                                  const std::vector<std::pair<int, int>>& rerouted_deps, const dqr::Result& back) {
  const auto& now = eng.tables();
  std::map<std::pair<rt::RouterId, rt::NodeId>, std::size_t> pos;
  for (std::size_t i = 0; i < back.writes.size(); ++i) pos[back.writes[i]] = i;
  for (const auto& [w, i] : pos) {
    const auto& pp = topo.peer(w.first, now[static_cast<std::size_t>(w.first)][static_cast<std::size_t>(w.second)]);
    if (pp.kind != rt::PortPeer::Kind::kRouter) continue;
    const auto it = pos.find({pp.id, w.second});
    if (it != pos.end()) {
      EXPECT_LT(it->second, i) << "next hop written after " << topo.router_label(w.first);
    }
  }
  auto deps = rerouted_deps;
  const auto restored = eng.traced_dependencies();
  deps.insert(deps.end(), restored.begin(), restored.end());
  std::size_t routes = 0;
  for (rt::NodeId s = 0; s < topo.num_nodes(); ++s)
    for (rt::NodeId d = 0; d < topo.num_nodes(); ++d) {
      if (!eng.is_flow(s, d)) continue;
      std::vector<rt::RouterId> prefix{topo.node_router(s)};
      rt::follow_tables(topo, rerouted, eng.dead_links(), topo.node_router(s), d, [&](rt::RouterId x, rt::PortId p) {
        if (topo.peer(x, p).kind == rt::PortPeer::Kind::kRouter) prefix.push_back(topo.peer(x, p).id);
      });
      for (std::size_t k = 0; k < prefix.size(); ++k) {
        ++routes;
        // A switch may be met twice: once on the rerouted prefix, once on
        // the restored suffix (a packet can turn back at the junction).
        std::set<std::pair<rt::RouterId, bool>> seen;
        int prev = -1;
        rt::RouterId x = topo.node_router(s);
        bool delivered = false;
        for (std::size_t hop = 0; hop < 4 * static_cast<std::size_t>(topo.num_routers()); ++hop) {
          if (!seen.insert({x, hop < k}).second) break;  // a loop
          const auto& t = hop < k ? rerouted : now;
          const rt::PortId p = t[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)];
          const auto& pp = topo.peer(x, p);
          if (pp.kind == rt::PortPeer::Kind::kNode) {
            delivered = pp.id == d;
            break;
          }
          if (pp.kind != rt::PortPeer::Kind::kRouter || eng.dead_links()[static_cast<std::size_t>(pp.link)]) break;
          const int c = eng.channel(x, p);
          if (prev >= 0) deps.emplace_back(prev, c);
          prev = c;
          x = pp.id;
        }
        EXPECT_TRUE(delivered) << topo.node_label(s) << " -> " << topo.node_label(d) << " split at hop " << k;
      }
    }
  EXPECT_TRUE(acyclic_deps(2 * topo.num_links(), deps));
  return routes;
}

rt::RouterId spine_of(const rt::Topology& topo) {
  for (rt::RouterId r = 0; r < topo.num_routers(); ++r) {
    bool nodes = false;
    for (rt::PortId p = 0; p < topo.radix(r); ++p) nodes |= topo.peer(r, p).kind == rt::PortPeer::Kind::kNode;
    if (!nodes) return r;
  }
  return rt::kNone;
}

}  // namespace

TEST(DqrSwitchFault, ALeafTakesItsHostsFlowsAndNothingElseChanges) {
  // fat-tree2:4,2,3: 12 HCAs, 3 per leaf. Losing a leaf loses every ordered
  // pair with one of its 3 HCAs at an end: 12 * 11 - 9 * 8 = 60 of 132.
  // Up*/down* never crosses a leaf between two others, so no surviving flow
  // is disconnected and no entry changes.
  const auto topo = rt::make_topology("fat-tree2:4,2,3");
  dqr::Engine eng(*topo, rt::updown_tables(*topo));
  ASSERT_EQ(eng.flow_count(), 132U);
  const rt::RouterId leaf = topo->node_router(0);
  EXPECT_TRUE(eng.connected_without_switch(leaf));
  const auto r = eng.fail_switch(leaf, dqr::variant_options("lr-path"));
  ASSERT_TRUE(r.success) << r.failure;
  EXPECT_EQ(r.flows_lost, 60U);
  EXPECT_EQ(r.flows_disconnected, 0U);
  EXPECT_EQ(r.entries_changed, 0U);
  EXPECT_EQ(eng.flow_count(), 72U);
  EXPECT_EQ(eng.undelivered_flows(), 0U);
  EXPECT_TRUE(eng.dead_switches()[static_cast<std::size_t>(leaf)]);
  for (rt::PortId p = 0; p < topo->radix(leaf); ++p) {
    const rt::LinkId k = topo->peer(leaf, p).link;
    if (k != rt::kNone) {
      EXPECT_TRUE(eng.dead_links()[static_cast<std::size_t>(k)]);
    }
  }
}

TEST(DqrSwitchFault, ASpineMovesItsDestinationsToTheOtherSpine) {
  // fat-tree2:4,2,3 spreads destinations over the two spines (d mod 2), so
  // 6 destinations go down from each spine. Losing one disconnects, for each
  // of its 6 destinations, the 9 sources on the other three leaves: 54
  // flows. Each of those three leaves rewrites its up entry: 6 * 3 = 18
  // entries. No HCA hangs on a spine: no flow is lost.
  const auto topo = rt::make_topology("fat-tree2:4,2,3");
  dqr::Engine eng(*topo, rt::updown_tables(*topo));
  const auto initial = eng.traced_dependencies();
  const rt::RouterId spine = spine_of(*topo);
  ASSERT_NE(spine, rt::kNone);
  ASSERT_TRUE(some_route_visits(*topo, eng, spine));
  const auto r = eng.fail_switch(spine, dqr::variant_options("lr-path"));
  ASSERT_TRUE(r.success) << r.failure;
  EXPECT_EQ(r.flows_lost, 0U);
  EXPECT_EQ(r.flows_disconnected, 54U);
  EXPECT_EQ(r.entries_changed, 18U);
  EXPECT_EQ(eng.undelivered_flows(), 0U);
  EXPECT_FALSE(some_route_visits(*topo, eng, spine));
  auto all = initial;
  const auto now = eng.traced_dependencies();
  all.insert(all.end(), now.begin(), now.end());
  EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), all));
  // The last spine holds the fabric together: losing it too disconnects.
  rt::RouterId other = rt::kNone;
  for (rt::RouterId x = 0; x < topo->num_routers(); ++x)
    if (x != spine && topo->node_router(0) != x && spine_of(*topo) != x) {
      bool nodes = false;
      for (rt::PortId p = 0; p < topo->radix(x); ++p) nodes |= topo->peer(x, p).kind == rt::PortPeer::Kind::kNode;
      if (!nodes) other = x;
    }
  ASSERT_NE(other, rt::kNone);
  EXPECT_FALSE(eng.connected_without_switch(other));
  const auto r2 = eng.fail_switch(other);
  EXPECT_FALSE(r2.success);
  EXPECT_TRUE(r2.disconnected);
}

TEST(DqrSwitchFault, EveryMeshSwitchIsOneEventAndTheFallbackTakesWhatDqrCannot) {
  // 6x6 XY mesh, each switch failed alone (one HCA each): 36 * 35 - 35 * 34
  // = 70 flows lost every time. lr-path either reroutes every surviving flow
  // around the switch (no route visits it, the old and new dependencies
  // together acyclic, Kahn), or fails with the tables as before and the
  // switch still failed; then the full reroute delivers every flow.
  const auto topo = rt::make_topology("mesh:6x6");
  const dqr::Engine proto(*topo, dor_tables(*topo));
  const auto initial = proto.traced_dependencies();
  int dqr_ok = 0, fallbacks = 0;
  for (rt::RouterId x = 0; x < topo->num_routers(); ++x) {
    dqr::Engine eng = proto;
    const auto r = eng.fail_switch(x, dqr::variant_options("lr-path"));
    EXPECT_EQ(r.flows_lost, 70U) << topo->router_label(x);
    EXPECT_EQ(eng.flow_count(), 35U * 34U);
    EXPECT_TRUE(eng.dead_switches()[static_cast<std::size_t>(x)]);
    if (r.success) {
      ++dqr_ok;
      auto all = initial;
      const auto now = eng.traced_dependencies();
      all.insert(all.end(), now.begin(), now.end());
      EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), all)) << topo->router_label(x);
    } else {
      ++fallbacks;
      EXPECT_FALSE(r.disconnected);
      EXPECT_EQ(eng.tables(), proto.tables());
      const auto f = eng.full_reroute();
      ASSERT_TRUE(f.success) << topo->router_label(x) << ": " << f.failure;
      EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), eng.traced_dependencies()));
    }
    EXPECT_EQ(eng.undelivered_flows(), 0U) << topo->router_label(x);
    EXPECT_FALSE(some_route_visits(*topo, eng, x)) << topo->router_label(x);
  }
  EXPECT_EQ(dqr_ok + fallbacks, 36);
  std::printf("6x6 mesh, one switch down: lr-path %d of 36, full reroute %d\n", dqr_ok, fallbacks);
  dqr::Engine eng = proto;
  const rt::RouterId x = topo->node_router(2 * 6 + 2);
  eng.fail_switch(x);
  EXPECT_THROW(eng.fail_switch(x), ftsim::ConfigError);
  EXPECT_THROW(eng.fail_switch(topo->num_routers()), ftsim::ConfigError);
  EXPECT_THROW(eng.restore({topo->parse_link("2,2:x+")}), ftsim::ConfigError);  // its switch is down
}

TEST(DqrFallback, FullRerouteDeliversWhatTheVariantCouldNot) {
  // 10x10 XY mesh, link 1,0 - 1,1 down: the -noretry mesh plug-in fails
  // (hand argument in test_dqr.cpp). The fallback recomputes up*/down*
  // over the survivors: every flow is delivered, the new dependencies alone
  // are acyclic (Kahn), and no route turns from down to up, with levels
  // recomputed here by breadth-first search from switch 0,0 (the first
  // switch: every mesh switch has an HCA) over the live links.
  const auto topo = rt::make_topology("mesh:10x10");
  dqr::Engine eng(*topo, dor_tables(*topo));
  const rt::LinkId l = topo->parse_link("1,0:y+");
  ASSERT_FALSE(eng.reconfigure({l}, dqr::variant_options("mesh-plugin-noretry")).success);
  const auto r = eng.full_reroute();
  ASSERT_TRUE(r.success) << r.failure;
  EXPECT_TRUE(r.full_reroute);
  EXPECT_GT(r.entries_changed, 0U);
  EXPECT_EQ(eng.undelivered_flows(), 0U);
  EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), eng.traced_dependencies()));
  std::vector<int> level(static_cast<std::size_t>(topo->num_routers()), -1);
  std::vector<rt::RouterId> q{0};
  level[0] = 0;
  for (std::size_t i = 0; i < q.size(); ++i)
    for (rt::PortId p = 0; p < topo->radix(q[i]); ++p) {
      const auto& pp = topo->peer(q[i], p);
      if (pp.kind != rt::PortPeer::Kind::kRouter || pp.link == l || level[static_cast<std::size_t>(pp.id)] >= 0)
        continue;
      level[static_cast<std::size_t>(pp.id)] = level[static_cast<std::size_t>(q[i])] + 1;
      q.push_back(pp.id);
    }
  auto up = [&](rt::RouterId a, rt::RouterId b) {  // a -> b goes up
    const int la = level[static_cast<std::size_t>(a)], lb = level[static_cast<std::size_t>(b)];
    return lb != la ? lb < la : b < a;
  };
  for (rt::NodeId s = 0; s < topo->num_nodes(); ++s)
    for (rt::NodeId d = 0; d < topo->num_nodes(); ++d) {
      if (s == d) continue;
      bool went_down = false;
      rt::follow_tables(*topo, eng.tables(), eng.dead_links(), topo->node_router(s), d,
                        [&](rt::RouterId x, rt::PortId p) {
                          const auto& pp = topo->peer(x, p);
                          if (pp.kind != rt::PortPeer::Kind::kRouter) return;
                          const bool u = up(x, pp.id);
                          EXPECT_FALSE(went_down && u) << topo->node_label(s) << " -> " << topo->node_label(d);
                          went_down |= !u;
                        });
    }
  // DQR goes on from the new tables: a later fault is reconfigured around
  // them (the union of their dependencies with the new ones acyclic) or
  // fails and leaves them.
  const auto base = eng.traced_dependencies();
  const auto tables = eng.tables();
  const auto r2 = eng.reconfigure({topo->parse_link("5,5:x+")}, dqr::variant_options("lr-path"));
  if (r2.success) {
    auto all = base;
    const auto now = eng.traced_dependencies();
    all.insert(all.end(), now.begin(), now.end());
    EXPECT_TRUE(acyclic_deps(2 * topo->num_links(), all));
  } else {
    EXPECT_EQ(eng.tables(), tables);
  }
}

TEST(DqrRestore, ARepairedSingleFaultGivesBackTheInitialTables) {
  // Every link of the 6x6 XY mesh: fail it, reconfigure (lr-path), repair
  // it. The tables are then the initial ones entry for entry, as many
  // entries are written back as the fault rewrote, and every route of the
  // ordered update is delivered, loop-free and deadlock-free (brute force,
  // check_ordered_restore). Written in any order instead, some repairs can
  // loop (check_transition): the order matters.
  const auto topo = rt::make_topology("mesh:6x6");
  const dqr::Engine proto(*topo, dor_tables(*topo));
  int any_order_loops = 0;
  for (rt::LinkId l = 0; l < topo->num_links(); ++l) {
    if (topo->link(l).b_is_node) continue;
    dqr::Engine eng = proto;
    const auto r = eng.reconfigure({l}, dqr::variant_options("lr-path"));
    ASSERT_TRUE(r.success) << topo->link_label(l) << ": " << r.failure;
    const auto rerouted = eng.tables();
    const auto rerouted_deps = eng.traced_dependencies();
    const auto back = eng.restore({l});
    ASSERT_TRUE(back.success);
    EXPECT_EQ(eng.tables(), proto.tables()) << topo->link_label(l);
    EXPECT_EQ(back.entries_changed, r.entries_changed) << topo->link_label(l);
    EXPECT_EQ(back.writes.size(), back.entries_changed);
    EXPECT_EQ(back.destinations_kept, 0U);
    EXPECT_FALSE(eng.dead_links()[static_cast<std::size_t>(l)]);
    EXPECT_GT(check_ordered_restore(*topo, eng, rerouted, rerouted_deps, back), 0U);
    const auto any = dqr::check_transition(*topo, rerouted, eng.tables(), eng.dead_links(), eng.layers(), eng.layers(),
                                           eng.not_flows());
    any_order_loops += !any.loop_free;
  }
  EXPECT_GT(any_order_loops, 0);
  dqr::Engine eng = proto;
  EXPECT_THROW(eng.restore({0}), ftsim::ConfigError);  // not failed
  EXPECT_THROW(eng.restore({topo->num_links()}), ftsim::ConfigError);
}

TEST(DqrRestore, OneOfTwoFaultsRepairedRestoresOnlyTheDestinationsItFrees) {
  // 6x6 XY mesh, random pairs of faults a, b (lr-path), then a repaired.
  // A destination none of whose initial routes crosses b (checked here by
  // walking the initial tables) gets its initial entries back unless a
  // junction turn was refused; every flow stays delivered, and the
  // ordered update passes check_ordered_restore.
  const auto topo = rt::make_topology("mesh:6x6");
  const dqr::Engine proto(*topo, dor_tables(*topo));
  std::vector<rt::LinkId> links;
  for (rt::LinkId l = 0; l < topo->num_links(); ++l)
    if (!topo->link(l).b_is_node) links.push_back(l);
  std::mt19937 rng(7);
  int tried = 0, partial = 0, restored_free = 0, free_dests = 0;
  std::size_t kept = 0;
  while (tried < 25) {
    const rt::LinkId a = links[rng() % links.size()], b = links[rng() % links.size()];
    if (a == b) continue;
    dqr::Engine eng = proto;
    if (!eng.reconfigure({a}).success || !eng.reconfigure({b}).success) continue;
    ++tried;
    const auto rerouted = eng.tables();
    const auto rerouted_deps = eng.traced_dependencies();
    const auto back = eng.restore({a});
    ASSERT_TRUE(back.success);
    EXPECT_EQ(eng.undelivered_flows(), 0U);
    kept += back.destinations_kept;
    for (rt::NodeId d = 0; d < topo->num_nodes(); ++d) {
      bool crosses_b = false;
      for (rt::NodeId s = 0; s < topo->num_nodes(); ++s) {
        if (s == d) continue;
        std::vector<char> none(static_cast<std::size_t>(topo->num_links()), 0);
        rt::follow_tables(*topo, proto.tables(), none, topo->node_router(s), d,
                          [&](rt::RouterId x, rt::PortId p) { crosses_b |= topo->peer(x, p).link == b; });
      }
      bool initial = true;
      for (rt::RouterId x = 0; x < topo->num_routers(); ++x)
        initial &= eng.tables()[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)] ==
                   proto.tables()[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)];
      restored_free += !crosses_b && initial;
      free_dests += !crosses_b;
      partial += crosses_b && !initial;
    }
    check_ordered_restore(*topo, eng, rerouted, rerouted_deps, back);
  }
  EXPECT_GT(partial, 0);  // some destinations stay rerouted around b
  // No junction turn is refused on these draws: every freed destination
  // comes back (the kept ones are those still routed around b).
  EXPECT_EQ(restored_free, free_dests);
  std::printf("6x6 mesh, 25 fault pairs, one repaired: %d of %d freed destinations restored, %zu kept\n", restored_free,
              free_dests, kept);
}

TEST(InitialTables, UpDownMasksMustMatchTheFabric) {
  const auto topo = rt::make_topology("fat-tree2:4,2,3");
  EXPECT_THROW(rt::updown_tables(*topo, {}, {}), ftsim::ConfigError);
  // Without masks set, the masked overload equals the plain one.
  EXPECT_EQ(rt::updown_tables(*topo, std::vector<char>(static_cast<std::size_t>(topo->num_links()), 0),
                              std::vector<char>(static_cast<std::size_t>(topo->num_routers()), 0)),
            rt::updown_tables(*topo));
}
