#include "tables/immunet/immunet_tables.hpp"

#include <deque>

#include "routing_logic/dor.hpp"

namespace ftsim::tables {

using routing::KAryNCube;
using routing::PortPeer;

long AdaptiveTable::size_bits() const {
  int w = 0;
  while ((1L << w) < nodes() + 1L) ++w;
  return static_cast<long>(nodes()) * (m_ports + w);
}

int SsTable::ones() const {
  int n = 0;
  for (auto b : m_bits) n += b;
  return n;
}

int SsTable::next(int in) const {
  int found = -1;
  for (int o = 0; o < m_n; ++o)
    if (get(in, o)) {
      if (found >= 0) return -1;
      found = o;
    }
  return found;
}

SafeTable fault_free_safe_table(const KAryNCube& t, routing::RouterId r) {
  SafeTable s(t.num_nodes(), t.radix(r));
  for (routing::NodeId d = 0; d < t.num_nodes(); ++d) {
    routing::PortId p = KAryNCube::kLocalPort;
    for (int dim = 0; dim < t.dimensions(); ++dim) {
      const int dir = routing::dor_direction(t, r, d, dim);
      if (dir != 0) {
        p = KAryNCube::port_of(dim, dir > 0);
        break;
      }
    }
    s.set(d, 1ULL << p);
  }
  return s;
}

AdaptiveTable fault_free_adaptive_table(const KAryNCube& t, routing::RouterId r) {
  AdaptiveTable a(t.num_nodes(), t.radix(r));
  for (routing::NodeId d = 0; d < t.num_nodes(); ++d) {
    std::uint64_t mask = 0;
    int dist = 0;
    for (int dim = 0; dim < t.dimensions(); ++dim) {
      const int k = t.radix_of(dim);
      const int a0 = t.coord(r, dim);
      const int b0 = t.coord(d, dim);
      if (a0 == b0) continue;
      int fwd = b0 - a0;
      int bwd = a0 - b0;
      if (t.torus()) {
        fwd = (fwd + k) % k;
        bwd = (bwd + k) % k;
      }
      if (fwd > 0 && (bwd <= 0 || fwd <= bwd)) mask |= 1ULL << KAryNCube::port_of(dim, true);
      if (bwd > 0 && (fwd <= 0 || bwd <= fwd)) mask |= 1ULL << KAryNCube::port_of(dim, false);
      dist += (fwd > 0 && (bwd <= 0 || fwd <= bwd)) ? fwd : bwd;
    }
    if (mask == 0) mask = 1ULL << KAryNCube::kLocalPort;
    a.set(d, mask, dist);
  }
  return a;
}

SsTable fault_free_ss_table(const KAryNCube& t) {
  SsTable ss(2 * t.dimensions());
  for (int dim = 0; dim < t.dimensions(); ++dim) {
    ss.set(ss_index(KAryNCube::port_of(dim, false)), ss_index(KAryNCube::port_of(dim, true)), true);
    ss.set(ss_index(KAryNCube::port_of(dim, true)), ss_index(KAryNCube::port_of(dim, false)), true);
  }
  return ss;
}

SpanningTree emergency_tree(const routing::Topology& t, const routing::FaultSet& faults, routing::RouterId root) {
  const auto alive = routing::alive_port_masks(t, faults);
  SpanningTree tree;
  tree.root = root;
  tree.parent_port.assign(t.num_routers(), -1);
  tree.children.assign(t.num_routers(), {});
  tree.member.assign(t.num_routers(), 0);
  for (routing::RouterId r : faults.routers)
    if (r == root) return tree;
  tree.member[root] = 1;
  std::deque<routing::RouterId> q{root};
  while (!q.empty()) {
    const routing::RouterId r = q.front();
    q.pop_front();
    for (routing::PortId p = 0; p < t.radix(r); ++p) {
      const PortPeer& pp = t.peer(r, p);
      if (pp.kind != PortPeer::Kind::kRouter || !(alive[r] >> p & 1U) || tree.member[pp.id]) continue;
      tree.member[pp.id] = 1;
      tree.parent_port[pp.id] = pp.port;
      tree.children[r].push_back(p);
      q.push_back(pp.id);
    }
  }
  return tree;
}

SsTable tour_ss_table(const routing::Topology& t, const SpanningTree& tree, routing::RouterId r) {
  SsTable ss(t.radix(r) - 1);
  if (!tree.member[r]) return ss;
  std::vector<routing::PortId> cyc;
  if (tree.parent_port[r] >= 0) cyc.push_back(tree.parent_port[r]);
  for (auto c : tree.children[r]) cyc.push_back(c);
  if (cyc.empty()) return ss;  // a lone root
  // Entering from cyc[i] leaves by cyc[i+1] (cyclically): parent -> first
  // child -> ... -> last child -> parent. A leaf (only a parent) sends back.
  for (std::size_t i = 0; i < cyc.size(); ++i) ss.set(ss_index(cyc[i]), ss_index(cyc[(i + 1) % cyc.size()]), true);
  return ss;
}

std::vector<routing::RouterId> trace_safe_ring(const routing::Topology& t, const std::vector<SsTable>& ss,
                                               routing::RouterId start, routing::PortId entry_port) {
  std::vector<routing::RouterId> ring;
  routing::RouterId r = start;
  routing::PortId in = entry_port;
  const std::size_t limit = 4U * static_cast<std::size_t>(t.num_routers()) * t.max_radix() + 4;
  for (std::size_t step = 0; step < limit; ++step) {
    ring.push_back(r);
    const int out = ss[r].next(ss_index(in));
    if (out < 0) return {};
    const PortPeer& pp = t.peer(r, ss_port(out));
    if (pp.kind != PortPeer::Kind::kRouter) return {};
    r = pp.id;
    in = pp.port;
    if (r == start && in == entry_port) return ring;
  }
  return {};
}

std::vector<AdaptiveTable> reference_adaptive_tables(const routing::Topology& t, const routing::FaultSet& faults) {
  const auto alive = routing::alive_port_masks(t, faults);
  std::vector<char> dead(t.num_routers(), 0);
  for (auto r : faults.routers) dead[r] = 1;
  std::vector<AdaptiveTable> out;
  for (routing::RouterId r = 0; r < t.num_routers(); ++r) out.emplace_back(t.num_nodes(), t.radix(r));
  for (routing::NodeId d = 0; d < t.num_nodes(); ++d) {
    const routing::RouterId dr = t.node_router(d);
    if (dead[dr]) continue;
    std::vector<int> dist(t.num_routers(), -1);
    std::deque<routing::RouterId> q{dr};
    dist[dr] = 0;
    while (!q.empty()) {
      const auto r = q.front();
      q.pop_front();
      for (routing::PortId p = 0; p < t.radix(r); ++p) {
        const PortPeer& pp = t.peer(r, p);
        if (pp.kind != PortPeer::Kind::kRouter || !(alive[r] >> p & 1U) || dist[pp.id] >= 0) continue;
        dist[pp.id] = dist[r] + 1;
        q.push_back(pp.id);
      }
    }
    for (routing::RouterId r = 0; r < t.num_routers(); ++r) {
      if (dist[r] < 0) continue;
      std::uint64_t mask = 0;
      if (r == dr) mask = 1ULL << t.node_port(d);
      for (routing::PortId p = 0; p < t.radix(r); ++p) {
        const PortPeer& pp = t.peer(r, p);
        if (pp.kind == PortPeer::Kind::kRouter && (alive[r] >> p & 1U) && dist[pp.id] == dist[r] - 1) mask |= 1ULL << p;
      }
      out[r].set(d, mask, dist[r]);
    }
  }
  return out;
}

}  // namespace ftsim::tables
