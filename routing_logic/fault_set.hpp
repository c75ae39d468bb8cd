// A static set of failed links and routers, and the per-router view of it.
#pragma once
#include <cstdint>
#include <vector>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// Failed links (bidirectional) and failed routers (all their links).
struct FaultSet {
  std::vector<LinkId> links;
  std::vector<RouterId> routers;
  bool empty() const { return links.empty() && routers.empty(); }
};

/// Per router, bit p set when port p leads to a live link and live peer.
/// Ports with nothing attached stay set (relations never pick them).
std::vector<std::uint64_t> alive_port_masks(const Topology& topo, const FaultSet& faults);

/// Nodes whose router is alive and that can reach each other over live links.
/// Returns, per node, its component number, or -1 for a dead node.
std::vector<int> node_components(const Topology& topo, const FaultSet& faults);

}  // namespace ftsim::routing
