// Fault-scenario regression suite (ctest label `faults`): transient and
// permanent link and switch faults, faults one after another on one link, and
// nested faults (a link fault inside a switch fault elsewhere), on every
// routing relation that takes dynamic faults. Each run asserts: exit 0 (no
// deadlock, conservation), and every measured packet between surviving nodes
// delivered or dropped with a reason before the end of the drain, which
// starts 4,000 cycles after the last repair.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tb/experiment_runner.hpp"

using namespace ftsim;

namespace {

struct Relation {
  const char* name;
  const char* yaml;
  const char* link_a;    // a link fault label
  const char* link_b;    // another link, away from switch_s
  const char* switch_s;  // a switch whose loss leaves the others connected
  bool switch_faults;    // the relation handles switch faults
};

const Relation kRelations[] = {
    {"dor_mesh", "topology: mesh:6x6\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 8, flow_control: wormhole}\n",
     "2,2:x+", "4,4:y+", "1,3", true},
    {"duato_torus", "topology: torus:6x6\nrouting: duato\nrouter: {vcs: 2, buffer_flits: 8, flow_control: vct}\n",
     "2,2:x+", "4,4:y+", "1,3", true},
    {"immunet_torus",
     "topology: torus:6x6\nrouting: immunet\nrouter: {vcs: 2, buffer_flits: 8, flow_control: vct}\n"
     "immunet: {handle_cycles: 20, ack_window: 10, control_packet_cycles: 50}\n",
     "2,2:x+", "4,4:y+", "1,3", true},
    {"ddlr_fat_tree",
     "topology: kary-ntree:4,3\nrouting: ddlr-switch\nrouter: {vcs: 3, buffer_flits: 4, flow_control: vct}\n", "#20",
     "#40", "<01,1>", true},
    {"adlr_fat_tree",
     "topology: kary-ntree:4,3\nrouting: adlr-switch\nrouter: {vcs: 2, buffer_flits: 4, flow_control: vct}\n"
     "dlr: {reroute_timeout: 500}\n",
     "#20", "#40", "<01,1>", true},
};

struct Scenario {
  const char* name;
  std::string faults(const Relation& r) const { return make(r); }
  std::string (*make)(const Relation&);
};

std::string link(const char* label, int at, int repair) {
  const std::string key = label[0] == '#' ? "link_id: " + std::string(label + 1) : "link: '" + std::string(label) + "'";
  return "{" + key + ", at: " + std::to_string(at) + (repair >= 0 ? ", repair: " + std::to_string(repair) : "") + "}";
}
std::string sw(const char* label, int at, int repair) {
  return "{switch: '" + std::string(label) + "', at: " + std::to_string(at) +
         (repair >= 0 ? ", repair: " + std::to_string(repair) : "") + "}";
}

const Scenario kScenarios[] = {
    {"transient_link", [](const Relation& r) { return "[" + link(r.link_a, 2000, 4000) + "]"; }},
    {"permanent_link", [](const Relation& r) { return "[" + link(r.link_a, 2000, -1) + "]"; }},
    {"transient_switch", [](const Relation& r) { return "[" + sw(r.switch_s, 2000, 4000) + "]"; }},
    {"permanent_switch", [](const Relation& r) { return "[" + sw(r.switch_s, 2000, -1) + "]"; }},
    {"same_link_twice",
     [](const Relation& r) { return "[" + link(r.link_a, 1500, 2500) + ", " + link(r.link_a, 3500, 4500) + "]"; }},
    {"nested",
     [](const Relation& r) { return "[" + sw(r.switch_s, 1500, 5000) + ", " + link(r.link_b, 2500, 3500) + "]"; }},
};

class FaultScenario : public ::testing::TestWithParam<std::tuple<int, int>> {};

}  // namespace

TEST_P(FaultScenario, MeasuredPacketsAreDeliveredOrDroppedWithAReason) {
  const Relation& rel = kRelations[std::get<0>(GetParam())];
  const Scenario& sc = kScenarios[std::get<1>(GetParam())];
  const std::string yaml = std::string(rel.yaml) +
                           "traffic: {pattern: uniform, load: 0.1, packet_flits: 4}\n"
                           "sim: {warmup_cycles: 1000, measure_cycles: 8000, max_drain_cycles: 20000, seed: 3, "
                           "watchdog_cycles: 3000}\n"
                           "faults: " +
                           sc.faults(rel) + "\n";
  const auto cfg = tb::parse_experiment(yaml, {});
  tb::RunOptions o;
  o.quiet = true;
  const auto r = tb::run_experiment(cfg, o);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const auto& j = r.stats;
  EXPECT_TRUE(j["conservation_ok"].get<bool>());
  EXPECT_FALSE(j["deadlock"].get<bool>());
  EXPECT_TRUE(j["drained"].get<bool>()) << "measured packets left after the drain";
  EXPECT_EQ(j["packets"]["measured_undelivered"].get<long>(), 0);
  // Packets were carried after the faults: the accepted load is most of the
  // offered 0.1 (the drops are the packets on failed resources).
  EXPECT_GT(j["accepted_load"].get<double>(), 0.08);
}

INSTANTIATE_TEST_SUITE_P(All, FaultScenario,
                         ::testing::Combine(::testing::Range(0, static_cast<int>(std::size(kRelations))),
                                            ::testing::Range(0, static_cast<int>(std::size(kScenarios)))),
                         [](const ::testing::TestParamInfo<std::tuple<int, int>>& i) {
                           return std::string(kRelations[std::get<0>(i.param)].name) + "_" +
                                  kScenarios[std::get<1>(i.param)].name;
                         });
