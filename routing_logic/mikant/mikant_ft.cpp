#include "routing_logic/mikant/mikant_ft.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

namespace {
constexpr std::uint8_t kNoDetour = 0;
constexpr std::uint8_t kGnsPending = 1;  // at Y: up to a sibling of W
constexpr std::uint8_t kGdlPending = 2;  // at Y: up to a sibling of W
constexpr std::uint8_t kTtBack = 3;      // across: back to W's group, not to W
constexpr std::uint8_t kXtDown = 4;      // across: go down for a neighbour switch
constexpr std::uint8_t kXtUp = 5;        // below: up to digit n-3 != saved W_{n-3}
constexpr std::uint8_t kXtBack = 6;      // across again: back to W's group, not W_{n-2}
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
  const auto hs = q.header->state.get<MikantHeader>();
  const std::uint8_t pending = hs.pending;
  if (pending == kGnsPending || pending == kGdlPending || pending == kXtUp) {
    // At Y (one level down): up to a sibling of the switch we came from,
    // whose digit is not the avoided one.
    const int avoid = hs.avoid_digit;
    for (int s = 0; s < k; ++s)
      if (s != avoid && alive(k + s)) out.add(RouteCandidate{k + s, all_vcs(), 0, false});
    return;
  }
  if (pending == kTtBack || pending == kXtBack) {
    const int avoid = hs.saved_w_top;  // never back to W itself
    for (int b = 0; b < k; ++b)
      if (b != avoid && alive(k + b)) out.add(RouteCandidate{k + b, all_vcs(), 0, false});
    return;
  }
  if (pending == kXtDown) {
    for (int x = 0; x < k; ++x)
      if (alive(x)) out.add(RouteCandidate{x, all_vcs(), 0, false});
    return;
  }
  const PortId p = m_shortest.next_port(w, t);
  if (alive(p)) {
    out.add(RouteCandidate{p, all_vcs(), 0, false});
    return;
  }
  const std::uint8_t used = hs.used_levels;
  const bool level_free = lw > 0 && !(used >> lw & 1U);  // level 0 has only node links below
  if (p >= k && m_features.go_neighbor_switch && level_free) {
    for (int x = 0; x < k; ++x)
      if (alive(x)) out.add(RouteCandidate{x, all_vcs(), 0, false});
  } else if (p < k && m_features.go_down_level && level_free) {
    for (int x = 0; x < k; ++x)
      if (x != p && alive(x)) out.add(RouteCandidate{x, all_vcs(), 0, false});
  }
  // Across the groups with a wrong digit: Three-Turn or X-Turns, once per packet.
  const bool crossing = lw == m_mk->n() - 2 && p >= k && m_mk->group(w) != m_mk->node_group(t);
  const bool xt = m_features.x_turns && m_mk->n() >= 3;
  if (crossing && (m_features.three_turn || xt) && hs.crossed_once == 0) {
    for (int a = 0; a < k; ++a)
      if (k + a != p && alive(k + a)) out.add(RouteCandidate{k + a, all_vcs(), 0, false});
  }
}

void MikantFtRouting::on_hop(PacketHeader& h, RouterId r, PortId port, VcId /*vc*/) const {
  const int k = m_mk->k();
  const int lw = m_mk->level(r);
  auto s = h.state.get<MikantHeader>();
  switch (s.pending) {
    case kGnsPending:
    case kGdlPending:
    case kTtBack:
    case kXtBack:
      s.pending = kNoDetour;  // the detour's last step: Algorithm 1 again
      h.state.set(s);
      return;
    case kXtDown:
      s.pending = kXtUp;  // the up hop must leave W's digit n-3 (saved in avoid_digit)
      h.state.set(s);
      return;
    case kXtUp:
      s.pending = kXtBack;
      h.state.set(s);
      return;
    default:
      break;
  }
  const PortId p = m_shortest.next_port(r, h.dst);
  if (port == p) return;  // Algorithm 1's hop
  if (port < k) {
    // GNS or GDL starts: remember the digit L_W - 1 of this switch, which the
    // switch reached by the up hop must not repeat, and mark the level used.
    s.pending = p >= k ? kGnsPending : kGdlPending;
    s.avoid_digit = static_cast<std::uint8_t>(m_mk->switch_digit(r, lw - 1));
    s.used_levels = static_cast<std::uint8_t>(s.used_levels | (1U << lw));
    h.state.set(s);
    return;
  }
  // Across with a wrong digit: Three-Turn or X-Turns starts; save W_{n-2}
  // (and W_{n-3} for the neighbour switch of X-Turns).
  s.crossed_once = 1;
  s.saved_w_top = static_cast<std::uint8_t>(m_mk->switch_digit(r, m_mk->n() - 2));
  if (m_features.x_turns) {
    s.pending = kXtDown;
    s.avoid_digit = static_cast<std::uint8_t>(m_mk->switch_digit(r, m_mk->n() - 3));
  } else {
    s.pending = kTtBack;
  }
  h.state.set(s);
}

}  // namespace ftsim::routing
