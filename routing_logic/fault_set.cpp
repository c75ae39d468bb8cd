#include "routing_logic/fault_set.hpp"

#include <deque>

namespace ftsim::routing {

std::vector<std::uint64_t> alive_port_masks(const Topology& topo, const FaultSet& faults) {
  std::vector<std::uint64_t> m(topo.num_routers(), ~0ULL);
  for (LinkId l : faults.links) {
    const Link& lk = topo.link(l);
    m[lk.a] &= ~(1ULL << lk.a_port);
    if (!lk.b_is_node) m[lk.b] &= ~(1ULL << lk.b_port);
  }
  for (RouterId r : faults.routers) {
    m[r] = 0;
    for (PortId p = 0; p < topo.radix(r); ++p) {
      const PortPeer& pp = topo.peer(r, p);
      if (pp.kind == PortPeer::Kind::kRouter) m[pp.id] &= ~(1ULL << pp.port);
    }
  }
  return m;
}

std::vector<int> node_components(const Topology& topo, const FaultSet& faults) {
  const auto alive = alive_port_masks(topo, faults);
  std::vector<char> dead_router(topo.num_routers(), 0);
  for (RouterId r : faults.routers) dead_router[r] = 1;
  std::vector<int> rc(topo.num_routers(), -1);
  int comp = 0;
  for (RouterId s = 0; s < topo.num_routers(); ++s) {
    if (dead_router[s] || rc[s] >= 0) continue;
    std::deque<RouterId> q{s};
    rc[s] = comp;
    while (!q.empty()) {
      const RouterId r = q.front();
      q.pop_front();
      for (PortId p = 0; p < topo.radix(r); ++p) {
        const PortPeer& pp = topo.peer(r, p);
        if (pp.kind != PortPeer::Kind::kRouter || !(alive[r] >> p & 1U) || rc[pp.id] >= 0) continue;
        rc[pp.id] = comp;
        q.push_back(pp.id);
      }
    }
    ++comp;
  }
  std::vector<int> out(topo.num_nodes(), -1);
  for (NodeId n = 0; n < topo.num_nodes(); ++n) {
    const RouterId r = topo.node_router(n);
    if (dead_router[r]) continue;
    if (!topo.is_direct() && !(alive[r] >> topo.node_port(n) & 1U)) continue;  // node link failed
    out[n] = rc[r];
  }
  // A node cut off by its own link is its own component.
  for (NodeId n = 0; n < topo.num_nodes(); ++n)
    if (out[n] < 0 && !dead_router[topo.node_router(n)]) out[n] = comp++;
  return out;
}

}  // namespace ftsim::routing
