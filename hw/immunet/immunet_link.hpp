// What connects two routers' Immunet hardware: per link direction, the
// emergency wires between an Output Block and the neighbour's Input Block
// and the hop the Table Update Modules' control packets take; and, network
// wide, the simulator's record of whether a reconfiguration is still in
// progress.
// Source: immunet-fault-tolerant-routing.txt, section 5 and Figure 9 (the
// request and data lines of each link carry the emergency signalling),
// sections 4.2-4.3 (the control packets of the table updates).
#pragma once
#include <systemc>

#include <cstdint>

#include "hw/channels.hpp"
#include "hw/immunet/emergency_logic.hpp"

namespace ftsim::hw {

class ImmunetRouter;

/// One table-update control packet on one hop (sections 4.2-4.3).
struct ImmunetControlPacket {
  bool safe = false;      ///< true: optimised Safe Table entry, forwarded up to the root; false: distance vector
  int origin = 0;         ///< the router the entry is about (the packet's creator)
  std::uint32_t epl = 0;  ///< the emergency whose tree the packet belongs to
  int distance = 0;       ///< distance vector: hops from the sender to `origin` (0..N)
  /// Receiver's port the packet arrives on (1..2n). Set by the link.
  int port = 0;
};

/// One direction of a link between two routers' Immunet hardware, bound at
/// elaboration to the sender's Output Block and the receiver's Input Block.
///
/// Wires (Figure 9): the sender's Output Block drives them in the second
/// half of every cycle in which its router's emergency logic runs (delta 0 of
/// the half cycle) and the receiver's Input Block samples them one delta
/// later, so every router samples what its neighbours drove in the same
/// cycle whatever order the simulator runs them in. A drive that is not
/// idle wakes the receiver's sampling. The wires are also shown on the
/// link's phit bundle (the wave view).
///
/// Control packets: a hop is a delay line in cycles; an entry is handled by
/// the receiver's Table Update Module in the cycle it becomes ready. Entries
/// of one link are ready in the order they were sent.
class ImmunetLink : public sc_core::sc_object {
 public:
  /// name: the object's name (`immunet.link_<router>_<port>` from the control
  /// plane); phits: the link direction whose bundle the waves show, or
  /// nullptr.
  ImmunetLink(const char* name, ImmunetRouter& sender, int sender_port, ImmunetRouter& receiver, int receiver_port,
              LinkDirection* phits)
      : sc_object(name),
        m_sender(sender),
        m_receiver(receiver),
        m_sender_port(sender_port),
        m_receiver_port(receiver_port),
        m_phits(phits) {}
  const char* kind() const override { return "ftsim_immunet_link"; }

  /// Output Block side: the wires driven this cycle. An emergency (both
  /// request lines) is also put on the phit bundle and wakes the receiver.
  void drive(const EmergencyWires& w);
  /// Input Block side: what the sender drove this cycle.
  const EmergencyWires& wires() const { return m_wires; }

  /// Table Update Module side: a packet whose receiver handles it at cycle
  /// `ready` (> the current cycle). Wakes the receiver for that cycle.
  void send(std::uint64_t ready, const ImmunetControlPacket& packet);
  /// Receiver side: packets in flight on this hop, oldest first.
  DelayLine<ImmunetControlPacket>& packets() { return m_packets; }

  ImmunetRouter& sender() const { return m_sender; }
  ImmunetRouter& receiver() const { return m_receiver; }
  int sender_port() const { return m_sender_port; }
  int receiver_port() const { return m_receiver_port; }
  /// STOP on the phit bundle (driven by the receiver while in the emergency).
  void set_stop(bool stop) {
    if (m_phits != nullptr) m_phits->bundle.stop = stop;
  }

 private:
  ImmunetRouter& m_sender;
  ImmunetRouter& m_receiver;
  int m_sender_port;
  int m_receiver_port;
  LinkDirection* m_phits;
  EmergencyWires m_wires;
  DelayLine<ImmunetControlPacket> m_packets;
};

/// The simulator's record of a reconfiguration in progress (no hardware has
/// it): how many routers have emergency logic at work and how many control
/// packets are in flight. When both reach zero, in the second half of a
/// cycle after every router's logic has run, the reconfiguration is over:
/// `over()` is notified and every router marks its tables final (section
/// 4.3: destinations still at distance N are lost from then on).
class ImmunetReconfigurationStatus : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ImmunetReconfigurationStatus);
  explicit ImmunetReconfigurationStatus(sc_core::sc_module_name name) : sc_module(name) {
    SC_METHOD(check);
    sensitive << m_check;
    dont_initialize();
  }
  const char* kind() const override { return "ftsim_immunet_reconfiguration_status"; }

  /// A router's logic started (+1) or stopped (-1) working.
  void busy_router(int delta) {
    m_busy_routers += delta;
    m_active = true;
  }
  /// A control packet was sent (+1), handled, discarded or lost (-1).
  void packet(int delta) {
    m_packets += delta;
    m_active = true;
  }
  /// Asks for a check after the current delta (called by the routers' logic
  /// at the end of their half-cycle step).
  void poke() { m_check.notify(sc_core::SC_ZERO_TIME); }
  /// Asks for a check after `delay` (a loss outside the second half of a
  /// cycle is checked there, after the routers' logic).
  void poke(const sc_core::sc_time& delay) { m_check.notify(delay); }
  /// A reconfiguration is in progress.
  bool active() const { return m_active; }
  const sc_core::sc_event& over() const { return m_over; }

 private:
  void check() {
    if (m_active && m_busy_routers == 0 && m_packets == 0) {
      m_active = false;
      m_over.notify(sc_core::SC_ZERO_TIME);
    }
  }
  int m_busy_routers = 0;
  long m_packets = 0;
  bool m_active = false;
  sc_core::sc_event m_check;
  sc_core::sc_event m_over;
};

}  // namespace ftsim::hw
