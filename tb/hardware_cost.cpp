#include "tb/hardware_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "common/config_error.hpp"
#include "routing_logic/inodes/inode_routes.hpp"
#include "routing_logic/inodes/inode_routing.hpp"
#include "tb/mechanisms/immunet.hpp"
#include "tb/network.hpp"
#include "tb/yaml_input.hpp"

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
  long long sa_arbiters = 0, va_arbiters = 0, va_inputs = 0, va_cells = 0;
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
    sa_arbiters += in + out;  // separable: one arbiter per input and per output
    if (rp.vc_allocator == hw::VcAllocatorKind::kWavefront) {
      va_cells += p * v * p * v;  // one cell per (input VC, output VC) pair: N = P x V (hw::VcAllocator)
    } else {
      va_arbiters += p * v;        // one per output VC
      va_inputs += p * v * p * v;  // each over every input VC
    }
    const long long lft = net.routers[static_cast<std::size_t>(r)].forwarding_table().size_bits();
    if (lft > 0) block("forwarding_table", "lft", "destinations x ceil(log2(P + 1))").add(lft);
  }
  if (const hw::ImmunetControlPlane* immunet = immunet_plane(net)) {
    // Immunet section 5: per router one Safe, one Adaptive and one SS table,
    // and the 32-bit EPL register of the Reconfiguration Module.
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      block("immunet_safe_table", "immunet", "destinations x ports (a port mask per destination)")
          .add(immunet->safe_table_bits());
      block("immunet_adaptive_table", "immunet", "destinations x (ports + ceil(log2(nodes + 1)) distance bits)")
          .add(immunet->adaptive_table_bits());
      block("immunet_ss_table", "immunet", "(2 x dimensions)^2 (the SS table, section 5)")
          .add(immunet->ss_table_bits());
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
  if (cfg.routing == "go-neighbor-switch" || cfg.routing == "go-down-level" || cfg.routing == "gns+gdl") {
    // MiKANT's fault-tolerant algorithms decide from the switch's own
    // ports: a fault flag per port (section 4's local link status).
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r)
      block("port_fault_flags", "mikant", "P (a fault flag per port, read by the local rerouting)").add(topo.radix(r));
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
  if (cfg.router.vc_allocator == hw::VcAllocatorKind::kWavefront) j["logic"]["vc_allocator_wavefront_cells"] = va_cells;
  j["header_bits"] = {{"routing", bits_for_count(topo.num_nodes() - 1)}, {"inodes_max", inode_header}};
  if (immunet_plane(net) != nullptr) {
    // Section 5's hardware in gates: one Input and one Output Block per
    // network link end, one Reconfiguration Module per router.
    const char* synthesised = "yosys, two-input gates: blocks W = 16, module P = 4, W = 16, 8 node-id bits";
    bool fits = topo.num_nodes() <= 256;
    long long links_total = 0, per_router_max = 0;
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      long long links = 0;
      for (routing::PortId q = 0; q < topo.radix(r); ++q)
        links += topo.peer(r, q).kind == routing::PortPeer::Kind::kRouter;
      fits = fits && links <= 4;
      links_total += links;
      per_router_max = std::max(
          per_router_max, links * (RtlCells::kInputBlock + RtlCells::kOutputBlock) + RtlCells::kReconfigurationModule);
    }
    if (fits)
      j["rtl_cells"] = {{"input_block", RtlCells::kInputBlock},
                        {"output_block", RtlCells::kOutputBlock},
                        {"reconfiguration_module", RtlCells::kReconfigurationModule},
                        {"reconfiguration_module_flip_flops", RtlCells::kReconfigurationModuleFlipFlops},
                        {"per_router_max", per_router_max},
                        {"total", links_total * (RtlCells::kInputBlock + RtlCells::kOutputBlock) +
                                      static_cast<long long>(topo.num_routers()) * RtlCells::kReconfigurationModule},
                        {"synthesised_for", synthesised}};
    else
      j["rtl_cells"] = {{"synthesised_for", synthesised},
                        {"note",
                         "this network's routers have other parameters: synthesise rtl_ref/ with them "
                         "(scripts/rtl_cell_counts.sh)"}};
  }
  return j;
}

Technology load_technology(const std::string& path) {
  const YAML::Node root = parse_yaml_document(read_yaml_file(path, "technology file"), path);
  if (!root.IsMap())
    throw ConfigError(fmt::format("{}: a technology file is a map (name, source, flit_bits, ...)", path));
  Technology t;
  const std::set<std::string> top = {"name", "source", "flit_bits", "clock_ghz", "dynamic_pj", "static_mw"};
  for (const auto& kv : root)
    if (!top.count(kv.first.as<std::string>()))
      throw ConfigError(
          fmt::format("{}: unknown key '{}'; allowed: name, source, flit_bits, clock_ghz, dynamic_pj, "
                      "static_mw",
                      path, kv.first.as<std::string>()));
  auto number = [&](const YAML::Node& n, const std::string& key, double min) {
    if (!n) throw ConfigError(fmt::format("{}: missing '{}'", path, key));
    double v = 0;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      throw ConfigError(fmt::format("{}: '{}' must be a number", path, key));
    }
    if (!(v >= min) || v > 1e12)
      throw ConfigError(fmt::format("{}: '{}' = {} out of range: allowed {}..1e12", path, key, v, min));
    return v;
  };
  if (root["name"]) t.name = root["name"].as<std::string>();
  if (root["source"]) t.source = root["source"].as<std::string>();
  const double fb = number(root["flit_bits"], "flit_bits", 1);
  if (fb > 65536 || fb != static_cast<int>(fb))
    throw ConfigError(fmt::format("{}: 'flit_bits' = {}: allowed an integer 1..65536", path, fb));
  t.flit_bits = static_cast<int>(fb);
  t.clock_ghz = number(root["clock_ghz"], "clock_ghz", 1e-9);
  struct Field {
    const char* section;
    const char* key;
    double* to;
  };
  const Field fields[] = {
      {"dynamic_pj", "buffer_write", &t.buffer_write_pj}, {"dynamic_pj", "buffer_read", &t.buffer_read_pj},
      {"dynamic_pj", "crossbar", &t.crossbar_pj},         {"dynamic_pj", "link_per_bit", &t.link_pj_per_bit},
      {"dynamic_pj", "routing", &t.routing_pj},           {"dynamic_pj", "routing_table", &t.routing_table_pj},
      {"dynamic_pj", "selection", &t.selection_pj},       {"dynamic_pj", "switch_allocation", &t.switch_allocation_pj},
      {"dynamic_pj", "table_write", &t.table_write_pj},   {"static_mw", "buffer", &t.buffer_static_mw},
      {"static_mw", "crossbar", &t.crossbar_static_mw},   {"static_mw", "link_per_bit", &t.link_static_mw_per_bit},
      {"static_mw", "routing", &t.routing_static_mw},     {"static_mw", "routing_table", &t.routing_table_static_mw},
      {"static_mw", "selection", &t.selection_static_mw}};
  for (const char* section : {"dynamic_pj", "static_mw"}) {
    const YAML::Node sec = root[section];
    if (!sec || !sec.IsMap()) throw ConfigError(fmt::format("{}: missing the map '{}'", path, section));
    for (const auto& kv : sec) {
      bool known = false;
      for (const auto& f : fields) known |= std::string(f.section) == section && kv.first.as<std::string>() == f.key;
      if (!known) throw ConfigError(fmt::format("{}: unknown key '{}.{}'", path, section, kv.first.as<std::string>()));
    }
  }
  for (const auto& f : fields) *f.to = number(root[f.section][f.key], std::string(f.section) + "." + f.key, 0);
  return t;
}

nlohmann::json energy_json(const Network& net, const ExperimentConfig& cfg, const Technology& tech,
                           const EnergyEvents& ev) {
  const routing::Topology& topo = net.topology();
  const double scale = 8.0 * cfg.traffic.flit_bytes / tech.flit_bits;
  const double flit_bits = 8.0 * cfg.traffic.flit_bytes;
  const std::uint64_t link_flits = ev.crossbar_flits - ev.ejected_flits;
  const std::uint64_t writes = ev.injected_flits + link_flits;
  bool tables = false;
  for (const auto& r : net.routers) tables |= r.forwarding_table().size_bits() > 0;
  const double d_write = writes * tech.buffer_write_pj * scale,
               d_read = ev.crossbar_flits * tech.buffer_read_pj * scale;
  const double d_xbar = ev.crossbar_flits * tech.crossbar_pj * scale;
  const double d_link = link_flits * flit_bits * tech.link_pj_per_bit;
  const double d_route = ev.heads * (tables ? tech.routing_table_pj : tech.routing_pj);
  const double d_sel = ev.heads * tech.selection_pj;
  const double d_sa = ev.crossbar_flits * tech.switch_allocation_pj;
  const double d_total = d_write + d_read + d_xbar + d_link + d_route + d_sel + d_sa;
  long long vc_buffers = 0;
  for (routing::RouterId r = 0; r < topo.num_routers(); ++r)
    vc_buffers += static_cast<long long>(topo.radix(r)) * cfg.router.vcs;
  long long link_directions = 0;
  for (routing::LinkId l = 0; l < topo.num_links(); ++l) link_directions += topo.link(l).b_is_node ? 0 : 2;
  const double ns = static_cast<double>(ev.cycles) / tech.clock_ghz;  // mW x ns = pJ
  const double s_buf = vc_buffers * tech.buffer_static_mw * scale * ns;
  const double s_xbar = topo.num_routers() * tech.crossbar_static_mw * scale * ns;
  const double s_link = link_directions * flit_bits * tech.link_static_mw_per_bit * ns;
  const double s_route = topo.num_routers() * (tables ? tech.routing_table_static_mw : tech.routing_static_mw) * ns;
  const double s_sel = topo.num_routers() * tech.selection_static_mw * ns;
  const double s_total = s_buf + s_xbar + s_link + s_route + s_sel;
  nlohmann::json j;
  j["technology"] = tech.name;
  j["source"] = tech.source;
  j["events"] = {{"buffer_writes", writes},
                 {"buffer_reads", ev.crossbar_flits},
                 {"crossbar_traversals", ev.crossbar_flits},
                 {"link_traversals", link_flits},
                 {"route_computations", ev.heads},
                 {"vc_allocations", ev.heads},
                 {"switch_allocations", ev.crossbar_flits}};
  j["dynamic_pj"] = {
      {"buffer_write", d_write}, {"buffer_read", d_read}, {"crossbar", d_xbar},        {"link", d_link},
      {"routing", d_route},      {"selection", d_sel},    {"switch_allocation", d_sa}, {"total", d_total}};
  j["static_pj"] = {{"buffers", s_buf},   {"crossbars", s_xbar}, {"links", s_link},
                    {"routing", s_route}, {"selection", s_sel},  {"total", s_total}};
  j["total_pj"] = d_total + s_total;
  j["pj_per_delivered_flit"] = ev.ejected_flits ? (d_total + s_total) / static_cast<double>(ev.ejected_flits) : 0.0;
  // Per router class: tier t = switch hops from the nearest router with a
  // terminal node (direct networks: every router is tier 0; fat trees:
  // leaves 0, then up). Each router's own events and static share.
  const auto& st = net.context().stats;
  if (st.router_crossbar.size() == static_cast<std::size_t>(topo.num_routers())) {
    std::vector<int> tier(static_cast<std::size_t>(topo.num_routers()), -1);
    std::vector<routing::RouterId> q;
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r)
      for (routing::PortId p = 0; p < topo.radix(r); ++p) {
        const auto& pp = topo.peer(r, p);
        if (pp.kind == routing::PortPeer::Kind::kNode && !topo.is_switch_endpoint(pp.id) &&
            tier[static_cast<std::size_t>(r)] < 0) {
          tier[static_cast<std::size_t>(r)] = 0;
          q.push_back(r);
        }
      }
    for (std::size_t i = 0; i < q.size(); ++i)
      for (routing::PortId p = 0; p < topo.radix(q[i]); ++p) {
        const auto& pp = topo.peer(q[i], p);
        if (pp.kind != routing::PortPeer::Kind::kRouter || tier[static_cast<std::size_t>(pp.id)] >= 0) continue;
        tier[static_cast<std::size_t>(pp.id)] = tier[static_cast<std::size_t>(q[i])] + 1;
        q.push_back(pp.id);
      }
    std::map<int, std::array<double, 3>> cls;  // tier -> routers, dynamic, static
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      const auto ri = static_cast<std::size_t>(r);
      const double xb = static_cast<double>(st.router_crossbar[ri]);
      const double links_out = xb - static_cast<double>(st.router_ejected[ri]);
      const double heads = static_cast<double>(st.router_heads[ri]);
      const double dyn = static_cast<double>(st.router_arrivals[ri]) * tech.buffer_write_pj * scale +
                         xb * (tech.buffer_read_pj + tech.crossbar_pj) * scale + xb * tech.switch_allocation_pj +
                         links_out * flit_bits * tech.link_pj_per_bit +
                         heads * ((tables ? tech.routing_table_pj : tech.routing_pj) + tech.selection_pj);
      double directions = 0;
      for (routing::PortId p = 0; p < topo.radix(r); ++p)
        directions += topo.peer(r, p).kind == routing::PortPeer::Kind::kRouter;
      const double sta =
          (static_cast<double>(topo.radix(r)) * cfg.router.vcs * tech.buffer_static_mw * scale +
           tech.crossbar_static_mw * scale + (tables ? tech.routing_table_static_mw : tech.routing_static_mw) +
           tech.selection_static_mw + directions * flit_bits * tech.link_static_mw_per_bit) *
          ns;
      auto& c = cls[tier[ri]];
      c[0] += 1;
      c[1] += dyn;
      c[2] += sta;
    }
    j["by_router_class"] = nlohmann::json::array();
    for (const auto& [t, c] : cls)
      j["by_router_class"].push_back({{"class", t < 0 ? std::string("unreached") : fmt::format("tier {}", t)},
                                      {"routers", static_cast<long long>(c[0])},
                                      {"dynamic_pj", c[1]},
                                      {"static_pj", c[2]}});
  }
  return j;
}

void add_mechanism_energy(nlohmann::json& stats, const ExperimentConfig& cfg, const Technology& tech) {
  if (!stats.contains("energy")) return;
  auto num = [&](const char* section, const char* key) {
    if (!stats.contains(section) || !stats[section].is_object() || !stats[section].contains(key) ||
        !stats[section][key].is_number())
      return 0.0;
    return stats[section][key].get<double>();
  };
  const double flit_bits = 8.0 * cfg.traffic.flit_bytes;
  nlohmann::json m;
  m["immunet_control_links"] = num("reconfiguration", "control_link_flits") * flit_bits * tech.link_pj_per_bit;
  m["immunet_table_updates"] =
      (num("reconfiguration", "safe_control_hops") + num("reconfiguration", "adaptive_control_hops")) *
      tech.table_write_pj;
  m["ddrc_table_writes"] = num("ddrc", "table_writes") * tech.table_write_pj;
  m["dqr_table_writes"] = num("dqr", "table_writes") * tech.table_write_pj;
  double total = 0;
  for (const auto& [k, v] : m.items()) total += v.get<double>();
  m["total"] = total;
  auto& e = stats["energy"];
  e["mechanisms_pj"] = m;
  const double all = e["dynamic_pj"]["total"].get<double>() + e["static_pj"]["total"].get<double>() + total;
  const double per = e["pj_per_delivered_flit"].get<double>();
  const double old_total = e["total_pj"].get<double>();
  e["total_pj"] = all;
  if (per > 0 && old_total > 0) e["pj_per_delivered_flit"] = per * all / old_total;
}

}  // namespace ftsim::tb
