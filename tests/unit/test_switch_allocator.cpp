// The separable input-first switch allocator as a unit: its one-word key
// sets (radix x queues < 64, issue 54) against its request lists, on random
// cycles of requests, credits, STOP, failed links and control packets; both
// must give the same grants in the same order, cycle after cycle (so their
// round-robin pointers move alike). The request lists are the rule the
// router tests count by hand (test_router.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hw/router_units.hpp"
#include "hw/switch_allocator_impl.hpp"

namespace ftsim::test {
namespace {

using hw::CrossbarKind;
using hw::InputUnit;
using hw::InputVc;
using hw::LinkDirection;
using hw::OutputUnit;
using hw::SwitchGrant;

struct Case {
  int radix;
  int vcs;
  int lanes;  ///< queues per VC (> 1: one queue per VC per cycle with the per-VC crossbar)
  CrossbarKind crossbar;
};

class Fixture {
 public:
  Fixture(const Case& k, const std::string& tag) : m_case(k) {
    m_params.vcs = k.vcs;
    m_params.crossbar = k.crossbar;
    for (int p = 0; p < k.radix; ++p) {
      in.push_back(std::make_unique<InputUnit>(fmt::format("{}_in{}", tag, p).c_str(), k.vcs, k.lanes));
      out.push_back(std::make_unique<OutputUnit>(fmt::format("{}_out{}", tag, p).c_str(), k.vcs, 4));
      links.push_back(std::make_unique<LinkDirection>());
      out.back()->link = links.back().get();
      in.back()->crossbar_inputs = k.crossbar == CrossbarKind::kPerVc ? k.vcs : 1;
    }
    out[0]->make_ejection(2);  // the node's port: two crossbar outputs
    in[0]->crossbar_inputs = 2;
  }

  /// Random requests for cycle c; returns the active ports. `sparse`: one
  /// queue of the router active (one in eight cycles two, or none) and
  /// usually no control packet, as at low load.
  std::uint64_t randomise(std::mt19937_64& rng, std::uint64_t c, std::uint64_t& control, bool sparse = false) {
    const int nq = m_case.vcs * m_case.lanes;
    const int keys = m_case.radix * nq;
    const int first = static_cast<int>(rng() % static_cast<std::uint64_t>(keys));
    const int second = rng() % 8 == 0 ? static_cast<int>(rng() % static_cast<std::uint64_t>(keys)) : first;
    const bool none = sparse && rng() % 16 == 0;
    std::uint64_t active_ports = 0;
    for (int p = 0; p < m_case.radix; ++p) {
      InputUnit& ip = *in[static_cast<std::size_t>(p)];
      for (int q = 0; q < nq; ++q) {
        InputVc& iv = ip.queues[static_cast<std::size_t>(q)];
        const int key = p * nq + q;
        if (sparse ? (none || (key != first && key != second)) : rng() % 2 == 0) {
          ip.active.reset(q);
          continue;
        }
        ip.active.set(q);
        active_ports |= 1ULL << p;
        iv.state = InputVc::State::kActive;
        if (iv.fifo.empty()) iv.fifo.push(0, hw::Flit{});
        iv.ready = rng() % 5 == 0 ? c + 1 : c;
        iv.out_port = static_cast<int>(rng() % static_cast<std::uint64_t>(m_case.radix));
        iv.out_vc = static_cast<int>(rng() % out[static_cast<std::size_t>(iv.out_port)]->vcs.size());
      }
    }
    control = 0;
    for (int o = 0; o < m_case.radix; ++o) {
      OutputUnit& op = *out[static_cast<std::size_t>(o)];
      if (!op.ejection)
        for (auto& ov : op.vcs) ov.credits = static_cast<int>(rng() % 3);
      op.link->failed = rng() % 20 == 0;
      op.link->bundle.stop = rng() % 10 == 0;
      if (rng() % (sparse ? 64 : 8) == 0) control |= 1ULL << o;
    }
    return active_ports;
  }

  hw::RouterParams m_params;
  std::vector<std::unique_ptr<InputUnit>> in;
  std::vector<std::unique_ptr<OutputUnit>> out;
  std::vector<std::unique_ptr<LinkDirection>> links;

 private:
  Case m_case;
};

/// Two allocators for k's router: `b` with `b_setup` applied (the form under
/// comparison) and `a` as configured.
struct AllocatorPair {
  AllocatorPair(const Case& k, const hw::RouterParams& params, const std::string& tag)
      : a((tag + "_a").c_str(), params), b((tag + "_b").c_str(), params) {
    a.configure(k.radix, k.vcs * k.lanes, k.lanes);
    b.configure(k.radix, k.vcs * k.lanes, k.lanes);
  }
  /// Allocates cycle c with both and expects the same grants in the same
  /// order; returns a's.
  std::vector<SwitchGrant> same_grants(const hw::SwitchAllocInputs& x, std::uint64_t c, const std::string& tag) {
    std::vector<SwitchGrant> ga, gb;
    a.allocate(x, c, [&](const SwitchGrant& g) { ga.push_back(g); });
    b.allocate(x, c, [&](const SwitchGrant& g) { gb.push_back(g); });
    EXPECT_EQ(ga.size(), gb.size()) << tag << " cycle " << c;
    for (std::size_t i = 0; i < ga.size() && i < gb.size(); ++i) {
      EXPECT_EQ(ga[i].in_port, gb[i].in_port) << tag << " cycle " << c << " grant " << i;
      EXPECT_EQ(ga[i].queue, gb[i].queue) << tag << " cycle " << c << " grant " << i;
      EXPECT_EQ(ga[i].out_port, gb[i].out_port) << tag << " cycle " << c << " grant " << i;
    }
    return ga;
  }
  hw::SwitchAllocator a, b;
};

/// Counts one cycle's grants: all, the control packet's, and the cycles in
/// which the node's port (output 0) granted both its crossbar outputs.
struct GrantTally {
  int grants = 0, control_grants = 0, double_grants = 0;
  void add(const std::vector<SwitchGrant>& cycle) {
    int to_node = 0;
    for (const SwitchGrant& g : cycle) {
      control_grants += g.in_port < 0;
      to_node += g.out_port == 0 && g.in_port >= 0;
    }
    grants += static_cast<int>(cycle.size());
    double_grants += to_node == 2;
  }
};

void expect_same_grants(const Case& k, const std::string& tag, std::uint64_t seed) {
  Fixture f(k, tag);
  AllocatorPair pair(k, f.m_params, tag);  // a: key sets, b: request lists
  pair.b.use_key_sets(false);
  std::mt19937_64 rng(seed);
  GrantTally t;
  for (std::uint64_t c = 1; c <= 600; ++c) {
    std::uint64_t control = 0;
    const std::uint64_t active = f.randomise(rng, c, control);
    t.add(pair.same_grants(hw::SwitchAllocInputs{f.in, f.out, active, control}, c, tag));
  }
  // The cycles exercised what they are for: grants, control packets taking
  // a link, and the node's port granting both its crossbar outputs.
  EXPECT_GT(t.grants, 600);
  EXPECT_GT(t.control_grants, 20);
  EXPECT_GT(t.double_grants, 5);
}

// The one-queue path against the two stages: cycles alternate at random
// between one active queue (the path's case, as at low load) and many, so
// the pointers the path moves decide later contended cycles. Both
// allocators must grant alike, cycle after cycle; the counts check that
// both kinds of cycle, and grants in each, occurred.
void expect_one_queue_path_grants_as_the_stages(const Case& k, const std::string& tag, std::uint64_t seed,
                                                bool key_sets) {
  Fixture f(k, tag);
  AllocatorPair pair(k, f.m_params, tag);  // a: the one-queue path, b: always the two stages
  pair.a.use_key_sets(key_sets);
  pair.b.use_key_sets(key_sets);
  pair.b.use_one_queue_path(false);
  const int nq = k.vcs * k.lanes;
  std::mt19937_64 rng(seed);
  int one_queue_grants = 0, contended_grants = 0;
  for (std::uint64_t c = 1; c <= 2000; ++c) {
    std::uint64_t control = 0;
    const bool sparse = rng() % 2 == 0;
    const std::uint64_t active = f.randomise(rng, c, control, sparse);
    const auto a = pair.same_grants(hw::SwitchAllocInputs{f.in, f.out, active, control}, c, tag);
    int queues = 0;
    for (const auto& ip : f.in)
      ip->active.visit(0, nq, [&](int) {
        ++queues;
        return false;
      });
    (queues == 1 && control == 0 ? one_queue_grants : contended_grants) += static_cast<int>(a.size());
  }
  EXPECT_GT(one_queue_grants, 300) << tag;
  EXPECT_GT(contended_grants, 600) << tag;
}

// The sending sets (track_sending) against the two stages on the per-VC
// crossbar with one queue per VC, every queue its own crossbar input (the
// node's port too, as the router binds it): allocator a reads each output's
// sending queues from its sets, which the test fills from the queues' states
// every cycle as the router keeps them (start_sending when a queue gets its
// output VC); b visits the active queues. Same grants every cycle, with
// control packets, the node's two crossbar outputs, and queues that are
// active but not ready (credits, STOP, a later ready cycle).
TEST(SwitchAllocatorUnit, SendingSetsGrantAsTheTwoStagesPerVcCrossbar) {
  const Case k{7, 5, 1, CrossbarKind::kPerVc};  // Figure 9's router: 35 keys
  Fixture f(k, "send");
  f.in[0]->crossbar_inputs = k.vcs;           // Router::bind_port: vcs crossbar inputs on every port
  AllocatorPair pair(k, f.m_params, "send");  // a: sending sets, b: the two stages
  pair.a.track_sending(true);
  ASSERT_TRUE(pair.a.tracks_sending());
  ASSERT_FALSE(pair.b.tracks_sending());
  std::mt19937_64 rng(31);
  GrantTally t;
  int unready = 0;
  for (std::uint64_t c = 1; c <= 3000; ++c) {
    std::uint64_t control = 0;
    const std::uint64_t active = f.randomise(rng, c, control, rng() % 4 == 0);
    pair.a.track_sending(true);  // empty sets, then every active queue under its output
    int sending = 0;
    for (int p = 0; p < k.radix; ++p)
      f.in[static_cast<std::size_t>(p)]->active.visit(0, k.vcs, [&](int q) {
        pair.a.start_sending(p, q, f.in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(q)].out_port);
        ++sending;
        return false;
      });
    const auto a = pair.same_grants(hw::SwitchAllocInputs{f.in, f.out, active, control}, c, "send");
    t.add(a);
    unready += sending - static_cast<int>(a.size());
  }
  EXPECT_GT(t.grants, 3000);
  EXPECT_GT(t.control_grants, 50);
  EXPECT_GT(t.double_grants, 20);
  EXPECT_GT(unready, 3000);  // sending queues that lost or were not ready
}

// stop_sending takes a queue out of its output's set (and the output out of
// the outputs with senders once its set is empty): a stopped queue is not
// granted however ready it is. track_sending is refused where the sets would
// not be the requests.
TEST(SwitchAllocatorUnit, SendingSetsFollowStartAndStopAndNeedThePerVcCrossbar) {
  const Case k{3, 2, 1, CrossbarKind::kPerVc};
  Fixture f(k, "stop");
  f.in[0]->crossbar_inputs = k.vcs;
  hw::SwitchAllocator sa("stop_sa", f.m_params);
  sa.configure(k.radix, k.vcs, 1);
  sa.use_one_queue_path(false);  // one active queue: that path would grant it from the active set
  sa.track_sending(true);
  ASSERT_TRUE(sa.tracks_sending());
  InputVc& iv = f.in[2]->queues[1];  // key 2 x 2 + 1 = 5
  iv.state = InputVc::State::kActive;
  iv.fifo.push(0, hw::Flit{});
  iv.out_port = 1;
  iv.out_vc = 0;
  f.in[2]->active.set(1);
  f.out[1]->vcs[0].credits = 4;
  auto grants = [&](std::uint64_t c) {
    std::vector<SwitchGrant> g;
    sa.allocate(hw::SwitchAllocInputs{f.in, f.out, 1ULL << 2, 0}, c, [&](const SwitchGrant& x) { g.push_back(x); });
    return g;
  };
  EXPECT_TRUE(grants(1).empty());  // ready, but not in a set: no request
  sa.start_sending(2, 1, 1);
  EXPECT_EQ(sa.sending_keys(1), 1ULL << 5);
  const auto g = grants(2);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].in_port, 2);
  EXPECT_EQ(g[0].queue, 1);
  EXPECT_EQ(g[0].out_port, 1);
  sa.stop_sending(2, 1, 1);
  EXPECT_EQ(sa.sending_keys(1), 0u);
  EXPECT_TRUE(grants(3).empty());
  hw::RouterParams mux = f.m_params;
  mux.crossbar = CrossbarKind::kMultiplexed;
  hw::SwitchAllocator sa_mux("stop_sa_mux", mux);
  sa_mux.configure(k.radix, k.vcs, 1);
  sa_mux.track_sending(true);
  EXPECT_FALSE(sa_mux.tracks_sending());  // one crossbar input per port: the input stage chooses
  hw::SwitchAllocator sa_lanes("stop_sa_lanes", f.m_params);
  sa_lanes.configure(k.radix, k.vcs * 3, 3);
  sa_lanes.track_sending(true);
  EXPECT_FALSE(sa_lanes.tracks_sending());  // three queues per VC share the VC's input
  hw::SwitchAllocator sa_wide("stop_sa_wide", f.m_params);
  sa_wide.configure(8, 8, 1);
  sa_wide.track_sending(true);
  EXPECT_FALSE(sa_wide.tracks_sending());  // 64 keys and the control key do not fit one word
}

TEST(SwitchAllocatorUnit, OneQueuePathGrantsAsTheTwoStages) {
  expect_one_queue_path_grants_as_the_stages(Case{5, 2, 1, CrossbarKind::kMultiplexed}, "q1mux", 21, true);
  expect_one_queue_path_grants_as_the_stages(Case{5, 2, 1, CrossbarKind::kMultiplexed}, "q1muxl", 22, false);
  expect_one_queue_path_grants_as_the_stages(Case{7, 5, 1, CrossbarKind::kPerVc}, "q1pervc", 23, true);
  expect_one_queue_path_grants_as_the_stages(Case{5, 4, 3, CrossbarKind::kPerVc}, "q1lanes", 24, false);
}

TEST(SwitchAllocatorUnit, KeySetsGrantAsTheRequestListsMultiplexedCrossbar) {
  expect_same_grants(Case{5, 2, 1, CrossbarKind::kMultiplexed}, "mux", 11);
}

TEST(SwitchAllocatorUnit, KeySetsGrantAsTheRequestListsPerVcCrossbar) {
  expect_same_grants(Case{7, 5, 1, CrossbarKind::kPerVc}, "pervc", 12);  // Figure 9's router: 35 keys
}

TEST(SwitchAllocatorUnit, KeySetsGrantAsTheRequestListsPerVcCrossbarWithThreeQueuesPerVc) {
  expect_same_grants(Case{5, 4, 3, CrossbarKind::kPerVc}, "lanes", 13);  // 60 keys + the control key: 61 bits
}

TEST(SwitchAllocatorUnit, KeySetsNeedTheKeysAndTheControlKeyInOneWord) {
  hw::RouterParams p;
  hw::SwitchAllocator sa("sa_sizes", p);
  sa.configure(8, 8, 1);  // 64 keys: no room for the control key
  sa.use_key_sets(true);
  // Observable only through the grants; the 64-key configuration must still
  // allocate (the request lists).
  std::vector<std::unique_ptr<InputUnit>> in;
  std::vector<std::unique_ptr<OutputUnit>> out;
  std::vector<std::unique_ptr<LinkDirection>> links;
  for (int i = 0; i < 8; ++i) {
    in.push_back(std::make_unique<InputUnit>(fmt::format("sz_in{}", i).c_str(), 8, 1));
    out.push_back(std::make_unique<OutputUnit>(fmt::format("sz_out{}", i).c_str(), 8, 4));
    links.push_back(std::make_unique<LinkDirection>());
    out.back()->link = links.back().get();
  }
  InputVc& iv = in[7]->queues[7];  // key 63
  iv.state = InputVc::State::kActive;
  iv.fifo.push(0, hw::Flit{});
  iv.out_port = 3;
  iv.out_vc = 0;
  in[7]->active.set(7);
  std::vector<SwitchGrant> g;
  sa.allocate(hw::SwitchAllocInputs{in, out, 1ULL << 7, 1ULL << 3}, 1, [&](const SwitchGrant& x) { g.push_back(x); });
  // Output 3: the control packet's key (64) comes after key 63 from pointer 0.
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].in_port, 7);
  EXPECT_EQ(g[0].queue, 7);
}

}  // namespace
}  // namespace ftsim::test
