// k-ary n-cube torus and n-dimensional mesh (any k per dimension, n = 1..3).
#pragma once
#include <cstdint>
#include <vector>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// Direct network: router r hosts node r on port 0 (the local port). Port
/// 1 + 2d goes in direction d+ and port 2 + 2d in d-. Router ids are mixed
/// radix with dimension 0 fastest. In a torus the links from coordinate k-1 to
/// 0 in each dimension are the wrap-around links (the dateline is there).
class KAryNCube : public Topology {
 public:
  /// dims: radix per dimension, each >= 2, 1..3 dimensions (4+ also work).
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
  int coord(RouterId r, int d) const { return m_coords[static_cast<std::size_t>(r * m_n_dims + d)]; }
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
  int m_n_dims = 0;
  std::vector<std::uint16_t> m_coords;  ///< router-major, dimension-minor (k <= 1024)
};

}  // namespace ftsim::routing
