// Channel dependency graph (CDG) of a routing relation under a fault set.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "routing_logic/fault_set.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::routing {

/// A channel is a (router, output port, VC) triple on a router-router link.
/// Channel id = (router * max_radix + port) * vcs + vc.
struct ChannelRef {
  RouterId router;
  PortId port;
  VcId vc;
};

/// What to build.
struct CdgOptions {
  /// false: the plain CDG of the whole relation (Dally and Seitz).
  /// true: Duato's extended CDG of the escape sub-relation: an edge c1 -> c2
  /// between escape channels whenever a packet can hold c1 and later request
  /// c2 with only adaptive channels in between (direct and indirect
  /// dependencies).
  bool escape_extended = false;
  /// With escape_extended: virtual cut-through. A whole packet waits in one
  /// queue, so a packet that left the escape network holds no escape channel
  /// and only direct escape-to-escape dependencies count (Duato's theorem for
  /// VCT). Set false for wormhole, where indirect dependencies count too.
  bool vct = false;
  /// Optional: drop an edge (e.g. edges inside one bubble ring) when it
  /// returns false.
  std::function<bool(const ChannelRef&, const ChannelRef&)> keep_edge;
};

/// The graph plus what the enumeration learnt about delivery.
class ChannelDependencyGraph {
 public:
  ChannelDependencyGraph(int channels, int max_radix, int vcs) : m_adj(channels), m_max_radix(max_radix), m_vcs(vcs) {}
  int num_channels() const { return static_cast<int>(m_adj.size()); }
  int num_edges() const;
  void add_edge(int from, int to);
  const std::vector<int>& successors(int c) const { return m_adj[c]; }
  ChannelRef channel(int id) const;
  int channel_id(const ChannelRef& c) const { return (c.router * m_max_radix + c.port) * m_vcs + c.vc; }
  /// A dependency cycle as a list of channel ids, or empty when acyclic.
  std::vector<int> find_cycle() const;
  bool acyclic() const { return find_cycle().empty(); }

  /// Ordered (src, dst) pairs of live, connected nodes that no path of the
  /// relation delivers.
  long undelivered_pairs = 0;
  /// Pairs where some reachable state has no candidate (the packet would be
  /// dropped) although another path may deliver.
  long dead_end_pairs = 0;
  /// Pairs examined (live nodes, same component, src != dst).
  long pairs = 0;

 private:
  std::vector<std::vector<int>> m_adj;
  int m_max_radix;
  int m_vcs;
};

/// Enumerates every (channel, header) state reachable from every injection of
/// every live source towards every live destination in its component, and
/// records the dependencies. Cost: O(pairs x reachable states); meant for
/// small instances in tests and analyses.
ChannelDependencyGraph build_cdg(const RoutingRelation& relation, const FaultSet& faults,
                                 const CdgOptions& options = {});

class KAryNCube;
/// True for a dependency between two consecutive channels of one torus ring
/// (same port, b's router is a's neighbour along it): the dependencies that
/// bubble flow control covers. Use as `!same_ring(...)` in keep_edge.
bool same_ring(const KAryNCube& cube, const ChannelRef& a, const ChannelRef& b);

/// Result of checking a relation's DeadlockClaim.
struct DeadlockCheck {
  DeadlockClaim claim;
  int channels = 0;
  int edges = 0;
  bool acyclic = false;
  /// The cycle found, as describe_channel() strings (empty when acyclic).
  std::vector<std::string> cycle;
};

/// Builds the CDG the relation's DeadlockClaim names, under `faults` (vct:
/// the router uses virtual cut-through, which Duato's extended CDG needs to
/// know). Throws ConfigError when the relation claims nothing checkable.
/// Cost as build_cdg.
DeadlockCheck check_deadlock_claim(const RoutingRelation& relation, const FaultSet& faults, bool vct);

/// Human-readable channel: "router 1,2 port east vc 0".
std::string describe_channel(const Topology& topo, const ChannelRef& c);

}  // namespace ftsim::routing
