// DQR (dynamic-quick-reconfiguration.txt): channel list and turn enabling,
// checked against a brute-force cycle search and hand-built examples.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>

#include "routing_logic/channel_list.hpp"

using ftsim::routing::dqr::ChannelList;

namespace {

using Edges = std::vector<std::pair<int, int>>;

// Brute force: does the directed graph have a cycle? Repeatedly removes
// vertices without predecessors (independent of the list's own code).
bool cyclic(int n, const Edges& edges) {
  std::set<std::pair<int, int>> e(edges.begin(), edges.end());
  std::vector<char> gone(static_cast<std::size_t>(n), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int v = 0; v < n; ++v) {
      if (gone[static_cast<std::size_t>(v)]) continue;
      bool has_pred = false;
      for (const auto& [a, b] : e)
        if (b == v && !gone[static_cast<std::size_t>(a)]) has_pred = true;
      if (!has_pred) {
        gone[static_cast<std::size_t>(v)] = 1;
        progress = true;
      }
    }
  }
  for (int v = 0; v < n; ++v)
    if (!gone[static_cast<std::size_t>(v)]) return true;
  return false;
}

}  // namespace

TEST(ChannelList, FigureTwoStyleEnableMovesTheTargetAndWhatItFeeds) {
  // Channels 0..4: a chain 0 -> 1 -> 2 -> 3 and a free channel 4. Kahn with
  // the lowest id first gives 0 1 2 3 4.
  ChannelList cl(5, {{0, 1}, {1, 2}, {2, 3}});
  EXPECT_EQ(cl.order(), (std::vector<int>{0, 1, 2, 3, 4}));
  // 0 -> 1 -> 2 and now 2 -> 0 would close 0 -> 1 -> 2 -> 0: refused.
  EXPECT_EQ(cl.channels_to_move(2, 0), std::nullopt);
  EXPECT_EQ(cl.enable(2, 0), -1);
  EXPECT_TRUE(cl.valid());
  // 4 -> 1: channels reachable from 1 below 4 are 1, 2, 3 (T = 3).
  ASSERT_TRUE(cl.channels_to_move(4, 1).has_value());
  EXPECT_EQ(*cl.channels_to_move(4, 1), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(cl.enable(4, 1), 3);
  EXPECT_EQ(cl.order(), (std::vector<int>{0, 4, 1, 2, 3}));
  EXPECT_TRUE(cl.has_dependency(4, 1));
  EXPECT_TRUE(cl.valid());
  // A legal turn moves nothing; enabling it twice changes nothing.
  EXPECT_EQ(cl.enable(0, 3), 0);
  EXPECT_EQ(cl.enable(0, 3), 0);
  EXPECT_EQ(cl.num_dependencies(), 5U);
  EXPECT_EQ(cl.enable(3, 3), -1);  // a channel cannot depend on itself
}

TEST(ChannelList, CyclicInitialDependenciesAreRejectedWithTheCycle) {
  try {
    ChannelList cl(4, {{0, 1}, {1, 2}, {2, 0}, {2, 3}});
    FAIL() << "accepted a cyclic dependency set";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0 -> 1 -> 2 -> 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ChannelList(3, {{0, 3}}), std::invalid_argument);
}

TEST(ChannelList, RandomGraphsRefuseExactlyTheTurnsThatCloseACycle) {
  // Random DAGs (edges from a random permutation's lower to higher rank) and
  // random turns to enable, accepted or not: after every call the list is a
  // valid order of all recorded dependencies, a refusal happens exactly when
  // the union with the new turn is cyclic (brute force), and an accepted
  // turn moved exactly channels_to_move() channels.
  std::mt19937 rng(7);
  int refused = 0, accepted = 0, moved = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 10);
    std::vector<int> rank(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) rank[static_cast<std::size_t>(i)] = i;
    std::shuffle(rank.begin(), rank.end(), rng);
    Edges deps;
    for (int k = 0; k < n; ++k) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)]) deps.emplace_back(a, b);
    }
    ChannelList cl(n, deps);
    ASSERT_TRUE(cl.valid());
    for (int step = 0; step < 12; ++step) {
      const int u = static_cast<int>(rng() % n), v = static_cast<int>(rng() % n);
      Edges with = deps;
      with.emplace_back(u, v);
      const bool closes = u == v || cyclic(n, with);
      const auto to_move = cl.channels_to_move(u, v);
      const int t = cl.enable(u, v);
      EXPECT_EQ(t == -1, closes) << "turn " << u << " -> " << v;
      EXPECT_EQ(!to_move.has_value(), closes);
      if (!closes) {
        EXPECT_EQ(static_cast<std::size_t>(t), to_move->size());
        deps.push_back({u, v});
        ++accepted;
        moved += t > 0;
      } else {
        ++refused;
      }
      ASSERT_TRUE(cl.valid());
      for (const auto& [a, b] : deps) EXPECT_LT(cl.position(a), cl.position(b));
    }
  }
  // The draw exercises all three outcomes.
  EXPECT_GT(refused, 20);
  EXPECT_GT(accepted, 20);
  EXPECT_GT(moved, 10);
}
