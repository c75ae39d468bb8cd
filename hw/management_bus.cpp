#include "hw/management_bus.hpp"

#include "hw/table_target.hpp"

namespace ftsim::hw {

ManagementBus::ManagementBus(sc_core::sc_module_name name, int routers)
    : sc_module(name), socket("socket"), m_routers(routers) {}

tlm::tlm_response_status ManagementBus::access(int router, tlm::tlm_command cmd, std::uint64_t address, void* word) {
  if (router < 0 || router >= m_routers || (address >> ManagementTargets::kRouterShift) != 0)
    return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  tlm::tlm_generic_payload gp;
  gp.set_command(cmd);
  gp.set_address((static_cast<std::uint64_t>(router) << ManagementTargets::kRouterShift) | address);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(word));
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(gp, delay);
  ++m_transactions;
  return gp.get_response_status();
}

tlm::tlm_response_status ManagementBus::write(int router, int dest, std::int32_t port) {
  return access(router, tlm::TLM_WRITE_COMMAND, static_cast<std::uint64_t>(dest) * 4U, &port);
}

tlm::tlm_response_status ManagementBus::read(int router, int dest, std::int32_t* port) {
  return access(router, tlm::TLM_READ_COMMAND, static_cast<std::uint64_t>(dest) * 4U, port);
}

tlm::tlm_response_status ManagementBus::write_word(int router, std::uint64_t address, std::uint32_t value) {
  return access(router, tlm::TLM_WRITE_COMMAND, address, &value);
}

tlm::tlm_response_status ManagementBus::read_word(int router, std::uint64_t address, std::uint32_t* value) {
  return access(router, tlm::TLM_READ_COMMAND, address, value);
}

}  // namespace ftsim::hw
