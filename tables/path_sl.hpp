// Service levels of InfiniBand paths (issue 50 item 4): LASH puts each path
// in a virtual layer and tells it to the sources as the path's SL (OpenSM's
// SA answers a PathRecord query with it; osm_ucast_lash.c get_lash_sl). OpenSM
// writes no file of them, so scripts/opensm_lash_capture.sh queries the SA for
// every pair of HCA LIDs and writes DIR/path-sl.txt next to opensm-lfts.dump;
// `--initial import:DIR` reads it as the flows' layers and `lft export`
// writes the layers DQR leaves (with the SL-to-VL tables that map SL i to
// VL i). Pure C++.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "routing_logic/lash.hpp"
#include "routing_logic/topology/topology.hpp"
#include "tables/lft.hpp"

namespace ftsim::tables {

/// SL per (source LID, destination LID). File format (path-sl.txt): one
/// path per line, "SLID DLID SL" in decimal (LIDs 1..49151, SL 0..15),
/// blank lines and '#' comments allowed.
struct PathSlSet {
  std::map<std::pair<int, int>, int> sl;

  /// Throws ConfigError "SOURCE:LINE: why" for a malformed line, a value out
  /// of range or a path listed twice.
  static PathSlSet parse(const std::string& text, const std::string& source);
  /// DIR/path-sl.txt when it exists (nothing otherwise). Throws ConfigError
  /// when it exists but is malformed.
  static std::optional<PathSlSet> load_if_present(const std::string& dir);
  /// The file text; parse(dump()) gives this set back.
  std::string dump() const;
};

/// The flows' virtual layers on `topo` (Layers::of_flow[s * nodes + d] = SL
/// of the path from s's LID to d's LID, `lids` as NodeTables::lid gives
/// them). Pairs of nodes on one switch, and pairs the file does not list
/// when `require_all` is false, are in layer 0 (LASH gives paths inside one
/// switch its first SL). Layers::count = the largest SL + 1. Throws
/// ConfigError naming the first pair the file lacks when `require_all`
/// (every pair of HCAs on different switches must be listed), or a LID out
/// of the table.
routing::dqr::Layers layers_from_path_sl(const PathSlSet& sls, const routing::Topology& topo,
                                         const std::vector<int>& lids, bool require_all = true);

/// The inverse: every pair of distinct non-switch-endpoint nodes with its
/// layer as SL (LIDs from `lids`). Throws ConfigError for more than 16
/// layers (InfiniBand has SLs 0..15).
PathSlSet path_sl_of(const routing::dqr::Layers& layers, const routing::Topology& topo, const std::vector<int>& lids);

/// SL-to-VL tables for `layers` virtual layers in the layout of OpenSM's
/// opensm-sl2vl.dump: per switch, every (in port, out port) pair of
/// connected ports, SL i -> VL i for i < layers and VL 15 (the packet is
/// dropped) for the unused SLs; per HCA port one row. Ports are IB numbers
/// (ftsim + 1, 0 = the switch itself); `set` gives the GUIDs and LIDs.
std::string sl2vl_dump(const LftSet& set, const routing::Topology& topo, int layers);

}  // namespace ftsim::tables
