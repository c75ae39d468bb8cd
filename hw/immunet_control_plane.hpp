// Immunet's per-router reconfiguration hardware, network wide: Local Fault
// Detector, emergency-signal logic (Input/Output Blocks, Reconfiguration
// Module) and Table Update Module.
// Source: immunet-fault-tolerant-routing.txt, sections 4.1-4.3 and 5.
#pragma once
#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "hw/emergency_logic.hpp"
#include "hw/network_context.hpp"
#include "routing_logic/kary_ncube.hpp"

namespace ftsim::hw {

class Router;
class NetworkInterface;
struct LinkDirection;

/// Latencies of the protocol, with section 6's values as defaults.
struct ImmunetParams {
  int handle_cycles = 100;           ///< a node handles and retransmits an emergency, cycles
  int ack_window = 10;               ///< cycles after propagation in which ACKs count
  int control_packet_cycles = 1000;  ///< one control packet over one hop at zero load, cycles
  /// Flits (phits) of one control packet on a link, 0..64. Default 2: the
  /// node id and the distance share one 32-bit phit, the 32-bit EPL takes the
  /// other (section 5: EPL of 32 bits; section 6: phits of 4 bytes). Each hop
  /// then takes its flits from the link's bandwidth, competing with the
  /// crossbar, and a hop costs control_packet_cycles plus the cycles the
  /// flits waited for the link. 0: control packets take no link bandwidth
  /// (every hop exactly control_packet_cycles; the model before this option).
  int control_packet_flits = 2;
  int epl_bits = 32;
  /// Diagnostic: boot with the safe network of a fault-free tree tour (one
  /// ring, as after a reconfiguration) instead of the dimension rings.
  bool boot_tree_ring = false;
};

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

/// One instance per network. It owns every router's Immunet tables and hands
/// each router an ImmunetView. It runs one clocked method that steps every
/// live router's EmergencyLogic in two phases (all outputs from the current
/// state, then all state updates from the neighbours' wires), only while an
/// emergency or table update is in progress; otherwise it sleeps until a
/// fault is detected.
class ImmunetControlPlane : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ImmunetControlPlane);
  ImmunetControlPlane(sc_core::sc_module_name name, NetworkContext& ctx, const routing::KAryNCube& topo,
                      std::vector<Router*> routers, std::vector<NetworkInterface*> interfaces,
                      std::vector<LinkDirection*> in_links, std::vector<LinkDirection*> out_links,
                      const ImmunetParams& params);

  /// Local Fault Detector of router r: the link on port p is dead (after the
  /// detection delay). fail_cycle: when it failed, for the report.
  void detect(routing::RouterId r, routing::PortId p, std::uint64_t fail_cycle);
  /// Router r has died: its logic stops, its neighbours detect its links.
  void router_failed(routing::RouterId r);

  const ImmunetReport& report() const { return m_report; }
  /// Tables of router r (tests).
  const routing::ImmunetView& view(routing::RouterId r) const { return m_nodes[r].view; }
  const EmergencyLogic& logic(routing::RouterId r) const { return m_nodes[r].logic; }
  int adaptive_distance(routing::RouterId r, routing::NodeId d) const { return m_nodes[r].dist[d]; }
  bool busy() const;
  /// Waves: per router the Reconfiguration Module's latches under
  /// <router>.rm.{epl,valid,root,parent,children,emergency,done}. The
  /// emergency wires themselves appear on the links' phit bundles
  /// (<router>.output_<port>.{req0,req1,data}), driven in the second half of
  /// each cycle while an emergency is signalled.
  /// Traces the emergency state of the routers with selected[r] != 0 (every
  /// router when `selected` is empty).
  void trace(sc_core::sc_trace_file* tf, const std::vector<char>& selected = {}) const;
  /// Hardware cost of one router's tables, in bits.
  long safe_table_bits() const;
  long adaptive_table_bits() const;
  long ss_table_bits() const;
  /// Computes mean distances and lost nodes at the end of the run.
  void finalize();

 private:
  struct Node {
    explicit Node(const EmergencyParams& p) : logic(p) {}
    EmergencyLogic logic;
    std::vector<EmergencyWires> out;  // wires driven this cycle
    std::vector<std::uint64_t> safe;
    std::vector<std::uint64_t> adaptive;
    std::vector<std::int32_t> dist;
    std::vector<std::int8_t> ss_next;
    routing::ImmunetView view;
    std::uint32_t port_enable = 0;  // bit i = topology port i + 1
    bool detect_pending = false;
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
  void publish(int r);
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
