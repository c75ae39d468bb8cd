// What a user meets around a run (no simulation): config provenance, warnings,
// the summary, suggestions, progress lines, results.csv cells.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>

#include "routing_logic/types.hpp"
#include "tb/cli_text.hpp"
#include "tb/experiment_config.hpp"
#include "tb/run_summary.hpp"
#include "tb/sweep/sweep.hpp"

using namespace ftsim;

namespace {
// JSON -> YAML text, through the flow style both share (JSON is YAML 1.2).
std::string as_yaml(const nlohmann::json& j) {
  return j.dump();
}

bool has_code(const nlohmann::json& w, const std::string& code) {
  for (const auto& e : w)
    if (e["code"] == code) return true;
  return false;
}
}  // namespace

TEST(ResolvedConfig, EveryDefaultTypedAndRunnableAgain) {
  const auto c = tb::parse_experiment("name: x\ntopology: torus:4x4\nrouter: {vcs: 3}\ntraffic: {load: '0.25'}\n",
                                      {"faults.schedule=[{link: '1,1:x+', at: 100}]", "sim.seed=7"});
  const nlohmann::json j = tb::resolved_config_json(c);
  // Numbers as numbers (the input had the load as the text '0.25').
  EXPECT_TRUE(j["router"]["vcs"].is_number_integer());
  EXPECT_EQ(j["router"]["vcs"], 3);
  EXPECT_TRUE(j["traffic"]["load"].is_number_float());
  EXPECT_DOUBLE_EQ(j["traffic"]["load"].get<double>(), 0.25);
  EXPECT_EQ(j["sim"]["seed"], 7);
  // Defaults that the input never named.
  EXPECT_EQ(j["sim"]["watchdog_cycles"], 5000);
  EXPECT_EQ(j["router"]["latency"]["credit"], 1);
  EXPECT_EQ(j["router"]["flow_control"], "wormhole");
  EXPECT_EQ(j["dqr"]["variant"], "lr-path");
  EXPECT_TRUE(j["ddrc"]["enabled"].is_boolean());
  // A permanent fault: repair null, not a -1 sentinel.
  EXPECT_TRUE(j["faults"]["schedule"][0]["repair"].is_null());
  EXPECT_EQ(j["faults"]["schedule"][0]["at"], 100);
  // Fed back as an experiment, it resolves to itself.
  const auto again = tb::parse_experiment(as_yaml(j), {});
  EXPECT_EQ(tb::resolved_config_json(again), j);
}

TEST(ConfigErrors, UnknownKeyNamesItsLineAndTheLikelyKey) {
  try {
    (void)tb::parse_experiment("topology: mesh:4x4\nrouter:\n  vcs: 2\n  bufer_flits: 4\n", {}, "e.yaml");
    FAIL() << "accepted an unknown key";
  } catch (const ftsim::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("router.bufer_flits"), std::string::npos) << m;
    EXPECT_NE(m.find("(line 4)"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'buffer_flits'?"), std::string::npos) << m;
  }
  try {
    (void)tb::parse_experiment("topology: mesh:4x4\n", {"trafic.load=0.2"}, "e.yaml");
    FAIL() << "accepted an unknown key";
  } catch (const ftsim::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("from --set"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'traffic'?"), std::string::npos) << m;
  }
}

TEST(ConfigErrors, IntegersInFloatingNotationWhenExact) {
  const auto c = tb::parse_experiment("sim: {measure_cycles: 1e4, warmup_cycles: 2.0e3}\n", {});
  EXPECT_EQ(c.sim.measure_cycles, 10000);
  EXPECT_EQ(c.sim.warmup_cycles, 2000);
  EXPECT_THROW((void)tb::parse_experiment("sim: {measure_cycles: 1.5e0}\n", {}), ftsim::ConfigError);
  EXPECT_THROW((void)tb::parse_experiment("router: {vcs: 1e3}\n", {}), ftsim::ConfigError);  // out of 1..16
  try {
    (void)tb::parse_experiment("router: {vcs: 2.5}\n", {});
  } catch (const ftsim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("is not an integer; allowed 1..16"), std::string::npos) << e.what();
  }
}

TEST(Suggestions, EditDistanceByHand) {
  EXPECT_EQ(tb::edit_distance("kitten", "sitting"), 3);  // k->s, e->i, +g
  EXPECT_EQ(tb::edit_distance("", "abc"), 3);
  EXPECT_EQ(tb::edit_distance("flaw", "lawn"), 2);
  EXPECT_EQ(tb::edit_distance("vsc", "vcs"), 1);  // one swap
  EXPECT_EQ(tb::closest_match("sweeep", {"run", "sweep", "list"}), "sweep");
  EXPECT_EQ(tb::closest_match("analyse", {"analyze", "list"}), "analyze");
  EXPECT_EQ(tb::closest_match("xyz", {"run", "sweep"}), "");  // too far: no guess
  EXPECT_EQ(tb::did_you_mean("vsc", {"vcs", "queues"}), "; did you mean 'vcs'?");
}

TEST(Progress, PercentEtaAndElapsed) {
  const tb::Progress p("run", "cycles", false);
  // 25% done after 10 s: 30 s to go.
  EXPECT_EQ(p.line(250, 1000, "", 10.0), "ftsim run: 25.0% (250 of 1000 cycles), 10 s elapsed, ETA 30 s");
  EXPECT_EQ(p.line(1000, 1000, "done", 125.0), "ftsim run: 100.0% (1000 of 1000 cycles), 2 min 05 s elapsed, done");
  EXPECT_EQ(tb::human_duration(3 * 3600 + 7 * 60 + 9), "3 h 07 min");
}

TEST(Progress, EtaCountsOnlyTheRunsOfThisProcess) {
  // sweep --resume: 6,000 of 16,000 runs were finished before; 100 more in
  // 200 s is 2 s a run, so the 9,900 left take 19,800 s = 5 h 30 min (not
  // the 200 * 9,900 / 6,100 s = 5 min 24 s of the whole count).
  tb::Progress p("sweep", "runs", false);
  p.add_resumed(6000);
  EXPECT_EQ(p.line(6100, 16000, "", 200.0),
            "ftsim sweep: 38.1% (6100 of 16000 runs), 3 min 20 s elapsed, ETA 5 h 30 min, 6000 resumed");
  // Nothing run yet: no ETA to extrapolate.
  EXPECT_EQ(p.line(6000, 16000, "", 1.0), "ftsim sweep: 37.5% (6000 of 16000 runs), 1 s elapsed, 6000 resumed");
}

TEST(Progress, StepPrintsTheFinalLineOnce) {
  // A huge interval silences the intermediate lines; the completion prints
  // exactly one line however often it is reported.
  tb::Progress p("analyze x", "runs", true, 1e9);
  testing::internal::CaptureStderr();
  p.step(1, 2);
  p.step(2, 2);
  p.step(2, 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("ftsim analyze x: 100.0% (2 of 2 runs)"), std::string::npos) << err;
}

TEST(Warnings, EachConditionByHand) {
  nlohmann::json s = {
      {"offered_load", 0.5}, {"accepted_load", 0.3}, {"packets", {{"measured", 1000}, {"measured_undelivered", 250}}},
      {"drained", false},    {"deadlock", false},    {"conservation_ok", true}};
  auto w = tb::run_warnings(s);
  EXPECT_TRUE(has_code(w, "beyond_saturation"));  // 0.3 < 0.95 x 0.5
  EXPECT_TRUE(has_code(w, "not_drained"));
  EXPECT_NE(w[0]["message"].get<std::string>().find("250 of 1000"), std::string::npos) << w.dump();
  EXPECT_EQ(w.size(), 2U);
  // At 96% of offered and drained: nothing to warn about.
  s["accepted_load"] = 0.48;
  s["packets"]["measured_undelivered"] = 0;
  EXPECT_TRUE(tb::run_warnings(s).empty()) << tb::run_warnings(s).dump();
  s["deadlock"] = true;
  s["interrupted"] = "SIGINT";
  s["cycles"] = 1234;
  w = tb::run_warnings(s);
  EXPECT_TRUE(has_code(w, "deadlock"));
  EXPECT_TRUE(has_code(w, "interrupted"));
}

TEST(Summary, OneScreenWithLoadsLossesAndWarnings) {
  nlohmann::json s = {{"topology", "torus:8x8"},
                      {"routing", "immunet"},
                      {"flow_control", "vct"},
                      {"cycles", 65000},
                      {"wall_seconds", 3.2},
                      {"offered_load", 0.6},
                      {"accepted_load", 0.46},
                      {"latency_cycles", {{"mean", 7690.1}, {"p99", 21757}, {"max", 27918}, {"count", 378966}}},
                      {"packets", {{"dropped", 8}, {"in_flight", 120}}},
                      {"dropped_by_reason", {{"link_failure", 5}, {"no_route", 3}, {"switch_failure", 0}}},
                      {"faults", {{{"kind", "link"}, {"label", "3,3:x+"}, {"at", 10000}, {"repair", nullptr}}}},
                      {"config", {{"name", "demo"}}}};
  s["warnings"] = tb::run_warnings(s);
  const std::string t = tb::run_summary(s);
  EXPECT_NE(t.find("demo: torus:8x8, routing immunet"), std::string::npos) << t;
  EXPECT_NE(t.find("offered 0.600, accepted 0.460 flits/node/cycle"), std::string::npos) << t;
  EXPECT_NE(t.find("mean 7690.1, p99 21757"), std::string::npos) << t;
  EXPECT_NE(t.find("8 dropped (link_failure 5, no_route 3)"), std::string::npos) << t;
  EXPECT_NE(t.find("link 3,3:x+ at 10000"), std::string::npos) << t;
  EXPECT_NE(t.find("WARNING   beyond_saturation"), std::string::npos) << t;
  EXPECT_LE(std::count(t.begin(), t.end(), '\n'), 20);
}

TEST(ResultsCsv, NumbersUnquotedNullEmptyStatsJsonNames) {
  tb::SweepPoint a;
  a.values = {{"traffic.load", "0.25"}, {"routing", "dor"}};
  tb::SweepPoint b = a;
  b.values[0].second = "0.5";
  nlohmann::json s = {{"offered_load", 0.25},
                      {"latency_cycles", {{"mean", 40.5}, {"p99", nullptr}}},
                      {"deadlock", false},
                      {"warnings", {{{"code", "not_drained"}, {"message", "x"}}, {{"code", "beyond_saturation"}}}}};
  const std::string csv = tb::results_csv({a, b}, {0, -1}, {"ok", "not_run"}, {s, nullptr});
  std::istringstream in(csv);
  std::string header, row0, row1;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  EXPECT_EQ(header.rfind("run,traffic.load,routing,exit_code,status,warnings,offered_load,accepted_load,"
                         "latency_cycles.mean,latency_cycles.p50,latency_cycles.p99,",
                         0),
            0U)
      << header;
  // 0.25 unquoted, dor unquoted, p50 and p99 null -> empty, deadlock false.
  EXPECT_EQ(row0.rfind("0,0.25,dor,0,ok,not_drained;beyond_saturation,0.25,,40.5,,,", 0), 0U) << row0;
  EXPECT_NE(row0.find(",false,"), std::string::npos) << row0;
  // A point that did not run: no exit code, no figures.
  EXPECT_EQ(row1.rfind("1,0.5,dor,,not_run,,,", 0), 0U) << row1;
  EXPECT_EQ(csv.find('"'), std::string::npos);
}
