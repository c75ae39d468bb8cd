// Trial analysis of routing success under random link faults (no timing):
// one packet walks the relation hop by hop from a random source to a random
// destination. Source of the method: mikant-link-fault-tolerance.txt, section 4.
#pragma once
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "routing_logic/fault_set.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::routing {

struct WalkResult {
  bool delivered = false;
  int links = 0;  ///< links traversed, node links included (the paper's distance)
};

/// Walks `relation` from node s to node d over the live ports `alive`
/// (alive_port_masks). At each switch the first candidate is taken (lowest
/// port, as the relation lists them) on the lowest VC of its mask, and the
/// header is updated with on_hop. Fails when a switch has no candidate, when a
/// node link of s or d is down, or after `max_hops` hops (a loop). `reroute`
/// (one state per router, kept by the caller across walks) is the switch-side
/// state of ADLR; nullptr walks without it.
WalkResult walk(const RoutingRelation& relation, const std::vector<std::uint64_t>& alive, NodeId s, NodeId d,
                int max_hops = 64, std::vector<RerouteState>* reroute = nullptr);

/// Shortest live path length in links (BFS), or -1: the "connectivity" bound.
int live_distance(const Topology& topo, const std::vector<std::uint64_t>& alive, NodeId s, NodeId d);

/// One row of `ftsim analyze routing-success`.
struct SuccessRow {
  std::string algorithm;
  int faults = 0;          ///< faulty links in each trial
  double fault_rate = -1;  ///< percent of links, when the rate variant is used
  long trials = 0;
  double success_ratio = 0;     ///< delivered / trials
  double mean_path_length = 0;  ///< links, over delivered trials (0 if none)
};

/// For every fault count: `trials` trials, each drawing a source, a distinct
/// destination and `faults` distinct faulty links uniformly (all links,
/// node links included) from a generator seeded by (seed, faults); every
/// algorithm routes the same trials. algorithm "connectivity" is the BFS
/// bound. Uses `threads` worker threads; results do not depend on them.
/// `progress(done, total)` (optional) is called, one call at a time, after
/// each fault count finishes: done and total count fault counts.
std::vector<SuccessRow> routing_success(const std::string& topology_spec, const std::vector<std::string>& algorithms,
                                        const std::vector<int>& fault_counts, long trials, std::uint64_t seed,
                                        int threads,
                                        const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace ftsim::routing
