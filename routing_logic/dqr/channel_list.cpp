#include "routing_logic/dqr/channel_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>

namespace ftsim::routing::dqr {

ChannelList::ChannelList(int channels, const std::vector<std::pair<int, int>>& deps)
    : m_succ(static_cast<std::size_t>(std::max(0, channels))), m_pos(m_succ.size(), -1) {
  for (const auto& [u, v] : deps) {
    if (u < 0 || v < 0 || u >= channels || v >= channels)
      throw std::invalid_argument(
          fmt::format("channel list: dependency {} -> {} out of range (channels 0..{})", u, v, channels - 1));
    auto& s = m_succ[static_cast<std::size_t>(u)];
    if (std::find(s.begin(), s.end(), v) == s.end()) {
      s.push_back(v);
      ++m_edges;
    }
  }
  // Kahn's algorithm, lowest free id first.
  std::vector<int> indeg(m_succ.size(), 0);
  for (const auto& s : m_succ)
    for (int v : s) ++indeg[static_cast<std::size_t>(v)];
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int c = 0; c < channels; ++c)
    if (indeg[static_cast<std::size_t>(c)] == 0) ready.push(c);
  while (!ready.empty()) {
    const int c = ready.top();
    ready.pop();
    m_pos[static_cast<std::size_t>(c)] = static_cast<int>(m_order.size());
    m_order.push_back(c);
    for (int v : m_succ[static_cast<std::size_t>(c)])
      if (--indeg[static_cast<std::size_t>(v)] == 0) ready.push(v);
  }
  if (static_cast<int>(m_order.size()) != channels) {
    // Every channel left has an unplaced predecessor: walk back to a cycle.
    std::vector<std::vector<int>> pred(m_succ.size());
    for (int u = 0; u < channels; ++u)
      for (int v : m_succ[static_cast<std::size_t>(u)])
        if (m_pos[static_cast<std::size_t>(u)] < 0) pred[static_cast<std::size_t>(v)].push_back(u);
    int c = 0;
    while (m_pos[static_cast<std::size_t>(c)] >= 0) ++c;
    std::vector<int> seen(m_succ.size(), -1), walk;
    while (seen[static_cast<std::size_t>(c)] < 0) {
      seen[static_cast<std::size_t>(c)] = static_cast<int>(walk.size());
      walk.push_back(c);
      c = pred[static_cast<std::size_t>(c)].front();
    }
    std::vector<int> cycle(walk.begin() + seen[static_cast<std::size_t>(c)], walk.end());
    std::reverse(cycle.begin(), cycle.end());
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());  // smallest id first
    throw std::invalid_argument(
        fmt::format("channel list: the dependencies are cyclic ({} -> {})", fmt::join(cycle, " -> "), cycle.front()));
  }
}

bool ChannelList::has_dependency(int u, int v) const {
  const auto& s = m_succ[static_cast<std::size_t>(u)];
  return std::find(s.begin(), s.end(), v) != s.end();
}

std::optional<std::vector<int>> ChannelList::channels_to_move(int u, int v,
                                                              const std::vector<std::pair<int, int>>* extra) const {
  if (u == v) return std::nullopt;
  const int top = position(u);
  if (position(v) > top) return std::vector<int>{};
  // Every dependency points upwards, so what v reaches without rising above
  // u lies between v and u in the list.
  if (m_mark.size() != m_pos.size() || m_stamp == std::numeric_limits<std::uint32_t>::max()) {
    m_mark.assign(m_pos.size(), 0);
    m_stamp = 0;
  }
  const std::uint32_t stamp = ++m_stamp;
  auto seen = [&](int c) { return m_mark[static_cast<std::size_t>(c)] == stamp; };
  std::vector<int> stack{v}, reached;
  m_mark[static_cast<std::size_t>(v)] = stamp;
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    if (c == u) return std::nullopt;
    reached.push_back(c);
    for (int w : m_succ[static_cast<std::size_t>(c)])
      if (!seen(w) && position(w) <= top) {
        m_mark[static_cast<std::size_t>(w)] = stamp;
        stack.push_back(w);
      }
    if (extra != nullptr)
      for (const auto& [a, w] : *extra)
        if (a == c && !seen(w) && position(w) <= top) {
          m_mark[static_cast<std::size_t>(w)] = stamp;
          stack.push_back(w);
        }
  }
  std::sort(reached.begin(), reached.end(), [this](int a, int b) { return position(a) < position(b); });
  return reached;
}

int ChannelList::enable(int u, int v) {
  if (u < 0 || v < 0 || u >= num_channels() || v >= num_channels())
    throw std::invalid_argument(fmt::format("channel list: turn {} -> {} out of range", u, v));
  const auto moved = channels_to_move(u, v);
  if (!moved) return -1;
  Undo* undo = nullptr;
  if (!m_trials.empty()) {
    undo = &m_journal.emplace_back();
    undo->u = u;
  }
  if (!moved->empty()) {
    // The window [pos v, pos u]: the channels that stay keep their order at
    // the bottom, the moved ones follow in their order, just above u.
    // channels_to_move left exactly the moved channels marked with the
    // current stamp (its search ran to the end without meeting u).
    const int lo = position(v), hi = position(u);
    auto moving = [&](int c) { return m_mark[static_cast<std::size_t>(c)] == m_stamp; };
    std::vector<int>& window = m_window;
    window.clear();
    for (int i = lo; i <= hi; ++i)
      if (!moving(m_order[static_cast<std::size_t>(i)])) window.push_back(m_order[static_cast<std::size_t>(i)]);
    window.insert(window.end(), moved->begin(), moved->end());
    if (undo != nullptr) {
      undo->lo = lo;
      undo->old.assign(m_order.begin() + lo, m_order.begin() + hi + 1);
    }
    for (int i = lo; i <= hi; ++i) {
      const int c = window[static_cast<std::size_t>(i - lo)];
      m_order[static_cast<std::size_t>(i)] = c;
      m_pos[static_cast<std::size_t>(c)] = i;
    }
  }
  if (!has_dependency(u, v)) {
    m_succ[static_cast<std::size_t>(u)].push_back(v);
    ++m_edges;
    if (undo != nullptr) undo->added = true;
  }
  return static_cast<int>(moved->size());
}

std::size_t ChannelList::begin_trial() {
  m_trials.push_back(m_journal.size());
  return m_journal.size();
}

void ChannelList::rollback(std::size_t mark) {
  if (m_trials.empty() || m_trials.back() != mark)
    throw std::logic_error("channel list: rollback of a trial that is not the innermost open one");
  while (m_journal.size() > mark) {
    Undo& undo = m_journal.back();
    if (undo.added) {
      m_succ[static_cast<std::size_t>(undo.u)].pop_back();
      --m_edges;
    }
    for (std::size_t i = 0; i < undo.old.size(); ++i) {
      const auto at = static_cast<std::size_t>(undo.lo) + i;
      m_order[at] = undo.old[i];
      m_pos[static_cast<std::size_t>(undo.old[i])] = static_cast<int>(at);
    }
    m_journal.pop_back();
  }
  m_trials.pop_back();
}

void ChannelList::remove_dependency(int u, int v) {
  if (!m_trials.empty()) throw std::logic_error("channel list: remove_dependency inside a trial");
  auto& s = m_succ[static_cast<std::size_t>(u)];
  const auto it = std::find(s.begin(), s.end(), v);
  if (it == s.end()) return;
  s.erase(it);
  --m_edges;
}

bool ChannelList::valid() const {
  std::vector<char> seen(m_pos.size(), 0);
  if (m_order.size() != m_pos.size()) return false;
  for (std::size_t i = 0; i < m_order.size(); ++i) {
    const int c = m_order[i];
    if (c < 0 || c >= num_channels() || seen[static_cast<std::size_t>(c)] ||
        m_pos[static_cast<std::size_t>(c)] != static_cast<int>(i))
      return false;
    seen[static_cast<std::size_t>(c)] = 1;
  }
  for (int u = 0; u < num_channels(); ++u)
    for (int v : m_succ[static_cast<std::size_t>(u)])
      if (!legal(u, v)) return false;
  return true;
}

}  // namespace ftsim::routing::dqr
