#include "tb/phases.hpp"

#include <cmath>

#include "tb/traffic_generator.hpp"

namespace ftsim::tb {

PhaseEndpoint::PhaseEndpoint(sc_core::sc_module_name name, routing::NodeId node, PhaseController& controller,
                             std::uint64_t seed, sc_core::sc_time period)
    : sc_module(name),
      socket("socket"),
      deliveries("deliveries"),
      m_node(node),
      m_ctl(controller),
      m_rng(seed),
      m_period(period) {
  deliveries.register_b_transport(this, &PhaseEndpoint::b_transport);
  SC_METHOD(step);
  sensitive << m_wake;
  dont_initialize();
}

std::uint64_t PhaseEndpoint::now() const {
  return static_cast<std::uint64_t>(sc_core::sc_time_stamp() / m_period + 0.5);
}

void PhaseEndpoint::start(std::size_t phase, std::uint64_t cycle) {
  const PhaseSpec& p = m_ctl.phase_spec(phase);
  m_phase = phase;
  m_left = m_failed ? 0 : p.packets_per_node;
  m_index = 0;
  m_interval = static_cast<std::uint64_t>(std::max(1.0, std::ceil(p.packet_flits / p.load - 1e-9)));
  m_next = cycle + static_cast<std::uint64_t>(p.compute_cycles);
  if (m_left == 0) {
    m_ctl.node_done(phase);
    return;
  }
  m_wake.notify(m_period * static_cast<double>(m_next - cycle));
}

void PhaseEndpoint::step() {
  const std::uint64_t c = now();
  const PhaseSpec& p = m_ctl.phase_spec(m_phase);
  while (m_left > 0 && m_next <= c) {
    const routing::NodeId dst = m_failed ? routing::kNone : m_ctl.destination(m_phase, m_node, m_index, m_rng);
    if (dst == routing::kNone) {
      m_left = 0;  // nothing (more) to send in this phase
      break;
    }
    m_tag.tag = static_cast<std::uint64_t>(m_phase);
    m_gp.set_extension(&m_tag);
    const auto status = send_message(socket, m_gp, dst, static_cast<unsigned>(p.packet_flits * m_ctl.flit_bytes()));
    m_gp.clear_extension(&m_tag);
    if (status == tlm::TLM_OK_RESPONSE) {
      m_ctl.sent(m_phase);
    } else if (status == tlm::TLM_GENERIC_ERROR_RESPONSE) {
      m_failed = true;  // the node failed: it sends nothing more
      m_left = 0;
      break;
    }
    --m_left;
    ++m_index;
    m_next += m_interval;
  }
  if (m_left == 0) {
    m_ctl.node_done(m_phase);
    return;
  }
  m_wake.notify(m_period * static_cast<double>(m_next - c));
}

void PhaseEndpoint::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& /*delay*/) {
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const auto* ext = gp.get_extension<hw::DeliveryExtension>();
  if (ext == nullptr) return;
  if (m_from.empty()) m_from.assign(64, 0);
  if (static_cast<std::size_t>(ext->src) >= m_from.size()) m_from.resize(static_cast<std::size_t>(ext->src) + 1, 0);
  ++m_from[static_cast<std::size_t>(ext->src)];
  m_ctl.delivered(static_cast<std::size_t>(ext->tag));
}

PhaseController::PhaseController(sc_core::sc_module_name name, const routing::Topology& topo, const TrafficSpec& spec,
                                 const hw::NetworkStats& stats, sc_core::sc_time period)
    : sc_module(name), m_topo(topo), m_spec(spec), m_stats(stats), m_period(period), m_phases(spec.phases.size()) {
  for (const auto& p : m_spec.phases) {
    if (p.pattern == "all_to_all") {
      m_patterns.push_back(nullptr);
      continue;
    }
    TrafficSpec one = m_spec;
    one.kind = "open_loop";
    one.pattern = p.pattern;
    m_patterns.push_back(std::make_unique<TrafficPattern>(topo, one));
  }
  m_comp.assign(static_cast<std::size_t>(topo.num_nodes()), 0);
  SC_METHOD(step);
  sensitive << m_wake;
}

std::uint64_t PhaseController::now() const {
  return static_cast<std::uint64_t>(sc_core::sc_time_stamp() / m_period + 0.5);
}

void PhaseController::set_components(const std::vector<int>& comp) {
  m_comp = comp;
  for (auto& p : m_patterns)
    if (p) p->set_components(comp);
}

routing::NodeId PhaseController::destination(std::size_t k, routing::NodeId src, std::int64_t index,
                                             std::mt19937_64& rng) const {
  if (m_patterns[k]) return m_patterns[k]->destination(src, rng);
  // all_to_all: the live nodes of src's component after src, in turn.
  const int n = m_topo.num_nodes();
  const int mine = m_comp[static_cast<std::size_t>(src)];
  if (mine < 0) return routing::kNone;
  std::vector<routing::NodeId> others;
  for (int i = 1; i < n; ++i) {
    const routing::NodeId d = (src + i) % n;
    if (m_comp[static_cast<std::size_t>(d)] == mine) others.push_back(d);
  }
  if (others.empty()) return routing::kNone;
  return others[static_cast<std::size_t>(index) % others.size()];
}

void PhaseController::node_done(std::size_t k) {
  if (k != m_current) return;
  if (++m_nodes_done == m_endpoints.size()) {
    m_phases[k].sends_done = now();
    m_draining = true;
    m_wake.notify(sc_core::SC_ZERO_TIME);
  }
}

void PhaseController::delivered(std::size_t k) {
  if (k < m_phases.size()) ++m_phases[k].delivered;
}

void PhaseController::step() {
  const std::uint64_t c = now();
  if (m_current >= m_phases.size()) return;
  if (!m_draining && !m_phases[m_current].done && m_nodes_done == 0 && c >= m_next_start) {
    // Start the current phase.
    Phase& ph = m_phases[m_current];
    ph.start = c;
    m_dropped_at_start = m_stats.dropped_total();
    for (auto* e : m_endpoints) e->start(m_current, c);
    if (m_nodes_done < m_endpoints.size()) return;  // the endpoints call node_done when their sends are queued
  }
  if (m_draining) {
    Phase& ph = m_phases[m_current];
    ph.lost = m_stats.dropped_total() - m_dropped_at_start;
    if (ph.delivered + ph.lost >= ph.sent) {
      ph.end = c;
      ph.done = true;
      m_draining = false;
      m_nodes_done = 0;
      ++m_current;
      if (m_current < m_phases.size()) {
        m_next_start = c + static_cast<std::uint64_t>(m_spec.phases[m_current - 1].barrier_cycles);
        m_wake.notify(m_period * static_cast<double>(m_next_start - c));
      }
      return;
    }
    m_wake.notify(m_period);  // check again next cycle
  }
}

}  // namespace ftsim::tb
