// sc_spawn (the deferred completion below) needs the dynamic-process API,
// which <systemc> declares only with this macro defined before its first include.
#define SC_INCLUDE_DYNAMIC_PROCESSES

#include "hw/immunet/immunet_router.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hw/current_cycle.hpp"
#include "hw/management_bus.hpp"
#include "hw/network_interface.hpp"
#include "hw/router.hpp"

namespace ftsim::hw {

using routing::KAryNCube;

EmergencyParams immunet_emergency_params(const KAryNCube& t, const ImmunetParams& p) {
  EmergencyParams e;
  e.ports = 2 * t.dimensions();
  e.epl_bits = p.epl_bits;
  int idb = 1;
  while ((1L << idb) < t.num_routers()) ++idb;
  e.id_bits = idb;
  e.handle_cycles = p.handle_cycles;
  e.ack_window = p.ack_window;
  return e;
}

// ---------------------------------------------------------------------------
// Tables

ImmunetSafeTable::ImmunetSafeTable(sc_core::sc_module_name name, int nodes, int ports, std::uint32_t& epoch)
    : sc_module(name), m_ports(ports), m_masks(static_cast<std::size_t>(nodes), 0), m_epoch(epoch) {}

bool ImmunetSafeTable::write_word(int index, std::uint32_t value) {
  if (m_ports < 32 && (value >> m_ports) != 0) return false;
  m_masks[static_cast<std::size_t>(index)] = value;
  ++m_epoch;
  return true;
}

ImmunetAdaptiveTable::ImmunetAdaptiveTable(sc_core::sc_module_name name, int nodes, int ports, std::uint32_t& epoch)
    : sc_module(name),
      m_ports(ports),
      m_masks(static_cast<std::size_t>(nodes), 0),
      m_dist(static_cast<std::size_t>(nodes), nodes),
      m_epoch(epoch) {}

std::uint32_t ImmunetAdaptiveTable::read_word(int index) const {
  const auto d = static_cast<std::size_t>(index / 2);
  return index % 2 == 0 ? static_cast<std::uint32_t>(m_masks[d]) : static_cast<std::uint32_t>(m_dist[d]);
}

bool ImmunetAdaptiveTable::write_word(int index, std::uint32_t value) {
  const auto d = static_cast<std::size_t>(index / 2);
  if (index % 2 == 0) {
    if (m_ports < 32 && (value >> m_ports) != 0) return false;
    m_masks[d] = value;
  } else {
    if (value > m_masks.size()) return false;
    m_dist[d] = static_cast<std::int32_t>(value);
  }
  ++m_epoch;
  return true;
}

long ImmunetAdaptiveTable::size_bits() const {
  int w = 0;
  while ((1L << w) < static_cast<long>(m_masks.size()) + 1L) ++w;
  return static_cast<long>(m_masks.size()) * (m_ports + w);
}

ImmunetSsTable::ImmunetSsTable(sc_core::sc_module_name name, int radix, std::uint32_t& epoch)
    : sc_module(name), m_next(static_cast<std::size_t>(radix), -1), m_epoch(epoch) {}

std::uint32_t ImmunetSsTable::read_word(int index) const {
  const int n = m_next[static_cast<std::size_t>(index)];
  return n < 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(n);
}

bool ImmunetSsTable::write_word(int index, std::uint32_t value) {
  const int radix = static_cast<int>(m_next.size());
  if (value == 0xFFFFFFFFu) {
    m_next[static_cast<std::size_t>(index)] = -1;
  } else {
    if (index == KAryNCube::kLocalPort || value < 1 || value >= static_cast<std::uint32_t>(radix)) return false;
    m_next[static_cast<std::size_t>(index)] = static_cast<std::int8_t>(value);
  }
  ++m_epoch;
  return true;
}

// ---------------------------------------------------------------------------
// Table Update Module

ImmunetTableUpdateModule::ImmunetTableUpdateModule(sc_core::sc_module_name name, ImmunetRouter& owner)
    : sc_module(name), m_owner(owner) {}

void ImmunetTableUpdateModule::write(std::uint64_t address, std::uint32_t value) {
  if (m_bus != nullptr) {
    if (m_bus->write_word(m_router, address, value) != tlm::TLM_OK_RESPONSE)
      throw std::logic_error(std::string(name()) + ": management write refused at address " + std::to_string(address));
    return;
  }
  // Boot: the back-door.
  TableMemory* mem = &m_owner.ss_table;
  std::uint64_t base = immunet_map::kSsTable;
  if (address < immunet_map::kAdaptiveTable) {
    mem = &m_owner.safe_table;
    base = immunet_map::kSafeTable;
  } else if (address < immunet_map::kSsTable) {
    mem = &m_owner.adaptive_table;
    base = immunet_map::kAdaptiveTable;
  }
  if (!mem->write_word(static_cast<int>((address - base) / 4), value))
    throw std::logic_error(std::string(name()) + ": table write out of range at address " + std::to_string(address));
}

void ImmunetTableUpdateModule::begin_rebuild() {
  const int n = m_owner.adaptive_table.words() / 2;
  for (int d = 0; d < n; ++d) {
    write(immunet_map::kAdaptiveTable + 8ULL * d, 0);
    write(immunet_map::kAdaptiveTable + 8ULL * d + 4, static_cast<std::uint32_t>(n));
  }
  const int self = m_owner.id();
  write(immunet_map::kAdaptiveTable + 8ULL * self, 1U << KAryNCube::kLocalPort);
  write(immunet_map::kAdaptiveTable + 8ULL * self + 4, 0);
}

int ImmunetTableUpdateModule::install_tree(const EmergencyState& s) {
  const int radix = m_owner.ss_table.words();
  const int ports = static_cast<int>(m_owner.input_blocks.size());
  std::vector<routing::PortId> cyc;
  if (!s.root) cyc.push_back(s.parent + 1);
  for (int i = 0; i < ports; ++i)
    if (s.children >> i & 1u) cyc.push_back(i + 1);
  std::vector<std::int32_t> next(static_cast<std::size_t>(radix), -1);
  for (std::size_t i = 0; i < cyc.size(); ++i) next[static_cast<std::size_t>(cyc[i])] = cyc[(i + 1) % cyc.size()];
  for (int p = 0; p < radix; ++p)
    write(immunet_map::kSsTable + 4ULL * p, static_cast<std::uint32_t>(next[static_cast<std::size_t>(p)]));
  const int n = m_owner.safe_table.words();
  const std::uint32_t towards = cyc.empty() ? 1U : (1U << cyc.front());
  for (int d = 0; d < n; ++d) write(immunet_map::kSafeTable + 4ULL * d, towards);
  write(immunet_map::kSafeTable + 4ULL * m_owner.id(), 1U << KAryNCube::kLocalPort);
  m_owner.set_single_ring(true);
  return cyc.empty() ? -1 : cyc.front();
}

void ImmunetTableUpdateModule::set_safe(int origin, routing::PortId port) {
  write(immunet_map::kSafeTable + 4ULL * origin, 1U << port);
}

int ImmunetTableUpdateModule::apply_distance(int origin, routing::PortId port, int distance) {
  const ImmunetAdaptiveTable& a = m_owner.adaptive_table;
  if (distance > a.distance(origin)) return -1;
  const bool improved = distance < a.distance(origin);
  const std::uint64_t at = immunet_map::kAdaptiveTable + 8ULL * origin;
  if (improved) {
    write(at + 4, static_cast<std::uint32_t>(distance));
    write(at, 1U << port);
  } else {
    write(at, static_cast<std::uint32_t>(a.mask(origin) | (1ULL << port)));
  }
  return improved ? 1 : 0;
}

ImmunetControlCounts& ImmunetControlCounts::operator+=(const ImmunetControlCounts& o) {
  safe_control_packets += o.safe_control_packets;
  adaptive_control_packets += o.adaptive_control_packets;
  safe_control_hops += o.safe_control_hops;
  adaptive_control_hops += o.adaptive_control_hops;
  stale_control_packets += o.stale_control_packets;
  control_link_flits += o.control_link_flits;
  control_link_wait_cycles += o.control_link_wait_cycles;
  control_link_wait_max = std::max(control_link_wait_max, o.control_link_wait_max);
  control_hop_cycles += o.control_hop_cycles;
  control_hop_cycles_max = std::max(control_hop_cycles_max, o.control_hop_cycles_max);
  lost_control_packets += o.lost_control_packets;
  emergencies += o.emergencies;
  drained_packets += o.drained_packets;
  last_table_update_cycle = std::max(last_table_update_cycle, o.last_table_update_cycle);
  return *this;
}

// ---------------------------------------------------------------------------
// Links

void ImmunetLink::drive(const EmergencyWires& w) {
  m_wires = w;
  if (!InputBlock::emergency(w)) return;
  if (m_phits != nullptr) {
    m_phits->bundle.req0 = m_phits->bundle.req1 = true;
    m_phits->bundle.data = w.data;
  }
  m_receiver.wake_sampling();
}

void ImmunetLink::send(std::uint64_t ready, const ImmunetControlPacket& packet) {
  ImmunetControlPacket p = packet;
  p.port = m_receiver_port;
  m_packets.push(ready, p);
  m_receiver.wake_at(ready);
}

// ---------------------------------------------------------------------------
// The router's Immunet hardware

ImmunetRouter::ImmunetRouter(sc_core::sc_module_name name, const KAryNCube& topo, Router& router,
                             const EmergencyParams& emergency, const ImmunetParams& params)
    : RouterMechanism(name),
      m_id(router.id()),
      reconfiguration_module("reconfiguration_module", emergency, params.blocks),
      safe_table("safe_table", topo.num_nodes(), topo.max_radix(), m_view.epoch),
      adaptive_table("adaptive_table", topo.num_nodes(), topo.max_radix(), m_view.epoch),
      ss_table("ss_table", topo.max_radix(), m_view.epoch),
      table_update_module("table_update_module", *this),
      m_router(router),
      m_params(params) {
  for (int i = 0; i < emergency.ports; ++i) {
    const std::string pn = topo.port_name(m_id, i + 1);
    input_blocks.push_back(std::make_unique<ImmunetInputBlock>(("input_block_" + pn).c_str()));
    output_blocks.push_back(std::make_unique<ImmunetOutputBlock>(("output_block_" + pn).c_str()));
  }
  reconfiguration_module.port_enable = (1u << emergency.ports) - 1u;
  m_view.safe = safe_table.data();
  m_view.adaptive = adaptive_table.masks();
  m_view.ss_next = ss_table.data();
  m_view.distance = adaptive_table.distances();
  m_view.lost_distance = static_cast<std::int32_t>(topo.num_nodes());
  m_out.assign(static_cast<std::size_t>(emergency.ports), nullptr);
  m_in.assign(static_cast<std::size_t>(emergency.ports), nullptr);
  m_idle.assign(static_cast<std::size_t>(emergency.ports), EmergencyWires{});
  m_inputs.in = m_idle;
  m_inputs.normal = m_idle;
  m_inputs.node_id = static_cast<std::uint32_t>(m_id);
  SC_METHOD(drive);
  sensitive << m_drive_event;
  dont_initialize();
  SC_METHOD(sample);
  sensitive << m_sample_event;
  dont_initialize();
}

void ImmunetRouter::attach(NetworkInterface& ni, NetworkContext& ctx, ImmunetReconfigurationStatus& status) {
  m_ni = &ni;
  m_ctx = &ctx;
  m_status = &status;
  sc_core::sc_spawn_options opts;
  opts.spawn_method();
  opts.dont_initialize();
  opts.set_sensitivity(&status.over());
  sc_core::sc_spawn([this] { complete(); }, (std::string("complete_") + m_router.basename()).c_str(), &opts);
}

void ImmunetRouter::bind(routing::PortId p, ImmunetLink* out, ImmunetLink* in) {
  m_out[static_cast<std::size_t>(p - 1)] = out;
  m_in[static_cast<std::size_t>(p - 1)] = in;
}

std::uint64_t ImmunetRouter::now() const {
  return current_cycle(*m_ctx);
}

void ImmunetRouter::wake_at(std::uint64_t cycle) {
  const sc_core::sc_time at = sc_core::sc_time::from_value(cycle * m_ctx->period_ticks + m_ctx->period_ticks / 2);
  const sc_core::sc_time t = sc_core::sc_time_stamp();
  m_drive_event.notify(at > t ? at - t : sc_core::SC_ZERO_TIME);
}

void ImmunetRouter::wake_sampling() {
  m_sample_event.notify(sc_core::SC_ZERO_TIME);
}

bool ImmunetRouter::logic_busy() const {
  // The logic has work exactly while it is in the emergency state: adoption
  // enters it with the handle counter set (and the ACK pulse), propagation
  // and the ACK window follow, and the window's last cycle leaves it with
  // every counter at zero. So the state's emergency bit (a port of the
  // Verilog too) says it all, with a detection waiting for the next edge.
  return reconfiguration_module.logic.state().emergency || reconfiguration_module.detect_pending;
}

void ImmunetRouter::set_busy(bool busy) {
  if (busy == m_busy) return;
  m_busy = busy;
  m_status->busy_router(busy ? 1 : -1);
}

void ImmunetRouter::detect(routing::PortId p, std::uint64_t fail_cycle) {
  if (m_dead) return;
  ImmunetReconfigurationModule& rm = reconfiguration_module;
  rm.port_enable &= ~(1u << (p - 1));
  rm.detect_pending = true;
  if (!m_counters.detected || fail_cycle < m_counters.first_fault_cycle) m_counters.first_fault_cycle = fail_cycle;
  if (!m_counters.detected) m_counters.first_detect_cycle = now();
  m_counters.detected = true;
  set_busy(true);
  wake_at(now());
}

void ImmunetRouter::fail() {
  if (m_dead) return;
  set_busy(false);
  m_dead = true;
  for (ImmunetLink* l : m_in)
    if (l != nullptr) l->set_stop(false);
  for (ImmunetLink* l : m_out)
    if (l != nullptr) l->drive(EmergencyWires{});
  wake_at(now());  // control packets on their way here are discarded when they arrive
}

void ImmunetRouter::drive() {
  const std::uint64_t c = now();
  if (c != m_last_drive) {
    m_last_drive = c;
    m_drove = false;
    if (!m_dead) {
      const ImmunetReconfigurationModule& rm = reconfiguration_module;
      const EmergencyOutputs o = rm.logic.outputs(m_idle, rm.port_enable);
      for (std::size_t i = 0; i < o.out.size(); ++i) {
        output_blocks[i]->out = o.out[i];
        m_drove = m_drove || InputBlock::emergency(o.out[i]);
        if (m_out[i] != nullptr) m_out[i]->drive(o.out[i]);
      }
    }
  }
  m_sample_event.notify(sc_core::SC_ZERO_TIME);
}

void ImmunetRouter::sample() {
  const std::uint64_t c = now();
  if (c == m_last_sample) return;
  m_last_sample = c;
  const std::size_t ports = m_in.size();
  if (!m_dead) {
    ++m_activations;
    ImmunetReconfigurationModule& rm = reconfiguration_module;
    m_heard = false;
    for (std::size_t i = 0; i < ports; ++i) {
      const bool up = (rm.port_enable >> i & 1u) && m_in[i] != nullptr;
      EmergencyWires& in = input_blocks[i]->in;
      in = up ? m_in[i]->wires() : EmergencyWires{};
      m_heard = m_heard || InputBlock::emergency(in);
      m_inputs.in[i] = in;
    }
    m_inputs.port_enable = rm.port_enable;
    m_inputs.fault_detect = rm.detect_pending;
    rm.detect_pending = false;
    const EmergencyState before = rm.logic.state();
    rm.logic.step(m_inputs);
    const EmergencyState& after = rm.logic.state();
    if (after.emergency && (!before.emergency || after.epl != before.epl || !before.valid)) on_adopt();
    if (after.done && !before.done) on_done(c);
    // STOP on every input channel while in the emergency state.
    for (ImmunetLink* l : m_in)
      if (l != nullptr) l->set_stop(after.emergency);
  }
  // Table Update Module: the control packets that arrive this cycle, port by
  // port (lowest port first), in order of arrival on each port. A dead
  // router discards them.
  std::uint64_t next = ~0ULL;
  for (ImmunetLink* l : m_in) {
    if (l == nullptr) continue;
    DelayLine<ImmunetControlPacket>& q = l->packets();
    while (q.ready(c)) {
      const ImmunetControlPacket p = q.front().item;
      q.pop();
      m_status->packet(-1);
      if (!m_dead) deliver(p, c);
    }
    if (!q.empty()) next = std::min(next, q.front().ready);
  }
  set_busy(!m_dead && logic_busy());
  // Run again next cycle while the logic works or the wires were not idle
  // (the last cycle drives and samples idle wires); else sleep until the
  // next control packet (links and detection wake it too).
  if (!m_dead && (m_busy || m_drove || m_heard))
    wake_at(c + 1);
  else if (next != ~0ULL)
    wake_at(next);
  m_status->poke();
}

void ImmunetRouter::complete() {
  if (m_dead || m_view.tables_complete) return;
  set_tables_complete(true);
  m_router.wake();
}

void ImmunetRouter::on_adopt() {
  ++m_counters.emergencies;
  set_emergency(true);
  m_ni->set_injection_stopped(true);
  // The distance-vector rebuild starts with every distance at N (section
  // 4.3). The port masks are cleared too: keeping the old masks until a
  // control packet overwrites them mixes old and new minimal directions, and
  // two routers can then send a packet back and forth on adaptive VCs (we
  // measured the network collapsing that way); with cleared masks, packets for
  // destinations not yet rebuilt take the safe ring.
  table_update_module.begin_rebuild();
  set_tables_complete(false);
}

void ImmunetRouter::on_done(std::uint64_t c) {
  const EmergencyState& s = reconfiguration_module.logic.state();
  const int ports = static_cast<int>(m_out.size());
  // The Table Update Module installs the SS table of the tree's tour
  // (Figure 5) and the provisional safe table (section 4.2).
  table_update_module.install_tree(s);
  set_emergency(false);
  m_ni->set_injection_stopped(false);
  // Table Update Module: drain the head packet of a safe queue that has no
  // room for a bubble, so the new ring cannot start deadlocked (section 4.2:
  // the safe ring is rebuilt under bubble flow control).
  for (int p = 0; p <= ports; ++p) {
    std::uint32_t id = 0;
    if (m_router.drain_safe_head(p, 2 * m_ctx->max_packet_flits, &id)) {
      m_ni->requeue_front(id);
      ++table_update_module.drained;
      ++m_counters.drained_packets;
    }
  }
  m_router.wake();
  m_counters.finished = true;
  m_counters.done_cycle = c;
  m_counters.done_epl = s.epl;
  m_counters.last_table_update_cycle = c;
  if (s.root) {
    m_counters.finished_as_root = true;
    m_counters.root_done_cycle = c;
  }
  // Optimised safe table: one control packet per node, up to the root.
  if (!s.root) send(s.parent + 1, ImmunetControlPacket{true, m_id, s.epl, 0}, c);
  // Adaptive tables: distance vector, one packet to every live neighbour.
  for (int i = 0; i < ports; ++i)
    if (reconfiguration_module.port_enable >> i & 1u) send(i + 1, ImmunetControlPacket{false, m_id, s.epl, 0}, c);
}

void ImmunetRouter::send(routing::PortId p, const ImmunetControlPacket& packet, std::uint64_t c) {
  ImmunetLink* link = m_out[static_cast<std::size_t>(p - 1)];
  if (link == nullptr || link->receiver().dead()) return;
  // Hops: every link transmission. Packets emitted: a safe-table packet is
  // created once by its origin and forwarded hop by hop up to the root (one
  // packet, depth hops); a distance-vector packet is consumed by the
  // neighbour that receives it, which emits new ones (one packet, one hop).
  (packet.safe ? m_counters.safe_control_hops : m_counters.adaptive_control_hops)++;
  if (!packet.safe)
    ++m_counters.adaptive_control_packets;
  else if (packet.origin == m_id)
    ++m_counters.safe_control_packets;
  m_status->packet(+1);
  const int flits = m_params.control_packet_flits;
  if (flits <= 0) {
    link->send(c + static_cast<std::uint64_t>(m_params.control_packet_cycles), packet);
    return;
  }
  // The first phit shows the entry (origin in the high half, distance in the
  // low half) on the data lines of the wave view.
  const std::uint32_t shown =
      static_cast<std::uint32_t>(packet.origin) << 16 | (static_cast<std::uint32_t>(packet.distance) & 0xFFFFu);
  if (!m_params.control_in_safe_vc) {
    m_router.queue_control(p, flits, shown, c, [this, link, packet, c](std::uint64_t s) { sent(*link, packet, c, s); });
    return;
  }
  // A packet in the safe VC: its content rides in the packet record's tag
  // (EPL 32 bits, origin 16, distance 15, safe 1).
  const std::uint32_t id = m_ctx->packets.allocate();
  PacketInfo& pk = m_ctx->packets[id];
  pk.control = true;
  pk.length = static_cast<std::uint16_t>(flits);
  pk.create_cycle = c;
  pk.tag = static_cast<std::uint64_t>(packet.epl) << 32 | (static_cast<std::uint64_t>(packet.origin) & 0xFFFFu) << 16 |
           (static_cast<std::uint64_t>(packet.distance) & 0x7FFFu) << 1 | (packet.safe ? 1u : 0u);
  m_router.queue_control(
      p, flits, shown, c, [this, link, packet, c](std::uint64_t s) { sent(*link, packet, c, s); }, id, on_ring(p));
}

bool ImmunetRouter::on_ring(routing::PortId p) const {
  for (int i = 0; i < ss_table.words(); ++i)
    if (ss_table.next(i) == p) return true;
  return false;
}

void ImmunetRouter::on_control_packet(std::uint32_t id, routing::PortId port, std::uint64_t c) {
  const std::uint64_t tag = m_ctx->packets[id].tag;
  ImmunetControlPacket packet;
  packet.epl = static_cast<std::uint32_t>(tag >> 32);
  packet.origin = static_cast<int>(tag >> 16 & 0xFFFFu);
  packet.distance = static_cast<int>(tag >> 1 & 0x7FFFu);
  packet.safe = (tag & 1u) != 0;
  const std::uint64_t hop = c - m_ctx->packets[id].create_cycle;
  m_counters.control_hop_cycles += hop;
  m_counters.control_hop_cycles_max = std::max(m_counters.control_hop_cycles_max, hop);
  const auto flits = static_cast<std::uint64_t>(m_params.control_packet_flits);
  ImmunetLink* in = m_in[static_cast<std::size_t>(port - 1)];
  in->send(c + static_cast<std::uint64_t>(m_params.control_packet_cycles) - flits, packet);
}

void ImmunetRouter::sent(ImmunetLink& link, const ImmunetControlPacket& packet, std::uint64_t queued, std::uint64_t s) {
  if (s == Router::kControlLost) {
    ++m_counters.lost_control_packets;
    m_status->packet(-1);
    if (m_ctx != nullptr) wake_at(now());  // the status is checked in the second half of this cycle
    return;
  }
  // A hop whose last flit left at cycle s is handled by the receiver at
  // s + control_packet_cycles - flits: at zero load (s = send + flits) that
  // is exactly control_packet_cycles after the send, so the link only adds
  // the cycles the flits waited for it.
  const auto flits = static_cast<std::uint64_t>(m_params.control_packet_flits);
  const std::uint64_t wait = s - (queued + flits);
  m_counters.control_link_flits += flits;
  m_counters.control_link_wait_cycles += wait;
  m_counters.control_link_wait_max = std::max(m_counters.control_link_wait_max, wait);
  // In the safe VC the packet is on its way to the receiver's queue
  // (on_control_packet there); as a link slot the receiver's Table Update
  // Module has it now.
  if (!m_params.control_in_safe_vc) {
    m_counters.control_hop_cycles += s - queued;
    m_counters.control_hop_cycles_max = std::max(m_counters.control_hop_cycles_max, s - queued);
    link.send(s + static_cast<std::uint64_t>(m_params.control_packet_cycles) - flits, packet);
  }
}

void ImmunetRouter::deliver(const ImmunetControlPacket& m, std::uint64_t c) {
  const EmergencyState& s = reconfiguration_module.logic.state();
  if (!s.valid || s.epl != m.epl) {  // a newer emergency is in progress: discard
    ++m_counters.stale_control_packets;
    return;
  }
  if (m.safe) {
    table_update_module.set_safe(m.origin, m.port);  // the descendant is below this port
    m_counters.last_table_update_cycle = c;
    if (!s.root) send(s.parent + 1, ImmunetControlPacket{true, m.origin, m.epl, 0}, c);
    return;
  }
  // Section 4.3, with one change to what is retransmitted: a longer distance
  // is discarded; a shorter one replaces the entry (only the arrival port's
  // column set) and is retransmitted on every other live port; an equal one
  // only sets the arrival port's column and is not retransmitted. Every
  // minimal port still ends in the mask: a node's final distance D is set by
  // a strict improvement, and each minimal neighbour's own last strict
  // improvement (to D-1) is retransmitted to it, arriving after that or tying
  // it. Retransmitting ties (the literal reading) sends one packet per
  // minimal path, which grows much faster than N^2; this sends about
  // (degree - 1) N^2, which is what section 6.1 reports ("grows as
  // n-squared").
  const int d = m.distance + 1;
  const int verdict = table_update_module.apply_distance(m.origin, m.port, d);
  if (verdict < 0) return;
  m_counters.last_table_update_cycle = c;
  m_router.wake();
  if (verdict == 0) return;
  const int ports = static_cast<int>(m_out.size());
  for (int i = 0; i < ports; ++i)
    if ((reconfiguration_module.port_enable >> i & 1u) && i + 1 != m.port)
      send(i + 1, ImmunetControlPacket{false, m.origin, m.epl, d}, c);
}

void ImmunetRouter::map_tables(TableTarget& target) {
  target.map(immunet_map::kSafeTable, safe_table, "immunet.safe_table");
  target.map(immunet_map::kAdaptiveTable, adaptive_table, "immunet.adaptive_table");
  target.map(immunet_map::kSsTable, ss_table, "immunet.ss_table");
}

void ImmunetRouter::trace(sc_core::sc_trace_file* tf, const std::string& prefix) const {
  const std::string b = prefix + ".rm.";
  const EmergencyState& s = reconfiguration_module.logic.state();
  sc_core::sc_trace(tf, s.epl, b + "epl");
  sc_core::sc_trace(tf, s.valid, b + "valid");
  sc_core::sc_trace(tf, s.root, b + "root");
  sc_core::sc_trace(tf, s.parent, b + "parent");
  sc_core::sc_trace(tf, s.children, b + "children");
  sc_core::sc_trace(tf, s.emergency, b + "emergency");
  sc_core::sc_trace(tf, s.done, b + "done");
}

RouterMechanismFactory immunet_router_factory(const KAryNCube& topo, const ImmunetParams& params) {
  const EmergencyParams ep = immunet_emergency_params(topo, params);
  return [&topo, ep, params](Router& router) -> std::unique_ptr<RouterMechanism> {
    return std::make_unique<ImmunetRouter>("immunet", topo, router, ep, params);
  };
}

}  // namespace ftsim::hw
