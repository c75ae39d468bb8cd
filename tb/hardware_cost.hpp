// What a configuration's routers hold and how large their switching logic is
// (issue 52 item 1): storage in bits per block and per mechanism, derived from
// the configuration and the elaborated network, for `ftsim cost` and the
// stats.json `hardware_cost` section. Immunet sections 3 and 5 make low
// hardware cost a headline claim, the intermediate-nodes paper sizes its
// routing information (section 5.2) and header (Fig. 8), the fat-tree method
// adds a re-route vector (section V), DQR and DDRC only forwarding tables.
#pragma once
#include <nlohmann/json.hpp>

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
///     at the network interface) (inodes:*);
///   storage_bits: {total, per_router_mean, by_mechanism: {router, immunet, dlr, lft, inodes}},
///   logic: {crossbar_inputs, crossbar_outputs, crosspoints (totals and
///     per_router_max), switch_allocator_arbiters, vc_allocator_arbiters,
///     vc_allocator_arbiter_inputs},
///   header_bits: {routing (per packet: destination address), inodes_max
///     (Fig. 8: one subheader per intermediate node at most)} }
/// Sizes: a router's ports are its topology radix (node ports included,
/// unconnected border ports too: one router design everywhere); B =
/// router.buffer_flits, V = router.vcs, flit bits = 8 x traffic.flit_bytes.
/// Throws nothing beyond what the network's accessors throw.
nlohmann::json hardware_cost_json(const Network& net, const ExperimentConfig& cfg);

/// Bits to count 0..n (ceil(log2(n + 1)), 0 for n = 0).
int bits_for_count(long long n);

}  // namespace ftsim::tb
