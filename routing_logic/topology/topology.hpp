// Topology: routers with numbered ports, terminals (nodes) attached to router
// ports, and bidirectional links. Pure C++.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "routing_logic/types.hpp"

namespace ftsim::routing {

/// What sits at the far end of a router port.
struct PortPeer {
  enum class Kind : std::uint8_t { kUnconnected, kRouter, kNode };
  Kind kind = Kind::kUnconnected;
  std::int32_t id = kNone;  ///< router id or node id
  PortId port = kNone;      ///< peer router's port (kRouter only)
  LinkId link = kNone;      ///< link id, or kNone for a direct network's local port
};

/// One bidirectional link. End a is always a router; end b is a router or, in
/// indirect networks, a node (then b_port is kNone).
struct Link {
  LinkId id = kNone;
  RouterId a = kNone;
  PortId a_port = kNone;
  bool b_is_node = false;
  std::int32_t b = kNone;
  PortId b_port = kNone;
};

/// Abstract topology. Concrete classes build their wiring in the constructor
/// with connect() and attach_node(); everything here is immutable afterwards.
///
/// Distances in this project count links: in direct networks (mesh, torus) the
/// node sits inside its router, so only router-router links count; in indirect
/// networks (trees, MiKANT) the node-switch links count too, as in the papers.
class Topology {
 public:
  virtual ~Topology() = default;

  /// Canonical spec string, e.g. "torus:8x8".
  virtual std::string spec() const = 0;
  /// True when every router has its own node on a local port (mesh, torus).
  virtual bool is_direct() const = 0;
  virtual std::string router_label(RouterId r) const = 0;
  virtual std::string node_label(NodeId n) const = 0;
  virtual std::string port_name(RouterId r, PortId p) const = 0;
  /// Topology-native link label (torus "1,2:x+", tree "<01,2>:down1",
  /// MiKANT "<1,2,0,0,0>").
  virtual std::string link_label(LinkId l) const = 0;
  /// Parses a native link label. Throws ConfigError naming the label.
  virtual LinkId parse_link(const std::string& label) const = 0;
  /// Parses a native router/switch label. Throws ConfigError.
  virtual RouterId parse_router(const std::string& label) const = 0;
  /// Is node n a switch's own endpoint (SwitchEndpointTopology) rather than
  /// a terminal? Such nodes do not make their switch a leaf.
  virtual bool is_switch_endpoint(NodeId /*n*/) const { return false; }

  int num_routers() const { return static_cast<int>(m_ports.size()); }
  int num_nodes() const { return static_cast<int>(m_node_router.size()); }
  int num_links() const { return static_cast<int>(m_links.size()); }
  int radix(RouterId r) const { return static_cast<int>(m_ports[r].size()); }
  int max_radix() const { return m_max_radix; }
  const PortPeer& peer(RouterId r, PortId p) const { return m_ports[r][p]; }
  RouterId node_router(NodeId n) const { return m_node_router[n]; }
  PortId node_port(NodeId n) const { return m_node_port[n]; }
  const Link& link(LinkId l) const { return m_links[l]; }
  const std::vector<Link>& links() const { return m_links; }

  /// Parses a link given as a native label or as a plain id "#17" / "17".
  LinkId parse_link_any(const std::string& text) const;

  /// Hop distance (links) between two nodes over the fault-free graph, by BFS.
  std::vector<int> node_distances_from(NodeId src) const;

 protected:
  void resize(int routers, int radix, int nodes);
  /// Connects router a port pa with router b port pb by a new link.
  LinkId connect(RouterId a, PortId pa, RouterId b, PortId pb);
  /// Attaches node n to router r port p. counts_as_link: indirect networks.
  void attach_node(NodeId n, RouterId r, PortId p, bool counts_as_link);

 private:
  std::vector<std::vector<PortPeer>> m_ports;
  std::vector<RouterId> m_node_router;
  std::vector<PortId> m_node_port;
  std::vector<Link> m_links;
  int m_max_radix = 0;
};

/// Builds a topology from a spec string: "mesh:8x8", "torus:3x3x3",
/// "kary-ntree:4,3", "mikant:3,3". Throws ConfigError for an unknown name or
/// an out-of-range parameter (k >= 2, 1..3 dimensions for mesh/torus, n >= 2
/// for MiKANT, n >= 1 for k-ary n-trees).
std::unique_ptr<Topology> make_topology(const std::string& spec);

/// Names accepted by make_topology.
std::vector<std::string> topology_names();

}  // namespace ftsim::routing
