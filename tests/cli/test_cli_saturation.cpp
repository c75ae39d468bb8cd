// `ftsim analyze saturation` on a network whose saturation is known
// analytically, and the payload accounting it measures (issue 48).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_support.hpp"

using namespace ftsim_cli_test;  // NOLINT(google-build-using-namespace)

TEST(CliSaturation, TheLineUnderBitComplementSaturatesAtItsBottleneckChannel) {
  // A line of 8 nodes (mesh:8) under bit complement: node i sends to 7 - i,
  // so the four sources 0..3 cross the middle channel 3 -> 4 and the four
  // sources 4..7 the channel 4 -> 3. Each channel carries 1 flit/cycle:
  // saturation at 4 x = 1, x = 0.25 flits/node/cycle, and the whole network
  // accepts 2 x 1 = 2 flits/cycle at and beyond it.
  const auto d = tmpdir("saturation_line");
  const std::string exp = write_file(d, "line.yaml",
                                     "topology: mesh:8\nrouting: dor\n"
                                     "router: {vcs: 2, buffer_flits: 8, flow_control: vct}\n"
                                     "traffic: {pattern: bit-complement, load: 0.1, packet_flits: 4}\n"
                                     "sim: {warmup_cycles: 2000, measure_cycles: 8000, max_drain_cycles: 0}\n");
  const Result r = run("analyze saturation " + exp + " --quiet --out " + d + "/sat.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = read_json(d + "/sat.json");
  EXPECT_NEAR(j["saturation_throughput"].get<double>(), 2.0, 0.04) << j.dump(1);
  // The knee: carried within the 2% tolerance, so its measured offered load
  // is at most 0.25 / 0.98 = 0.2551 (the load asked for can be a little
  // higher: a run's Bernoulli sources offer within about 1% of it).
  const double knee = j["knee"]["load"].get<double>();
  EXPECT_GE(knee, 0.24);
  EXPECT_LE(knee, 0.26);
  EXPECT_LE(j["knee"]["offered_load"].get<double>(), 0.2552);
  EXPECT_LE(j["peak"]["accepted_payload_flits_per_cycle"].get<double>(), 2.02);
  EXPECT_FALSE(j["saturated"]["sustained"].get<bool>());
  // Bisection from [0.05, 1.0] to 1%: at most 11 probes, each a run folder.
  EXPECT_LE(j["probes"].size(), 11U);
  EXPECT_TRUE(fs::exists(d + "/sat.runs/load_1.0000/stats.json"));
  // A second search reuses the finished probes (same configuration).
  const Result again = run("analyze saturation " + exp + " --quiet --out " + d + "/sat.json");
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_EQ(read_json(d + "/sat.json")["knee"], j["knee"]);
}

TEST(CliSaturation, HeaderOverheadFlitsAreNeverThroughput) {
  // I+D on a 4x4x4 torus with six faults: packets through an intermediate
  // node carry one subheader flit. The payload figures leave them out and
  // report them apart: accepted = payload + overhead.
  const auto d = tmpdir("saturation_payload");
  const Result r = run("run " + std::string(FTSIM_SOURCE_DIR) + "/experiments/inodes-smoke.yaml --quiet --out " + d);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = read_json(d + "/stats.json");
  const double overhead = j["payload"]["header_overhead_flits_per_cycle"].get<double>();
  EXPECT_GT(overhead, 0.0);
  EXPECT_NEAR(j["payload"]["accepted_flits_per_cycle"].get<double>() + overhead,
              j["accepted_flits_per_cycle"].get<double>(), 1e-9);
  EXPECT_LT(j["payload"]["offered_load"].get<double>(), j["offered_load"].get<double>());
  // The configuration's load is payload: 0.3 flits/node/cycle offered.
  EXPECT_NEAR(j["payload"]["offered_load"].get<double>(), 0.3, 0.01);
}

TEST(CliSaturation, BadOptionsAreUserErrors) {
  const auto d = tmpdir("saturation_bad");
  Result r = run("analyze saturation " + kBase + " --low 0.5 --high 0.4 --quiet --out " + d + "/s.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("need 0 < --low < --high"), std::string::npos) << r.output;
  r = run("analyze saturation " + kBase + " --bracket x --quiet --out " + d + "/s.json");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run("analyze saturation " + kBase + " --set router.vcs=99 --quiet --out " + d + "/s.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("router.vcs"), std::string::npos) << r.output;
}
