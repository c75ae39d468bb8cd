// Dynamic quick reconfiguration (DQR): reroutes the flows a fault
// disconnected, with paths whose new turns the channel list can absorb, so
// the old and new routing functions together stay deadlock-free. Pure C++.
// Source: dynamic-quick-reconfiguration.txt, sections III and IV-A/IV-B.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "routing_logic/dqr/channel_list.hpp"
#include "routing_logic/lash.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing::dqr {

/// How the new turns of a candidate path are checked (section IV-A, design
/// choice 2): each turn alone against the channel list, or the path's turns
/// in combination, on a local copy of the list updated with the turns
/// enabled so far along the path ("more complex ... an increased
/// probability that the resulting path is deadlock free").
enum class Check { kSingleTurn, kWholePath };

/// A plug-in run before the path search (section IV-B step 2): it enables
/// the turns of a detour around each direction of a failed link, plus the
/// turns entering it (from channels whose traffic used the link) and leaving
/// it (into the channels that traffic continued on), so that the search
/// finds the detour at no enabling cost. When a plug-in cannot enable its
/// detour, the topology-agnostic search takes over for that direction
/// (section IV: "with some probability of success").
enum class Plugin {
  kNone,
  /// Topology agnostic (sections IV-A option 1, IV-B): the shortest detour
  /// whose turns the channel list can absorb.
  kLocalReroute,
  /// Mesh plug-in (section IV-C): the 3-hop detour on the side towards the
  /// centre of the mesh ([4], section II), the same side for both directions
  /// of the link; on the exact centre line the + side. 2-D meshes only.
  kMeshCentre,
};

/// Where the search for a destination's broken carriers starts (section
/// IV-A options 1 and 3).
enum class Start {
  /// At the broken switch next to the fault, then further upstream when no
  /// path exists from there: local reroute.
  kAtFault,
  /// At the broken switches farthest upstream (the flows' sources), so that
  /// whole paths are replaced: end-to-end reroute.
  kAtSources,
};

struct Options {
  Check check = Check::kWholePath;  ///< turn check of the flows' paths
  Plugin plugin = Plugin::kNone;
  Check plugin_check = Check::kWholePath;  ///< turn check of the plug-in's detour
  Start start = Start::kAtFault;
  /// Cost of a turn that must be enabled (moves channels), in hops; a new
  /// but already legal turn costs `legal_new`, an existing dependency 0
  /// (section IV-B: prefer paths with fewer turns to enable, and turns
  /// already enabled by other paths).
  double enable_cost = 4.0;
  double legal_new = 0.001;
  /// With several virtual layers (LASH): when the flows through a broken
  /// switch find no path in their own layers, search every other layer with
  /// those flows moved there, whole paths included (section IV-A design
  /// choice 1: "can it be moved to a different layer"; section IV-B: "a
  /// separate run of the shortest path algorithm" per layer; section V
  /// searches every layer). The cheapest layer wins; false keeps every flow
  /// in its layer.
  bool move_layers = true;
  /// When no path exists from the switch the search starts at, mark it
  /// blocked and search again from the switches that feed it (upstream,
  /// towards the sources), until one succeeds. Section IV-B searches a path
  /// "for each disconnected flow"; with destination-based tables (an LFT has
  /// one port per switch and destination) the flows through a switch share
  /// its new port, and when they enter it from every direction each port is
  /// a U-turn for one of them: only a search from further upstream serves
  /// them all. Without it (false, the "-noretry" ablations) even the mesh
  /// plug-in, which the paper guarantees for one fault, fails 90 of the 180
  /// single faults of the 10x10 mesh.
  bool retry_upstream = true;
};

/// The variants of section V (names from docs/reproduction/dqr.md):
/// e2e-single, e2e-path (end-to-end, no plug-in); lr-single, lr-path,
/// lr-path-all (local reroute plug-in: its detour checked turn by turn or as
/// a path; the flows' paths checked turn by turn, or as paths for -all);
/// mesh-plugin (centre rule, paths checked whole). Ablations: the same names
/// with "-noretry" (retry_upstream false). Extension, not in the paper:
/// local-search (no plug-in, search from the switch at the fault, paths
/// checked whole). Throws ConfigError naming the allowed variants.
Options variant_options(const std::string& name);
/// Every variant name, in the order above.
const std::vector<std::string>& variant_names();

/// Outcome of one reconfiguration.
struct Result {
  bool success = false;
  std::string failure;                 ///< why, when !success
  bool disconnected = false;           ///< the live links no longer connect every node (no search made)
  std::size_t flows_disconnected = 0;  ///< flows (node pairs) whose path crossed a failed link
  std::size_t entries_changed = 0;     ///< (switch, destination) entries rewritten
  /// 64-entry LFT blocks holding a rewritten entry, with the nodes' LIDs
  /// numbered 1.. in node order (as `ftsim lft export` assigns them).
  std::size_t blocks_changed = 0;
  /// Rerouted flows: mean and max of new switch hops / shortest live switch
  /// hops (1 = still minimal).
  double stretch_mean = 0;
  double stretch_max = 0;
  std::size_t turns_enabled = 0;   ///< new dependencies recorded
  std::size_t turns_moved = 0;     ///< of those, turns that moved channels (were illegal)
  std::size_t channels_moved = 0;  ///< the paper's T, summed over the enabled turns
  std::size_t plugin_detours = 0;  ///< link directions whose plug-in detour was enabled
  std::size_t plugin_refused = 0;  ///< link directions where the plug-in failed (search took over)
  std::size_t flows_moved = 0;     ///< flows (node pairs) moved to another virtual layer
  /// fail_switch(): flows (ordered node pairs) to or from the nodes of the
  /// failed switch, lost with it (no longer flows).
  std::size_t flows_lost = 0;
  /// full_reroute(): the tables were recomputed from scratch (up*/down*
  /// over the survivors) instead of by DQR; a static reconfiguration.
  bool full_reroute = false;
  /// restore(): the entries written back, (switch, destination), in the
  /// order they must be written, and the destinations left rerouted (their
  /// initial routes still cross a dead link, their flows changed layer, or
  /// a turn of the transition was refused).
  std::vector<std::pair<RouterId, NodeId>> writes;
  std::size_t destinations_kept = 0;
  double seconds = 0;  ///< wall time of the call
};

/// The subnet manager's DQR state for one fabric with destination-based
/// forwarding tables (one output port per switch and destination node,
/// notes Q7: a rerouted path may merge into a switch whose route to the
/// destination is intact). Channels are the directed switch-to-switch links
/// times the virtual layers (channel id = layer * 2 * links + 2 * link +
/// direction); a flow's dependencies lie in its layer. Flows are the ordered
/// pairs of nodes (FlowSet::kAllPairs), or those the initial tables deliver
/// (FlowSet::kRouted: switch endpoints that up*/down* cannot connect, such as
/// spine to spine, are no flows).
enum class FlowSet { kAllPairs, kRouted };

class Engine {
 public:
  /// tables[router][node] = output port or kNone. Builds the channel list
  /// from the dependencies of every flow (section IV-A). Throws ConfigError
  /// when the tables do not deliver every flow (kAllPairs) or their
  /// dependencies are cyclic in some layer (the message names a cycle), or
  /// when `layers` does not cover every pair of nodes (count 1..32).
  Engine(const Topology& topo, std::vector<std::vector<PortId>> tables, Layers layers = {},
         FlowSet flow_set = FlowSet::kAllPairs);

  /// Is (s, d) a flow? s != d, and routed initially under kRouted.
  bool is_flow(NodeId s, NodeId d) const {
    return s != d && (m_unrouted.empty() || !m_unrouted[static_cast<std::size_t>(s) * m_nodes + d]);
  }
  /// Number of flows.
  std::size_t flow_count() const { return m_flow_count; }
  /// Per (s * nodes + d), 1 = not a flow although s != d (kRouted); empty
  /// under kAllPairs.
  const std::vector<char>& not_flows() const { return m_unrouted; }

  /// Marks `failed` links dead (they accumulate over calls) and reroutes
  /// every destination whose table route crosses a dead link, end to end
  /// from each broken switch that carries the destination's traffic (section
  /// IV-A option 3; section IV-B steps 1, 3 and 4). On success the tables,
  /// the channel list and the dependency set are updated; on failure they
  /// are left as before the call (the dead links stay dead). Throws
  /// ConfigError for a link id out of range.
  Result reconfigure(const std::vector<LinkId>& failed, const Options& opt = {});

  /// Fails switch r as one fault event (issue 50 item 5): every link of r
  /// dies, the nodes attached to r (its HCAs, and its own LID on a
  /// SwitchEndpointTopology) leave the flow set, their flows counted in
  /// Result::flows_lost, and every flow that crossed r is rerouted as
  /// reconfigure() does. On failure the tables stay as before and the
  /// switch stays failed. Result::disconnected when the surviving switches
  /// no longer connect the surviving nodes. Throws ConfigError for a switch
  /// out of range or already failed.
  Result fail_switch(RouterId r, const Options& opt = {});

  /// The fallback when a DQR variant fails (issue 50 item 5): every table
  /// recomputed by up*/down* over the live links and switches
  /// (routing::updown_tables with the fault masks), every flow in virtual
  /// layer 0, and the channel list rebuilt from the new dependencies alone.
  /// The old and new dependencies together need not be acyclic, so this is
  /// a static reconfiguration (the fabric is drained first, as OpenSM's
  /// own heavy sweep does); Result::full_reroute = true. Fails (tables
  /// unchanged) when the survivors are disconnected or up*/down* leaves a
  /// flow undelivered.
  Result full_reroute();

  /// Repair (issue 50 item 5): the links come back, and each destination d
  /// whose initial routes (the tables the engine was built with, or the
  /// last full_reroute()) are live again from every switch that carries d
  /// traffic now gets its initial entries and flows back, written in order:
  /// nearest to d on the initial routes first (Result::writes). A switch
  /// then takes its initial entry only after its initial next hop has, so a
  /// packet in flight follows its rerouted path until it meets a written
  /// switch and the initial routes from there: every transient route is a
  /// rerouted prefix and an initial suffix, loop-free. Their dependencies
  /// are the old ones, the initial ones (both in the channel list, which
  /// never forgets one, section IV-A) and one junction turn where the two
  /// meet; the junction turns are enabled in the channel list like any new
  /// turn, so the union stays acyclic and the transition deadlock-free (the
  /// paper's dynamic reconfiguration argument, sections III-IV). A
  /// destination whose junction turns are refused, whose flows moved layer,
  /// or whose initial routes still cross a dead link keeps its entries
  /// (Result::destinations_kept). Writing entries in any other order can
  /// loop (a switch restored before its next hop): check_transition()
  /// finds such mixes. Throws ConfigError for a link out of range, one
  /// that has not failed, or one of a failed switch.
  Result restore(const std::vector<LinkId>& repaired);

  const std::vector<std::vector<PortId>>& tables() const { return m_tables; }
  const ChannelList& channel_list() const { return m_list; }
  /// Every flow's virtual layer, as moved by reconfigurations so far.
  const Layers& layers() const { return m_layers; }
  /// Links marked dead so far (per link, 1 = dead).
  const std::vector<char>& dead_links() const { return m_dead; }
  /// Switches failed so far by fail_switch() (per router, 1 = failed).
  const std::vector<char>& dead_switches() const { return m_dead_switch; }
  /// Would the live links still connect every live node's switch without
  /// link l (kNone: as they are)?
  bool connected_without(LinkId l) const;
  /// Would the survivors stay connected if switch r failed too (its own
  /// nodes aside)? False when r has already failed or it holds the last
  /// live nodes.
  bool connected_without_switch(RouterId r) const;
  /// Channel of the link leaving router r by port p in layer 0, or -1 (node
  /// port, unconnected). Channel id = 2 * link + (r == link.a ? 0 : 1).
  int channel(RouterId r, PortId p) const;
  /// The channel of base channel `base` (layer 0 id) in virtual layer `layer`.
  int layered(int base, int layer) const { return layer * 2 * m_topo.num_links() + base; }
  /// Every dependency the current tables use, from tracing all flows.
  std::vector<std::pair<int, int>> traced_dependencies() const;
  /// Flows (ordered node pairs) the current tables do not deliver over live
  /// links.
  std::size_t undelivered_flows() const;

 private:
  const Topology& m_topo;
  std::vector<std::vector<PortId>> m_tables;
  std::vector<char> m_dead;         ///< per link
  std::vector<char> m_dead_switch;  ///< per router
  /// The initial tables and layers, shared by copies of the engine (restore()).
  struct Initial {
    std::vector<std::vector<PortId>> tables;
    std::vector<std::uint8_t> layers;
  };
  std::shared_ptr<const Initial> m_initial;
  std::size_t m_nodes = 0;
  std::vector<char> m_unrouted;  ///< kRouted: per (s, d), 1 = not a flow; empty: every pair
  std::size_t m_flow_count = 0;
  Layers m_layers;
  ChannelList m_list;

  int base_of(int c) const { return c % (2 * m_topo.num_links()); }
  int layer_of_channel(int c) const { return c / (2 * m_topo.num_links()); }

  /// Ends of channel c (any layer): the switch it enters, the switch it
  /// leaves, and the port it leaves by.
  RouterId channel_head(int c) const;
  RouterId channel_tail(int c) const;
  PortId channel_port(int c) const;
  /// Switch hops from `root` to every switch over live links other than
  /// `without` (-1: unreachable). Breadth-first, O(switches + links).
  std::vector<int> live_hops(RouterId root, LinkId without, RouterId without_switch = kNone) const;
  /// Do the live links connect every live node's switch, without link
  /// `without` and switch `without_switch` (and its nodes)?
  bool survivors_connected(LinkId without, RouterId without_switch) const;
  /// Entries and 64-entry blocks that differ from `before`, into res.
  void count_changes(const std::vector<std::vector<PortId>>& before, Result& res) const;

  struct DestState;
  /// Routes towards node d under the current tables: per switch, does it
  /// deliver, how far its route runs before it breaks, does d traffic pass
  /// it, and which channels feed it. O(switches).
  void dest_state(NodeId d, DestState& st) const;
  /// Section IV-B: reconfigure() runs step 1 (the cut flows) itself, then
  /// these, one function per step.
  struct Found;
  /// Sum and count of the rerouted flows' stretch (Result::stretch_mean).
  struct Stretch {
    double sum = 0;
    std::size_t flows = 0;
  };
  /// Step 2: the plug-in around each failed link between two live switches.
  void run_plugins(const std::vector<LinkId>& failed, const Options& opt, Result& res);
  /// Steps 3 and 4 for destination d (st: its state under the current
  /// tables): repairs the broken carriers one at a time, nearest the fault
  /// first (from the sources with Start::kAtSources), blocking a switch
  /// whose own detour fails and retrying upstream (Options::retry_upstream),
  /// and adds the rerouted flows' stretch. Returns "" or why it failed.
  std::string reroute_destination(NodeId d, const Options& opt, DestState& st, Result& res, Stretch& stretch);
  /// The unblocked broken carrier to repair next (kNone when every broken
  /// one is blocked); any_broken: some carrier of d is broken at all.
  RouterId next_broken_carrier(const DestState& st, const std::vector<char>& blocked, bool from_sources,
                               bool& any_broken) const;
  /// Step 3: Dijkstra over channels from switch y for the flows entering it
  /// by `fy` in layers `mask0`, to d's switch or an intact route, each new
  /// turn checked against the channel list (Options::check).
  Found search_path(NodeId d, const DestState& st, const std::vector<char>& blocked, const Options& opt, RouterId y,
                    std::uint32_t mask0, const std::vector<int>& fy);
  /// Section IV-A design choice 1: when y has no path in its flows' layers,
  /// the flows through y may move whole to another layer; replaces `found`
  /// (and `prefix`, the turns their routes up to y need there) with the
  /// cheapest such path and moves the flows.
  void search_other_layers(NodeId d, RouterId y, const DestState& st, const std::vector<char>& blocked,
                           const Options& opt, Found& found, std::vector<std::pair<int, int>>& prefix, Result& res);
  /// Steps 3a and 4: enables `turns` in the channel list and writes the
  /// path's entries. Returns "" or the refused turn.
  std::string apply_path(NodeId d, const Found& found, const std::vector<std::pair<int, int>>& turns, Result& res);
  /// Section IV-B step 2 for the direction u -> v of a failed link.
  void run_plugin(RouterId u, PortId up, const Options& opt, Result& res);
  /// The plug-in's detour for one layer.
  void run_plugin_layer(RouterId u, PortId up, int layer, const Options& opt, Result& res);
};

/// What a non-atomic table update allows while its entries are written one
/// at a time in any order (notes section 7; the paper's argument covers the
/// old and the new dependencies, not packets that follow an old prefix and
/// a new suffix). A packet to d at switch x leaves by the old or the new
/// entry of (x, d), whichever is written when it arrives; every mix is
/// followed from every source, in the flow's old and new layer.
struct TransitionCheck {
  /// The union of every mixed route's turns with the old and the new
  /// dependencies is acyclic in every layer: no write order can deadlock.
  bool acyclic = true;
  /// No mix of old and new entries sends a destination round a loop.
  bool loop_free = true;
  /// Turns only mixed routes take (in neither the old nor the new tables).
  std::size_t mixed_turns = 0;
};

/// Checks the transition from `before` to `after` (tables[router][node],
/// links with dead[link] != 0 carry nothing; `layers_before`/`after` the
/// flows' layers; `not_flows[s * nodes + d]` = 1 for node pairs that are no
/// flows, Engine::not_flows(), empty: every pair). O(destinations x switches
/// x ports). Throws ConfigError when the table shapes differ from the
/// topology.
TransitionCheck check_transition(const Topology& topo, const std::vector<std::vector<PortId>>& before,
                                 const std::vector<std::vector<PortId>>& after, const std::vector<char>& dead,
                                 const Layers& layers_before, const Layers& layers_after,
                                 const std::vector<char>& not_flows = {});

}  // namespace ftsim::routing::dqr
