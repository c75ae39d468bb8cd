#include "hw/subnet_manager.hpp"

#include "routing_logic/fat_tree_analysis.hpp"

namespace ftsim::hw {

SubnetManager::SubnetManager(sc_core::sc_module_name name, const routing::KAryNTree& tree, ManagementBus& bus,
                             sc_core::sc_time period, std::int64_t notification_cycles, std::int64_t computation_cycles,
                             std::int64_t distribution_cycles, std::vector<std::vector<std::int32_t>> current_tables)
    : sc_module(name),
      m_tree(tree),
      m_bus(bus),
      m_period(period),
      m_notify(notification_cycles),
      m_compute(computation_cycles),
      m_distribute(distribution_cycles),
      m_tables(std::move(current_tables)) {
  SC_METHOD(process);
  sensitive << m_event;
  dont_initialize();
}

std::uint64_t SubnetManager::now() const {
  return sc_core::sc_time_stamp().value() / m_period.value();
}

void SubnetManager::schedule(std::uint64_t at) {
  const std::uint64_t t = now();
  if (at <= t)
    m_event.notify(sc_core::SC_ZERO_TIME);
  else
    m_event.notify(m_period * static_cast<double>(at - t));
}

void SubnetManager::link_state(routing::LinkId l, bool alive) {
  ++m_notifications;
  const std::uint64_t at = now() + static_cast<std::uint64_t>(m_notify);
  m_inbox.push_back({at, l, alive});
  schedule(at);
}

void SubnetManager::process() {
  const std::uint64_t t = now();
  while (!m_inbox.empty() && m_inbox.front().arrival <= t) {
    const Note& n = m_inbox.front();
    if (n.alive)
      m_faulty.erase(n.link);
    else
      m_faulty.insert(n.link);
    m_dirty = true;
    m_inbox.pop_front();
  }
  if (m_state == State::kComputing && t >= m_phase_end) {
    routing::FaultSet fs;
    fs.links.assign(m_faulty.begin(), m_faulty.end());
    m_pending = routing::ddrc_tables(m_tree, fs);
    m_state = State::kDistributing;
    m_phase_end = t + static_cast<std::uint64_t>(m_distribute);
  }
  if (m_state == State::kDistributing && t >= m_phase_end) {
    for (std::size_t r = 0; r < m_pending.size(); ++r)
      for (std::size_t d = 0; d < m_pending[r].size(); ++d) {
        if (m_pending[r][d] == m_tables[r][d]) continue;
        m_bus.write(static_cast<int>(r), static_cast<int>(d), m_pending[r][d]);
        m_tables[r][d] = m_pending[r][d];
        ++m_writes;
      }
    m_update_cycles.push_back(t);
    m_state = State::kIdle;
  }
  if (m_state == State::kIdle && m_dirty) {
    m_dirty = false;
    m_state = State::kComputing;
    m_phase_end = t + static_cast<std::uint64_t>(m_compute);
  }
  if (m_state != State::kIdle) schedule(m_phase_end);
  if (!m_inbox.empty()) schedule(m_inbox.front().arrival);
}

}  // namespace ftsim::hw
