// Immunet's per-router hardware as child modules of the router: the Input
// and Output Blocks of every link, the Reconfiguration Module, the Table
// Update Module and the Safe, Adaptive and SS tables, the tables mapped into
// the router's management target.
// Source: immunet-fault-tolerant-routing.txt, section 2 (tables, Figure 2),
// sections 4.1-4.3 (emergency, safe and adaptive table updates) and section 5
// (Figure 9: Input Block, Output Block, Reconfiguration Module).
#pragma once
#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

#include "hw/immunet/emergency_logic.hpp"
#include "hw/immunet/immunet_link.hpp"
#include "hw/mechanism.hpp"
#include "hw/table_target.hpp"
#include "routing_logic/topology/kary_ncube.hpp"

namespace ftsim::hw {

class ManagementBus;
class NetworkInterface;
struct NetworkContext;

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
  /// How control packets travel (section 4.2: once the emergency is over
  /// "the BFC safe ring will be shared between packets belonging to the
  /// applications running on the machine and some control packets"). true
  /// (`immunet.control_packets: safe-ring`): as packets in the safe VC of
  /// each hop's link, behind the application packets in the receiver's
  /// queue, entering a ring link with the bubble rule; the receiver's Table
  /// Update Module takes a packet when it is whole at the head of its queue
  /// and handles it control_packet_cycles - control_packet_flits cycles
  /// later. false (`link-slots`): the flits only take link cycles and the
  /// receiver's Table Update Module buffers take them at once.
  bool control_in_safe_vc = true;
  int epl_bits = 32;
  /// Diagnostic: boot with the safe network of a fault-free tree tour (one
  /// ring, as after a reconfiguration) instead of the dimension rings.
  bool boot_tree_ring = false;
  /// The emergency blocks each router steps: empty for the C++ model
  /// (EmergencyLogic); rtl_ref's Verilated Verilog for `immunet.rtl:
  /// verilated`.
  EmergencyBlocksFactory blocks;
};

/// Emergency-logic parameters of a router of `topo` (P = 2n network ports,
/// id bits = ceil(log2 routers)).
EmergencyParams immunet_emergency_params(const routing::KAryNCube& topo, const ImmunetParams& params);

/// Management-plane addresses of Immunet's tables (bytes, in every router's
/// TableTarget; the LFT keeps base 0).
namespace immunet_map {
/// Safe Table: word d = output-port mask for destination d (bit p = port p).
constexpr std::uint64_t kSafeTable = 0x0100'0000;
/// Adaptive Table: word 2d = minimal-port mask, word 2d + 1 = distance in
/// hops (0..N; N = lost) for destination d.
constexpr std::uint64_t kAdaptiveTable = 0x0200'0000;
/// SS table: word p = the safe-ring successor of input port p (a port
/// 1..radix-1), or 0xFFFFFFFF when p is not on the ring. The hardware keeps
/// the P x P bit matrix of Figure 2(b); a row has at most one bit set, so
/// the word is that bit's column.
constexpr std::uint64_t kSsTable = 0x0300'0000;
}  // namespace immunet_map

/// Input Block of one link (Figure 9): the emergency wires sampled from the
/// neighbour at the clock edge, decoded by one level of AND gates.
class ImmunetInputBlock : public sc_core::sc_module {
 public:
  explicit ImmunetInputBlock(sc_core::sc_module_name name) : sc_module(name) {}
  const char* kind() const override { return "ftsim_immunet_input_block"; }
  EmergencyWires in;  ///< sampled this cycle
  bool emergency() const { return InputBlock::emergency(in); }
  bool ack(std::uint32_t ack_code) const { return InputBlock::ack(in, ack_code); }
};

/// Output Block of one link: the wires this router drives towards the
/// neighbour this cycle (an emergency: both request lines and the EPL or
/// the special ACK on the data lines; otherwise the normal traffic).
class ImmunetOutputBlock : public sc_core::sc_module {
 public:
  explicit ImmunetOutputBlock(sc_core::sc_module_name name) : sc_module(name) {}
  const char* kind() const override { return "ftsim_immunet_output_block"; }
  EmergencyWires out;  ///< driven this cycle
};

/// Reconfiguration Module: the EPL latch, parent latch, children table,
/// special-ACK and time-out logic (EmergencyLogic, the cycle-exact twin of
/// rtl_ref/ftsim_reconfiguration_module.v), with the Local Fault Detector's
/// port enables and detection flag as its inputs.
class ImmunetReconfigurationModule : public sc_core::sc_module {
 public:
  /// blocks: the logic to step (C++ EmergencyLogic when nullptr).
  ImmunetReconfigurationModule(sc_core::sc_module_name name, const EmergencyParams& p,
                               const EmergencyBlocksFactory& blocks)
      : sc_module(name), m_logic(blocks ? blocks(p) : std::make_unique<EmergencyLogic>(p)), logic(*m_logic) {}
  const char* kind() const override { return "ftsim_immunet_reconfiguration_module"; }

 private:
  std::unique_ptr<EmergencyBlocks> m_logic;

 public:
  EmergencyBlocks& logic;
  std::uint32_t port_enable = 0;  ///< bit i = network port i + 1 alive
  bool detect_pending = false;    ///< a fault was detected; sampled at the next edge
};

/// Safe Table (section 2): destination -> output-port mask. N x P bits.
class ImmunetSafeTable : public sc_core::sc_module, public TableMemory {
 public:
  /// epoch: the router's table epoch, incremented by every write.
  ImmunetSafeTable(sc_core::sc_module_name name, int nodes, int ports, std::uint32_t& epoch);
  const char* kind() const override { return "ftsim_immunet_safe_table"; }
  int words() const override { return static_cast<int>(m_masks.size()); }
  std::uint32_t read_word(int index) const override { return static_cast<std::uint32_t>(m_masks[index]); }
  /// Rejects a mask with bits at or above the port count.
  bool write_word(int index, std::uint32_t value) override;
  std::uint64_t mask(int dest) const { return m_masks[static_cast<std::size_t>(dest)]; }
  const std::uint64_t* data() const { return m_masks.data(); }
  long size_bits() const { return static_cast<long>(m_masks.size()) * m_ports; }

 private:
  int m_ports;
  std::vector<std::uint64_t> m_masks;
  std::uint32_t& m_epoch;
};

/// Adaptive Table (section 4.3): destination -> minimal-port mask and
/// distance. N x (P + ceil(log2(N + 1))) bits.
class ImmunetAdaptiveTable : public sc_core::sc_module, public TableMemory {
 public:
  ImmunetAdaptiveTable(sc_core::sc_module_name name, int nodes, int ports, std::uint32_t& epoch);
  const char* kind() const override { return "ftsim_immunet_adaptive_table"; }
  int words() const override { return 2 * static_cast<int>(m_masks.size()); }
  std::uint32_t read_word(int index) const override;
  /// Rejects a mask with bits at or above the port count, or a distance
  /// above N.
  bool write_word(int index, std::uint32_t value) override;
  std::uint64_t mask(int dest) const { return m_masks[static_cast<std::size_t>(dest)]; }
  int distance(int dest) const { return m_dist[static_cast<std::size_t>(dest)]; }
  const std::uint64_t* masks() const { return m_masks.data(); }
  const std::int32_t* distances() const { return m_dist.data(); }
  long size_bits() const;

 private:
  int m_ports;
  std::vector<std::uint64_t> m_masks;
  std::vector<std::int32_t> m_dist;
  std::uint32_t& m_epoch;
};

/// SS table (section 4.1, Figure 5): per input port its successor on the
/// safe ring. P_net x P_net bits in hardware (see immunet_map::kSsTable).
class ImmunetSsTable : public sc_core::sc_module, public TableMemory {
 public:
  ImmunetSsTable(sc_core::sc_module_name name, int radix, std::uint32_t& epoch);
  const char* kind() const override { return "ftsim_immunet_ss_table"; }
  int words() const override { return static_cast<int>(m_next.size()); }
  std::uint32_t read_word(int index) const override;
  /// Rejects a successor outside 1..radix-1 (other than "none"), and any
  /// successor for the local port 0.
  bool write_word(int index, std::uint32_t value) override;
  int next(int port) const { return m_next[static_cast<std::size_t>(port)]; }
  const std::int8_t* data() const { return m_next.data(); }
  long size_bits() const {
    const long p = static_cast<long>(m_next.size()) - 1;
    return p * p;
  }

 private:
  std::vector<std::int8_t> m_next;
  std::uint32_t& m_epoch;
};

class ImmunetRouter;

/// Table Update Module (sections 4.2-4.3): rebuilds this router's tables.
/// Every write goes through the management plane (the router's TableTarget)
/// once a bus is attached, so a debugger watching the bus sees the same
/// transactions; before that (boot) it writes the tables directly.
class ImmunetTableUpdateModule : public sc_core::sc_module {
 public:
  ImmunetTableUpdateModule(sc_core::sc_module_name name, ImmunetRouter& owner);
  const char* kind() const override { return "ftsim_immunet_table_update_module"; }
  /// Writes through `bus` socket `router` from now on.
  void attach(ManagementBus& bus, int router) {
    m_bus = &bus;
    m_router = router;
  }
  /// Adoption of a new EPL (section 4.3): every distance N and every mask
  /// empty (packets for destinations not rebuilt yet take the safe ring),
  /// the router's own node at distance 0 on the local port.
  void begin_rebuild();
  /// The tree is known (section 4.1-4.2): the SS table of the tree's tour
  /// through this router (parent, children in port order, back to the
  /// parent; the root's children form the cycle) and the provisional Safe
  /// Table (every destination towards the first port of that cycle, the
  /// router's own node on the local port). Returns the first port of the
  /// cycle, or -1 for a router alone in its tree.
  int install_tree(const EmergencyState& s);
  /// Optimised Safe Table entry (section 4.2): destination `origin` is
  /// below `port`.
  void set_safe(int origin, routing::PortId port);
  /// Distance-vector packet from `port` announcing `origin` at `distance`
  /// hops from the neighbour (section 4.3, with the retransmission rule of
  /// ImmunetRouter::deliver). Returns -1 when discarded (longer), 0
  /// when it tied (the port joins the mask), 1 when it improved.
  int apply_distance(int origin, routing::PortId port, int distance);
  std::uint64_t drained = 0;  ///< safe-ring head packets drained (ImmunetReport::drained_packets)

 private:
  void write(std::uint64_t address, std::uint32_t value);
  ImmunetRouter& m_owner;
  ManagementBus* m_bus = nullptr;
  int m_router = 0;
};

/// What one router's Immunet hardware counted (summed over the routers into
/// ImmunetReport by the control plane).
/// Counts of the table updates' control packets and the emergencies, per
/// router and (summed with +=) for the network (ImmunetReport).
struct ImmunetControlCounts {
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
  /// cycles hops waited for the link (and, in the safe ring, for the VC and
  /// its credits) beyond the zero-load time (sum, max).
  std::uint64_t control_link_flits = 0;
  std::uint64_t control_link_wait_cycles = 0;
  std::uint64_t control_link_wait_max = 0;
  /// Cycles from a hop's send to the receiver's Table Update Module taking
  /// the packet (link-slots: the last flit left; safe-ring: the packet is
  /// whole at the head of the receiver's safe queue), sum and max.
  std::uint64_t control_hop_cycles = 0;
  std::uint64_t control_hop_cycles_max = 0;
  std::uint64_t lost_control_packets = 0;  ///< lost with a failed link or router
  std::uint64_t emergencies = 0;           ///< adoptions of a new EPL
  std::uint64_t drained_packets = 0;       ///< safe-ring head packets drained by Table Update Modules
  std::uint64_t last_table_update_cycle = 0;
  /// Sums the counts, keeps the maxima and the latest update.
  ImmunetControlCounts& operator+=(const ImmunetControlCounts& o);
};

/// What one router's Immunet hardware counted.
struct ImmunetRouterCounters : ImmunetControlCounts {
  bool detected = false;                 ///< this router's Local Fault Detector fired
  std::uint64_t first_fault_cycle = 0;   ///< earliest failure it detected
  std::uint64_t first_detect_cycle = 0;  ///< its first detection
  bool finished = false;                 ///< its logic left an emergency at least once
  std::uint64_t done_cycle = 0;          ///< the last time it left the emergency state
  std::uint32_t done_epl = 0;            ///< the EPL it held then
  bool finished_as_root = false;         ///< it left an emergency as the tree's root
  std::uint64_t root_done_cycle = 0;
};

/// All of Immunet's hardware in one router (child `immunet` of the router):
/// `input_block_<port>` and `output_block_<port>` for each network port,
/// `reconfiguration_module`, `table_update_module`, `safe_table`,
/// `adaptive_table`, `ss_table`. The blocks are stepped by this module's own
/// clocked methods, in the second half of each cycle and only while its
/// emergency logic has work (nothing runs while there is no emergency):
/// first every Output Block drives its link's wires from the Reconfiguration
/// Module's state (delta 0), then every Input Block samples the wire its
/// neighbour drove, the Reconfiguration Module steps and the Table Update
/// Module handles the control packets that arrived (delta 1). Neighbours are
/// reached only through the ImmunetLink objects bound at elaboration (the
/// emergency wires and the control-packet hop of each link direction). The
/// router reads the tables through the route-computation hook and holds its
/// transit traffic while the emergency state lasts.
class ImmunetRouter : public RouterMechanism {
 public:
  SC_HAS_PROCESS(ImmunetRouter);
  ImmunetRouter(sc_core::sc_module_name name, const routing::KAryNCube& topo, Router& router,
                const EmergencyParams& emergency, const ImmunetParams& params);
  const char* kind() const override { return "ftsim_immunet_router"; }

  void fill_view(routing::RouterView& view) override { view.mechanism.set(&m_view); }
  /// A table-update control packet in the safe VC reached input port `port`
  /// whole (immunet.control_packets: safe-ring): the Table Update Module
  /// handles it control_packet_cycles - control_packet_flits cycles later.
  void on_control_packet(std::uint32_t packet, routing::PortId port, std::uint64_t cycle) override;
  const std::uint32_t* table_epoch() const override { return &m_view.epoch; }
  const bool* hold_transit() const override { return &m_view.emergency; }
  void map_tables(TableTarget& target) override;
  /// Waves under <router>.rm.{epl,valid,root,parent,children,emergency,done}
  /// (the Reconfiguration Module's latches).
  void trace(sc_core::sc_trace_file* tf, const std::string& prefix) const override;

  /// Elaboration: the network interface whose injection the emergency stops,
  /// the network's context (clock) and the reconfiguration record.
  void attach(NetworkInterface& ni, NetworkContext& ctx, ImmunetReconfigurationStatus& status);
  /// Elaboration: network port p (1..2n) sends on `out` and receives on `in`
  /// (either nullptr when the port has no router behind it).
  void bind(routing::PortId p, ImmunetLink* out, ImmunetLink* in);

  /// Local Fault Detector: the link on port p is dead (after the detection
  /// delay); fail_cycle is when it failed (for the report). The logic runs
  /// from the second half of the current cycle.
  void detect(routing::PortId p, std::uint64_t fail_cycle);
  /// The router has died: its logic stops, its wires go idle, its STOP lines
  /// drop; control packets still arriving are discarded.
  void fail();
  bool dead() const { return m_dead; }
  /// Wakes the logic in the second half of cycle `cycle` (a control packet
  /// becomes ready then).
  void wake_at(std::uint64_t cycle);
  /// Wakes the Input Blocks in this half cycle (a neighbour drives an
  /// emergency on one of the links).
  void wake_sampling();

  routing::RouterId id() const { return m_id; }
  /// The tables as the routing relation sees them.
  routing::ImmunetView& view() { return m_view; }
  const routing::ImmunetView& view() const { return m_view; }
  const ImmunetRouterCounters& counters() const { return m_counters; }
  /// Half cycles in which this router's emergency logic ran (its Input Blocks
  /// sampled and its Reconfiguration Module stepped). Zero while no emergency
  /// has reached it: the blocks cost nothing when idle.
  std::uint64_t activations() const { return m_activations; }
  /// The links bound to network port p (1..2n): outgoing (this router's
  /// Output Block drives it) and incoming (its Input Block samples it).
  const ImmunetLink* out_link(routing::PortId p) const { return m_out[static_cast<std::size_t>(p - 1)]; }
  const ImmunetLink* in_link(routing::PortId p) const { return m_in[static_cast<std::size_t>(p - 1)]; }

  /// Marks the tables final (the reconfiguration is over; section 4.3:
  /// destinations still at distance N are lost from now on).
  void set_tables_complete(bool complete) {
    m_view.tables_complete = complete;
    ++m_view.epoch;
  }
  /// Enters or leaves the emergency state (transit held, injection stopped).
  void set_emergency(bool on) {
    m_view.emergency = on;
    ++m_view.epoch;
  }
  void set_single_ring(bool on) { m_view.single_ring = on; }

 private:
  // Declared before the blocks: the tables hold a reference to its epoch.
  routing::RouterId m_id;
  routing::ImmunetView m_view;

 public:
  /// Index i: network port i + 1 (port 0 is the node's).
  std::vector<std::unique_ptr<ImmunetInputBlock>> input_blocks;
  std::vector<std::unique_ptr<ImmunetOutputBlock>> output_blocks;
  ImmunetReconfigurationModule reconfiguration_module;
  ImmunetSafeTable safe_table;
  ImmunetAdaptiveTable adaptive_table;
  ImmunetSsTable ss_table;
  ImmunetTableUpdateModule table_update_module;

 private:
  void drive();     // clocked: Output Blocks, second half of the cycle, delta 0
  void sample();    // clocked: Input Blocks, Reconfiguration Module, Table Update Module, delta 1
  void complete();  // the reconfiguration is over
  void on_adopt();
  void on_done(std::uint64_t now);
  /// Table Update Module: a control packet out of network port p at `now`.
  void send(routing::PortId p, const ImmunetControlPacket& packet, std::uint64_t now);
  void sent(ImmunetLink& link, const ImmunetControlPacket& packet, std::uint64_t queued, std::uint64_t cycle);
  /// Output port p is on the safe ring (some input's SS-table successor).
  bool on_ring(routing::PortId p) const;
  void deliver(const ImmunetControlPacket& packet, std::uint64_t now);
  bool logic_busy() const;
  void set_busy(bool busy);
  std::uint64_t now() const;

  Router& m_router;
  ImmunetParams m_params;
  NetworkInterface* m_ni = nullptr;
  NetworkContext* m_ctx = nullptr;
  ImmunetReconfigurationStatus* m_status = nullptr;
  std::vector<ImmunetLink*> m_out;  ///< index i: network port i + 1
  std::vector<ImmunetLink*> m_in;
  std::vector<EmergencyWires> m_idle;
  EmergencyInputs m_inputs;
  ImmunetRouterCounters m_counters;
  sc_core::sc_event m_drive_event;
  sc_core::sc_event m_sample_event;
  std::uint64_t m_last_drive = ~0ULL;
  std::uint64_t m_last_sample = ~0ULL;
  std::uint64_t m_activations = 0;
  bool m_dead = false;
  bool m_busy = false;   ///< counted in the status as a busy router
  bool m_drove = false;  ///< an Output Block drove an emergency this cycle
  bool m_heard = false;  ///< an Input Block sampled an emergency this cycle
};

/// The factory a Router calls to build its `immunet` child (Router's
/// constructor argument).
RouterMechanismFactory immunet_router_factory(const routing::KAryNCube& topo, const ImmunetParams& params);

}  // namespace ftsim::hw
