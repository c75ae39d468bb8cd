// Fat-tree fault analyses: DDRC table recomputation and the probability that
// a routing function keeps every end-node pair connected. Pure C++.
// Source: fat-tree-dynamic-local-rerouting.txt, sections VIII and IX.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routing_logic/dlr/fat_tree_dlr.hpp"
#include "routing_logic/fault_set.hpp"

namespace ftsim::routing {

/// DDRC's recomputed tables: per switch, per destination node, the output
/// port of up*/down* routing that avoids the faulty links (kNone when no
/// up*/down* path exists). Shape: [num_routers][num_nodes], ports 0..2k-1.
/// A switch that is an ancestor of d with a fault-free downward path takes
/// it; otherwise it goes up on the fault-free table's port (k + d_l) when
/// that port is alive and its parent still reaches d. The remaining entries
/// ("open": the fault-free port is dead or leads nowhere) are chosen to
/// spread the flows of uniform traffic (one per ordered pair of end nodes)
/// over the surviving channels: the flows on intact fault-free paths are
/// counted first, then each flow through an open entry, destination by
/// destination, takes the allowed up*/down* path whose most loaded channel
/// ends least loaded, and fixes the open entries on it. This is a subnet
/// manager's balanced recomputation (sections VIII-IX: DDRC computes "new
/// routing tables using standard fat-tree routing" and is compared as the
/// "optimal paths"; issue 49): on the 4-ary 3-tree one dead link leaves no
/// channel above ceil(240 / 3) = 80 flows (fault-free: 60). Balancing the
/// per-switch destination counts alone is not enough, since every leaf
/// breaks its ties alike and sends a displaced destination down one channel.
/// Paths never turn from down to up, so the tables are deadlock-free like
/// fault-free up/down routing.
std::vector<std::vector<std::int32_t>> ddrc_tables(const KAryNTree& tree, const FaultSet& faults);

/// True when the DDRC tables deliver every ordered pair of end nodes.
bool ddrc_connected(const KAryNTree& tree, const FaultSet& faults);

/// True when `relation` (configured on a k-ary n-tree) delivers every ordered
/// pair under routing_trials' walk: first candidate, its lowest VC; a
/// discard, an empty candidate set or more than 16 + 8 n k hops count as
/// failures. ADLR is walked with one re-route vector per switch, kept across
/// the pairs. `sources_done(n)`, when given, is called after each source node
/// with n = 1, and with the sources left unchecked when a pair fails (for
/// progress on large trees: one fault set of kary-ntree:2,12 takes 50 s).
bool routing_connected(const RoutingRelation& relation, const FaultSet& faults,
                       const std::function<void(std::uint64_t)>& sources_done = {});

/// One row of `ftsim analyze connectivity`.
struct ConnectivityRow {
  int faults = 0;
  long samples = 0;  ///< fault sets evaluated
  double connected_probability = 0;
  bool exact = false;  ///< every combination was enumerated (samples = C(L, faults))
};

/// For each fault count: the share of fault sets of that many switch-switch
/// links for which the mechanism ("dlr": DDLR's rerouting, the same for
/// ADLR; "ddrc": recomputed up*/down* tables) delivers every pair. When
/// C(L, f) <= samples every combination is enumerated (exact); otherwise
/// `samples` sets are drawn from a generator seeded by (seed, f). Throws
/// ConfigError for an unknown mechanism or a count above L.
std::vector<ConnectivityRow> fat_tree_connectivity(
    const KAryNTree& tree, const std::string& mechanism, const std::vector<int>& fault_counts, long samples,
    std::uint64_t seed, int threads, const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace ftsim::routing
