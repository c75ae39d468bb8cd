// A subnet manager (SM): a TLM-2.0 initiator on the management plane that
// learns of link state changes, computes new forwarding tables with a
// pluggable engine and writes only the entries that change into the
// switches' table sockets, while traffic keeps flowing.
// Sources: fat-tree-dynamic-local-rerouting.txt sections VIII-IX (DDRC:
// recompute, distribute atomically); dynamic-quick-reconfiguration.txt
// sections I and VI (DQR: the SM "simply updates the forwarding tables").
#pragma once
#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "hw/management_bus.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::hw {

/// Destination-based tables: [router][node] = output port or kNone.
using NodeTables = std::vector<std::vector<std::int32_t>>;

/// The table engine the SM runs after a change: given every faulty link and
/// the links that changed since the last call, fill `out` (starting from the
/// tables the switches hold) and return true, or return false with `why`
/// (the switches keep their tables).
using TableEngine = std::function<bool(const std::set<routing::LinkId>& faulty,
                                       const std::vector<routing::LinkId>& changed, NodeTables& out, std::string& why)>;

/// How computed tables reach the switches (DQR issue, section 4).
struct Distribution {
  enum class Mode {
    kAtomic,      ///< every changed entry written in one delta cycle, distribution_cycles after the computation
    kSequential,  ///< one 64-entry LFT block (switch, LIDs 64b..64b+63, LID = node + 1) per block_cycles
    /// The traditional static reconfiguration DQR is measured against: halt
    /// (no new packets), wait until the network holds no flit, write every
    /// changed entry at once distribution_cycles later, resume.
    kStatic,
  };
  enum class Order {
    kDownstreamFirst,  ///< blocks whose entries are nearer their destination (new hops) first
    kRandom,           ///< a seeded shuffle
  };
  Mode mode = Mode::kAtomic;
  Order order = Order::kDownstreamFirst;
  std::int64_t distribution_cycles = 0;  ///< atomic: computation end -> the write, cycles
  std::int64_t block_cycles = 0;         ///< sequential: cycles per block written (the first after one period)
  std::uint64_t seed = 1;                ///< random order
  /// static: holds (true) or releases (false) new packets at every network
  /// interface, and tells whether the network holds no flit. Required for
  /// kStatic (the network wires them).
  std::function<void(bool)> hold_injection;
  std::function<bool()> network_empty;
};

/// Timeline of one reconfiguration: a switch detects a link going down (or
/// coming back) and notifies the SM, which learns it `notification_cycles`
/// later; it then computes new tables for `computation_cycles` and
/// distributes them as `Distribution` says. Reports arriving meanwhile are
/// batched into the next round. Only entries that change are written.
class SubnetManager : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(SubnetManager);
  SubnetManager(sc_core::sc_module_name name, const routing::Topology& topo, ManagementBus& bus,
                sc_core::sc_time period, std::int64_t notification_cycles, std::int64_t computation_cycles,
                Distribution distribution, NodeTables current_tables, TableEngine engine);

  /// A switch at an end of link l saw it go down (alive = false) or up.
  void link_state(routing::LinkId l, bool alive);

  std::uint64_t notifications() const { return m_notifications; }
  std::uint64_t table_writes() const { return m_writes; }
  std::uint64_t blocks_written() const { return m_blocks; }
  /// Cycle at which each reconfiguration's last entry was written.
  const std::vector<std::uint64_t>& update_cycles() const { return m_update_cycles; }
  /// Cycle at which each reconfiguration's computation ended (before its writes).
  const std::vector<std::uint64_t>& computed_cycles() const { return m_computed_cycles; }
  /// static: cycles the network was halted in each reconfiguration (from the
  /// hold to the resume, drain and write included).
  const std::vector<std::uint64_t>& halted_cycles() const { return m_halted_cycles; }
  /// Reconfigurations the engine could not compute, with its reasons.
  const std::vector<std::string>& failures() const { return m_failures; }
  /// True while a notification, computation or distribution is pending.
  bool busy() const { return !m_inbox.empty() || m_state != State::kIdle || m_dirty; }

 private:
  enum class State { kIdle, kComputing, kDraining, kDistributing };
  struct Note {
    std::uint64_t arrival;
    routing::LinkId link;
    bool alive;
  };
  struct Block {
    int router;
    std::vector<int> dests;
  };
  void process();
  std::uint64_t now() const;
  void schedule(std::uint64_t at);
  void plan_blocks();
  void write_block(const Block& b);

  const routing::Topology& m_topo;
  ManagementBus& m_bus;
  sc_core::sc_time m_period;
  std::int64_t m_notify, m_compute;
  Distribution m_dist;
  TableEngine m_engine;
  sc_core::sc_event m_event;
  std::deque<Note> m_inbox;
  std::set<routing::LinkId> m_faulty;
  std::vector<routing::LinkId> m_changed;
  bool m_dirty = false;
  State m_state = State::kIdle;
  std::uint64_t m_phase_end = 0;
  NodeTables m_tables;   ///< what the switches hold
  NodeTables m_pending;  ///< computed, being distributed
  std::deque<Block> m_blocks_left;
  std::uint64_t m_notifications = 0;
  std::uint64_t m_writes = 0;
  std::uint64_t m_blocks = 0;
  std::vector<std::uint64_t> m_update_cycles;
  std::vector<std::uint64_t> m_computed_cycles;
  std::vector<std::uint64_t> m_halted_cycles;
  std::uint64_t m_halt_start = 0;
  std::vector<std::string> m_failures;
};

}  // namespace ftsim::hw
