#include "routing_logic/lft_routing.hpp"

#include <fmt/format.h>

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
