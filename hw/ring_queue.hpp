// A double-ended FIFO on a ring that allocates only when used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <type_traits>

namespace ftsim::hw {

/// FIFO of trivially copyable items on a power-of-two ring: push at either
/// end, pop at the front, read by position from the front. Storage is
/// allocated on the first push and doubles when full (8 items first).
///
/// Why not std::deque: libstdc++'s deque allocates its map and a 512-byte
/// block at construction, about 0.6 KB per network interface before any
/// packet is queued (issue 54, memory of a 32x32 mesh). Used for the
/// interfaces' source queues (PacketStore ids).
template <typename T>
class RingQueue {
  static_assert(std::is_trivially_copyable_v<T>, "RingQueue holds trivially copyable items");

 public:
  bool empty() const { return m_count == 0; }
  std::size_t size() const { return m_count; }
  /// Items the storage holds before it grows (0 before the first push).
  std::size_t capacity() const { return m_capacity; }
  /// The oldest item; precondition: !empty().
  const T& front() const { return m_buf[m_head]; }
  /// Item i from the front, i in 0..size()-1 (unchecked).
  const T& operator[](std::size_t i) const { return m_buf[(m_head + i) & m_mask]; }

  void push_back(const T& item) {
    if (m_count == m_capacity) grow();
    m_buf[(m_head + m_count) & m_mask] = item;
    ++m_count;
  }
  /// Puts an item back at the head (it leaves first).
  void push_front(const T& item) {
    if (m_count == m_capacity) grow();
    m_head = (m_head - 1) & m_mask;
    m_buf[m_head] = item;
    ++m_count;
  }
  /// Precondition: !empty().
  void pop_front() {
    m_head = (m_head + 1) & m_mask;
    --m_count;
  }
  /// Empties the queue; the storage stays.
  void clear() { m_head = m_count = 0; }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator(const RingQueue* q, std::size_t i) : m_q(q), m_i(i) {}
    reference operator*() const { return (*m_q)[m_i]; }
    const_iterator& operator++() {
      ++m_i;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++m_i;
      return old;
    }
    bool operator==(const const_iterator& o) const { return m_i == o.m_i && m_q == o.m_q; }
    bool operator!=(const const_iterator& o) const { return !(*this == o); }

   private:
    const RingQueue* m_q;
    std::size_t m_i;
  };
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, m_count); }

 private:
  void grow() {
    const std::uint32_t cap = m_capacity == 0 ? 8 : 2 * m_capacity;
    std::unique_ptr<T[]> nb(new T[cap]);
    for (std::uint32_t i = 0; i < m_count; ++i) nb[i] = (*this)[i];
    m_buf = std::move(nb);
    m_mask = cap - 1;
    m_capacity = cap;
    m_head = 0;
  }
  std::unique_ptr<T[]> m_buf;
  std::uint32_t m_mask = 0;
  std::uint32_t m_capacity = 0;
  std::uint32_t m_head = 0;
  std::uint32_t m_count = 0;
};

}  // namespace ftsim::hw
