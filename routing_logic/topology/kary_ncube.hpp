// k-ary n-cube torus and n-dimensional mesh (any k per dimension, n = 1..6).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// Minimal way along one dimension of a k-ary n-cube from one router to
/// another: `sign` +1, -1, or 0 when the coordinates agree; `tie` when the
/// routers are exactly k/2 apart on a torus ring of even k (both directions
/// minimal; `sign` is +1 then).
struct DimDirection {
  int sign = 0;
  bool tie = false;
};

/// Direct network: router r hosts node r on port 0 (the local port). Port
/// 1 + 2d goes in direction d+ and port 2 + 2d in d-. Router ids are mixed
/// radix with dimension 0 fastest. In a torus the links from coordinate k-1 to
/// 0 in each dimension are the wrap-around links (the dateline is there).
class KAryNCube : public Topology {
 public:
  /// Most dimensions a cube may have.
  static constexpr int kMaxDimensions = 6;
  /// dims: radix per dimension, each >= 2, 1..kMaxDimensions dimensions.
  /// Throws ConfigError naming the offending value.
  KAryNCube(std::vector<int> dims, bool torus);

  std::string spec() const override;
  bool is_direct() const override { return true; }
  std::string router_label(RouterId r) const override;
  std::string node_label(NodeId n) const override { return router_label(n); }
  std::string port_name(RouterId r, PortId p) const override;
  std::string link_label(LinkId l) const override;
  LinkId parse_link(const std::string& label) const override;
  RouterId parse_router(const std::string& label) const override;

  bool torus() const { return m_torus; }
  int dimensions() const { return static_cast<int>(m_dims.size()); }
  int radix_of(int d) const { return m_dims[d]; }
  /// Coordinate of router r in dimension d, 0..k-1 (a table: the routing
  /// relations read it per head, and two integer divisions cost more).
  int coord(RouterId r, int d) const { return m_coords[static_cast<std::size_t>(r * dimensions() + d)]; }
  /// The minimal way along dimension d (0..n-1) to a coordinate `delta`
  /// = to - from (-(k-1)..k-1) away: a table per dimension, 2k entries,
  /// built once (route computation reads it per dimension of every head;
  /// the torus' modulo and comparisons cost more, issue 54).
  DimDirection way(int d, int delta) const {
    return m_way[static_cast<std::size_t>(m_way_base[static_cast<std::size_t>(d)] + delta)];
  }
  RouterId neighbour(RouterId r, int d, bool plus) const;
  static constexpr PortId kLocalPort = 0;
  static PortId port_of(int d, bool plus) { return 1 + 2 * d + (plus ? 0 : 1); }
  static int dim_of(PortId p) { return (p - 1) / 2; }
  static bool is_plus(PortId p) { return ((p - 1) % 2) == 0; }
  /// Name of direction: east/west/north/south/up/down for n <= 3, else "d3+".
  std::string direction_name(int d, bool plus) const;

 private:
  std::vector<int> m_dims;
  std::vector<int> m_stride;
  bool m_torus;
  std::vector<std::uint16_t> m_coords;           ///< router-major, dimension-minor (k <= 1024)
  std::vector<DimDirection> m_way;               ///< per dimension d, 2k entries from delta -k on
  std::array<int, kMaxDimensions> m_way_base{};  ///< index in m_way of dimension d's delta 0
};

/// The DimDirection of dimension `dim` (0..n-1) from router `from` to `to`.
/// Inline: route computation reads it per dimension of every head (issue 54).
inline DimDirection dim_direction(const KAryNCube& t, int from, int to, int dim) {
  return t.way(dim, t.coord(to, dim) - t.coord(from, dim));
}

/// dim_direction of every dimension from `from` to `to` (entries from
/// t.dimensions() on stay {0, false}).
inline std::array<DimDirection, KAryNCube::kMaxDimensions> dim_directions(const KAryNCube& t, int from, int to) {
  std::array<DimDirection, KAryNCube::kMaxDimensions> way;
  const int n = t.dimensions();
  for (int d = 0; d < n; ++d) way[static_cast<std::size_t>(d)] = t.way(d, t.coord(to, d) - t.coord(from, d));
  return way;
}

}  // namespace ftsim::routing
