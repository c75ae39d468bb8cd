// k-ary n-tree, exactly per Definition 1 of fat-tree-dynamic-local-rerouting.
#pragma once
#include <vector>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// Switches <w,l>: w = (w_0..w_{n-2}) in {0..k-1}^{n-1}, tier l in 0..n-1, tier 0
/// at the top. Nodes p = (p_0..p_{n-1}). <w,l> and <w',l+1> are linked iff
/// w_i = w'_i for all i != l; leaf <w,n-1> holds node p iff p_i = w_i, i < n-1.
/// Ports 0..k-1 go down (port j reaches the child whose digit l is j, or the
/// node with p_{n-1} = j), ports k..2k-1 go up (port k+j reaches the parent
/// whose digit l-1 is j). Router id = l * k^{n-1} + index(w), w_0 most
/// significant; node id = index(p), p_0 most significant.
/// Source: fat-tree-dynamic-local-rerouting.txt, Section II, Definition 1.
class KAryNTree : public Topology {
 public:
  /// k >= 2, n >= 1. Throws ConfigError otherwise.
  KAryNTree(int k, int n);

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
  int tier(RouterId r) const { return r / m_per_tier; }
  /// Digit i (0..n-2) of switch r's w.
  int switch_digit(RouterId r, int i) const;
  /// Digit i (0..n-1) of node p.
  int node_digit(NodeId p, int i) const;
  RouterId switch_id(const std::vector<int>& w, int tier) const;
  /// True when switch s is an ancestor of node d (w_i = d_i for i < tier(s)):
  /// d is reachable from s going down only.
  bool is_ancestor(RouterId s, NodeId d) const;
  /// Tier of the least common ancestors of two distinct nodes (Definition 7).
  int lca_tier(NodeId s, NodeId d) const;

 private:
  int m_k;
  int m_n;
  int m_per_tier;  // k^{n-1}
};

}  // namespace ftsim::routing
