// `ftsim cost` / stats.json hardware_cost (issue 52 item 1) against hand
// counts on small networks and the intermediate-nodes paper's worked example.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <tlm>

#include "common/config_error.hpp"
#include "tb/experiment_config.hpp"
#include "tb/hardware_cost.hpp"
#include "tb/network.hpp"

using ftsim::tb::hardware_cost_json;
using ftsim::tb::Network;
using ftsim::tb::parse_experiment;

namespace {

/// The cost report of a network elaborated from `topology`, `routing` and a
/// router section (VCT, `vcs` VCs of `buffer` flits) under module name `name`.
nlohmann::json cost_of(const std::string& name, const std::string& topology, const std::string& routing, int vcs,
                       int buffer, const std::string& extra = "") {
  const auto cfg = parse_experiment(
      "topology: " + topology + "\nrouting: " + routing + "\nrouter: {vcs: " + std::to_string(vcs) +
          ", buffer_flits: " + std::to_string(buffer) + ", flow_control: vct}\ntraffic: {load: 0.1}\n" + extra,
      {});
  const Network& net = *new Network(name.c_str(), cfg);
  return hardware_cost_json(net, cfg);
}

long long bits_of(const nlohmann::json& j, const std::string& block, const char* field = "bits_per_router_max") {
  for (const auto& b : j["blocks"])
    if (b["block"] == block) return b[field].get<long long>();
  return -1;
}

}  // namespace

TEST(HardwareCost, RouterStorageAndCrossbarByHandOnA4x4Mesh) {
  // mesh:4x4, every router built with 5 ports (4 directions and the node;
  // border routers keep their unconnected ports), V = 2, B = 4, 16-byte
  // flits (128 bits): buffers 5 x 2 x 4 x 128 = 5,120 bits; credit counters
  // count 0..4 (3 bits): 5 x 2 x 3 = 30; VC state 2 + 3 (port 0..4) + 1
  // (VC 0..1) = 6 bits per VC: 60. Crossbar 5 x 5 = 25 crosspoints; DOR
  // computes routes, so no table. 16 routers.
  const auto cfg = parse_experiment(
      "topology: mesh:4x4\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 4}\ntraffic: {load: 0.1, flit_bytes: 16}\n",
      {});
  const Network& net = *new Network("mesh", cfg);
  const auto j = hardware_cost_json(net, cfg);
  EXPECT_EQ(bits_of(j, "vc_buffers"), 5120);
  EXPECT_EQ(bits_of(j, "vc_buffers", "bits_total"), 16 * 5120);
  EXPECT_EQ(bits_of(j, "credit_counters"), 30);
  EXPECT_EQ(bits_of(j, "vc_state"), 60);
  EXPECT_EQ(bits_of(j, "forwarding_table"), -1);
  EXPECT_EQ(j["logic"]["crosspoints"].get<long long>(), 16 * 25);
  EXPECT_EQ(j["storage_bits"]["total"].get<long long>(), 16 * (5120 + 30 + 60));
  EXPECT_EQ(j["header_bits"]["routing"].get<int>(), 4);  // destinations 0..15
}

TEST(HardwareCost, WavefrontVcAllocatorCellsByHandOnA4x4Mesh) {
  // P = 5 ports x V = 2 VCs: a 10 x 10 wavefront, 100 cells per router, no
  // output-VC arbiters; 16 routers.
  const auto cfg = parse_experiment(
      "topology: mesh:4x4\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 4, vc_allocator: wavefront}\n"
      "traffic: {load: 0.1}\n",
      {});
  const Network& net = *new Network("meshwf", cfg);
  const auto j = hardware_cost_json(net, cfg);
  EXPECT_EQ(j["logic"]["vc_allocator_wavefront_cells"].get<long long>(), 16 * 100);
  EXPECT_EQ(j["logic"]["vc_allocator_arbiters"].get<long long>(), 0);
}

TEST(HardwareCost, ImmunetTablesByHandOnA4x4Torus) {
  // torus:4x4, 5 ports, 16 nodes: the Safe table a 5-bit port mask per
  // destination (80 bits), the Adaptive table a mask and a distance 0..16
  // (5 bits) per destination (16 x 10 = 160), the SS table (2 x 2)^2 = 16,
  // the 32-bit EPL register.
  const auto j = cost_of("imm", "torus:4x4", "immunet", 2, 8);
  EXPECT_EQ(bits_of(j, "immunet_safe_table"), 80);
  EXPECT_EQ(bits_of(j, "immunet_adaptive_table"), 160);
  EXPECT_EQ(bits_of(j, "immunet_ss_table"), 16);
  EXPECT_EQ(bits_of(j, "immunet_epl_register"), 32);
  EXPECT_EQ(j["storage_bits"]["by_mechanism"]["immunet"].get<long long>(), 16 * (80 + 160 + 16 + 32));
  // Gates: 4 links x (Input Block 19 + Output Block 35) + the 882-cell
  // Reconfiguration Module = 1,098 per router, 16 routers.
  EXPECT_EQ(j["rtl_cells"]["per_router_max"].get<long long>(), 1098);
  EXPECT_EQ(j["rtl_cells"]["total"].get<long long>(), 16 * 1098);
}

TEST(HardwareCost, TheGateCountsAreTheCommittedSynthesisResults) {
  // docs/reproduction/data/rtl-cell-counts.csv is what scripts/rtl_cell_counts.sh
  // wrote (the rtl ctest re-synthesises and compares); the report's
  // constants must be those numbers.
  std::ifstream f(std::string(FTSIM_SOURCE_DIR) + "/docs/reproduction/data/rtl-cell-counts.csv");
  ASSERT_TRUE(f.good());
  std::map<std::string, std::pair<int, int>> cells;
  std::string line;
  std::getline(f, line);
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::string block, params, n, ff;
    std::getline(ss, block, ',');
    std::getline(ss, params, ',');
    std::getline(ss, n, ',');
    std::getline(ss, ff, ',');
    cells[block] = {std::stoi(n), std::stoi(ff)};
  }
  using ftsim::tb::RtlCells;
  EXPECT_EQ(cells.at("input_block").first, RtlCells::kInputBlock);
  EXPECT_EQ(cells.at("output_block").first, RtlCells::kOutputBlock);
  EXPECT_EQ(cells.at("reconfiguration_module").first, RtlCells::kReconfigurationModule);
  EXPECT_EQ(cells.at("reconfiguration_module").second, RtlCells::kReconfigurationModuleFlipFlops);
}

TEST(HardwareCost, ForwardingTablesAndTheRerouteVectorOnAFatTree) {
  // kary-ntree:2,3 with up*/down* tables (DDRC): 12 switches of 4 ports, 8
  // destinations of ceil(log2 5) = 3 bits: 24 bits per switch. ADLR instead:
  // a re-route bit per upward port (k = 2) and a time-out counter to 10,000
  // (14 bits).
  const auto ja = cost_of("ddrc", "kary-ntree:2,3", "updown-det", 1, 8, "ddrc: {enabled: true}\n");
  EXPECT_EQ(bits_of(ja, "forwarding_table"), 24);
  EXPECT_EQ(bits_of(ja, "forwarding_table", "bits_total"), 12 * 24);
  const auto jb = cost_of("adlr", "kary-ntree:2,3", "adlr", 1, 8);
  EXPECT_EQ(bits_of(jb, "reroute_vector"), 2);
  EXPECT_EQ(bits_of(jb, "reroute_timer"), 14);
  EXPECT_EQ(jb["storage_bits"]["by_mechanism"]["dlr"].get<long long>(), 12 * (2 + 14));
}

TEST(HardwareCost, IntermediateNodeRoutingInfoAsSection52) {
  // Section 5.2, footnote 13: I x 2 stores two 2-byte intermediate-node
  // addresses per destination, (2B + 2B) x nodes per source. On the 4x4x4
  // torus: 4 x 64 x 8 = 2,048 bits per node; the header adds at most two
  // subheaders of a 6-bit address (Fig. 8): 12 bits. (The paper's 65,536
  // nodes give 256 KB: InodeRoutingInfo.Ix2TableFor65536NodesIs256KB.)
  const auto j = cost_of("inodes", "torus:4x4x4", "inodes:Ix2", 5, 10);
  EXPECT_EQ(bits_of(j, "inodes_routing_info"), 2048);
  EXPECT_EQ(bits_of(j, "inodes_routing_info", "bits_total"), 64 * 2048);
  EXPECT_EQ(j["header_bits"]["inodes_max"].get<long long>(), 12);
  EXPECT_EQ(ftsim::tb::bits_for_count(0), 0);
  EXPECT_EQ(ftsim::tb::bits_for_count(1), 1);
  EXPECT_EQ(ftsim::tb::bits_for_count(4), 3);
  EXPECT_EQ(ftsim::tb::bits_for_count(10000), 14);
}

namespace {
// The energy events of a run so far (what experiment_runner hands energy_json).
ftsim::tb::EnergyEvents events_of(const ftsim::hw::NetworkStats& s) {
  ftsim::tb::EnergyEvents ev;
  ev.crossbar_flits = s.crossbar_flits();
  ev.ejected_flits = s.ejected_flits();
  ev.heads = s.crossbar_heads();
  ev.injected_flits = s.flits_injected;
  return ev;
}

void send(Network& net, int src, int dst, int bytes) {
  tlm::tlm_generic_payload gp;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(static_cast<sc_dt::uint64>(dst));
  gp.set_data_length(static_cast<unsigned>(bytes));
  gp.set_streaming_width(static_cast<unsigned>(bytes));
  gp.set_data_ptr(nullptr);
  net.generators[static_cast<std::size_t>(src)].socket->b_transport(gp, delay);
}
}  // namespace

TEST(EnergyModel, EveryEventOfTwoPacketsOnA2x2MeshByHand) {
  // mesh:2x2 with DOR (x first), 16-byte flits, no random traffic. Two
  // 4-flit packets: node 0 -> node 3 crosses routers 0, 1, 3 (two links),
  // node 1 -> node 0 routers 1, 0 (one link). Events: flits injected into
  // buffers 4 + 4 = 8; read through a crossbar 3 x 4 + 2 x 4 = 20, of which
  // 8 ejected; link traversals 20 - 8 = 12; buffer writes 8 + 12 = 20;
  // heads through a crossbar (route computations, VC allocations) 3 + 2 = 5.
  // Dynamic energy with the default technology (128-bit flits, no scaling):
  // 20 x 4.0 + 20 x 3.0 + 20 x 0.8 + 12 x 128 x 0.0488 + 5 x 0.06 + 5 x 0.05
  // = 80 + 60 + 16 + 74.9568 + 0.3 + 0.25 = 231.5068 pJ. Static over 1,000
  // cycles at 1 GHz: 4 routers x 5 ports x 2 VCs = 40 buffers x 15 mW, 4
  // crossbars x 2.75 mW, 8 link directions x 128 bits x 0.00048 mW, 4 x 0.12
  // mW routing and 4 x 0.11 mW selection, x 1,000 ns: 600,000 + 11,000 +
  // 491.52 + 480 + 440 = 612,411.52 pJ.
  auto cfg = parse_experiment(
      "topology: mesh:2x2\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 4}\ntraffic: {load: 0.01, flit_bytes: 16}\n",
      {});
  Network& net = *new Network("net2", cfg);
  for (auto& g : net.generators) g.stop();
  send(net, 0, 3, 64);
  send(net, 1, 0, 64);
  sc_core::sc_start(net.clk.period() * 200.0);
  const auto& s = net.context().stats;
  ASSERT_EQ(s.delivered, 2U);
  net.gather_energy_events();
  ftsim::tb::EnergyEvents ev = events_of(s);
  // Gathering again recomputes the same counts (it does not add to them).
  const std::vector<std::uint64_t> arrivals = s.router_arrivals;
  net.gather_energy_events();
  EXPECT_EQ(events_of(s).crossbar_flits, ev.crossbar_flits);
  EXPECT_EQ(s.router_arrivals, arrivals);
  ev.cycles = 1000;
  const auto j = ftsim::tb::energy_json(net, cfg, ftsim::tb::Technology{}, ev);
  const auto& e = j["events"];
  EXPECT_EQ(e["buffer_writes"].get<long long>(), 20);
  EXPECT_EQ(e["buffer_reads"].get<long long>(), 20);
  EXPECT_EQ(e["link_traversals"].get<long long>(), 12);
  EXPECT_EQ(e["route_computations"].get<long long>(), 5);
  EXPECT_EQ(ev.ejected_flits, 8U);
  EXPECT_NEAR(j["dynamic_pj"]["total"].get<double>(), 231.5068, 1e-6);
  EXPECT_NEAR(j["static_pj"]["total"].get<double>(), 612411.52, 1e-4);
  EXPECT_NEAR(j["pj_per_delivered_flit"].get<double>(), (231.5068 + 612411.52) / 8, 1e-4);
  // Twice the flit width: the per-flit figures double, the per-bit link
  // figure doubles through the bits, the per-decision ones stay.
  cfg.traffic.flit_bytes = 32;
  const auto j2 = ftsim::tb::energy_json(net, cfg, ftsim::tb::Technology{}, ev);
  EXPECT_NEAR(j2["dynamic_pj"]["total"].get<double>(), 2 * (80 + 60 + 16 + 74.9568) + 0.55, 1e-6);
}

TEST(EnergyModel, TheShippedTechnologyFileIsTheDefaultAndBadFilesAreNamed) {
  const std::string dir = FTSIM_SOURCE_DIR;
  const auto t = ftsim::tb::load_technology(dir + "/experiments/technology/noxim-default-128bit.yaml");
  const ftsim::tb::Technology d;
  EXPECT_EQ(t.name, d.name);
  EXPECT_EQ(t.flit_bits, d.flit_bits);
  for (const auto& [a, b] :
       std::vector<std::pair<double, double>>{{t.buffer_write_pj, d.buffer_write_pj},
                                              {t.buffer_read_pj, d.buffer_read_pj},
                                              {t.crossbar_pj, d.crossbar_pj},
                                              {t.link_pj_per_bit, d.link_pj_per_bit},
                                              {t.routing_pj, d.routing_pj},
                                              {t.routing_table_pj, d.routing_table_pj},
                                              {t.selection_pj, d.selection_pj},
                                              {t.switch_allocation_pj, d.switch_allocation_pj},
                                              {t.buffer_static_mw, d.buffer_static_mw},
                                              {t.crossbar_static_mw, d.crossbar_static_mw},
                                              {t.link_static_mw_per_bit, d.link_static_mw_per_bit},
                                              {t.routing_static_mw, d.routing_static_mw},
                                              {t.routing_table_static_mw, d.routing_table_static_mw},
                                              {t.selection_static_mw, d.selection_static_mw}})
    EXPECT_DOUBLE_EQ(a, b);
  EXPECT_THROW(ftsim::tb::load_technology(dir + "/no/such/file.yaml"), ftsim::ConfigError);
}

TEST(EnergyModel, MechanismEventsByHand) {
  // Immunet: 10 control flits on links of 128-bit flits at 0.0488 pJ/bit =
  // 62.464 pJ, 2 + 3 control packets handled, one table entry each at 0.12
  // pJ = 0.6; DDRC: 5 table entries written = 0.6. 63.664 pJ in all, added
  // to a run of 400 pJ that delivered 10 flits (40 pJ each): 463.664 pJ,
  // 46.3664 pJ per delivered flit.
  nlohmann::json s = {
      {"reconfiguration", {{"control_link_flits", 10}, {"safe_control_hops", 2}, {"adaptive_control_hops", 3}}},
      {"ddrc", {{"table_writes", 5}}},
      {"energy",
       {{"dynamic_pj", {{"total", 100.0}}},
        {"static_pj", {{"total", 300.0}}},
        {"total_pj", 400.0},
        {"pj_per_delivered_flit", 40.0}}}};
  ftsim::tb::ExperimentConfig cfg;
  cfg.traffic.flit_bytes = 16;
  ftsim::tb::add_mechanism_energy(s, cfg, ftsim::tb::Technology{});
  const auto& m = s["energy"]["mechanisms_pj"];
  EXPECT_NEAR(m["immunet_control_links"].get<double>(), 62.464, 1e-9);
  EXPECT_NEAR(m["immunet_table_updates"].get<double>(), 0.6, 1e-9);
  EXPECT_NEAR(m["ddrc_table_writes"].get<double>(), 0.6, 1e-9);
  EXPECT_NEAR(m["total"].get<double>(), 63.664, 1e-9);
  EXPECT_NEAR(s["energy"]["total_pj"].get<double>(), 463.664, 1e-9);
  EXPECT_NEAR(s["energy"]["pj_per_delivered_flit"].get<double>(), 46.3664, 1e-9);
}

TEST(HardwareCost, MikantPortFaultFlagsByHand) {
  // mikant:3,3 routed by Go-Neighbor-Switch and Go-Down-Level: each of its
  // 36 switches has 2k = 6 ports and keeps a fault flag per port: 6 bits,
  // 216 in all; shortest-path routing alone keeps none.
  const auto j = cost_of("mikant", "mikant:3,3", "gns+gdl", 2, 8);
  EXPECT_EQ(bits_of(j, "port_fault_flags"), 6);
  EXPECT_EQ(bits_of(j, "port_fault_flags", "bits_total"), 36 * 6);
  EXPECT_EQ(bits_of(cost_of("mikant_plain", "mikant:3,3", "mikant-shortest", 2, 8), "port_fault_flags"), -1);
}

TEST(EnergyModel, ByRouterClassOnAFatTreeByHand) {
  // kary-ntree:2,2 (two leaves of two nodes, two top switches), ADLR, one
  // 4-flit packet of 128-bit flits from node 0 to node 2: leaf, top, leaf.
  // Tier 0 (the leaves): 8 flits written (4 from the node, 4 from the top),
  // 8 read through the crossbar, 4 sent on a link, 2 heads:
  // 8 x 4.0 + 8 x (3.0 + 0.8) + 4 x 128 x 0.0488 + 2 x (0.06 + 0.05) =
  // 87.6056 pJ. Tier 1: 4 written, 4 read, 4 on a link, 1 head: 56.2956 pJ.
  // The classes add up to the totals.
  auto cfg = parse_experiment(
      "topology: kary-ntree:2,2\nrouting: adlr\nrouter: {vcs: 1, buffer_flits: 8, flow_control: vct}\ntraffic: "
      "{load: 0.01, flit_bytes: 16}\n",
      {});
  Network& net = *new Network("tree", cfg);
  for (auto& g : net.generators) g.stop();
  send(net, 0, 2, 64);
  sc_core::sc_start(net.clk.period() * 200.0);
  const auto& s = net.context().stats;
  ASSERT_EQ(s.delivered, 1U);
  net.gather_energy_events();
  ftsim::tb::EnergyEvents ev = events_of(s);
  ev.cycles = 100;
  const auto j = ftsim::tb::energy_json(net, cfg, ftsim::tb::Technology{}, ev);
  const auto& c = j["by_router_class"];
  ASSERT_EQ(c.size(), 2U);
  EXPECT_EQ(c[0]["class"], "tier 0");
  EXPECT_EQ(c[0]["routers"].get<int>(), 2);
  EXPECT_NEAR(c[0]["dynamic_pj"].get<double>(), 87.6056, 1e-6);
  EXPECT_NEAR(c[1]["dynamic_pj"].get<double>(), 56.2956, 1e-6);
  EXPECT_NEAR(c[0]["dynamic_pj"].get<double>() + c[1]["dynamic_pj"].get<double>(),
              j["dynamic_pj"]["total"].get<double>(), 1e-6);
  EXPECT_NEAR(c[0]["static_pj"].get<double>() + c[1]["static_pj"].get<double>(), j["static_pj"]["total"].get<double>(),
              1e-6);
}
