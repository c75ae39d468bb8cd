#include "routing_logic/lash.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/config_error.hpp"
#include "routing_logic/dqr/channel_list.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/lft_routing.hpp"

namespace ftsim::routing::dqr {

int link_channel(const Topology& topo, RouterId r, PortId p) {
  const PortPeer& pp = topo.peer(r, p);
  if (pp.kind != PortPeer::Kind::kRouter || pp.link == kNone) return -1;
  return 2 * pp.link + (topo.link(pp.link).a == r ? 0 : 1);
}

Layers lash_layers(const Topology& topo, const std::vector<std::vector<PortId>>& tables, int max_layers) {
  if (max_layers < 1 || max_layers > 255)
    throw ConfigError(fmt::format("lash: max_layers {} out of range 1..255", max_layers));
  const int nodes = topo.num_nodes();
  const int channels = 2 * topo.num_links();
  const std::vector<char> alive(static_cast<std::size_t>(topo.num_links()), 0);
  auto channel = [&](RouterId r, PortId p) { return link_channel(topo, r, p); };
  std::vector<std::vector<NodeId>> nodes_at(static_cast<std::size_t>(topo.num_routers()));
  for (NodeId n = 0; n < nodes; ++n) nodes_at[static_cast<std::size_t>(topo.node_router(n))].push_back(n);

  Layers out;
  out.count = 1;
  out.of_flow.assign(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nodes), 0);
  std::vector<ChannelList> layer{ChannelList(channels, {})};
  std::vector<std::pair<int, int>> turns, added;
  auto trace = [&](NodeId s, NodeId d) {
    int prev = -1;
    const bool ok = follow_tables(topo, tables, alive, topo.node_router(s), d, [&](RouterId r, PortId p) {
      const int c = channel(r, p);
      if (prev >= 0) turns.emplace_back(prev, c);
      prev = c;
    });
    if (!ok)
      throw ConfigError(
          fmt::format("lash: the tables do not deliver {} -> {}", topo.node_label(s), topo.node_label(d)));
  };
  for (RouterId a = 0; a < topo.num_routers(); ++a)
    for (RouterId b = a + 1; b < topo.num_routers(); ++b) {
      const auto& na = nodes_at[static_cast<std::size_t>(a)];
      const auto& nb = nodes_at[static_cast<std::size_t>(b)];
      if (na.empty() || nb.empty()) continue;
      turns.clear();
      for (NodeId s : na)
        for (NodeId d : nb) {
          trace(s, d);
          trace(d, s);
        }
      // The lowest layer that takes every turn; a refusal undoes the trial.
      int chosen = -1;
      for (int l = 0; l < out.count && chosen < 0; ++l) {
        ChannelList& list = layer[static_cast<std::size_t>(l)];
        added.clear();
        bool ok = true;
        for (const auto& [u, v] : turns) {
          if (list.has_dependency(u, v)) continue;
          if (list.enable(u, v) < 0) {
            ok = false;
            break;
          }
          added.emplace_back(u, v);
        }
        if (ok) {
          chosen = l;
        } else {
          for (const auto& [u, v] : added) list.remove_dependency(u, v);
        }
      }
      if (chosen < 0) {
        if (out.count == max_layers)
          throw ConfigError(fmt::format("lash: the paths of {} and {} need more than {} layers", topo.router_label(a),
                                        topo.router_label(b), max_layers));
        try {
          layer.emplace_back(channels, turns);
        } catch (const std::invalid_argument& e) {
          throw ConfigError(fmt::format("lash: the paths between {} and {} alone are cyclic ({})", topo.router_label(a),
                                        topo.router_label(b), e.what()));
        }
        chosen = out.count++;
      }
      for (NodeId s : na)
        for (NodeId d : nb) {
          out.of_flow[static_cast<std::size_t>(s) * static_cast<std::size_t>(nodes) + d] =
              static_cast<std::uint8_t>(chosen);
          out.of_flow[static_cast<std::size_t>(d) * static_cast<std::size_t>(nodes) + s] =
              static_cast<std::uint8_t>(chosen);
        }
    }
  return out;
}

std::vector<std::vector<PortId>> lash_tables(const Topology& topo) {
  const auto* cube = dynamic_cast<const KAryNCube*>(&topo);
  if (cube == nullptr) throw ConfigError(fmt::format("lash: {} is not a mesh or torus", topo.spec()));
  std::vector<std::vector<PortId>> t(static_cast<std::size_t>(topo.num_routers()),
                                     std::vector<PortId>(static_cast<std::size_t>(topo.num_nodes()), kNone));
  for (RouterId r = 0; r < topo.num_routers(); ++r)
    for (NodeId n = 0; n < topo.num_nodes(); ++n) {
      const RouterId dr = topo.node_router(n);
      PortId p = topo.node_port(n);
      for (int dim = 0; dim < cube->dimensions(); ++dim) {
        const int a = cube->coord(r, dim), b = cube->coord(dr, dim), k = cube->radix_of(dim);
        if (a == b) continue;
        bool plus = b > a;
        if (cube->torus()) {
          const int ahead = ((b - a) % k + k) % k;  // hops going +
          plus = 2 * ahead < k || (2 * ahead == k && a < b);
        }
        p = KAryNCube::port_of(dim, plus);
        break;
      }
      t[static_cast<std::size_t>(r)][static_cast<std::size_t>(n)] = p;
    }
  return t;
}

}  // namespace ftsim::routing::dqr
