#include "tb/mechanism_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "tb/experiment_config.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;

namespace {

std::vector<MechanismPlugin> builtin_mechanisms() {
  std::vector<MechanismPlugin> out;
  {
    MechanismPlugin m;
    m.name = "immunet";
    m.description =
        "routing: immunet; emergency state, spanning-tree BFC safe ring, provisional and optimised safe tables, "
        "distance-vector adaptive tables (torus); per-router Input/Output Blocks, Reconfiguration Module, Table "
        "Update Module and Safe/Adaptive/SS tables";
    m.section = "immunet";
    m.keys = {
        {"handle_cycles", "1..1000000", "cycles a node takes to handle and retransmit an emergency"},
        {"ack_window", "3..1000000", "cycles after propagation in which special ACKs count"},
        {"control_packet_cycles", "1..100000000", "one table-update control packet over one hop at zero load"},
        {"control_packet_flits", "0..64", "flits of a control packet on a link (0: no link bandwidth)"},
        {"max_moves", "0..255", "safe -> adaptive moves allowed per packet (livelock bound)"},
        {"boot_safe_network", "dimension-rings | tree-ring", "safe network at boot (tree-ring: diagnostic)"},
    };
    m.active = [](const ExperimentConfig& c) { return c.routing == "immunet"; };
    out.push_back(std::move(m));
  }
  {
    MechanismPlugin m;
    m.name = "dlr";
    m.description =
        "routing: ddlr, adlr, ddlr-1fault, *-switch; dynamic local rerouting in fat trees; the adaptive variants "
        "keep a U-turn re-route vector in every switch";
    m.section = "dlr";
    m.keys = {{"reroute_timeout", "1..2^40", "ADLR: cycles without a U-turn before the re-route vector clears"}};
    m.active = [](const ExperimentConfig& c) {
      return c.routing == "ddlr" || c.routing == "adlr" || c.routing == "ddlr-1fault" || c.routing == "ddlr-switch" ||
             c.routing == "adlr-switch";
    };
    out.push_back(std::move(m));
  }
  {
    MechanismPlugin m;
    m.name = "ddrc";
    m.description =
        "ddrc.enabled: subnet manager recomputes up*/down* tables on the TLM management plane (with updown-det; "
        "hybrid with ddlr/adlr)";
    m.section = "ddrc";
    m.keys = {{"enabled", "true | false", "run the DDRC subnet manager"},
              {"notification_cycles", "0..2^40", "detecting switch -> subnet manager"},
              {"computation_cycles", "0..2^40", "table computation in the manager"},
              {"distribution_cycles", "0..2^40", "until every switch holds the new tables"}};
    m.active = [](const ExperimentConfig& c) { return c.ddrc.enabled; };
    out.push_back(std::move(m));
  }
  {
    MechanismPlugin m;
    m.name = "dqr";
    m.description = "dqr.enabled (routing lft): subnet manager reconfigures the tables with DQR after each fault";
    m.section = "dqr";
    m.keys = {{"enabled", "true | false", "run the DQR subnet manager"},
              {"initial", "dor | updn | import:DIR", "initial tables"},
              {"variant", "a DQR variant (ftsim analyze dqr --help)", "the DQR variant the subnet manager runs"},
              {"replay_tables", "DIR (opensm-lfts.dump)", "replay another SM's tables instead of running DQR"},
              {"notification_cycles", "0..2^40", "detecting switch -> subnet manager"},
              {"computation_cycles", "0..2^40", "table computation in the manager"},
              {"distribution", "atomic | sequential | static", "how the new entries reach the switches"},
              {"distribution_cycles", "0..2^40", "atomic: computation end -> the write"},
              {"block_cycles", "1..2^40", "sequential: cycles per 64-entry block"},
              {"order", "downstream-first | random", "sequential: order of the switches"}};
    m.active = [](const ExperimentConfig& c) { return c.dqr.enabled; };
    out.push_back(std::move(m));
  }
  {
    MechanismPlugin m;
    m.name = "bgl-planes";
    m.description = "faults.model: bgl-planes; each faulty link bypasses its plane of nodes (BlueGene/L-like, 3-D)";
    m.active = [](const ExperimentConfig& c) { return c.faults.model == "bgl-planes"; };
    out.push_back(std::move(m));
  }
  {
    MechanismPlugin m;
    m.name = "static-faults";
    m.description = "routing inodes:*: routes computed offline for the faults present at cycle 0";
    m.active = [](const ExperimentConfig& c) { return c.routing.rfind("inodes:", 0) == 0; };
    out.push_back(std::move(m));
  }
  return out;
}

const std::vector<MechanismPlugin>& builtins() {
  static const std::vector<MechanismPlugin> b = builtin_mechanisms();
  return b;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::vector<MechanismPlugin>& user_mechanisms() {
  static std::vector<MechanismPlugin> u;
  return u;
}

}  // namespace

const std::vector<std::string>& core_sections() {
  static const std::vector<std::string> s = {"name",   "description", "topology", "routing",
                                             "router", "traffic",     "sim",      "faults"};
  return s;
}

void register_mechanism(MechanismPlugin plugin) {
  if (plugin.name.empty()) throw ConfigError("register mechanism: the name is empty");
  const std::string& s = plugin.section;
  if (std::find(core_sections().begin(), core_sections().end(), s) != core_sections().end())
    throw ConfigError(fmt::format("register mechanism '{}': section '{}' is one of the model's own", plugin.name, s));
  std::set<std::string> keys;
  for (const auto& k : plugin.keys)
    if (k.name.empty() || !keys.insert(k.name).second)
      throw ConfigError(fmt::format("register mechanism '{}': key '{}' is empty or listed twice", plugin.name, k.name));
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto taken = [&](const MechanismPlugin& m) {
    if (m.name == plugin.name)
      throw ConfigError(fmt::format("register mechanism '{}': already registered or built in", plugin.name));
    if (!s.empty() && m.section == s)
      throw ConfigError(
          fmt::format("register mechanism '{}': section '{}' belongs to mechanism '{}'", plugin.name, s, m.name));
  };
  for (const auto& m : builtins()) taken(m);
  for (const auto& m : user_mechanisms()) taken(m);
  user_mechanisms().push_back(std::move(plugin));
}

std::vector<MechanismPlugin> mechanism_plugins() {
  std::vector<MechanismPlugin> out = builtins();
  std::lock_guard<std::mutex> lock(registry_mutex());
  out.insert(out.end(), user_mechanisms().begin(), user_mechanisms().end());
  return out;
}

std::vector<MechanismPlugin> active_mechanisms(const ExperimentConfig& cfg) {
  std::vector<MechanismPlugin> out;
  for (auto& m : mechanism_plugins()) {
    const bool on = m.active ? m.active(cfg) : (!m.section.empty() && cfg.source && cfg.source[m.section]);
    if (on) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ftsim::tb
