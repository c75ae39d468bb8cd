#include "hw/router_units.hpp"

#include <fmt/format.h>

#include "hw/router.hpp"

namespace ftsim::hw {

using routing::RouteCandidate;

InputUnit::InputUnit(sc_core::sc_module_name name, int vcs, int lanes) : sc_module(name), m_lanes(lanes) {
  if (vcs < 1 || vcs > static_cast<int>(std::tuple_size<decltype(vc_flits)>::value))
    throw std::invalid_argument(fmt::format("{}: {} input VCs, allowed 1..16", this->name(), vcs));
  queues.resize(static_cast<std::size_t>(vcs * lanes));
  rx_lane.assign(static_cast<std::size_t>(vcs), 0);
  if (lanes > 1) arrival_order.resize(static_cast<std::size_t>(vcs));
  waiting_va.resize(vcs * lanes);
  active.resize(vcs * lanes);
  route_pending.resize(vcs * lanes);
}

void InputUnit::before_end_of_elaboration() {
  std::unique_ptr<VcObject>* tail = &m_vc_objects;
  const int vcs = static_cast<int>(queues.size()) / m_lanes;
  for (int v = 0; v < vcs; ++v, tail = &(*tail)->next)
    *tail = std::make_unique<VcObjectOf<kInputVcKind>>(fmt::format("vc{}", v).c_str());
}

OutputUnit::OutputUnit(sc_core::sc_module_name name, int vcs, int credits) : sc_module(name) {
  this->vcs.resize(static_cast<std::size_t>(vcs));
  for (auto& ov : this->vcs) ov.credits = credits;
  unallocated = vcs >= 32 ? ~0U : (1U << vcs) - 1U;
  vc_bits = unallocated;
}

void OutputUnit::before_end_of_elaboration() {
  std::unique_ptr<VcObject>* tail = &m_vc_objects;
  for (std::size_t v = 0; v < vcs.size(); ++v, tail = &(*tail)->next)
    *tail = std::make_unique<VcObjectOf<kOutputVcKind>>(fmt::format("vc{}", v).c_str());
}

void OutputUnit::make_ejection(int ports) {
  ejection = true;
  if (static_cast<int>(vcs.size()) < ports)
    vcs.resize(static_cast<std::size_t>(ports));  // (named at the end of elaboration, with the others)
  for (auto& ov : vcs) ov.credits = kInfiniteCredits;
  vc_bits = vcs.size() >= 32 ? ~0U : (1U << vcs.size()) - 1U;
  unallocated = 0;
  for (std::size_t v = 0; v < vcs.size() && v < 32; ++v)
    if (!vcs[v].allocated) unallocated |= 1U << v;
  capacity = ports;
}

// ---------------------------------------------------------------------------
// Route unit

void RouteUnit::set_port_alive(int p, bool alive) {
  const std::uint64_t before = port_alive;
  if (alive)
    port_alive |= (1ULL << p);
  else
    port_alive &= ~(1ULL << p);
  // Packets waiting for VC allocation re-run route computation, so a route
  // computed before a fault was detected does not wait forever on a dead port
  // (and a repaired link is used again). A mechanism with tables (Immunet)
  // has its own table epoch.
  if (before != port_alive && table_epoch == nullptr) ++alive_epoch;
  if (before != port_alive && mechanism != nullptr) mechanism->on_port_changed(p, alive);
}

// ---------------------------------------------------------------------------
// Switch allocator

SwitchAllocator::SwitchAllocator(sc_core::sc_module_name name, const RouterParams& params)
    : sc_module(name), m_params(params) {}

void SwitchAllocator::configure(int radix, int queues, int lanes) {
  m_radix = radix;
  m_nq = queues;
  m_lanes = lanes;
  m_in_rr.assign(static_cast<std::size_t>(radix), 0);
  m_out_rr.assign(static_cast<std::size_t>(radix), 0);
  m_queue_rr.assign(static_cast<std::size_t>(radix), 0);
  m_requests.reserve(static_cast<std::size_t>(radix * queues));
  m_first.assign(static_cast<std::size_t>(radix), -1);
  m_next.assign(static_cast<std::size_t>(radix * queues), -1);
  m_out_keys.assign(static_cast<std::size_t>(radix), 0);
  m_sending.assign(static_cast<std::size_t>(radix), 0);
  for (int key = 0; key < 64 && key < radix * queues; ++key) {
    m_key_port[static_cast<std::size_t>(key)] = static_cast<std::uint8_t>(key / queues);
    m_key_queue[static_cast<std::size_t>(key)] = static_cast<std::uint8_t>(key % queues);
  }
  use_key_sets(true);
  track_sending(false);
  m_grants.reserve(static_cast<std::size_t>(radix * queues));
}

void SwitchAllocator::islip(const std::vector<std::unique_ptr<InputUnit>>& in,
                            const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t control,
                            std::uint64_t c) {
  const int radix = m_radix;
  const int nq = m_nq;
  const int inputs = radix + 1;  // input `radix`: the Table Update Module's control packets
  const bool per_vc = m_params.crossbar == CrossbarKind::kPerVc;
  // Request: every ready queue; per input port, the outputs they want.
  m_requests.clear();
  m_scratch.assign(static_cast<std::size_t>(nq * radix), -1);  // (p, q) -> requested output, -1 none/used
  std::vector<std::uint64_t>& wants = m_wants;
  wants.assign(static_cast<std::size_t>(inputs), 0);
  for (int p = 0; p < radix; ++p) {
    const InputUnit& ip = *in[static_cast<std::size_t>(p)];
    for (int q = 0; q < nq; ++q) {
      const InputVc& iv = ip.queues[static_cast<std::size_t>(q)];
      if (iv.state != InputVc::State::kActive || !ready(iv, out, c)) continue;
      const int o = ip.queues[static_cast<std::size_t>(q)].out_port;
      m_scratch[static_cast<std::size_t>(p * nq + q)] = o;
      wants[static_cast<std::size_t>(p)] |= 1ULL << o;
    }
  }
  wants[static_cast<std::size_t>(radix)] = control;
  std::uint64_t any = 0;
  for (const auto w : wants) any |= w;
  if (any == 0) return;
  m_in_left.assign(static_cast<std::size_t>(inputs), 0);
  m_out_left.assign(static_cast<std::size_t>(radix), 0);
  m_vcs_used.assign(static_cast<std::size_t>(radix), 0);
  for (int p = 0; p < radix; ++p) m_in_left[p] = in[static_cast<std::size_t>(p)]->crossbar_inputs;
  m_in_left[radix] = radix;  // control packets: any number of outputs
  for (int o = 0; o < radix; ++o) m_out_left[o] = out[static_cast<std::size_t>(o)]->capacity;
  // The queue of input p that serves output o next (round robin from the
  // port's queue pointer), or -1.
  auto serving_queue = [&](int p, int o) {
    for (int i = 0, q = m_queue_rr[p]; i < nq; ++i, q = q + 1 == nq ? 0 : q + 1) {
      if (m_scratch[static_cast<std::size_t>(p * nq + q)] != o) continue;
      if (per_vc && (m_vcs_used[p] >> (q / m_lanes) & 1U)) continue;
      return q;
    }
    return -1;
  };
  std::vector<std::uint64_t>& granted = m_granted;  // per input: outputs that granted it this iteration
  for (int iter = 0; iter < m_params.islip_iterations; ++iter) {
    granted.assign(static_cast<std::size_t>(inputs), 0);
    bool any_grant = false;
    // Grant: each output with room grants requesting inputs round robin from its pointer.
    for (int o = 0; o < radix; ++o) {
      int left = m_out_left[o];
      for (int i = 0, p = m_out_rr[o] % inputs; i < inputs && left > 0; ++i, p = p + 1 == inputs ? 0 : p + 1) {
        if (m_in_left[p] <= 0 || !(wants[static_cast<std::size_t>(p)] >> o & 1U)) continue;
        if (p < radix && serving_queue(p, o) < 0) continue;
        granted[static_cast<std::size_t>(p)] |= 1ULL << o;
        any_grant = true;
        --left;
      }
    }
    if (!any_grant) break;
    // Accept: each input accepts granting outputs round robin from its pointer.
    for (int p = 0; p < inputs; ++p) {
      if (granted[static_cast<std::size_t>(p)] == 0) continue;
      const int start = p < radix ? m_in_rr[p] : 0;
      for (int i = 0, o = start; i < radix && m_in_left[p] > 0; ++i, o = o + 1 == radix ? 0 : o + 1) {
        if (!(granted[static_cast<std::size_t>(p)] >> o & 1U) || m_out_left[o] <= 0) continue;
        if (p == radix) {  // a control packet takes the whole link for this cycle
          m_grants.push_back(SwitchGrant{-1, 0, o});
          m_out_left[o] = 0;
          wants[static_cast<std::size_t>(radix)] &= ~(1ULL << o);
          if (iter == 0) m_out_rr[o] = 0;
          continue;
        }
        const int q = serving_queue(p, o);
        if (q < 0) continue;
        m_grants.push_back(SwitchGrant{p, q, o});
        m_scratch[static_cast<std::size_t>(p * nq + q)] = -1;
        m_vcs_used[p] |= 1U << (q / m_lanes);
        --m_in_left[p];
        --m_out_left[o];
        m_queue_rr[p] = (q + 1) % nq;
        if (iter == 0) {  // iSLIP: pointers move only on first-iteration matches
          m_out_rr[o] = (p + 1) % inputs;
          m_in_rr[p] = (o + 1) % radix;
        }
      }
    }
  }
}

void VcAllocator::arbitrate_wavefront(const VcAllocInputs& in, std::vector<VcGrant>& grants) {
  const std::vector<VcRequest>& requests = in.requests;
  const int nq = in.queues;
  const int vcs_max = in.vcs_max;
  const int rows = in.radix * nq;
  const int cols = in.radix * vcs_max;
  const int n = std::max(rows, cols);
  // A cell's place in the wave: its diagonal's distance from the priority
  // diagonal (plus n for the node port's heads under transit priority).
  auto place = [&](const VcRequest& q) {
    const int row = q.in_port * nq + q.queue;
    const int col = q.out_port * vcs_max + q.out_vc;
    const int d = ((row + col) % n - m_diagonal + n) % n;
    return in.transit_first && (in.node_ports >> q.in_port & 1U) ? d + n : d;
  };
  m_order.resize(requests.size());
  for (std::size_t i = 0; i < m_order.size(); ++i) m_order[i] = i;
  std::stable_sort(m_order.begin(), m_order.end(),
                   [&](std::size_t a, std::size_t b) { return place(requests[a]) < place(requests[b]); });
  m_row_used.assign(static_cast<std::size_t>(rows), 0);
  m_col_used.assign(static_cast<std::size_t>(cols), 0);
  for (const std::size_t k : m_order) {
    const VcRequest& q = requests[k];
    const auto row = static_cast<std::size_t>(q.in_port * nq + q.queue);
    const auto col = static_cast<std::size_t>(q.out_port * vcs_max + q.out_vc);
    if (m_row_used[row] || m_col_used[col]) continue;
    m_row_used[row] = m_col_used[col] = 1;
    grants.push_back(q);
  }
  m_diagonal = (m_diagonal + 1) % n;
}

}  // namespace ftsim::hw
