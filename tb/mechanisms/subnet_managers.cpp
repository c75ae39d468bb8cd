// DDRC (fat trees, the deterministic baseline of the DLR paper, section
// VII-A) and DQR (dynamic quick reconfiguration, section IV) through the
// mechanism seam: each elaborates a subnet manager (hw/subnet_manager.hpp,
// the network's part "ddrc" or "dqr", `net.subnet_manager`) that hears of
// link changes through link_detected, recomputes the tables with its engine
// and writes them through the management plane; busy while it works; its
// stats.json section ("ddrc" or "dqr").
#include <fmt/format.h>

#include <memory>
#include <set>
#include <string>

#include "common/config_error.hpp"
#include "hw/subnet_manager.hpp"
#include "routing_logic/dlr/fat_tree_analysis.hpp"
#include "routing_logic/dqr/dqr.hpp"
#include "routing_logic/topology/kary_ntree.hpp"
#include "routing_logic/updown.hpp"
#include "tb/analysis/dqr_analysis.hpp"
#include "tb/experiment_config.hpp"
#include "tb/mechanisms/builtin_hardware.hpp"
#include "tb/network.hpp"

namespace ftsim::tb {

namespace {

hw::SubnetManager* manager(Network& net, const char* mechanism) {
  return dynamic_cast<hw::SubnetManager*>(net.part(mechanism));
}
const hw::SubnetManager* manager(const Network& net, const char* mechanism) {
  return dynamic_cast<const hw::SubnetManager*>(net.part(mechanism));
}

void elaborate_ddrc(Network& net, const ExperimentConfig& cfg) {
  const routing::Topology& t = net.topology();
  const auto* tree = dynamic_cast<const routing::KAryNTree*>(&t);
  const std::string& rn = cfg.routing;
  if (tree == nullptr || (rn != "updown-det" && rn != "ddlr" && rn != "adlr" && rn != "ddlr-1fault"))
    throw ConfigError(fmt::format(
        "ddrc.enabled needs a kary-ntree topology and routing updown-det (DDRC) or ddlr/adlr/ddlr-1fault (hybrid); "
        "got {} with routing '{}'",
        cfg.topology, rn));
  // Boot tables: fault-free destination-based up/down (the DDRC baseline).
  routing::UpDownDeterministicRouting boot;
  boot.configure(t, 1);
  std::vector<std::vector<std::int32_t>> tables(static_cast<std::size_t>(t.num_routers()));
  for (routing::RouterId r = 0; r < t.num_routers(); ++r)
    for (routing::NodeId d = 0; d < t.num_nodes(); ++d)
      tables[static_cast<std::size_t>(r)].push_back(boot.default_port(r, d));
  net.load_forwarding_tables(tables);
  hw::Distribution dist;
  dist.distribution_cycles = cfg.ddrc.distribution_cycles;
  hw::TableEngine engine = [tree](const std::set<routing::LinkId>& faulty, const std::vector<routing::LinkId>&,
                                  hw::NodeTables& out, std::string&) {
    routing::FaultSet fs;
    fs.links.assign(faulty.begin(), faulty.end());
    out = routing::ddrc_tables(*tree, fs);
    return true;
  };
  net.add_part("ddrc", std::make_unique<hw::SubnetManager>("subnet_manager", t, *net.management, net.clk.period(),
                                                           cfg.ddrc.notification_cycles, cfg.ddrc.computation_cycles,
                                                           dist, std::move(tables), std::move(engine)));
}

void elaborate_dqr(Network& net, const ExperimentConfig& cfg) {
  const routing::Topology& t = net.topology();
  if (cfg.ddrc.enabled) throw ConfigError("dqr.enabled and ddrc.enabled: choose one subnet manager");
  if (cfg.routing != "lft")
    throw ConfigError(
        fmt::format("dqr.enabled needs routing 'lft' (the switches route by their tables); got '{}'", cfg.routing));
  const auto options = routing::dqr::variant_options(cfg.dqr.variant);
  auto tables = dqr_initial_tables(t, cfg.dqr.initial);
  auto dqr_engine = std::make_shared<routing::dqr::Engine>(t, tables);
  net.load_forwarding_tables(tables);
  hw::Distribution dist;
  dist.mode = cfg.dqr.distribution == "sequential" ? hw::Distribution::Mode::kSequential
              : cfg.dqr.distribution == "static"   ? hw::Distribution::Mode::kStatic
                                                   : hw::Distribution::Mode::kAtomic;
  Network* n = &net;
  dist.hold_injection = [n](bool held) {
    for (auto& ni : n->interfaces) ni.set_new_packets_held(held);
  };
  dist.network_empty = [n] {
    for (const auto& ni : n->interfaces)
      if (!ni.injecting().empty()) return false;
    return n->buffered_flits() == 0;
  };
  dist.order = cfg.dqr.order == "random" ? hw::Distribution::Order::kRandom : hw::Distribution::Order::kDownstreamFirst;
  dist.distribution_cycles = cfg.dqr.distribution_cycles;
  dist.block_cycles = cfg.dqr.block_cycles;
  dist.seed = cfg.sim.seed;
  hw::TableEngine engine;
  if (!cfg.dqr.replay_tables.empty()) {
    auto replay = std::make_shared<hw::NodeTables>(dqr_initial_tables(t, "import:" + cfg.dqr.replay_tables));
    engine = [replay](const std::set<routing::LinkId>&, const std::vector<routing::LinkId>&, hw::NodeTables& out,
                      std::string&) {
      out = *replay;
      return true;
    };
  } else {
    engine = [dqr_engine, options](const std::set<routing::LinkId>& faulty, const std::vector<routing::LinkId>& changed,
                                   hw::NodeTables& out, std::string& why) {
      std::vector<routing::LinkId> failed;
      for (routing::LinkId l : changed)
        if (faulty.count(l) != 0U && !dqr_engine->dead_links()[static_cast<std::size_t>(l)]) failed.push_back(l);
      if (failed.empty()) {
        why = "a link came back: DQR keeps its tables (repair is not part of the paper)";
        return false;
      }
      const auto r = dqr_engine->reconfigure(failed, options);
      if (!r.success) {
        why = r.failure;
        return false;
      }
      out = dqr_engine->tables();
      return true;
    };
  }
  net.add_part("dqr", std::make_unique<hw::SubnetManager>("subnet_manager", t, *net.management, net.clk.period(),
                                                          cfg.dqr.notification_cycles, cfg.dqr.computation_cycles, dist,
                                                          std::move(tables), std::move(engine)));
}

/// The hooks both subnet managers share (the part is kept under `name`).
void add_subnet_manager_hooks(MechanismPlugin& m, const char* name) {
  m.link_detected = [name](Network& net, routing::LinkId l, bool alive) { manager(net, name)->link_state(l, alive); };
  m.busy = [name](const Network& net) { return manager(net, name)->busy(); };
}

}  // namespace

void add_ddrc_hardware(MechanismPlugin& m) {
  m.elaborate = elaborate_ddrc;
  add_subnet_manager_hooks(m, "ddrc");
  m.stats = [](Network& net, const ExperimentConfig& cfg, std::uint64_t, nlohmann::json& j) {
    const hw::SubnetManager& sm = *manager(net, "ddrc");
    j["ddrc"] = {{"notifications", sm.notifications()},
                 {"table_updates", sm.update_cycles().size()},
                 {"update_cycles", sm.update_cycles()},
                 {"table_writes", sm.table_writes()},
                 {"management_transactions", net.management->transactions()},
                 {"notification_cycles", cfg.ddrc.notification_cycles},
                 {"computation_cycles", cfg.ddrc.computation_cycles},
                 {"distribution_cycles", cfg.ddrc.distribution_cycles}};
  };
}

void add_dqr_hardware(MechanismPlugin& m) {
  m.elaborate = elaborate_dqr;
  add_subnet_manager_hooks(m, "dqr");
  m.stats = [](Network& net, const ExperimentConfig& cfg, std::uint64_t, nlohmann::json& j) {
    const hw::SubnetManager& sm = *manager(net, "dqr");
    j["dqr"] = {{"notifications", sm.notifications()},
                {"reconfigurations", sm.computed_cycles().size()},
                {"computed_cycles", sm.computed_cycles()},
                {"update_cycles", sm.update_cycles()},
                {"halted_cycles", sm.halted_cycles()},
                {"table_writes", sm.table_writes()},
                {"blocks_written", sm.blocks_written()},
                {"failures", sm.failures()},
                {"variant", cfg.dqr.variant},
                {"initial", cfg.dqr.initial},
                {"distribution", cfg.dqr.distribution},
                {"order", cfg.dqr.order},
                {"block_cycles", cfg.dqr.block_cycles},
                {"management_transactions", net.management->transactions()}};
  };
}

}  // namespace ftsim::tb
