// Synthetic traffic patterns: source node -> destination node.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "routing_logic/topology/topology.hpp"
#include "tb/experiment_config.hpp"
#include "tb/plugin_registry.hpp"

namespace ftsim::tb {

/// Destination choice for each pattern of traffic_pattern_names(). Permutation
/// patterns that map a node to itself or to a dead node yield kNone (the
/// generator then sends nothing). Bit patterns need a power-of-two node count
/// (transpose: an even power); the constructor throws ConfigError otherwise.
/// A pattern registered with register_traffic_pattern is looked up by name
/// when the pattern is built; its destinations pass the same live-component
/// filter as the built-in permutations.
class TrafficPattern {
 public:
  TrafficPattern(const routing::Topology& topo, const TrafficSpec& spec);
  /// Destination for a packet from src, or routing::kNone.
  routing::NodeId destination(routing::NodeId src, std::mt19937_64& rng) const;
  /// Restricts destinations to live nodes of the same component (-1 = dead).
  void set_components(const std::vector<int>& component_of_node);
  /// The permutation's fixed image of src (permutation patterns), for tests.
  routing::NodeId permutation(routing::NodeId src) const;

 private:
  routing::NodeId uniform(routing::NodeId src, std::mt19937_64& rng) const;
  DestinationFunction m_user;  ///< a registered user pattern, or empty
  /// traffic.pattern's kind, decided once at construction (destination()
  /// runs per packet; comparing the name there cost about 80 instructions).
  enum class Kind : std::uint8_t { kUser, kUniform, kHotspot, kPermutation };
  Kind m_kind = Kind::kPermutation;
  const routing::Topology& m_topo;
  TrafficSpec m_spec;
  int m_bits = 0;
  std::vector<int> m_comp;
  std::vector<std::vector<routing::NodeId>> m_members;  // per component
};

}  // namespace ftsim::tb
