#include "routing_logic/cdg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::routing {

int ChannelDependencyGraph::num_edges() const {
  int e = 0;
  for (const auto& v : m_adj) e += static_cast<int>(v.size());
  return e;
}

void ChannelDependencyGraph::add_edge(int from, int to) {
  auto& v = m_adj[from];
  if (std::find(v.begin(), v.end(), to) == v.end()) v.push_back(to);
}

ChannelRef ChannelDependencyGraph::channel(int id) const {
  return ChannelRef{id / m_vcs / m_max_radix, (id / m_vcs) % m_max_radix, id % m_vcs};
}

std::vector<int> ChannelDependencyGraph::find_cycle() const {
  // Iterative DFS with colours; returns the first back-edge cycle found.
  const int n = num_channels();
  std::vector<char> colour(n, 0);
  std::vector<int> parent(n, -1);
  std::vector<std::pair<int, std::size_t>> stack;
  for (int s = 0; s < n; ++s) {
    if (colour[s] != 0) continue;
    stack.emplace_back(s, 0);
    colour[s] = 1;
    while (!stack.empty()) {
      auto& [u, i] = stack.back();
      if (i < m_adj[u].size()) {
        const int v = m_adj[u][i++];
        if (colour[v] == 0) {
          colour[v] = 1;
          parent[v] = u;
          stack.emplace_back(v, 0);
        } else if (colour[v] == 1) {
          std::vector<int> cyc{v};
          for (int x = u; x != v; x = parent[x]) cyc.push_back(x);
          std::reverse(cyc.begin() + 1, cyc.end());
          return cyc;
        }
      } else {
        colour[u] = 2;
        stack.pop_back();
      }
    }
  }
  return {};
}

std::string describe_channel(const Topology& topo, const ChannelRef& c) {
  return fmt::format("router {} port {} vc {}", topo.router_label(c.router), topo.port_name(c.router, c.port), c.vc);
}

namespace {

struct State {
  RouterId router;
  PortId in_port;
  VcId in_vc;
  int held;  // channel the packet holds (plain) or last escape channel (extended); -1 none
  PacketHeader header;
  bool operator==(const State& o) const {
    return router == o.router && in_port == o.in_port && in_vc == o.in_vc && held == o.held && header == o.header;
  }
};

struct StateHash {
  std::size_t operator()(const State& s) const {
    std::size_t h = static_cast<std::size_t>(s.router) * 1000003U ^ static_cast<std::size_t>(s.in_port) * 9176U ^
                    static_cast<std::size_t>(s.in_vc) * 131U ^ static_cast<std::size_t>(s.held + 1) * 2654435761U;
    h = h * 31U + s.header.moves;
    for (auto b : s.header.state.bytes()) h = h * 31U + b;
    return h;
  }
};

}  // namespace

ChannelDependencyGraph build_cdg(const RoutingRelation& relation, const FaultSet& faults, const CdgOptions& options) {
  const Topology& topo = relation.topology();
  const int vcs = relation.vcs();
  ChannelDependencyGraph g(topo.num_routers() * topo.max_radix() * vcs, topo.max_radix(), vcs);
  const auto alive = alive_port_masks(topo, faults);
  const auto comp = node_components(topo, faults);

  std::unordered_set<State, StateHash> seen;
  std::vector<State> work;
  RouteSet cands;
  for (NodeId s = 0; s < topo.num_nodes(); ++s) {
    if (comp[s] < 0) continue;
    for (NodeId d = 0; d < topo.num_nodes(); ++d) {
      if (d == s || comp[d] != comp[s]) continue;
      ++g.pairs;
      seen.clear();
      work.clear();
      PacketHeader h;
      h.src = s;
      h.dst = d;
      const std::uint32_t inj = relation.injection_vcs();
      for (VcId v = 0; v < vcs; ++v)
        if (inj >> v & 1U) {
          State st{topo.node_router(s), topo.node_port(s), v, -1, h};
          if (seen.insert(st).second) work.push_back(st);
        }
      bool delivered = false;
      bool dead_end = false;
      while (!work.empty()) {
        const State st = work.back();
        work.pop_back();
        RouteQuery q;
        q.router = st.router;
        q.in_port = st.in_port;
        q.in_vc = st.in_vc;
        q.injected_here = topo.peer(st.router, st.in_port).kind == PortPeer::Kind::kNode;
        q.header = &st.header;
        q.view.port_alive = alive[st.router];
        cands.clear();
        relation.route(q, cands);
        if (cands.size == 0) dead_end = true;
        for (const RouteCandidate& c : cands) {
          const PortPeer& pp = topo.peer(st.router, c.port);
          if (pp.kind == PortPeer::Kind::kNode) {
            if (pp.id == d)
              delivered = true;
            else
              dead_end = true;  // ejected at the wrong node
            continue;
          }
          if (pp.kind != PortPeer::Kind::kRouter || !(alive[st.router] >> c.port & 1U)) {
            dead_end = true;
            continue;
          }
          for (VcId v = 0; v < vcs; ++v) {
            if (!(c.vc_mask >> v & 1U)) continue;
            const ChannelRef out{st.router, c.port, v};
            const int cid = g.channel_id(out);
            int held = cid;
            if (options.escape_extended) {
              if (relation.vc_class(v) == VcClass::kEscape) {
                if (st.held >= 0 && (!options.keep_edge || options.keep_edge(g.channel(st.held), out)))
                  g.add_edge(st.held, cid);
              } else {
                held = options.vct ? -1 : st.held;
              }
            } else if (st.held >= 0 && (!options.keep_edge || options.keep_edge(g.channel(st.held), out))) {
              g.add_edge(st.held, cid);
            }
            State nx{pp.id, pp.port, v, held, st.header};
            if (c.counts_move && nx.header.moves < 255) ++nx.header.moves;
            relation.on_hop(nx.header, st.router, c.port, v);
            if (seen.insert(nx).second) work.push_back(nx);
          }
        }
      }
      if (!delivered) ++g.undelivered_pairs;
      if (dead_end) ++g.dead_end_pairs;
    }
  }
  return g;
}

}  // namespace ftsim::routing

namespace ftsim::routing {

bool same_ring(const KAryNCube& cube, const ChannelRef& a, const ChannelRef& b) {
  return a.port == b.port &&
         cube.neighbour(a.router, KAryNCube::dim_of(a.port), KAryNCube::is_plus(a.port)) == b.router;
}

DeadlockCheck check_deadlock_claim(const RoutingRelation& relation, const FaultSet& faults, bool vct) {
  DeadlockCheck out;
  out.claim = relation.deadlock_claim();
  if (out.claim.kind == DeadlockClaim::Kind::kNone)
    throw ConfigError(fmt::format(
        "sim.check_deadlock_freedom: routing '{}' makes no deadlock-freedom claim the channel dependency graph can "
        "check (relations with one: dor, dor-dateline, duato, updown, mikant-shortest)",
        relation.name()));
  CdgOptions opt;
  opt.escape_extended = out.claim.kind == DeadlockClaim::Kind::kAcyclicEscapeCdg;
  opt.vct = vct;
  const auto* cube = dynamic_cast<const KAryNCube*>(&relation.topology());
  if (out.claim.bubble_rings) {
    if (cube == nullptr)
      throw ConfigError(fmt::format("routing '{}': bubble rings claimed on a topology without rings ({})",
                                    relation.name(), relation.topology().spec()));
    // A dependency between two consecutive channels of one ring (same port,
    // next router along it) is covered by bubble flow control.
    opt.keep_edge = [cube](const ChannelRef& a, const ChannelRef& b) { return !same_ring(*cube, a, b); };
  }
  const ChannelDependencyGraph g = build_cdg(relation, faults, opt);
  out.channels = g.num_channels();
  out.edges = g.num_edges();
  for (int c : g.find_cycle()) out.cycle.push_back(describe_channel(relation.topology(), g.channel(c)));
  out.acyclic = out.cycle.empty();
  return out;
}

}  // namespace ftsim::routing
