// Kahn's algorithm (repeatedly remove vertices without incoming edges): an
// acyclicity test written independently of the library's DFS
// (ChannelDependencyGraph::find_cycle), for tests that check its verdicts.
#pragma once
#include <utility>
#include <vector>

namespace ftsim::test {

/// True when the directed graph on vertices 0..n-1 with edges `deps` (u, v)
/// has no cycle.
inline bool acyclic_deps(int n, const std::vector<std::pair<int, int>>& deps) {
  std::vector<std::vector<int>> succ(static_cast<std::size_t>(n));
  std::vector<int> indeg(static_cast<std::size_t>(n), 0);
  for (const auto& [u, v] : deps) {
    succ[static_cast<std::size_t>(u)].push_back(v);
    ++indeg[static_cast<std::size_t>(v)];
  }
  std::vector<int> ready;
  for (int v = 0; v < n; ++v)
    if (indeg[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
  int seen = 0;
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    ++seen;
    for (int w : succ[static_cast<std::size_t>(v)])
      if (--indeg[static_cast<std::size_t>(w)] == 0) ready.push_back(w);
  }
  return seen == n;
}

}  // namespace ftsim::test
