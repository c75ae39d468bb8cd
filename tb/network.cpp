#include "tb/network.hpp"

#include "common/text_input.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <unordered_set>

#include <fmt/format.h>

#include <cctype>

#include "hw/current_cycle.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/updown.hpp"
#include "tb/mechanisms/builtin_hardware.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;
using routing::PortPeer;

std::string sc_name_of(const std::string& label) {
  std::string out;
  for (char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::uint64_t estimated_memory_bytes(const routing::Topology& t, const ExperimentConfig& cfg) {
  // Measured (docs/performance.md, "Memory", 2026-11-27): 48 KB per router
  // with its network interface, generator and sink on a 100x100 mesh with 2
  // VCs of 8 flits, 77 KB with 8 VCs of 32 flits; 40 KB plus 1 KB per input
  // VC (radix x vcs of them) covers both with a few percent to spare. (The
  // earlier 32 KB + 0.5 KB had fallen 20-30% short as the router grew.)
  std::uint64_t per_router = 40 * 1024;
  per_router += static_cast<std::uint64_t>(t.max_radix()) * static_cast<std::uint64_t>(cfg.router.vcs) * 1024;
  return static_cast<std::uint64_t>(t.num_routers()) * per_router + 16ULL * 1024 * 1024;
}

void Network::check_memory(const routing::Topology& t, const ExperimentConfig& cfg) {
  const std::uint64_t need = estimated_memory_bytes(t, cfg);
  const std::uint64_t have = ftsim::available_memory_bytes();
  if (have > 0 && need > have / 10 * 9)
    throw ConfigError(fmt::format(
        "topology {}: {} routers need about {:.1f} GiB, but this machine has {:.1f} GiB "
        "available; choose a smaller network",
        t.spec(), t.num_routers(), static_cast<double>(need) / (1ULL << 30), static_cast<double>(have) / (1ULL << 30)));
}

Network::Network(sc_core::sc_module_name name, const ExperimentConfig& cfg, const NetworkOptions& options)
    : sc_module(name),
      clk("clk", sc_core::sc_time(cfg.sim.period_ns, sc_core::SC_NS)),
      router_clock("router_clock"),
      routers("router"),
      interfaces("ni"),
      generators("gen"),
      endpoints("endpoint"),
      phase_endpoints("phase_endpoint"),
      trace_endpoints("trace_endpoint") {
  m_topo = routing::make_topology(cfg.topology);
  setup_relation_and_context(cfg);
  router_clock.clk(clk);
  if (cfg.sim.router_processes == "shared")
    m_ctx.router_clock = &router_clock;  // the routers built below register with it
  m_pattern = std::make_unique<TrafficPattern>(*m_topo, cfg.traffic);
  check_memory(*m_topo, cfg);
  for (int i = 0; i < 2 * m_topo->num_links(); ++i) {
    m_dirs.push_back(std::make_unique<hw::LinkDirection>());
    m_dirs.back()->link_id = i / 2;
  }
  // The active mechanisms (tb/mechanism_registry.hpp); the one with
  // per-router hardware gives each router a factory for its child module.
  build_routers_and_interfaces(cfg, router_hardware(cfg));
  if (options.traffic_endpoints) build_traffic_endpoints(cfg);
  build_tables_and_management();
  // The mechanisms' network-wide parts.
  for (const auto& m : m_mechanisms)
    if (m.elaborate) m.elaborate(*this, cfg);
}

void Network::setup_relation_and_context(const ExperimentConfig& cfg) {
  // The active mechanisms (tb/mechanism_registry.hpp) with their SystemC
  // halves; they set their parameters of the relation.
  m_mechanisms = active_mechanisms(cfg);
  add_builtin_hardware(m_mechanisms);
  m_relation = routing::make_routing(cfg.routing);
  for (const auto& m : m_mechanisms)
    if (m.configure_relation) m.configure_relation(*m_relation, cfg);
  m_relation->configure(*m_topo, cfg.router.vcs);
  // Packets carry the relation's extra header flits (intermediate-node
  // subheaders) on top of traffic.packet_flits.
  const int max_len = cfg.traffic.max_packet_flits() + m_relation->max_header_overhead_flits(cfg.traffic.flit_bytes);
  if (cfg.router.vct && cfg.router.buffer_flits < max_len)
    throw ConfigError(fmt::format(
        "router.buffer_flits = {}: virtual cut-through needs room for the longest packet, {} flits with the routing "
        "header; allowed {}..4096",
        cfg.router.buffer_flits, max_len, max_len));
  if (m_relation->needs_bubble()) {
    if (!cfg.router.vct)
      throw ConfigError(fmt::format(
          "routing '{}' on {} uses bubble flow control, which needs router.flow_control = vct (got wormhole)",
          cfg.routing, cfg.topology));
    if (cfg.router.buffer_flits < 2 * max_len)
      throw ConfigError(fmt::format(
          "router.buffer_flits = {}: bubble flow control needs room for two packets of {} flits; allowed {}..4096",
          cfg.router.buffer_flits, max_len, 2 * max_len));
  }
  if (max_len > 65535) throw ConfigError("traffic.packet_flits: at most 65535 flits per packet");
  m_ctx.params = cfg.router;
  m_ctx.relation = m_relation.get();
  m_ctx.topology = m_topo.get();
  m_ctx.max_packet_flits = max_len;
  m_ctx.period_ticks = clk.period().value();
  for (auto* v : {&m_ctx.stats.router_crossbar, &m_ctx.stats.router_ejected, &m_ctx.stats.router_heads,
                  &m_ctx.stats.router_arrivals, &m_ctx.stats.node_arrivals})
    v->assign(static_cast<std::size_t>(m_topo->num_routers()), 0);
  m_ctx.stats.window_start = static_cast<std::uint64_t>(cfg.sim.warmup_cycles);
  m_ctx.stats.window_end = static_cast<std::uint64_t>(cfg.sim.warmup_cycles + cfg.sim.measure_cycles);
}

hw::RouterMechanismFactory Network::router_hardware(const ExperimentConfig& cfg) {
  const routing::Topology& t = *m_topo;
  hw::RouterMechanismFactory mechanism;
  std::string hardware_of;
  for (const auto& m : m_mechanisms) {
    hw::RouterMechanismFactory f = m.router_hardware ? m.router_hardware(cfg, t, *m_relation) : nullptr;
    if (!f) continue;
    if (mechanism)
      throw ConfigError(
          fmt::format("mechanisms '{}' and '{}' both need per-router hardware; choose one", hardware_of, m.name));
    mechanism = std::move(f);
    hardware_of = m.name;
  }
  return mechanism;
}

void Network::build_routers_and_interfaces(const ExperimentConfig& cfg, const hw::RouterMechanismFactory& mechanism) {
  const routing::Topology& t = *m_topo;
  routers.init(t.num_routers(), [&](const char*, std::size_t r) {
    return new hw::Router(("router_" + sc_name_of(t.router_label(static_cast<int>(r)))).c_str(), static_cast<int>(r),
                          t.radix(static_cast<int>(r)), m_ctx, mechanism);
  });
  interfaces.init(t.num_nodes(), [&](const char*, std::size_t n) {
    return new hw::NetworkInterface(("ni_" + sc_name_of(t.node_label(static_cast<int>(n)))).c_str(),
                                    static_cast<int>(n), m_ctx, cfg.traffic.flit_bytes);
  });
  for (routing::RouterId r = 0; r < t.num_routers(); ++r) {
    routers[r].clk(clk);
    for (routing::PortId p = 0; p < t.radix(r); ++p) {
      const PortPeer& pp = t.peer(r, p);
      if (pp.kind == PortPeer::Kind::kRouter) {
        const auto [into, out_of] = port_directions(r, p);
        routers[r].bind_port(p, into, out_of, false);
      } else if (pp.kind == PortPeer::Kind::kNode) {
        hw::LinkDirection* to_router;
        hw::LinkDirection* from_router;
        if (pp.link == routing::kNone) {
          m_node_dirs.push_back(std::make_unique<hw::LinkDirection>());
          to_router = m_node_dirs.back().get();
          m_node_dirs.push_back(std::make_unique<hw::LinkDirection>());
          from_router = m_node_dirs.back().get();
        } else {
          from_router = &direction(pp.link, true);
          to_router = &direction(pp.link, false);
        }
        routers[r].bind_port(p, to_router, from_router, true);
        interfaces[pp.id].bind(to_router, from_router, &routers[r]);
        routers[r].attach_interface(&interfaces[pp.id]);
      }
    }
  }
}

namespace {
/// Creates one endpoint per node (`make(name, node)`) in place of a
/// generator and a sink: bound to the node's interface both ways, and handed
/// to `each` (a controller's add, or nothing).
template <typename Endpoint, typename Make, typename Each>
void bind_endpoints(sc_core::sc_vector<Endpoint>& v, sc_core::sc_vector<hw::NetworkInterface>& interfaces,
                    const routing::Topology& t, const std::string& prefix, Make make, Each each) {
  v.init(static_cast<std::size_t>(t.num_nodes()), [&](const char*, std::size_t n) {
    return make((prefix + sc_name_of(t.node_label(static_cast<int>(n)))).c_str(), static_cast<int>(n));
  });
  for (routing::NodeId n = 0; n < t.num_nodes(); ++n) {
    v[static_cast<std::size_t>(n)].socket.bind(interfaces[static_cast<std::size_t>(n)].target);
    interfaces[static_cast<std::size_t>(n)].deliver.bind(v[static_cast<std::size_t>(n)].deliveries);
    each(v[static_cast<std::size_t>(n)]);
  }
}
}  // namespace

void Network::build_traffic_endpoints(const ExperimentConfig& cfg) {
  const routing::Topology& t = *m_topo;
  if (cfg.traffic.traced()) {
    auto records = load_trace(cfg.traffic.trace, t.num_nodes(), cfg.traffic.flit_bytes);
    if (cfg.router.vct)
      for (const auto& r : records)
        if (r.flits > cfg.router.buffer_flits)
          throw ConfigError(
              fmt::format("{}: packet {} has {} flits; virtual cut-through needs router.buffer_flits >= "
                          "{} (it is {})",
                          cfg.traffic.trace, r.id, r.flits, r.flits, cfg.router.buffer_flits));
    trace_controller = std::make_unique<TraceController>("trace", std::move(records), m_ctx.stats, clk.period());
    bind_endpoints(
        trace_endpoints, interfaces, t, "trace_endpoint_",
        [&](const char* name, int) { return new TraceEndpoint(name, *trace_controller, cfg.traffic.flit_bytes); },
        [&](TraceEndpoint& e) { trace_controller->add(e); });
    return;
  }
  if (cfg.traffic.phased()) {
    phase_controller = std::make_unique<PhaseController>("phases", t, cfg.traffic, m_ctx.stats, clk.period());
    bind_endpoints(
        phase_endpoints, interfaces, t, "phase_endpoint_",
        [&](const char* name, int n) {
          return new PhaseEndpoint(name, n, *phase_controller, derive_seed(cfg.sim.seed, static_cast<std::size_t>(n)),
                                   clk.period());
        },
        [&](PhaseEndpoint& e) { phase_controller->add(e); });
    return;
  }
  if (cfg.traffic.closed_loop()) {
    bind_endpoints(
        endpoints, interfaces, t, "endpoint_",
        [&](const char* name, int n) {
          return new RequestReplyEndpoint(name, n, *m_pattern, cfg.traffic,
                                          derive_seed(cfg.sim.seed, static_cast<std::size_t>(n)), clk.period(),
                                          m_ctx.stats);
        },
        [](RequestReplyEndpoint&) {});
    return;
  }
  injection_calendar = std::make_unique<InjectionCalendar>("injection_calendar", clk.period());
  generators.init(t.num_nodes(), [&](const char*, std::size_t n) {
    return new TrafficGenerator(("gen_" + sc_name_of(t.node_label(static_cast<int>(n)))).c_str(), static_cast<int>(n),
                                *m_pattern, cfg.traffic, derive_seed(cfg.sim.seed, n), clk.period(),
                                injection_calendar.get());
  });
  sinks.resize(static_cast<std::size_t>(t.num_nodes()));
  sink_target = std::make_unique<MessageSinks>("sinks", sinks);
  for (routing::NodeId n = 0; n < t.num_nodes(); ++n) {
    generators[n].socket.bind(interfaces[n].target);
    interfaces[n].deliver.bind(sink_target->socket);
  }
}

void Network::build_tables_and_management() {
  const routing::Topology& t = *m_topo;
  // Forwarding tables (boot-time back-door) for table-driven relations.
  if (const auto* ud = dynamic_cast<const routing::UpDownRouting*>(m_relation.get())) {
    for (routing::RouterId r = 0; r < t.num_routers(); ++r) {
      auto& table = routers[r].forwarding_table();
      table.resize(t.num_nodes(), t.radix(r));
      for (routing::NodeId d = 0; d < t.num_nodes(); ++d) table.set(d, ud->down_port(r, d));
    }
  }
  for (routing::RouterId r = 0; r < t.num_routers(); ++r)
    table_targets.emplace_back(std::string(name()) + ".table_" + sc_name_of(t.router_label(r)),
                               routers[r].forwarding_table());
  management_targets = std::make_unique<hw::ManagementTargets>("management_targets", table_targets);
  management = std::make_unique<hw::ManagementBus>("management", t.num_routers());
  for (routing::RouterId r = 0; r < t.num_routers(); ++r)
    if (hw::RouterMechanism* m = routers[r].mechanism()) m->map_tables(table_targets[static_cast<std::size_t>(r)]);
  management->socket.bind(management_targets->socket);
}

Network::~Network() = default;

void Network::load_forwarding_tables(const std::vector<std::vector<std::int32_t>>& tables) {
  for (routing::RouterId r = 0; r < m_topo->num_routers(); ++r) {
    auto& table = routers[r].forwarding_table();
    table.resize(m_topo->num_nodes(), m_topo->radix(r));
    for (routing::NodeId d = 0; d < m_topo->num_nodes(); ++d)
      table.set(d, tables[static_cast<std::size_t>(r)][static_cast<std::size_t>(d)]);
  }
}

std::pair<hw::LinkDirection*, hw::LinkDirection*> Network::port_directions(routing::RouterId r, routing::PortId p) {
  const routing::Link& lk = m_topo->link(m_topo->peer(r, p).link);
  const bool is_a = lk.a == r && lk.a_port == p;  // the forward direction leaves end a
  return {&direction(lk.id, !is_a), &direction(lk.id, is_a)};
}

std::uint64_t Network::cycle() const {
  return hw::current_cycle(m_ctx);
}

void Network::fail_link(routing::LinkId l) {
  for (bool fwd : {true, false}) {
    hw::LinkDirection& d = direction(l, fwd);
    if (d.failed) continue;
    d.failed = true;
    d.alive = false;
    for (std::size_t i = 0; i < d.flits().size(); ++i)
      m_ctx.drop_on_failed_link(d.flits().at(i).item.packet, hw::NetworkContext::LinkLoss::kOnLink);
    d.clear();
    if (d.receiver != nullptr) d.receiver->wake();
    if (d.sender != nullptr) d.sender->wake();
  }
}

void Network::repair_link(routing::LinkId l) {
  const routing::Link& lk = m_topo->link(l);
  for (const bool fwd : {true, false}) {
    direction(l, fwd).failed = false;
    direction(l, fwd).alive = true;
  }
  auto occupancy = [&](routing::RouterId r, routing::PortId p) {
    std::vector<int> occ(m_ctx.params.vcs);
    for (int v = 0; v < m_ctx.params.vcs; ++v) occ[v] = routers[r].input_occupancy(p, v);
    return occ;
  };
  if (lk.b_is_node) {
    interfaces[lk.b].resync_credits(occupancy(lk.a, lk.a_port));
  } else {
    routers[lk.a].resync_credits(lk.a_port, occupancy(lk.b, lk.b_port), routers[lk.b].lane_occupancy(lk.b_port));
    routers[lk.b].resync_credits(lk.b_port, occupancy(lk.a, lk.a_port), routers[lk.a].lane_occupancy(lk.a_port));
  }
  routers[lk.a].wake();
}

void Network::set_link_detected(routing::LinkId l, bool alive) {
  const routing::Link& lk = m_topo->link(l);
  if (!lk.b_is_node)
    for (const auto& m : m_mechanisms)
      if (m.link_detected) m.link_detected(*this, l, alive);
  routers[lk.a].set_port_alive(lk.a_port, alive);
  routers[lk.a].wake();
  if (!lk.b_is_node) {
    routers[lk.b].set_port_alive(lk.b_port, alive);
    routers[lk.b].wake();
  }
}

void Network::fault_detected(routing::LinkId l, std::uint64_t fail_cycle) {
  for (const auto& m : m_mechanisms)
    if (m.fault_detected) m.fault_detected(*this, l, fail_cycle);
}

void Network::add_part(const std::string& mechanism, std::unique_ptr<sc_core::sc_module> part) {
  if (this->part(mechanism) != nullptr)
    throw std::logic_error("mechanism '" + mechanism + "' already has a network-wide part");
  m_parts.emplace_back(mechanism, std::move(part));
}

sc_core::sc_module* Network::part(const std::string& mechanism) const {
  for (const auto& [name, p] : m_parts)
    if (name == mechanism) return p.get();
  return nullptr;
}

bool Network::reports_lost_nodes() const {
  for (const auto& m : m_mechanisms)
    if (m.reports_lost_nodes) return true;
  return false;
}

bool Network::reconfiguration_busy() const {
  for (const auto& m : m_mechanisms)
    if (m.busy && m.busy(*this)) return true;
  return false;
}

void Network::gather_energy_events() {
  auto& st = m_ctx.stats;
  if (st.router_crossbar.size() != routers.size()) return;  // not sized: no counters kept
  std::fill(st.router_crossbar.begin(), st.router_crossbar.end(), 0);
  std::fill(st.router_ejected.begin(), st.router_ejected.end(), 0);
  std::fill(st.router_heads.begin(), st.router_heads.end(), 0);
  st.router_arrivals = st.node_arrivals;
  for (const hw::Router& r : routers) {
    const auto me = static_cast<std::size_t>(r.id());
    for (int p = 0; p < r.radix(); ++p) {
      const hw::OutputUnit& op = r.output_unit(p);
      st.router_crossbar[me] += op.flits_sent;
      st.router_heads[me] += op.heads_sent;
      if (op.ejection)
        st.router_ejected[me] += op.flits_sent;
      else if (op.link != nullptr && op.link->receiver != nullptr)
        st.router_arrivals[static_cast<std::size_t>(op.link->receiver->id())] += op.flits_sent;
    }
  }
}

void Network::fail_router(routing::RouterId r) {
  for (const auto& m : m_mechanisms)
    if (m.router_failed) m.router_failed(*this, r);
  routers[r].fail();
  for (routing::PortId p = 0; p < m_topo->radix(r); ++p) {
    const PortPeer& pp = m_topo->peer(r, p);
    if (pp.link != routing::kNone) fail_link(pp.link);
  }
}

void Network::set_traffic_components(const std::vector<int>& comp) {
  m_pattern->set_components(comp);
  if (phase_controller) phase_controller->set_components(comp);
  const int live = static_cast<int>(std::count_if(comp.begin(), comp.end(), [](int c) { return c >= 0; }));
  const std::uint64_t now = sc_core::sc_get_status() == sc_core::SC_ELABORATION ? 0 : cycle();
  while (!m_live_log.empty() && m_live_log.back().first >= now) m_live_log.pop_back();
  m_live_log.emplace_back(now, live);
}

void Network::update_traffic_components(const routing::FaultSet& permanent) {
  set_traffic_components(routing::node_components(*m_topo, permanent));
}

double Network::live_node_cycles(std::uint64_t from, std::uint64_t to) const {
  double sum = 0;
  for (std::size_t i = 0; i < m_live_log.size(); ++i) {
    const std::uint64_t a = std::max(from, m_live_log[i].first);
    const std::uint64_t b = i + 1 < m_live_log.size() ? std::min(to, m_live_log[i + 1].first) : to;
    if (b > a) sum += static_cast<double>(m_live_log[i].second) * static_cast<double>(b - a);
  }
  if (m_live_log.empty() || m_live_log.front().first > from) {  // before any record: every node
    const std::uint64_t b = m_live_log.empty() ? to : std::min(to, m_live_log.front().first);
    if (b > from) sum += static_cast<double>(m_topo->num_nodes()) * static_cast<double>(b - from);
  }
  return sum;
}

Network::InFlight Network::scan_in_flight() const {
  std::vector<char> seen(m_ctx.packets.capacity(), 0);
  InFlight out;
  auto mark = [&](std::uint32_t id, std::uint64_t& counter) {
    const hw::PacketInfo& p = m_ctx.packets[id];
    if (!p.live || p.dropped || p.control || seen[id]) return;  // control packets are not traffic
    seen[id] = 1;
    ++counter;
  };
  for (const auto& r : routers)
    for (int p = 0; p < r.radix(); ++p)
      for (int q = 0; q < r.queues_per_port(); ++q) {
        const auto& fifo = r.input_queue(p, q).fifo;
        for (std::size_t i = 0; i < fifo.size(); ++i) mark(fifo.at(i).item.packet, out.in_network);
      }
  for (const auto* dirs : {&m_dirs, &m_node_dirs})
    for (const auto& d : *dirs)
      for (std::size_t i = 0; i < d->flits().size(); ++i) mark(d->flits().at(i).item.packet, out.in_network);
  for (const auto& ni : interfaces) {
    for (const auto& in : ni.injecting()) mark(in.packet, out.in_network);
    for (std::uint32_t id : ni.source_queue()) mark(id, out.source_queued);
  }
  return out;
}

std::uint64_t Network::buffered_flits() const {
  std::uint64_t n = 0;
  for (const auto& r : routers) n += static_cast<std::uint64_t>(r.buffered_flits());
  return n;
}

Network::OldestFlit Network::oldest_waiting_flit() const {
  OldestFlit o;
  const hw::Router* at = nullptr;
  int port = 0;
  int vc = 0;
  for (const auto& r : routers)
    for (int p = 0; p < r.radix(); ++p) {
      if (m_topo->peer(r.id(), p).kind != PortPeer::Kind::kRouter) continue;  // injection may starve by design
      for (int v = 0; v < r.queues_per_port(); ++v) {
        const auto& fifo = r.input_queue(p, v).fifo;
        if (fifo.empty() || (o.found && fifo.front().ready >= o.since)) continue;
        o.found = true;
        o.since = fifo.front().ready;
        at = &r;
        port = p;
        vc = v;
        o.router = r.id();
        o.port = p;
        o.queue = v;
      }
    }
  if (o.found) {
    const std::uint32_t id = at->input_queue(port, vc).fifo.front().item.packet;
    o.where = fmt::format("{}.input_{}.{} (packet {}, {}->{})", at->name(), m_topo->port_name(at->id(), port),
                          at->queue_name(vc), id, m_ctx.packets[id].header.src, m_ctx.packets[id].header.dst);
  }
  return o;
}

std::vector<std::string> Network::blocked_vcs(std::size_t limit) const {
  std::vector<std::string> out;
  static const char* kState[] = {"idle", "vc_alloc", "active"};
  for (const auto& r : routers)
    for (int p = 0; p < r.radix(); ++p)
      for (int v = 0; v < r.queues_per_port(); ++v) {
        const hw::InputVc& iv = r.input_queue(p, v);
        if (iv.fifo.empty()) continue;
        if (out.size() >= limit) return out;
        std::string s =
            fmt::format("{}.input_{}.{}: {} flits, {} packet {} ({}->{})", r.name(), m_topo->port_name(r.id(), p),
                        r.queue_name(v), iv.fifo.size(), kState[static_cast<int>(iv.state)], iv.packet,
                        m_ctx.packets[iv.packet].header.src, m_ctx.packets[iv.packet].header.dst);
        if (iv.state == hw::InputVc::State::kActive)
          s += fmt::format(", holds output {} vc {} with {} credits", m_topo->port_name(r.id(), iv.out_port), iv.out_vc,
                           r.output_vc(iv.out_port, iv.out_vc).credits);
        if (iv.state == hw::InputVc::State::kVcAlloc) {
          s += ", wants";
          for (const auto& cnd : iv.route) {
            s += fmt::format(" {}:", m_topo->port_name(r.id(), cnd.port));
            for (int w = 0; w < m_ctx.params.vcs; ++w)
              if (cnd.vc_mask >> w & 1U)
                s += fmt::format("vc{}({}cr{}{})", w, r.output_vc(cnd.port, w).credits,
                                 r.output_vc(cnd.port, w).allocated ? ",alloc" : "", cnd.enters_ring ? ",bubble" : "");
          }
        }
        out.push_back(s);
      }
  return out;
}

Network::WaitFor Network::wait_for_from(int router, int port, int queue) const {
  const int vcs = m_ctx.params.vcs;
  const int nq = routers[0].queues_per_port();
  const int lanes = routers[0].queues_per_vc();
  const int maxr = m_topo->max_radix();
  auto key = [&](int r, int p, int q) { return (r * maxr + p) * nq + q; };
  auto name = [&](int id) {
    const int cr = id / nq / maxr;
    const int cp = (id / nq) % maxr;
    return fmt::format("{}.input_{}.{}", routers[cr].name(), m_topo->port_name(cr, cp),
                       routers[cr].queue_name(id % nq));
  };
  // The non-empty downstream input queue of output (op, ov) of router r, or -1.
  auto downstream = [&](int r, int op, int ov) -> int {
    const PortPeer& pp = m_topo->peer(r, op);
    if (pp.kind != PortPeer::Kind::kRouter) return -1;
    for (int l = 0; l < lanes; ++l)
      if (!routers[pp.id].input_queue(pp.port, ov * lanes + l).fifo.empty()) return key(pp.id, pp.port, ov * lanes + l);
    return -1;
  };
  // The input queue of router r that holds output VC (op, ov); when its
  // flits have all left, the queue upstream that still feeds it (a wormhole
  // packet spread over several routers), up to a few hops. -1 when none.
  std::function<int(int, int, int, int)> holder = [&](int r, int op, int ov, int depth) -> int {
    for (int ip = 0; ip < routers[r].radix(); ++ip)
      for (int q = 0; q < nq; ++q) {
        const hw::InputVc& o = routers[r].input_queue(ip, q);
        if (o.state != hw::InputVc::State::kActive || o.out_port != op || o.out_vc != ov) continue;
        if (!o.fifo.empty()) return key(r, ip, q);
        const PortPeer& up = m_topo->peer(r, ip);
        if (up.kind != PortPeer::Kind::kRouter || depth >= 64) return -1;
        return holder(up.id, up.port, q / lanes, depth + 1);
      }
    return -1;
  };
  // What queue `id` waits for: the downstream queue of the output VC it
  // holds (for room); for a head still in VC allocation, the input queue
  // that holds the output VC it requests (until its tail leaves), else that
  // VC's downstream queue. -1: it waits for no other queue.
  auto next = [&](int id) -> int {
    const int r = id / nq / maxr;
    const int p = (id / nq) % maxr;
    const hw::InputVc& iv = routers[r].input_queue(p, id % nq);
    if (iv.fifo.empty()) return -1;
    if (iv.state == hw::InputVc::State::kActive) return downstream(r, iv.out_port, iv.out_vc);
    if (iv.state != hw::InputVc::State::kVcAlloc || iv.route.size == 0) return -1;
    const int op = iv.route.items[0].port;
    int ov = -1;
    for (int w = 0; w < vcs && ov < 0; ++w)
      if (iv.route.items[0].vc_mask >> w & 1U) ov = w;
    if (ov < 0) return -1;
    if (routers[r].output_vc(op, ov).allocated) return holder(r, op, ov, 0);
    return downstream(r, op, ov);
  };
  WaitFor out;
  std::vector<int> path;
  std::unordered_set<int> seen;
  int cur = key(router, port, queue);
  int last = cur;
  while (cur >= 0 && seen.insert(cur).second) {
    path.push_back(cur);
    last = cur;
    cur = next(cur);
  }
  if (cur >= 0) {  // back on the path: a cycle
    out.cycle = true;
    std::size_t start = 0;
    while (path[start] != cur) ++start;
    for (std::size_t i = start; i < path.size(); ++i) out.path.push_back(name(path[i]));
    out.path.push_back(out.path.front());
    return out;
  }
  for (int id : path) out.path.push_back(name(id));
  out.end = name(last);
  const int lr = last / nq / maxr;
  const int lp = (last / nq) % maxr;
  const hw::InputVc& end = routers[lr].input_queue(lp, last % nq);
  out.end_head_since = end.fifo.front().ready;
  const int want = end.state == hw::InputVc::State::kActive                          ? end.out_port
                   : end.state == hw::InputVc::State::kVcAlloc && end.route.size > 0 ? end.route.items[0].port
                                                                                     : -1;
  out.end_requests_dead_port = want >= 0 && (routers[lr].port_alive_mask() >> want & 1U) == 0;
  return out;
}

std::vector<std::string> Network::wait_for_chain() const {
  // Node = (router, port, input queue). A blocked queue waits for the
  // downstream input VC it holds (active) or for the first candidate's
  // downstream VC (vc_alloc); with virtual output queues, for that VC's first
  // non-empty queue.
  const int vcs = m_ctx.params.vcs;
  const int nq = routers[0].queues_per_port();
  const int lanes = routers[0].queues_per_vc();
  const int maxr = m_topo->max_radix();
  auto key = [&](int r, int p, int q) { return (r * maxr + p) * nq + q; };
  auto next = [&](int r, int p, int q) -> int {
    const hw::InputVc& iv = routers[r].input_queue(p, q);
    if (iv.fifo.empty()) return -1;
    int op = -1;
    int ov = -1;
    if (iv.state == hw::InputVc::State::kActive) {
      op = iv.out_port;
      ov = iv.out_vc;
    } else if (iv.state == hw::InputVc::State::kVcAlloc && iv.route.size > 0) {
      op = iv.route.items[0].port;
      for (int w = 0; w < vcs; ++w)
        if (iv.route.items[0].vc_mask >> w & 1U) {
          ov = w;
          break;
        }
    }
    if (op < 0 || ov < 0) return -1;
    const PortPeer& pp = m_topo->peer(r, op);
    if (pp.kind != PortPeer::Kind::kRouter) return -1;
    int dq = ov * lanes;
    for (int l = 0; l < lanes; ++l)
      if (!routers[pp.id].input_queue(pp.port, ov * lanes + l).fifo.empty()) {
        dq = ov * lanes + l;
        break;
      }
    return key(pp.id, pp.port, dq);
  };
  std::vector<std::string> chain;
  for (const auto& r : routers)
    for (int p = 0; p < r.radix(); ++p)
      for (int q = 0; q < nq; ++q) {
        if (r.input_queue(p, q).fifo.empty()) continue;
        std::vector<int> path;
        std::vector<char> on_path(static_cast<std::size_t>(m_topo->num_routers()) * maxr * nq, 0);
        int cur = key(r.id(), p, q);
        while (cur >= 0 && !on_path[cur]) {
          on_path[cur] = 1;
          path.push_back(cur);
          const int cr = cur / nq / maxr;
          const int cp = (cur / nq) % maxr;
          cur = next(cr, cp, cur % nq);
        }
        if (cur < 0) continue;  // chain ends at a queue that can move: not a cycle through this start
        std::size_t start = 0;
        while (path[start] != cur) ++start;
        for (std::size_t i = start; i < path.size(); ++i) {
          const int id = path[i];
          const int cr = id / nq / maxr;
          const int cp = (id / nq) % maxr;
          chain.push_back(fmt::format("{}.input_{}.{}", routers[cr].name(), m_topo->port_name(cr, cp),
                                      routers[cr].queue_name(id % nq)));
        }
        chain.push_back(chain.front());
        return chain;
      }
  return chain;
}

void Network::trace(sc_core::sc_trace_file* tf, const std::vector<char>& selected) const {
  sc_core::sc_trace(tf, clk, std::string(name()) + ".clk");
  for (std::size_t r = 0; r < routers.size(); ++r)
    if (selected.empty() || selected[r]) routers[r].trace(tf);
}

std::vector<char> parse_router_selection(const routing::Topology& topo, const std::string& spec) {
  std::vector<char> out(static_cast<std::size_t>(topo.num_routers()), 0);
  const auto* cube = dynamic_cast<const routing::KAryNCube*>(&topo);
  std::string ranges;
  if (cube != nullptr)
    for (int d = 0; d < cube->dimensions(); ++d) ranges += fmt::format("{}0..{}", d ? "," : "", cube->radix_of(d) - 1);
  const std::string hint = cube != nullptr
                               ? fmt::format("router labels like {} or regions like {}", topo.router_label(0), ranges)
                               : fmt::format("router labels like {}", topo.router_label(0));
  std::string token;
  int tokens = 0;
  auto take = [&](const std::string& tok) {
    if (tok.empty()) return;
    ++tokens;
    if (tok == "all") {
      std::fill(out.begin(), out.end(), 1);
      return;
    }
    if (tok.find("..") == std::string::npos) {
      try {
        out[static_cast<std::size_t>(topo.parse_router(tok))] = 1;
      } catch (const ConfigError& e) {
        throw ConfigError(fmt::format("--trace-routers '{}': {}; use {}", tok, e.what(), hint));
      }
      return;
    }
    if (cube == nullptr)
      throw ConfigError(
          fmt::format("--trace-routers '{}': regions need a mesh or torus; {} takes {}", tok, topo.spec(), hint));
    // Region: per dimension N or A..B.
    std::vector<std::pair<int, int>> lo_hi;
    std::size_t start = 0;
    while (start <= tok.size()) {
      const std::size_t comma = tok.find(',', start);
      const std::string field = tok.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const std::size_t dots = field.find("..");
      try {
        std::size_t used = 0;
        const std::string a = dots == std::string::npos ? field : field.substr(0, dots);
        const std::string b = dots == std::string::npos ? field : field.substr(dots + 2);
        const int lo = std::stoi(a, &used);
        if (used != a.size()) throw std::invalid_argument(a);
        const int hi = std::stoi(b, &used);
        if (used != b.size()) throw std::invalid_argument(b);
        lo_hi.emplace_back(lo, hi);
      } catch (const std::exception&) {
        throw ConfigError(fmt::format("--trace-routers '{}': '{}' is not N or A..B; use {}", tok, field, hint));
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (static_cast<int>(lo_hi.size()) != cube->dimensions())
      throw ConfigError(fmt::format("--trace-routers '{}': {} has {} dimensions; use {}", tok, topo.spec(),
                                    cube->dimensions(), hint));
    for (int d = 0; d < cube->dimensions(); ++d) {
      const auto [lo, hi] = lo_hi[static_cast<std::size_t>(d)];
      if (lo < 0 || hi >= cube->radix_of(d) || lo > hi)
        throw ConfigError(fmt::format("--trace-routers '{}': coordinate {} range {}..{} outside 0..{}", tok, d, lo, hi,
                                      cube->radix_of(d) - 1));
    }
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      bool inside = true;
      for (int d = 0; d < cube->dimensions() && inside; ++d) {
        const int c = cube->coord(r, d);
        inside = c >= lo_hi[static_cast<std::size_t>(d)].first && c <= lo_hi[static_cast<std::size_t>(d)].second;
      }
      if (inside) out[static_cast<std::size_t>(r)] = 1;
    }
  };
  for (char c : spec) {
    if (c == ';' || std::isspace(static_cast<unsigned char>(c))) {
      take(token);
      token.clear();
    } else {
      token += c;
    }
  }
  take(token);
  if (tokens == 0) throw ConfigError(fmt::format("--trace-routers: no router given; use {}", hint));
  return out;
}

}  // namespace ftsim::tb
