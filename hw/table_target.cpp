#include "hw/table_target.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace ftsim::hw {

TableTarget::TableTarget(std::string name, tables::ForwardingTable& table) : m_name(std::move(name)), m_lft(table) {
  m_regions.push_back(Region{0, &m_lft, "lft"});
}

bool TableTarget::LftMemory::write_word(int index, std::uint32_t value) {
  try {
    m_table.set(index, static_cast<std::int32_t>(value));
  } catch (const std::out_of_range&) {
    return false;
  }
  return true;
}

void TableTarget::map(std::uint64_t base, TableMemory& memory, const std::string& name) {
  if (base == 0 || base % 4 != 0)
    throw std::invalid_argument(std::string(this->name()) + ": table '" + name +
                                "' needs a non-zero base that is a multiple of 4");
  const std::uint64_t end = base + 4ULL * static_cast<std::uint64_t>(memory.words());
  for (const Region& r : m_regions) {
    // The LFT region may be empty (no table-driven relation); it still owns base 0.
    const std::uint64_t r_end = r.base + 4ULL * static_cast<std::uint64_t>(std::max(r.memory->words(), 1));
    if (base < r_end && r.base < end)
      throw std::invalid_argument(std::string(this->name()) + ": table '" + name + "' overlaps table '" + r.name + "'");
  }
  m_regions.push_back(Region{base, &memory, name});
}

void TableTarget::transport(tlm::tlm_generic_payload& gp) {
  const sc_dt::uint64 addr = gp.get_address();
  if (gp.get_data_length() != 4 || gp.get_streaming_width() < 4) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  TableMemory* mem = nullptr;
  int index = 0;
  if (addr % 4 == 0)
    for (const Region& r : m_regions)
      if (addr >= r.base && (addr - r.base) / 4 < static_cast<sc_dt::uint64>(r.memory->words())) {
        mem = r.memory;
        index = static_cast<int>((addr - r.base) / 4);
        break;
      }
  if (mem == nullptr) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  std::uint32_t word = 0;
  if (gp.is_read()) {
    word = mem->read_word(index);
    std::memcpy(gp.get_data_ptr(), &word, 4);
  } else if (gp.is_write()) {
    std::memcpy(&word, gp.get_data_ptr(), 4);
    if (!mem->write_word(index, word)) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    ++m_writes;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

ManagementTargets::ManagementTargets(sc_core::sc_module_name name, std::deque<TableTarget>& targets)
    : sc_module(name), socket("socket"), m_targets(targets) {
  socket.register_b_transport(this, &ManagementTargets::b_transport);
}

void ManagementTargets::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& /*delay*/) {
  const sc_dt::uint64 address = gp.get_address();
  const sc_dt::uint64 router = address >> kRouterShift;
  if (router >= m_targets.size()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  gp.set_address(address & ((sc_dt::uint64{1} << kRouterShift) - 1));
  m_targets[static_cast<std::size_t>(router)].transport(gp);
  gp.set_address(address);
}

}  // namespace ftsim::hw
