#include "tb/mechanism_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "tb/experiment_config.hpp"
#include "tb/plugin_registry.hpp"

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
        MechanismKey::integer("handle_cycles", 1, 1000000, "cycles a node takes to handle and retransmit an emergency"),
        MechanismKey::integer("ack_window", 3, 1000000, "cycles after propagation in which special ACKs count"),
        MechanismKey::integer("control_packet_cycles", 1, 100000000,
                              "one table-update control packet over one hop at zero load"),
        MechanismKey::integer("control_packet_flits", 0, 64,
                              "flits of a control packet on a link (0: no link bandwidth)"),
        MechanismKey::integer("max_moves", 0, 255, "safe -> adaptive moves allowed per packet (livelock bound)"),
        MechanismKey::choice("boot_safe_network", {"dimension-rings", "tree-ring"},
                             "safe network at boot (tree-ring: diagnostic)"),
        MechanismKey::choice("control_packets", {"safe-ring", "link-slots"},
                             "table-update control packets as packets in the safe VC (section 4.2), or as link "
                             "slots only"),
        MechanismKey::choice("rtl", {"cpp", "verilated"},
                             "emergency blocks each router steps: cpp, or verilated (rtl_ref's Verilog through "
                             "Verilator, in builds with Verilator)"),
    };
    m.parse = [](const MechanismSection& s, ExperimentConfig& cfg) {
      auto& im = cfg.immunet;
      s.assign("boot_safe_network", im.boot_safe_network);
      s.assign("handle_cycles", im.handle_cycles);
      s.assign("ack_window", im.ack_window);
      s.assign("control_packet_cycles", im.control_packet_cycles);
      s.assign("control_packet_flits", im.control_packet_flits);
      s.assign("max_moves", im.max_moves);
      s.assign("rtl", im.rtl);
      s.assign("control_packets", im.control_packets);
      if (im.rtl != "cpp" && !emergency_blocks(im.rtl)) {
        std::string names;
        for (const auto& [n, d] : emergency_blocks_names()) names += (names.empty() ? "" : ", ") + n;
        s.fail("rtl", fmt::format("= '{}' is not available in this build (ftsim was built without Verilator); "
                                  "available: {}",
                                  im.rtl, names));
      }
      if (im.control_packet_flits >= im.control_packet_cycles)
        s.fail("control_packet_cycles",
               fmt::format("= {} must exceed immunet.control_packet_flits = {} (a hop sends its flits within its "
                           "zero-load time)",
                           im.control_packet_cycles, im.control_packet_flits));
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
    m.keys = {MechanismKey::integer("reroute_timeout", 1, std::int64_t{1} << 40,
                                    "ADLR: cycles without a U-turn before the re-route vector clears")};
    m.parse = [](const MechanismSection& s, ExperimentConfig& cfg) {
      s.assign("reroute_timeout", cfg.dlr.reroute_timeout);
    };
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
    constexpr std::int64_t kMax = std::int64_t{1} << 40;
    m.keys = {MechanismKey::boolean("enabled", "run the DDRC subnet manager"),
              MechanismKey::integer("notification_cycles", 0, kMax, "detecting switch -> subnet manager"),
              MechanismKey::integer("computation_cycles", 0, kMax, "table computation in the manager"),
              MechanismKey::integer("distribution_cycles", 0, kMax, "until every switch holds the new tables")};
    m.parse = [](const MechanismSection& s, ExperimentConfig& cfg) {
      auto& d = cfg.ddrc;
      s.assign("enabled", d.enabled);
      s.assign("notification_cycles", d.notification_cycles);
      s.assign("computation_cycles", d.computation_cycles);
      s.assign("distribution_cycles", d.distribution_cycles);
    };
    m.active = [](const ExperimentConfig& c) { return c.ddrc.enabled; };
    out.push_back(std::move(m));
  }
  {
    MechanismPlugin m;
    m.name = "dqr";
    m.description = "dqr.enabled (routing lft): subnet manager reconfigures the tables with DQR after each fault";
    m.section = "dqr";
    constexpr std::int64_t kMax = std::int64_t{1} << 40;
    m.keys = {MechanismKey::boolean("enabled", "run the DQR subnet manager"),
              {"initial", "dor | updn | import:DIR", "initial tables"},
              {"variant", "a DQR variant (ftsim analyze dqr --help)", "the DQR variant the subnet manager runs"},
              {"replay_tables", "DIR (opensm-lfts.dump)", "replay another SM's tables instead of running DQR"},
              MechanismKey::integer("notification_cycles", 0, kMax, "detecting switch -> subnet manager"),
              MechanismKey::integer("computation_cycles", 0, kMax, "table computation in the manager"),
              MechanismKey::choice("distribution", {"atomic", "sequential", "static"},
                                   "how the new entries reach the switches"),
              MechanismKey::integer("distribution_cycles", 0, kMax, "atomic: computation end -> the write"),
              MechanismKey::integer("block_cycles", 1, kMax, "sequential: cycles per 64-entry block"),
              MechanismKey::choice("order", {"downstream-first", "random"}, "sequential: order of the switches")};
    m.parse = [](const MechanismSection& s, ExperimentConfig& cfg) {
      auto& d = cfg.dqr;
      s.assign("enabled", d.enabled);
      s.assign("initial", d.initial);
      s.assign("variant", d.variant);
      s.assign("replay_tables", d.replay_tables);
      s.assign("notification_cycles", d.notification_cycles);
      s.assign("computation_cycles", d.computation_cycles);
      s.assign("distribution_cycles", d.distribution_cycles);
      s.assign("block_cycles", d.block_cycles);
      s.assign("distribution", d.distribution);
      s.assign("order", d.order);
    };
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
  static const std::vector<std::string> s = {"name",    "description", "topology", "routing", "router",
                                             "traffic", "sim",         "faults",   "energy"};
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

namespace ftsim::tb {

namespace {
std::string bound_text(std::int64_t v) {
  for (int k = 20; k < 63; ++k)
    if (v == (std::int64_t{1} << k)) return fmt::format("2^{}", k);
  return std::to_string(v);
}
}  // namespace

MechanismKey MechanismKey::integer(std::string name, std::int64_t lo, std::int64_t hi, std::string meaning) {
  MechanismKey k{std::move(name), fmt::format("{}..{}", bound_text(lo), bound_text(hi)), std::move(meaning)};
  k.type = KeyType::kInteger;
  k.lo = lo;
  k.hi = hi;
  return k;
}

MechanismKey MechanismKey::boolean(std::string name, std::string meaning) {
  MechanismKey k{std::move(name), "true | false", std::move(meaning)};
  k.type = KeyType::kBool;
  return k;
}

MechanismKey MechanismKey::choice(std::string name, std::vector<std::string> choices, std::string meaning) {
  MechanismKey k{std::move(name), fmt::format("{}", fmt::join(choices, " | ")), std::move(meaning)};
  k.type = KeyType::kChoice;
  k.choices = std::move(choices);
  return k;
}

const MechanismSection::Value* MechanismSection::find(const std::string& key, bool (*accepts)(KeyType),
                                                      const char* what) const {
  const auto it = m_values.find(key);
  if (it == m_values.end()) return nullptr;
  if (!accepts(it->second.type))
    throw ConfigError(fmt::format("mechanism section '{}': key '{}' is not declared as {}", m_section, key, what));
  return &it->second;
}

std::optional<std::int64_t> MechanismSection::integer(const std::string& key) const {
  const Value* v = find(
      key, [](KeyType t) { return t == KeyType::kInteger; }, "an integer");
  return v != nullptr ? std::optional<std::int64_t>(v->integer) : std::nullopt;
}

std::optional<bool> MechanismSection::boolean(const std::string& key) const {
  const Value* v = find(
      key, [](KeyType t) { return t == KeyType::kBool; }, "a boolean");
  return v != nullptr ? std::optional<bool>(v->boolean) : std::nullopt;
}

std::optional<std::string> MechanismSection::text(const std::string& key) const {
  const Value* v = find(
      key, [](KeyType t) { return t == KeyType::kText || t == KeyType::kChoice; }, "text");
  return v != nullptr ? std::optional<std::string>(v->text) : std::nullopt;
}

void MechanismSection::assign(const std::string& key, bool& dst) const {
  if (auto v = boolean(key)) dst = *v;
}

void MechanismSection::assign(const std::string& key, int& dst) const {
  if (auto v = integer(key)) dst = static_cast<int>(*v);  // the spec's range fits int
}

void MechanismSection::assign(const std::string& key, std::int64_t& dst) const {
  if (auto v = integer(key)) dst = *v;
}

void MechanismSection::assign(const std::string& key, std::string& dst) const {
  if (auto v = text(key)) dst = *v;
}

void MechanismSection::fail(const std::string& key, const std::string& message) const {
  throw ConfigError(fmt::format("{}: key '{}.{}' {}", m_origin, m_section, key, message));
}

void MechanismSection::put_integer(const std::string& key, std::int64_t v) {
  Value& x = m_values[key];
  x.type = KeyType::kInteger;
  x.integer = v;
}

void MechanismSection::put_boolean(const std::string& key, bool v) {
  Value& x = m_values[key];
  x.type = KeyType::kBool;
  x.boolean = v;
}

void MechanismSection::put_text(const std::string& key, std::string v) {
  Value& x = m_values[key];
  x.type = KeyType::kText;
  x.text = std::move(v);
}

}  // namespace ftsim::tb
