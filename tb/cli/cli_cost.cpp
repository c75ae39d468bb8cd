// `ftsim cost EXPERIMENT.yaml`: the storage and switching logic of the
// configured routers per block and mechanism (issue 52 item 1), from the
// elaborated network, without simulating.
#include <fmt/format.h>

#include <iostream>

#include "tb/cli/cli_commands.hpp"
#include "tb/experiment_config.hpp"
#include "tb/hardware_cost.hpp"
#include "tb/network.hpp"
#include "tb/output_files.hpp"

namespace ftsim::tb::cli {

namespace {

class CostCommand final : public Command {
 public:
  explicit CostCommand(CLI::App& app) {
    auto* cost = app.add_subcommand(
        "cost",
        "storage (bits per block and mechanism) and switching logic of the configured routers, without "
        "simulating; the same figures as stats.json hardware_cost");
    cost->add_option("experiment", m_experiment, "experiment YAML file")->required();
    cost->add_option("--set", m_sets, "override a key: dotted.key=value (repeatable)");
    cost->add_option("--json", m_json, "also write the figures as JSON to this file");
    m_app = cost;
  }
  int execute() override {
    if (!m_json.empty()) check_output_file(m_json, "--json");
    const auto cfg = load_experiment(m_experiment, m_sets);
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    // Never destroyed, as in ftsim run: SystemC elaborates once per process.
    const Network& net = *new Network("net", cfg);
    const nlohmann::json j = hardware_cost_json(net, cfg);
    std::cout << fmt::format("{} ({} routers, {} nodes, routing {}), flits of {} bits\n", net.topology().spec(),
                             j["routers"].get<long long>(), net.topology().num_nodes(), cfg.routing,
                             j["flit_bits"].get<long long>());
    std::cout << fmt::format("{:<24} {:<9} {:>14} {:>12}  {}\n", "block", "mechanism", "bits (total)", "per router",
                             "formula");
    for (const auto& b : j["blocks"])
      std::cout << fmt::format("{:<24} {:<9} {:>14} {:>12}  {}\n", b["block"].get<std::string>(),
                               b["mechanism"].get<std::string>(), b["bits_total"].get<long long>(),
                               b["bits_per_router_max"].get<long long>(), b["formula"].get<std::string>());
    const auto& s = j["storage_bits"];
    std::cout << fmt::format("storage: {} bits in all ({:.1f} KiB), {:.0f} bits per router on average\n",
                             s["total"].get<long long>(), s["total"].get<double>() / 8192.0,
                             s["per_router_mean"].get<double>());
    for (const auto& [m, bits] : s["by_mechanism"].items())
      std::cout << fmt::format("  {:<9} {:>14} bits ({:.1f}%)\n", m, bits.get<long long>(),
                               100.0 * bits.get<double>() / std::max(1.0, s["total"].get<double>()));
    const auto& l = j["logic"];
    std::cout << fmt::format(
        "logic: {} crossbar crosspoints ({} per router at most), {} switch-allocator and {} VC-allocator arbiters\n",
        l["crosspoints"].get<long long>(), l["crosspoints_per_router_max"].get<long long>(),
        l["switch_allocator_arbiters"].get<long long>(), l["vc_allocator_arbiters"].get<long long>());
    if (j.contains("rtl_cells") && j["rtl_cells"].contains("per_router_max"))
      std::cout << fmt::format(
          "gates (yosys, rtl_ref/): {} per router at most (Input Block {} and Output Block {} per link, "
          "Reconfiguration Module {} of which {} flip-flops), {} in all\n",
          j["rtl_cells"]["per_router_max"].get<long long>(), j["rtl_cells"]["input_block"].get<int>(),
          j["rtl_cells"]["output_block"].get<int>(), j["rtl_cells"]["reconfiguration_module"].get<int>(),
          j["rtl_cells"]["reconfiguration_module_flip_flops"].get<int>(), j["rtl_cells"]["total"].get<long long>());
    if (j["header_bits"]["inodes_max"].get<long long>() > 0)
      std::cout << fmt::format("header: up to {} bits of intermediate-node subheaders per packet\n",
                               j["header_bits"]["inodes_max"].get<long long>());
    if (!m_json.empty()) write_file_atomically(m_json, j.dump(2) + "\n");
    return 0;
  }

 private:
  std::string m_experiment, m_json;
  std::vector<std::string> m_sets;
};

}  // namespace

void add_cost_command(CLI::App& app, Commands& out) {
  out.push_back(std::make_unique<CostCommand>(app));
}

}  // namespace ftsim::tb::cli
