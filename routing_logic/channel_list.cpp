#include "routing_logic/channel_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
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
  std::vector<char> in(m_pos.size(), 0);
  std::vector<int> stack{v}, reached;
  in[static_cast<std::size_t>(v)] = 1;
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    if (c == u) return std::nullopt;
    reached.push_back(c);
    for (int w : m_succ[static_cast<std::size_t>(c)])
      if (!in[static_cast<std::size_t>(w)] && position(w) <= top) {
        in[static_cast<std::size_t>(w)] = 1;
        stack.push_back(w);
      }
    if (extra != nullptr)
      for (const auto& [a, w] : *extra)
        if (a == c && !in[static_cast<std::size_t>(w)] && position(w) <= top) {
          in[static_cast<std::size_t>(w)] = 1;
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
  if (!moved->empty()) {
    // The window [pos v, pos u]: the channels that stay keep their order at
    // the bottom, the moved ones follow in their order, just above u.
    const int lo = position(v), hi = position(u);
    std::vector<char> moving(m_pos.size(), 0);
    for (int c : *moved) moving[static_cast<std::size_t>(c)] = 1;
    std::vector<int> window;
    window.reserve(static_cast<std::size_t>(hi - lo + 1));
    for (int i = lo; i <= hi; ++i)
      if (!moving[static_cast<std::size_t>(m_order[static_cast<std::size_t>(i)])])
        window.push_back(m_order[static_cast<std::size_t>(i)]);
    window.insert(window.end(), moved->begin(), moved->end());
    for (int i = lo; i <= hi; ++i) {
      const int c = window[static_cast<std::size_t>(i - lo)];
      m_order[static_cast<std::size_t>(i)] = c;
      m_pos[static_cast<std::size_t>(c)] = i;
    }
  }
  if (!has_dependency(u, v)) {
    m_succ[static_cast<std::size_t>(u)].push_back(v);
    ++m_edges;
  }
  return static_cast<int>(moved->size());
}

void ChannelList::remove_dependency(int u, int v) {
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
