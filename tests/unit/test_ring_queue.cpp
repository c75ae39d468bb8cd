// hw::RingQueue (the interfaces' source queues) against std::deque, the
// reference it replaces, on a random mix of operations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "hw/ring_queue.hpp"

using ftsim::hw::RingQueue;

TEST(RingQueue, AllocatesOnlyWhenUsed) {
  RingQueue<std::uint32_t> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.capacity(), 0U);
  EXPECT_EQ(q.begin(), q.end());
  q.push_back(7);
  EXPECT_EQ(q.capacity(), 8U);
  EXPECT_EQ(q.front(), 7U);
}

TEST(RingQueue, PutBackAtTheHeadLeavesFirst) {
  RingQueue<std::uint32_t> q;
  for (std::uint32_t i = 1; i <= 8; ++i) q.push_back(i);  // full at 8
  q.push_front(0);                                        // grows to 16 while wrapping the head
  EXPECT_EQ(q.capacity(), 16U);
  std::vector<std::uint32_t> seen(q.begin(), q.end());
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.capacity(), 16U);  // the storage stays
}

// 200,000 random operations (push at either end, pop, clear rarely): the
// same contents as std::deque after each one, through every growth and
// wrap of the ring.
TEST(RingQueue, MatchesStdDequeOnRandomOperations) {
  std::mt19937 rng(54);
  std::uniform_int_distribution<int> op(0, 99);
  RingQueue<std::uint32_t> q;
  std::deque<std::uint32_t> ref;
  std::uint32_t next = 0;
  std::size_t max_size = 0;
  for (int step = 0; step < 200000; ++step) {
    const int o = op(rng);
    if (o < 45) {
      q.push_back(next);
      ref.push_back(next++);
    } else if (o < 55) {
      q.push_front(next);
      ref.push_front(next++);
    } else if (o < 99) {
      if (!ref.empty()) {
        ASSERT_EQ(q.front(), ref.front()) << step;
        q.pop_front();
        ref.pop_front();
      }
    } else if (op(rng) < 5) {
      q.clear();
      ref.clear();
    }
    ASSERT_EQ(q.size(), ref.size()) << step;
    if (step % 97 == 0) {
      for (std::size_t i = 0; i < ref.size(); ++i) {
        ASSERT_EQ(q[i], ref[i]) << step << " " << i;
      }
    }
    max_size = std::max(max_size, ref.size());
  }
  EXPECT_TRUE(std::equal(q.begin(), q.end(), ref.begin(), ref.end()));
  EXPECT_GT(max_size, 64U);  // the mix grew the ring several times
}
