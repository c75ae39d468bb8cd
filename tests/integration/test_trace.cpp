// Trace-driven traffic with dependencies (issue 53 item 3): traces the
// tests write, checked against hand-derived timing on idle networks.
#include <gtest/gtest.h>

#include <fstream>
#include <tuple>

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

namespace {
// Little-endian bytes of v in n bytes.
void le(std::string& s, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
// A Netrace v1.0 file: 72-byte header (no notes, no regions), then packets
// {cycle, id, type, src, dst, waiters}.
std::string netrace(int nodes, const std::vector<std::tuple<int, int, int, int, int, std::vector<int>>>& packets) {
  std::string s;
  le(s, 0x484A5455, 4);
  le(s, 0x3F800000, 4);  // 1.0f
  s.append(30, '\0');
  le(s, static_cast<std::uint64_t>(nodes), 1);
  s.push_back('\0');
  le(s, 1000, 8);
  le(s, packets.size(), 8);
  le(s, 0, 4);
  le(s, 0, 4);
  s.append(8, '\0');
  for (const auto& [cycle, id, type, src, dst, waiters] : packets) {
    le(s, static_cast<std::uint64_t>(cycle), 8);
    le(s, static_cast<std::uint64_t>(id), 4);
    le(s, 0, 4);
    le(s, static_cast<std::uint64_t>(type), 1);
    le(s, static_cast<std::uint64_t>(src), 1);
    le(s, static_cast<std::uint64_t>(dst), 1);
    le(s, 0, 1);
    le(s, waiters.size(), 1);
    for (int w : waiters) le(s, static_cast<std::uint64_t>(w), 4);
  }
  return s;
}
}  // namespace

TEST(Trace, NetraceFilesAreReadWithTheirDependencies) {
  // A ReadReq (8 bytes: 1 flit of 16 bytes) from node 0 to 1 that packet 11
  // waits for, and the ReadResp (72 bytes: 5 flits) back; a third packet to
  // itself never enters the network. Netrace lists the waiters on the
  // packet they wait for; ftsim turns that into 11 depending on 10.
  const std::string bytes = netrace(4, {{0, 10, 1, 0, 1, {11}}, {0, 11, 2, 1, 0, {}}, {3, 12, 1, 2, 2, {}}});
  const auto r = ftsim::tb::parse_netrace(bytes, "n.tra", 4, 16);
  ASSERT_EQ(r.size(), 2U);
  EXPECT_EQ(r[0].flits, 1);
  EXPECT_EQ(r[1].flits, 5);
  EXPECT_EQ(r[1].deps, std::vector<std::size_t>{0});
  EXPECT_TRUE(r[0].deps.empty());
  // Run it: the response leaves only after the request has arrived.
  const std::string path = write_trace("n.tra", bytes);
  ftsim::test::Harness h(yaml("mesh:2x2", path));
  run_to_end(h);
  const auto& tc = *h.net->trace_controller;
  ASSERT_TRUE(tc.finished());
  EXPECT_EQ(tc.arrived(), 2U);
  EXPECT_GE(tc.times()[1].injected, tc.times()[0].delivered);
  // Errors name the file.
  for (const std::string& bad : {std::string("BZh91AY"), bytes.substr(0, 80), netrace(9, {}),
                                 netrace(4, {{0, 1, 7, 0, 1, {}}}), netrace(4, {{0, 1, 1, 0, 6, {}}})}) {
    try {
      ftsim::tb::parse_netrace(bad, "bad.tra", 4, 16);
      ADD_FAILURE() << "accepted a bad file of " << bad.size() << " bytes";
    } catch (const ftsim::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.tra"), std::string::npos) << e.what();
    }
  }
}
