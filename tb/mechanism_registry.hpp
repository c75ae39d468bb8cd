// The mechanism registry: every fault-tolerance mechanism the testbench
// knows, built in or registered by a user, with its YAML section and keys.
// It feeds `ftsim list mechanisms`, the validation of the experiment file
// (a registered section is a known top-level key; its keys are checked
// against the list) and the user guide's key table (a test checks that
// every listed key is documented). A mechanism's per-router hardware is
// built through it (hw/mechanism.hpp); a user mechanism also elaborates its
// network-wide parts, parses its own section and reports its own figures
// in stats.json ("mechanisms" object).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/mechanism_fwd.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/topology.hpp"
#include "tb/mechanism_section.hpp"

namespace ftsim::tb {

struct ExperimentConfig;
class Network;

/// A fault-tolerance mechanism as the testbench sees it.
struct MechanismPlugin {
  std::string name;         ///< "immunet", "dlr", ...; unique
  std::string description;  ///< one line for `ftsim list mechanisms`
  /// Its top-level YAML section ("" = none); unique among mechanisms and
  /// not one of the model's own sections (topology, router, traffic, ...).
  std::string section;
  /// Its keys. The parser refuses any other key in the section and checks
  /// each typed key's value (MechanismKey::integer/boolean/choice) before
  /// `parse` sees it; the error names the key and the allowed range.
  std::vector<MechanismKey> keys;
  /// Reads the validated section into the configuration (built-in
  /// mechanisms fill their typed specs, cfg.immunet etc.); called only when
  /// the section is present. Throws ftsim::ConfigError for cross-key rules
  /// (section.fail(key, message)). Every section present is also kept in
  /// cfg.mechanism_sections[section], where a user mechanism's elaborate hook
  /// reads it.
  std::function<void(const MechanismSection& section, ExperimentConfig& cfg)> parse;
  /// Is the mechanism part of this experiment? Empty: whenever its section
  /// is present.
  std::function<bool(const ExperimentConfig&)> active;
  /// Sets the mechanism's parameters of the routing relation, after the
  /// relation is made and before it is configured for the topology
  /// (Immunet's max_moves, ADLR's re-route time-out).
  std::function<void(routing::RoutingRelation& relation, const ExperimentConfig& cfg)> configure_relation;
  /// Its per-router hardware for this network (an empty factory: none).
  /// At most one active mechanism may have per-router hardware. The
  /// built-in entries leave this and the other SystemC hooks empty here (the
  /// catalogue links without SystemC, for the parser); the network adds
  /// them (tb/mechanisms/builtin_hardware.cpp).
  std::function<hw::RouterMechanismFactory(const ExperimentConfig&, const routing::Topology&,
                                           const routing::RoutingRelation&)>
      router_hardware;
  /// Network-wide parts, called at the end of the Network's constructor (so
  /// modules created here are children of the network). The section is
  /// validated in cfg.mechanism_sections (typed keys) and raw in
  /// cfg.source[section] (a YAML::Node).
  /// Built-in mechanisms use this hook too (tb/mechanisms/).
  std::function<void(Network& net, const ExperimentConfig& cfg)> elaborate;
  /// Figures for stats.json: "mechanisms": {name: report(net)}.
  std::function<nlohmann::json(const Network& net)> report;
  /// Sections of its own at the top level of stats.json (Immunet's
  /// "reconfiguration"), written after the run; `dropped` is the run's
  /// packets lost.
  std::function<void(Network& net, const ExperimentConfig& cfg, std::uint64_t dropped, nlohmann::json& stats)> stats;
  /// The Local Fault Detectors at both ends of link `link` report it, after
  /// the detection delay (fail_cycle: when it failed).
  std::function<void(Network& net, routing::LinkId link, std::uint64_t fail_cycle)> fault_detected;
  /// The routers at both ends of router-router link `link` have learnt
  /// (after the detection delay) that it is up or down (a subnet manager's
  /// notification).
  std::function<void(Network& net, routing::LinkId link, bool alive)> link_detected;
  /// Router `router` has died (before its links fail).
  std::function<void(Network& net, routing::RouterId router)> router_failed;
  /// A reconfiguration is in progress: the deadlock watchdog counts it as
  /// progress while nothing moves (an emergency stops all traffic).
  std::function<bool(const Network& net)> busy;
  /// The mechanism finds lost nodes itself: faults that disconnect the
  /// network are allowed (Immunet reports the nodes it cannot reach).
  bool reports_lost_nodes = false;
};

/// Registers a user mechanism. Throws ftsim::ConfigError for an empty name,
/// a name or section already taken (built-in or registered), a section that
/// is one of the model's own, or duplicate keys.
void register_mechanism(MechanismPlugin plugin);

/// Built-in mechanisms, then registered ones in registration order (copies).
std::vector<MechanismPlugin> mechanism_plugins();

/// The mechanisms active in `cfg`, in the order of mechanism_plugins().
std::vector<MechanismPlugin> active_mechanisms(const ExperimentConfig& cfg);

/// The model's own top-level keys (not mechanism sections).
const std::vector<std::string>& core_sections();

}  // namespace ftsim::tb
