// Plug-in registries of the testbench: user traffic patterns and fault
// models, registered from the user's own code (before the experiment is
// loaded) and then named in experiment files like the built-in ones. The
// routing-relation registry is routing::register_routing
// (routing_logic/routing_relation.hpp). Pure C++ (no SystemC).
//
// The registries are process-wide and guarded by a mutex, so registration and
// lookup are safe from several threads; register before elaborating networks.
#pragma once
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hw/immunet/emergency_logic.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::tb {

struct FaultsSpec;

/// A fault resolved against the topology.
struct ResolvedFault {
  bool is_router = false;
  int id = -1;  ///< link id or router id
  std::string label;
  std::int64_t at = 0;       ///< cycle the element fails
  std::int64_t repair = -1;  ///< cycle it works again, -1 = permanent
  bool random = false;       ///< drawn by faults.random_links
};

/// A user traffic pattern: the destination of a new packet from `src`, or
/// routing::kNone to send nothing. It must draw its randomness from `rng`
/// only (the node's own stream, so runs stay reproducible). Destinations that
/// are `src`, out of range or in another live component are replaced by
/// kNone by the caller.
using DestinationFunction =
    std::function<routing::NodeId(routing::NodeId src, const routing::Topology& topo, std::mt19937_64& rng)>;

/// Registers a traffic pattern under `name` (then `traffic.pattern: name`).
/// Throws ftsim::ConfigError for an empty name, a name already taken (a
/// built-in pattern or an earlier registration), or an empty function.
void register_traffic_pattern(const std::string& name, const std::string& description, DestinationFunction fn);

/// The registered user pattern `name`, or an empty function.
DestinationFunction user_traffic_pattern(const std::string& name);

/// A user fault model: the faults it adds to the experiment's own list, given
/// the topology and the `faults` block (e.g. its random_seed and random_at).
/// Link ids are topology link ids, router ids topology router ids; the usual
/// checks then apply (no overlap, the survivors stay connected).
using FaultModelFunction =
    std::function<std::vector<ResolvedFault>(const routing::Topology& topo, const FaultsSpec& spec)>;

/// Registers a fault model under `name` (then `faults.model: name`). Throws
/// ftsim::ConfigError for an empty name, a name already taken (links,
/// bgl-planes or an earlier registration), or an empty function.
void register_fault_model(const std::string& name, const std::string& description, FaultModelFunction fn);

/// The registered user fault model `name`, or an empty function.
FaultModelFunction user_fault_model(const std::string& name);

/// Built-in and registered fault models: (name, description).
std::vector<std::pair<std::string, std::string>> fault_model_names();

/// Registers an implementation of Immunet's emergency blocks under `name`
/// (then `immunet.rtl: name`); the built-in is `cpp` (hw::EmergencyLogic).
/// ftsim registers `verilated` (rtl_ref/, the Verilog through Verilator)
/// when it is built with Verilator. Throws ftsim::ConfigError for an empty
/// name, `cpp`, a name already taken, or an empty factory.
void register_emergency_blocks(const std::string& name, const std::string& description,
                               hw::EmergencyBlocksFactory factory);

/// The registered emergency blocks `name`, or an empty factory (`cpp`: the
/// router builds hw::EmergencyLogic).
hw::EmergencyBlocksFactory emergency_blocks(const std::string& name);

/// Registered emergency-block implementations: (name, description).
std::vector<std::pair<std::string, std::string>> emergency_blocks_names();

/// Registered user traffic patterns only: (name, description).
std::vector<std::pair<std::string, std::string>> user_traffic_pattern_names();

}  // namespace ftsim::tb
