// Communication phases (issue 53 item 2): execution time against hand
// counts and bounds, all-to-all coverage, and a phase that loses packets.
#include <gtest/gtest.h>

#include "harness.hpp"

namespace {

std::string yaml(const std::string& topo, const std::string& phases) {
  return "topology: " + topo +
         "\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 8}\nsim: {warmup_cycles: 0, measure_cycles: 1000000}\n"
         "traffic:\n  kind: phases\n  phases:\n" +
         phases;
}

void run_to_end(ftsim::test::Harness& h) {
  for (int i = 0; i < 1000 && !h.net->workload_finished(); ++i) h.run(1000);
}

}  // namespace

TEST(Phases, ComputeAndBarrierCyclesAddExactly) {
  // Three identical all-to-all phases on a 2x2 mesh; the second computes
  // 500 cycles before sending, and 300 barrier cycles follow it. Each phase
  // starts on an empty network, so the second lasts exactly 500 cycles more
  // than the first, the third starts exactly 300 cycles after the second
  // ends and lasts as long as the first.
  ftsim::test::Harness h(yaml("mesh:2x2",
                              "    - {pattern: all_to_all, packets_per_node: 30, packet_flits: 4}\n"
                              "    - {pattern: all_to_all, packets_per_node: 30, packet_flits: 4, compute_cycles: 500, "
                              "barrier_cycles: 300}\n"
                              "    - {pattern: all_to_all, packets_per_node: 30, packet_flits: 4}\n"));
  run_to_end(h);
  const auto& pc = *h.net->phase_controller;
  ASSERT_TRUE(pc.finished());
  const auto& p = pc.phases();
  const auto len = [&](int k) { return static_cast<long long>(p[k].end - p[k].start); };
  EXPECT_EQ(len(1), len(0) + 500);
  EXPECT_EQ(static_cast<long long>(p[2].start), static_cast<long long>(p[1].end) + 300);
  EXPECT_EQ(len(2), len(0));
  EXPECT_EQ(pc.execution_cycles(), p[2].end);
  for (const auto& ph : p) {
    EXPECT_EQ(ph.sent, 4U * 30U);
    EXPECT_EQ(ph.delivered, ph.sent);
  }
}

TEST(Phases, TheInjectionRateBoundsThePhase) {
  // A line of two nodes, 50 packets of 4 flits each way. At load 1.0 a
  // node queues a packet every 4 cycles (the last at 49 x 4 = 196) and can
  // inject at most one flit per cycle: the phase takes at least 200 cycles
  // and ends within one packet latency of its last injection. At load 0.5
  // the last packet is queued at 49 x 8 = 392.
  ftsim::test::Harness h(yaml("mesh:2",
                              "    - {pattern: all_to_all, packets_per_node: 50, packet_flits: 4}\n"
                              "    - {pattern: all_to_all, packets_per_node: 50, packet_flits: 4, load: 0.5}\n"));
  run_to_end(h);
  const auto& p = h.net->phase_controller->phases();
  ASSERT_TRUE(h.net->phase_controller->finished());
  EXPECT_EQ(p[0].sends_done - p[0].start, 196U);
  EXPECT_GE(p[0].end - p[0].start, 200U);
  EXPECT_LE(p[0].end - p[0].start, 200U + 100U);
  EXPECT_EQ(p[1].sends_done - p[1].start, 392U);
}

TEST(Phases, AllToAllSendsOnePacketToEveryOtherNode) {
  // 4x4 mesh, 15 packets per node: node i's k-th packet goes to the k-th
  // node after it, so every ordered pair carries exactly one packet.
  ftsim::test::Harness h(yaml("mesh:4x4", "    - {pattern: all_to_all, packets_per_node: 15, packet_flits: 2}\n"));
  run_to_end(h);
  ASSERT_TRUE(h.net->phase_controller->finished());
  for (int d = 0; d < 16; ++d) {
    const auto& from = h.net->phase_endpoints[static_cast<std::size_t>(d)].received_from();
    for (int s = 0; s < 16; ++s) EXPECT_EQ(s == d ? 0U : from.at(static_cast<std::size_t>(s)), s == d ? 0U : 1U);
  }
}

TEST(Phases, APhaseThatLosesPacketsStillEnds) {
  // A link fails while the first phase sends: the packets on it, and with
  // DOR every later packet whose route crosses it, are dropped; the barrier
  // counts them as lost (delivered + lost = sent, in each phase) and the
  // workload ends.
  ftsim::test::Harness h(yaml("mesh:4x4",
                              "    - {pattern: uniform, packets_per_node: 400, packet_flits: 4, load: 0.5}\n"
                              "    - {pattern: uniform, packets_per_node: 50, packet_flits: 4}\n"),
                         {"faults.schedule=[{at: 300, link: \"1,1:x+\"}]"});
  run_to_end(h);
  const auto& pc = *h.net->phase_controller;
  ASSERT_TRUE(pc.finished());
  const auto& p0 = pc.phases()[0];
  EXPECT_GT(p0.lost, 0U);
  EXPECT_EQ(p0.delivered + p0.lost, p0.sent);
  const auto& p1 = pc.phases()[1];
  EXPECT_EQ(p1.delivered + p1.lost, p1.sent);
}
