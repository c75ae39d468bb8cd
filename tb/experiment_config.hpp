// Experiment description (YAML), validated into typed fields.
#pragma once
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hw/network_context.hpp"
#include "tb/mechanism_section.hpp"

namespace ftsim::tb {

/// One scheduled fault. Exactly one of link/switch is set. Cycles are
/// simulation cycles; repair < 0 means permanent.
struct FaultSpec {
  std::string link;    ///< native label or plain id ("#12" or "12")
  std::string router;  ///< switch/node label
  std::int64_t at = 0;
  std::int64_t repair = -1;
};

/// One communication phase of a workload (traffic.kind: phases, issue 53):
/// every node computes for compute_cycles, then sends packets_per_node
/// packets of packet_flits to destinations from `pattern` at `load`
/// flits/node/cycle; the phase ends at a barrier when every packet sent in it
/// has been delivered or dropped, and the next starts barrier_cycles later.
struct PhaseSpec {
  std::string name;
  std::string pattern = "uniform";  ///< a traffic pattern, or all_to_all (each node to every other in turn)
  std::int64_t packets_per_node = 1;
  int packet_flits = 4;
  double load = 1.0;  ///< (0, 1] flits/node/cycle while the node sends
  std::int64_t compute_cycles = 0;
  std::int64_t barrier_cycles = 0;
};

struct TrafficSpec {
  std::string pattern = "uniform";
  double load = 0.1;           ///< offered load, flits/node/cycle, (0, 1]
  int packet_flits = 4;        ///< length of every packet, or of short packets when bimodal
  int packet_flits_long = 0;   ///< > 0 selects bimodal lengths
  double long_fraction = 0.5;  ///< fraction of long packets (bimodal), [0, 1]
  std::vector<int> hotspot_nodes{0};
  double hotspot_fraction = 0.2;  ///< share of packets sent to the hotspots, [0, 1]
  int flit_bytes = 16;            ///< bytes per flit on the TLM side
  /// "open_loop": every node a Bernoulli source at `load`. "request_reply":
  /// closed loop (issue 53, tb/request_reply.hpp): each node keeps up to
  /// `mshrs` requests outstanding to home nodes drawn from `pattern`; a home
  /// node queues its reply `service_cycles` after the request arrives; a
  /// node issues its next request `think_cycles` after a reply arrives.
  std::string kind = "open_loop";
  int mshrs = 4;                       ///< request_reply: outstanding requests per node, 1..4096
  int request_flits = 1;               ///< request_reply: request (command) packet, flits
  int reply_flits = 4;                 ///< request_reply: reply (data) packet, flits
  std::int64_t service_cycles = 0;     ///< request_reply: request delivered -> reply queued, cycles
  std::int64_t think_cycles = 0;       ///< request_reply: reply delivered -> next request queued, cycles
  std::int64_t requests_per_node = 0;  ///< request_reply: work per node (0: until the window ends)
  /// kind phases: the phases in order, from traffic.phases or the workload
  /// file traffic.workload (its name in `workload_name`).
  std::vector<PhaseSpec> phases;
  std::string workload;
  std::string workload_name;
  /// kind trace: the trace file (tb/trace_workload.hpp).
  std::string trace;
  bool closed_loop() const { return kind == "request_reply"; }
  bool phased() const { return kind == "phases"; }
  bool traced() const { return kind == "trace"; }
  /// The run ends when the work is done (closed loop with a request count,
  /// or phases), not at the end of the measurement window.
  bool work_driven() const { return (closed_loop() && requests_per_node > 0) || phased() || traced(); }
  double mean_packet_flits() const {
    if (closed_loop()) return 0.5 * (request_flits + reply_flits);
    return packet_flits_long > 0 ? (1 - long_fraction) * packet_flits + long_fraction * packet_flits_long
                                 : packet_flits;
  }
  int max_packet_flits() const {
    if (closed_loop()) return request_flits > reply_flits ? request_flits : reply_flits;
    if (phased()) {
      int m = 1;
      for (const auto& p : phases) m = p.packet_flits > m ? p.packet_flits : m;
      return m;
    }
    return packet_flits_long > packet_flits ? packet_flits_long : packet_flits;
  }
};

struct SimSpec {
  std::int64_t warmup_cycles = 1000;
  std::int64_t measure_cycles = 10000;
  std::int64_t max_drain_cycles = 50000;
  std::uint64_t seed = 1;
  std::int64_t window_cycles = 1000;    ///< time-series interval
  std::int64_t watchdog_cycles = 5000;  ///< deadlock watchdog W
  bool deadlock_is_outcome = false;     ///< record deadlock instead of failing
  /// Build the CDG of the relation's deadlock-freedom claim (fault set at
  /// cycle 0) before the run and refuse a cyclic one (ConfigError).
  bool check_deadlock_freedom = false;
  double period_ns = 1.0;  ///< clock period, only for VCD time stamps
  /// "shared": one process ticks every router (hw::RouterClock, the
  /// default); "per_router": each router its own clocked SC_METHOD. Results
  /// are identical (the order of ticks in a cycle never matters); the
  /// second exists to check that, and costs about 9% more instructions.
  std::string router_processes = "shared";
};

struct FaultsSpec {
  std::vector<FaultSpec> schedule;
  int random_links = 0;
  /// Random switch faults (all of a switch's links and buffers), drawn among
  /// the switches with no node attached (a node dies with its switch), never
  /// one that disconnects the surviving nodes; before the random links.
  int random_switches = 0;
  std::uint64_t random_seed = 1;
  std::int64_t random_at = 0;
  /// > random_at: the random link faults happen one by one at cycles drawn
  /// uniformly (seeded by random_seed) from [random_at, random_until], in
  /// the order they were drawn, instead of all at random_at (non-periodic
  /// points during a run: Immunet section 6.2 injects faults "once a
  /// pre-established number of packets are consumed"). -1: all at random_at.
  std::int64_t random_until = -1;
  std::int64_t detection_delay = 10;  ///< cycles from a fault to its detection at both ends
  /// "links": faulty links fail. "bgl-planes": the BlueGene/L-like baseline
  /// of the intermediate-nodes paper (section 5.3.3): each faulty link's plane
  /// of `bgl_plane_nodes` nodes is bypassed (its nodes neither send nor
  /// receive) and the link itself is cabled around, so it does not fail.
  std::string model = "links";
  int bgl_plane_nodes = 32;  ///< nodes per bypassed plane: a multiple of k_x dividing k_x*k_y
};

/// Immunet protocol latencies (section 6 defaults).
struct ImmunetSpec {
  int handle_cycles = 100;           ///< a node handles and retransmits an emergency
  int ack_window = 10;               ///< ACK time-out after propagation
  int control_packet_cycles = 1000;  ///< one table-update control packet over one hop
  int control_packet_flits = 2;      ///< its flits on the link, 0..64 (0: no link bandwidth)
  int max_moves = 4;                 ///< safe -> adaptive moves allowed per packet (livelock bound)
  /// Safe network at boot: "dimension-rings" (section 2) or, as a
  /// diagnostic, "tree-ring" (the single tour ring a reconfiguration builds).
  std::string boot_safe_network = "dimension-rings";
  /// The emergency blocks each router steps: "cpp" (hw::EmergencyLogic) or a
  /// registered implementation ("verilated": the Verilog of rtl_ref/ through
  /// Verilator, in builds with Verilator).
  std::string rtl = "cpp";
  /// How table-update control packets travel: "safe-ring" (packets in the
  /// safe VC, section 4.2's sharing) or "link-slots" (their flits only take
  /// link cycles; the model before issue 51).
  std::string control_packets = "safe-ring";
};

/// Dynamic local rerouting in fat trees (section VII-A).
struct DlrSpec {
  std::int64_t reroute_timeout = 10000;  ///< ADLR: cycles of U-turn inactivity before the vector clears
};

/// DDRC, the endpoint reconfiguration baseline (section VIII): on a detected
/// fault the detecting switch notifies the subnet manager, which recomputes
/// up/down tables without the faulty link and writes them into every switch.
/// With routing updown-det this is DDRC; with ddlr/adlr it is the hybrid.
struct DdrcSpec {
  bool enabled = false;
  std::int64_t notification_cycles = 100;  ///< detecting switch -> subnet manager
  std::int64_t computation_cycles = 0;     ///< table computation in the manager
  /// Until every switch holds the new tables: 0.03 s at 1,953,125 cycles/s
  /// (section IX).
  std::int64_t distribution_cycles = 58593;
};

/// DQR's live transition (dynamic-quick-reconfiguration.txt sections I, VI):
/// with routing `lft`, the subnet manager reconfigures the switches' tables
/// with DQR after each detected link fault while traffic flows.
struct DqrSpec {
  bool enabled = false;
  std::string initial = "dor";      ///< dor | updn | import:DIR (opensm-lfts.dump)
  std::string variant = "lr-path";  ///< routing::dqr::variant_names()
  /// When set, the SM does not run DQR: after the first fault it writes
  /// these tables (an opensm-lfts.dump folder, e.g. OpenSM's own reroute),
  /// changed entries only: replays another SM's answer on the same model.
  std::string replay_tables;
  std::int64_t notification_cycles = 100;
  std::int64_t computation_cycles = 0;
  std::string distribution = "atomic";     ///< atomic | sequential
  std::int64_t distribution_cycles = 0;    ///< atomic: computation end -> the write
  std::int64_t block_cycles = 100;         ///< sequential: cycles per 64-entry block
  std::string order = "downstream-first";  ///< sequential: downstream-first | random
};

/// The energy model's inputs (issue 52): a technology file of per-event
/// energies and static powers (tb/hardware_cost.hpp, docs/user-guide.md);
/// empty: the built-in default.
struct EnergySpec {
  std::string technology;
};

struct ExperimentConfig {
  std::string topology = "mesh:8x8";
  std::string routing = "dor";
  hw::RouterParams router;
  TrafficSpec traffic;
  SimSpec sim;
  FaultsSpec faults;
  ImmunetSpec immunet;
  DlrSpec dlr;
  DdrcSpec ddrc;
  DqrSpec dqr;
  EnergySpec energy;
  /// Every mechanism section present in the document, its keys validated
  /// against the registry's specs (tb/mechanism_registry.hpp), by section
  /// name ("immunet", "dqr", a user mechanism's section).
  std::map<std::string, MechanismSection> mechanism_sections;
  YAML::Node source;  ///< the document after --set overrides, for the record
};

/// Loads a YAML file, applies "dotted.key=value" overrides (value parsed as
/// YAML), checks every key and range, and returns the typed config. Throws
/// ftsim::ConfigError with one message naming the key, the value and what is
/// allowed. Topology, routing and fault names are checked later, when the
/// network is built.
ExperimentConfig load_experiment(const std::string& path, const std::vector<std::string>& overrides);
/// Same, from YAML text (tests).
ExperimentConfig parse_experiment(const std::string& yaml_text, const std::vector<std::string>& overrides,
                                  const std::string& origin = "<string>");
/// Applies one override "a.b.c=value" to a document. Throws ConfigError.
void apply_override(YAML::Node& root, const std::string& assignment);

/// stats.json "config": the fully resolved configuration, every key with its
/// value after defaults and --set overrides, typed (numbers as numbers,
/// booleans as booleans), in the same key layout as the YAML input, so that
/// it can be run again as an experiment file.
nlohmann::json resolved_config_json(const ExperimentConfig& cfg);

/// The traffic pattern names: the built-in ones, then those registered with
/// register_traffic_pattern (tb/plugin_registry.hpp).
std::vector<std::pair<std::string, std::string>> traffic_pattern_names();
/// The built-in traffic pattern names only.
const std::vector<std::pair<std::string, std::string>>& builtin_traffic_pattern_names();

/// `router.injection` names: "fair", "transit_priority", "adaptive_bubble".
/// parse returns false for any other name.
bool parse_injection_policy(const std::string& name, hw::InjectionPolicy* out);
std::string injection_policy_name(hw::InjectionPolicy p);
std::string injection_policy_names();
/// The default when `router.injection` is absent:
/// transit_priority+adaptive_bubble for `immunet` (measured in
/// docs/reproduction/immunet.md, "Injection regulation"), fair for every
/// other relation.
hw::InjectionPolicy default_injection_policy(const std::string& routing);

}  // namespace ftsim::tb
