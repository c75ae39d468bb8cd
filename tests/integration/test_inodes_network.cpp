// Intermediate nodes in the cycle-level model: every delivered packet took
// exactly the length of the route computed offline (minimal subpaths, fixed
// misrouting prefixes), none was dropped, nothing deadlocked.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>

#include "harness.hpp"
#include "routing_logic/inodes/inode_analyzer.hpp"
#include "routing_logic/inodes/inode_routing.hpp"
#include "tb/experiment_runner.hpp"

using namespace ftsim;

namespace {

struct Case {
  const char* topology;
  const char* mechanism;
  int vcs;
  int faults;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.topology << " " << c.mechanism << " vcs=" << c.vcs << " faults=" << c.faults;
}

class InodesNetwork : public ::testing::TestWithParam<Case> {};

TEST_P(InodesNetwork, PacketsFollowTheComputedRoutesAroundStaticFaults) {
  const Case c = GetParam();
  const std::string yaml = fmt::format(R"(
topology: {}
routing: "inodes:{}"
router: {{vcs: {}, buffer_flits: 10, flow_control: vct}}
traffic: {{pattern: uniform, load: 0.25, packet_flits: 4, flit_bytes: 16}}
sim: {{warmup_cycles: 0, measure_cycles: 6000, seed: 5}}
faults: {{random_links: {}, random_seed: 21}}
)",
                                       c.topology, c.mechanism, c.vcs, c.faults);
  test::Harness h(yaml);
  const routing::FaultSet fs = tb::permanent_faults(h.resolved);
  ASSERT_EQ(static_cast<int>(fs.links.size()), c.faults);
  h.net->set_static_faults(fs);
  const auto& rel = dynamic_cast<const routing::InodeRouting&>(h.net->relation());
  const auto& cube = dynamic_cast<const routing::KAryNCube&>(h.net->topology());
  const routing::inodes::CubeGeometry geo(cube);
  // The offline routes agree with the analyser's preferred routes, pair by
  // pair (same key; unroutable exactly where the analyser finds no route).
  const routing::inodes::FaultToleranceAnalyzer an(cube, rel.mechanism());
  const auto outcome = an.evaluate(fs.links);
  long unroutable = 0;
  for (routing::NodeId s = 0; s < cube.num_nodes(); ++s)
    for (routing::NodeId d = 0; d < cube.num_nodes(); ++d) {
      if (s == d) continue;
      const auto& o = outcome[static_cast<std::size_t>(s * cube.num_nodes() + d)];
      const auto* rt = rel.route_of(s, d);
      ASSERT_EQ(rt != nullptr, o.status == routing::inodes::PairOutcome::Status::kRouted);
      unroutable += rt == nullptr;
      if (rt != nullptr && rt->key.length > 0) {
        EXPECT_TRUE(rt->key == o.key);
      }
    }
  h.run(6000);
  // Packets are dropped only for pairs the mechanism cannot route.
  EXPECT_EQ(h.stats().dropped[static_cast<int>(hw::DropReason::kLinkFailure)], 0U);
  if (unroutable == 0) {
    EXPECT_EQ(h.stats().dropped_total(), 0U);
  }
  long checked = 0, via_intermediate = 0, misrouted = 0, deterministic = 0, rerouted = 0;
  for (routing::NodeId d = 0; d < cube.num_nodes(); ++d)
    for (const auto& r : h.net->sinks[static_cast<std::size_t>(d)].records) {
      const auto* rt = rel.route_of(r.src, d);
      ASSERT_NE(rt, nullptr);
      // Unaffected pairs keep their one adaptive subpath: the minimal distance.
      const int expected = rt->key.length > 0 ? rt->key.length : geo.distance(r.src, d);
      EXPECT_EQ(r.hops, expected) << cube.router_label(r.src) << " -> " << cube.router_label(d);
      ++checked;
      via_intermediate += rt->count > 1;
      rerouted += rt->key.length > 0;
      misrouted += rt->key.misrouted > 0;
      deterministic += rt->key.deterministic > 0;
    }
  EXPECT_GT(checked, 1000);
  const auto m = rel.mechanism();
  // The faults must make the mechanism work: some delivered packets used it.
  EXPECT_GT(rerouted, 0);
  if (m.max_intermediates > 0 && !m.deterministic && !m.misroute) {
    EXPECT_GT(via_intermediate, 0);
  }
  if (m.misroute && m.max_intermediates == 0) {
    EXPECT_GT(misrouted, 0);
  }
  if (m.deterministic && m.max_intermediates == 0 && !m.misroute) {
    EXPECT_GT(deterministic, 0);
  }
  // Still moving at the end: no deadlock.
  EXPECT_GE(h.stats().last_move_cycle + 50, 6000U);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, InodesNetwork,
                         ::testing::Values(Case{"torus:4x4x4", "I", 3, 10}, Case{"torus:4x4x4", "I+D", 4, 10},
                                           Case{"torus:4x4x4", "I+D+M", 4, 12}, Case{"torus:4x4x4", "Ix2", 5, 12},
                                           Case{"torus:4x4x4", "D+M", 2, 8}, Case{"mesh:5x5", "I+M", 3, 6},
                                           Case{"mesh:5x5", "M", 2, 6}, Case{"mesh:5x5", "D", 2, 4},
                                           Case{"torus:4x4x4", "I+D+Mfree", 5, 12},
                                           Case{"torus:4x4x4", "I+D+Mdim", 4, 12}, Case{"mesh:5x5", "Mdim", 2, 6},
                                           Case{"mesh:5x5", "I+M@fewest-intermediates", 3, 6}),
                         [](const auto& info) {
                           std::string n = std::string(info.param.topology) + "_" + info.param.mechanism;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(InodesRun, LaterFaultsAreRejectedByTheStaticFaultModel) {
  const auto cfg = tb::parse_experiment(R"(
topology: torus:4x4
routing: "inodes:I"
router: {vcs: 3, buffer_flits: 10, flow_control: vct}
traffic: {pattern: uniform, load: 0.1, packet_flits: 4}
sim: {warmup_cycles: 100, measure_cycles: 500, seed: 1}
faults: [{link: "1,1:x+", at: 200}]
)",
                                        {});
  tb::RunOptions o;
  o.quiet = true;
  try {
    tb::run_experiment(cfg, o);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ftsim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("static fault model"), std::string::npos) << e.what();
  }
}

TEST(InodesRun, BglPlanesBypassThePlaneOfEachFault) {
  // 4x4x4 torus, planes of 8 nodes (two Y rows of one Z layer): two faults in
  // different planes bypass 16 nodes; the links keep working, so nothing is
  // dropped, and the live nodes are 64 - 16 = 48.
  const auto cfg = tb::parse_experiment(R"(
topology: torus:4x4x4
routing: duato
router: {vcs: 4, buffer_flits: 8, flow_control: vct}
traffic: {pattern: uniform, load: 0.1, packet_flits: 4}
sim: {warmup_cycles: 200, measure_cycles: 2000, seed: 1}
faults:
  model: bgl-planes
  bgl_plane_nodes: 8
  schedule: [{link: "0,0,0:x+"}, {link: "0,3,2:y+"}]
)",
                                        {});
  tb::RunOptions o;
  o.quiet = true;
  const auto r = tb::run_experiment(cfg, o);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(r.stats["bgl_bypassed_nodes"].get<int>(), 16);
  EXPECT_EQ(r.stats["live_nodes"].get<double>(), 48.0);
  EXPECT_EQ(r.stats["packets"]["dropped"].get<long>(), 0);
}

}  // namespace
