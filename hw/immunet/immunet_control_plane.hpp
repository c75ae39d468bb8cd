// Immunet's elaboration and report: boots the tables, binds every router's
// Immunet hardware (its `immunet` child, hw/immunet/immunet_router.hpp) to its
// neighbours' through per-link ImmunetLink objects, and sums the routers'
// counters into the reconfiguration report.
// Source: immunet-fault-tolerant-routing.txt, sections 4.1-4.3 and 5.
#pragma once
#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

#include "hw/immunet/emergency_logic.hpp"
#include "hw/immunet/immunet_link.hpp"
#include "hw/immunet/immunet_router.hpp"
#include "hw/network_context.hpp"
#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::hw {

class Router;
class NetworkInterface;
class ManagementBus;
struct LinkDirection;

/// What the reconfiguration reports (stats.json "reconfiguration").
struct ImmunetReport : ImmunetControlCounts {
  bool happened = false;
  std::uint64_t first_fault_cycle = 0;  ///< earliest failure of a detected fault
  std::uint64_t first_detect_cycle = 0;
  std::uint64_t emergency_end_cycle = 0;  ///< the last node left the emergency state
  int root = -1;
  std::uint32_t final_epl = 0;
  double mean_distance_before = 0;
  double mean_distance_after = 0;
  std::vector<int> lost_nodes;  ///< survivors' view: nodes whose distance stayed N
  bool complete = true;         ///< false: the run ended during a reconfiguration
};

/// One instance per network: Immunet's elaboration and its report. It boots
/// every router's tables (section 2's fault-free tables), creates the
/// ImmunetLink of each link direction (`immunet.link_<router>_<port>`, the
/// emergency wires of Figure 9 and the control packets' hop) and binds it to
/// the sender's Output Block and the receiver's Input Block, and owns the
/// reconfiguration record (ImmunetReconfigurationStatus, `immunet.status`).
/// It has no process: each router's Immunet hardware (its `immunet` child,
/// hw/immunet/immunet_router.hpp) runs its own blocks. The Table Update
/// Modules write their tables through the management bus (every router's
/// TableTarget), the same socket a subnet manager or a debugger uses; boot
/// tables are written through the table modules' back-door.
class ImmunetControlPlane : public sc_core::sc_module {
 public:
  /// Every router must have been built with immunet_router_factory()
  /// (throws std::logic_error otherwise). out_links: [r * radix + p] the
  /// link direction out of router r on port p (nullptr where no router is
  /// behind the port). bus: the management plane, bound to every
  /// router's TableTarget with the Immunet tables mapped.
  ImmunetControlPlane(sc_core::sc_module_name name, NetworkContext& ctx, const routing::KAryNCube& topo,
                      std::vector<Router*> routers, std::vector<NetworkInterface*> interfaces,
                      std::vector<LinkDirection*> out_links, const ImmunetParams& params, ManagementBus& bus);

  /// Local Fault Detector of router r: the link on port p is dead (after the
  /// detection delay). fail_cycle: when it failed, for the report.
  void detect(routing::RouterId r, routing::PortId p, std::uint64_t fail_cycle) { m_nodes[r]->detect(p, fail_cycle); }
  /// Router r has died: its logic stops, its neighbours detect its links.
  void router_failed(routing::RouterId r) { m_nodes[r]->fail(); }

  /// The routers' counters summed (see ImmunetReport).
  const ImmunetReport& report() const;
  /// Router r's Immunet hardware.
  const ImmunetRouter& hardware(routing::RouterId r) const { return *m_nodes[r]; }
  /// Tables of router r (tests).
  const routing::ImmunetView& view(routing::RouterId r) const { return m_nodes[r]->view(); }
  const EmergencyBlocks& logic(routing::RouterId r) const { return m_nodes[r]->reconfiguration_module.logic; }
  int adaptive_distance(routing::RouterId r, routing::NodeId d) const { return m_nodes[r]->adaptive_table.distance(d); }
  /// A reconfiguration is in progress (from the first detection until no
  /// router's logic works and no control packet is in flight).
  bool busy() const { return m_status.active(); }
  /// Hardware cost of one router's tables, in bits.
  long safe_table_bits() const;
  long adaptive_table_bits() const;
  long ss_table_bits() const;
  /// Computes mean distances and lost nodes at the end of the run.
  void finalize();

 private:
  const routing::KAryNCube& m_topo;
  std::vector<ImmunetRouter*> m_nodes;
  ImmunetReconfigurationStatus m_status;
  std::vector<std::unique_ptr<ImmunetLink>> m_links;
  mutable ImmunetReport m_report;
  std::uint64_t m_lost_in_network = 0;  ///< control packets in the safe VC dropped in the network
  double m_mean_before = 0;
};

}  // namespace ftsim::hw
