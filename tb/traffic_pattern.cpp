#include "tb/traffic_pattern.hpp"

#include <fmt/format.h>

#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;
using routing::NodeId;

TrafficPattern::TrafficPattern(const routing::Topology& topo, const TrafficSpec& spec) : m_topo(topo), m_spec(spec) {
  const int n = topo.num_nodes();
  while ((1 << m_bits) < n) ++m_bits;
  const bool pow2 = (1 << m_bits) == n;
  const std::string& p = spec.pattern;
  if ((p == "bit-complement" || p == "bit-reversal" || p == "shuffle" || p == "transpose") && !pow2)
    throw ConfigError(
        fmt::format("traffic.pattern = '{}' needs a power-of-two node count; {} has {} nodes", p, topo.spec(), n));
  if (p == "transpose" && m_bits % 2 != 0)
    throw ConfigError(fmt::format("traffic.pattern = 'transpose' needs 2^(2b) nodes; {} has {} nodes", topo.spec(), n));
  if (p == "hotspot")
    for (int h : spec.hotspot_nodes)
      if (h >= n) throw ConfigError(fmt::format("traffic.hotspot_nodes: node {} out of range 0..{}", h, n - 1));
  if (n < 2) throw ConfigError(fmt::format("topology {} has fewer than two nodes", topo.spec()));
  m_user = user_traffic_pattern(p);
  m_kind = m_user ? Kind::kUser : p == "uniform" ? Kind::kUniform : p == "hotspot" ? Kind::kHotspot : Kind::kPermutation;
  set_components(std::vector<int>(n, 0));
}

void TrafficPattern::set_components(const std::vector<int>& component_of_node) {
  m_comp = component_of_node;
  m_members.clear();
  for (NodeId i = 0; i < static_cast<NodeId>(m_comp.size()); ++i) {
    if (m_comp[i] < 0) continue;
    if (m_comp[i] >= static_cast<int>(m_members.size())) m_members.resize(m_comp[i] + 1);
    m_members[m_comp[i]].push_back(i);
  }
}

NodeId TrafficPattern::permutation(NodeId s) const {
  const std::string& p = m_spec.pattern;
  const int n = m_topo.num_nodes();
  const unsigned mask = (1U << m_bits) - 1U;
  const auto u = static_cast<unsigned>(s);
  if (p == "bit-complement") return static_cast<NodeId>(~u & mask);
  if (p == "bit-reversal") {
    unsigned r = 0;
    for (int i = 0; i < m_bits; ++i) r |= ((u >> i) & 1U) << (m_bits - 1 - i);
    return static_cast<NodeId>(r);
  }
  if (p == "shuffle") return static_cast<NodeId>(((u << 1) | (u >> (m_bits - 1))) & mask);
  if (p == "transpose") {
    const int h = m_bits / 2;
    const unsigned lo = u & ((1U << h) - 1U);
    return static_cast<NodeId>((lo << h) | (u >> h));
  }
  const auto* cube = dynamic_cast<const routing::KAryNCube*>(&m_topo);
  if (p == "tornado") {
    if (cube == nullptr) return (s + (n + 1) / 2 - 1) % n;
    NodeId d = 0;
    int stride = 1;
    for (int dim = 0; dim < cube->dimensions(); ++dim) {
      const int k = cube->radix_of(dim);
      d += ((cube->coord(s, dim) + (k + 1) / 2 - 1) % k) * stride;
      stride *= k;
    }
    return d;
  }
  if (p == "neighbor") {
    if (cube == nullptr) return (s + 1) % n;
    return cube->neighbour(s, 0, true);
  }
  return routing::kNone;
}

NodeId TrafficPattern::uniform(NodeId src, std::mt19937_64& rng) const {
  if (m_comp[src] < 0) return routing::kNone;
  const auto& mem = m_members[m_comp[src]];
  if (mem.size() < 2) return routing::kNone;
  std::uniform_int_distribution<std::size_t> pick(0, mem.size() - 2);
  std::size_t i = pick(rng);
  // Skip self by shifting the upper part of the range.
  if (mem[i] >= src) ++i;
  return mem[i];
}

NodeId TrafficPattern::destination(NodeId src, std::mt19937_64& rng) const {
  NodeId d;
  if (m_kind == Kind::kUniform) return uniform(src, rng);
  if (m_kind == Kind::kUser) {
    if (m_comp[src] < 0) return routing::kNone;
    d = m_user(src, m_topo, rng);
    if (d >= m_topo.num_nodes()) return routing::kNone;
  } else if (m_kind == Kind::kHotspot) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    if (u(rng) < m_spec.hotspot_fraction) {
      std::uniform_int_distribution<std::size_t> pick(0, m_spec.hotspot_nodes.size() - 1);
      d = m_spec.hotspot_nodes[pick(rng)];
    } else {
      return uniform(src, rng);
    }
  } else {
    d = permutation(src);
  }
  if (d == src || d < 0 || m_comp[src] < 0 || m_comp[d] != m_comp[src]) return routing::kNone;
  return d;
}

}  // namespace ftsim::tb
