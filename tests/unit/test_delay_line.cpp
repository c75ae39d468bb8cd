// DelayLine, the timestamped FIFO of links and input queues: against a
// std::deque model on random operation sequences (wrap-around, growth past
// the inline entries), and its copies and moves.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <utility>

#include "hw/channels.hpp"

namespace {

using ftsim::hw::DelayLine;

template <typename Line>
void expect_contents(const Line& line, const std::deque<std::pair<std::uint64_t, int>>& model) {
  ASSERT_EQ(line.size(), model.size());
  ASSERT_EQ(line.empty(), model.empty());
  for (std::size_t i = 0; i < model.size(); ++i) {
    EXPECT_EQ(line.at(i).ready, model[i].first) << "entry " << i;
    EXPECT_EQ(line.at(i).item, model[i].second) << "entry " << i;
  }
}

// 20,000 random pushes and pops (bursts up to 40 deep, so the line grows
// past its inline entries and wraps around many times), checked after every
// operation against a deque.
template <typename Line>
void random_against_deque(std::uint64_t seed) {
  Line line;
  std::deque<std::pair<std::uint64_t, int>> model;
  std::mt19937_64 rng(seed);
  std::uint64_t now = 0;
  for (int op = 0; op < 20000; ++op) {
    const bool push = model.empty() || (model.size() < 40 && rng() % 100 < 52);
    if (push) {
      const std::uint64_t ready = now + rng() % 4;
      const int item = static_cast<int>(rng() % 100000);
      line.push(ready, item);
      model.emplace_back(ready, item);
    } else {
      ASSERT_EQ(line.front().ready, model.front().first);
      ASSERT_EQ(line.front().item, model.front().second);
      line.pop();
      model.pop_front();
    }
    ++now;
    ASSERT_EQ(line.ready(now), !model.empty() && model.front().first <= now);
    if (op % 97 == 0) expect_contents(line, model);
  }
  expect_contents(line, model);
}

TEST(DelayLine, MatchesADequeWithFourInlineEntries) {
  random_against_deque<DelayLine<int, 4>>(1);
  random_against_deque<DelayLine<int, 4>>(2);
}

TEST(DelayLine, MatchesADequeWithoutInlineEntries) {
  random_against_deque<DelayLine<int>>(3);
}

TEST(DelayLine, ReadyOnlyFromTheEntrysCycle) {
  DelayLine<int, 4> line;
  EXPECT_FALSE(line.ready(100));
  line.push(10, 7);
  EXPECT_FALSE(line.ready(9));
  EXPECT_TRUE(line.ready(10));
  EXPECT_TRUE(line.ready(11));
}

// A line holding entries inline, and one whose entries moved to the heap:
// copies equal the original, moves carry the contents and leave an empty
// line that works again.
TEST(DelayLine, CopiesAndMovesKeepTheEntriesInOrder) {
  for (int n : {3, 4, 5, 19}) {  // inline (3, 4 = full), heap (5, 19)
    DelayLine<int, 4> line;
    std::deque<std::pair<std::uint64_t, int>> model;
    // Wrap the head first: two pushed and popped.
    line.push(0, -1);
    line.push(0, -2);
    line.pop();
    line.pop();
    for (int i = 0; i < n; ++i) {
      line.push(static_cast<std::uint64_t>(i), 10 * i);
      model.emplace_back(static_cast<std::uint64_t>(i), 10 * i);
    }
    const DelayLine<int, 4> copy(line);
    expect_contents(copy, model);
    DelayLine<int, 4> assigned;
    assigned.push(5, 5);
    assigned = line;
    expect_contents(assigned, model);
    DelayLine<int, 4> moved(std::move(line));
    expect_contents(moved, model);
    EXPECT_TRUE(line.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    line.push(1, 1);            // and usable
    EXPECT_EQ(line.front().item, 1);
    DelayLine<int, 4> move_assigned;
    move_assigned = std::move(moved);
    expect_contents(move_assigned, model);
    // The copy is independent of the original.
    assigned.pop();
    expect_contents(copy, model);
  }
}

// The 8-byte flit: each field holds its whole range (seq 0..8191, vc 0..31,
// lane -1..127 of an int8) without disturbing the others, checked on every
// combination of each field's extremes and a middle value; a link or FIFO
// entry (arrival cycle and flit) is 16 bytes, and push returns the stored
// copy, which the crossbar retags in place.
TEST(Flit, FieldsKeepTheirRangesApartInEightBytes) {
  using ftsim::hw::Flit;
  static_assert(sizeof(ftsim::hw::DelayEntry<Flit>) == 16);
  const unsigned seqs[] = {0, 1, 4096, Flit::kMaxFlits - 1};
  const unsigned vcs[] = {0, 15, 31};
  const int lanes[] = {-1, 0, 63, 127};
  int checked = 0;
  for (unsigned seq : seqs)
    for (unsigned vc : vcs)
      for (int lane : lanes)
        for (int flags = 0; flags < 4; ++flags) {
          Flit f;
          f.packet = 0xFFFFFFFFu - seq;
          f.seq = static_cast<std::uint16_t>(seq);
          f.vc = static_cast<std::uint8_t>(vc);
          f.lane = static_cast<std::int8_t>(lane);
          f.head = flags & 1;
          f.tail = flags >> 1 & 1;
          EXPECT_EQ(f.packet, 0xFFFFFFFFu - seq);
          EXPECT_EQ(f.seq, seq);
          EXPECT_EQ(f.vc, vc);
          EXPECT_EQ(f.lane, lane);
          EXPECT_EQ(f.head, static_cast<unsigned>(flags & 1));
          EXPECT_EQ(f.tail, static_cast<unsigned>(flags >> 1 & 1));
          ++checked;
        }
  EXPECT_EQ(checked, 4 * 3 * 4 * 4);
  DelayLine<Flit, 4> line;
  Flit f;
  f.packet = 7;
  f.head = 1;
  Flit& stored = line.push(5, f);
  stored.vc = 3;
  stored.lane = 2;
  EXPECT_EQ(line.front().item.packet, 7U);
  EXPECT_EQ(line.front().item.vc, 3U);
  EXPECT_EQ(line.front().item.lane, 2);
  EXPECT_EQ(line.front().item.head, 1U);
  EXPECT_EQ(f.vc, 0U);  // the pushed flit itself is unchanged
}

}  // namespace
