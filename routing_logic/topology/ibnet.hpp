// InfiniBand fabrics as ibsim describes them (netfile), and the two-tier fat
// tree of the DQR paper. Pure C++.
// Source: dynamic-quick-reconfiguration.txt, section V (648-port fat tree of
// 36-port switches); ibsim netfile format (ibsim 0.10, ../shared/tools/opensm).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// A fabric of switches (routers) and host channel adapters (HCAs, the nodes),
/// indirect like the fat trees: the HCA links count as links. Port numbering
/// follows the notes' mapping: ftsim port = InfiniBand port - 1 (IB port 0 is
/// the switch's own management port), so a switch declared with P ports has
/// ftsim ports 0..P-1. Routers and nodes are numbered in order of appearance.
/// Labels are the netfile names: router "SW_0_0", node "H_0_0_0", port
/// "p2" (the IB port number), link "SW_0_0[2]" (switch name and IB port; for
/// an HCA link, the switch end).
class IbNetTopology : public Topology {
 public:
  /// Parses ibsim netfile text or ibnetdiscover output (its id lines
  /// vendid=, devid=, sysimgguid=, switchguid=, caguid=; port GUIDs "[1](guid)";
  /// "enhanced/base port 0"; comments). With ibnetdiscover output the labels
  /// are the node descriptions of its comments ('# "SW_3_3" ...') when they
  /// are unique per kind. `source` names the file in errors. Throws
  /// ConfigError naming the line for: an unknown record, a line longer than
  /// kMaxInputLineBytes, a port outside 1..P (P at most 64), a link whose two
  /// ends disagree, an HCA with more than one connected port, a name used
  /// twice, no switch, no HCA.
  IbNetTopology(const std::string& text, const std::string& source);
  /// The DQR paper's two-tier fat tree: `leaves` leaf switches with `hosts`
  /// HCAs each and `spines` spine switches, every leaf linked once to every
  /// spine (36-port switches: fat-tree2:36,18,18 gives 36 x 18 = 648 HCAs
  /// with 18 spines). Leaf ports 1..hosts go to HCAs, hosts+1.. to the
  /// spines; spine port i+1 goes to leaf i. Names "L<i>", "S<j>", "H_<i>_<h>".
  /// Throws ConfigError unless 1 <= leaves, spines, hosts and the switches
  /// have at most 64 ports.
  IbNetTopology(int leaves, int spines, int hosts);

  std::string spec() const override { return m_spec; }
  bool is_direct() const override { return false; }
  std::string router_label(RouterId r) const override { return m_router_names[static_cast<std::size_t>(r)]; }
  std::string node_label(NodeId n) const override { return m_node_names[static_cast<std::size_t>(n)]; }
  std::string port_name(RouterId r, PortId p) const override;
  std::string link_label(LinkId l) const override;
  LinkId parse_link(const std::string& label) const override;
  RouterId parse_router(const std::string& label) const override;

  /// GUID of a switch (its switchguid) or HCA (its caguid) as ibnetdiscover
  /// output gives it, or 0 when the file does not (ibsim netfiles).
  std::uint64_t router_guid(RouterId r) const {
    return m_router_guids.empty() ? 0 : m_router_guids[static_cast<std::size_t>(r)];
  }
  std::uint64_t node_guid(NodeId n) const {
    return m_node_guids.empty() ? 0 : m_node_guids[static_cast<std::size_t>(n)];
  }
  /// HCA n's port GUID (ibnetdiscover's "[1](guid)"; an InfiniBand LFT dump
  /// names HCAs by it), 0 when the file does not give it.
  std::uint64_t node_port_guid(NodeId n) const {
    return m_node_port_guids.empty() ? 0 : m_node_port_guids[static_cast<std::size_t>(n)];
  }
  /// Router or node by name, or kNone.
  RouterId find_router(const std::string& name) const;
  NodeId find_node(const std::string& name) const;
  /// The netfile text of this fabric (round trip: parsing it gives the same
  /// wiring).
  std::string netfile() const;

 private:
  void build(const std::vector<std::string>& switches, const std::vector<int>& ports,
             const std::vector<std::string>& hcas, const std::vector<std::array<int, 4>>& links,
             const std::vector<std::array<int, 3>>& hca_links);
  std::string m_spec;
  std::vector<std::string> m_router_names, m_node_names;
  std::vector<std::uint64_t> m_router_guids, m_node_guids, m_node_port_guids;
  std::map<std::string, RouterId> m_router_by_name;
  std::map<std::string, NodeId> m_node_by_name;
};

}  // namespace ftsim::routing
