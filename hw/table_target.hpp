// Management-plane access to a router's forwarding table over TLM-2.0.
#pragma once
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "tables/forwarding_table.hpp"

namespace ftsim::hw {

/// TLM-2.0 target in front of one router's forwarding table. Address =
/// destination * 4; each access is one 32-bit little-endian word holding the
/// output port (-1 = no route). Reads and writes of other lengths or
/// unaligned addresses get TLM_BURST_ERROR_RESPONSE / TLM_ADDRESS_ERROR_RESPONSE;
/// an out-of-range destination or port gets TLM_ADDRESS_ERROR_RESPONSE /
/// TLM_GENERIC_ERROR_RESPONSE. Writes take effect for the next route
/// computation. The boot-time back-door is Router::forwarding_table().
class TableTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<TableTarget> socket;
  TableTarget(sc_core::sc_module_name name, tables::ForwardingTable& table);
  std::uint64_t writes() const { return m_writes; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  tables::ForwardingTable& m_table;
  std::uint64_t m_writes = 0;
};

}  // namespace ftsim::hw
