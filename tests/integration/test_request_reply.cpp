// Closed-loop request/reply traffic (issue 53, tb/request_reply.hpp): round
// trips against the zero-load latency counted by hand, Little's law and the
// home node's injection bound, and conservation with a fault.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness.hpp"
#include "tb/experiment_runner.hpp"

using namespace ftsim;

namespace {

// 2x2 mesh, DOR, default router (RC, VA, SA, ST, link: 1 cycle each). Every
// node but node 1 sends its requests (1 flit) to node 1, which answers
// each with a 4-flit reply 10 cycles after the request arrives.
const char* kHotHome = R"(
topology: mesh:2x2
routing: dor
router: {vcs: 2, buffer_flits: 8, flow_control: vct}
traffic: {kind: request_reply, pattern: hotspot, hotspot_nodes: [1], hotspot_fraction: 1.0, mshrs: 1,
          request_flits: 1, reply_flits: 4, service_cycles: 10}
sim: {warmup_cycles: 1000, measure_cycles: 20000, seed: 1}
)";

}  // namespace

TEST(RequestReply, RoundTripsAreNeverShorterThanTheZeroLoadSumAndReachIt) {
  // Zero-load latency of an L-flit packet through r routers, by hand (the
  // model docs/validation.md checks): 1 cycle into the source NI's queue,
  // 5 cycles per router (RC, VA, SA, ST, link), 1 cycle of ejection, L - 1
  // cycles of serialisation: 2 + 5 r + (L - 1). Nodes 0 and 3 are one hop
  // from node 1 (r = 2): request 12, reply 15, round trip 12 + 10 + 15 = 37.
  // Node 2 is two hops away (r = 3): 17 + 10 + 20 = 47. With one request
  // outstanding per node only node 1's replies can meet (its injection
  // port), so each node's shortest round trip is exactly its zero-load sum.
  test::Harness h(kHotHome);
  h.run(21000);
  const int expected[] = {37, -1, 47, 37};
  for (int n : {0, 2, 3}) {
    const auto& rt = h.net->endpoints[static_cast<std::size_t>(n)].round_trips();
    ASSERT_GT(rt.size(), 300U) << "node " << n;
    EXPECT_EQ(*std::min_element(rt.begin(), rt.end()), static_cast<std::uint32_t>(expected[n])) << "node " << n;
  }
  EXPECT_EQ(h.net->endpoints[1].counters().issued, 0U);  // the hotspot has no home but itself
  // Conservation, no fault: every request served is answered or waiting
  // out its service time, and every unanswered request is a packet in flight
  // (request or reply) or a reply not queued yet.
  const auto& home = h.net->endpoints[1];
  EXPECT_EQ(home.counters().served, home.counters().replies_sent + home.replies_pending());
  std::uint64_t outstanding = 0;
  for (int n : {0, 2, 3}) outstanding += h.net->endpoints[static_cast<std::size_t>(n)].outstanding();
  EXPECT_EQ(outstanding, h.stats().created - h.stats().delivered + home.replies_pending());
}

TEST(RequestReply, LittlesLawAndTheHomeInjectionBoundHoldBeyondSaturation) {
  // Eight requests outstanding per node: node 1 must inject a 4-flit reply
  // per request through its one injection port, so the three requesters
  // together complete at most 1/4 request per cycle (the bound); that port
  // is then always busy, so they complete almost exactly that. Little's law
  // per node: completions per cycle x mean round trip = 8 requests in the
  // loop (none thinks, think_cycles 0), up to the window's edges.
  const auto cfg = tb::parse_experiment(kHotHome, {"traffic.mshrs=8"});
  tb::RunOptions o;
  o.quiet = true;
  const auto r = tb::run_experiment(cfg, o);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const auto& rr = r.stats["request_reply"];
  const double total_per_cycle = rr["completed_per_node_cycle"].get<double>() * 4;  // 4 nodes in the average
  EXPECT_LE(total_per_cycle, 0.25 + 1e-3);
  EXPECT_GE(total_per_cycle, 0.245);
  // The loop: completions x round trip = requests outstanding = 3 x 8.
  const double little = total_per_cycle * rr["round_trip_cycles"]["mean"].get<double>();
  EXPECT_NEAR(little, 24.0, 0.5);
}

TEST(RequestReply, FixedWorkEndsWhenEveryRequestIsAnsweredAndReportsItsExecutionTime) {
  // 4x4 mesh, uniform homes, 50 requests per node: 800 requests, 800 replies.
  const char* yaml = R"(
topology: mesh:4x4
routing: dor
router: {vcs: 2, buffer_flits: 8, flow_control: vct}
traffic: {kind: request_reply, pattern: uniform, mshrs: 2, request_flits: 1, reply_flits: 4, service_cycles: 5,
          think_cycles: 3, requests_per_node: 50}
sim: {warmup_cycles: 0, measure_cycles: 1000000, seed: 2}
)";
  const auto r = tb::run_experiment(tb::parse_experiment(yaml, {}), [] {
    tb::RunOptions o;
    o.quiet = true;
    return o;
  }());
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const auto& rr = r.stats["request_reply"];
  EXPECT_EQ(rr["requests_issued"].get<int>(), 800);
  EXPECT_EQ(rr["requests_completed"].get<int>(), 800);
  EXPECT_EQ(rr["requests_served"].get<int>(), 800);
  EXPECT_EQ(rr["replies_sent"].get<int>(), 800);
  EXPECT_EQ(rr["nodes_finished"].get<int>(), 16);
  EXPECT_EQ(r.stats["packets"]["delivered"].get<int>(), 1600);
  // The run stops within one monitor interval (<= 100 cycles) of the last reply.
  const auto exec = rr["execution_cycles"].get<std::uint64_t>();
  EXPECT_LE(exec, r.stats["cycles"].get<std::uint64_t>());
  EXPECT_GT(exec + 100, r.stats["cycles"].get<std::uint64_t>());
  // Each node's 50 requests, two at a time, take at least 25 round trips of
  // at least 2 + 5 x 2 + 0 + 5 + 2 + 5 x 2 + 3 = 32 cycles plus 3 of think.
  EXPECT_GE(exec, 25U * 35U);
}

TEST(RequestReply, EveryRequestWithoutAReplyIsAPacketLostToTheFaultOrStillOnItsWay) {
  // DOR cannot route around a dead link: the packets that need it are
  // dropped (no route), and each such request or reply leaves its request
  // outstanding for ever. Count them independently: outstanding requests =
  // dropped packets + packets in flight + replies not yet queued.
  const char* yaml = R"(
topology: mesh:4x4
routing: dor
router: {vcs: 2, buffer_flits: 8, flow_control: vct}
traffic: {kind: request_reply, pattern: uniform, mshrs: 4, request_flits: 1, reply_flits: 4, service_cycles: 5}
sim: {warmup_cycles: 500, measure_cycles: 3000, seed: 4}
faults:
  schedule: [{link: "1,1:x+", at: 1000}]
)";
  test::Harness h(yaml);
  h.run(4000);
  std::uint64_t outstanding = 0, pending = 0, issued = 0, completed = 0;
  for (const auto& e : h.net->endpoints) {
    outstanding += e.outstanding();
    pending += e.replies_pending();
    issued += e.counters().issued;
    completed += e.counters().completed;
  }
  const auto& s = h.stats();
  std::uint64_t dropped = 0;
  for (auto d : s.dropped) dropped += d;
  const auto inflight = h.net->scan_in_flight();
  EXPECT_GT(dropped, 0U);
  EXPECT_EQ(issued, completed + outstanding);
  EXPECT_EQ(outstanding, dropped + inflight.in_network + inflight.source_queued + pending);
}
