// `ftsim analyze dqr`: section V of dynamic-quick-reconfiguration.txt.
// Progressive random link faults: fault, reconfigure with DQR, and while the
// reconfiguration succeeds fault again; per fault count the probability of a
// connected, deadlock-free solution and what the reconfigurations cost.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "routing_logic/lash.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::tb {

/// Initial destination-based tables ([router][node] = port) for DQR: "dor"
/// (a deterministic relation's tables), "updn" (routing::updown_tables) or
/// "import:DIR" (OpenSM's opensm-lfts.dump placed on the topology). Throws
/// ConfigError naming the allowed values ("lash" needs virtual layers: use
/// dqr_initial).
std::vector<std::vector<std::int32_t>> dqr_initial_tables(const routing::Topology& topo, const std::string& initial);

/// Initial tables and virtual layers for DQR: everything dqr_initial_tables
/// accepts (one layer), plus "lash": dimension-order tables (minimal paths;
/// on a torus the shorter way round) layered by routing::dqr::lash_layers
/// (the DQR paper's tori, section V), and "import:DIR" with DIR/path-sl.txt
/// (OpenSM's LASH service levels, scripts/opensm_lash_capture.sh): the
/// flows' layers are their paths' SLs (tables::layers_from_path_sl; issue
/// 50 item 4). Throws ConfigError as dqr_initial_tables, or for a path the
/// SL file lacks.
struct DqrInitial {
  std::vector<std::vector<std::int32_t>> tables;
  routing::dqr::Layers layers;
};
DqrInitial dqr_initial(const routing::Topology& topo, const std::string& initial);

struct DqrAnalysisOptions {
  std::string topology = "mesh:10x10";
  /// Initial routing: dor (meshes), updn (any fabric; up*/down* tables),
  /// lash (tori: minimal dimension-order paths in LASH virtual layers),
  /// import:DIR (an OpenSM opensm-lfts.dump placed on the topology).
  std::string initial = "dor";
  /// Search every virtual layer (true) or keep flows in theirs (false);
  /// dqr::Options::move_layers. Matters only with several layers.
  bool move_layers = true;
  std::vector<std::string> variants{"lr-path"};  ///< dqr::variant_names()
  /// The user asked for every variant (`--variant all`): a variant the
  /// topology cannot run (mesh-plugin off a 2-D mesh) is left out and
  /// listed in the JSON's variants_skipped, instead of an error.
  bool variants_all = false;
  int max_faults = 10;  ///< faults per run, 1..
  int runs = 500;       ///< the paper's 500 runs per point
  std::uint64_t seed = 1;
  int threads = 1;
  bool progress = true;  ///< progress lines on stderr
  /// Also fail every switch-to-switch link alone (from the initial tables)
  /// and report per variant how many reconfigure: the paper's one-fault
  /// guarantee (section VI), checked exhaustively.
  bool every_single_fault = false;
  /// After every successful reconfiguration, check its table update under
  /// non-atomic writes in any order (dqr::check_transition; notes section 7)
  /// and report per point the share that stays acyclic and loop-free and the
  /// mean count of turns only a partial write takes. Costs about one
  /// reconfiguration's time again.
  bool check_transition = false;
  /// Endpoints: "hca" (the fabric's terminal nodes) or "all" (also every
  /// switch's own LID, SwitchEndpointTopology; flows are then the pairs the
  /// initial tables route, dqr::FlowSet::kRouted). Section V's fat tree
  /// "with switch-to-switch paths".
  std::string endpoints = "hca";
  /// What one fault is: "link" (a switch-to-switch link) or "switch" (a
  /// switch with all its links and its nodes, dqr::Engine::fail_switch;
  /// issue 50 item 5). A draw that would disconnect the survivors is
  /// redrawn either way.
  std::string fault_kind = "link";
  /// When a variant fails: "none" (the run ends, the paper's P(N)) or
  /// "updn" (dqr::Engine::full_reroute, a static reconfiguration by
  /// up*/down*, counted per point in full_reroutes; the run goes on).
  std::string fallback = "none";
};

/// Runs the analysis. Each run r draws its faults from a generator seeded
/// with (seed, r), the same sequence for every variant. A drawn link whose
/// loss would disconnect the fabric is redrawn (notes Q9); when every live
/// link would disconnect it, the run ends and counts as a failure from then
/// on. JSON: {topology, initial, layers (virtual layer count), layer_search
/// ("all" | "same"), runs, seed, max_faults, flows, links,
/// variants: [{variant, points: [{faults, success_probability, successes,
/// flows_rerouted_fraction, entries_changed, blocks_changed, turns_enabled,
/// turns_moved, channels_moved, stretch_mean, stretch_max, seconds_mean,
/// seconds_max, plugin_refused, flows_moved, and with check_transition
/// transition_acyclic, transition_loop_free (shares of the successful
/// reconfigurations, 0..1) and transition_mixed_turns (mean), flows_lost
/// (mean flows lost with a failed switch), and with fallback "updn"
/// full_reroutes (runs whose fault N needed the full reroute) and
/// runs_routed (runs with a working routing after fault N, by DQR or the
/// fallback)}], single_faults: {links (or switches), succeeded, failed:
/// [labels, at most 50]} with every_single_fault}], fault_kind, fallback,
/// wall_seconds}; success_probability stays DQR's alone (every fault 1..N
/// reconfigured without a fallback); cost figures are means over those
/// successful reconfigurations at that fault count. Throws
/// ConfigError for a bad topology, initial routing, variant or range.
nlohmann::json analyze_dqr(const DqrAnalysisOptions& opt);

}  // namespace ftsim::tb
