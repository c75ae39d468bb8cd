// Management-plane access to a router's forwarding table over TLM-2.0.
#pragma once
#include <systemc>
#include <tlm>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "hw/immediate_target_socket.hpp"
#include "tables/forwarding_table.hpp"

namespace ftsim::hw {

/// A table memory as the management plane sees it: `words()` 32-bit words,
/// word i at byte offset 4 i of its region. Implemented by every per-router
/// table module (the LFT, Immunet's Safe, Adaptive and SS tables).
class TableMemory {
 public:
  virtual ~TableMemory() = default;
  virtual int words() const = 0;
  /// index in 0..words()-1 (checked by the caller).
  virtual std::uint32_t read_word(int index) const = 0;
  /// Returns false when the value is out of the entry's range (the bus
  /// answers TLM_GENERIC_ERROR_RESPONSE and nothing changes).
  virtual bool write_word(int index, std::uint32_t value) = 0;
};

/// TLM-2.0 target in front of one router's table memories: the router's
/// management port. Region 0 (base 0) is the forwarding table (LFT):
/// address = destination * 4, one 32-bit little-endian word holding the
/// output port (-1 = no route). A mechanism maps its own tables at other
/// bases with map() (Immunet: hw/immunet/immunet_router.hpp), so a subnet manager,
/// a mechanism's control plane and a debugger reach every table through the
/// same socket. Reads and writes of other lengths get
/// TLM_BURST_ERROR_RESPONSE; unaligned or unmapped addresses (an
/// out-of-range destination) TLM_ADDRESS_ERROR_RESPONSE; a value out of the
/// entry's range (a port beyond the radix) TLM_GENERIC_ERROR_RESPONSE. Writes
/// take effect for the next route computation. The boot-time back-doors are
/// Router::forwarding_table() and the table modules' own setters.
///
/// The TLM-2.0 socket in front of the targets is ManagementTargets' (one
/// target socket, router r's target at addresses r << 32 and up),
/// so a target is not a module of its own: a module, a socket and their
/// names cost about 2.5 KB per router (issue 54, memory).
class TableTarget {
 public:
  /// `name` names the target in errors (the network uses
  /// "<network>.table_<router label>"). Not copyable or movable (regions
  /// point into it).
  TableTarget(std::string name, tables::ForwardingTable& table);
  TableTarget(const TableTarget&) = delete;
  TableTarget& operator=(const TableTarget&) = delete;
  const char* name() const { return m_name.c_str(); }
  /// One transaction as the socket delivers it (the errors above).
  void transport(tlm::tlm_generic_payload& gp);
  /// Maps `memory` at byte address `base` (a multiple of 4, non-zero: base 0
  /// is the LFT). `name` names the region in errors. Throws
  /// std::invalid_argument when the region overlaps another or base is 0 or
  /// unaligned.
  void map(std::uint64_t base, TableMemory& memory, const std::string& name);
  /// Successful write transactions (all regions).
  std::uint64_t writes() const { return m_writes; }

 private:
  /// The LFT as a table memory (ports checked against the radix).
  class LftMemory : public TableMemory {
   public:
    explicit LftMemory(tables::ForwardingTable& t) : m_table(t) {}
    int words() const override { return m_table.size(); }
    std::uint32_t read_word(int index) const override { return static_cast<std::uint32_t>(m_table.get(index)); }
    bool write_word(int index, std::uint32_t value) override;

   private:
    tables::ForwardingTable& m_table;
  };
  struct Region {
    std::uint64_t base;
    TableMemory* memory;
    std::string name;
  };
  std::string m_name;
  LftMemory m_lft;
  std::vector<Region> m_regions;  // m_regions[0]: the LFT
  std::uint64_t m_writes = 0;
};

/// The routers' management ports as one TLM-2.0 target: one address space
/// in which router r's table map (TableTarget) is the window of bytes
/// r << 32 .. (r << 32) + 2^32 - 1 (kRouterShift). It
/// decodes the router, hands the transaction with the window's offset as
/// its address to `targets[r]`, and restores the address; a router beyond
/// the targets answers TLM_ADDRESS_ERROR_RESPONSE.
class ManagementTargets : public sc_core::sc_module {
 public:
  static constexpr int kRouterShift = 32;
  ImmediateTargetSocket<ManagementTargets> socket;
  /// `targets` outlive this module.
  ManagementTargets(sc_core::sc_module_name name, std::deque<TableTarget>& targets);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  std::deque<TableTarget>& m_targets;
};

}  // namespace ftsim::hw
