// Trace-driven traffic with dependencies (issue 53 item 3): traces the
// tests write, checked against hand-derived timing on idle networks.
#include <gtest/gtest.h>

#include <fstream>

#include "common/config_error.hpp"
#include "harness.hpp"
#include "tb/trace_workload.hpp"

namespace {

std::string write_trace(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string yaml(const std::string& topo, const std::string& trace) {
  return "topology: " + topo +
         "\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 8}\nsim: {warmup_cycles: 0, measure_cycles: 100000}\n"
         "traffic: {kind: trace, trace: " +
         trace + "}\n";
}

void run_to_end(ftsim::test::Harness& h) {
  for (int i = 0; i < 200 && !h.net->workload_finished(); ++i) h.run(500);
}

}  // namespace

TEST(Trace, ADependentPacketLeavesOnlyAfterItsPredecessorArrives) {
  // A line of two nodes: packet 1 from node 0 to 1; packet 2 back, waiting
  // for 1; packet 3 forth again, waiting for 2. The network is idle between
  // them, so each takes the one packet's latency L and the chain 3 L; each
  // dependent is injected no earlier than its predecessor's arrival, and
  // packet 4 (no dependency, cycle 100) is injected at cycle 100.
  ftsim::test::Harness h(yaml("mesh:2", write_trace("chain.tra",
                                                    "# id cycle src dst flits deps\n"
                                                    "1 0 0 1 4\n2 0 1 0 4 1\n3 0 0 1 4 2\n4 100 1 0 4\n")));
  run_to_end(h);
  const auto& tc = *h.net->trace_controller;
  ASSERT_TRUE(tc.finished());
  const auto& t = tc.times();
  const std::uint64_t latency = t[0].delivered;  // packet 1, injected at cycle 0 on an idle line
  ASSERT_GT(latency, 0U);
  EXPECT_EQ(t[1].delivered, 2 * latency);
  EXPECT_EQ(t[2].delivered, 3 * latency);
  EXPECT_GE(t[1].injected, t[0].delivered);
  EXPECT_GE(t[2].injected, t[1].delivered);
  EXPECT_EQ(t[3].injected, 100U);
  EXPECT_EQ(tc.arrived(), 4U);
  EXPECT_EQ(tc.blocked(), 0U);
}

TEST(Trace, AJoinWaitsForItsLastDependency) {
  // 2x2 mesh: packets 1 (node 0 -> 3, two hops) and 2 (node 1 -> 3, one
  // hop) start together; packet 3 (node 3 -> 0) needs both and leaves after
  // the later of the two arrivals, which is packet 1's.
  ftsim::test::Harness h(yaml("mesh:2x2", write_trace("join.tra", "1 0 0 3 4\n2 0 1 3 4\n3 0 3 0 4 1 2\n")));
  run_to_end(h);
  const auto& tc = *h.net->trace_controller;
  ASSERT_TRUE(tc.finished());
  const auto& t = tc.times();
  EXPECT_GT(t[0].delivered, t[1].delivered);
  EXPECT_GE(t[2].injected, t[0].delivered);
}

TEST(Trace, ALostDependencyBlocksItsDependentsAndTheRunEnds) {
  // 2x2 mesh, link 0,0 - 1,0 fails at cycle 0: DOR routes node 0 -> 1 over
  // it only, so the first packet is dropped, and the one waiting for it is
  // never sent.
  ftsim::test::Harness h(yaml("mesh:2x2", write_trace("lost.tra", "1 5 0 1 4\n2 0 1 0 4 1\n")),
                         {"faults.schedule=[{at: 0, link: \"0,0:x+\"}]"});
  run_to_end(h);
  const auto& tc = *h.net->trace_controller;
  ASSERT_TRUE(tc.finished());
  EXPECT_EQ(tc.sent(), 1U);
  EXPECT_EQ(tc.lost(), 1U);
  EXPECT_EQ(tc.blocked(), 1U);
}

TEST(Trace, MalformedTracesNameTheirLine) {
  for (const char* bad : {"1 0 0 1\n", "1 0 0 0 4\n", "1 0 0 9 4\n", "1 0 0 1 4\n1 0 1 0 4\n", "1 0 0 1 4 7\n",
                          "1 0 0 1 0\n", "x\n", ""}) {
    try {
      ftsim::tb::parse_trace(std::string("# t\n") + bad, "t.tra", 4);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const ftsim::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("t.tra"), std::string::npos) << e.what();
    }
  }
  const auto r = ftsim::tb::parse_trace("5 10 0 3 2\n9 0 3 0 1 5\n", "ok", 4);
  ASSERT_EQ(r.size(), 2U);
  EXPECT_EQ(r[1].deps, std::vector<std::size_t>{0});
}
