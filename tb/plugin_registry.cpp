#include "tb/plugin_registry.hpp"

#include <map>
#include <mutex>

#include <fmt/format.h>

#include "routing_logic/routing_relation.hpp"
#include "tb/experiment_config.hpp"

namespace ftsim::tb {

using routing::ConfigError;

namespace {

template <typename Fn>
struct Entry {
  std::string description;
  Fn fn;
};

template <typename Fn>
struct Registry {
  std::mutex mutex;
  std::map<std::string, Entry<Fn>> entries;
};

Registry<DestinationFunction>& patterns() {
  static Registry<DestinationFunction> r;
  return r;
}

Registry<FaultModelFunction>& fault_models() {
  static Registry<FaultModelFunction> r;
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

template <typename Fn>
void add(Registry<Fn>& reg, const std::string& what, const std::string& name, const std::string& description, Fn fn,
         const std::vector<std::pair<std::string, std::string>>& builtin) {
  if (name.empty()) throw ConfigError(fmt::format("register {}: the name is empty", what));
  if (!fn) throw ConfigError(fmt::format("register {} '{}': the function is empty", what, name));
  for (const auto& [n, d] : builtin)
    if (n == name) throw ConfigError(fmt::format("register {} '{}': a built-in {} has that name", what, name, what));
  std::lock_guard<std::mutex> lock(reg.mutex);
  if (!reg.entries.emplace(name, Entry<Fn>{description, std::move(fn)}).second)
    throw ConfigError(fmt::format("register {} '{}': already registered", what, name));
}

template <typename Fn>
Fn find(Registry<Fn>& reg, const std::string& name) {
  std::lock_guard<std::mutex> lock(reg.mutex);
  const auto it = reg.entries.find(name);
  return it == reg.entries.end() ? Fn{} : it->second.fn;
}

template <typename Fn>
std::vector<std::pair<std::string, std::string>> names_of(Registry<Fn>& reg) {
  std::lock_guard<std::mutex> lock(reg.mutex);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, e] : reg.entries) out.emplace_back(n, e.description);
  return out;
}

}  // namespace

void register_traffic_pattern(const std::string& name, const std::string& description, DestinationFunction fn) {
  add(patterns(), "traffic pattern", name, description, std::move(fn), builtin_traffic_pattern_names());
}

DestinationFunction user_traffic_pattern(const std::string& name) {
  return find(patterns(), name);
}

std::vector<std::pair<std::string, std::string>> user_traffic_pattern_names() {
  return names_of(patterns());
}

void register_fault_model(const std::string& name, const std::string& description, FaultModelFunction fn) {
  add(fault_models(), "fault model", name, description, std::move(fn), builtin_fault_models());
}

FaultModelFunction user_fault_model(const std::string& name) {
  return find(fault_models(), name);
}

std::vector<std::pair<std::string, std::string>> fault_model_names() {
  auto out = builtin_fault_models();
  for (auto& e : names_of(fault_models())) out.push_back(std::move(e));
  return out;
}

}  // namespace ftsim::tb
