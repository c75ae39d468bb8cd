#include "tb/request_reply.hpp"

namespace ftsim::tb {

RequestReplyEndpoint::RequestReplyEndpoint(sc_core::sc_module_name name, routing::NodeId node,
                                           const TrafficPattern& pattern, const TrafficSpec& spec, std::uint64_t seed,
                                           sc_core::sc_time period, const hw::NetworkStats& stats)
    : sc_module(name),
      socket("socket"),
      deliveries("deliveries"),
      m_node(node),
      m_pattern(pattern),
      m_spec(spec),
      m_rng(seed),
      m_period(period),
      m_stats(stats) {
  deliveries.register_b_transport(this, &RequestReplyEndpoint::b_transport);
  // The first requests, at cycle 0 (the process's initialisation run).
  for (int i = 0; i < m_spec.mshrs && more_work(); ++i) schedule(Action{0, false, routing::kNone, 0});
  SC_METHOD(step);
  sensitive << m_wake;
}

std::uint64_t RequestReplyEndpoint::now() const {
  return static_cast<std::uint64_t>(sc_core::sc_time_stamp() / m_period + 0.5);
}

bool RequestReplyEndpoint::more_work() const {
  return !m_no_destination && !m_stopped &&
         (m_spec.requests_per_node == 0 || m_reserved < static_cast<std::uint64_t>(m_spec.requests_per_node));
}

bool RequestReplyEndpoint::finished() const {
  return m_spec.requests_per_node > 0 && !more_work() && m_requests_waiting == 0 && outstanding() == 0;
}

void RequestReplyEndpoint::schedule(const Action& a) {
  if (!a.reply) {
    ++m_requests_waiting;
    ++m_reserved;
  }
  m_actions.push(a);
}

bool RequestReplyEndpoint::send(routing::NodeId dst, int flits, std::uint64_t tag) {
  m_tag.tag = tag;
  m_gp.set_extension(&m_tag);
  const auto status = send_message(socket, m_gp, dst, static_cast<unsigned>(flits * m_spec.flit_bytes));
  m_gp.clear_extension(&m_tag);
  if (status == tlm::TLM_OK_RESPONSE) return true;
  ++m_c.refused;
  if (status == tlm::TLM_GENERIC_ERROR_RESPONSE) m_stopped = true;  // the node failed
  return false;
}

void RequestReplyEndpoint::step() {
  const std::uint64_t c = now();
  while (!m_actions.empty() && m_actions.top().cycle <= c) {
    const Action a = m_actions.top();
    m_actions.pop();
    if (a.reply) {
      if (!m_stopped && send(a.dst, m_spec.reply_flits, a.tag)) ++m_c.replies_sent;
      continue;
    }
    --m_requests_waiting;
    const routing::NodeId home = m_stopped ? routing::kNone : m_pattern.destination(m_node, m_rng);
    if (home == routing::kNone) {
      // No destination (or a failed node): this node has no more requests.
      m_no_destination = !m_stopped;
      --m_reserved;
      continue;
    }
    if (send(home, m_spec.request_flits, 2 * c))
      ++m_c.issued;
    else
      --m_reserved;
  }
  if (!m_actions.empty()) m_wake.notify(m_period * static_cast<double>(m_actions.top().cycle - c));
}

void RequestReplyEndpoint::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& /*delay*/) {
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const auto* ext = gp.get_extension<hw::DeliveryExtension>();
  if (ext == nullptr) return;
  const std::uint64_t c = ext->deliver_cycle;
  if ((ext->tag & 1U) == 0) {  // a request: answer it after the service time
    ++m_c.served;
    schedule(Action{c + static_cast<std::uint64_t>(m_spec.service_cycles), true, ext->src, ext->tag | 1U});
  } else {  // a reply: the slot is free again
    ++m_c.completed;
    m_c.last_completion = c;
    const std::uint64_t issued = ext->tag >> 1;
    if (m_stats.in_window(issued)) {
      ++m_c.window_completed;
      m_round_trips.push_back(static_cast<std::uint32_t>(c - issued));
    }
    if (more_work()) schedule(Action{c + static_cast<std::uint64_t>(m_spec.think_cycles), false, routing::kNone, 0});
  }
  if (!m_actions.empty()) {
    const std::uint64_t at = m_actions.top().cycle;
    m_wake.notify(m_period * static_cast<double>(at > c ? at - c : 0));
  }
}

}  // namespace ftsim::tb
