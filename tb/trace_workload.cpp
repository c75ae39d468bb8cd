#include "tb/trace_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "common/text_input.hpp"
#include "tb/traffic_generator.hpp"

namespace ftsim::tb {

std::vector<TraceRecord> parse_trace(const std::string& text, const std::string& source, int nodes) {
  std::vector<TraceRecord> out;
  std::unordered_map<std::uint64_t, std::size_t> index_of;
  LineReader lines(text, source);
  std::string_view line;
  while (lines.next(&line)) {
    Scanner sc(line);
    sc.skip_blanks();
    if (sc.at_end() || sc.eat("#")) continue;
    auto field = [&](const char* what, std::uint64_t max) {
      sc.skip_blanks();
      const auto d = sc.digits();
      const auto v = parse_unsigned(d, 10, max);
      if (!v)
        throw lines.error(fmt::format("{} '{}': expected 0..{} (a line is \"ID CYCLE SRC DST FLITS [DEP ...]\")", what,
                                      shown(d.empty() ? sc.rest() : d), max));
      return *v;
    };
    TraceRecord r;
    r.id = field("id", (std::uint64_t{1} << 63) - 1);
    r.cycle = field("cycle", std::uint64_t{1} << 40);
    r.src = static_cast<routing::NodeId>(field("source node", static_cast<std::uint64_t>(nodes - 1)));
    r.dst = static_cast<routing::NodeId>(field("destination node", static_cast<std::uint64_t>(nodes - 1)));
    r.flits = static_cast<int>(field("flits", 4096));
    if (r.flits == 0) throw lines.error("flits 0: a packet has 1..4096 flits");
    if (r.src == r.dst) throw lines.error(fmt::format("packet {} goes from node {} to itself", r.id, r.src));
    while (!sc.at_end()) {
      const std::uint64_t dep = field("dependency", (std::uint64_t{1} << 63) - 1);
      const auto it = index_of.find(dep);
      if (it == index_of.end())
        throw lines.error(fmt::format("packet {} depends on {}, which is not listed before it", r.id, dep));
      r.deps.push_back(it->second);
    }
    if (!index_of.emplace(r.id, out.size()).second) throw lines.error(fmt::format("id {} is listed twice", r.id));
    out.push_back(std::move(r));
  }
  if (out.empty()) throw ConfigError(fmt::format("{}: the trace has no packets", source));
  return out;
}

namespace {

/// Little-endian fields of a byte string, with the offset for errors.
class ByteReader {
 public:
  ByteReader(const std::string& b, std::string source) : m_b(b), m_source(std::move(source)) {}
  bool at_end() const { return m_pos >= m_b.size(); }
  std::size_t offset() const { return m_pos; }
  std::uint64_t u(int bytes, const char* what) {
    if (m_pos + static_cast<std::size_t>(bytes) > m_b.size())
      throw ConfigError(fmt::format("{}: byte {}: the file ends inside {} (truncated?)", m_source, m_pos, what));
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(m_b[m_pos + static_cast<std::size_t>(i)])) << (8 * i);
    m_pos += static_cast<std::size_t>(bytes);
    return v;
  }
  void skip(std::size_t n, const char* what) {
    if (m_pos + n > m_b.size())
      throw ConfigError(fmt::format("{}: byte {}: the file ends inside {} (truncated?)", m_source, m_pos, what));
    m_pos += n;
  }

 private:
  const std::string& m_b;
  std::string m_source;
  std::size_t m_pos = 0;
};

constexpr std::uint32_t kNetraceMagic = 0x484A5455;

/// Netrace packet sizes in bytes by type (its 31 types; 0 = not a packet).
int netrace_bytes(unsigned type) {
  switch (type) {
    case 1:
    case 5:
    case 13:
    case 14:
    case 15:
    case 25:
    case 27:
    case 28:
    case 29:
      return 8;  // requests, acknowledgements, errors, invalidations
    case 2:
    case 3:
    case 4:
    case 6:
    case 16:
    case 30:
      return 72;  // data: read responses, writes, writebacks, downgrade responses
    default:
      return 0;
  }
}

}  // namespace

std::vector<TraceRecord> parse_netrace(const std::string& bytes, const std::string& source, int nodes, int flit_bytes) {
  if (bytes.rfind("BZh", 0) == 0)
    throw ConfigError(fmt::format("{}: a bzip2-compressed file; decompress it first (bunzip2 -k {})", source, source));
  ByteReader in(bytes, source);
  if (in.u(4, "the header") != kNetraceMagic)
    throw ConfigError(fmt::format("{}: not a Netrace trace (bad magic number)", source));
  const std::uint64_t version_bits = in.u(4, "the header");
  float version = 0;
  static_assert(sizeof(float) == 4);
  const auto vb = static_cast<std::uint32_t>(version_bits);
  std::memcpy(&version, &vb, 4);
  if (version != 1.0f) throw ConfigError(fmt::format("{}: Netrace version {} (only 1.0 is read)", source, version));
  in.skip(30, "the header");  // benchmark name
  const auto trace_nodes = static_cast<int>(in.u(1, "the header"));
  in.skip(1 + 8 + 8, "the header");  // padding, cycles, packets
  const auto notes = in.u(4, "the header");
  const auto regions = in.u(4, "the header");
  in.skip(8, "the header");
  if (trace_nodes > nodes)
    throw ConfigError(fmt::format("{}: the trace has {} nodes, the network {}", source, trace_nodes, nodes));
  if (notes >= 8192 || regions > 100)
    throw ConfigError(
        fmt::format("{}: header with {} bytes of notes and {} regions (at most 8191, 100)", source, notes, regions));
  in.skip(static_cast<std::size_t>(notes), "the notes");
  in.skip(static_cast<std::size_t>(regions) * 24, "the regions");
  std::vector<TraceRecord> out;
  std::vector<std::vector<std::uint64_t>> waiters;  // per record: ids of the packets that wait for it
  std::unordered_map<std::uint64_t, std::size_t> index_of;
  while (!in.at_end()) {
    const std::size_t at = in.offset();
    TraceRecord r;
    r.cycle = in.u(8, "a packet");
    r.id = in.u(4, "a packet");
    in.u(4, "a packet");  // address
    const auto type = static_cast<unsigned>(in.u(1, "a packet"));
    r.src = static_cast<routing::NodeId>(in.u(1, "a packet"));
    r.dst = static_cast<routing::NodeId>(in.u(1, "a packet"));
    in.u(1, "a packet");  // node types
    const auto deps = in.u(1, "a packet");
    const int b = netrace_bytes(type);
    if (b == 0)
      throw ConfigError(fmt::format("{}: byte {}: packet {} has type {}, not a packet type", source, at, r.id, type));
    if (r.src >= nodes || r.dst >= nodes)
      throw ConfigError(fmt::format("{}: byte {}: packet {} from node {} to {}; the network has nodes 0..{}", source,
                                    at, r.id, r.src, r.dst, nodes - 1));
    r.flits = std::max(1, (b + flit_bytes - 1) / flit_bytes);
    std::vector<std::uint64_t> w;
    for (std::uint64_t i = 0; i < deps; ++i) w.push_back(in.u(4, "a dependency list"));
    if (r.src == r.dst) continue;  // a node's message to itself never enters the network
    if (!index_of.emplace(r.id, out.size()).second)
      throw ConfigError(fmt::format("{}: byte {}: packet id {} appears twice", source, at, r.id));
    out.push_back(std::move(r));
    waiters.push_back(std::move(w));
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::uint64_t id : waiters[i]) {
      const auto it = index_of.find(id);
      if (it == index_of.end()) continue;  // a waiter that never enters the network (to itself) or is cut off
      out[it->second].deps.push_back(i);
    }
  if (out.empty()) throw ConfigError(fmt::format("{}: the trace has no packets between distinct nodes", source));
  return out;
}

std::vector<TraceRecord> load_trace(const std::string& path, int nodes, int flit_bytes) {
  const std::string bytes = read_text_file(path, "trace file");
  if (bytes.size() >= 4 && static_cast<unsigned char>(bytes[0]) == 0x55 &&
      static_cast<unsigned char>(bytes[1]) == 0x54 && static_cast<unsigned char>(bytes[2]) == 0x4A &&
      static_cast<unsigned char>(bytes[3]) == 0x48)
    return parse_netrace(bytes, path, nodes, flit_bytes);
  if (bytes.rfind("BZh", 0) == 0) return parse_netrace(bytes, path, nodes, flit_bytes);  // the error says what to do
  return parse_trace(bytes, path, nodes);
}

TraceEndpoint::TraceEndpoint(sc_core::sc_module_name name, TraceController& controller, int flit_bytes)
    : sc_module(name), socket("socket"), deliveries("deliveries"), m_ctl(controller), m_flit_bytes(flit_bytes) {
  deliveries.register_b_transport(this, &TraceEndpoint::b_transport);
}

bool TraceEndpoint::send(std::size_t index, routing::NodeId dst, int flits) {
  m_tag.tag = static_cast<std::uint64_t>(index);
  m_gp.set_extension(&m_tag);
  const auto status = send_message(socket, m_gp, dst, static_cast<unsigned>(flits * m_flit_bytes));
  m_gp.clear_extension(&m_tag);
  return status == tlm::TLM_OK_RESPONSE;
}

void TraceEndpoint::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& /*delay*/) {
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (const auto* ext = gp.get_extension<hw::DeliveryExtension>())
    m_ctl.delivered(static_cast<std::size_t>(ext->tag), ext->deliver_cycle);
}

TraceController::TraceController(sc_core::sc_module_name name, std::vector<TraceRecord> records,
                                 const hw::NetworkStats& stats, sc_core::sc_time period)
    : sc_module(name),
      m_records(std::move(records)),
      m_dependents(m_records.size()),
      m_waiting(m_records.size(), 0),
      m_times(m_records.size()),
      m_stats(stats),
      m_period(period) {
  for (std::size_t i = 0; i < m_records.size(); ++i) {
    m_waiting[i] = static_cast<int>(m_records[i].deps.size());
    for (std::size_t d : m_records[i].deps) m_dependents[d].push_back(i);
    if (m_waiting[i] == 0) m_ready.emplace(m_records[i].cycle, i);
  }
  SC_METHOD(step);
  sensitive << m_wake;
}

std::uint64_t TraceController::now() const {
  return static_cast<std::uint64_t>(sc_core::sc_time_stamp() / m_period + 0.5);
}

void TraceController::release(std::size_t index, std::uint64_t at) {
  m_ready.emplace(std::max(at, m_records[index].cycle), index);
  m_wake.notify(sc_core::SC_ZERO_TIME);
}

void TraceController::delivered(std::size_t index, std::uint64_t cycle) {
  if (index >= m_records.size() || m_times[index].arrived) return;
  m_times[index].arrived = true;
  m_times[index].delivered = cycle;
  ++m_arrived;
  m_last_delivery = std::max(m_last_delivery, cycle);
  for (std::size_t d : m_dependents[index])
    if (--m_waiting[d] == 0) release(d, cycle);
  m_wake.notify(sc_core::SC_ZERO_TIME);
}

void TraceController::step() {
  if (m_finished) return;
  const std::uint64_t c = now();
  while (!m_ready.empty() && m_ready.top().first <= c) {
    const std::size_t i = m_ready.top().second;
    m_ready.pop();
    const TraceRecord& r = m_records[i];
    ++m_sent_or_refused;
    if (m_endpoints[static_cast<std::size_t>(r.src)]->send(i, r.dst, r.flits)) {
      m_times[i].sent = true;
      m_times[i].injected = c;
      ++m_sent;
    }
  }
  // Packets in flight belong to this trace only: its losses are the drops.
  m_lost = m_stats.dropped_total();
  if (m_ready.empty() && m_arrived + m_lost >= m_sent) {
    // Nothing queued and nothing in flight: whatever is left waits for a
    // dependency that was dropped (or nothing is left).
    m_finished = true;
    return;
  }
  if (!m_ready.empty() && m_arrived + m_lost >= m_sent)
    m_wake.notify(m_period * static_cast<double>(m_ready.top().first - c));
  else
    m_wake.notify(m_period);  // packets in flight: look again next cycle
}

}  // namespace ftsim::tb
