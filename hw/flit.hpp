// Flit and the per-packet record it points to.
#pragma once
#include <systemc>

#include <cstdint>
#include <string>

namespace ftsim::hw {

/// One flow-control unit. Flits carry a packet id; the header itself lives in
/// the PacketStore (the head flit "is" the header).
struct Flit {
  std::uint32_t packet = 0;  ///< PacketStore id
  std::uint16_t seq = 0;     ///< 0 = head
  std::uint8_t vc = 0;       ///< VC at the receiving input port
  bool head = false;
  bool tail = false;
  bool valid = false;  ///< for traced "last flit" registers only
  bool operator==(const Flit& o) const {
    return packet == o.packet && seq == o.seq && vc == o.vc && head == o.head && tail == o.tail && valid == o.valid;
  }
};

/// VCD tracing of a flit's fields under "name.packet", "name.seq", ...
void sc_trace(sc_core::sc_trace_file* tf, const Flit& f, const std::string& name);

}  // namespace ftsim::hw
