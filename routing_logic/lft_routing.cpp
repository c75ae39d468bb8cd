#include "routing_logic/lft_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace ftsim::routing {

void LftRouting::on_configure() {
  if (m_tables.empty())
    m_tables.assign(static_cast<std::size_t>(topology().num_routers()),
                    std::vector<PortId>(static_cast<std::size_t>(topology().num_nodes()), kNone));
}

void LftRouting::set_tables(std::vector<std::vector<PortId>> tables) {
  const Topology& t = topology();
  if (static_cast<int>(tables.size()) != t.num_routers())
    throw ConfigError(
        fmt::format("lft: {} switch tables for {} switches of {}", tables.size(), t.num_routers(), t.spec()));
  for (RouterId r = 0; r < t.num_routers(); ++r) {
    const auto& row = tables[static_cast<std::size_t>(r)];
    if (static_cast<int>(row.size()) != t.num_nodes())
      throw ConfigError(
          fmt::format("lft: switch {} has {} entries for {} nodes", t.router_label(r), row.size(), t.num_nodes()));
    for (PortId p : row)
      if (p != kNone && (p < 0 || p >= t.radix(r) || t.peer(r, p).kind == PortPeer::Kind::kUnconnected))
        throw ConfigError(
            fmt::format("lft: switch {} routes to port {}, not connected in {}", t.router_label(r), p, t.spec()));
  }
  m_tables = std::move(tables);
}

void LftRouting::route(const RouteQuery& q, RouteSet& out) const {
  const NodeId d = q.header->dst;
  PortId p = kNone;
  if (q.view.forwarding != nullptr && d < q.view.forwarding_size)
    p = q.view.forwarding[d];
  else if (!m_tables.empty())
    p = m_tables[static_cast<std::size_t>(q.router)][static_cast<std::size_t>(d)];
  if (p == kNone || !(q.view.port_alive >> p & 1U)) return;
  const PortPeer& pp = topology().peer(q.router, p);
  if (pp.kind == PortPeer::Kind::kNode) {
    if (pp.id == d) out.add(RouteCandidate{p, 1U, 0, false});
    return;
  }
  out.add(RouteCandidate{p, all_vcs(), 0, false});
}

}  // namespace ftsim::routing

namespace ftsim::routing {

std::vector<std::vector<PortId>> deterministic_tables(const RoutingRelation& rel) {
  const Topology& t = rel.topology();
  std::vector<std::vector<PortId>> out(static_cast<std::size_t>(t.num_routers()),
                                       std::vector<PortId>(static_cast<std::size_t>(t.num_nodes()), kNone));
  for (RouterId r = 0; r < t.num_routers(); ++r) {
    PortId inject = kNone;  // a node port of r, if it has one
    for (PortId p = 0; p < t.radix(r) && inject == kNone; ++p)
      if (t.peer(r, p).kind == PortPeer::Kind::kNode) inject = p;
    for (NodeId n = 0; n < t.num_nodes(); ++n) {
      PacketHeader h;
      h.src = r;
      h.dst = n;
      RouteQuery q;
      q.router = r;
      q.in_port = inject;
      q.injected_here = true;
      q.header = &h;
      RouteSet set;
      rel.route(q, set);
      if (set.size == 0) continue;
      for (const auto& c : set)
        if (c.port != set.items[0].port)
          throw ConfigError(fmt::format("routing '{}' offers more than one port at {} towards {}: it has no table form",
                                        rel.name(), t.router_label(r), t.node_label(n)));
      out[static_cast<std::size_t>(r)][static_cast<std::size_t>(n)] = set.items[0].port;
    }
  }
  return out;
}

std::vector<std::vector<PortId>> updown_tables(const Topology& t) {
  return updown_tables(t, std::vector<char>(static_cast<std::size_t>(t.num_links()), 0),
                       std::vector<char>(static_cast<std::size_t>(t.num_routers()), 0));
}

std::vector<std::vector<PortId>> updown_tables(const Topology& t, const std::vector<char>& dead_links,
                                               const std::vector<char>& dead_switches) {
  const auto routers = static_cast<std::size_t>(t.num_routers());
  constexpr int kInf = std::numeric_limits<int>::max();
  if (dead_links.size() != static_cast<std::size_t>(t.num_links()) || dead_switches.size() != routers)
    throw ConfigError(fmt::format("updn: masks for {} links and {} switches, the fabric has {} and {}",
                                  dead_links.size(), dead_switches.size(), t.num_links(), routers));
  auto dead_switch = [&](RouterId r) { return dead_switches[static_cast<std::size_t>(r)] != 0; };
  // A live switch-to-switch hop: both ends and the link alive.
  auto live_hop = [&](const PortPeer& pp) {
    return pp.kind == PortPeer::Kind::kRouter && !dead_switch(pp.id) &&
           (pp.link == kNone || !dead_links[static_cast<std::size_t>(pp.link)]);
  };
  // Levels from the roots.
  std::vector<int> level(routers, kInf);
  std::vector<RouterId> queue;
  for (RouterId r = 0; r < t.num_routers(); ++r) {
    if (dead_switch(r)) continue;
    bool has_node = false;
    for (PortId p = 0; p < t.radix(r); ++p) {
      const PortPeer& pp = t.peer(r, p);
      has_node |= pp.kind == PortPeer::Kind::kNode && !t.is_switch_endpoint(pp.id);
    }
    if (!has_node) queue.push_back(r);
  }
  for (RouterId r = 0; queue.empty() && r < t.num_routers(); ++r)
    if (!dead_switch(r)) queue.push_back(r);
  for (RouterId r : queue) level[static_cast<std::size_t>(r)] = 0;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const RouterId r = queue[i];
    for (PortId p = 0; p < t.radix(r); ++p) {
      const PortPeer& pp = t.peer(r, p);
      if (!live_hop(pp) || level[static_cast<std::size_t>(pp.id)] != kInf) continue;
      level[static_cast<std::size_t>(pp.id)] = level[static_cast<std::size_t>(r)] + 1;
      queue.push_back(pp.id);
    }
  }
  auto below = [&](RouterId x, RouterId y) {  // y is down from x
    const auto xi = static_cast<std::size_t>(x), yi = static_cast<std::size_t>(y);
    return level[yi] != level[xi] ? level[yi] > level[xi] : y > x;
  };
  std::vector<RouterId> by_key(routers);
  for (std::size_t i = 0; i < routers; ++i) by_key[i] = static_cast<RouterId>(i);
  std::sort(by_key.begin(), by_key.end(), [&](RouterId a, RouterId b) { return below(a, b); });  // roots first
  std::vector<std::vector<PortId>> out(routers, std::vector<PortId>(static_cast<std::size_t>(t.num_nodes()), kNone));
  std::vector<int> down(routers), any(routers);
  std::vector<PortId> ties;
  for (NodeId d = 0; d < t.num_nodes(); ++d) {
    const RouterId dr = t.node_router(d);
    if (dead_switch(dr)) continue;
    std::fill(down.begin(), down.end(), kInf);
    down[static_cast<std::size_t>(dr)] = 0;
    std::vector<RouterId> q{dr};
    for (std::size_t i = 0; i < q.size(); ++i)
      for (PortId p = 0; p < t.radix(q[i]); ++p) {
        const PortPeer& pp = t.peer(q[i], p);
        // pp.id reaches q[i] by a down hop when q[i] is below it.
        if (!live_hop(pp) || !below(pp.id, q[i]) || down[static_cast<std::size_t>(pp.id)] != kInf) continue;
        down[static_cast<std::size_t>(pp.id)] = down[static_cast<std::size_t>(q[i])] + 1;
        q.push_back(pp.id);
      }
    for (RouterId x : by_key) {  // roots first: every up neighbour is done
      const auto xi = static_cast<std::size_t>(x);
      auto& entry = out[xi][static_cast<std::size_t>(d)];
      ties.clear();
      if (dead_switch(x)) {
        any[xi] = kInf;
        continue;
      }
      if (level[xi] == kInf)
        throw ConfigError(fmt::format("updn: {} is cut off from the root switches", t.router_label(x)));
      if (x == dr) {
        any[xi] = 0;
        entry = t.node_port(d);
        continue;
      }
      if (down[xi] != kInf) {
        any[xi] = down[xi];
        for (PortId p = 0; p < t.radix(x); ++p) {
          const PortPeer& pp = t.peer(x, p);
          if (live_hop(pp) && below(x, pp.id) && down[static_cast<std::size_t>(pp.id)] == down[xi] - 1)
            ties.push_back(p);
        }
      } else {
        int best = kInf;
        for (PortId p = 0; p < t.radix(x); ++p) {
          const PortPeer& pp = t.peer(x, p);
          if (!live_hop(pp) || below(x, pp.id) || any[static_cast<std::size_t>(pp.id)] == kInf) continue;
          const int a = any[static_cast<std::size_t>(pp.id)] + 1;
          if (a < best) ties.clear();
          if (a <= best) {
            best = a;
            ties.push_back(p);
          }
        }
        any[xi] = best;
      }
      if (ties.empty()) {
        // A switch's own endpoint may be out of up*/down* reach (spine to
        // spine in a two-tier fat tree): left unrouted, as OpenSM's updn
        // leaves it (fixtures/opensm/ftsmall-updn: S0 has no entry for S1).
        if (t.is_switch_endpoint(d)) continue;
        throw ConfigError(fmt::format("updn: {} cannot reach {}", t.router_label(x), t.node_label(d)));
      }
      entry = ties[static_cast<std::size_t>(d) % ties.size()];  // spread destinations over equal ports
    }
  }
  return out;
}

}  // namespace ftsim::routing
