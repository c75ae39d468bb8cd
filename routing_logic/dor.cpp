#include "routing_logic/dor.hpp"

#include <fmt/format.h>

namespace ftsim::routing {

void RoutingRelation::configure(const Topology& topo, int vcs) {
  if (vcs < min_vcs() || vcs > 16)
    throw ConfigError(
        fmt::format("router.vcs={} is not allowed for routing '{}': allowed {}..16", vcs, name(), min_vcs()));
  check_topology(topo);
  if (topo.max_radix() > 64)
    throw ConfigError(fmt::format("topology {} has radix {}, more than the 64 ports a router supports", topo.spec(),
                                  topo.max_radix()));
  m_topo = &topo;
  m_vcs = vcs;
  m_all_vcs = (vcs >= 32) ? ~0U : ((1U << vcs) - 1U);
  on_configure();
}

void DorRouting::check_topology(const Topology& topo) const {
  const auto* c = dynamic_cast<const KAryNCube*>(&topo);
  if (c == nullptr)
    throw ConfigError(fmt::format("routing '{}' needs a mesh or torus topology, got {}", name(), topo.spec()));
  if (m_mode == Mode::kDateline && !c->torus())
    throw ConfigError(fmt::format("routing 'dor-dateline' needs a torus, got {}; use 'dor'", topo.spec()));
}

void DorRouting::on_configure() {
  m_cube = static_cast<const KAryNCube*>(&topology());
}

bool DorRouting::needs_bubble() const {
  return m_mode == Mode::kBubble && m_cube != nullptr && m_cube->torus();
}

DeadlockClaim DorRouting::deadlock_claim() const {
  DeadlockClaim c;
  switch (m_mode) {
    case Mode::kBubble:
      c.kind = DeadlockClaim::Kind::kAcyclicCdg;
      c.bubble_rings = needs_bubble();
      c.basis = c.bubble_rings ? "dimension order; bubble flow control breaks the ring cycles (Puente et al.)"
                               : "dimension order on a mesh (Dally and Seitz)";
      break;
    case Mode::kDateline:
      c.kind = DeadlockClaim::Kind::kAcyclicCdg;
      c.basis = "dimension order with dateline VC classes (Dally and Seitz)";
      break;
    case Mode::kUnprotected:
      break;  // claims nothing: the ring cycles stay on purpose
  }
  return c;
}

PortId DorRouting::next_port(RouterId r, NodeId dst) const {
  const int n = m_cube->dimensions();
  for (int d = 0; d < n; ++d) {
    // dor_direction, its table read only for the dimension to correct
    const int delta = m_cube->coord(dst, d) - m_cube->coord(r, d);
    if (delta != 0) return KAryNCube::port_of(d, m_cube->way(d, delta).sign > 0);
  }
  return KAryNCube::kLocalPort;
}

void DorRouting::route(const RouteQuery& q, RouteSet& out) const {
  const PortId p = next_port(q.router, q.header->dst);
  if (p == KAryNCube::kLocalPort) {
    out.add(RouteCandidate{p, 1U, 0, false});
    return;
  }
  if ((q.view.port_alive >> p & 1U) == 0) return;  // no route around a fault
  const int d = KAryNCube::dim_of(p);
  const bool plus = KAryNCube::is_plus(p);
  // Arrived travelling in the same direction of the same dimension?
  const bool same_ring = !q.injected_here && q.in_port == KAryNCube::port_of(d, !plus);
  if (!m_cube->torus() || m_mode == Mode::kUnprotected) {
    out.add(RouteCandidate{p, all_vcs(), 0, false});
    return;
  }
  if (m_mode == Mode::kBubble) {
    out.add(RouteCandidate{p, all_vcs(), 0, !same_ring});
    return;
  }
  // Dateline: lower half of the VCs until the wrap link of this dimension has
  // been crossed; the hop over the wrap link itself moves to the upper half.
  const int half = vcs() / 2;
  const std::uint32_t low = (1U << half) - 1U;
  const std::uint32_t high = all_vcs() & ~low;
  const bool was_high = same_ring && q.in_vc >= half;
  const int c = m_cube->coord(q.router, d);
  const bool crosses_wrap = plus ? c == m_cube->radix_of(d) - 1 : c == 0;
  out.add(RouteCandidate{p, (was_high || crosses_wrap) ? high : low, 0, false});
}

}  // namespace ftsim::routing
