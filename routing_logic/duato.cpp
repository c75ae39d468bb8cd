#include "routing_logic/duato.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

void DuatoRouting::check_topology(const Topology& topo) const {
  if (dynamic_cast<const KAryNCube*>(&topo) == nullptr)
    throw ConfigError(fmt::format("routing 'duato' needs a mesh or torus topology, got {}", topo.spec()));
}

void DuatoRouting::on_configure() {
  m_cube = static_cast<const KAryNCube*>(&topology());
  m_escape.configure(topology(), 1);
}

void DuatoRouting::route(const RouteQuery& q, RouteSet& out) const {
  const NodeId dst = q.header->dst;
  if (q.router == dst) {
    out.add(RouteCandidate{KAryNCube::kLocalPort, 1U, 0, false});
    return;
  }
  const std::uint32_t adaptive = all_vcs() & ~1U;
  for (int d = 0; d < m_cube->dimensions(); ++d) {
    const int dir = dor_direction(*m_cube, q.router, dst, d);
    if (dir == 0) continue;
    const PortId p = KAryNCube::port_of(d, dir > 0);
    if (q.view.port_alive >> p & 1U) out.add(RouteCandidate{p, adaptive, 0, false});
    // The other direction is minimal too when the distance is exactly k/2.
    if (m_cube->torus()) {
      const int k = m_cube->radix_of(d);
      const int fwd = (m_cube->coord(dst, d) - m_cube->coord(q.router, d) + k) % k;
      if (2 * fwd == k) {
        const PortId p2 = KAryNCube::port_of(d, false);
        if (q.view.port_alive >> p2 & 1U) out.add(RouteCandidate{p2, adaptive, 0, false});
      }
    }
  }
  // Escape candidate: the DOR hop on VC 0. Entering a ring needs the bubble
  // unless the packet is already on VC 0 of the same ring.
  RouteQuery eq = q;
  if (vc_class(q.in_vc) != VcClass::kEscape) eq.injected_here = true;  // from the adaptive network: ring entry
  RouteSet esc;
  m_escape.route(eq, esc);
  for (const RouteCandidate& c : esc) out.add(RouteCandidate{c.port, 1U, 1, c.enters_ring});
}

}  // namespace ftsim::routing
