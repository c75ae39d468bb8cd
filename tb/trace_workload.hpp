// Trace-driven traffic with dependencies (issue 53 item 3): a text trace of
// packets, each injected at its cycle but not before every packet it depends
// on has arrived. One TraceEndpoint per node in place of a generator and a
// sink; one TraceController reads the trace and releases the packets.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "hw/immediate_target_socket.hpp"
#include "hw/network_context.hpp"
#include "hw/network_interface.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::tb {

/// One packet of a trace. File format (docs/user-guide.md, traffic.trace):
/// one packet per line, "ID CYCLE SRC DST FLITS [DEP ...]": a unique id
/// (0..2^63), the earliest cycle it may be injected, source and destination
/// node ids, its length in flits (1..4096), and the ids of earlier lines it
/// depends on; '#' starts a comment.
struct TraceRecord {
  std::uint64_t id = 0;
  std::uint64_t cycle = 0;
  routing::NodeId src = 0, dst = 0;
  int flits = 1;
  std::vector<std::size_t> deps;  ///< indices of the records it waits for
};

/// Parses a trace. Throws ConfigError "SOURCE:LINE: why" for a malformed
/// line, a node outside 0..nodes-1, a packet to itself, a repeated id, or a
/// dependency on an id not listed before it (so no cycle can form).
std::vector<TraceRecord> parse_trace(const std::string& text, const std::string& source, int nodes);

/// Parses a Netrace trace (v1.0, little-endian, uncompressed: run bunzip2
/// on a .tra.bz2 first): a 72-byte header (magic 0x484A5455, version 1.0,
/// benchmark name, node count, cycles, packets, notes length, regions),
/// the notes, 24 bytes per region, then per packet a 21-byte record (cycle,
/// id, address, type, source, destination, node types, dependency count)
/// followed by 4-byte packet ids. A Netrace packet lists the packets that
/// wait for it; here each of those depends on it. Lengths come from the
/// packet type (8-byte requests and acknowledgements, 72-byte data
/// messages, as Netrace sizes them) in flits of `flit_bytes`. Throws
/// ConfigError naming the file and the byte offset for a compressed file,
/// a bad magic or version, a truncated record, an unknown packet type, a
/// node beyond `nodes`, or a dependency on a packet the trace lacks.
std::vector<TraceRecord> parse_netrace(const std::string& bytes, const std::string& source, int nodes, int flit_bytes);

/// Reads a trace file in either format: Netrace when it starts with
/// Netrace's magic number, the text format otherwise.
std::vector<TraceRecord> load_trace(const std::string& path, int nodes, int flit_bytes);

class TraceController;

/// One node's endpoint: sends what the controller releases and reports each
/// delivery to it.
class TraceEndpoint : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TraceEndpoint> socket;
  hw::ImmediateTargetSocket<TraceEndpoint> deliveries;
  TraceEndpoint(sc_core::sc_module_name name, TraceController& controller, int flit_bytes);
  /// Queues record `index` at the interface; false when the node refused it (failed).
  bool send(std::size_t index, routing::NodeId dst, int flits);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  TraceController& m_ctl;
  int m_flit_bytes;
  tlm::tlm_generic_payload m_gp;
  hw::MessageTagExtension m_tag;
};

/// Releases each record at max(its cycle, the last arrival among its
/// dependencies) at its source's endpoint. The trace ends when every record
/// was sent and each sent one delivered or dropped, or when the rest can
/// never be sent (a dependency was dropped: `blocked`).
class TraceController : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(TraceController);
  TraceController(sc_core::sc_module_name name, std::vector<TraceRecord> records, const hw::NetworkStats& stats,
                  sc_core::sc_time period);
  void add(TraceEndpoint& e) { m_endpoints.push_back(&e); }
  void delivered(std::size_t index, std::uint64_t cycle);

  struct Times {
    std::uint64_t injected = 0, delivered = 0;
    bool sent = false, arrived = false;
  };
  const std::vector<TraceRecord>& records() const { return m_records; }
  const std::vector<Times>& times() const { return m_times; }
  bool finished() const { return m_finished; }
  std::uint64_t sent() const { return m_sent; }
  std::uint64_t arrived() const { return m_arrived; }
  std::uint64_t lost() const { return m_lost; }
  std::uint64_t blocked() const { return m_records.size() - m_sent_or_refused; }
  std::uint64_t last_delivery() const { return m_last_delivery; }

 private:
  void step();
  std::uint64_t now() const;
  void release(std::size_t index, std::uint64_t at);

  std::vector<TraceRecord> m_records;
  std::vector<std::vector<std::size_t>> m_dependents;
  std::vector<int> m_waiting;  ///< dependencies not arrived yet, per record
  std::vector<Times> m_times;
  const hw::NetworkStats& m_stats;
  sc_core::sc_time m_period;
  std::vector<TraceEndpoint*> m_endpoints;
  using Ready = std::pair<std::uint64_t, std::size_t>;  // (cycle, index)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> m_ready;
  std::uint64_t m_sent = 0, m_sent_or_refused = 0, m_arrived = 0, m_lost = 0, m_last_delivery = 0;
  bool m_finished = false;
  sc_core::sc_event m_wake;
};

}  // namespace ftsim::tb
