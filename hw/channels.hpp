// Lightweight point-to-point channels with a fixed latency in cycles. They
// carry flits and credits between routers (no sc_signal per flit). A value
// written at cycle t with latency L is visible to the reader from cycle t+L;
// since L >= 1, the order in which routers evaluate within a cycle never
// matters (two-phase semantics).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "hw/flit.hpp"

namespace ftsim::hw {

/// The wires of one link direction, as in Immunet's Figure 9: data lines,
/// two request lines and a STOP line. In normal operation req1 marks a head
/// flit and req0 a body or tail flit, so exactly one is asserted per flit;
/// both asserted together never happen in normal operation and signal an
/// emergency, with the EPL (or the all-ones special ACK) on the data lines
/// (Immunet section 5). STOP is driven by the receiver and halts the sender.
struct PhitBundle {
  std::uint32_t data = 0;
  bool req0 = false;
  bool req1 = false;
  bool stop = false;
};

/// An item of a DelayLine and the cycle from which it may be read.
template <typename T>
struct DelayEntry {
  std::uint64_t ready;
  T item;
};

namespace detail {
/// A DelayLine's bookkeeping, a base placed before its inline entries, so
/// that reading the line (its count, head and first entries) starts in one
/// cache line.
template <typename E>
struct DelayHeader {
  DelayHeader(E* buf, std::uint32_t mask, std::uint32_t capacity) : m_buf(buf), m_mask(mask), m_capacity(capacity) {}
  E* m_buf;                  ///< the inline entries or m_heap; nullptr: none yet
  std::uint32_t m_mask;      ///< capacity - 1 (capacity a power of two)
  std::uint32_t m_capacity;  ///< entries the storage holds (0: none yet)
  std::uint32_t m_head = 0;
  std::uint32_t m_count = 0;
  std::unique_ptr<E[]> m_heap;  ///< storage beyond the inline entries
};
/// The first `N` entries of a DelayLine, inside the line itself (none: an
/// empty base, so that a line without them costs no byte).
template <typename E, std::uint32_t N>
struct InlineEntries {
  E* inline_entries() { return m_items; }
  E m_items[N];
};
template <typename E>
struct InlineEntries<E, 0> {
  E* inline_entries() { return nullptr; }
};
}  // namespace detail

/// FIFO of timestamped items; capacity grows as needed (bounded in practice by
/// latency x 1 item per cycle per VC). The capacity is a power of two kept as
/// its mask, so that an index is one AND (a vector's size() divides by the
/// entry size on every access). `Inline` (0 or a power of two): entries held
/// inside the line until it needs more, so that reading a short line (a
/// link's flits and credits) touches the line's own cache lines only.
template <typename T, std::uint32_t Inline = 0>
class DelayLine : private detail::DelayHeader<DelayEntry<T>>, private detail::InlineEntries<DelayEntry<T>, Inline> {
  static_assert((Inline & (Inline - 1)) == 0, "Inline must be 0 or a power of two");
  using Header = detail::DelayHeader<DelayEntry<T>>;
  using Header::m_buf;
  using Header::m_capacity;
  using Header::m_count;
  using Header::m_head;
  using Header::m_heap;
  using Header::m_mask;

 public:
  using Entry = DelayEntry<T>;
  DelayLine() : Header(nullptr, Inline == 0 ? 0 : Inline - 1, Inline) { m_buf = this->inline_entries(); }
  DelayLine(const DelayLine& o) : DelayLine() { *this = o; }
  DelayLine(DelayLine&& o) noexcept : DelayLine() { *this = std::move(o); }
  DelayLine& operator=(const DelayLine& o) {
    if (this == &o) return *this;
    reserve(o.m_capacity);
    m_head = 0;
    m_count = o.m_count;
    for (std::uint32_t i = 0; i < m_count; ++i) m_buf[i] = o.at(i);
    return *this;
  }
  DelayLine& operator=(DelayLine&& o) noexcept {
    if (this == &o) return *this;
    if (o.m_heap) {  // take its storage
      m_heap = std::move(o.m_heap);
      m_buf = m_heap.get();
      m_mask = o.m_mask;
      m_capacity = o.m_capacity;
      m_head = o.m_head;
      m_count = o.m_count;
    } else {  // its entries are inline: copy them into ours
      m_heap.reset();
      m_buf = this->inline_entries();
      m_mask = Inline == 0 ? 0 : Inline - 1;
      m_capacity = Inline;
      m_head = 0;
      m_count = o.m_count;
      for (std::uint32_t i = 0; i < m_count; ++i) m_buf[i] = o.at(i);
    }
    o.m_buf = o.inline_entries();
    o.m_mask = Inline == 0 ? 0 : Inline - 1;
    o.m_capacity = Inline;
    o.m_head = o.m_count = 0;
    return *this;
  }
  ~DelayLine() = default;

  /// Appends `item`, due at cycle `ready`; returns the stored copy (valid
  /// until the next push or pop).
  T& push(std::uint64_t ready, const T& item) {
    if (m_count == m_capacity) reserve(m_capacity == 0 ? 8 : 2 * m_capacity);
    Entry& e = m_buf[(m_head + m_count) & m_mask];
    e.ready = ready;
    e.item = item;
    ++m_count;
    return e.item;
  }
  bool ready(std::uint64_t now) const { return m_count != 0 && m_buf[m_head].ready <= now; }
  const Entry& front() const { return m_buf[m_head]; }
  void pop() {
    m_head = (m_head + 1) & m_mask;
    --m_count;
  }
  /// pop(), returning the entries left.
  std::uint32_t pop_left() {
    m_head = (m_head + 1) & m_mask;
    return --m_count;
  }
  bool empty() const { return m_count == 0; }
  std::size_t size() const { return m_count; }
  /// The entry count itself, for a VCD to trace (an input queue's
  /// `occupancy` line) without a second counter kept beside it.
  const std::uint32_t& count() const { return m_count; }
  const Entry& at(std::size_t i) const { return m_buf[(m_head + i) & m_mask]; }
  void clear() { m_head = m_count = 0; }

 private:
  /// Grows the storage to `cap` entries (a power of two), keeping the items.
  void reserve(std::uint32_t cap) {
    if (cap <= m_capacity) return;
    std::unique_ptr<Entry[]> nb(new Entry[cap]);
    for (std::uint32_t i = 0; i < m_count; ++i) nb[i] = at(i);
    m_heap = std::move(nb);
    m_buf = m_heap.get();
    m_mask = cap - 1;
    m_capacity = cap;
    m_head = 0;
  }
};

class Router;

/// A credit for input VC `vc` (0..15) and, with router.voq: per_output, for
/// the virtual output queue of output port `lane` (-1: the shared pool).
constexpr std::uint16_t credit_code(int vc, int lane) {
  return static_cast<std::uint16_t>(vc + 16 * (lane + 1));
}
constexpr int credit_vc(std::uint16_t code) {
  return code & 15;
}
constexpr int credit_lane(std::uint16_t code) {
  return (code >> 4) - 1;
}

/// One direction of a link: flits downstream, credits (VC ids) upstream, and
/// the phit bundle that the wave view shows.
struct alignas(64) LinkDirection {
  /// Read access; writes go through push_flit/pop_flit/push_credit/
  /// pop_credit/clear, which keep the readers' port sets.
  const DelayLine<Flit, 4>& flits() const { return m_flits; }
  /// Credit codes: VC + 16 x (lane + 1) (credit_code), lane -1 for the
  /// VC's shared pool.
  const DelayLine<std::uint16_t, 2>& credits() const { return m_credits; }

  // Layout (issue 54, cache lines): what a flit's write and read touch
  // first (the failure flag, the receiver's port set and the flit line's
  // bookkeeping share the first cache line, its four inline entries the
  // next), then the credit line with its port set and the sender, then the
  // rest.
  bool failed = false;
  bool alive = true;       ///< traced: !failed (set together with failed)
  int receiver_port = -1;  ///< the receiving router's input port (router.voq: per_output look-ahead)
  /// Per-router port sets of the routers that read this link: bit
  /// `flit_bit` of *flit_ports is set while flits are queued (the router that
  /// receives them, or ticks the network interface that does), bit
  /// `credit_bit` of *credit_ports while credits are queued (the sender), so
  /// a router visits only the ports with something to read.
  std::uint64_t flit_bit = 0;
  std::uint64_t* flit_ports = &s_unwatched;
  Router* receiver = nullptr;  ///< woken when a flit is written

 private:
  // Entries inline, so that reads stay in the direction's own lines: with
  // the default latencies a link holds up to four flits in flight (sent at
  // c..c+3, the first read at c+3) and, from a multiplexed crossbar, two
  // credits (one per cycle, one cycle each); more go to the heap.
  DelayLine<Flit, 4> m_flits;
  DelayLine<std::uint16_t, 2> m_credits;

 public:
  std::uint64_t credit_bit = 0;
  std::uint64_t* credit_ports = &s_unwatched;
  Router* sender = nullptr;  ///< the router writing the flits (a credit does not wake it; a link failure does)
  PhitBundle bundle;
  int link_id = -1;  ///< topology link id, -1 for NI attachments of direct networks
  /// The receiving router's energy counter of buffer writes from its
  /// network interfaces (NetworkStats::node_arrivals), counted per flit a
  /// network interface writes; a shared scratch when the receiver is no
  /// router or no counters are kept. (Flits from routers are counted by
  /// the sender's output unit, OutputUnit::flits_sent.)
  std::uint64_t* arrivals = &s_unwatched;

  /// Sends flit f, due at the receiver at cycle `ready`; returns the link's
  /// copy (valid until the next push or pop).
  Flit& push_flit(std::uint64_t ready, const Flit& f) {
    *flit_ports |= flit_bit;
    return m_flits.push(ready, f);
  }
  void pop_flit() {
    m_flits.pop();
    if (m_flits.empty()) *flit_ports &= ~flit_bit;
  }
  void push_credit(std::uint64_t ready, std::uint16_t code) {
    m_credits.push(ready, code);
    *credit_ports |= credit_bit;
  }
  void pop_credit() {
    m_credits.pop();
    if (m_credits.empty()) *credit_ports &= ~credit_bit;
  }
  /// pop_flit() / pop_credit(), then whether the next entry is readable at
  /// cycle `now`: a receive loop's test without reading the count again. (A
  /// reader's port bit is set exactly while its line holds entries, so a
  /// loop over set bits may read front() before its first pop.)
  bool pop_flit_next_ready(std::uint64_t now) {
    if (m_flits.pop_left() == 0) {
      *flit_ports &= ~flit_bit;
      return false;
    }
    return m_flits.front().ready <= now;
  }
  bool pop_credit_next_ready(std::uint64_t now) {
    if (m_credits.pop_left() == 0) {
      *credit_ports &= ~credit_bit;
      return false;
    }
    return m_credits.front().ready <= now;
  }
  void clear_flits() {
    m_flits.clear();
    *flit_ports &= ~flit_bit;
  }
  void clear() {
    m_flits.clear();
    m_credits.clear();
    *flit_ports &= ~flit_bit;
    *credit_ports &= ~credit_bit;
  }

 private:
  static inline std::uint64_t s_unwatched = 0;  ///< written, never read: links nobody watches
};

}  // namespace ftsim::hw
