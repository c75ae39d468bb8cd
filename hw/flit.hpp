// Flit and the per-packet record it points to.
#pragma once
#include <systemc>

#include <cstdint>
#include <string>

namespace ftsim::hw {

/// One flow-control unit, 8 bytes: the packet id, the sequence number and
/// the head and tail flags in 16 bits, the VC and the lane a byte each, so that a FIFO or
/// link entry (arrival cycle plus flit) is 16 bytes (issue 54: the 8x8x8
/// run is bound by the misses of the input FIFOs and link lines). Flits
/// carry a packet id; the header itself lives in the PacketStore (the head
/// flit "is" the header).
struct Flit {
  std::uint32_t packet = 0;  ///< PacketStore id
  std::uint16_t seq : 13;    ///< 0 = head (packets of at most kMaxFlits flits)
  std::uint16_t head : 1;
  std::uint16_t tail : 1;
  std::uint8_t vc = 0;  ///< VC at the receiving input port
  /// router.voq: per_output: the output port of the receiving router whose
  /// virtual output queue (of VC `vc`) holds this packet, chosen by the
  /// sender's look-ahead; -1: the VC's shared pool.
  std::int8_t lane = -1;
  /// The longest packet a flit's sequence number counts (traffic.packet_flits
  /// <= 4,096, plus the intermediate-nodes subheaders).
  static constexpr int kMaxFlits = 1 << 13;
  Flit() : seq(0), head(0), tail(0) {}
  bool operator==(const Flit& o) const {
    return packet == o.packet && seq == o.seq && vc == o.vc && head == o.head && tail == o.tail && lane == o.lane;
  }
};
static_assert(sizeof(Flit) == 8, "a flit is 8 bytes");

/// The flit an output port sent this cycle, as shown in waves: the flit's
/// fields (unpacked, so that VCD tracing can refer to each) plus its
/// packet's source and destination node and its kind.
struct TracedFlit {
  /// kind values (waves/filters/flit_kind.txt names them).
  enum Kind : std::uint8_t { kNone = 0, kHead = 1, kBody = 2, kTail = 3, kHeadTail = 4 };
  std::uint32_t packet = 0;
  std::uint16_t seq = 0;
  std::uint8_t vc = 0;
  bool head = false;
  bool tail = false;
  bool valid = false;     ///< false: no flit was sent this cycle
  std::int32_t src = -1;  ///< source node, -1 when no flit was sent
  std::int32_t dst = -1;  ///< destination node, -1 when no flit was sent
  std::uint8_t kind = kNone;
  static std::uint8_t kind_of(const Flit& f) {
    return f.head ? (f.tail ? kHeadTail : kHead) : (f.tail ? kTail : kBody);
  }
  /// Records flit f (valid) of a packet from node `from` to node `to`.
  void set(const Flit& f, std::int32_t from, std::int32_t to) {
    packet = f.packet;
    seq = static_cast<std::uint16_t>(f.seq);
    vc = static_cast<std::uint8_t>(f.vc);
    head = f.head != 0;
    tail = f.tail != 0;
    valid = true;
    src = from;
    dst = to;
    kind = kind_of(f);
  }
};

/// VCD tracing of a traced flit's fields under "name.packet", "name.seq",
/// "name.vc", "name.head", "name.tail", "name.valid", "name.src", "name.dst"
/// and "name.kind".
void sc_trace(sc_core::sc_trace_file* tf, const TracedFlit& f, const std::string& name);

}  // namespace ftsim::hw
