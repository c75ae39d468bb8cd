// The VC allocator as a unit (issue 51, item 5): requests in
// (VcAllocInputs), grants out (VcGrant), nothing of a router around it.
// Expected grants are hand counts from the rules in hw/router_units.hpp;
// the randomised tests check the matching properties every cycle against a
// brute-force reading of the same requests.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>
#include <vector>

#include "hw/router_units.hpp"

namespace ftsim::test {
namespace {

using hw::VcAllocator;
using hw::VcAllocatorKind;
using hw::VcAllocInputs;
using hw::VcGrant;
using hw::VcRequest;

VcRequest req(int in_port, int queue, int out_port, int out_vc) {
  return VcRequest{in_port, queue, out_port, out_vc, false, -1};
}

std::vector<std::pair<int, int>> heads_of(const std::vector<VcGrant>& g) {
  std::vector<std::pair<int, int>> h;
  for (const VcGrant& x : g) h.emplace_back(x.in_port, x.queue);
  return h;
}

TEST(VcAllocatorUnit, InputFirstRotatesEachOutputVcsGrantOverThePortQueueIndex) {
  // Radix 5, 2 queues per port: index = port x 2 + queue, n = 10. Two heads
  // want output VC (3, 1): (0, 1) has index 1 and (2, 0) index 4.
  VcAllocator va("va", VcAllocatorKind::kSeparableInputFirst);
  va.configure(5, 2);
  const std::vector<VcRequest> rs{req(0, 1, 3, 1), req(2, 0, 3, 1)};
  const VcAllocInputs in{rs, 5, 2, 2, 0, false};
  std::vector<VcGrant> g;
  // Pointer 0: distances 1 and 4, (0, 1) wins; the pointer moves to 2.
  va.allocate(in, g);
  ASSERT_EQ(g.size(), 1U);
  EXPECT_EQ(heads_of(g), (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_EQ(g[0].out_port, 3);
  EXPECT_EQ(g[0].out_vc, 1);
  // Pointer 2: distances (1 - 2 + 10) % 10 = 9 and 2, (2, 0) wins; pointer 5.
  va.allocate(in, g);
  EXPECT_EQ(heads_of(g), (std::vector<std::pair<int, int>>{{2, 0}}));
  // Pointer 5: distances 6 and 9, (0, 1) again.
  va.allocate(in, g);
  EXPECT_EQ(heads_of(g), (std::vector<std::pair<int, int>>{{0, 1}}));
}

TEST(VcAllocatorUnit, InputFirstGrantsDifferentOutputVcsInOneCycleAndRanksTheNodePortLast) {
  VcAllocator va("va", VcAllocatorKind::kSeparableInputFirst);
  va.configure(5, 2);
  // Three output VCs asked for: (3, 1) by two heads, (1, 0) and (3, 0) by one each.
  const std::vector<VcRequest> rs{req(0, 0, 3, 1), req(1, 1, 1, 0), req(4, 0, 3, 1), req(4, 1, 3, 0)};
  std::vector<VcGrant> g;
  // Port 0 is fed by the node: under transit priority its request ranks
  // after (4, 0) although its index (0) is nearer the pointer (0) than 8.
  va.allocate(VcAllocInputs{rs, 5, 2, 2, 1ULL << 0, true}, g);
  EXPECT_EQ(heads_of(g), (std::vector<std::pair<int, int>>{{4, 0}, {1, 1}, {4, 1}}));
  // Without transit priority (a fresh allocator, pointers 0) the nearest
  // index wins: (0, 0) at distance 0 before (4, 0) at 8.
  VcAllocator fair("fair", VcAllocatorKind::kSeparableInputFirst);
  fair.configure(5, 2);
  fair.allocate(VcAllocInputs{rs, 5, 2, 2, 1ULL << 0, false}, g);
  EXPECT_EQ(heads_of(g), (std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {4, 1}}));
}

TEST(VcAllocatorUnit, WavefrontVisitsDiagonalsFromThePriorityDiagonal) {
  // Radix 2, 1 queue, 2 VCs: rows 2, columns 4, N = 4. Head row 0 asks for
  // columns 0 and 1, head row 1 for column 0.
  VcAllocator va("va", VcAllocatorKind::kWavefront);
  va.configure(2, 2);
  const std::vector<VcRequest> rs{req(0, 0, 0, 0), req(0, 0, 0, 1), req(1, 0, 0, 0)};
  const VcAllocInputs in{rs, 2, 1, 2, 0, false};
  std::vector<VcGrant> g;
  // Diagonal 0 first: cell (0, 0) on diagonal 0 is granted; (0, 1) and
  // (1, 0) lie on diagonal 1 and lose their row or column: one grant.
  va.allocate(in, g);
  ASSERT_EQ(g.size(), 1U);
  EXPECT_EQ(g[0].in_port, 0);
  EXPECT_EQ(g[0].out_vc, 0);
  // Priority diagonal 1: (0, 1) and (1, 0) first, both granted.
  va.allocate(in, g);
  ASSERT_EQ(g.size(), 2U);
  EXPECT_EQ(g[0].in_port, 0);
  EXPECT_EQ(g[0].out_vc, 1);
  EXPECT_EQ(g[1].in_port, 1);
  EXPECT_EQ(g[1].out_vc, 0);
}

/// Random request sets: every cycle's grants are requests, no head and no
/// output VC is granted twice, the matching is maximal (an ungranted request
/// has its head or its output VC taken), and the input-first allocator
/// grants every output VC somebody asked for.
void check_matchings(VcAllocatorKind kind, unsigned seed) {
  constexpr int kRadix = 5, kQueues = 3, kVcs = 3;
  VcAllocator va("va", kind);
  va.configure(kRadix, kVcs);
  std::mt19937 rng(seed);
  std::vector<VcGrant> g;
  for (int cycle = 0; cycle < 500; ++cycle) {
    std::vector<VcRequest> rs;
    for (int p = 0; p < kRadix; ++p)
      for (int q = 0; q < kQueues; ++q) {
        const int wants =
            kind == VcAllocatorKind::kWavefront ? static_cast<int>(rng() % 4) : static_cast<int>(rng() % 2);
        std::set<std::pair<int, int>> asked;
        for (int k = 0; k < wants; ++k) {
          const int o = static_cast<int>(rng() % kRadix), v = static_cast<int>(rng() % kVcs);
          if (asked.insert({o, v}).second) rs.push_back(req(p, q, o, v));
        }
      }
    const std::uint64_t node_ports = rng() % 2 ? 1ULL << (rng() % kRadix) : 0;
    va.allocate(VcAllocInputs{rs, kRadix, kQueues, kVcs, node_ports, (rng() % 2) != 0}, g);
    std::set<std::pair<int, int>> heads, vcs, requested_vcs;
    for (const VcGrant& x : g) {
      bool asked = false;
      for (const VcRequest& r : rs)
        asked |= r.in_port == x.in_port && r.queue == x.queue && r.out_port == x.out_port && r.out_vc == x.out_vc;
      ASSERT_TRUE(asked) << "cycle " << cycle;
      ASSERT_TRUE(heads.insert({x.in_port, x.queue}).second) << "cycle " << cycle;
      ASSERT_TRUE(vcs.insert({x.out_port, x.out_vc}).second) << "cycle " << cycle;
    }
    for (const VcRequest& r : rs) {
      requested_vcs.insert({r.out_port, r.out_vc});
      ASSERT_TRUE(heads.count({r.in_port, r.queue}) != 0 || vcs.count({r.out_port, r.out_vc}) != 0)
          << "cycle " << cycle << ": the matching is not maximal";
    }
    if (kind == VcAllocatorKind::kSeparableInputFirst) {
      ASSERT_EQ(vcs, requested_vcs) << "cycle " << cycle;
    }
  }
}

TEST(VcAllocatorUnit, RandomRequestsGiveMaximalMatchingsInputFirst) {
  check_matchings(VcAllocatorKind::kSeparableInputFirst, 1);
}

TEST(VcAllocatorUnit, RandomRequestsGiveMaximalMatchingsWavefront) {
  check_matchings(VcAllocatorKind::kWavefront, 2);
}

}  // namespace
}  // namespace ftsim::test
