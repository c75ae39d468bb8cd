// A process-wide registry of user plug-ins by name (routing relations here;
// traffic patterns and fault models in tb/plugin_registry.hpp): add refuses
// an empty name, an empty function, a built-in name or a name registered
// before; find returns an empty function for an unknown name. Thread-safe.
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "routing_logic/types.hpp"

namespace ftsim::routing {

template <typename Fn>
class NamedRegistry {
 public:
  /// `what` names the kind in errors ("routing", "traffic pattern").
  explicit NamedRegistry(std::string what) : m_what(std::move(what)) {}

  /// Throws ConfigError for an empty name or function, a name for which
  /// `is_builtin(name)` is true, or a name registered before.
  template <typename IsBuiltin>
  void add(const std::string& name, const std::string& description, Fn fn, IsBuiltin is_builtin) {
    if (name.empty()) throw ConfigError(fmt::format("register {}: the name is empty", m_what));
    if (!fn) throw ConfigError(fmt::format("register {} '{}': the function is empty", m_what, name));
    if (is_builtin(name))
      throw ConfigError(fmt::format("register {} '{}': a built-in {} has that name", m_what, name, m_what));
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_entries.emplace(name, Entry{description, std::move(fn)}).second)
      throw ConfigError(fmt::format("register {} '{}': already registered", m_what, name));
  }

  Fn find(const std::string& name) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto it = m_entries.find(name);
    return it == m_entries.end() ? Fn{} : it->second.fn;
  }

  /// (name, description) of every registered plug-in, by name.
  std::vector<std::pair<std::string, std::string>> names() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [n, e] : m_entries) out.emplace_back(n, e.description);
    return out;
  }

 private:
  struct Entry {
    std::string description;
    Fn fn;
  };
  std::string m_what;
  mutable std::mutex m_mutex;
  std::map<std::string, Entry> m_entries;
};

}  // namespace ftsim::routing
