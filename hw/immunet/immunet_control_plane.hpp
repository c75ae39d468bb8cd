// Immunet's control plane: steps every router's Immunet hardware (its
// `immunet` child, hw/immunet/immunet_router.hpp) in two phases and carries the
// Table Update Modules' control packets between routers.
// Source: immunet-fault-tolerant-routing.txt, sections 4.1-4.3 and 5.
#pragma once
#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "hw/immunet/emergency_logic.hpp"
#include "hw/immunet/immunet_router.hpp"
#include "hw/network_context.hpp"
#include "routing_logic/kary_ncube.hpp"

namespace ftsim::hw {

class Router;
class NetworkInterface;
class ManagementBus;
struct LinkDirection;

/// What the reconfiguration reports (stats.json "reconfiguration").
struct ImmunetReport {
  bool happened = false;
  std::uint64_t first_fault_cycle = 0;  ///< earliest failure of a detected fault
  std::uint64_t first_detect_cycle = 0;
  std::uint64_t emergency_end_cycle = 0;  ///< the last node left the emergency state
  std::uint64_t last_table_update_cycle = 0;
  /// Control packets emitted (the paper's count, section 6.1 Table 1): one
  /// safe-table packet per non-root node (it travels to the root); one
  /// distance-vector packet per neighbour at each announcement or
  /// retransmission (each travels one hop).
  std::uint64_t safe_control_packets = 0;
  std::uint64_t adaptive_control_packets = 0;
  /// Link hops of those packets (a safe-table packet counts its depth).
  std::uint64_t safe_control_hops = 0;
  std::uint64_t adaptive_control_hops = 0;
  /// Control packets (either kind) discarded on arrival because they carry an
  /// EPL other than the receiver's (section 4.3: a newer emergency).
  std::uint64_t stale_control_packets = 0;
  /// Control packets on links (control_packet_flits > 0): flits sent, and the
  /// cycles hops waited for the link beyond the zero-load time (sum, max).
  std::uint64_t control_link_flits = 0;
  std::uint64_t control_link_wait_cycles = 0;
  std::uint64_t control_link_wait_max = 0;
  std::uint64_t lost_control_packets = 0;  ///< lost with a failed link or router
  std::uint64_t emergencies = 0;           ///< adoptions of a new EPL, over all nodes
  std::uint64_t drained_packets = 0;       ///< safe-ring head packets drained by Table Update Modules
  int root = -1;
  std::uint32_t final_epl = 0;
  double mean_distance_before = 0;
  double mean_distance_after = 0;
  std::vector<int> lost_nodes;  ///< survivors' view: nodes whose distance stayed N
  bool complete = true;         ///< false: the run ended during a reconfiguration
};

/// One instance per network. The hardware is per router (each router's
/// `immunet` child: Input/Output Blocks, Reconfiguration Module, Table
/// Update Module, Safe/Adaptive/SS tables); this module is the clock tree
/// and the wires between them. Its one method steps every live router's
/// blocks in two phases (every Output Block driven from the current state,
/// then every Input Block sampled and every Reconfiguration Module clocked),
/// only while an emergency or table update is in progress; otherwise it
/// sleeps until a fault is detected. The Table Update Modules write their
/// tables through the management bus (every router's TableTarget), the same
/// socket a subnet manager or a debugger uses. Boot tables are written
/// through the table modules' back-door.
class ImmunetControlPlane : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ImmunetControlPlane);
  /// Every router must have been built with immunet_router_factory()
  /// (throws std::logic_error otherwise). bus: the management plane, bound
  /// to every router's TableTarget with the Immunet tables mapped.
  ImmunetControlPlane(sc_core::sc_module_name name, NetworkContext& ctx, const routing::KAryNCube& topo,
                      std::vector<Router*> routers, std::vector<NetworkInterface*> interfaces,
                      std::vector<LinkDirection*> in_links, std::vector<LinkDirection*> out_links,
                      const ImmunetParams& params, ManagementBus& bus);

  /// Local Fault Detector of router r: the link on port p is dead (after the
  /// detection delay). fail_cycle: when it failed, for the report.
  void detect(routing::RouterId r, routing::PortId p, std::uint64_t fail_cycle);
  /// Router r has died: its logic stops, its neighbours detect its links.
  void router_failed(routing::RouterId r);

  const ImmunetReport& report() const { return m_report; }
  /// Router r's Immunet hardware.
  const ImmunetRouter& hardware(routing::RouterId r) const { return *m_nodes[r].hw; }
  /// Tables of router r (tests).
  const routing::ImmunetView& view(routing::RouterId r) const { return m_nodes[r].hw->view(); }
  const EmergencyLogic& logic(routing::RouterId r) const { return m_nodes[r].hw->reconfiguration_module.logic; }
  int adaptive_distance(routing::RouterId r, routing::NodeId d) const {
    return m_nodes[r].hw->adaptive_table.distance(d);
  }
  bool busy() const;
  /// Hardware cost of one router's tables, in bits.
  long safe_table_bits() const;
  long adaptive_table_bits() const;
  long ss_table_bits() const;
  /// Computes mean distances and lost nodes at the end of the run.
  void finalize();

 private:
  struct Node {
    ImmunetRouter* hw = nullptr;
    ImmunetReconfigurationModule* rm = nullptr;
    bool dead = false;
  };
  struct Message {
    bool safe;
    int origin;
    std::uint32_t epl;
    int dist;
    int to;
    int port;  // arrival port at `to`
  };
  void tick();
  void on_adopt(int r);
  void on_done(int r);
  void send(const Message& m, std::uint64_t now);
  void deliver(const Message& m, std::uint64_t now);
  std::uint64_t now() const;

  NetworkContext& m_ctx;
  const routing::KAryNCube& m_topo;
  std::vector<Router*> m_routers;
  std::vector<NetworkInterface*> m_nis;
  std::vector<LinkDirection*> m_in_links;   // [r * radix + p]: link direction into r on port p
  std::vector<LinkDirection*> m_out_links;  // [r * radix + p]: link direction out of r on port p
  ImmunetParams m_params;
  std::vector<Node> m_nodes;
  /// Control packets in flight after their link: (delivery cycle, send
  /// order) -> message, earliest first. The send order breaks ties, so the
  /// delivery order never depends on the order processes run in a cycle.
  struct Timed {
    std::uint64_t when;
    std::uint64_t seq;
    Message m;
    bool operator>(const Timed& o) const { return when != o.when ? when > o.when : seq > o.seq; }
  };
  std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>> m_messages;
  /// Control packets queued at a router output, waiting for link slots,
  /// indexed by the token the router reports back; free tokens are reused.
  struct OnLink {
    Message m;
    std::uint64_t queued;
    std::uint64_t seq;
  };
  std::vector<OnLink> m_on_link;
  std::vector<std::uint32_t> m_free_tokens;
  int m_link_pending = 0;
  std::uint64_t m_seq = 0;
  void collect_link_sends();
  std::vector<EmergencyWires> m_idle;
  EmergencyInputs m_inputs;
  sc_core::sc_event m_wake;
  bool m_active = false;
  int m_in_emergency = 0;
  ImmunetReport m_report;
  double m_mean_before = 0;
};

}  // namespace ftsim::hw
