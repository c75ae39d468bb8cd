// User plug-ins registered from outside ftsim: a routing relation, a traffic
// pattern and a fault model, then named in experiments like built-in ones
// (issue 16, section 7). Expected values are hand counts on a 4x4 mesh.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "hw/router.hpp"
#include "routing_logic/dor.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/topology.hpp"
#include "tb/experiment_config.hpp"
#include "tb/experiment_runner.hpp"
#include "tb/fault_injector.hpp"
#include "tb/mechanism_registry.hpp"
#include "tb/network.hpp"
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

// A user mechanism end to end (issue 13 section 3): its own YAML section
// (keys checked by the registry, parsed by the plug-in), per-router
// hardware built by each router as a child module and called on every route
// computation, and its own figures in stats.json.
namespace {
class RouteCounter : public hw::RouterMechanism {
 public:
  explicit RouteCounter(sc_core::sc_module_name n) : RouterMechanism(n) {}
  void fill_view(routing::RouterView& view) override {
    ++computations;
    view.mechanism.set(this);
  }
  bool wants_vc_allocated() const override { return true; }
  void on_vc_allocated(routing::PortId /*in_port*/, int /*queue*/, routing::PortId out_port, int /*out_vc*/,
                       std::uint32_t /*packet*/, std::uint64_t /*cycle*/) override {
    ++allocations;
    out_ports.insert(out_port);
  }
  std::uint64_t computations = 0;
  std::uint64_t allocations = 0;        ///< VC-allocated hook calls
  std::set<routing::PortId> out_ports;  ///< output ports granted
};
}  // namespace

TEST(Plugins, UserMechanismHasItsSectionHardwareAndStats) {
  // Only the far corner 3,3 (node 15) sends, always to 0,0 (node 0).
  tb::register_traffic_pattern("corner-to-corner", "15 -> 0 only",
                               [](routing::NodeId src, const routing::Topology& t, std::mt19937_64&) {
                                 return src == t.num_nodes() - 1 ? 0 : routing::kNone;
                               });
  static int scale = 0;
  tb::MechanismPlugin m;
  m.name = "route-counter";
  m.description = "counts route computations per router";
  m.section = "route_counter";
  m.keys = {tb::MechanismKey::integer("scale", 1, 100, "multiplies the counts")};
  m.router_hardware = [](const tb::ExperimentConfig&, const routing::Topology&, const routing::RoutingRelation&) {
    return hw::RouterMechanismFactory(
        [](hw::Router&) -> std::unique_ptr<hw::RouterMechanism> { return std::make_unique<RouteCounter>("counter"); });
  };
  m.elaborate = [](tb::Network&, const tb::ExperimentConfig& cfg) {
    scale = static_cast<int>(cfg.mechanism_sections.at("route_counter").integer("scale").value_or(1));
  };
  m.report = [](const tb::Network& net) {
    nlohmann::json per = nlohmann::json::object(), vcs = nlohmann::json::object();
    for (const auto& r : net.routers) {
      const auto* counter = dynamic_cast<const RouteCounter*>(r.mechanism());
      const std::string label = net.topology().router_label(r.id());
      per[label] = counter->computations * static_cast<std::uint64_t>(scale);
      vcs[label] = {{"allocations", counter->allocations}, {"out_ports", counter->out_ports.size()}};
    }
    return nlohmann::json{{"per_router", per}, {"vc_allocated", vcs}};
  };
  tb::register_mechanism(m);
  EXPECT_NE(error_of([&] { tb::register_mechanism(m); }).find("already registered"), std::string::npos);
  auto other = m;
  other.name = "route-counter-2";
  EXPECT_NE(error_of([&] { tb::register_mechanism(other); }).find("belongs to mechanism 'route-counter'"),
            std::string::npos);
  other.section = "router";
  EXPECT_NE(error_of([&] { tb::register_mechanism(other); }).find("model's own"), std::string::npos);

  const std::string yaml = R"(
topology: mesh:4x4
routing: dor
traffic: {pattern: corner-to-corner, load: 0.2, packet_flits: 4}
sim: {warmup_cycles: 0, measure_cycles: 2000, seed: 3}
route_counter: {scale: 1}
)";
  // The registry validates the section's keys and their typed values.
  EXPECT_NE(error_of([&] { tb::parse_experiment(yaml, {"route_counter.scael=2"}); }).find("allowed here: scale"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              tb::parse_experiment(yaml, {"route_counter.scale=101"});
            }).find("key 'route_counter.scale' = 101 out of range: allowed 1..100"),
            std::string::npos);
  const auto cfg = tb::parse_experiment(yaml, {});
  tb::RunOptions o;
  o.quiet = true;
  const auto r = tb::run_experiment(cfg, o);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const auto injected = r.stats["packets"]["injected"].get<std::uint64_t>();
  const auto delivered = r.stats["packets"]["delivered"].get<std::uint64_t>();
  const auto in_flight = r.stats["packets"]["in_flight"].get<std::uint64_t>();
  ASSERT_GT(injected, 50U);
  ASSERT_LE(injected, delivered + in_flight);  // no faults, no drops (in_flight counts source queues too)
  // XY routing from 3,3 to 0,0 visits 3,3 2,3 1,3 0,3 0,2 0,1 0,0, and each
  // computes the route of every packet whose head reached it exactly once
  // (no faults, so no re-computation); every other router computes none.
  // So the counts fall along the path from `injected` at the source to at
  // least `delivered` at the destination.
  const auto& per = r.stats["mechanisms"]["route-counter"]["per_router"];
  ASSERT_EQ(per.size(), 16U);
  const std::vector<std::string> path = {"3,3", "2,3", "1,3", "0,3", "0,2", "0,1", "0,0"};
  for (const auto& [label, count] : per.items()) {
    if (std::find(path.begin(), path.end(), label) == path.end()) {
      EXPECT_EQ(count.get<std::uint64_t>(), 0U) << label;
    }
  }
  EXPECT_EQ(per["3,3"].get<std::uint64_t>(), injected);
  for (std::size_t i = 1; i < path.size(); ++i)
    EXPECT_LE(per[path[i]].get<std::uint64_t>(), per[path[i - 1]].get<std::uint64_t>()) << path[i];
  EXPECT_GE(per["0,0"].get<std::uint64_t>(), delivered);
  EXPECT_LE(per["0,0"].get<std::uint64_t>(), delivered + in_flight);
  EXPECT_LT(per["0,0"].get<std::uint64_t>(), injected);  // some packets were still on their way
  // The VC-allocated hook: a head gets one output VC per router it passes
  // (the destination's being its ejection port), after its route
  // computation there and before its route computation at the next router;
  // DOR gives each router on the path one output port; off the path none.
  const auto& vcs = r.stats["mechanisms"]["route-counter"]["vc_allocated"];
  for (const auto& [label, v] : vcs.items()) {
    const auto allocations = v["allocations"].get<std::uint64_t>();
    const bool on_path = std::find(path.begin(), path.end(), label) != path.end();
    EXPECT_EQ(v["out_ports"].get<std::uint64_t>(), on_path ? 1U : 0U) << label;
    EXPECT_LE(allocations, per[label].get<std::uint64_t>()) << label;
    if (!on_path) {
      EXPECT_EQ(allocations, 0U) << label;
    }
  }
  for (std::size_t i = 0; i + 1 < path.size(); ++i)
    EXPECT_GE(vcs[path[i]]["allocations"].get<std::uint64_t>(), per[path[i + 1]].get<std::uint64_t>()) << path[i];
  EXPECT_GE(vcs["0,0"]["allocations"].get<std::uint64_t>(), delivered);
}
