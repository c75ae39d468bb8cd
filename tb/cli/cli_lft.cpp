// `ftsim lft`: compare, export and describe InfiniBand forwarding tables.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "common/config_error.hpp"
#include "routing_logic/dqr/dqr.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/switch_endpoints.hpp"
#include "tables/lft.hpp"
#include "tables/path_sl.hpp"
#include "tb/cli/cli_commands.hpp"
#include "tb/analysis/dqr_analysis.hpp"
#include "tb/output_files.hpp"

namespace ftsim::tb::cli {

namespace {

/// The fabric the tables are traced or computed on. endpoints "all": on an
/// indirect fabric every switch is an endpoint too (its LID on port 0,
/// routing::SwitchEndpointTopology), so the tables route and the traces
/// follow switch LIDs; "hca": HCAs only. Direct fabrics (mesh, torus) route
/// a switch's LID like its own HCA's either way. Throws ConfigError for
/// another value or an unknown topology.
std::unique_ptr<ftsim::routing::Topology> lft_fabric(const std::string& spec, const std::string& endpoints) {
  if (endpoints != "all" && endpoints != "hca")
    throw ftsim::ConfigError(fmt::format("--endpoints '{}': one of all, hca", endpoints));
  auto topo = ftsim::routing::make_topology(spec);
  if (endpoints == "all" && !topo->is_direct())
    topo = std::make_unique<ftsim::routing::SwitchEndpointTopology>(std::move(topo));
  return topo;
}

/// A switch given as the topology's native label (mesh "2,2") or as ibsim
/// and OpenSM name it (SW_2_2, or the ibnet file's name). Throws ConfigError
/// naming the switch.
ftsim::routing::RouterId parse_switch(const ftsim::routing::Topology& topo, const std::string& text) {
  for (ftsim::routing::RouterId r = 0; r < topo.num_routers(); ++r)
    if (ftsim::tables::switch_name(topo, r) == text || topo.router_label(r) == text) return r;
  return topo.parse_router(text);
}

/// `ftsim lft diff A B`: prints the comparison and optionally writes it as
/// JSON. Throws ConfigError for unreadable or malformed dumps and unknown
/// links.
void lft_diff_command(const std::string& lft_a, const std::string& lft_b, const std::string& lft_topology,
                      const std::vector<std::string>& lft_faults, const std::vector<std::string>& failed_switches,
                      const std::string& lft_json, const std::string& endpoints) {
  if (!lft_json.empty()) ftsim::tb::check_output_file(lft_json, "--json");
  if (!lft_faults.empty() && lft_topology.empty()) throw ftsim::ConfigError("lft diff: --fault needs --topology");
  if (!failed_switches.empty() && lft_topology.empty())
    throw ftsim::ConfigError("lft diff: --fail-switch needs --topology");
  const auto a = ftsim::tables::LftSet::load(lft_a);
  const auto b = ftsim::tables::LftSet::load(lft_b);
  std::unique_ptr<ftsim::routing::Topology> topo;
  ftsim::routing::FaultSet faults;
  if (!lft_topology.empty()) {
    topo = lft_fabric(lft_topology, endpoints);
    for (const auto& f : lft_faults) faults.links.push_back(topo->parse_link_any(f));
    for (const auto& f : failed_switches) faults.routers.push_back(parse_switch(*topo, f));
  }
  const auto d = ftsim::tables::diff_tables(a, b, topo.get(), faults);
  nlohmann::json j = {{"a", lft_a},
                      {"b", lft_b},
                      {"entries_a", a.entries()},
                      {"entries_b", b.entries()},
                      {"entries_changed", d.entries_changed},
                      {"blocks_changed", d.blocks_changed},
                      {"switches_changed", d.switches_changed}};
  std::cout << fmt::format("entries changed   {} of {} ({} switches, {} 64-entry blocks)\n", d.entries_changed,
                           a.entries(), d.switches_changed, d.blocks_changed);
  if (d.traced) {
    j["topology"] = topo->spec();
    j["endpoints"] = endpoints;
    j["faults"] = lft_faults;
    j["failed_switches"] = failed_switches;
    j["flows"] = d.flows;
    j["flows_lost"] = d.flows_lost;
    j["flows_rerouted"] = d.flows_rerouted;
    j["flows_rerouted_fraction"] = d.flows ? static_cast<double>(d.flows_rerouted) / d.flows : 0.0;
    j["unrouted_a"] = d.unrouted_a;
    j["unrouted_b"] = d.unrouted_b;
    j["unrouted_a_pairs"] = d.unrouted_a_pairs;
    j["unrouted_b_pairs"] = d.unrouted_b_pairs;
    j["stretch_mean"] = d.stretch_mean;
    j["stretch_max"] = d.stretch_max;
    j["cdg_acyclic_a"] = d.acyclic_a;
    j["cdg_acyclic_b"] = d.acyclic_b;
    j["cycle_a"] = d.cycle_a;
    j["cycle_b"] = d.cycle_b;
    const bool switches = topo->num_nodes() > 0 && topo->is_switch_endpoint(topo->num_nodes() - 1);
    std::cout << fmt::format("flows rerouted    {} of {} {} pairs ({:.2f}%), unrouted A {} B {}\n", d.flows_rerouted,
                             d.flows, switches ? "endpoint (HCA and switch LID)" : "HCA",
                             d.flows ? 100.0 * d.flows_rerouted / d.flows : 0.0, d.unrouted_a, d.unrouted_b);
    if (d.flows_lost > 0)
      std::cout << fmt::format("flows lost        {} (an end on a failed switch: {})\n", d.flows_lost,
                               fmt::join(failed_switches, ", "));
    for (const auto& [set, pairs] : {std::pair{"A", &d.unrouted_a_pairs}, std::pair{"B", &d.unrouted_b_pairs}})
      if (!pairs->empty())
        std::cout << fmt::format("unrouted {}        {}{}\n", set, fmt::join(*pairs, ", "),
                                 pairs->size() == 16 ? ", ..." : "");
    std::cout << fmt::format("stretch           mean {:.3f}, max {:.3f} (switches traversed, B / A)\n", d.stretch_mean,
                             d.stretch_max);
    std::cout << fmt::format("CDG A             {}\n",
                             d.acyclic_a ? "acyclic" : "CYCLIC: " + fmt::format("{}", fmt::join(d.cycle_a, " -> ")));
    std::cout << fmt::format("CDG B             {}\n",
                             d.acyclic_b ? "acyclic" : "CYCLIC: " + fmt::format("{}", fmt::join(d.cycle_b, " -> ")));
  }
  if (!lft_json.empty()) ftsim::tb::write_file_atomically(lft_json, j.dump(2) + "\n");
}

/// `ftsim lft export`: the initial tables of `initial` (dor, updn or
/// import:DIR) on `topology`, optionally reconfigured by DQR `variant` after
/// the listed link faults, written as OUT/opensm-lfts.dump (OpenSM's dump
/// format; LIDs as in the imported dump, else HCAs first from LID 1). Throws
/// ConfigError for an unknown topology, initial or variant, a link that does
/// not exist, or a reconfiguration that fails.
void lft_export_command(const std::string& topology, const std::string& initial, const std::vector<std::string>& faults,
                        const std::vector<std::string>& failed_switches, const std::vector<std::string>& repairs,
                        const std::string& variant, const std::string& fallback, const std::string& out,
                        const std::string& endpoints) {
  namespace rt = ftsim::routing;
  const auto topo = lft_fabric(topology, endpoints);
  const bool switch_endpoints = topo->num_nodes() > 0 && topo->is_switch_endpoint(topo->num_nodes() - 1);
  auto init = ftsim::tb::dqr_initial(*topo, initial);
  auto& tables = init.tables;
  ftsim::tables::LftSet like;
  if (initial.rfind("import:", 0) == 0) like = ftsim::tables::LftSet::load(initial.substr(7));
  std::string what = "initial " + initial;
  if (fallback != "none" && fallback != "updn")
    throw ftsim::ConfigError(fmt::format("--fallback '{}': one of none, updn", fallback));
  std::vector<rt::RouterId> dead_switches;
  rt::dqr::Layers layers = init.layers;
  if (!repairs.empty() && faults.empty())
    throw ftsim::ConfigError("lft export: --repair needs the failed links (--fault) it repairs");
  if (!faults.empty() || !failed_switches.empty()) {
    std::vector<rt::LinkId> links;
    for (const auto& f : faults) links.push_back(topo->parse_link_any(f));
    for (const auto& f : failed_switches) dead_switches.push_back(parse_switch(*topo, f));
    rt::dqr::Engine engine(*topo, tables, init.layers,
                           switch_endpoints ? rt::dqr::FlowSet::kRouted : rt::dqr::FlowSet::kAllPairs);
    const auto opt = rt::dqr::variant_options(variant);
    std::vector<std::string> events;
    std::size_t changed = 0;
    bool rerouted = false;
    // One event per failed switch, then the links together (as `analyze
    // dqr` adds them: each reconfiguration starts from the last).
    auto apply = [&](const rt::dqr::Result& r, const std::string& what) {
      std::string how = "DQR " + variant;
      if (!r.success && !r.disconnected && fallback == "updn") {
        const auto f = engine.full_reroute();
        if (f.success) {
          changed += f.entries_changed;
          rerouted = true;
          events.push_back(fmt::format("{}: {} failed ({}), full reroute by up*/down*", what, how, r.failure));
          return;
        }
        how += " and the full reroute";
      }
      if (!r.success)
        throw ftsim::ConfigError(
            fmt::format("lft export: {} could not reconfigure around {}: {}", how, what, r.failure));
      changed += r.entries_changed;
      events.push_back(fmt::format("{} by DQR {}", what, variant));
    };
    for (std::size_t i = 0; i < dead_switches.size(); ++i)
      apply(engine.fail_switch(dead_switches[i], opt), "switch " + failed_switches[i]);
    if (!links.empty()) apply(engine.reconfigure(links, opt), fmt::format("{}", fmt::join(faults, ", ")));
    if (!repairs.empty()) {
      // The links come back: DQR writes the initial entries back, nearest
      // the destination first (dqr::Engine::restore).
      std::vector<rt::LinkId> back;
      for (const auto& f : repairs) back.push_back(topo->parse_link_any(f));
      const auto r = engine.restore(back);
      events.push_back(fmt::format("repair of {}: {} entries written back nearest-first, {} destinations kept",
                                   fmt::join(repairs, ", "), r.entries_changed, r.destinations_kept));
    }
    tables = engine.tables();
    layers = engine.layers();
    what += fmt::format(", after {} ({} entries changed{})", fmt::join(events, "; "), changed,
                        rerouted ? "; a full reroute is static: drain the fabric first" : "");
  }
  ftsim::tables::NodeTables nt;
  nt.port = tables;
  auto set = ftsim::tables::export_tables(nt, *topo, like);
  if (!dead_switches.empty()) {
    // A failed switch and its HCAs are gone from the fabric: no live switch
    // keeps an entry for their LIDs. The failed switch's own table stays as
    // it was last programmed (it names those LIDs; no SM can reach it).
    std::set<std::string> lost_names;
    for (rt::RouterId r : dead_switches) lost_names.insert(ftsim::tables::switch_name(*topo, r));
    for (rt::NodeId n = 0; n < topo->num_nodes(); ++n)
      if (!topo->is_switch_endpoint(n) &&
          std::find(dead_switches.begin(), dead_switches.end(), topo->node_router(n)) != dead_switches.end())
        lost_names.insert(ftsim::tables::hca_name(*topo, n));
    std::set<int> lost_lids;
    for (const auto& [lid, e] : set.lids)
      if (lost_names.count(e.name)) lost_lids.insert(lid);
    for (const auto& sw : set.switches)
      if (lost_names.count(sw.name)) lost_lids.insert(sw.lid);
    for (auto& sw : set.switches)
      if (!lost_names.count(sw.name))
        for (int lid : lost_lids) sw.port.erase(lid);
  }
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw ftsim::ConfigError(fmt::format("--out {}: cannot create the folder: {}", out, ec.message()));
  const std::string path = (std::filesystem::path(out) / "opensm-lfts.dump").string();
  ftsim::tb::write_file_atomically(path, set.dump());
  if (layers.count > 1) {
    // LASH: the service level of every path (its virtual layer, as DQR left
    // it) and the SL-to-VL tables that keep the layers apart (issue 50).
    const auto lids = ftsim::tables::place(set, *topo).lid;
    const std::string sl_path = (std::filesystem::path(out) / "path-sl.txt").string();
    ftsim::tb::write_file_atomically(sl_path, ftsim::tables::path_sl_of(layers, *topo, lids).dump());
    ftsim::tb::write_file_atomically((std::filesystem::path(out) / "opensm-sl2vl.dump").string(),
                                     ftsim::tables::sl2vl_dump(set, *topo, layers.count));
    what += fmt::format("; {} virtual layers as SLs 0..{} in path-sl.txt, SL i -> VL i in opensm-sl2vl.dump",
                        layers.count, layers.count - 1);
  }
  std::cout << fmt::format("ftsim: wrote {} ({} switches, {} entries; {})\n", path, set.switches.size(), set.entries(),
                           what);
}

class LftDiffCommand final : public Command {
 public:
  explicit LftDiffCommand(CLI::App* lft) {
    m_app = lft->add_subcommand(
        "diff",
        "compare two table sets: entries, 64-entry blocks and switches changed; with --topology also flows "
        "rerouted, stretch and whether each set's channel dependency graph is acyclic (with a cycle)");
    m_app->add_option("A", m_a, "opensm-lfts.dump file, or a folder holding one (the reference)")->required();
    m_app->add_option("B", m_b, "opensm-lfts.dump file or folder (the new tables)")->required();
    m_app->add_option("--topology", m_topology,
                      "fabric to trace flows on: ibnet:FILE.net, fat-tree2:L,S,H, or mesh:KxK / torus:KxK "
                      "(switches SW_a_b = router a,b)");
    m_app->add_option("--fault", m_faults,
                      "a failed link B must avoid (native label, e.g. 4,4:x+ or SW_4_4[2]); "
                      "repeatable; needs --topology");
    m_app->add_option("--fail-switch", m_failed_switches,
                      "a failed switch (native label or switch name, e.g. 2,2, SW_2_2 or S0): B avoids its links, and "
                      "pairs with an end on it are lost (flows_lost), not traced; repeatable; needs --topology");
    m_app->add_option("--json", m_json, "also write the figures as JSON to this file");
    m_app->add_option("--endpoints", m_endpoints,
                      "all (default): trace every LID, switches' own (port 0) included, on fat trees and other "
                      "indirect fabrics; hca: HCA LIDs only");
  }
  int execute() override {
    lft_diff_command(m_a, m_b, m_topology, m_faults, m_failed_switches, m_json, m_endpoints);
    return 0;
  }

 private:
  std::string m_a, m_b, m_topology, m_json, m_endpoints = "all";
  std::vector<std::string> m_faults, m_failed_switches;
};

class LftNetfileCommand final : public Command {
 public:
  explicit LftNetfileCommand(CLI::App* lft) {
    m_app = lft->add_subcommand(
        "netfile", "write an ibsim netfile of a topology (to run OpenSM on the same fabric; names as lft export)");
    m_app->add_option("--topology", m_topology, "mesh:KxK, torus:KxK, fat-tree2:L,S,H or ibnet:FILE.net")->required();
    m_app->add_option("--out", m_out, "netfile to write")->required();
  }
  int execute() override {
    ftsim::tb::check_output_file(m_out, "--out");
    const auto topo = ftsim::routing::make_topology(m_topology);
    ftsim::tb::write_file_atomically(m_out, ftsim::tables::netfile(*topo));
    std::cout << fmt::format("ftsim: wrote {} ({} switches, {} HCAs)\n", m_out, topo->num_routers(), topo->num_nodes());
    return 0;
  }

 private:
  std::string m_topology, m_out;
};

class LftExportCommand final : public Command {
 public:
  explicit LftExportCommand(CLI::App* lft) {
    m_app = lft->add_subcommand(
        "export", "write a topology's tables (initial, or after DQR around link faults) as OUT/opensm-lfts.dump");
    m_app->add_option("--topology", m_topology, "mesh:KxK, torus:KxK, fat-tree2:L,S,H or ibnet:FILE.net")->required();
    m_app->add_option("--initial", m_initial, "dor, updn, lash or import:DIR (default dor)");
    m_app->add_option("--fault", m_faults, "a failed link (repeatable): reconfigure with DQR around it");
    m_app->add_option("--fail-switch", m_failed_switches,
                      "a failed switch (native label or switch name; repeatable): one fault event each, its HCAs "
                      "and its own LID leave every table");
    m_app->add_option("--repair", m_repairs,
                      "a link of --fault that comes back (repeatable): the initial entries are written back "
                      "nearest the destination first, deadlock-free (DQR's repair)");
    m_app->add_option("--variant", m_variant, "DQR variant for --fault and --fail-switch (default lr-path)");
    m_app->add_option("--fallback", m_fallback,
                      "when DQR fails: none = exit 2 (default); updn = full reroute by up*/down* over the survivors "
                      "(a static reconfiguration: the fabric must be drained first)");
    m_app->add_option("--out", m_out, "output folder")->required();
    m_app->add_option("--endpoints", m_endpoints,
                      "all (default): route every LID, switches' own (port 0) included, around the faults on fat "
                      "trees and other indirect fabrics; hca: route HCA LIDs and copy switch LIDs from the "
                      "imported tables (they may point at a dead port)");
  }
  int execute() override {
    lft_export_command(m_topology, m_initial, m_faults, m_failed_switches, m_repairs, m_variant, m_fallback, m_out,
                       m_endpoints);
    return 0;
  }

 private:
  std::string m_topology, m_initial = "dor", m_variant = "lr-path", m_fallback = "none", m_out, m_endpoints = "all";
  std::vector<std::string> m_faults, m_failed_switches, m_repairs;
};

}  // namespace

void add_lft_commands(CLI::App& app, Commands& out) {
  auto* lft = app.add_subcommand("lft", "InfiniBand linear forwarding tables (OpenSM dumps)");
  lft->require_subcommand(1);
  out.push_back(std::make_unique<LftDiffCommand>(lft));
  out.push_back(std::make_unique<LftNetfileCommand>(lft));
  out.push_back(std::make_unique<LftExportCommand>(lft));
}

}  // namespace ftsim::tb::cli
