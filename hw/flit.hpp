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
  /// router.voq: per_output: the output port of the receiving router whose
  /// virtual output queue (of VC `vc`) holds this packet, chosen by the
  /// sender's look-ahead; -1: the VC's shared pool.
  std::int8_t lane = -1;
  bool operator==(const Flit& o) const {
    return packet == o.packet && seq == o.seq && vc == o.vc && head == o.head && tail == o.tail && valid == o.valid &&
           lane == o.lane;
  }
};

/// The flit an output port sent this cycle, as shown in waves: the flit's
/// fields plus its packet's source and destination node and its kind.
struct TracedFlit {
  /// kind values (waves/filters/flit_kind.txt names them).
  enum Kind : std::uint8_t { kNone = 0, kHead = 1, kBody = 2, kTail = 3, kHeadTail = 4 };
  Flit flit;
  std::int32_t src = -1;  ///< source node, -1 when no flit was sent
  std::int32_t dst = -1;  ///< destination node, -1 when no flit was sent
  std::uint8_t kind = kNone;
  static std::uint8_t kind_of(const Flit& f) {
    return f.head ? (f.tail ? kHeadTail : kHead) : (f.tail ? kTail : kBody);
  }
};

/// VCD tracing of a flit's fields under "name.packet", "name.seq", ...
void sc_trace(sc_core::sc_trace_file* tf, const Flit& f, const std::string& name);
/// The same plus "name.src", "name.dst" and "name.kind".
void sc_trace(sc_core::sc_trace_file* tf, const TracedFlit& f, const std::string& name);

}  // namespace ftsim::hw
