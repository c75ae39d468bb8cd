// What a configuration's routers hold and how large their switching logic is
// (issue 52 item 1): storage in bits per block and per mechanism, derived from
// the configuration and the elaborated network, for `ftsim cost` and the
// stats.json `hardware_cost` section. Immunet sections 3 and 5 make low
// hardware cost a headline claim, the intermediate-nodes paper sizes its
// routing information (section 5.2) and header (Fig. 8), the fat-tree method
// adds a re-route vector (section V), DQR and DDRC only forwarding tables.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "tb/experiment_config.hpp"

namespace ftsim::tb {

class Network;

/// stats.json `hardware_cost`: {
///   routers, flit_bits,
///   blocks: [{block, mechanism, bits_total, bits_per_router_max, formula}],
///     block: vc_buffers, credit_counters, vc_state (every router);
///     forwarding_table (LFT-routed relations: DQR, DDRC, up*/down*);
///     immunet_safe_table, immunet_adaptive_table, immunet_ss_table,
///     immunet_epl_register (routing immunet); reroute_vector and
///     reroute_timer (ddlr, adlr); inodes_routing_info (per source node,
///     at the network interface) (inodes:*); port_fault_flags (MiKANT's
///     go-neighbor-switch, go-down-level, gns+gdl);
///   storage_bits: {total, per_router_mean, by_mechanism: {router, immunet, dlr, lft, inodes}},
///   logic: {crossbar_inputs, crossbar_outputs, crosspoints (totals and
///     per_router_max), switch_allocator_arbiters, vc_allocator_arbiters,
///     vc_allocator_arbiter_inputs, and with router.vc_allocator wavefront
///     vc_allocator_wavefront_cells (P x V squared per router) instead of
///     arbiters},
///   header_bits: {routing (per packet: destination address), inodes_max
///     (Fig. 8: one subheader per intermediate node at most)},
///   rtl_cells (routing immunet): {input_block, output_block,
///     reconfiguration_module (per block), per_router (links x (input +
///     output) + module), total, synthesised_for} when the routers have 4
///     network ports and at most 256 nodes (the synthesised parameters),
///     else {synthesised_for, note} }
/// Sizes: a router's ports are its topology radix (node ports included,
/// unconnected border ports too: one router design everywhere); B =
/// router.buffer_flits, V = router.vcs, flit bits = 8 x traffic.flit_bytes.
/// Throws nothing beyond what the network's accessors throw.
nlohmann::json hardware_cost_json(const Network& net, const ExperimentConfig& cfg);

/// Cells of the Verilog reference blocks (rtl_ref/) after yosys maps them
/// to two-input gates and flip-flops (scripts/rtl_cell_counts.sh,
/// docs/reproduction/data/rtl-cell-counts.csv; the ctest
/// RtlSynthesis.CellCountsMatchTheCostReport re-synthesises and compares):
/// per link an Input Block and an Output Block of W = 16 data lines, per
/// router a Reconfiguration Module of P = 4 ports, W = 16, 8 node-id bits.
struct RtlCells {
  static constexpr int kInputBlock = 19;
  static constexpr int kOutputBlock = 35;
  static constexpr int kReconfigurationModule = 882;
  static constexpr int kReconfigurationModuleFlipFlops = 60;
};

/// Bits to count 0..n (ceil(log2(n + 1)), 0 for n = 0).
int bits_for_count(long long n);

/// A technology file (issue 52 item 2; experiments/technology/*.yaml):
/// per-event dynamic energies in pJ and static powers in mW, for flits of
/// `flit_bits` bits. The defaults are experiments/technology/noxim-default-128bit.yaml
/// (Noxim's published power model, commit 4c8e72d).
struct Technology {
  std::string name = "noxim-default-128bit";
  std::string source =
      "Noxim bin/power.yaml, commit 4c8e72d: Buffer [depth 8, 128 bits], crossbar [5 ports, 128 bits], LinkBitLine "
      "[1.0 mm], routing XY and TABLE_BASED, selection default";
  int flit_bits = 128;
  double clock_ghz = 1.0;
  double buffer_write_pj = 4.0, buffer_read_pj = 3.0, crossbar_pj = 0.8, link_pj_per_bit = 0.0488;
  double routing_pj = 0.06, routing_table_pj = 0.12, selection_pj = 0.05, switch_allocation_pj = 0.0;
  double table_write_pj = 0.12;  ///< one routing-table entry written (a mechanism's reconfiguration)
  double buffer_static_mw = 15.0, crossbar_static_mw = 2.75, link_static_mw_per_bit = 0.00048;
  double routing_static_mw = 0.12, routing_table_static_mw = 0.24, selection_static_mw = 0.11;
};

/// Reads a technology file. Throws ConfigError naming the file and the key
/// for a missing file, an unknown key, a missing figure or a negative one
/// (flit_bits 1..65536, clock_ghz > 0).
Technology load_technology(const std::string& path);

/// The events of a run the energy model counts (NetworkStats, whole run).
struct EnergyEvents {
  std::uint64_t injected_flits = 0;  ///< flits from the nodes into router buffers
  std::uint64_t crossbar_flits = 0;  ///< flits read out of input buffers through the crossbar (switch grants)
  std::uint64_t ejected_flits = 0;   ///< of those, flits to the nodes
  std::uint64_t heads = 0;           ///< heads through the crossbar: route computations and VC allocations
  std::uint64_t cycles = 0;          ///< run length, for the static energy
};

/// stats.json `energy`: {technology, source, events: {buffer_writes,
/// buffer_reads, crossbar_traversals, link_traversals, route_computations,
/// vc_allocations, switch_allocations}, dynamic_pj: {buffer_write,
/// buffer_read, crossbar, link, routing, selection, switch_allocation,
/// total}, static_pj: {buffers, crossbars, links, routing, selection,
/// total}, total_pj, pj_per_delivered_flit}. Buffer writes = injected +
/// link traversals (a flit lost on a failing link counts as written);
/// link traversals = crossbar flits - ejected flits. Per-flit energies scale
/// with the run's flit bits / the file's. Static: every input VC buffer
/// (routers x radix x VCs), every router's crossbar, routing and selection
/// logic and every link direction's bit lines, over `cycles` at clock_ghz.
/// Table-routed relations (a forwarding table at the routers) pay
/// routing_table per computation.
nlohmann::json energy_json(const Network& net, const ExperimentConfig& cfg, const Technology& tech,
                           const EnergyEvents& ev);

/// Adds the mechanisms' own events to stats.json `energy` (run after every
/// other section is written): Immunet's control packets on the links
/// (`reconfiguration.control_link_flits` x link energy) and one table
/// entry written per control packet handled (`safe_control_hops` +
/// `adaptive_control_hops`); DDRC's and DQR's table writes (`ddrc` / `dqr`
/// `table_writes`, entries). energy.mechanisms_pj {immunet_control_links,
/// immunet_table_updates, ddrc_table_writes, dqr_table_writes, total};
/// total_pj and pj_per_delivered_flit include them.
void add_mechanism_energy(nlohmann::json& stats, const ExperimentConfig& cfg, const Technology& tech);

}  // namespace ftsim::tb
