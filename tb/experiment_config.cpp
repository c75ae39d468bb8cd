#include "tb/experiment_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <set>
#include <sstream>
#include <type_traits>

#include "common/text_input.hpp"
#include "routing_logic/types.hpp"
#include "tb/cli_text.hpp"
#include "tb/mechanism_registry.hpp"
#include "tb/plugin_registry.hpp"
#include "tb/yaml_input.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;

const std::vector<std::pair<std::string, std::string>>& builtin_traffic_pattern_names() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"uniform", "uniform random over the other live nodes (self excluded)"},
      {"hotspot", "traffic.hotspot_fraction of packets to traffic.hotspot_nodes, the rest uniform"},
      {"transpose", "swap the upper and lower halves of the node-id bits (2^2b nodes)"},
      {"bit-complement", "complement every node-id bit (2^b nodes)"},
      {"bit-reversal", "reverse the node-id bits (2^b nodes)"},
      {"shuffle", "rotate the node-id bits left by one (2^b nodes)"},
      {"tornado", "each coordinate + ceil(k/2)-1 mod k (mesh/torus), node id + ceil(N/2)-1 otherwise"},
      {"neighbor", "nearest neighbour: coordinate 0 + 1 mod k (mesh/torus), node id + 1 otherwise"},
  };
  return names;
}

std::vector<std::pair<std::string, std::string>> traffic_pattern_names() {
  auto out = builtin_traffic_pattern_names();
  for (auto& e : user_traffic_pattern_names()) out.push_back(std::move(e));
  return out;
}

namespace {
// The one table of `router.injection` names.
constexpr std::pair<const char*, hw::InjectionPolicy> kInjectionPolicies[] = {
    {"fair", hw::InjectionPolicy::kFair},
    {"transit_priority", hw::InjectionPolicy::kTransitPriority},
    {"adaptive_bubble", hw::InjectionPolicy::kAdaptiveBubble},
    {"transit_priority+adaptive_bubble", hw::InjectionPolicy::kTransitPriorityAdaptiveBubble},
};
}  // namespace

bool parse_injection_policy(const std::string& name, hw::InjectionPolicy* out) {
  for (const auto& [n, p] : kInjectionPolicies)
    if (name == n) {
      *out = p;
      return true;
    }
  return false;
}

std::string injection_policy_name(hw::InjectionPolicy p) {
  for (const auto& [n, q] : kInjectionPolicies)
    if (p == q) return n;
  return "fair";
}

std::string injection_policy_names() {
  std::string out;
  for (const auto& [n, p] : kInjectionPolicies) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

hw::InjectionPolicy default_injection_policy(const std::string& routing) {
  return routing == "immunet" ? hw::InjectionPolicy::kTransitPriorityAdaptiveBubble : hw::InjectionPolicy::kFair;
}

namespace {

struct Ctx {
  std::string origin;
  std::string key(const std::string& k) const { return fmt::format("{}: key '{}'", origin, k); }
};

std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  std::ostringstream os;
  os << n;
  return os.str();
}

template <typename T>
T get_num(const Ctx& c, const YAML::Node& n, const std::string& key, T lo, T hi, const char* range = nullptr) {
  const std::string allowed = range != nullptr ? std::string(range) : fmt::format("{}..{}", lo, hi);
  T v{};
  try {
    if (!n.IsScalar()) throw YAML::BadConversion(n.Mark());
    v = n.as<T>();
  } catch (const YAML::Exception&) {
    // An integer written in floating-point notation ("1e4", "2.0") is taken
    // when it is exact.
    bool exact = false;
    if constexpr (std::is_integral_v<T>) {
      double d = 0;
      if (n.IsScalar() && YAML::convert<double>::decode(n, d) && std::isfinite(d) && d == std::floor(d) &&
          d >= static_cast<double>(lo) && d <= static_cast<double>(hi) && std::fabs(d) < 9.0e15) {
        v = static_cast<T>(d);
        exact = true;
      }
    }
    if (!exact)
      throw ConfigError(fmt::format("{} = '{}' is not {}; allowed {}", c.key(key), scalar_text(n),
                                    std::is_integral_v<T> ? "an integer" : "a number", allowed));
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v))
      throw ConfigError(fmt::format("{} = '{}' is not a finite number", c.key(key), scalar_text(n)));
  }
  if (v < lo || v > hi)
    throw ConfigError(fmt::format("{} = {} out of range: allowed {}", c.key(key), scalar_text(n), allowed));
  return v;
}

bool get_bool(const Ctx& c, const YAML::Node& n, const std::string& key) {
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    throw ConfigError(fmt::format("{} = '{}' is not a boolean (true/false)", c.key(key), scalar_text(n)));
  }
}

std::string get_str(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) throw ConfigError(fmt::format("{} must be a string", c.key(key)));
  return n.Scalar();
}

void check_map(const Ctx& c, const YAML::Node& n, const std::string& where, const std::set<std::string>& allowed) {
  if (!n.IsMap())
    throw ConfigError(where.empty() ? fmt::format("{}: the document must be a mapping of keys", c.origin)
                                    : fmt::format("{} must be a mapping", c.key(where)));
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (allowed.count(k) == 0) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      const std::string full = where.empty() ? k : where + "." + k;
      const YAML::Mark m = kv.first.Mark();
      const std::string line = m.line >= 0 ? fmt::format(" (line {})", m.line + 1) : std::string(" (from --set)");
      throw ConfigError(fmt::format("{}: unknown key '{}'{}{}; allowed here: {}", c.origin, full, line,
                                    did_you_mean(k, {allowed.begin(), allowed.end()}), list));
    }
  }
}

FaultSpec parse_fault(const Ctx& c, const YAML::Node& n, std::size_t i) {
  const std::string where = fmt::format("faults.schedule[{}]", i);
  check_map(c, n, where, {"link", "link_id", "switch", "node", "at", "repair"});
  FaultSpec f;
  int kinds = 0;
  if (n["link"]) {
    f.link = get_str(c, n["link"], where + ".link");
    ++kinds;
  }
  if (n["link_id"]) {
    f.link = "#" + std::to_string(get_num<long>(c, n["link_id"], where + ".link_id", 0, 1L << 30));
    ++kinds;
  }
  for (const char* k : {"switch", "node"})
    if (n[k]) {
      f.router = get_str(c, n[k], where + "." + k);
      ++kinds;
    }
  if (kinds != 1)
    throw ConfigError(fmt::format("{}: a fault names exactly one of link, link_id, switch, node", c.key(where)));
  if (n["at"]) f.at = get_num<std::int64_t>(c, n["at"], where + ".at", 0, std::int64_t{1} << 50);
  if (n["repair"] && !n["repair"].IsNull()) {  // null: permanent (as stats.json writes it)
    f.repair = get_num<std::int64_t>(c, n["repair"], where + ".repair", 0, std::int64_t{1} << 50);
    if (f.repair <= f.at)
      throw ConfigError(fmt::format("{}.repair = {} must be later than at = {}", c.key(where), f.repair, f.at));
  }
  return f;
}

/// Each mechanism section present: its keys checked against the registry's
/// specs (typed values validated here, so the error names the key and the
/// range), kept in cfg.mechanism_sections and handed to the mechanism's
/// parse hook.
void parse_mechanism_sections(const Ctx& c, const YAML::Node& root, const std::vector<MechanismPlugin>& mechanisms,
                              ExperimentConfig& cfg) {
  for (const auto& m : mechanisms) {
    if (m.section.empty() || !root[m.section]) continue;
    const YAML::Node node = root[m.section];
    std::set<std::string> names;
    for (const auto& k : m.keys) names.insert(k.name);
    check_map(c, node, m.section, names);
    MechanismSection sec(c.origin, m.section);
    for (const auto& k : m.keys) {
      const YAML::Node v = node[k.name];
      if (!v) continue;
      const std::string full = m.section + "." + k.name;
      switch (k.type) {
        case KeyType::kInteger:
          sec.put_integer(k.name, get_num<std::int64_t>(c, v, full, k.lo, k.hi, k.allowed.c_str()));
          break;
        case KeyType::kBool:
          sec.put_boolean(k.name, get_bool(c, v, full));
          break;
        case KeyType::kChoice: {
          const std::string text = get_str(c, v, full);
          if (std::find(k.choices.begin(), k.choices.end(), text) == k.choices.end())
            throw ConfigError(fmt::format("{} = '{}': allowed {}{}", c.key(full), text, fmt::join(k.choices, ", "),
                                          did_you_mean(text, k.choices)));
          sec.put_text(k.name, text);
          break;
        }
        case KeyType::kText:
          sec.put_text(k.name, get_str(c, v, full));
          break;
      }
    }
    if (m.parse) m.parse(sec, cfg);
    cfg.mechanism_sections[m.section] = std::move(sec);
  }
}

/// The router section: organisation, allocators, latencies (hw::RouterParams).
/// Returns whether router.injection was given.
bool parse_router(const Ctx& c, const YAML::Node& r, ExperimentConfig& cfg) {
  bool injection_set = false;
  check_map(c, r, "router",
            {"vcs", "buffer_flits", "flow_control", "latency", "injection", "queues", "crossbar", "vc_realloc",
             "injection_ports", "ejection_ports", "vc_allocator", "switch_allocator", "islip_iterations", "selection",
             "voq", "voq_flits"});
  auto& p = cfg.router;
  if (r["vcs"]) p.vcs = get_num<int>(c, r["vcs"], "router.vcs", 1, 16);
  if (r["buffer_flits"]) p.buffer_flits = get_num<int>(c, r["buffer_flits"], "router.buffer_flits", 1, 4096);
  if (r["flow_control"]) {
    const std::string fc = get_str(c, r["flow_control"], "router.flow_control");
    if (fc == "wormhole")
      p.vct = false;
    else if (fc == "vct")
      p.vct = true;
    else
      throw ConfigError(fmt::format("{} = '{}': allowed wormhole, vct", c.key("router.flow_control"), fc));
  }
  if (r["injection"]) {
    const std::string inj = get_str(c, r["injection"], "router.injection");
    if (!parse_injection_policy(inj, &p.injection))
      throw ConfigError(fmt::format("{} = '{}': allowed {}", c.key("router.injection"), inj, injection_policy_names()));
    injection_set = true;
  }
  // One named choice: the value must be one of `names` (in order of `values`).
  auto choice = [&](const char* key, std::initializer_list<const char*> names, auto* dst, auto... values) {
    if (!r[key]) return;
    const std::string full = std::string("router.") + key;
    const std::string v = get_str(c, r[key], full);
    std::size_t i = 0;
    std::string allowed;
    bool found = false;
    using T = std::remove_pointer_t<decltype(dst)>;
    const T vals[] = {values...};
    for (const char* n : names) {
      allowed += (allowed.empty() ? "" : ", ") + std::string(n);
      if (!found && v == n) {
        *dst = vals[i];
        found = true;
      }
      ++i;
    }
    if (!found) throw ConfigError(fmt::format("{} = '{}': allowed {}", c.key(full), v, allowed));
  };
  choice("queues", {"input", "voq"}, &p.queues, hw::QueueOrganisation::kInput, hw::QueueOrganisation::kVoq);
  choice("voq", {"shared", "per_output"}, &p.voq, hw::VoqReading::kShared, hw::VoqReading::kPerOutput);
  if (r["voq_flits"]) p.voq_flits = get_num<int>(c, r["voq_flits"], "router.voq_flits", 1, 4096);
  choice("crossbar", {"multiplexed", "per_vc"}, &p.crossbar, hw::CrossbarKind::kMultiplexed, hw::CrossbarKind::kPerVc);
  choice("vc_realloc", {"atomic", "non_atomic"}, &p.vc_realloc, hw::VcRealloc::kAtomic, hw::VcRealloc::kNonAtomic);
  choice("vc_allocator", {"separable_input_first", "wavefront"}, &p.vc_allocator,
         hw::VcAllocatorKind::kSeparableInputFirst, hw::VcAllocatorKind::kWavefront);
  choice("switch_allocator", {"separable_input_first", "islip"}, &p.switch_allocator,
         hw::SwitchAllocatorKind::kSeparableInputFirst, hw::SwitchAllocatorKind::kIslip);
  choice("selection", {"max_credits", "max_credits_rr", "round_robin"}, &p.selection, hw::SelectionKind::kMaxCredits,
         hw::SelectionKind::kMaxCreditsRoundRobin, hw::SelectionKind::kRoundRobin);
  if (r["islip_iterations"])
    p.islip_iterations = get_num<int>(c, r["islip_iterations"], "router.islip_iterations", 1, 8);
  if (r["injection_ports"]) p.injection_ports = get_num<int>(c, r["injection_ports"], "router.injection_ports", 1, 16);
  if (r["ejection_ports"]) p.ejection_ports = get_num<int>(c, r["ejection_ports"], "router.ejection_ports", 1, 16);
  if (const YAML::Node l = r["latency"]) {
    check_map(c, l, "router.latency", {"rc", "va", "sa", "st", "link", "credit"});
    const std::pair<const char*, int*> fields[] = {{"rc", &p.lat_rc}, {"va", &p.lat_va},     {"sa", &p.lat_sa},
                                                   {"st", &p.lat_st}, {"link", &p.lat_link}, {"credit", &p.lat_credit}};
    for (const auto& [k, dst] : fields)
      if (l[k]) *dst = get_num<int>(c, l[k], std::string("router.latency.") + k, 1, 1000);
  }
  return injection_set;
}

/// traffic.kind phases: the phase list, inline (traffic.phases) or from a
/// workload file (traffic.workload: a YAML map with name, description and
/// phases). Every other traffic key but flit_bytes is refused.
void parse_phases(const Ctx& c, const YAML::Node& t, TrafficSpec& s) {
  for (const auto& kv : t) {
    const std::string k = kv.first.as<std::string>();
    if (k != "kind" && k != "phases" && k != "workload" && k != "flit_bytes")
      throw ConfigError(
          fmt::format("{} does not apply to traffic.kind = 'phases' (allowed: phases or workload, "
                      "flit_bytes)",
                      c.key("traffic." + k)));
  }
  if (t["flit_bytes"]) s.flit_bytes = get_num<int>(c, t["flit_bytes"], "traffic.flit_bytes", 1, 1 << 16);
  if (static_cast<bool>(t["phases"]) == static_cast<bool>(t["workload"]))
    throw ConfigError(
        fmt::format("{}: traffic.kind = 'phases' needs exactly one of traffic.phases (a list) and "
                    "traffic.workload (a file)",
                    c.origin));
  Ctx wc = c;
  YAML::Node workload_doc;
  if (t["workload"]) {
    s.workload = get_str(c, t["workload"], "traffic.workload");
    workload_doc = parse_yaml_document(read_yaml_file(s.workload, "workload file"), s.workload);
    wc.origin = s.workload;
    check_map(wc, workload_doc, "", {"name", "description", "phases"});
    if (workload_doc["name"]) s.workload_name = get_str(wc, workload_doc["name"], "name");
    if (!workload_doc["phases"])
      throw ConfigError(fmt::format("{}: a workload file needs a 'phases' list", s.workload));
  }
  const YAML::Node list = t["workload"] ? workload_doc["phases"] : t["phases"];
  if (!list.IsSequence() || list.size() == 0 || list.size() > 100000)
    throw ConfigError(fmt::format("{}: phases must be a list of 1..100000 phases", wc.origin));
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node p = list[i];
    const std::string at = fmt::format("phases[{}]", i);
    check_map(
        wc, p, at,
        {"name", "pattern", "packets_per_node", "packet_flits", "load", "compute_cycles", "barrier_cycles", "repeat"});
    PhaseSpec ph;
    ph.name = p["name"] ? get_str(wc, p["name"], at + ".name") : fmt::format("phase {}", i + 1);
    if (p["pattern"]) {
      ph.pattern = get_str(wc, p["pattern"], at + ".pattern");
      bool ok = ph.pattern == "all_to_all";
      std::string names = "all_to_all";
      for (const auto& [n, d] : traffic_pattern_names()) {
        ok |= n == ph.pattern;
        names += ", " + n;
      }
      if (!ok)
        throw ConfigError(
            fmt::format("{}: {}.pattern = '{}' is unknown; allowed: {}", wc.origin, at, ph.pattern, names));
    }
    if (p["packets_per_node"])
      ph.packets_per_node = get_num<std::int64_t>(wc, p["packets_per_node"], at + ".packets_per_node", 0, 1 << 30);
    if (p["packet_flits"]) ph.packet_flits = get_num<int>(wc, p["packet_flits"], at + ".packet_flits", 1, 4096);
    if (p["load"])
      ph.load = get_num<double>(wc, p["load"], at + ".load", std::numeric_limits<double>::min(), 1.0,
                                "(0, 1] flits/node/cycle");
    if (p["compute_cycles"])
      ph.compute_cycles = get_num<std::int64_t>(wc, p["compute_cycles"], at + ".compute_cycles", 0, kMax);
    if (p["barrier_cycles"])
      ph.barrier_cycles = get_num<std::int64_t>(wc, p["barrier_cycles"], at + ".barrier_cycles", 0, kMax);
    // repeat: the phase N times in a row (an algorithm's steps).
    const std::int64_t repeat = p["repeat"] ? get_num<std::int64_t>(wc, p["repeat"], at + ".repeat", 1, 100000) : 1;
    if (s.phases.size() + static_cast<std::size_t>(repeat) > 100000)
      throw ConfigError(fmt::format("{}: {}.repeat = {}: at most 100000 phases in all", wc.origin, at, repeat));
    for (std::int64_t r = 0; r < repeat; ++r) {
      s.phases.push_back(ph);
      if (repeat > 1) s.phases.back().name = fmt::format("{} {}", ph.name, r + 1);
    }
  }
}

/// The traffic section (TrafficSpec).
void parse_traffic(const Ctx& c, const YAML::Node& t, ExperimentConfig& cfg) {
  check_map(c, t, "traffic",
            {"pattern", "load", "packet_flits", "packet_flits_long", "long_fraction", "hotspot_nodes",
             "hotspot_fraction", "flit_bytes", "kind", "mshrs", "request_flits", "reply_flits", "service_cycles",
             "think_cycles", "requests_per_node", "phases", "workload", "trace"});
  auto& s = cfg.traffic;
  if (t["kind"]) {
    s.kind = get_str(c, t["kind"], "traffic.kind");
    if (s.kind != "open_loop" && s.kind != "request_reply" && s.kind != "phases" && s.kind != "trace")
      throw ConfigError(
          fmt::format("{} = '{}': allowed open_loop, request_reply, phases, trace", c.key("traffic.kind"), s.kind));
  }
  if (s.traced()) {
    for (const auto& kv : t) {
      const std::string k = kv.first.as<std::string>();
      if (k != "kind" && k != "trace" && k != "flit_bytes")
        throw ConfigError(fmt::format("{} does not apply to traffic.kind = 'trace' (allowed: trace, flit_bytes)",
                                      c.key("traffic." + k)));
    }
    if (!t["trace"])
      throw ConfigError(fmt::format("{}: traffic.kind = 'trace' needs traffic.trace (a file)", c.origin));
    s.trace = get_str(c, t["trace"], "traffic.trace");
    if (t["flit_bytes"]) s.flit_bytes = get_num<int>(c, t["flit_bytes"], "traffic.flit_bytes", 1, 1 << 16);
    return;
  }
  if (t["trace"]) throw ConfigError(fmt::format("{} applies to traffic.kind = 'trace' only", c.key("traffic.trace")));
  if (s.phased()) {
    parse_phases(c, t, s);
    return;
  }
  for (const char* k : {"phases", "workload"})
    if (t[k])
      throw ConfigError(fmt::format("{} applies to traffic.kind = 'phases' only", c.key(std::string("traffic.") + k)));
  const std::vector<const char*> open_only{"load", "packet_flits", "packet_flits_long", "long_fraction"};
  const std::vector<const char*> closed_only{"mshrs",          "request_flits", "reply_flits",
                                             "service_cycles", "think_cycles",  "requests_per_node"};
  for (const char* k : s.closed_loop() ? open_only : closed_only)
    if (t[k])
      throw ConfigError(fmt::format("{} does not apply to traffic.kind = '{}' (only to {})",
                                    c.key(std::string("traffic.") + k), s.kind,
                                    s.closed_loop() ? "open_loop" : "request_reply"));
  constexpr std::int64_t kMaxCycles = std::int64_t{1} << 40;
  if (t["mshrs"]) s.mshrs = get_num<int>(c, t["mshrs"], "traffic.mshrs", 1, 4096);
  if (t["request_flits"]) s.request_flits = get_num<int>(c, t["request_flits"], "traffic.request_flits", 1, 4096);
  if (t["reply_flits"]) s.reply_flits = get_num<int>(c, t["reply_flits"], "traffic.reply_flits", 1, 4096);
  if (t["service_cycles"])
    s.service_cycles = get_num<std::int64_t>(c, t["service_cycles"], "traffic.service_cycles", 0, kMaxCycles);
  if (t["think_cycles"])
    s.think_cycles = get_num<std::int64_t>(c, t["think_cycles"], "traffic.think_cycles", 0, kMaxCycles);
  if (t["requests_per_node"])
    s.requests_per_node = get_num<std::int64_t>(c, t["requests_per_node"], "traffic.requests_per_node", 0, kMaxCycles,
                                                "0 (no end: the measurement window) or 1..2^40 requests");
  if (t["pattern"]) {
    s.pattern = get_str(c, t["pattern"], "traffic.pattern");
    bool ok = false;
    std::string list;
    for (const auto& [n, d] : traffic_pattern_names()) {
      ok |= n == s.pattern;
      list += (list.empty() ? "" : ", ") + n;
    }
    if (!ok)
      throw ConfigError(fmt::format("{} = '{}' is unknown; allowed: {}", c.key("traffic.pattern"), s.pattern, list));
  }
  if (t["load"]) {
    s.load = get_num<double>(c, t["load"], "traffic.load", std::numeric_limits<double>::min(), 1.0,
                             "(0, 1] flits/node/cycle");
  }
  if (t["packet_flits"]) s.packet_flits = get_num<int>(c, t["packet_flits"], "traffic.packet_flits", 1, 4096);
  if (t["packet_flits_long"])
    s.packet_flits_long = get_num<int>(c, t["packet_flits_long"], "traffic.packet_flits_long", 0, 4096,
                                       "0 (one length) or 1..4096 flits (bimodal)");
  if (t["long_fraction"]) s.long_fraction = get_num<double>(c, t["long_fraction"], "traffic.long_fraction", 0.0, 1.0);
  if (t["hotspot_fraction"])
    s.hotspot_fraction = get_num<double>(c, t["hotspot_fraction"], "traffic.hotspot_fraction", 0.0, 1.0);
  if (t["flit_bytes"]) s.flit_bytes = get_num<int>(c, t["flit_bytes"], "traffic.flit_bytes", 1, 1 << 16);
  if (const YAML::Node h = t["hotspot_nodes"]) {
    if (!h.IsSequence() || h.size() == 0)
      throw ConfigError(fmt::format("{} must be a non-empty list of node ids", c.key("traffic.hotspot_nodes")));
    s.hotspot_nodes.clear();
    for (std::size_t i = 0; i < h.size(); ++i)
      s.hotspot_nodes.push_back(get_num<int>(c, h[i], fmt::format("traffic.hotspot_nodes[{}]", i), 0, 1 << 22));
  }
}

/// The sim section (SimSpec).
void parse_sim(const Ctx& c, const YAML::Node& s, ExperimentConfig& cfg) {
  check_map(c, s, "sim",
            {"warmup_cycles", "measure_cycles", "max_drain_cycles", "seed", "window_cycles", "watchdog_cycles",
             "deadlock_is_outcome", "period_ns", "check_deadlock_freedom", "router_processes"});
  auto& m = cfg.sim;
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  if (s["warmup_cycles"]) m.warmup_cycles = get_num<std::int64_t>(c, s["warmup_cycles"], "sim.warmup_cycles", 0, kMax);
  if (s["measure_cycles"])
    m.measure_cycles = get_num<std::int64_t>(c, s["measure_cycles"], "sim.measure_cycles", 1, kMax);
  if (s["max_drain_cycles"])
    m.max_drain_cycles = get_num<std::int64_t>(c, s["max_drain_cycles"], "sim.max_drain_cycles", 0, kMax);
  if (s["seed"]) m.seed = get_num<std::uint64_t>(c, s["seed"], "sim.seed", 0, ~std::uint64_t{0});
  if (s["window_cycles"]) m.window_cycles = get_num<std::int64_t>(c, s["window_cycles"], "sim.window_cycles", 1, kMax);
  if (s["watchdog_cycles"])
    m.watchdog_cycles = get_num<std::int64_t>(c, s["watchdog_cycles"], "sim.watchdog_cycles", 10, kMax);
  if (s["check_deadlock_freedom"])
    m.check_deadlock_freedom = get_bool(c, s["check_deadlock_freedom"], "sim.check_deadlock_freedom");
  if (s["deadlock_is_outcome"])
    m.deadlock_is_outcome = get_bool(c, s["deadlock_is_outcome"], "sim.deadlock_is_outcome");
  if (s["period_ns"]) m.period_ns = get_num<double>(c, s["period_ns"], "sim.period_ns", 0.001, 1e6);
  if (s["router_processes"]) {
    m.router_processes = get_str(c, s["router_processes"], "sim.router_processes");
    if (m.router_processes != "shared" && m.router_processes != "per_router")
      throw ConfigError(
          fmt::format("{} = '{}': allowed shared, per_router", c.key("sim.router_processes"), m.router_processes));
  }
}

/// The faults section: a list of faults, or a mapping with the schedule,
/// random faults and the fault model (FaultsSpec).
void parse_faults(const Ctx& c, const YAML::Node& f, ExperimentConfig& cfg) {
  YAML::Node schedule;
  if (f.IsSequence()) {
    schedule = f;
  } else if (f.IsMap()) {
    check_map(c, f, "faults",
              {"schedule", "random_links", "random_switches", "random_seed", "random_at", "random_until",
               "detection_delay", "model", "bgl_plane_nodes"});
    if (f["model"]) {
      cfg.faults.model = get_str(c, f["model"], "faults.model");
      bool known = false;
      std::string list;
      for (const auto& [n, d] : fault_model_names()) {
        known |= n == cfg.faults.model;
        list += (list.empty() ? "" : ", ") + n;
      }
      if (!known)
        throw ConfigError(
            fmt::format("{} = '{}' is unknown; allowed: {}", c.key("faults.model"), cfg.faults.model, list));
    }
    if (f["bgl_plane_nodes"])
      cfg.faults.bgl_plane_nodes = get_num<int>(c, f["bgl_plane_nodes"], "faults.bgl_plane_nodes", 1, 1 << 20);
    if (f["schedule"]) schedule = f["schedule"];
    auto& fs = cfg.faults;
    if (f["random_links"]) fs.random_links = get_num<int>(c, f["random_links"], "faults.random_links", 0, 1 << 20);
    if (f["random_switches"])
      fs.random_switches = get_num<int>(c, f["random_switches"], "faults.random_switches", 0, 1 << 20);
    if (f["random_seed"])
      fs.random_seed = get_num<std::uint64_t>(c, f["random_seed"], "faults.random_seed", 0, ~std::uint64_t{0});
    if (f["random_at"])
      fs.random_at = get_num<std::int64_t>(c, f["random_at"], "faults.random_at", 0, std::int64_t{1} << 50);
    if (f["random_until"]) {
      fs.random_until = get_num<std::int64_t>(c, f["random_until"], "faults.random_until", -1, std::int64_t{1} << 50,
                                              "-1 (every random fault at random_at) or random_at..2^50");
      if (fs.random_until >= 0 && fs.random_until < fs.random_at)
        throw ConfigError(fmt::format("{} = {} is before faults.random_at = {}: allowed -1 or {}..2^50",
                                      c.key("faults.random_until"), fs.random_until, fs.random_at, fs.random_at));
    }
    if (f["detection_delay"])
      fs.detection_delay = get_num<std::int64_t>(c, f["detection_delay"], "faults.detection_delay", 0, 1 << 30);
  } else if (!f.IsNull()) {
    throw ConfigError(fmt::format("{} must be a list of faults or a mapping", c.key("faults")));
  }
  if (schedule && !schedule.IsNull()) {
    if (!schedule.IsSequence()) throw ConfigError(fmt::format("{} must be a list", c.key("faults.schedule")));
    for (std::size_t i = 0; i < schedule.size(); ++i) cfg.faults.schedule.push_back(parse_fault(c, schedule[i], i));
  }
}

ExperimentConfig parse_root(const YAML::Node& root, const Ctx& c) {
  ExperimentConfig cfg;
  cfg.source = root;
  // Top level: the model's own sections and every mechanism's (built in or
  // registered, tb/mechanism_registry.hpp); a mechanism section's keys are
  // the ones its registry entry lists.
  const std::vector<MechanismPlugin> mechanisms = mechanism_plugins();
  std::set<std::string> top(core_sections().begin(), core_sections().end());
  for (const auto& m : mechanisms)
    if (!m.section.empty()) top.insert(m.section);
  check_map(c, root, "", top);
  if (root["topology"]) cfg.topology = get_str(c, root["topology"], "topology");
  if (root["routing"]) cfg.routing = get_str(c, root["routing"], "routing");

  bool injection_set = false;
  if (const YAML::Node r = root["router"]) injection_set = parse_router(c, r, cfg);
  if (const YAML::Node t = root["traffic"]) parse_traffic(c, t, cfg);
  if (const YAML::Node sim = root["sim"]) parse_sim(c, sim, cfg);
  if (const YAML::Node f = root["faults"]) parse_faults(c, f, cfg);
  if (const YAML::Node e = root["energy"]) {
    check_map(c, e, "energy", {"technology"});
    if (e["technology"]) cfg.energy.technology = get_str(c, e["technology"], "energy.technology");
  }
  parse_mechanism_sections(c, root, mechanisms, cfg);

  if (!injection_set) cfg.router.injection = default_injection_policy(cfg.routing);

  // Cross-field checks.
  const auto& tr = cfg.traffic;
  const auto& rp = cfg.router;
  if (rp.vct && rp.buffer_flits < tr.max_packet_flits())
    throw ConfigError(fmt::format(
        "{}: router.buffer_flits = {} is smaller than the longest packet ({} flits); virtual cut-through needs a "
        "whole packet per VC: allowed {}..4096",
        c.origin, rp.buffer_flits, tr.max_packet_flits(), tr.max_packet_flits()));
  if (rp.voq == hw::VoqReading::kPerOutput) {
    if (rp.queues != hw::QueueOrganisation::kVoq)
      throw ConfigError(fmt::format(
          "{}: router.voq = 'per_output' needs router.queues = 'voq' (it is {}): allowed shared", c.origin, "input"));
    if (rp.voq_flits > rp.buffer_flits)
      throw ConfigError(fmt::format("{}: router.voq_flits = {} exceeds router.buffer_flits = {}: allowed 1..{}",
                                    c.origin, rp.voq_flits, rp.buffer_flits, rp.buffer_flits));
    if (rp.vct && rp.voq_flits < tr.max_packet_flits())
      throw ConfigError(fmt::format(
          "{}: router.voq_flits = {} is smaller than the longest packet ({} flits); virtual cut-through needs a whole "
          "packet per output queue: allowed {}..{}",
          c.origin, rp.voq_flits, tr.max_packet_flits(), tr.max_packet_flits(), rp.buffer_flits));
    if (!rp.vct)
      throw ConfigError(fmt::format(
          "{}: router.voq = 'per_output' is modelled with virtual cut-through only (router.flow_control = 'vct')",
          c.origin));
  }
  if (rp.queues == hw::QueueOrganisation::kVoq && rp.vc_allocator == hw::VcAllocatorKind::kWavefront)
    throw ConfigError(fmt::format(
        "{}: router.vc_allocator = 'wavefront' needs router.queues = 'input' (with virtual output queues a VC holds "
        "many heads, kept in arrival order per output, which a wavefront does not model): allowed "
        "separable_input_first",
        c.origin));
  if (rp.queues == hw::QueueOrganisation::kVoq && cfg.routing == "immunet")
    throw ConfigError(fmt::format(
        "{}: router.queues = 'voq' is not available with routing 'immunet' (its Table Update Module drains the "
        "safe VC as one FIFO, section 4.2): allowed input",
        c.origin));
  if (cfg.routing == "immunet" && cfg.immunet.control_packets == "safe-ring" &&
      cfg.immunet.control_packet_flits > rp.buffer_flits)
    throw ConfigError(fmt::format(
        "{}: immunet.control_packet_flits = {} does not fit in a VC of router.buffer_flits = {} (with "
        "immunet.control_packets = 'safe-ring' each control packet is a packet in the safe VC): allowed 0..{}, or "
        "control_packets: link-slots",
        c.origin, cfg.immunet.control_packet_flits, rp.buffer_flits, rp.buffer_flits));
  if (rp.injection_ports > rp.vcs)
    throw ConfigError(fmt::format(
        "{}: router.injection_ports = {} exceeds router.vcs = {}; each packet in injection needs its own VC: "
        "allowed 1..{}",
        c.origin, rp.injection_ports, rp.vcs, rp.vcs));
  if (cfg.sim.window_cycles > cfg.sim.measure_cycles + cfg.sim.warmup_cycles)
    cfg.sim.window_cycles = cfg.sim.measure_cycles + cfg.sim.warmup_cycles;
  return cfg;
}

}  // namespace

namespace {
// Returns a copy of `cur` (a mapping, or nothing yet) with keys[i..] set to value.
YAML::Node with_override(const YAML::Node& cur, const std::vector<std::string>& keys, std::size_t i,
                         const YAML::Node& value, const std::string& assignment) {
  YAML::Node out(YAML::NodeType::Map);
  const bool defined = cur.IsDefined() && !cur.IsNull();
  if (defined && cur.IsMap()) {
    out = YAML::Clone(cur);
  } else if (defined && cur.IsSequence() && i > 0 && keys[i - 1] == "faults") {
    out["schedule"] = YAML::Clone(cur);  // "faults: [..]" becomes "faults: {schedule: [..]}"
  } else if (defined) {
    throw ConfigError(fmt::format("--set '{}': '{}' is not a mapping", shown(assignment), keys[i - 1]));
  }
  if (i + 1 == keys.size()) {
    out[keys[i]] = value;
  } else {
    const YAML::Node& constant = out;
    out[keys[i]] = with_override(constant[keys[i]], keys, i + 1, value, assignment);
  }
  return out;
}
}  // namespace

void apply_override(YAML::Node& root, const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(fmt::format("--set '{}': expected dotted.key=value", shown(assignment)));
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  // Experiment keys are at most four levels deep (router.latency.rc); a
  // deeper path is a typo, and 50,000 levels overflowed the stack.
  constexpr std::size_t kMaxKeyLevels = 16;
  std::vector<std::string> keys;
  std::stringstream ss(path);
  std::string k;
  while (std::getline(ss, k, '.')) {
    if (k.empty()) throw ConfigError(fmt::format("--set '{}': empty key in '{}'", shown(assignment), shown(path)));
    if (keys.size() == kMaxKeyLevels)
      throw ConfigError(fmt::format("--set '{}': the key has more than {} dotted levels; at most {} allowed",
                                    shown(assignment), kMaxKeyLevels, kMaxKeyLevels));
    keys.push_back(k);
  }
  const YAML::Node value = parse_yaml_document(text, fmt::format("--set '{}': value", shown(assignment)));
  root = with_override(root, keys, 0, value, assignment);
}

ExperimentConfig parse_experiment(const std::string& yaml_text, const std::vector<std::string>& overrides,
                                  const std::string& origin) {
  YAML::Node root = parse_yaml_document(yaml_text, origin);
  if (!root || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  for (const auto& o : overrides) apply_override(root, o);
  return parse_root(root, Ctx{origin});
}

ExperimentConfig load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_experiment(read_yaml_file(path, "experiment file"), overrides, path);
}

nlohmann::json resolved_config_json(const ExperimentConfig& cfg) {
  nlohmann::json j;
  if (cfg.source && cfg.source.IsMap()) {
    for (const char* k : {"name", "description"})
      if (cfg.source[k] && cfg.source[k].IsScalar()) j[k] = cfg.source[k].Scalar();
  }
  j["topology"] = cfg.topology;
  j["routing"] = cfg.routing;
  const auto& r = cfg.router;
  j["router"] = {
      {"vcs", r.vcs},
      {"buffer_flits", r.buffer_flits},
      {"flow_control", r.vct ? "vct" : "wormhole"},
      {"latency",
       {{"rc", r.lat_rc},
        {"va", r.lat_va},
        {"sa", r.lat_sa},
        {"st", r.lat_st},
        {"link", r.lat_link},
        {"credit", r.lat_credit}}},
      {"injection", injection_policy_name(r.injection)},
      {"queues", r.queues == hw::QueueOrganisation::kVoq ? "voq" : "input"},
      {"crossbar", r.crossbar == hw::CrossbarKind::kPerVc ? "per_vc" : "multiplexed"},
      {"vc_realloc", r.vc_realloc == hw::VcRealloc::kNonAtomic ? "non_atomic" : "atomic"},
      {"vc_allocator", r.vc_allocator == hw::VcAllocatorKind::kWavefront ? "wavefront" : "separable_input_first"},
      {"switch_allocator", r.switch_allocator == hw::SwitchAllocatorKind::kIslip ? "islip" : "separable_input_first"},
      {"islip_iterations", r.islip_iterations},
      {"selection", r.selection == hw::SelectionKind::kMaxCredits             ? "max_credits"
                    : r.selection == hw::SelectionKind::kMaxCreditsRoundRobin ? "max_credits_rr"
                                                                              : "round_robin"},
      {"injection_ports", r.injection_ports},
      {"ejection_ports", r.ejection_ports}};
  if (r.queues == hw::QueueOrganisation::kVoq) {
    j["router"]["voq"] = r.voq == hw::VoqReading::kPerOutput ? "per_output" : "shared";
    if (r.voq == hw::VoqReading::kPerOutput) j["router"]["voq_flits"] = r.voq_flits;
  }
  const auto& t = cfg.traffic;
  j["traffic"] = {{"pattern", t.pattern},
                  {"load", t.load},
                  {"packet_flits", t.packet_flits},
                  {"packet_flits_long", t.packet_flits_long},
                  {"long_fraction", t.long_fraction},
                  {"hotspot_nodes", t.hotspot_nodes},
                  {"hotspot_fraction", t.hotspot_fraction},
                  {"flit_bytes", t.flit_bytes}};
  if (t.traced()) {
    j["traffic"]["kind"] = t.kind;
    j["traffic"]["trace"] = t.trace;
  }
  if (t.phased()) {
    j["traffic"]["kind"] = t.kind;
    if (!t.workload.empty()) j["traffic"]["workload"] = t.workload;
    j["traffic"]["phases"] = nlohmann::json::array();
    for (const auto& p : t.phases)
      j["traffic"]["phases"].push_back({{"name", p.name},
                                        {"pattern", p.pattern},
                                        {"packets_per_node", p.packets_per_node},
                                        {"packet_flits", p.packet_flits},
                                        {"load", p.load},
                                        {"compute_cycles", p.compute_cycles},
                                        {"barrier_cycles", p.barrier_cycles}});
  }
  if (t.closed_loop()) {  // echoed only when used, so open-loop stats.json files stay as they were
    j["traffic"]["kind"] = t.kind;
    j["traffic"]["mshrs"] = t.mshrs;
    j["traffic"]["request_flits"] = t.request_flits;
    j["traffic"]["reply_flits"] = t.reply_flits;
    j["traffic"]["service_cycles"] = t.service_cycles;
    j["traffic"]["think_cycles"] = t.think_cycles;
    j["traffic"]["requests_per_node"] = t.requests_per_node;
  }
  const auto& m = cfg.sim;
  j["sim"] = {{"warmup_cycles", m.warmup_cycles},
              {"measure_cycles", m.measure_cycles},
              {"max_drain_cycles", m.max_drain_cycles},
              {"seed", m.seed},
              {"window_cycles", m.window_cycles},
              {"watchdog_cycles", m.watchdog_cycles},
              {"deadlock_is_outcome", m.deadlock_is_outcome},
              {"check_deadlock_freedom", m.check_deadlock_freedom},
              {"period_ns", m.period_ns},
              {"router_processes", m.router_processes}};
  nlohmann::json schedule = nlohmann::json::array();
  for (const auto& f : cfg.faults.schedule) {
    nlohmann::json e;
    if (!f.link.empty()) {
      if (f.link[0] == '#')
        e["link_id"] = std::stol(f.link.substr(1));
      else
        e["link"] = f.link;
    } else {
      e["switch"] = f.router;
    }
    e["at"] = f.at;
    e["repair"] = f.repair >= 0 ? nlohmann::json(f.repair) : nlohmann::json(nullptr);
    schedule.push_back(e);
  }
  const auto& fs = cfg.faults;
  j["faults"] = {{"schedule", schedule},
                 {"random_links", fs.random_links},
                 {"random_switches", fs.random_switches},
                 {"random_seed", fs.random_seed},
                 {"random_at", fs.random_at},
                 {"random_until", fs.random_until},
                 {"detection_delay", fs.detection_delay},
                 {"model", fs.model},
                 {"bgl_plane_nodes", fs.bgl_plane_nodes}};
  const auto& im = cfg.immunet;
  j["immunet"] = {{"handle_cycles", im.handle_cycles},
                  {"ack_window", im.ack_window},
                  {"control_packet_cycles", im.control_packet_cycles},
                  {"control_packet_flits", im.control_packet_flits},
                  {"max_moves", im.max_moves},
                  {"boot_safe_network", im.boot_safe_network},
                  {"rtl", im.rtl},
                  {"control_packets", im.control_packets}};
  j["dlr"] = {{"reroute_timeout", cfg.dlr.reroute_timeout}};
  j["energy"] = {{"technology", cfg.energy.technology}};
  const auto& dd = cfg.ddrc;
  j["ddrc"] = {{"enabled", dd.enabled},
               {"notification_cycles", dd.notification_cycles},
               {"computation_cycles", dd.computation_cycles},
               {"distribution_cycles", dd.distribution_cycles}};
  const auto& dq = cfg.dqr;
  j["dqr"] = {{"enabled", dq.enabled},
              {"initial", dq.initial},
              {"variant", dq.variant},
              {"replay_tables", dq.replay_tables},
              {"notification_cycles", dq.notification_cycles},
              {"computation_cycles", dq.computation_cycles},
              {"distribution", dq.distribution},
              {"distribution_cycles", dq.distribution_cycles},
              {"block_cycles", dq.block_cycles},
              {"order", dq.order}};
  return j;
}

}  // namespace ftsim::tb
