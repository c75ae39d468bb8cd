#include "hw/immunet/immunet_router.hpp"

#include <stdexcept>
#include <string>

#include "hw/management_bus.hpp"
#include "hw/router.hpp"

namespace ftsim::hw {

using routing::KAryNCube;

EmergencyParams immunet_emergency_params(const KAryNCube& t, const ImmunetParams& p) {
  EmergencyParams e;
  e.ports = 2 * t.dimensions();
  e.epl_bits = p.epl_bits;
  int idb = 1;
  while ((1L << idb) < t.num_routers()) ++idb;
  e.id_bits = idb;
  e.handle_cycles = p.handle_cycles;
  e.ack_window = p.ack_window;
  return e;
}

// ---------------------------------------------------------------------------
// Tables

ImmunetSafeTable::ImmunetSafeTable(sc_core::sc_module_name name, int nodes, int ports, std::uint32_t& epoch)
    : sc_module(name), m_ports(ports), m_masks(static_cast<std::size_t>(nodes), 0), m_epoch(epoch) {}

bool ImmunetSafeTable::write_word(int index, std::uint32_t value) {
  if (m_ports < 32 && (value >> m_ports) != 0) return false;
  m_masks[static_cast<std::size_t>(index)] = value;
  ++m_epoch;
  return true;
}

ImmunetAdaptiveTable::ImmunetAdaptiveTable(sc_core::sc_module_name name, int nodes, int ports, std::uint32_t& epoch)
    : sc_module(name),
      m_ports(ports),
      m_masks(static_cast<std::size_t>(nodes), 0),
      m_dist(static_cast<std::size_t>(nodes), nodes),
      m_epoch(epoch) {}

std::uint32_t ImmunetAdaptiveTable::read_word(int index) const {
  const auto d = static_cast<std::size_t>(index / 2);
  return index % 2 == 0 ? static_cast<std::uint32_t>(m_masks[d]) : static_cast<std::uint32_t>(m_dist[d]);
}

bool ImmunetAdaptiveTable::write_word(int index, std::uint32_t value) {
  const auto d = static_cast<std::size_t>(index / 2);
  if (index % 2 == 0) {
    if (m_ports < 32 && (value >> m_ports) != 0) return false;
    m_masks[d] = value;
  } else {
    if (value > m_masks.size()) return false;
    m_dist[d] = static_cast<std::int32_t>(value);
  }
  ++m_epoch;
  return true;
}

long ImmunetAdaptiveTable::size_bits() const {
  int w = 0;
  while ((1L << w) < static_cast<long>(m_masks.size()) + 1L) ++w;
  return static_cast<long>(m_masks.size()) * (m_ports + w);
}

ImmunetSsTable::ImmunetSsTable(sc_core::sc_module_name name, int radix, std::uint32_t& epoch)
    : sc_module(name), m_next(static_cast<std::size_t>(radix), -1), m_epoch(epoch) {}

std::uint32_t ImmunetSsTable::read_word(int index) const {
  const int n = m_next[static_cast<std::size_t>(index)];
  return n < 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(n);
}

bool ImmunetSsTable::write_word(int index, std::uint32_t value) {
  const int radix = static_cast<int>(m_next.size());
  if (value == 0xFFFFFFFFu) {
    m_next[static_cast<std::size_t>(index)] = -1;
  } else {
    if (index == KAryNCube::kLocalPort || value < 1 || value >= static_cast<std::uint32_t>(radix)) return false;
    m_next[static_cast<std::size_t>(index)] = static_cast<std::int8_t>(value);
  }
  ++m_epoch;
  return true;
}

// ---------------------------------------------------------------------------
// Table Update Module

ImmunetTableUpdateModule::ImmunetTableUpdateModule(sc_core::sc_module_name name, ImmunetRouter& owner)
    : sc_module(name), m_owner(owner) {}

void ImmunetTableUpdateModule::write(std::uint64_t address, std::uint32_t value) {
  if (m_bus != nullptr) {
    if (m_bus->write_word(m_router, address, value) != tlm::TLM_OK_RESPONSE)
      throw std::logic_error(std::string(name()) + ": management write refused at address " + std::to_string(address));
    return;
  }
  // Boot: the back-door.
  TableMemory* mem = &m_owner.ss_table;
  std::uint64_t base = immunet_map::kSsTable;
  if (address < immunet_map::kAdaptiveTable) {
    mem = &m_owner.safe_table;
    base = immunet_map::kSafeTable;
  } else if (address < immunet_map::kSsTable) {
    mem = &m_owner.adaptive_table;
    base = immunet_map::kAdaptiveTable;
  }
  if (!mem->write_word(static_cast<int>((address - base) / 4), value))
    throw std::logic_error(std::string(name()) + ": table write out of range at address " + std::to_string(address));
}

void ImmunetTableUpdateModule::begin_rebuild() {
  const int n = m_owner.adaptive_table.words() / 2;
  for (int d = 0; d < n; ++d) {
    write(immunet_map::kAdaptiveTable + 8ULL * d, 0);
    write(immunet_map::kAdaptiveTable + 8ULL * d + 4, static_cast<std::uint32_t>(n));
  }
  const int self = m_owner.id();
  write(immunet_map::kAdaptiveTable + 8ULL * self, 1U << KAryNCube::kLocalPort);
  write(immunet_map::kAdaptiveTable + 8ULL * self + 4, 0);
}

int ImmunetTableUpdateModule::install_tree(const EmergencyState& s) {
  const int radix = m_owner.ss_table.words();
  const int ports = static_cast<int>(m_owner.input_blocks.size());
  std::vector<routing::PortId> cyc;
  if (!s.root) cyc.push_back(s.parent + 1);
  for (int i = 0; i < ports; ++i)
    if (s.children >> i & 1u) cyc.push_back(i + 1);
  std::vector<std::int32_t> next(static_cast<std::size_t>(radix), -1);
  for (std::size_t i = 0; i < cyc.size(); ++i) next[static_cast<std::size_t>(cyc[i])] = cyc[(i + 1) % cyc.size()];
  for (int p = 0; p < radix; ++p)
    write(immunet_map::kSsTable + 4ULL * p, static_cast<std::uint32_t>(next[static_cast<std::size_t>(p)]));
  const int n = m_owner.safe_table.words();
  const std::uint32_t towards = cyc.empty() ? 1U : (1U << cyc.front());
  for (int d = 0; d < n; ++d) write(immunet_map::kSafeTable + 4ULL * d, towards);
  write(immunet_map::kSafeTable + 4ULL * m_owner.id(), 1U << KAryNCube::kLocalPort);
  m_owner.set_single_ring(true);
  return cyc.empty() ? -1 : cyc.front();
}

void ImmunetTableUpdateModule::set_safe(int origin, routing::PortId port) {
  write(immunet_map::kSafeTable + 4ULL * origin, 1U << port);
}

int ImmunetTableUpdateModule::apply_distance(int origin, routing::PortId port, int distance) {
  const ImmunetAdaptiveTable& a = m_owner.adaptive_table;
  if (distance > a.distance(origin)) return -1;
  const bool improved = distance < a.distance(origin);
  const std::uint64_t at = immunet_map::kAdaptiveTable + 8ULL * origin;
  if (improved) {
    write(at + 4, static_cast<std::uint32_t>(distance));
    write(at, 1U << port);
  } else {
    write(at, static_cast<std::uint32_t>(a.mask(origin) | (1ULL << port)));
  }
  return improved ? 1 : 0;
}

// ---------------------------------------------------------------------------
// The router's Immunet hardware

ImmunetRouter::ImmunetRouter(sc_core::sc_module_name name, const KAryNCube& topo, routing::RouterId id,
                             const EmergencyParams& params)
    : RouterMechanism(name),
      m_id(id),
      reconfiguration_module("reconfiguration_module", params),
      safe_table("safe_table", topo.num_nodes(), topo.max_radix(), m_view.epoch),
      adaptive_table("adaptive_table", topo.num_nodes(), topo.max_radix(), m_view.epoch),
      ss_table("ss_table", topo.max_radix(), m_view.epoch),
      table_update_module("table_update_module", *this) {
  for (int i = 0; i < params.ports; ++i) {
    const std::string pn = topo.port_name(id, i + 1);
    input_blocks.push_back(std::make_unique<ImmunetInputBlock>(("input_block_" + pn).c_str()));
    output_blocks.push_back(std::make_unique<ImmunetOutputBlock>(("output_block_" + pn).c_str()));
  }
  reconfiguration_module.port_enable = (1u << params.ports) - 1u;
  m_view.safe = safe_table.data();
  m_view.adaptive = adaptive_table.masks();
  m_view.ss_next = ss_table.data();
  m_view.distance = adaptive_table.distances();
  m_view.lost_distance = static_cast<std::int32_t>(topo.num_nodes());
}

void ImmunetRouter::map_tables(TableTarget& target) {
  target.map(immunet_map::kSafeTable, safe_table, "immunet.safe_table");
  target.map(immunet_map::kAdaptiveTable, adaptive_table, "immunet.adaptive_table");
  target.map(immunet_map::kSsTable, ss_table, "immunet.ss_table");
}

void ImmunetRouter::trace(sc_core::sc_trace_file* tf, const std::string& prefix) const {
  const std::string b = prefix + ".rm.";
  const EmergencyState& s = reconfiguration_module.logic.state();
  sc_core::sc_trace(tf, s.epl, b + "epl");
  sc_core::sc_trace(tf, s.valid, b + "valid");
  sc_core::sc_trace(tf, s.root, b + "root");
  sc_core::sc_trace(tf, s.parent, b + "parent");
  sc_core::sc_trace(tf, s.children, b + "children");
  sc_core::sc_trace(tf, s.emergency, b + "emergency");
  sc_core::sc_trace(tf, s.done, b + "done");
}

RouterMechanismFactory immunet_router_factory(const KAryNCube& topo, const ImmunetParams& params) {
  const EmergencyParams ep = immunet_emergency_params(topo, params);
  return [&topo, ep](Router& router) -> std::unique_ptr<RouterMechanism> {
    return std::make_unique<ImmunetRouter>("immunet", topo, router.id(), ep);
  };
}

}  // namespace ftsim::hw
