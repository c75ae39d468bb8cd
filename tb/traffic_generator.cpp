#include "tb/traffic_generator.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "hw/network_interface.hpp"

namespace ftsim::tb {

std::uint64_t derive_seed(std::uint64_t master, std::uint64_t component) {
  std::uint64_t z = master + 0x9E3779B97F4A7C15ULL * (component + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

TrafficGenerator::TrafficGenerator(sc_core::sc_module_name name, routing::NodeId node, const TrafficPattern& pattern,
                                   const TrafficSpec& spec, std::uint64_t seed, sc_core::sc_time period,
                                   InjectionCalendar* calendar)
    : sc_module(name),
      socket("socket"),
      m_node(node),
      m_pattern(pattern),
      m_packet_flits(spec.packet_flits),
      m_packet_flits_long(spec.packet_flits_long),
      m_flit_bytes(spec.flit_bytes),
      m_long_fraction(spec.long_fraction),
      m_rng(seed),
      m_period(period),
      m_prob(spec.load / spec.mean_packet_flits()),
      m_log_no_packet(m_prob < 1.0 ? std::log1p(-m_prob) : 0.0) {
  if (calendar != nullptr) {
    calendar->add(this);
  } else {
    SC_METHOD(fire);  // first activation at time 0 only schedules the first packet
  }
}

std::uint64_t TrafficGenerator::next_gap() {
  if (m_prob >= 1.0) return 1;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double x = 1.0 - u(m_rng);  // (0, 1]
  return 1 + static_cast<std::uint64_t>(std::floor(std::log(x) / m_log_no_packet));
}

std::uint64_t TrafficGenerator::first_gap() {
  return m_stopped ? 0 : next_gap();
}

std::uint64_t TrafficGenerator::fire_packet() {
  if (m_stopped) return 0;
  const routing::NodeId dst = m_pattern.destination(m_node, m_rng);
  int flits = m_packet_flits;
  if (m_packet_flits_long > 0) {
    std::bernoulli_distribution is_long(m_long_fraction);
    if (is_long(m_rng)) flits = m_packet_flits_long;
  }
  if (dst != routing::kNone) {
    const auto status = send_message(socket, m_gp, dst, static_cast<unsigned>(flits * m_flit_bytes));
    if (status == tlm::TLM_OK_RESPONSE)
      ++m_sent;
    else if (status == tlm::TLM_GENERIC_ERROR_RESPONSE)
      m_stopped = true;  // node failed
  }
  return m_stopped ? 0 : next_gap();
}

void TrafficGenerator::fire() {
  // No next_trigger once stopped: the process stays asleep.
  const std::uint64_t gap = m_started ? fire_packet() : first_gap();
  m_started = true;
  if (gap != 0) next_trigger(m_period * static_cast<double>(gap));
}

InjectionCalendar::InjectionCalendar(sc_core::sc_module_name name, sc_core::sc_time period)
    : sc_module(name), m_period(period) {
  SC_METHOD(step);  // first activation at time 0 draws every generator's first gap
}

DueQueue::DueQueue(std::uint32_t generators) {
  m_bits = 1;
  while (m_bits < 32 && (std::uint64_t{1} << m_bits) < generators) ++m_bits;
  m_mask = (std::uint64_t{1} << m_bits) - 1;
}

void DueQueue::push(std::uint64_t cycle, std::uint32_t generator) {
  m_heap.push_back(key(cycle, generator));
  std::push_heap(m_heap.begin(), m_heap.end(), std::greater<>{});
}

void DueQueue::replace_top(std::uint64_t cycle) {
  sift_down(key(cycle, top_generator()));
}

void DueQueue::pop() {
  std::pop_heap(m_heap.begin(), m_heap.end(), std::greater<>{});
  m_heap.pop_back();
}

void DueQueue::sift_down(std::uint64_t k) {
  const std::size_t n = m_heap.size();
  std::size_t i = 0;
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && m_heap[c + 1] < m_heap[c]) ++c;
    if (m_heap[c] >= k) break;
    m_heap[i] = m_heap[c];
    i = c;
  }
  m_heap[i] = k;
}

void InjectionCalendar::step() {
  const std::uint64_t now = sc_core::sc_time_stamp().value() / m_period.value();
  if (!m_started) {
    m_started = true;
    m_due = DueQueue(static_cast<std::uint32_t>(m_generators.size()));
    for (std::uint32_t i = 0; i < m_generators.size(); ++i)
      if (const std::uint64_t gap = m_generators[i]->first_gap(); gap != 0) m_due.push(now + gap, i);
    schedule(now);
    return;
  }
  while (!m_due.empty() && m_due.top_cycle() <= now) {
    if (const std::uint64_t gap = m_generators[m_due.top_generator()]->fire_packet(); gap != 0)
      m_due.replace_top(now + gap);
    else
      m_due.pop();  // stopped: not woken again
  }
  schedule(now);
}

void InjectionCalendar::schedule(std::uint64_t now) {
  if (!m_due.empty()) next_trigger(m_period * static_cast<double>(m_due.top_cycle() - now));
}

void MessageSink::take(const tlm::tlm_generic_payload& gp) {
  ++m_received;
  m_bytes += gp.get_data_length();
  if (record) {
    if (const auto* ext = gp.get_extension<hw::DeliveryExtension>())
      records.push_back(Record{ext->src, ext->hops, ext->deliver_cycle - ext->create_cycle});
  }
}

MessageSinks::MessageSinks(sc_core::sc_module_name name, std::vector<MessageSink>& sinks)
    : sc_module(name), socket("socket"), m_sinks(sinks) {
  socket.register_b_transport(this, &MessageSinks::b_transport);
}

void MessageSinks::b_transport(int /*binding*/, tlm::tlm_generic_payload& gp, sc_core::sc_time& /*delay*/) {
  const sc_dt::uint64 node = gp.get_address();
  if (node >= m_sinks.size()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  m_sinks[static_cast<std::size_t>(node)].take(gp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace ftsim::tb
