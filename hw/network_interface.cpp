#include "hw/network_interface.hpp"

#include "hw/current_cycle.hpp"
#include "hw/router.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ftsim::hw {

NetworkInterface::NetworkInterface(sc_core::sc_module_name name, routing::NodeId node, NetworkContext& ctx,
                                   int flit_bytes)
    : sc_module(name), target("target"), deliver("deliver"), m_node(node), m_ctx(ctx), m_flit_bytes(flit_bytes) {
  target.register_b_transport(this, &NetworkInterface::b_transport);
  m_credits.assign(ctx.params.vcs, ctx.params.buffer_flits);
  m_injection_vcs = ctx.relation->injection_vcs();
}

void NetworkInterface::bind(LinkDirection* to_router, LinkDirection* from_router, Router* router) {
  m_to_router = to_router;
  m_from_router = from_router;
  m_router = router;
}

void NetworkInterface::fail() {
  m_failed = true;
  for (std::uint32_t id : m_queue) m_ctx.drop(id, DropReason::kSwitchFailure);
  m_queue.clear();
  for (const Injection& in : m_injecting) m_ctx.drop(in.packet, DropReason::kSwitchFailure);
  m_injecting.clear();
  announce_pending();
}

bool NetworkInterface::enqueue(routing::NodeId dst, int flits, std::uint64_t now, int overhead, std::uint64_t tag) {
  if (flits < 1 || flits > Flit::kMaxFlits)  // a flit's sequence number counts up to kMaxFlits
    throw std::invalid_argument(
        fmt::format("{}: a packet of {} flits (header flits included); the flits of a packet: 1..{}", name(), flits,
                    Flit::kMaxFlits));
  if (m_failed) return false;
  // Integrate the queue length up to now before it changes.
  m_queue_integral += static_cast<std::uint64_t>(m_queue.size()) * (now - m_last_integrated);
  m_last_integrated = now;
  const std::uint32_t id = m_ctx.packets.allocate();
  PacketInfo& p = m_ctx.packets[id];
  p.header.src = m_node;
  p.header.dst = dst;
  p.length = static_cast<std::uint16_t>(flits);
  p.overhead = static_cast<std::uint16_t>(overhead);
  p.create_cycle = now;
  p.tag = tag;
  NetworkStats& s = m_ctx.stats;
  ++s.created;
  s.ts_flits_created += flits;
  if (s.in_window(now)) {
    p.measured = true;
    s.window_flits_created += flits;
    s.window_payload_created += flits - overhead;
    ++s.measured_outstanding;
  }
  m_queue.push_back(id);
  if (m_queue.size() > m_queue_max) m_queue_max = m_queue.size();
  announce_pending();
  m_router->wake();
  return true;
}

void NetworkInterface::wake_router() {
  m_router->wake();
}

void NetworkInterface::requeue_front(std::uint32_t id) {
  m_ctx.packets[id].requeued = true;
  m_queue.push_front(id);
  if (m_queue.size() > m_queue_max) m_queue_max = m_queue.size();
  announce_pending();
  m_router->wake();
}

void NetworkInterface::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& /*delay*/) {
  const auto dst = gp.get_address();
  if (dst >= static_cast<sc_dt::uint64>(m_ctx.topology->num_nodes())) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const unsigned bytes = gp.get_data_length();
  const int overhead = m_ctx.relation->header_overhead_flits(m_node, static_cast<routing::NodeId>(dst), m_flit_bytes);
  const std::uint64_t payload_flits =
      bytes == 0 ? 1 : (static_cast<std::uint64_t>(bytes) + m_flit_bytes - 1) / m_flit_bytes;
  if (payload_flits + static_cast<std::uint64_t>(overhead) > static_cast<std::uint64_t>(Flit::kMaxFlits)) {
    // TLM-2.0: the target cannot execute the command with this data length.
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const int flits = static_cast<int>(payload_flits) + overhead;
  const std::uint64_t now = current_cycle(m_ctx);
  const auto* tag = gp.get_extension<MessageTagExtension>();
  gp.set_response_status(enqueue(static_cast<routing::NodeId>(dst), flits, now, overhead, tag != nullptr ? tag->tag : 0)
                             ? tlm::TLM_OK_RESPONSE
                             : tlm::TLM_GENERIC_ERROR_RESPONSE);
}

void NetworkInterface::tick_work(std::uint64_t now) {
  if (m_failed) return;
  while (m_to_router->credits().ready(now)) {
    ++m_credits[static_cast<std::size_t>(credit_vc(m_to_router->credits().front().item))];
    m_to_router->pop_credit();
  }
  // Ejection: deliver a packet when its tail arrives.
  while (m_from_router->flits().ready(now)) {
    const Flit f = m_from_router->flits().front().item;
    m_from_router->pop_flit();
    PacketInfo& p = m_ctx.packets[f.packet];
    if (p.dropped || !f.tail) continue;
    NetworkStats& s = m_ctx.stats;
    ++s.delivered;
    s.ts_flits_delivered += p.length;
    ++s.ts_packets_delivered;
    const std::uint64_t lat = now - p.create_cycle;
    s.ts_latency_sum += lat;
    if (s.in_window(now)) {
      s.window_flits_delivered += p.length;
      s.window_payload_delivered += p.length - p.overhead;
    }
    const int hops = p.hops + (m_ctx.topology->is_direct() ? 0 : 2);
    s.ts_hops_sum += static_cast<std::uint64_t>(hops);
    if (p.measured) {
      --s.measured_outstanding;
      s.latencies.push_back(static_cast<std::uint32_t>(lat));
      s.network_latencies.push_back(static_cast<std::uint32_t>(now - p.inject_cycle));
      s.hops_sum += hops;
      ++s.hops_count;
    }
    m_out_ext.src = p.header.src;
    m_out_ext.create_cycle = p.create_cycle;
    m_out_ext.deliver_cycle = now;
    m_out_ext.hops = hops;
    m_out_ext.flits = p.length;
    m_out_ext.tag = p.tag;
    m_ctx.packets.release(f.packet);
    m_out_gp.set_command(tlm::TLM_WRITE_COMMAND);
    m_out_gp.set_address(static_cast<sc_dt::uint64>(m_node));
    m_out_gp.set_data_ptr(nullptr);
    m_out_gp.set_data_length(static_cast<unsigned>(m_out_ext.flits * m_flit_bytes));
    m_out_gp.set_extension(&m_out_ext);
    m_out_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    deliver->b_transport(m_out_gp, d);
    m_out_gp.clear_extension(&m_out_ext);
  }
  // Nothing to send (the tick was for an ejected flit): the rest would add
  // 0 to the integral and start nothing.
  if (m_queue.empty() && m_injecting.empty()) {
    m_last_integrated = now;
    return;
  }
  // Source queue integral.
  m_queue_integral += static_cast<std::uint64_t>(m_queue.size()) * (now - m_last_integrated);
  m_last_integrated = now;
  // Injection: start packets while a port and a free VC are available, then
  // one flit per packet in progress.
  if (m_injection_stopped) return;
  if (!m_injecting.empty() && m_seen_drop_epoch != m_ctx.drop_epoch) {
    m_seen_drop_epoch = m_ctx.drop_epoch;
    m_injecting.erase(std::remove_if(m_injecting.begin(), m_injecting.end(),
                                     [&](const Injection& in) { return m_ctx.packets[in.packet].dropped; }),
                      m_injecting.end());
  }
  const int ports = m_ctx.params.injection_ports;
  while (!m_new_packets_held && static_cast<int>(m_injecting.size()) < ports && !m_queue.empty() &&
         m_ctx.packets[m_queue.front()].create_cycle < now) {
    const std::uint32_t id = m_queue.front();
    const int len = m_ctx.packets[id].length;
    const int vcs = static_cast<int>(m_credits.size());
    // The first VC from the round-robin pointer on that injection may use,
    // free for the packet and not taken by one being injected.
    const bool vct = m_ctx.params.vct;
    const int depth = m_ctx.params.buffer_flits;
    int chosen = -1;
    for (int i = 0, v = m_rr_vc; i < vcs; ++i, v = v + 1 == vcs ? 0 : v + 1) {
      if (!(m_injection_vcs >> v & 1U)) continue;
      if (vct ? m_credits[static_cast<std::size_t>(v)] < len : m_credits[static_cast<std::size_t>(v)] != depth)
        continue;
      bool busy = false;
      for (const Injection& in : m_injecting) busy |= in.vc == v;
      if (!busy) {
        chosen = v;
        break;
      }
    }
    if (chosen < 0) break;
    m_rr_vc = (chosen + 1) % vcs;
    m_injecting.push_back(Injection{chosen, id, 0});
    m_queue.pop_front();
  }
  if (m_injecting.empty()) return;
  if (m_to_router->failed) {  // node link failed (indirect networks)
    for (const Injection& in : m_injecting)
      m_ctx.drop_on_failed_link(in.packet, in.next_seq > 0 ? NetworkContext::LinkLoss::kCutInBuffers
                                                           : NetworkContext::LinkLoss::kRoutedBeforeDetection);
    m_injecting.clear();
    return;
  }
  for (std::size_t i = 0; i < m_injecting.size();) {
    Injection& in = m_injecting[i];
    if (m_credits[in.vc] <= 0) {
      ++i;
      continue;
    }
    PacketInfo& p = m_ctx.packets[in.packet];
    Flit f;
    f.packet = in.packet;
    f.seq = static_cast<std::uint16_t>(in.next_seq);
    f.vc = static_cast<std::uint8_t>(in.vc);
    const bool head = in.next_seq == 0;
    const bool tail = in.next_seq == p.length - 1;
    f.head = head;
    f.tail = tail;
    if (head && !p.requeued) {
      p.inject_cycle = now;
      ++m_ctx.stats.injected;
    }
    --m_credits[in.vc];
    m_to_router->push_flit(now + 1, f);
    ++m_ctx.stats.flits_injected;
    ++*m_to_router->arrivals;  // the receiving router's buffer writes (energy), or a scratch
    m_ctx.stats.last_move_cycle = now;
    if (tail) {
      m_injecting.erase(m_injecting.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++in.next_seq;
      ++i;
    }
  }
}

}  // namespace ftsim::hw
