#include "hw/immunet/emergency_logic.hpp"

#include <stdexcept>

namespace ftsim::hw {

EmergencyLogic::EmergencyLogic(const EmergencyParams& p) : m_p(p) {
  if (p.ports < 1 || p.ports > 16) throw std::invalid_argument("EmergencyParams.ports: allowed 1..16");
  if (p.epl_bits < 4 || p.epl_bits > 32) throw std::invalid_argument("EmergencyParams.epl_bits: allowed 4..32");
  if (p.id_bits < 1 || p.id_bits >= p.epl_bits)
    throw std::invalid_argument("EmergencyParams.id_bits: allowed 1..epl_bits-1");
  if (p.handle_cycles < 1 || p.ack_window < 1)
    throw std::invalid_argument("EmergencyParams: handle_cycles and ack_window must be >= 1");
}

EmergencyOutputs EmergencyLogic::outputs(const std::vector<EmergencyWires>& normal, std::uint32_t port_enable) const {
  // Output Block: special ACK to the parent > emergency propagation > normal traffic.
  EmergencyOutputs o;
  o.out.resize(m_p.ports);
  for (int i = 0; i < m_p.ports; ++i) {
    const bool enabled = (port_enable >> i) & 1u;
    const bool to_parent = !m_s.root && i == m_s.parent;
    if (m_s.ack_now && to_parent) {
      o.out[i] = EmergencyWires{true, true, m_p.ack_code()};
    } else if (m_s.propagate_now && enabled && !to_parent) {
      o.out[i] = EmergencyWires{true, true, m_s.epl};
    } else {
      o.out[i] = normal[i];
    }
  }
  o.stop = m_s.emergency;
  return o;
}

void EmergencyLogic::step(const EmergencyInputs& in) {
  const std::uint32_t ack = m_p.ack_code();
  const std::uint32_t mask = m_p.epl_bits >= 32 ? 0xFFFFFFFFu : ((1u << m_p.epl_bits) - 1u);
  // 1. Candidate among incoming emergencies (Input Blocks + comparator tree).
  bool have = false;
  std::uint32_t best = 0;
  int best_port = 0;
  for (int i = 0; i < m_p.ports; ++i) {
    if (!((in.port_enable >> i) & 1u) || !InputBlock::epl(in.in[i], ack)) continue;
    const std::uint32_t e = in.in[i].data & mask;
    const bool better = inject_tie_bug ? (!have || e >= best) : (!have || e > best);
    if (better) {
      have = true;
      best = e;
      best_port = i;
    }
  }
  bool adopt = false;
  bool adopt_root = false;
  std::uint32_t adopt_epl = 0;
  int adopt_port = 0;
  if (have && (!m_s.valid || best > m_s.epl)) {
    adopt = true;
    adopt_epl = best;
    adopt_port = best_port;
  }
  if (in.fault_detect) {
    const std::uint32_t t = m_s.valid ? (m_s.epl >> m_p.id_bits) + 1u : 0u;
    const std::uint32_t id_mask = (1u << m_p.id_bits) - 1u;
    const std::uint32_t local = ((t << m_p.id_bits) | (in.node_id & id_mask)) & mask;
    // The local proposal wins unless an incoming EPL this cycle is higher.
    if (!adopt || local >= adopt_epl) {
      if (!m_s.valid || local > m_s.epl || adopt) {
        adopt = true;
        adopt_root = true;
        adopt_epl = local;
      }
    }
  }
  // 3. ACKs from children while the window is open (before any re-adoption).
  std::uint32_t children = m_s.children;
  if (m_s.window_count > 0)
    for (int i = 0; i < m_p.ports; ++i)
      if (((in.port_enable >> i) & 1u) && InputBlock::ack(in.in[i], ack)) children |= 1u << i;

  EmergencyState n = m_s;
  n.children = children;
  n.ack_now = false;
  n.propagate_now = false;
  // 4. Timers.
  if (m_s.propagate_now)
    n.window_count = m_p.ack_window;
  else if (m_s.window_count > 0)
    n.window_count = m_s.window_count - 1;
  if (m_s.handle_count > 0) {
    n.handle_count = m_s.handle_count - 1;
    if (n.handle_count == 0) n.propagate_now = true;
  }
  if (m_s.window_count == 1 && !m_s.propagate_now) {
    n.emergency = false;
    n.done = true;
  }
  // 2. Adoption overrides everything.
  if (adopt) {
    n.valid = true;
    n.epl = adopt_epl;
    n.root = adopt_root;
    n.parent = adopt_root ? 0 : adopt_port;
    n.children = 0;
    n.ack_now = !adopt_root;
    n.handle_count = m_p.handle_cycles;
    n.propagate_now = false;
    n.window_count = 0;
    n.emergency = true;
    n.done = false;
  }
  m_s = n;
}

}  // namespace ftsim::hw
