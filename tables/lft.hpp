// InfiniBand linear forwarding tables (LFTs) as OpenSM dumps them, and their
// mapping onto an ftsim topology. Source: OpenSM 3.3.23 opensm-lfts.dump (the
// format its `file` routing engine reads back, osm_ucast_file.c);
// dynamic-quick-reconfiguration.txt section V (tables dumped by OpenSM).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "routing_logic/fault_set.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::tables {

/// What a LID addresses, from the dump's comments.
struct LidEndpoint {
  std::string name;  ///< NodeDesc, e.g. "H_0_0_0" or "SW_0_0"
  bool is_switch = false;
  std::uint64_t guid = 0;  ///< port GUID
};

/// One switch's LFT: destination LID -> InfiniBand output port (0 = the
/// switch itself). LIDs without a route are absent, as in the dump.
struct SwitchLft {
  std::string name;
  std::uint64_t guid = 0;
  int lid = 0;
  int top_lid = 0;  ///< the block header's upper bound and the trailer's count
  std::map<int, int> port;
};

/// The forwarding state of a fabric: every switch's LFT plus what each LID
/// names. LIDs are 1..49151 (unicast), ports 0..254.
struct LftSet {
  std::vector<SwitchLft> switches;
  std::map<int, LidEndpoint> lids;

  /// Parses opensm-lfts.dump text. Throws ftsim::ConfigError
  /// "SOURCE:LINE: why" for a malformed line (a bad header, an entry outside
  /// a block, a LID or port out of range, a LID listed twice in a block, a
  /// trailer that disagrees with the header).
  static LftSet parse_dump(const std::string& text, const std::string& source);
  /// Reads DIR/opensm-lfts.dump (the layout of OpenSM's --dump_files_dir).
  /// Throws ConfigError when it is missing or malformed.
  static LftSet load(const std::string& dir_or_file);
  /// The opensm-lfts.dump text; parse_dump(dump()) gives this set back, and
  /// OpenSM's `file` engine (-R file -U FILE) loads it.
  std::string dump() const;

  const SwitchLft* find_switch(const std::string& name) const;
  /// LID of the endpoint with this name, or 0.
  int lid_of(const std::string& name) const;
  /// Total entries over all switches.
  std::size_t entries() const;
};

/// An LftSet placed on a topology: per router, per destination node, the
/// ftsim output port (kNone: no route). Port mapping: ftsim = IB - 1 (IB 1 is
/// the HCA of a mesh/torus switch, ftsim's local port 0). Name mapping:
/// ibnet and fat-tree2 fabrics by name; mesh/torus switches "SW_a_b" are
/// router "a,b" and HCA "H_a_b_0" is that router's node.
struct NodeTables {
  std::vector<std::vector<routing::PortId>> port;  ///< [router][node]
  /// place(): each node's LID in the dump (a switch endpoint: its switch's LID).
  std::vector<int> lid;
};

/// Throws ConfigError naming the first switch or HCA of the dump that the
/// topology lacks, a port the router does not have, or a router/node of the
/// topology that the dump does not cover.
NodeTables place(const LftSet& lfts, const routing::Topology& topo);

/// The LftSet of node tables on `topo`, with LIDs assigned as in `like` (the
/// endpoint names must match), or, when `like` is empty, HCAs first in node
/// order from LID 1, then switches. Switch LIDs route like the switch's own
/// HCA (mesh/torus) or are left out (other fabrics: switch-to-switch paths
/// are not modelled). Port 0 entries for a switch's own LID.
LftSet export_tables(const NodeTables& tables, const routing::Topology& topo, const LftSet& like = {});

/// What changed between two table sets of one fabric (`ftsim lft diff`).
struct LftDiff {
  std::size_t entries_changed = 0;   ///< (switch, LID) entries that differ, added or removed
  std::size_t blocks_changed = 0;    ///< 64-entry LFT blocks holding a change (the unit an SM writes)
  std::size_t switches_changed = 0;  ///< switches with at least one change
  // With a topology: flows are ordered pairs (s != d) of its endpoints (HCAs,
  // and switches' own LIDs on a SwitchEndpointTopology), traced through each
  // table set from s's switch.
  bool traced = false;
  std::size_t flows = 0;
  /// Pairs with an end on a failed switch (FaultSet::routers): lost, not traced.
  std::size_t flows_lost = 0;
  std::size_t flows_rerouted = 0;              ///< the switch sequence differs
  std::size_t unrouted_a = 0, unrouted_b = 0;  ///< no entry, a dead link, or a loop
  /// The first 16 unrouted pairs of each set, "SRC -> DST" (HCA or switch names).
  std::vector<std::string> unrouted_a_pairs, unrouted_b_pairs;
  double stretch_mean = 0;  ///< rerouted flows routed in both: mean of hops(B) / hops(A)
  double stretch_max = 0;
  bool acyclic_a = true, acyclic_b = true;  ///< CDG of each set under the faults
  std::vector<std::string> cycle_b;         ///< a dependency cycle of B, channel names
  std::vector<std::string> cycle_a;
};

/// Compares A and B switch by switch; with `topo` also traces every flow and
/// builds both CDGs (one VC) under `faults` (links that B must avoid; a flow
/// whose path crosses one counts as unrouted; a failed switch's links are
/// avoided too, and pairs with an end on it are lost, not traced). Throws ConfigError when a
/// set does not place on the topology.
LftDiff diff_tables(const LftSet& a, const LftSet& b, const routing::Topology* topo, const routing::FaultSet& faults);

/// An ibsim netfile of the topology (names as switch_name / hca_name, IB
/// port = ftsim port + 1), for running OpenSM on the same fabric (`ftsim lft
/// netfile`). HCAs first, then switches, each with its connected ports.
std::string netfile(const routing::Topology& topo);

/// ibsim/OpenSM names of a topology's routers and nodes (see place()).
std::string switch_name(const routing::Topology& topo, routing::RouterId r);
std::string hca_name(const routing::Topology& topo, routing::NodeId n);

}  // namespace ftsim::tables
