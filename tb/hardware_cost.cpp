#include "tb/hardware_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hw/immunet_control_plane.hpp"
#include "routing_logic/inode_routes.hpp"
#include "routing_logic/inode_routing.hpp"
#include "tb/network.hpp"

namespace ftsim::tb {

int bits_for_count(long long n) {
  int w = 0;
  while (w < 62 && (1LL << w) < n + 1) ++w;
  return w;
}

namespace {

struct Block {
  std::string block, mechanism, formula;
  long long total = 0, per_router_max = 0;
  void add(long long bits) {
    total += bits;
    per_router_max = std::max(per_router_max, bits);
  }
};

}  // namespace

nlohmann::json hardware_cost_json(const Network& net, const ExperimentConfig& cfg) {
  const routing::Topology& topo = net.topology();
  const hw::RouterParams& rp = cfg.router;
  const long long v = rp.vcs, b = rp.buffer_flits, flit_bits = 8LL * cfg.traffic.flit_bytes;
  const bool per_output = rp.queues == hw::QueueOrganisation::kVoq && rp.voq == hw::VoqReading::kPerOutput;
  std::vector<Block> blocks;
  auto block = [&](const std::string& name, const std::string& mech, const std::string& formula) -> Block& {
    for (auto& x : blocks)
      if (x.block == name) return x;
    blocks.push_back(Block{name, mech, formula});
    return blocks.back();
  };
  long long crossbar_in = 0, crossbar_out = 0, crosspoints = 0, crosspoints_max = 0;
  long long sa_arbiters = 0, va_arbiters = 0, va_inputs = 0;
  for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
    const long long p = topo.radix(r);
    long long node_ports = 0;
    for (routing::PortId q = 0; q < topo.radix(r); ++q)
      node_ports += topo.peer(r, q).kind == routing::PortPeer::Kind::kNode;
    if (per_output) {
      block("vc_buffers", "router", "P x V x P x voq_flits x flit bits (one queue per output, router.voq per_output)")
          .add(p * v * p * rp.voq_flits * flit_bits);
      block("credit_counters", "router", "P x V x P x ceil(log2(voq_flits + 1))")
          .add(p * v * p * bits_for_count(rp.voq_flits));
    } else {
      block("vc_buffers", "router", "P x V x B x flit bits").add(p * v * b * flit_bits);
      block("credit_counters", "router", "P x V x ceil(log2(B + 1))").add(p * v * bits_for_count(b));
    }
    block("vc_state", "router", "P x V x (2 state + ceil(log2 P) out port + ceil(log2 V) out VC)")
        .add(p * v * (2 + bits_for_count(p - 1) + bits_for_count(v - 1)));
    // Crossbar: one input per port (per VC with router.crossbar per_vc), the
    // node's port with injection_ports inputs and ejection_ports outputs.
    const long long in =
        (rp.crossbar == hw::CrossbarKind::kPerVc ? (p - node_ports) * v : (p - node_ports)) +
        node_ports *
            (rp.crossbar == hw::CrossbarKind::kPerVc ? std::max<long long>(v, rp.injection_ports) : rp.injection_ports);
    const long long out = (p - node_ports) + node_ports * rp.ejection_ports;
    crossbar_in += in;
    crossbar_out += out;
    crosspoints += in * out;
    crosspoints_max = std::max(crosspoints_max, in * out);
    sa_arbiters += in + out;     // separable: one arbiter per input and per output
    va_arbiters += p * v;        // one per output VC
    va_inputs += p * v * p * v;  // each over every input VC
    const long long lft = net.routers[static_cast<std::size_t>(r)].forwarding_table().size_bits();
    if (lft > 0) block("forwarding_table", "lft", "destinations x ceil(log2(P + 1))").add(lft);
  }
  if (net.immunet) {
    // Immunet section 5: per router one Safe, one Adaptive and one SS table,
    // and the 32-bit EPL register of the Reconfiguration Module.
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      block("immunet_safe_table", "immunet", "destinations x ports (a port mask per destination)")
          .add(net.immunet->safe_table_bits());
      block("immunet_adaptive_table", "immunet", "destinations x (ports + ceil(log2(nodes + 1)) distance bits)")
          .add(net.immunet->adaptive_table_bits());
      block("immunet_ss_table", "immunet", "(2 x dimensions)^2 (the SS table, section 5)")
          .add(net.immunet->ss_table_bits());
      block("immunet_epl_register", "immunet", "32 (the EPL, section 4.1)").add(32);
    }
  }
  if (cfg.routing == "ddlr" || cfg.routing == "adlr") {
    // Fat-tree section V: a bit per upward port (k of a switch's 2k ports)
    // and a time-out counter per switch (dlr.reroute_timeout cycles).
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      block("reroute_vector", "dlr", "k = P / 2 (one bit per upward port)").add(topo.radix(r) / 2);
      block("reroute_timer", "dlr", "ceil(log2(dlr.reroute_timeout + 1))").add(bits_for_count(cfg.dlr.reroute_timeout));
    }
  }
  long long inode_header = 0;
  if (const auto* in = dynamic_cast<const routing::InodeRouting*>(&net.relation())) {
    // Section 5.2: per source node, per destination, the intermediate
    // node(s) and the misroute/D fields (at the network interface).
    const long long entry = routing::inodes::routing_info_entry_bytes(in->mechanism(), topo.num_nodes());
    Block& x = block("inodes_routing_info", "inodes",
                     "nodes x destinations x entry bytes x 8 (section 5.2: 2 bytes per intermediate node)");
    for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) x.add(entry * topo.num_nodes() * 8);
    inode_header = static_cast<long long>(in->mechanism().max_intermediates) *
                   routing::inodes::subheader_bits(in->mechanism(), topo.num_nodes());
  }
  nlohmann::json j;
  j["routers"] = topo.num_routers();
  j["flit_bits"] = flit_bits;
  j["blocks"] = nlohmann::json::array();
  std::map<std::string, long long> by_mech;
  long long total = 0;
  for (const auto& x : blocks) {
    j["blocks"].push_back({{"block", x.block},
                           {"mechanism", x.mechanism},
                           {"bits_total", x.total},
                           {"bits_per_router_max", x.per_router_max},
                           {"formula", x.formula}});
    by_mech[x.mechanism] += x.total;
    total += x.total;
  }
  j["storage_bits"] = {{"total", total},
                       {"per_router_mean", topo.num_routers() ? static_cast<double>(total) / topo.num_routers() : 0.0},
                       {"by_mechanism", by_mech}};
  j["logic"] = {{"crossbar_inputs", crossbar_in},
                {"crossbar_outputs", crossbar_out},
                {"crosspoints", crosspoints},
                {"crosspoints_per_router_max", crosspoints_max},
                {"switch_allocator_arbiters", sa_arbiters},
                {"vc_allocator_arbiters", va_arbiters},
                {"vc_allocator_arbiter_inputs", va_inputs}};
  j["header_bits"] = {{"routing", bits_for_count(topo.num_nodes() - 1)}, {"inodes_max", inode_header}};
  return j;
}

}  // namespace ftsim::tb
