// Network interface: TLM-2.0 message target, unbounded source queue,
// packetisation and injection, ejection and delivery through a TLM initiator.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <vector>

#include "hw/channels.hpp"
#include "hw/immediate_target_socket.hpp"
#include "hw/network_context.hpp"
#include "hw/ring_queue.hpp"

namespace ftsim::hw {

class Router;

/// Attached to delivered messages: who sent it and when.
struct DeliveryExtension : tlm::tlm_extension<DeliveryExtension> {
  routing::NodeId src = -1;
  std::uint64_t create_cycle = 0;
  std::uint64_t deliver_cycle = 0;
  int hops = 0;
  int flits = 0;
  std::uint64_t tag = 0;  ///< the MessageTagExtension the message was sent with (0: none)
  tlm::tlm_extension_base* clone() const override { return new DeliveryExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const DeliveryExtension&>(e); }
};

/// Optional on a message sent to the interface's `target`: an opaque tag
/// the packet carries end to end and the receiver finds in the
/// DeliveryExtension (closed-loop traffic matches replies to requests by it).
struct MessageTagExtension : tlm::tlm_extension<MessageTagExtension> {
  std::uint64_t tag = 0;
  tlm::tlm_extension_base* clone() const override { return new MessageTagExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const MessageTagExtension&>(e); }
};

/// Network interface of one node. Messages arrive through `target`
/// (b_transport with a tlm_generic_payload: address = destination node,
/// data length = message bytes, packetised into ceil(bytes / flit_bytes)
/// flits, at least 1). They wait in an unbounded source queue; its occupancy
/// is integrated every cycle for statistics. A packet may be injected from the
/// cycle after it was queued. Injection: up to `router.injection_ports`
/// packets at once, each on its own VC, one flit per packet per cycle, packets
/// started in source-queue order. Ejection takes every flit that arrives. Delivered packets leave through `deliver`
/// (address = this node, a DeliveryExtension attached). The interface has no
/// process of its own: its router ticks it.
/// Errors: a destination outside 0..nodes-1 gets TLM_ADDRESS_ERROR_RESPONSE;
/// a message of more than Flit::kMaxFlits flits (header flits included)
/// gets TLM_BURST_ERROR_RESPONSE and is not queued; a write to a failed
/// node gets TLM_GENERIC_ERROR_RESPONSE.
class NetworkInterface : public sc_core::sc_module {
 public:
  ImmediateTargetSocket<NetworkInterface> target;
  tlm_utils::simple_initiator_socket<NetworkInterface> deliver;

  NetworkInterface(sc_core::sc_module_name name, routing::NodeId node, NetworkContext& ctx, int flit_bytes);

  /// to_router: injection channel into the router's local input port;
  /// from_router: ejection channel.
  void bind(LinkDirection* to_router, LinkDirection* from_router, Router* router);
  void tick(std::uint64_t now) {
    // Nothing readable, nothing to send: the common case at low load, kept
    // out of the full tick's call (its source-queue integral adds 0 then).
    // Credits on their way back are read when there is something to send,
    // flits on their way when they are readable.
    if (!m_from_router->flits().ready(now) && m_queue.empty() && m_injecting.empty()) {
      m_last_integrated = now;
      return;
    }
    tick_work(now);
    announce_pending();
  }
  /// The router's set of interfaces with packets to send: bit `bit` of
  /// *pending is kept set while the source queue or an injection holds a
  /// packet, so that the router ticks only the interfaces with work.
  void announce_to(std::uint64_t* pending, std::uint64_t bit) {
    m_pending = pending;
    m_pending_bit = bit;
    announce_pending();
  }
  void fail();
  void repair() {
    m_failed = false;
    m_credits.assign(m_credits.size(), m_ctx.params.buffer_flits);
  }
  bool failed() const { return m_failed; }
  routing::NodeId node() const { return m_node; }

  /// Source queue length now (packets), and its integral over cycles.
  std::size_t source_queue_length() const { return m_queue.size(); }
  std::uint64_t source_queue_integral() const { return m_queue_integral; }
  std::size_t source_queue_max() const { return m_queue_max; }
  /// Resynchronises the injection credits after a node-link repair:
  /// credits = B - occupancy of the router's input VCs.
  void resync_credits(const std::vector<int>& router_occupancy) {
    for (std::size_t v = 0; v < m_credits.size(); ++v) m_credits[v] = m_ctx.params.buffer_flits - router_occupancy[v];
  }
  const RingQueue<std::uint32_t>& source_queue() const { return m_queue; }
  /// One packet being injected: some of its flits have left, on VC `vc`.
  struct Injection {
    int vc;
    std::uint32_t packet;
    int next_seq;
  };
  /// Packets being injected now (at most `router.injection_ports`).
  const std::vector<Injection>& injecting() const { return m_injecting; }
  /// Stops (or resumes) injection: Immunet's emergency state.
  void set_injection_stopped(bool stopped) {
    m_injection_stopped = stopped;
    if (!stopped && m_router != nullptr) wake_router();
  }
  /// Holds (or releases) the start of new packets; packets already being
  /// injected finish (a static reconfiguration's halt, DQR paper section V).
  void set_new_packets_held(bool held) {
    m_new_packets_held = held;
    if (!held && m_router != nullptr) wake_router();
  }
  /// Puts a drained packet back at the head of the source queue.
  void requeue_front(std::uint32_t id);
  /// Enqueues a packet directly (used by b_transport). Returns false when the
  /// node has failed.
  /// `flits` includes `overhead` header flits (not payload), 1..Flit::kMaxFlits;
  /// throws std::invalid_argument outside that range.
  bool enqueue(routing::NodeId dst, int flits, std::uint64_t now, int overhead = 0, std::uint64_t tag = 0);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  routing::NodeId m_node;
  NetworkContext& m_ctx;
  int m_flit_bytes;
  Router* m_router = nullptr;
  LinkDirection* m_to_router = nullptr;
  LinkDirection* m_from_router = nullptr;
  void tick_work(std::uint64_t now);
  RingQueue<std::uint32_t> m_queue;
  std::vector<int> m_credits;
  std::uint32_t m_injection_vcs = 0;
  std::vector<Injection> m_injecting;
  std::uint64_t m_seen_drop_epoch = 0;  ///< drops are re-checked only after one happened
  int m_rr_vc = 0;
  std::uint64_t m_queue_integral = 0;
  std::uint64_t m_last_integrated = 0;
  std::size_t m_queue_max = 0;
  bool m_failed = false;
  bool m_injection_stopped = false;
  bool m_new_packets_held = false;
  void wake_router();
  void announce_pending() {
    if (m_queue.empty() && m_injecting.empty())
      *m_pending &= ~m_pending_bit;
    else
      *m_pending |= m_pending_bit;
  }
  std::uint64_t m_unannounced = 0;  ///< *m_pending before announce_to
  std::uint64_t* m_pending = &m_unannounced;
  std::uint64_t m_pending_bit = 0;
  tlm::tlm_generic_payload m_out_gp;
  DeliveryExtension m_out_ext;
};

}  // namespace ftsim::hw
