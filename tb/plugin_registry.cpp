#include "tb/plugin_registry.hpp"

#include <fmt/format.h>

#include "routing_logic/named_registry.hpp"
#include "tb/experiment_config.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;

namespace {

routing::NamedRegistry<DestinationFunction>& patterns() {
  static routing::NamedRegistry<DestinationFunction> r("traffic pattern");
  return r;
}

routing::NamedRegistry<FaultModelFunction>& fault_models() {
  static routing::NamedRegistry<FaultModelFunction> r("fault model");
  return r;
}

routing::NamedRegistry<hw::EmergencyBlocksFactory>& blocks_registry() {
  static routing::NamedRegistry<hw::EmergencyBlocksFactory> r("emergency-block implementation");
  return r;
}

const std::vector<std::pair<std::string, std::string>>& builtin_fault_models() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"links", "the listed and random links (and switches) fail"},
      {"bgl-planes",
       "BlueGene/L-like baseline: each faulty link's plane of faults.bgl_plane_nodes nodes is bypassed "
       "(intermediate-nodes paper, section 5.3.3)"},
  };
  return names;
}

/// A predicate: is `name` one of `builtin`?
auto one_of(const std::vector<std::pair<std::string, std::string>>& builtin) {
  return [&builtin](const std::string& name) {
    for (const auto& [n, d] : builtin)
      if (n == name) return true;
    return false;
  };
}

}  // namespace

void register_traffic_pattern(const std::string& name, const std::string& description, DestinationFunction fn) {
  patterns().add(name, description, std::move(fn), one_of(builtin_traffic_pattern_names()));
}

DestinationFunction user_traffic_pattern(const std::string& name) {
  return patterns().find(name);
}

std::vector<std::pair<std::string, std::string>> user_traffic_pattern_names() {
  return patterns().names();
}

void register_fault_model(const std::string& name, const std::string& description, FaultModelFunction fn) {
  fault_models().add(name, description, std::move(fn), one_of(builtin_fault_models()));
}

FaultModelFunction user_fault_model(const std::string& name) {
  return fault_models().find(name);
}

std::vector<std::pair<std::string, std::string>> fault_model_names() {
  auto out = builtin_fault_models();
  for (auto& e : fault_models().names()) out.push_back(std::move(e));
  return out;
}

void register_emergency_blocks(const std::string& name, const std::string& description,
                               hw::EmergencyBlocksFactory factory) {
  blocks_registry().add(name, description, std::move(factory), [](const std::string& n) { return n == "cpp"; });
}

hw::EmergencyBlocksFactory emergency_blocks(const std::string& name) {
  return blocks_registry().find(name);
}

std::vector<std::pair<std::string, std::string>> emergency_blocks_names() {
  std::vector<std::pair<std::string, std::string>> out = {
      {"cpp", "the C++ emergency logic (hw::EmergencyLogic), the default"}};
  for (auto& e : blocks_registry().names()) out.push_back(std::move(e));
  return out;
}

}  // namespace ftsim::tb
