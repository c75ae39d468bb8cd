// The management plane: one TLM-2.0 initiator socket per router table.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>

namespace ftsim::hw {

/// Initiator side of the management plane (a subnet manager, Immunet's Table
/// Update Module or a debugger talks through it). Its socket is bound to
/// ManagementTargets: router i's TableTarget is the window at address
/// i << 32. A router outside 0..routers-1 or an address of 2^32 or more
/// gets TLM_ADDRESS_ERROR_RESPONSE without a transaction. read()/write()
/// issue one blocking 32-bit transaction on the forwarding table (offset =
/// dest * 4); read_word()/write_word() on any byte offset of the router's
/// table map (TableTarget::map). All return the TLM response status.
class ManagementBus : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ManagementBus> socket;
  ManagementBus(sc_core::sc_module_name name, int routers);
  tlm::tlm_response_status write(int router, int dest, std::int32_t port);
  tlm::tlm_response_status read(int router, int dest, std::int32_t* port);
  tlm::tlm_response_status write_word(int router, std::uint64_t address, std::uint32_t value);
  tlm::tlm_response_status read_word(int router, std::uint64_t address, std::uint32_t* value);
  std::uint64_t transactions() const { return m_transactions; }

 private:
  tlm::tlm_response_status access(int router, tlm::tlm_command cmd, std::uint64_t address, void* word);
  int m_routers;
  std::uint64_t m_transactions = 0;
};

}  // namespace ftsim::hw
