// Per-network packet records (owned by the network, never global).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "routing_logic/routing_relation.hpp"

namespace ftsim::hw {

/// Why a packet was dropped. Order matches kDropReasonNames.
/// kRerouteDiscard: a dynamic-local-rerouting U-turn switch ran out of
/// upward ports to test (fat-tree DLR, section VI-A step 4).
enum class DropReason : std::uint8_t { kLinkFailure, kSwitchFailure, kNoRoute, kRerouteDiscard, kCount };
inline const char* drop_reason_name(DropReason r) {
  static const char* kNames[] = {"link_failure", "switch_failure", "no_route", "reroute_discarded"};
  return kNames[static_cast<int>(r)];
}

struct PacketInfo {
  routing::PacketHeader header;
  std::uint64_t create_cycle = 0;  ///< entered the source queue
  std::uint64_t inject_cycle = 0;  ///< head left the network interface
  std::uint16_t length = 0;        ///< flits, header overhead included
  std::uint16_t overhead = 0;      ///< of length: header overhead flits (subheaders), not payload
  std::uint16_t hops = 0;          ///< router-router links traversed
  bool dropped = false;
  bool measured = false;  ///< created inside the measurement window
  bool live = false;
  bool requeued = false;  ///< taken back into a source queue (Immunet drain)
  /// A mechanism's control packet (Immunet's table updates with
  /// immunet.control_packets: safe-ring): it travels through the routers'
  /// queues like a packet, is never traffic (no statistics), and is consumed
  /// by the receiving router's mechanism (RouterMechanism::on_control_packet).
  bool control = false;
  std::uint64_t tag = 0;  ///< the sender's message tag (MessageTagExtension), handed back at delivery
};

/// Pool of packet records with id reuse.
class PacketStore {
 public:
  std::uint32_t allocate() {
    std::uint32_t id;
    if (!m_free.empty()) {
      id = m_free.back();
      m_free.pop_back();
      m_items[id] = PacketInfo{};
    } else {
      id = static_cast<std::uint32_t>(m_items.size());
      m_items.emplace_back();
    }
    m_items[id].live = true;
    return id;
  }
  void release(std::uint32_t id) {
    m_items[id].live = false;
    m_free.push_back(id);
  }
  PacketInfo& operator[](std::uint32_t id) { return m_items[id]; }
  const PacketInfo& operator[](std::uint32_t id) const { return m_items[id]; }
  std::size_t capacity() const { return m_items.size(); }

 private:
  std::vector<PacketInfo> m_items;
  std::vector<std::uint32_t> m_free;
};

}  // namespace ftsim::hw
