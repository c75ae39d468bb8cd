// User plug-ins registered from outside ftsim: a routing relation, a traffic
// pattern and a fault model, then named in experiments like built-in ones
// (issue 16, section 7). Expected values are hand counts on a 4x4 mesh.
#include <gtest/gtest.h>

#include <string>

#include "routing_logic/dor.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology.hpp"
#include "tb/experiment_config.hpp"
#include "tb/fault_injector.hpp"
#include "tb/plugin_registry.hpp"
#include "tb/traffic_pattern.hpp"

using namespace ftsim;

namespace {

class PluginDor : public routing::DorRouting {
 public:
  PluginDor() : DorRouting(Mode::kUnprotected) {}
  std::string name() const override { return "plugin-dor"; }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ftsim::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Plugins, UserRoutingRelationIsMadeByNameAndListed) {
  routing::register_routing("plugin-dor", "test relation", [] { return std::make_unique<PluginDor>(); });
  const auto r = routing::make_routing("plugin-dor");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name(), "plugin-dor");
  bool listed = false;
  for (const auto& [n, d] : routing::routing_names()) listed |= n == "plugin-dor" && d == "test relation";
  EXPECT_TRUE(listed);
  // An unknown name lists the user relation among the allowed ones.
  EXPECT_NE(error_of([] { routing::make_routing("plugin-xy"); }).find("plugin-dor"), std::string::npos);
}

TEST(Plugins, RoutingRegistrationRefusesTakenEmptyAndBuiltInNames) {
  const auto factory = [] { return std::make_unique<PluginDor>(); };
  routing::register_routing("plugin-once", "", factory);
  EXPECT_NE(error_of([&] { routing::register_routing("plugin-once", "", factory); }).find("already registered"),
            std::string::npos);
  EXPECT_NE(error_of([&] { routing::register_routing("dor", "", factory); }).find("built-in"), std::string::npos);
  EXPECT_NE(error_of([&] { routing::register_routing("inodes:I", "", factory); }).find("built-in"), std::string::npos);
  EXPECT_NE(error_of([&] { routing::register_routing("", "", factory); }).find("empty"), std::string::npos);
  EXPECT_NE(error_of([] { routing::register_routing("plugin-null", "", nullptr); }).find("empty"), std::string::npos);
  routing::register_routing("plugin-returns-null", "", [] { return std::unique_ptr<routing::RoutingRelation>(); });
  EXPECT_NE(error_of([] { routing::make_routing("plugin-returns-null"); }).find("returned no relation"),
            std::string::npos);
}

TEST(Plugins, UserTrafficPatternPassesTheLiveComponentFilter) {
  tb::register_traffic_pattern(
      "plugin-mirror", "n -> N-1-n",
      [](routing::NodeId s, const routing::Topology& t, std::mt19937_64&) { return t.num_nodes() - 1 - s; });
  EXPECT_NE(error_of([] {
              tb::register_traffic_pattern(
                  "uniform", "", [](routing::NodeId, const routing::Topology&, std::mt19937_64&) { return 0; });
            }).find("built-in"),
            std::string::npos);
  const auto cfg = tb::parse_experiment("topology: mesh:3x3\ntraffic: {pattern: plugin-mirror}\n", {});
  const auto topo = routing::make_topology(cfg.topology);
  tb::TrafficPattern p(*topo, cfg.traffic);
  std::mt19937_64 rng(1);
  EXPECT_EQ(p.destination(0, rng), 8);
  EXPECT_EQ(p.destination(5, rng), 3);
  EXPECT_EQ(p.destination(4, rng), routing::kNone);  // the centre maps to itself
  std::vector<int> comp(9, 0);
  comp[8] = -1;  // node 8 dead: node 0 sends nothing
  p.set_components(comp);
  EXPECT_EQ(p.destination(0, rng), routing::kNone);
  EXPECT_EQ(p.destination(1, rng), 7);
  // Unknown names still fail, listing the user pattern.
  EXPECT_NE(error_of([] { tb::parse_experiment("traffic: {pattern: plugin-mirrors}\n", {}); }).find("plugin-mirror"),
            std::string::npos);
}

TEST(Plugins, UserFaultModelAddsItsFaultsAndIsChecked) {
  tb::register_fault_model("plugin-link3", "link 3 at random_at, repaired 100 later",
                           [](const routing::Topology&, const tb::FaultsSpec& s) {
                             tb::ResolvedFault f;
                             f.id = 3;
                             f.at = s.random_at;
                             f.repair = s.random_at + 100;
                             return std::vector<tb::ResolvedFault>{f};
                           });
  tb::register_fault_model("plugin-bad-id", "", [](const routing::Topology&, const tb::FaultsSpec&) {
    tb::ResolvedFault f;
    f.id = 24;
    return std::vector<tb::ResolvedFault>{f};
  });
  EXPECT_NE(error_of([] {
              tb::register_fault_model("links", "", [](const routing::Topology&, const tb::FaultsSpec&) {
                return std::vector<tb::ResolvedFault>{};
              });
            }).find("built-in"),
            std::string::npos);
  const auto cfg = tb::parse_experiment(
      "topology: mesh:4x4\nfaults: {model: plugin-link3, random_at: 40, random_links: 1, random_seed: 3}\n", {});
  const auto topo = routing::make_topology(cfg.topology);
  ASSERT_EQ(topo->num_links(), 24);  // 2 dimensions x 4 rows x 3 links
  const auto faults = tb::resolve_faults(*topo, cfg.faults);
  ASSERT_EQ(faults.size(), 2U);  // the model's link, then the random one
  EXPECT_EQ(faults[0].id, 3);
  EXPECT_EQ(faults[0].label, topo->link_label(3));
  EXPECT_EQ(faults[0].at, 40);
  EXPECT_EQ(faults[0].repair, 140);
  EXPECT_TRUE(faults[1].random);
  EXPECT_NE(faults[1].id, 3);  // random links avoid the model's link
  const auto bad = tb::parse_experiment("topology: mesh:4x4\nfaults: {model: plugin-bad-id}\n", {});
  EXPECT_NE(error_of([&] { tb::resolve_faults(*topo, bad.faults); }).find("link id 24 out of range 0..23"),
            std::string::npos);
  const std::string unknown = error_of([] { tb::parse_experiment("faults: {model: plugin-link}\n", {}); });
  EXPECT_NE(unknown.find("links, bgl-planes"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("plugin-link3"), std::string::npos) << unknown;
}
