#include "hw/table_target.hpp"

#include <cstring>

namespace ftsim::hw {

TableTarget::TableTarget(sc_core::sc_module_name name, tables::ForwardingTable& table)
    : sc_module(name), socket("socket"), m_table(table) {
  socket.register_b_transport(this, &TableTarget::b_transport);
}

void TableTarget::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& /*delay*/) {
  const sc_dt::uint64 addr = gp.get_address();
  if (gp.get_data_length() != 4 || gp.get_streaming_width() < 4) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (addr % 4 != 0 || addr / 4 >= static_cast<sc_dt::uint64>(m_table.size())) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const int dest = static_cast<int>(addr / 4);
  std::int32_t word = 0;
  if (gp.is_read()) {
    word = m_table.get(dest);
    std::memcpy(gp.get_data_ptr(), &word, 4);
  } else if (gp.is_write()) {
    std::memcpy(&word, gp.get_data_ptr(), 4);
    try {
      m_table.set(dest, word);
    } catch (const std::out_of_range&) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    ++m_writes;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace ftsim::hw
