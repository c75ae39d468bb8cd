#include "routing_logic/mikant_ft.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

namespace {
constexpr std::uint8_t kNoDetour = 0;
constexpr std::uint8_t kGnsPending = 1;
constexpr std::uint8_t kGdlPending = 2;
}  // namespace

void MikantFtRouting::check_topology(const Topology& topo) const {
  if (dynamic_cast<const Mikant*>(&topo) == nullptr)
    throw ConfigError(fmt::format("routing '{}' needs a mikant topology, got {}", m_name, topo.spec()));
}

void MikantFtRouting::on_configure() {
  m_mk = static_cast<const Mikant*>(&topology());
  m_shortest.configure(topology(), vcs());
}

void MikantFtRouting::route(const RouteQuery& q, RouteSet& out) const {
  const int k = m_mk->k();
  const RouterId w = q.router;
  const NodeId t = q.header->dst;
  const int lw = m_mk->level(w);
  const auto alive = [&](PortId p) {
    return (q.view.port_alive >> p & 1U) && topology().peer(w, p).kind != PortPeer::Kind::kUnconnected;
  };
  const std::uint8_t pending = q.header->state[0];
  if (pending != kNoDetour) {
    // Second step of a detour, at Y (level L_W - 1): up to a sibling of the
    // switch we came from, whose digit L_W - 1 is not the avoided one.
    const int avoid = q.header->state[1];
    for (int s = 0; s < k; ++s)
      if (s != avoid && alive(k + s)) out.add(RouteCandidate{k + s, all_vcs(), 0, false});
    return;
  }
  const PortId p = m_shortest.next_port(w, t);
  if (alive(p)) {
    out.add(RouteCandidate{p, all_vcs(), 0, false});
    return;
  }
  if (lw == 0) return;  // a level-0 switch has only node links below it: no detour
  const std::uint8_t used = q.header->state[2];
  if (used >> lw & 1U) return;
  if (p >= k && m_features.go_neighbor_switch) {
    for (int x = 0; x < k; ++x)
      if (alive(x)) out.add(RouteCandidate{x, all_vcs(), 0, false});
  } else if (p < k && m_features.go_down_level) {
    for (int x = 0; x < k; ++x)
      if (x != p && alive(x)) out.add(RouteCandidate{x, all_vcs(), 0, false});
  }
}

void MikantFtRouting::on_hop(PacketHeader& h, RouterId r, PortId port, VcId /*vc*/) const {
  const int k = m_mk->k();
  if (h.state[0] != kNoDetour) {  // the detour's up hop: done
    h.state[0] = kNoDetour;
    return;
  }
  const PortId p = m_shortest.next_port(r, h.dst);
  if (port == p) return;  // Algorithm 1's hop
  // A detour starts: remember the digit L_W - 1 of this switch, which the
  // switch reached by the up hop must not repeat, and mark the level used.
  const int lw = m_mk->level(r);
  h.state[0] = p >= k ? kGnsPending : kGdlPending;
  h.state[1] = static_cast<std::uint8_t>(m_mk->switch_digit(r, lw - 1));
  h.state[2] = static_cast<std::uint8_t>(h.state[2] | (1U << lw));
}

}  // namespace ftsim::routing
