// Fat-tree fault analyses: DDRC table recomputation and the probability that
// a routing function keeps every end-node pair connected. Pure C++.
// Source: fat-tree-dynamic-local-rerouting.txt, sections VIII and IX.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routing_logic/fat_tree_dlr.hpp"
#include "routing_logic/fault_set.hpp"

namespace ftsim::routing {

/// DDRC's recomputed tables: per switch, per destination node, the output
/// port of up*/down* routing that avoids the faulty links (kNone when no
/// up*/down* path exists). A switch that is an ancestor of d with a
/// fault-free downward path takes it; otherwise it goes up on the fault-free
/// table's port (k + d_l) when that port is alive and its parent still
/// reaches d; the destinations left over are spread, one at a time in
/// destination order, to the live upward port (whose parent reaches d) with
/// the fewest destinations so far, lowest port on ties: a subnet manager's
/// balanced recomputation (sections VIII-IX: "new routing tables using
/// standard fat-tree routing"; issue 49). Paths never turn from down to up,
/// so the tables are deadlock-free like fault-free up/down routing.
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
