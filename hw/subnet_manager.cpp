#include "hw/subnet_manager.hpp"

#include <algorithm>

#include <map>
#include <random>
#include "routing_logic/types.hpp"

namespace ftsim::hw {

SubnetManager::SubnetManager(sc_core::sc_module_name name, const routing::Topology& topo, ManagementBus& bus,
                             sc_core::sc_time period, std::int64_t notification_cycles, std::int64_t computation_cycles,
                             Distribution distribution, NodeTables current_tables, TableEngine engine)
    : sc_module(name),
      m_topo(topo),
      m_bus(bus),
      m_period(period),
      m_notify(notification_cycles),
      m_compute(computation_cycles),
      m_dist(distribution),
      m_engine(std::move(engine)),
      m_tables(std::move(current_tables)) {
  if (m_dist.mode == Distribution::Mode::kStatic && (!m_dist.hold_injection || !m_dist.network_empty))
    throw ftsim::ConfigError("static distribution needs the network's hold_injection and network_empty hooks");
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

void SubnetManager::write_block(const Block& b) {
  const auto r = static_cast<std::size_t>(b.router);
  for (int d : b.dests) {
    const auto di = static_cast<std::size_t>(d);
    m_bus.write(b.router, d, m_pending[r][di]);
    m_tables[r][di] = m_pending[r][di];
    ++m_writes;
  }
  ++m_blocks;
}

void SubnetManager::plan_blocks() {
  // Changed entries grouped into 64-entry blocks (LID = node + 1).
  std::map<std::pair<int, int>, Block> blocks;
  for (std::size_t r = 0; r < m_pending.size(); ++r)
    for (std::size_t d = 0; d < m_pending[r].size(); ++d) {
      if (m_pending[r][d] == m_tables[r][d]) continue;
      auto& b = blocks[{static_cast<int>(r), static_cast<int>((d + 1) / 64)}];
      b.router = static_cast<int>(r);
      b.dests.push_back(static_cast<int>(d));
    }
  std::vector<std::pair<int, Block>> keyed;
  for (auto& [k, b] : blocks) {
    // Downstream-first key: the fewest new switch hops from this switch to
    // any destination the block changes.
    int key = 1 << 30;
    for (int d : b.dests) {
      int hops = 0;
      routing::RouterId x = b.router;
      while (hops <= m_topo.num_routers()) {
        const std::int32_t p = m_pending[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)];
        if (p == routing::kNone) break;
        const routing::PortPeer& pp = m_topo.peer(x, p);
        if (pp.kind != routing::PortPeer::Kind::kRouter) break;
        x = pp.id;
        ++hops;
      }
      key = std::min(key, hops);
    }
    keyed.emplace_back(key, std::move(b));
  }
  if (m_dist.order == Distribution::Order::kRandom) {
    std::mt19937_64 rng(m_dist.seed + m_update_cycles.size());
    std::shuffle(keyed.begin(), keyed.end(), rng);
  } else {
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  m_blocks_left.clear();
  for (auto& kb : keyed) m_blocks_left.push_back(std::move(kb.second));
}

void SubnetManager::process() {
  const std::uint64_t t = now();
  while (!m_inbox.empty() && m_inbox.front().arrival <= t) {
    const Note& n = m_inbox.front();
    if (n.alive)
      m_faulty.erase(n.link);
    else
      m_faulty.insert(n.link);
    m_changed.push_back(n.link);
    m_dirty = true;
    m_inbox.pop_front();
  }
  if (m_state == State::kComputing && t >= m_phase_end) {
    m_pending = m_tables;
    std::string why;
    const bool ok = m_engine(m_faulty, m_changed, m_pending, why);
    m_changed.clear();
    m_computed_cycles.push_back(t);
    if (!ok) {
      m_failures.push_back(why);
      m_state = State::kIdle;
    } else if (m_dist.mode == Distribution::Mode::kStatic) {
      plan_blocks();
      m_dist.hold_injection(true);
      m_halt_start = t;
      m_state = State::kDraining;
      m_phase_end = t + 1;
    } else {
      plan_blocks();
      m_state = State::kDistributing;
      m_phase_end = t + static_cast<std::uint64_t>(m_dist.mode == Distribution::Mode::kAtomic
                                                       ? m_dist.distribution_cycles
                                                       : std::max<std::int64_t>(1, m_dist.block_cycles));
    }
  }
  if (m_state == State::kDraining && t >= m_phase_end) {
    if (m_dist.network_empty()) {
      m_state = State::kDistributing;
      m_phase_end = t + static_cast<std::uint64_t>(m_dist.distribution_cycles);
    } else {
      m_phase_end = t + 1;  // poll once per cycle until the last flit leaves
    }
  }
  if (m_state == State::kDistributing && t >= m_phase_end) {
    if (m_dist.mode != Distribution::Mode::kSequential) {
      for (const Block& b : m_blocks_left) write_block(b);
      m_blocks_left.clear();
    } else if (!m_blocks_left.empty()) {
      write_block(m_blocks_left.front());
      m_blocks_left.pop_front();
    }
    if (m_blocks_left.empty()) {
      m_update_cycles.push_back(t);
      m_state = State::kIdle;
      if (m_dist.mode == Distribution::Mode::kStatic) {
        m_halted_cycles.push_back(t - m_halt_start);
        m_dist.hold_injection(false);
      }
    } else {
      m_phase_end = t + static_cast<std::uint64_t>(std::max<std::int64_t>(1, m_dist.block_cycles));
    }
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
