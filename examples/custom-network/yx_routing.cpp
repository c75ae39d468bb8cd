#include "yx_routing.hpp"

namespace example {

using ftsim::routing::KAryNCube;

std::atomic<std::uint64_t> YxRouting::s_calls{0};

void YxRouting::check_topology(const ftsim::routing::Topology& topo) const {
  const auto* mesh = dynamic_cast<const KAryNCube*>(&topo);
  if (mesh == nullptr || mesh->torus() || mesh->dimensions() != 2)
    throw ftsim::ConfigError("routing 'yx' needs a 2-D mesh (topology mesh:KxK)");
}

void YxRouting::route(const ftsim::routing::RouteQuery& q, ftsim::routing::RouteSet& out) const {
  ++s_calls;
  const auto& mesh = static_cast<const KAryNCube&>(topology());
  const int dst = q.header->dst;
  ftsim::routing::PortId port = KAryNCube::kLocalPort;
  for (int d : {1, 0}) {  // Y first, then X
    const int here = mesh.coord(q.router, d);
    const int there = mesh.coord(dst, d);
    if (here != there) {
      port = KAryNCube::port_of(d, there > here);
      break;
    }
  }
  if (port == KAryNCube::kLocalPort) {
    out.add({port, 1U, 0, false});  // ejection
    return;
  }
  if ((q.view.port_alive >> port & 1U) == 0) return;  // no route around a fault
  out.add({port, all_vcs(), 0, false});
}

}  // namespace example
