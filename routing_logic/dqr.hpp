// Dynamic quick reconfiguration (DQR): reroutes the flows a fault
// disconnected, with paths whose new turns the channel list can absorb, so
// the old and new routing functions together stay deadlock-free. Pure C++.
// Source: dynamic-quick-reconfiguration.txt, sections III and IV-A/IV-B.
#pragma once
#include <string>
#include <vector>

#include "routing_logic/channel_list.hpp"
#include "routing_logic/topology.hpp"

namespace ftsim::routing::dqr {

/// How the new turns of a candidate path are checked (section IV-A, design
/// choice 2): each turn alone against the channel list, or the path's turns
/// in combination, on a local copy of the list updated with the turns
/// enabled so far along the path ("more complex ... an increased
/// probability that the resulting path is deadlock free").
enum class Check { kSingleTurn, kWholePath };

struct Options {
  Check check = Check::kWholePath;
  /// Cost of a turn that must be enabled (moves channels), in hops; a new
  /// but already legal turn costs `legal_new`, an existing dependency 0
  /// (section IV-B: prefer paths with fewer turns to enable, and turns
  /// already enabled by other paths).
  double enable_cost = 4.0;
  double legal_new = 0.001;
};

/// Outcome of one reconfiguration.
struct Result {
  bool success = false;
  std::string failure;                 ///< why, when !success
  bool disconnected = false;           ///< the live links no longer connect every node (no search made)
  std::size_t flows_disconnected = 0;  ///< HCA pairs whose path crossed a failed link
  std::size_t entries_changed = 0;     ///< (switch, destination) entries rewritten
  std::size_t turns_enabled = 0;       ///< new dependencies recorded
  std::size_t turns_moved = 0;         ///< of those, turns that moved channels (were illegal)
  std::size_t channels_moved = 0;      ///< the paper's T, summed over the enabled turns
  double seconds = 0;                  ///< wall time of reconfigure()
};

/// The subnet manager's DQR state for one fabric with destination-based
/// forwarding tables (one output port per switch and destination node,
/// notes Q7: a rerouted path may merge into a switch whose route to the
/// destination is intact). Channels are the directed switch-to-switch links
/// (one virtual layer). Flows are the ordered pairs of nodes.
class Engine {
 public:
  /// tables[router][node] = output port or kNone. Builds the channel list
  /// from the dependencies of every flow (section IV-A). Throws ConfigError
  /// when the tables do not deliver every flow or their dependencies are
  /// cyclic (the message names a cycle).
  Engine(const Topology& topo, std::vector<std::vector<PortId>> tables);

  /// Marks `failed` links dead (they accumulate over calls) and reroutes
  /// every destination whose table route crosses a dead link, end to end
  /// from each broken switch that carries the destination's traffic (section
  /// IV-A option 3; section IV-B steps 1, 3 and 4). On success the tables,
  /// the channel list and the dependency set are updated; on failure they
  /// are left as before the call (the dead links stay dead). Throws
  /// ConfigError for a link id out of range.
  Result reconfigure(const std::vector<LinkId>& failed, const Options& opt = {});

  const std::vector<std::vector<PortId>>& tables() const { return m_tables; }
  const ChannelList& channel_list() const { return m_list; }
  /// Channel of the link leaving router r by port p, or -1 (node port,
  /// unconnected). Channel id = 2 * link + (r == link.a ? 0 : 1).
  int channel(RouterId r, PortId p) const;
  /// Every dependency the current tables use, from tracing all flows.
  std::vector<std::pair<int, int>> traced_dependencies() const;
  /// Flows (ordered node pairs) the current tables do not deliver over live
  /// links.
  std::size_t undelivered_flows() const;

 private:
  const Topology& m_topo;
  std::vector<std::vector<PortId>> m_tables;
  std::vector<char> m_dead;  ///< per link
  ChannelList m_list;
};

}  // namespace ftsim::routing::dqr
