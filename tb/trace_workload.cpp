#include "tb/trace_workload.hpp"

#include <fmt/format.h>

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
