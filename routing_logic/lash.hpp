// LASH virtual layers for destination-based tables: the layering the DQR
// paper's tori use (dynamic-quick-reconfiguration.txt, section IV: "where
// [virtual channels] are used by the routing algorithm (e.g. LASH [20]) ...
// the virtual channels are divided into virtual layers such that the entire
// path is in one layer"; section V: LASH-routed tori). Pure C++.
#pragma once
#include <cstdint>
#include <vector>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing::dqr {

/// The channel id (layer 0) of the link leaving router r by port p:
/// 2 * link + (r == link.a ? 0 : 1); -1 for a node port or an unconnected
/// port. Layer l's copy is l * 2 * links + this.
int link_channel(const Topology& topo, RouterId r, PortId p);

/// The virtual layer of every flow: layer(s, d) = of_flow[s * nodes + d],
/// 0..count-1. A flow keeps its layer from source to destination (one
/// service level per path, as in InfiniBand), so a layer's channels are the
/// switch-to-switch links x that layer and the dependencies of different
/// layers never meet. count == 1 with of_flow empty: every flow in layer 0.
struct Layers {
  int count = 1;
  std::vector<std::uint8_t> of_flow;
  int of(NodeId s, NodeId d, int nodes) const {
    return of_flow.empty() ? 0 : of_flow[static_cast<std::size_t>(s) * static_cast<std::size_t>(nodes) + d];
  }
};

/// LASH layering (layered shortest path routing, Lysne et al.; OpenSM's
/// `lash` engine as the notes describe it, L3) of the paths the tables give:
/// switch pairs {a, b} are taken in order (a < b, by router id), and both
/// directions' paths (every node of a to every node of b and back) go into
/// the lowest layer whose channel dependency graph stays acyclic with their
/// turns; when none does, a new layer opens. OpenSM's later rebalancing of
/// pairs over the layers is not done (it moves no pair into a layer it was
/// refused from, so the count is the same). Paths inside one switch have no
/// turn and sit in layer 0. Throws ConfigError when the tables do not
/// deliver a flow, or when more than `max_layers` (1..255) layers would be
/// needed (InfiniBand has 16 service levels and up to 15 data VLs).
Layers lash_layers(const Topology& topo, const std::vector<std::vector<PortId>>& tables, int max_layers = 16);

/// Minimal dimension-order tables for LASH on a mesh or torus
/// (tables[router][node]): correct the lowest dimension first, the shorter
/// way round; on a ring of even size, where both ways are equally short,
/// go + when the current switch's coordinate is below the destination's and
/// - otherwise, so the two directions of a pair are mirror images. OpenSM's
/// lash computes its own minimal paths (on the 4x4 torus fixture they equal
/// its dor tables, which always go + on a tie); this tie rule needs fewer
/// layers on even tori. Throws ConfigError for other topologies.
std::vector<std::vector<PortId>> lash_tables(const Topology& topo);

}  // namespace ftsim::routing::dqr
