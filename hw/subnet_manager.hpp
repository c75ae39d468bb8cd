// DDRC's subnet manager: a TLM-2.0 initiator on the management plane that
// recomputes the fat-tree tables without the faulty links and writes them
// into the switches' table sockets.
// Source: fat-tree-dynamic-local-rerouting.txt, sections VIII and IX.
#pragma once
#include <systemc>

#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include "hw/management_bus.hpp"
#include "routing_logic/kary_ntree.hpp"

namespace ftsim::hw {

/// Timeline of one reconfiguration: a switch detects a link going down (or
/// coming back) and notifies the manager, which learns it
/// `notification_cycles` later; the manager then computes new tables for
/// `computation_cycles` and distributes them for `distribution_cycles`; at the
/// end every switch holds the new tables (written through ManagementBus in
/// one delta cycle, so no switch sees a mix). Reports arriving meanwhile are
/// batched into the next round. Tables: routing::ddrc_tables (up*/down*
/// without the faulty links). Only entries that change are written.
class SubnetManager : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(SubnetManager);
  SubnetManager(sc_core::sc_module_name name, const routing::KAryNTree& tree, ManagementBus& bus,
                sc_core::sc_time period, std::int64_t notification_cycles, std::int64_t computation_cycles,
                std::int64_t distribution_cycles, std::vector<std::vector<std::int32_t>> current_tables);

  /// A switch at an end of link l saw it go down (alive = false) or up.
  void link_state(routing::LinkId l, bool alive);

  std::uint64_t notifications() const { return m_notifications; }
  std::uint64_t table_writes() const { return m_writes; }
  /// Cycle at which each reconfiguration's tables became active.
  const std::vector<std::uint64_t>& update_cycles() const { return m_update_cycles; }
  /// True while a notification, computation or distribution is pending.
  bool busy() const { return !m_inbox.empty() || m_state != State::kIdle || m_dirty; }

 private:
  enum class State { kIdle, kComputing, kDistributing };
  struct Note {
    std::uint64_t arrival;
    routing::LinkId link;
    bool alive;
  };
  void process();
  std::uint64_t now() const;
  void schedule(std::uint64_t at);

  const routing::KAryNTree& m_tree;
  ManagementBus& m_bus;
  sc_core::sc_time m_period;
  std::int64_t m_notify, m_compute, m_distribute;
  sc_core::sc_event m_event;
  std::deque<Note> m_inbox;
  std::set<routing::LinkId> m_faulty;
  bool m_dirty = false;
  State m_state = State::kIdle;
  std::uint64_t m_phase_end = 0;
  std::vector<std::vector<std::int32_t>> m_tables;   ///< what the switches hold
  std::vector<std::vector<std::int32_t>> m_pending;  ///< computed, being distributed
  std::uint64_t m_notifications = 0;
  std::uint64_t m_writes = 0;
  std::vector<std::uint64_t> m_update_cycles;
};

}  // namespace ftsim::hw
