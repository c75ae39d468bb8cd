// Per-router forwarding table (LFT): destination node -> output port.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ftsim::tables {

/// A router's routing memory: one entry per destination node, each an output
/// port or -1 (no route). Entry width is ceil(log2(radix + 1)) bits in
/// hardware; size_bits() reports the memory cost. Words are 32-bit on the
/// management plane (address = destination * 4).
class ForwardingTable {
 public:
  void resize(int destinations, int radix) {
    m_entries.assign(destinations, -1);
    m_radix = radix;
  }
  bool empty() const { return m_entries.empty(); }
  int size() const { return static_cast<int>(m_entries.size()); }
  const std::int32_t* data() const { return m_entries.data(); }
  /// Throws std::out_of_range for a bad destination or port.
  void set(int dest, std::int32_t port) {
    if (dest < 0 || dest >= size()) throw std::out_of_range("forwarding table: destination out of range");
    if (port < -1 || port >= m_radix) throw std::out_of_range("forwarding table: port out of range");
    m_entries[dest] = port;
  }
  std::int32_t get(int dest) const {
    if (dest < 0 || dest >= size()) throw std::out_of_range("forwarding table: destination out of range");
    return m_entries[dest];
  }
  /// Bits of storage: entries x ceil(log2(radix + 1)).
  long size_bits() const {
    int w = 0;
    while ((1 << w) < m_radix + 1) ++w;
    return static_cast<long>(m_entries.size()) * w;
  }

 private:
  std::vector<std::int32_t> m_entries;
  int m_radix = 0;
};

}  // namespace ftsim::tables
