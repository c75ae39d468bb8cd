// Mirrored k-ary n-tree, exactly per Section 2.1 of mikant-link-fault-tolerance.
#pragma once
#include <vector>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// MiKANT(k,n), n >= 2: two groups G of n-1 levels L, k^{n-1} switches per
/// level, switch <G,L,D_{n-2}..D_0>, node <G,C_{n-1}..C_0>. Ports 0..k-1 face
/// the nodes, k..2k-1 face away. Up port k+s of <G,L,D> (L <= n-3) reaches
/// <G,L+1,D with D_L = s> on its down port D_L; on level n-2 it reaches
/// <!G,n-2,D with D_{n-2} = s> on that switch's port k + D_{n-2}. Level-0 down
/// port c reaches node <G,c,D>. Router id = (G*(n-1)+L)*k^{n-1} + index(D),
/// D_{n-2} most significant; node id = G*k^n + index(C), C_{n-1} most significant.
/// Link labels <G,L,D...,P> as in the paper (inter-group links: G=1, L=n-1, D of
/// the group-1 switch, P = D_{n-2} of the group-0 switch; the paper's text says
/// P = D_{L-1}, which would not make the labels unique, see docs/architecture.md).
/// Source: mikant-link-fault-tolerance.txt, Section 2.1.
class Mikant : public Topology {
 public:
  /// k >= 2, n >= 2. Throws ConfigError otherwise.
  Mikant(int k, int n);

  std::string spec() const override;
  bool is_direct() const override { return false; }
  std::string router_label(RouterId r) const override;
  std::string node_label(NodeId n) const override;
  std::string port_name(RouterId r, PortId p) const override;
  std::string link_label(LinkId l) const override;
  LinkId parse_link(const std::string& label) const override;
  RouterId parse_router(const std::string& label) const override;

  int k() const { return m_k; }
  int n() const { return m_n; }
  int group(RouterId r) const { return r / ((m_n - 1) * m_per_level); }
  int level(RouterId r) const { return (r / m_per_level) % (m_n - 1); }
  /// D_i of switch r, i in 0..n-2.
  int switch_digit(RouterId r, int i) const;
  int node_group(NodeId p) const { return p / (m_per_level * m_k); }
  /// C_i of node p, i in 0..n-1.
  int node_digit(NodeId p, int i) const;
  RouterId switch_id(int g, int l, const std::vector<int>& d_low_first) const;

 private:
  std::vector<int> parse_tuple(const std::string& label, const char* what) const;
  int m_k;
  int m_n;
  int m_per_level;  // k^{n-1}
};

}  // namespace ftsim::routing
