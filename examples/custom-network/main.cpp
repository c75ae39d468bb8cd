// ftsim as a SystemC library: two ways to use it from your own code.
//
//   custom_network endpoints   your own TLM-2.0 initiators and targets on a
//                              4x4 mesh routed by your own relation ("yx"):
//                              every node sends one 64-byte message to every
//                              other node; checks that all 240 arrive after
//                              exactly the Manhattan distance in hops.
//   custom_network experiment  ftsim's experiment runner with your own routing
//                              relation, traffic pattern ("mirror") and fault
//                              model ("one-x-link"), named in the experiment
//                              text like built-in ones; writes OUT/stats.json.
//
// Exit status 0 when every check passes, 1 otherwise, 2 for a bad argument.
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "tb/experiment_config.hpp"
#include "tb/experiment_runner.hpp"
#include "tb/network.hpp"
#include "tb/plugin_registry.hpp"
#include "yx_routing.hpp"

namespace {

constexpr int kSide = 4;
constexpr int kNodes = kSide * kSide;

/// Sends one message of `bytes` to every other node, one per cycle.
struct AllToAllInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<AllToAllInitiator> socket;
  int node;
  sc_core::sc_time period;
  int rejected = 0;
  SC_HAS_PROCESS(AllToAllInitiator);
  AllToAllInitiator(sc_core::sc_module_name name, int node_id, sc_core::sc_time clock_period)
      : sc_module(name), socket("socket"), node(node_id), period(clock_period) {
    SC_THREAD(send);
  }
  void send() {
    std::vector<unsigned char> data(64, 0);
    for (int d = 0; d < kNodes; ++d) {
      if (d == node) continue;
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(static_cast<sc_dt::uint64>(d));  // destination node
      gp.set_data_ptr(data.data());
      gp.set_data_length(static_cast<unsigned>(data.size()));  // message bytes
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      socket->b_transport(gp, delay);
      if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) ++rejected;
      wait(period);
    }
  }
};

/// Receives delivered messages and checks each one's hop count.
struct CheckingTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<CheckingTarget> socket;
  int node;
  int received = 0;
  int wrong_hops = 0;
  CheckingTarget(sc_core::sc_module_name name, int node_id) : sc_module(name), socket("socket"), node(node_id) {
    socket.register_b_transport(this, &CheckingTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    ++received;
    const auto* ext = gp.get_extension<ftsim::hw::DeliveryExtension>();
    const int src = ext != nullptr ? ext->src : -1;
    const int manhattan = std::abs(src % kSide - node % kSide) + std::abs(src / kSide - node / kSide);
    if (ext == nullptr || ext->hops != manhattan) ++wrong_hops;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

void register_plugins() {
  ftsim::routing::register_routing("yx", "example: YX dimension-order routing on a 2-D mesh",
                                   [] { return std::make_unique<example::YxRouting>(); });
  // Node n sends to node N-1-n (the centre-mirrored node).
  ftsim::tb::register_traffic_pattern("mirror", "example: node n sends to node N-1-n",
                                      [](ftsim::routing::NodeId src, const ftsim::routing::Topology& topo,
                                         std::mt19937_64&) { return topo.num_nodes() - 1 - src; });
  // One link fails at faults.random_at and is repaired 500 cycles later:
  // the first link of the topology (for a mesh, an X link of row 0).
  ftsim::tb::register_fault_model("one-x-link", "example: link 0 fails at faults.random_at for 500 cycles",
                                  [](const ftsim::routing::Topology&, const ftsim::tb::FaultsSpec& spec) {
                                    ftsim::tb::ResolvedFault f;
                                    f.id = 0;
                                    f.at = spec.random_at;
                                    f.repair = spec.random_at + 500;
                                    return std::vector<ftsim::tb::ResolvedFault>{f};
                                  });
}

int run_endpoints() {
  const auto cfg = ftsim::tb::parse_experiment("topology: mesh:4x4\nrouting: yx\n", {});
  ftsim::tb::NetworkOptions options;
  options.traffic_endpoints = false;
  ftsim::tb::Network net("net", cfg, options);
  std::vector<std::unique_ptr<AllToAllInitiator>> initiators;
  std::vector<std::unique_ptr<CheckingTarget>> targets;
  for (int n = 0; n < kNodes; ++n) {
    initiators.push_back(
        std::make_unique<AllToAllInitiator>(("init_" + std::to_string(n)).c_str(), n, net.clk.period()));
    targets.push_back(std::make_unique<CheckingTarget>(("target_" + std::to_string(n)).c_str(), n));
    initiators.back()->socket.bind(net.interfaces[static_cast<std::size_t>(n)].target);
    net.interfaces[static_cast<std::size_t>(n)].deliver.bind(targets.back()->socket);
  }
  sc_core::sc_start(net.clk.period() * 2000.0);
  int received = 0;
  int wrong = 0;
  int rejected = 0;
  for (const auto& t : targets) {
    received += t->received;
    wrong += t->wrong_hops;
  }
  for (const auto& i : initiators) rejected += i->rejected;
  std::cout << "endpoints: " << received << " of " << kNodes * (kNodes - 1) << " messages delivered, " << wrong
            << " with a hop count other than the Manhattan distance, " << rejected << " rejected, yx route() calls "
            << example::YxRouting::calls() << "\n";
  return received == kNodes * (kNodes - 1) && wrong == 0 && rejected == 0 && example::YxRouting::calls() > 0 ? 0 : 1;
}

int run_with_experiment_runner(const std::string& out) {
  const std::string yaml =
      "name: custom-plugins\n"
      "topology: mesh:4x4\n"
      "routing: yx\n"
      "traffic: {pattern: mirror, load: 0.1}\n"
      "sim: {warmup_cycles: 500, measure_cycles: 2000}\n"
      "faults: {model: one-x-link, random_at: 1000}\n";
  const auto cfg = ftsim::tb::parse_experiment(yaml, {});
  ftsim::tb::RunOptions options;
  options.out_dir = out;
  options.quiet = true;
  const ftsim::tb::RunResult r = ftsim::tb::run_experiment(cfg, options);
  const auto& p = r.stats["packets"];
  std::cout << "experiment: exit " << r.exit_code << ", injected " << p["injected"] << ", delivered " << p["delivered"]
            << ", dropped " << p["dropped"] << ", faults " << r.stats["faults"].size() << ", stats in " << out
            << "/stats.json\n";
  return r.exit_code == 0 && r.stats["faults"].size() == 1 && p["delivered"].get<std::uint64_t>() > 0 ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    register_plugins();
    if (mode == "endpoints") return run_endpoints();
    if (mode == "experiment") return run_with_experiment_runner(argc > 2 ? argv[2] : "custom-network-out");
  } catch (const std::exception& e) {
    std::cerr << "custom_network: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: custom_network endpoints | experiment [OUT_DIR]\n";
  return 2;
}
