// A whole network: topology, routing relation, routers, network interfaces,
// links, management-plane table targets, traffic generators and sinks.
#pragma once
#include <systemc>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "hw/management_bus.hpp"
#include "hw/network_interface.hpp"
#include "hw/router.hpp"
#include "hw/subnet_manager.hpp"
#include "hw/table_target.hpp"
#include "routing_logic/fault_set.hpp"
#include "tb/experiment_config.hpp"
#include "tb/mechanism_registry.hpp"
#include "tb/phases.hpp"
#include "tb/request_reply.hpp"
#include "tb/trace_workload.hpp"
#include "tb/traffic_generator.hpp"

namespace ftsim::tb {

/// Estimated memory of a network before any traffic, bytes: 40 KB per
/// router plus 1 KB per input VC plus 16 MiB (measured on meshes of
/// 2,500-10,000 routers on 2026-11-27; since issue 54's sixth stage the
/// 2-VC mesh needs about 35 KB per router, so the estimate errs high).
std::uint64_t estimated_memory_bytes(const routing::Topology& t, const ExperimentConfig& cfg);

/// What a Network builds besides the routers, interfaces and links.
struct NetworkOptions {
  /// true: one TrafficGenerator (traffic.* of the experiment) and one
  /// MessageSink per node, bound to the interfaces (the sinks through one
  /// MessageSinks target). false: none; the user
  /// binds their own TLM-2.0 initiator to each `interfaces[n].target`
  /// (b_transport, address = destination node, data length = message bytes)
  /// and their own target to each `interfaces[n].deliver` before simulation
  /// starts. An unbound socket is an SystemC elaboration error.
  bool traffic_endpoints = true;
};

/// Elaborates the network described by an experiment under the module name
/// given (use "net" so that waves read net.router_1_2.input_east.vc1).
/// Throws ftsim::ConfigError for an unknown topology or routing, too few VCs
/// for the routing, bubble flow control without VCT or with queues shorter
/// than two packets.
class Network : public sc_core::sc_module {
 public:
  Network(sc_core::sc_module_name name, const ExperimentConfig& cfg, const NetworkOptions& options = {});
  ~Network() override;

  sc_core::sc_clock clk;
  /// Ticks every router (one process for the network, hw::RouterClock).
  hw::RouterClock router_clock;
  sc_core::sc_vector<hw::Router> routers;
  sc_core::sc_vector<hw::NetworkInterface> interfaces;
  /// One per router (its table map), behind `management_targets`.
  std::deque<hw::TableTarget> table_targets;
  /// The TLM-2.0 target of every router's management port.
  std::unique_ptr<hw::ManagementTargets> management_targets;
  /// Empty when NetworkOptions::traffic_endpoints is false.
  sc_core::sc_vector<TrafficGenerator> generators;
  /// Wakes the generators (one process for all of them); null without them.
  std::unique_ptr<InjectionCalendar> injection_calendar;
  /// One per node (empty without traffic endpoints), fed by `sink_target`.
  std::vector<MessageSink> sinks;
  /// The interfaces' `deliver` sockets are bound to its socket; null
  /// without traffic endpoints.
  std::unique_ptr<MessageSinks> sink_target;
  /// traffic.kind request_reply: one closed-loop endpoint per node instead of
  /// a generator and a sink (empty otherwise).
  sc_core::sc_vector<RequestReplyEndpoint> endpoints;
  /// traffic.kind phases: one endpoint per node and the controller that
  /// steps the phases (empty / null otherwise).
  sc_core::sc_vector<PhaseEndpoint> phase_endpoints;
  std::unique_ptr<PhaseController> phase_controller;
  /// traffic.kind trace: one endpoint per node and the trace's controller.
  sc_core::sc_vector<TraceEndpoint> trace_endpoints;
  std::unique_ptr<TraceController> trace_controller;
  /// True when the work is done: every endpoint has finished its
  /// traffic.requests_per_node, or every phase has ended.
  bool workload_finished() const {
    if (phase_controller) return phase_controller->finished();
    if (trace_controller) return trace_controller->finished();
    for (const auto& e : endpoints)
      if (!e.finished()) return false;
    return endpoints.size() > 0;
  }
  std::unique_ptr<hw::ManagementBus> management;

  hw::NetworkContext& context() { return m_ctx; }
  const hw::NetworkContext& context() const { return m_ctx; }
  /// The mechanisms active in this network (tb/mechanism_registry.hpp).
  const std::vector<MechanismPlugin>& mechanisms() const { return m_mechanisms; }
  /// A mechanism's network-wide part (created by its elaborate hook, a child
  /// of this network), kept under the mechanism's name. Throws
  /// std::logic_error when the name already has one.
  void add_part(const std::string& mechanism, std::unique_ptr<sc_core::sc_module> part);
  /// The part kept under `mechanism`, or nullptr.
  sc_core::sc_module* part(const std::string& mechanism) const;
  /// An active mechanism finds lost nodes itself (faults may disconnect).
  bool reports_lost_nodes() const;
  /// A reconfiguration is in progress (an active mechanism's busy hook):
  /// progress for the deadlock watchdog.
  bool reconfiguration_busy() const;
  /// Writes destination-based tables ([router][node] = port) into every
  /// router's forwarding table (the boot tables of a subnet manager).
  void load_forwarding_tables(const std::vector<std::vector<std::int32_t>>& tables);
  /// The link direction out of router r on port p (a router-router port).
  hw::LinkDirection* link_out_of(routing::RouterId r, routing::PortId p) { return port_directions(r, p).second; }
  const routing::Topology& topology() const { return *m_topo; }
  const routing::RoutingRelation& relation() const { return *m_relation; }
  /// Static fault model: hands the faults present from cycle 0 to the routing
  /// relation (offline route computation).
  void set_static_faults(const routing::FaultSet& fs) { m_relation->set_static_faults(fs); }
  /// Traffic endpoints: per node its component, -1 for a node that neither
  /// sends nor receives.
  void set_traffic_components(const std::vector<int>& comp);
  TrafficPattern& pattern() { return *m_pattern; }
  std::uint64_t cycle() const;

  /// Link direction a->b (forward) or b->a of a topology link.
  hw::LinkDirection& direction(routing::LinkId l, bool forward) { return *m_dirs[2 * l + (forward ? 0 : 1)]; }

  /// Fault operations, applied at the current cycle.
  /// fail_link: flits on the link are dropped (link_failure); the link stops.
  void fail_link(routing::LinkId l);
  /// repair_link: the link works again; credits at both ends are resynchronised.
  void repair_link(routing::LinkId l);
  /// Routers at both ends learn (after detection) that the link is up/down.
  void set_link_detected(routing::LinkId l, bool alive);
  /// The Local Fault Detectors at both ends of link l report it (the active
  /// mechanisms' fault_detected hooks).
  void fault_detected(routing::LinkId l, std::uint64_t fail_cycle);
  /// fail_router: buffered packets dropped (switch_failure), links failed.
  void fail_router(routing::RouterId r);
  /// Fills the per-router energy events of NetworkStats (router_crossbar,
  /// router_ejected, router_heads, router_arrivals) from the output units'
  /// counters and the interfaces' node_arrivals, for the run so far. Call it
  /// before reading them; calling it again recomputes them (idempotent).
  void gather_energy_events();
  /// Recomputes live destination sets for the traffic patterns.
  void update_traffic_components(const routing::FaultSet& permanent);
  /// Node-cycles of live nodes (nodes that send and receive traffic) over
  /// cycles [from, to): the denominator of loads in flits/node/cycle, so that
  /// nodes that die or come back count only while they are alive.
  double live_node_cycles(std::uint64_t from, std::uint64_t to) const;

  /// Packets not dropped that still have flits in the network or a source
  /// queue, found by scanning every buffer, link and interface.
  struct InFlight {
    std::uint64_t in_network = 0;
    std::uint64_t source_queued = 0;
  };
  InFlight scan_in_flight() const;
  /// Flits in router buffers and on links.
  std::uint64_t buffered_flits() const;
  /// Deadlock diagnosis: the blocked VCs and one wait-for cycle (or chain).
  std::vector<std::string> blocked_vcs(std::size_t limit) const;
  std::vector<std::string> wait_for_chain() const;
  /// The flit that has waited longest in an input VC of a router-to-router
  /// port (injection ports are skipped: a node's packets may starve by design
  /// under transit priority): arrival cycle (found = false when every such VC
  /// is empty) and where it waits.
  struct OldestFlit {
    bool found = false;
    std::uint64_t since = 0;  ///< cycle it entered the buffer
    std::string where;        ///< router.input_port.vcN and the packet
    int router = -1, port = -1, queue = -1;
  };
  OldestFlit oldest_waiting_flit() const;
  /// The wait-for path from one input queue (each blocked queue waits for the
  /// downstream queue it holds or first requests): `cycle` when it closes a
  /// cycle (a deadlock), else where it ends (a queue that waits on no other:
  /// an ejection port, a free downstream VC, or a dead port) and the cycle
  /// the head flit of that end arrived. A recent end_head_since means the
  /// path moves and the start is being starved, not deadlocked.
  struct WaitFor {
    bool cycle = false;
    std::vector<std::string> path;  ///< queue names from the start (the cycle's queues when cycle)
    std::uint64_t end_head_since = 0;
    std::string end;
    bool end_requests_dead_port = false;  ///< the end waits for an output port that failed: it never moves
  };
  WaitFor wait_for_from(int router, int port, int queue) const;

  /// Registers the waves of the clock and of the routers with selected[r] !=
  /// 0 (every router when `selected` is empty): their queues, output ports,
  /// outgoing links and their mechanism's hardware (RouterMechanism::trace).
  void trace(sc_core::sc_trace_file* tf, const std::vector<char>& selected = {}) const;

 private:
  /// Throws ConfigError (exit 2) with the estimate when the network would
  /// need more than 90% of the memory available (MemAvailable).
  static void check_memory(const routing::Topology& t, const ExperimentConfig& cfg);
  /// Elaboration steps of the constructor, in order. The relation and the
  /// shared context (packet length with the relation's header flits, bubble
  /// and VCT buffer checks; throws ConfigError).
  void setup_relation_and_context(const ExperimentConfig& cfg);
  /// The per-router hardware factory of the active mechanisms (at most one
  /// may have one; throws ConfigError otherwise); empty for none.
  hw::RouterMechanismFactory router_hardware(const ExperimentConfig& cfg);
  /// Routers and network interfaces, bound to the link directions.
  void build_routers_and_interfaces(const ExperimentConfig& cfg, const hw::RouterMechanismFactory& mechanism);
  /// Traffic generators and sinks bound to the interfaces' TLM sockets.
  void build_traffic_endpoints(const ExperimentConfig& cfg);
  /// Boot forwarding tables, one TableTarget per router (with the
  /// mechanism's tables mapped) and the management bus.
  void build_tables_and_management();

  /// Directions of the router-router link on port p of r: {into r, out of r}.
  std::pair<hw::LinkDirection*, hw::LinkDirection*> port_directions(routing::RouterId r, routing::PortId p);

  hw::NetworkContext m_ctx;
  std::unique_ptr<routing::Topology> m_topo;
  std::unique_ptr<routing::RoutingRelation> m_relation;
  std::unique_ptr<TrafficPattern> m_pattern;
  std::vector<std::unique_ptr<hw::LinkDirection>> m_dirs;                            // 2 per topology link
  std::vector<std::unique_ptr<hw::LinkDirection>> m_node_dirs;                       // direct networks: 2 per node
  std::vector<std::pair<std::uint64_t, int>> m_live_log;                             // (cycle, live nodes from then on)
  std::vector<MechanismPlugin> m_mechanisms;                                         // active in this network
  std::vector<std::pair<std::string, std::unique_ptr<sc_core::sc_module>>> m_parts;  // mechanisms' network-wide parts
};

/// The routers named by a `--trace-routers` specification: router labels and,
/// on meshes and tori, regions, separated by ';' or blanks. A region gives
/// each coordinate as N or A..B (inclusive), e.g. "2..4,2..4" or "0..7,3";
/// "all" selects every router. Returns one flag per router. Throws
/// ftsim::ConfigError naming the token and the topology's ranges.
std::vector<char> parse_router_selection(const routing::Topology& topo, const std::string& spec);

/// Sanitises a label into an SystemC name: "1,2" -> "1_2", "<01,2>" -> "01_2".
std::string sc_name_of(const std::string& label);

}  // namespace ftsim::tb
