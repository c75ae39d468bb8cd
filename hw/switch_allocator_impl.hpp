// The switch allocator's per-cycle path (SwitchAllocator::allocate and the
// separable allocator's two forms), as templates over the crossbar sink:
// included by hw/router.cpp, whose grant path inlines them, and by the unit
// tests, which collect the grants.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "hw/router_units.hpp"

namespace ftsim::hw {

template <typename CrossbarSink>
void SwitchAllocator::allocate(const SwitchAllocInputs& x, std::uint64_t c, CrossbarSink&& crossbar) {
  allocate_of<false>(x, c, crossbar);
}

template <bool kPlain, typename CrossbarSink>
__attribute__((always_inline)) inline void SwitchAllocator::allocate_of(const SwitchAllocInputs& x, std::uint64_t c,
                                                                        CrossbarSink&& crossbar) {
  if (kPlain || m_params.switch_allocator == SwitchAllocatorKind::kSeparableInputFirst) {
    const std::uint64_t ports = x.active_ports;
    if ((ports & (ports - 1)) == 0 && ports != 0 && (kPlain || (x.control == 0 && m_one_queue_path))) {
      const int p = __builtin_ctzll(ports);
      const int q = x.in[static_cast<std::size_t>(p)]->active.template only<kPlain>();
      if (q >= 0) {
        one_queue<kPlain>(x.in, x.out, p, q, c, crossbar);
        return;
      }
    }
    if (kPlain) {
      separable_keys<true>(x.in, x.out, x.active_ports, 0, c, crossbar);
      return;
    }
    if (m_track_sending) {
      separable_sending(x.in, x.out, x.control, c, crossbar);
      return;
    }
    separable(x.in, x.out, x.active_ports, x.control, c, crossbar);
    return;
  }
  m_grants.clear();
  islip(x.in, x.out, x.control, c);
  for (const SwitchGrant& g : m_grants) crossbar(g);
}

template <bool kPlain, typename CrossbarSink>
void SwitchAllocator::one_queue(const std::vector<std::unique_ptr<InputUnit>>& in,
                                const std::vector<std::unique_ptr<OutputUnit>>& out, int p, int q, std::uint64_t c,
                                CrossbarSink& crossbar) {
  const InputVc& iv = in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(q)];
  if (!ready(iv, out, c)) return;  // the input stage would pick nothing
  const int o = iv.out_port;
  const int nq = m_nq;
  // The output stage's moves for the winner (separable, separable_keys).
  m_in_rr[static_cast<std::size_t>(p)] = q + 1 == nq ? 0 : q + 1;
  int& rr = m_out_rr[static_cast<std::size_t>(o)];
  if (!kPlain && m_params.crossbar == CrossbarKind::kPerVc) {
    const int next = p * nq + q + 1;
    rr = next == m_radix * nq ? 0 : next;
  } else {
    rr = p + 1 == m_radix ? 0 : (p + 1) * nq;
  }
  crossbar(SwitchGrant{p, q, o});
}

template <bool kPlain, typename Record>
__attribute__((always_inline)) inline std::uint64_t SwitchAllocator::separable_input_stage(
    const std::vector<std::unique_ptr<InputUnit>>& in, const std::vector<std::unique_ptr<OutputUnit>>& out,
    std::uint64_t active_ports, std::uint64_t c, Record&& record) {
  // Multiplexed: one crossbar input per port (the node's port:
  // injection_ports); per VC: one per input VC, so at most one queue per
  // input VC (with one queue per VC, every queue is its own VC).
  const int nq = m_nq;
  const int lanes = m_lanes;
  const bool one_per_vc = !kPlain && m_params.crossbar == CrossbarKind::kPerVc && lanes > 1;
  int* const in_rr = m_in_rr.data();
  std::uint64_t requested = 0;  // outputs requested by input queues
  for (std::uint64_t ports = active_ports; ports != 0; ports &= ports - 1) {
    const int p = __builtin_ctzll(ports);
    const InputUnit& ip = *in[static_cast<std::size_t>(p)];
    const InputVc* const queues = ip.queues.data();
    const int first_key = p * nq;
    const int inputs = ip.crossbar_inputs;  // read once: record() writes memory the compiler cannot tell apart
    int picked = 0;
    std::uint32_t vcs_picked = 0;
    // Only sending queues can be ready: visit those, from the pointer on.
    auto pick = [&](int q) {
      if (one_per_vc && (vcs_picked >> (q / lanes) & 1U)) return false;
      if (!ready(queues[q], out, c)) return false;
      const int o = queues[q].out_port;
      if ((requested >> o & 1U) == 0) {  // o's first request this cycle
        record(p, q, first_key + q, o, true);
        requested |= 1ULL << o;
      } else {
        record(p, q, first_key + q, o, false);
      }
      if (++picked == inputs) return true;
      if (one_per_vc) vcs_picked |= 1U << (q / lanes);
      return false;
    };
    ip.active.template visit_from<kPlain>(in_rr[p], nq, pick);
  }
  return requested;
}

template <typename CrossbarSink>
void SwitchAllocator::separable(const std::vector<std::unique_ptr<InputUnit>>& in,
                                const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t active_ports,
                                std::uint64_t control, std::uint64_t c, CrossbarSink& crossbar) {
  if (m_key_sets) {  // every key and the control packet's in one word
    separable_keys<false>(in, out, active_ports, control, c, crossbar);
    return;
  }
  const int radix = m_radix;
  const int nq = m_nq;
  const bool per_vc = m_params.crossbar == CrossbarKind::kPerVc;
  // Input stage: each pick joins its output's request chain.
  m_requests.clear();
  const std::uint64_t from_inputs = separable_input_stage<false>(
      in, out, active_ports, c, [this](int p, int q, int /*key*/, int o, bool first_for_o) {
        const int index = static_cast<int>(m_requests.size());
        m_requests.push_back(Request{p, q, o});
        m_next[index] = first_for_o ? -1 : m_first[o];
        m_first[o] = index;
      });
  const std::uint64_t requested_outputs = control | from_inputs;
  if (requested_outputs == 0) return;
  // Output stage: output o grants up to `capacity` crossbar inputs, round
  // robin over the keys port * queues + queue; a control packet is key
  // radix * queues (last in the round robin).
  const int n_keys = radix * nq;
  for (std::uint64_t m = requested_outputs; m != 0; m &= m - 1) {
    const int o = __builtin_ctzll(m);
    const OutputUnit& op = *out[static_cast<std::size_t>(o)];
    int& rr = m_out_rr[o];
    const bool has_control = control >> o & 1U;
    const int modulus = has_control ? n_keys + 1 : n_keys;
    for (int grant = 0; grant < op.capacity; ++grant) {
      int win = -1;  // index into m_requests, or -2 for the control packet
      int win_dist = modulus;
      if (has_control && grant == 0) {
        win = -2;
        win_dist = n_keys - rr;
      }
      // Keys are unique, so the scan order of o's requests does not matter.
      for (int i = (from_inputs >> o & 1U) ? m_first[o] : -1; i >= 0; i = m_next[i]) {
        const Request& r = m_requests[static_cast<std::size_t>(i)];
        if (r.out_port != o) continue;  // granted
        int d = r.in_port * nq + r.queue - rr;
        if (d < 0) d += modulus;
        if (d < win_dist) {
          win = i;
          win_dist = d;
        }
      }
      if (win == -1) break;
      if (win == -2) {
        rr = 0;
        crossbar(SwitchGrant{-1, 0, o});
        break;  // the control packet takes the link for this cycle
      }
      Request& r = m_requests[static_cast<std::size_t>(win)];
      r.out_port = -1;                                           // granted
      m_in_rr[r.in_port] = r.queue + 1 == nq ? 0 : r.queue + 1;  // (queue + 1) mod nq, queue < nq
      // Multiplexed: the next search starts at the next port; per VC: at the next crossbar input.
      // The next key after the winner's: per VC (port x nq + queue + 1) mod
      // n_keys, multiplexed the next port's first key; both below 2 x n_keys.
      if (per_vc) {
        const int next = r.in_port * nq + r.queue + 1;
        rr = next == n_keys ? 0 : next;
      } else {
        rr = r.in_port + 1 == radix ? 0 : (r.in_port + 1) * nq;
      }
      crossbar(SwitchGrant{r.in_port, r.queue, o});
    }
  }
}

template <bool kPlain, typename CrossbarSink>
void SwitchAllocator::separable_keys(const std::vector<std::unique_ptr<InputUnit>>& in,
                                     const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t active_ports,
                                     std::uint64_t control, std::uint64_t c, CrossbarSink& crossbar) {
  const int radix = m_radix;
  const int nq = m_nq;
  const int n_keys = radix * nq;  // < 64: key n_keys is the control packet's
  const bool per_vc = !kPlain && m_params.crossbar == CrossbarKind::kPerVc;
  std::uint64_t* const out_keys = m_out_keys.data();
  // Input stage: each pick sets its key in the requested output's set.
  const std::uint64_t from_inputs = separable_input_stage<kPlain>(
      in, out, active_ports, c, [out_keys](int /*p*/, int /*q*/, int key, int o, bool first_for_o) {
        const std::uint64_t bit = 1ULL << key;
        out_keys[o] = first_for_o ? bit : out_keys[o] | bit;
      });
  const std::uint64_t requested_outputs = kPlain ? from_inputs : control | from_inputs;
  // Output stage: output o grants up to `capacity` crossbar inputs; the
  // winner is the first requesting key at or after the pointer, else the
  // first one (round robin over the keys; the control packet's key n_keys
  // comes last and competes for the first grant only).
  for (std::uint64_t m = requested_outputs; m != 0; m &= m - 1) {
    const int o = __builtin_ctzll(m);
    const OutputUnit& op = *out[static_cast<std::size_t>(o)];
    int& rr = m_out_rr[o];
    std::uint64_t keys = kPlain || (from_inputs >> o & 1U) ? out_keys[o] : 0;
    if (!kPlain && (control >> o & 1U)) keys |= 1ULL << n_keys;
    for (int grant = 0; grant < op.capacity && keys != 0; ++grant) {
      const std::uint64_t from_rr = keys & (~0ULL << rr);
      const int key = __builtin_ctzll(from_rr != 0 ? from_rr : keys);
      if (!kPlain && key == n_keys) {
        rr = 0;
        crossbar(SwitchGrant{-1, 0, o});
        break;  // the control packet takes the link for this cycle
      }
      keys &= kPlain ? ~(1ULL << key)
                     : ~(1ULL << key) & ~(1ULL << n_keys);  // granted; control only competes for the first grant
      const int p = key / nq;
      const int q = key - p * nq;
      m_in_rr[p] = q + 1 == nq ? 0 : q + 1;  // (queue + 1) mod nq
      if (per_vc) {
        rr = key + 1 == n_keys ? 0 : key + 1;
      } else {
        rr = p + 1 == radix ? 0 : (p + 1) * nq;
      }
      crossbar(SwitchGrant{p, q, o});
    }
  }
}

template <typename CrossbarSink>
void SwitchAllocator::separable_sending(const std::vector<std::unique_ptr<InputUnit>>& in,
                                        const std::vector<std::unique_ptr<OutputUnit>>& out, std::uint64_t control,
                                        std::uint64_t c, CrossbarSink& crossbar) {
  const int nq = m_nq;
  const int n_keys = m_radix * nq;  // < 64: key n_keys is the control packet's
  // Per-VC crossbar (rr moves one key past the winner). Outputs in ascending
  // order, each one's requests in round-robin order from its pointer: the
  // ready keys at or after it, then (first grant only) the control packet,
  // then the ready keys before it, as separable_keys() finds them with
  // find-first-set. A grant changes only its own queue and output, so the
  // queues of later outputs are as ready as before the grant.
  const std::uint64_t outputs = m_sending_outputs;
  for (std::uint64_t m = outputs | control; m != 0; m &= m - 1) {
    const int o = __builtin_ctzll(m);
    const int capacity = out[static_cast<std::size_t>(o)]->capacity;
    int& rr = m_out_rr[o];
    const std::uint64_t keys = (outputs >> o & 1U) ? m_sending[static_cast<std::size_t>(o)] : 0;
    const std::uint64_t upper = keys & (~0ULL << rr);
    int granted = 0;
    auto visit = [&](std::uint64_t bits) {
      for (; bits != 0; bits &= bits - 1) {
        const int key = __builtin_ctzll(bits);
        const int p = m_key_port[static_cast<std::size_t>(key)];  // key / nq, key % nq (no division)
        const int q = m_key_queue[static_cast<std::size_t>(key)];
        if (!ready(in[static_cast<std::size_t>(p)]->queues[static_cast<std::size_t>(q)], out, c)) continue;
        m_in_rr[p] = q + 1 == nq ? 0 : q + 1;  // (queue + 1) mod nq
        rr = key + 1 == n_keys ? 0 : key + 1;
        crossbar(SwitchGrant{p, q, o});
        if (++granted == capacity) return true;
      }
      return false;
    };
    if (visit(upper)) continue;
    if (granted == 0 && (control >> o & 1U)) {
      rr = 0;
      crossbar(SwitchGrant{-1, 0, o});
      continue;  // the control packet takes the link for this cycle
    }
    visit(keys & ~upper);
  }
}

}  // namespace ftsim::hw
