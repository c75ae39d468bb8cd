// Immunet's routing tables: Safe Table, Adaptive Table (+ distance) and the
// Small Safe (SS) table. Source: immunet-fault-tolerant-routing.txt, section 2
// (tables, Figure 2), section 4.1 (SS table of the tree tour, Figure 5),
// section 4.2 (safe table), section 4.3 (adaptive table with distances).
#pragma once
#include <cstdint>
#include <vector>

#include "routing_logic/fault_set.hpp"
#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::tables {

/// Safe Table of one router: destination node -> bitmask of output ports
/// (bit p = port p, local port included) towards the safe network.
/// Size: N x P bits, P = router ports including the local one.
class SafeTable {
 public:
  SafeTable(int nodes, int ports) : m_ports(ports), m_masks(nodes, 0) {}
  std::uint64_t mask(int dest) const { return m_masks[dest]; }
  void set(int dest, std::uint64_t mask) { m_masks[dest] = mask; }
  long size_bits() const { return static_cast<long>(m_masks.size()) * m_ports; }

 private:
  int m_ports;
  std::vector<std::uint64_t> m_masks;
};

/// Adaptive Table of one router: destination -> bitmask of minimal output
/// ports plus the distance in hops. A distance of N (the node count) means
/// "lost" (section 4.3). Size: N x (P + ceil(log2(N + 1))) bits.
class AdaptiveTable {
 public:
  AdaptiveTable(int nodes, int ports) : m_ports(ports), m_masks(nodes, 0), m_dist(nodes, nodes) {}
  std::uint64_t mask(int dest) const { return m_masks[dest]; }
  int distance(int dest) const { return m_dist[dest]; }
  void set(int dest, std::uint64_t mask, int distance) {
    m_masks[dest] = mask;
    m_dist[dest] = distance;
  }
  int nodes() const { return static_cast<int>(m_masks.size()); }
  long size_bits() const;

 private:
  int m_ports;
  std::vector<std::uint64_t> m_masks;
  std::vector<int> m_dist;
};

/// Small Safe table: input port x output port over the network ports
/// (the local port excluded). Entry (i, o) = 1 allows a packet that entered
/// from port i to leave by port o inside the same BFC safe ring. Size: P_net^2 bits.
class SsTable {
 public:
  explicit SsTable(int net_ports) : m_n(net_ports), m_bits(static_cast<std::size_t>(net_ports) * net_ports, 0) {}
  bool get(int in, int out) const { return m_bits[static_cast<std::size_t>(in) * m_n + out] != 0; }
  void set(int in, int out, bool v) { m_bits[static_cast<std::size_t>(in) * m_n + out] = v ? 1 : 0; }
  int ports() const { return m_n; }
  long size_bits() const { return static_cast<long>(m_n) * m_n; }
  int ones() const;
  /// The unique output for input i, or -1 when the row has no (or several) ones.
  int next(int in) const;

 private:
  int m_n;
  std::vector<std::uint8_t> m_bits;
};

/// Network port index of a router port in the SS table: topology port p >= 1
/// maps to p - 1 (the local port 0 has no SS row or column).
inline int ss_index(routing::PortId p) {
  return p - 1;
}
inline routing::PortId ss_port(int idx) {
  return idx + 1;
}

/// Fault-free k-ary n-cube tables for router r (section 2): safe = the DOR
/// port (the local port at the destination), adaptive = every minimal port and
/// the torus/mesh distance, SS = the 2n straight-through connections of the
/// dimension rings (Figure 2(b): in d- -> out d+, in d+ -> out d-).
SafeTable fault_free_safe_table(const routing::KAryNCube& t, routing::RouterId r);
AdaptiveTable fault_free_adaptive_table(const routing::KAryNCube& t, routing::RouterId r);
SsTable fault_free_ss_table(const routing::KAryNCube& t);

/// A spanning tree of the surviving routers: parent port per router (-1 at
/// the root and at dead or unreached routers) and children ports in the
/// order they were attached.
struct SpanningTree {
  routing::RouterId root = -1;
  std::vector<routing::PortId> parent_port;
  std::vector<std::vector<routing::PortId>> children;
  std::vector<char> member;
};

/// The tree that emergency propagation builds when every hop takes the same
/// time and ties go to the lowest port (first come, first served): a BFS from
/// the root over live links (section 4.1). Reference for the hardware model.
SpanningTree emergency_tree(const routing::Topology& t, const routing::FaultSet& faults, routing::RouterId root);

/// SS table of router r for the tour of the tree (Figure 5): a packet that
/// entered from the parent leaves to the first child, from child i to child
/// i+1, from the last child back to the parent; at the root the children form
/// the cycle; a leaf returns packets to its parent.
SsTable tour_ss_table(const routing::Topology& t, const SpanningTree& tree, routing::RouterId r);

/// Follows SS tables from (router, entry port) until the start repeats.
/// Returns the visited routers in ring order (a router appears once per
/// visit), or an empty vector when a table has no unique successor or the
/// walk does not close. Used to check "one ring that visits every survivor".
std::vector<routing::RouterId> trace_safe_ring(const routing::Topology& t, const std::vector<SsTable>& ss,
                                               routing::RouterId start, routing::PortId entry_port);

/// Reference result of the distance-vector procedure of section 4.3 on the
/// surviving graph: per router, per destination, the minimal ports and the
/// distance (N for lost nodes). Computed by BFS from every destination.
std::vector<AdaptiveTable> reference_adaptive_tables(const routing::Topology& t, const routing::FaultSet& faults);

}  // namespace ftsim::tables
