#include "tb/mechanisms/immunet.hpp"

#include "hw/immunet/immunet_router.hpp"
#include "routing_logic/immunet/immunet_routing.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "tb/experiment_config.hpp"
#include "tb/network.hpp"
#include "tb/plugin_registry.hpp"

namespace ftsim::tb {

namespace {

hw::ImmunetParams immunet_params(const ExperimentConfig& cfg) {
  hw::ImmunetParams p;
  p.handle_cycles = cfg.immunet.handle_cycles;
  p.ack_window = cfg.immunet.ack_window;
  p.control_packet_cycles = cfg.immunet.control_packet_cycles;
  p.control_packet_flits = cfg.immunet.control_packet_flits;
  p.boot_tree_ring = cfg.immunet.boot_safe_network == "tree-ring";
  p.blocks = emergency_blocks(cfg.immunet.rtl);
  p.control_in_safe_vc = cfg.immunet.control_packets == "safe-ring";
  return p;
}

/// The control plane: boots the tables, binds the per-link ImmunetLinks,
/// sums the routers' counters (a child of the network: `net.immunet`).
void elaborate(Network& net, const ExperimentConfig& cfg) {
  const routing::Topology& t = net.topology();
  std::vector<hw::Router*> rs;
  std::vector<hw::NetworkInterface*> nis;
  std::vector<hw::LinkDirection*> out_links(static_cast<std::size_t>(t.num_routers()) * t.max_radix(), nullptr);
  for (routing::RouterId r = 0; r < t.num_routers(); ++r) {
    rs.push_back(&net.routers[r]);
    nis.push_back(&net.interfaces[r]);
    for (routing::PortId p = 0; p < t.radix(r); ++p)
      if (t.peer(r, p).kind == routing::PortPeer::Kind::kRouter)
        out_links[static_cast<std::size_t>(r) * t.max_radix() + p] = net.link_out_of(r, p);
  }
  net.add_part("immunet", std::make_unique<hw::ImmunetControlPlane>("immunet", net.context(),
                                                                    dynamic_cast<const routing::KAryNCube&>(t), rs, nis,
                                                                    out_links, immunet_params(cfg), *net.management));
}

/// stats.json "reconfiguration": the control plane's report (section 6.1).
void stats(Network& net, const ExperimentConfig&, std::uint64_t dropped, nlohmann::json& j) {
  hw::ImmunetControlPlane* plane = immunet_plane(net);
  if (plane == nullptr) return;
  const routing::Topology& topo = net.topology();
  plane->finalize();
  const auto& rep = plane->report();
  nlohmann::json rj;
  rj["happened"] = rep.happened;
  if (rep.happened) {
    rj["first_fault_cycle"] = rep.first_fault_cycle;
    rj["first_detect_cycle"] = rep.first_detect_cycle;
    rj["emergency_end_cycle"] = rep.emergency_end_cycle;
    rj["last_table_update_cycle"] = rep.last_table_update_cycle;
    rj["emergency_cycles"] = rep.emergency_end_cycle - rep.first_detect_cycle;
    rj["reconfiguration_cycles"] = rep.last_table_update_cycle - rep.first_fault_cycle;
    rj["root"] = rep.root >= 0 ? topo.router_label(rep.root) : std::string();
    rj["final_epl"] = rep.final_epl;
  }
  // The paper's count (section 6.1, Table 1) is packets emitted; the link
  // hops are kept alongside.
  rj["safe_control_messages"] = rep.safe_control_packets;
  rj["adaptive_control_messages"] = rep.adaptive_control_packets;
  rj["safe_control_packets"] = rep.safe_control_packets;
  rj["adaptive_control_packets"] = rep.adaptive_control_packets;
  rj["safe_control_hops"] = rep.safe_control_hops;
  rj["adaptive_control_hops"] = rep.adaptive_control_hops;
  rj["stale_control_packets"] = rep.stale_control_packets;
  rj["control_link_flits"] = rep.control_link_flits;
  rj["control_link_wait_cycles"] = rep.control_link_wait_cycles;
  rj["control_link_wait_max"] = rep.control_link_wait_max;
  rj["control_hop_cycles"] = rep.control_hop_cycles;
  rj["control_hop_cycles_max"] = rep.control_hop_cycles_max;
  rj["lost_control_packets"] = rep.lost_control_packets;
  rj["emergency_adoptions"] = rep.emergencies;
  rj["drained_packets"] = rep.drained_packets;
  rj["packets_lost"] = dropped;
  rj["mean_distance_before"] = rep.mean_distance_before;
  rj["mean_distance_after"] = rep.mean_distance_after;
  nlohmann::json lost = nlohmann::json::array();
  for (int n : rep.lost_nodes) lost.push_back(topo.node_label(n));
  rj["lost_nodes"] = lost;  // meaningful when complete
  rj["complete"] = rep.complete;
  rj["table_bits_per_router"] = {
      {"safe", plane->safe_table_bits()}, {"adaptive", plane->adaptive_table_bits()}, {"ss", plane->ss_table_bits()}};
  j["reconfiguration"] = rj;
}

}  // namespace

void add_immunet_hardware(MechanismPlugin& m) {
  m.router_hardware = [](const ExperimentConfig& cfg, const routing::Topology& t,
                         const routing::RoutingRelation&) -> hw::RouterMechanismFactory {
    return hw::immunet_router_factory(dynamic_cast<const routing::KAryNCube&>(t), immunet_params(cfg));
  };
  m.configure_relation = [](routing::RoutingRelation& r, const ExperimentConfig& cfg) {
    if (auto* immunet = dynamic_cast<routing::ImmunetRouting*>(&r)) immunet->set_max_moves(cfg.immunet.max_moves);
  };
  m.elaborate = elaborate;
  m.stats = stats;
  // The Local Fault Detectors at both ends (section 5).
  m.fault_detected = [](Network& net, routing::LinkId l, std::uint64_t fail_cycle) {
    const routing::Link& lk = net.topology().link(l);
    immunet_plane(net)->detect(lk.a, lk.a_port, fail_cycle);
    if (!lk.b_is_node) immunet_plane(net)->detect(lk.b, lk.b_port, fail_cycle);
  };
  m.router_failed = [](Network& net, routing::RouterId r) { immunet_plane(net)->router_failed(r); };
  m.busy = [](const Network& net) { return immunet_plane(net)->busy(); };
  m.reports_lost_nodes = true;
}

hw::ImmunetControlPlane* immunet_plane(Network& net) {
  return dynamic_cast<hw::ImmunetControlPlane*>(net.part("immunet"));
}

const hw::ImmunetControlPlane* immunet_plane(const Network& net) {
  return dynamic_cast<const hw::ImmunetControlPlane*>(net.part("immunet"));
}

}  // namespace ftsim::tb
