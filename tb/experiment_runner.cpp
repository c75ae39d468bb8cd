#include "tb/experiment_runner.hpp"

#include "tb/hardware_cost.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "routing_logic/cdg.hpp"
#include "tb/cli_text.hpp"
#include "tb/fault_injector.hpp"
#include "tb/network.hpp"
#include "tb/output_files.hpp"
#include "tb/run_summary.hpp"
#include "tb/version.hpp"
#include "tb/yaml_input.hpp"

namespace ftsim::tb {

namespace {

using Clock = std::chrono::steady_clock;
using ftsim::OutputError;

/// The signal that asked the running simulation to stop (0: none). Set by the
/// handler, polled by the Monitor every few cycles.
std::atomic<int> g_stop_signal{0};

extern "C" void request_stop(int sig) {
  if (g_stop_signal.load() != 0) _exit(128 + sig);  // a second signal: stop at once
  g_stop_signal.store(sig);
}

/// SIGINT/SIGTERM/SIGHUP handlers for the lifetime of one run: the first
/// signal ends the simulation at the next Monitor check, the outputs are
/// written (marked incomplete) and the run exits 128 + signal.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = request_stop;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &m_old[i]);
  }
  ~StopSignals() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &m_old[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction m_old[3]{};
};

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return fmt::format("signal {}", sig);
  }
}

/// Periodic supervisor: time series, progress, deadlock watchdog, end of run.
class Monitor : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Monitor);
  Monitor(sc_core::sc_module_name name, Network& net, const ExperimentConfig& cfg, bool quiet)
      : sc_module(name), m_net(net), m_cfg(cfg), m_progress("run", "cycles", !quiet) {
    m_interval =
        std::max<std::int64_t>(1, std::min<std::int64_t>({100, cfg.sim.window_cycles, cfg.sim.watchdog_cycles / 4}));
    const bool adlr = cfg.routing.rfind("adlr", 0) == 0;
    m_stuck_cycles = static_cast<std::uint64_t>(
        std::max<std::int64_t>(4 * cfg.sim.watchdog_cycles, adlr ? 2 * cfg.dlr.reroute_timeout : 0));
    SC_METHOD(check);
  }

  bool deadlock = false;
  std::uint64_t deadlock_cycle = 0;
  /// "no_flit_moved": nothing moved for W cycles while flits were buffered;
  /// "stuck_flit": flits kept moving somewhere, but one has waited in a
  /// transit input VC for 4W cycles outside any reconfiguration.
  std::string deadlock_kind;
  std::string stuck_where;
  std::uint64_t end_cycle = 0;
  bool drained = false;
  std::vector<std::string> blocked;
  std::vector<std::string> chain;
  std::string csv;
  int stop_signal = 0;  ///< the signal that interrupted the run, 0 when it ran to its end

 private:
  void check() {
    const std::uint64_t c = m_net.cycle();
    auto& s = m_net.context().stats;
    const auto win = static_cast<std::uint64_t>(m_cfg.sim.window_cycles);
    if (c > 0 && c % win == 0) emit_row(c);
    if (const int sig = g_stop_signal.load(); sig != 0) {
      stop_signal = sig;
      finish(c);
      return;
    }
    const std::uint64_t drain_end = s.window_end + static_cast<std::uint64_t>(m_cfg.sim.max_drain_cycles);
    if (c < s.window_end)
      m_progress.update(c, s.window_end);
    else
      m_progress.update(c, drain_end,
                        fmt::format("draining: {} measured packets outstanding (the drain ends when none is, or at "
                                    "cycle {})",
                                    s.measured_outstanding, drain_end));
    // A reconfiguration in progress is progress: an Immunet emergency stops
    // every flit by design (STOP), and a subnet manager holds packets while
    // it computes new tables. Neither watchdog counts that time.
    const bool reconfiguring = m_net.reconfiguration_busy();
    // Deadlock watchdog: nothing moved for W cycles while flits are buffered.
    const auto w = static_cast<std::uint64_t>(m_cfg.sim.watchdog_cycles);
    if (reconfiguring) m_quiet_since = c;
    if (c >= std::max(s.last_move_cycle, m_quiet_since) + w && m_net.buffered_flits() > 0) {
      deadlock = true;
      deadlock_kind = "no_flit_moved";
      deadlock_cycle = s.last_move_cycle;
      blocked = m_net.blocked_vcs(64);
      chain = m_net.wait_for_chain();
      finish(c);
      return;
    }
    // A trickle elsewhere must not hide packets that no longer move: every
    // W/4 cycles, outside reconfigurations, the oldest flit in a transit
    // input VC must have arrived less than 4W cycles ago. 4W, not W: beyond
    // saturation a flit on a congested escape ring can wait several thousand
    // cycles and still move (Immunet 8x8 with fair injection at offered 1.0:
    // between 5,000 and 10,000).
    //
    // A flit that waited 4W is deadlocked when its wait-for path closes a
    // cycle or ends at a failed port (a wedge). Otherwise its path ends at a
    // free resource it keeps losing (an output VC that is free or changes
    // hands, an ejection port in use): it is starved by arbitration, not
    // deadlocked (a hotspot at 19 times what it accepts, under DOR, which
    // cannot deadlock). It is then watched, for as long as it takes, until
    // it moves (stats.json "starvation", warning "starvation") or its path
    // closes; the "no flit moved" watchdog still ends a run where nothing
    // moves.
    if (!reconfiguring && c >= m_next_stuck_check) {
      m_next_stuck_check = c + std::max<std::uint64_t>(1, w / 4);
      if (m_suspect.found && !still_waiting(m_suspect)) {
        record_starvation(m_suspect, c);
        m_suspect = {};
      }
      const auto o = m_suspect.found ? m_suspect : m_net.oldest_waiting_flit();
      if (o.found && c >= std::max(o.since, m_quiet_since) + m_stuck_cycles) {
        const auto wf = m_net.wait_for_from(o.router, o.port, o.queue);
        const bool frozen = wf.cycle || wf.end_requests_dead_port;
        if (frozen) {
          deadlock = true;
          deadlock_kind = "stuck_flit";
          deadlock_cycle = o.since;
          stuck_where = o.where;
          blocked = m_net.blocked_vcs(64);
          chain = wf.cycle ? wf.path : m_net.wait_for_chain();
          finish(c);
          return;
        }
        if (!m_suspect.found) {
          m_suspect = o;
          m_suspect_packet =
              m_net.routers[static_cast<std::size_t>(o.router)].input_queue(o.port, o.queue).fifo.front().item.packet;
        }
      }
    }
    // Closed-loop work (traffic.requests_per_node): the run ends when every
    // request has its reply, or at the end of the drain (work incomplete:
    // requests lost to faults keep their slots).
    if (m_cfg.traffic.work_driven()) {
      if (m_net.workload_finished() || c >= drain_end) {
        drained = m_net.workload_finished();
        finish(c);
        return;
      }
      next_trigger(m_net.clk.period() * static_cast<double>(m_interval));
      return;
    }
    if (c >= s.window_end &&
        (s.measured_outstanding == 0 || c >= s.window_end + static_cast<std::uint64_t>(m_cfg.sim.max_drain_cycles))) {
      drained = s.measured_outstanding == 0;
      finish(c);
      return;
    }
    next_trigger(m_net.clk.period() * static_cast<double>(m_interval));
  }

  /// True while the suspect's packet still heads the queue it was found in.
  bool still_waiting(const Network::OldestFlit& o) const {
    const auto& fifo = m_net.routers[static_cast<std::size_t>(o.router)].input_queue(o.port, o.queue).fifo;
    return !fifo.empty() && fifo.front().ready == o.since && fifo.front().item.packet == m_suspect_packet;
  }

  void record_starvation(const Network::OldestFlit& o, std::uint64_t c) {
    ++starvation.flits;
    // It moved within the last check interval: its wait is known to W/4.
    const std::uint64_t waited = c - o.since;
    if (waited > starvation.max_wait_cycles) {
      starvation.max_wait_cycles = waited;
      starvation.worst = o.where;
    }
  }

 public:
  /// Flits that waited at least 4W in a transit VC and then moved (see
  /// check()): starved, not deadlocked.
  struct Starvation {
    std::uint64_t flits = 0;
    std::uint64_t max_wait_cycles = 0;  ///< to within W/4 cycles
    std::string worst;
    std::string still_waiting;  ///< a starving flit that had not moved when the run ended
    std::uint64_t still_waiting_cycles = 0;
  } starvation;

 private:
  void finish(std::uint64_t c) {
    end_cycle = c;
    if (!deadlock && m_suspect.found && still_waiting(m_suspect)) {
      starvation.still_waiting = m_suspect.where;
      starvation.still_waiting_cycles = c - m_suspect.since;
    }
    if (c % static_cast<std::uint64_t>(m_cfg.sim.window_cycles) != 0) emit_row(c);
    sc_core::sc_stop();
  }

  void emit_row(std::uint64_t c) {
    auto& s = m_net.context().stats;
    const double node_cycles = std::max(1.0, m_net.live_node_cycles(m_last_row, c));
    std::size_t queued = 0;
    for (const auto& ni : m_net.interfaces) queued += ni.source_queue_length();
    const double mean_lat = s.ts_packets_delivered
                                ? static_cast<double>(s.ts_latency_sum) / static_cast<double>(s.ts_packets_delivered)
                                : 0.0;
    const double mean_hops =
        s.ts_packets_delivered ? static_cast<double>(s.ts_hops_sum) / static_cast<double>(s.ts_packets_delivered) : 0.0;
    csv += fmt::format("{},{},{:.6f},{:.6f},{},{:.3f},{},{},{},{:.4f}\n", m_last_row, c,
                       static_cast<double>(s.ts_flits_created) / node_cycles,
                       static_cast<double>(s.ts_flits_delivered) / node_cycles, s.ts_packets_delivered, mean_lat,
                       s.ts_dropped, queued, m_net.buffered_flits(), mean_hops);
    s.ts_flits_created = s.ts_flits_delivered = s.ts_packets_delivered = s.ts_latency_sum = s.ts_dropped = 0;
    s.ts_hops_sum = 0;
    m_last_row = c;
  }

  Network& m_net;
  const ExperimentConfig& m_cfg;
  std::uint64_t m_next_stuck_check = 0;
  Network::OldestFlit m_suspect;  ///< a flit past 4W whose wait-for path still moves (starving), watched
  std::uint32_t m_suspect_packet = 0;
  std::uint64_t m_quiet_since = 0;  // end of the last reconfiguration seen
  /// 4W, or twice ADLR's re-route timeout when longer (a packet may wait that
  /// long by design before it is re-routed).
  std::uint64_t m_stuck_cycles = 0;
  Progress m_progress;
  std::int64_t m_interval;
  std::uint64_t m_last_row = 0;
};

/// stats.json `request_reply` (traffic.kind request_reply, issue 53).
/// window_node_cycles: live node-cycles of the measurement window.
nlohmann::json request_reply_json(const Network& net, const ExperimentConfig& cfg, double window_node_cycles) {
  RequestReplyEndpoint::Counters sum;
  std::vector<std::uint32_t> rtt;
  std::uint64_t outstanding = 0, pending = 0, finished = 0;
  for (const auto& e : net.endpoints) {
    const auto& c = e.counters();
    sum.issued += c.issued;
    sum.completed += c.completed;
    sum.served += c.served;
    sum.replies_sent += c.replies_sent;
    sum.refused += c.refused;
    sum.window_completed += c.window_completed;
    sum.last_completion = std::max(sum.last_completion, c.last_completion);
    rtt.insert(rtt.end(), e.round_trips().begin(), e.round_trips().end());
    outstanding += e.outstanding();
    pending += e.replies_pending();
    if (e.finished()) ++finished;
  }
  const double node_cycles = std::max(1.0, window_node_cycles);
  nlohmann::json j;
  j["requests_issued"] = sum.issued;
  j["requests_completed"] = sum.completed;
  j["requests_outstanding"] = outstanding;  // lost to faults, or still running at the end
  j["requests_served"] = sum.served;
  j["replies_sent"] = sum.replies_sent;
  j["replies_pending"] = pending;  // service time still running at the end
  j["refused"] = sum.refused;
  // Requests issued in the measurement window and answered, per node and
  // cycle of the window: the closed loop's throughput.
  j["completed_per_node_cycle"] = static_cast<double>(sum.window_completed) / node_cycles;
  j["round_trip_cycles"] = latency_percentiles(std::move(rtt));
  if (cfg.traffic.requests_per_node > 0) {
    const bool all = finished == net.endpoints.size();
    j["nodes_finished"] = finished;
    // The cycle of the last reply: the workload's execution time.
    j["execution_cycles"] = all ? nlohmann::json(sum.last_completion) : nlohmann::json(nullptr);
  }
  return j;
}

/// stats.json `phases` (traffic.kind phases, issue 53): the workload's
/// execution time and each phase's start, end and packets.
nlohmann::json phases_json(const Network& net) {
  const PhaseController& pc = *net.phase_controller;
  nlohmann::json out;
  out["complete"] = pc.finished();
  out["execution_cycles"] = pc.finished() ? nlohmann::json(pc.execution_cycles()) : nlohmann::json(nullptr);
  if (!pc.spec().workload_name.empty()) out["workload"] = pc.spec().workload_name;
  out["phases"] = nlohmann::json::array();
  for (std::size_t k = 0; k < pc.phases().size(); ++k) {
    const auto& ph = pc.phases()[k];
    const auto& sp = pc.spec().phases[k];
    out["phases"].push_back({{"name", sp.name},
                             {"pattern", sp.pattern},
                             {"start_cycle", ph.start},
                             {"sends_done_cycle", ph.sends_done},
                             {"end_cycle", ph.done ? nlohmann::json(ph.end) : nlohmann::json(nullptr)},
                             {"cycles", ph.done ? nlohmann::json(ph.end - ph.start) : nlohmann::json(nullptr)},
                             {"packets_sent", ph.sent},
                             {"packets_delivered", ph.delivered},
                             {"packets_lost", ph.lost}});
  }
  return out;
}

nlohmann::json yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& kv : n) j[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& e : n) j.push_back(yaml_to_json(e));
      return j;
    }
    case YAML::NodeType::Scalar: {
      // Typed as YAML reads it: integers, then reals, then booleans, else text.
      std::int64_t i = 0;
      double d = 0;
      bool b = false;
      if (n.Tag() != "!" && YAML::convert<std::int64_t>::decode(n, i)) return i;
      if (n.Tag() != "!" && YAML::convert<double>::decode(n, d) && std::isfinite(d)) return d;
      if (n.Tag() != "!" && YAML::convert<bool>::decode(n, b)) return b;
      return n.Scalar();
    }
    default:
      return nullptr;
  }
}

}  // namespace

nlohmann::json latency_percentiles(std::vector<std::uint32_t> v) {
  nlohmann::json j;
  if (v.empty()) {
    j["mean"] = nullptr;
    j["p50"] = nullptr;
    j["p99"] = nullptr;
    j["max"] = nullptr;
    j["count"] = 0;
    return j;
  }
  double sum = 0;  // exact in any order: integers far below 2^53
  for (auto x : v) sum += x;
  // Nearest-rank percentiles by selection, not a full sort (issue 54: the
  // sort was 0.5% of a bench run's instructions): the p50 rank first, then
  // the p99 rank among the values above it, then the maximum above that.
  auto rank = [&](double p) {
    const std::size_t idx = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
    return std::min(idx, v.size() - 1);
  };
  const auto i50 = static_cast<std::ptrdiff_t>(rank(0.50));
  const auto i99 = static_cast<std::ptrdiff_t>(rank(0.99));
  std::nth_element(v.begin(), v.begin() + i50, v.end());
  j["mean"] = sum / static_cast<double>(v.size());
  j["p50"] = v[static_cast<std::size_t>(i50)];  // read now: the next selection reorders [i50, end)
  std::nth_element(v.begin() + i50, v.begin() + i99, v.end());
  j["p99"] = v[static_cast<std::size_t>(i99)];
  j["max"] = *std::max_element(v.begin() + i99, v.end());
  j["count"] = v.size();
  return j;
}

nlohmann::json channel_utilisation(const Network& net, int vcs, double measure) {
  struct Channel {
    double all, escape;
    routing::RouterId r;
    routing::PortId p;
  };
  const routing::Topology& topo = net.topology();
  std::vector<Channel> ch;
  double total = 0, escape = 0;
  for (const auto& router : net.routers) {
    const routing::RouterId r = router.id();
    for (int p = 0; p < router.radix(); ++p) {
      if (topo.peer(r, p).kind != routing::PortPeer::Kind::kRouter) continue;
      Channel c{0, 0, r, p};
      for (int v = 0; v < vcs; ++v) {
        const auto f = static_cast<double>(router.output_vc(p, v).window_flits);
        c.all += f;
        if (net.relation().vc_class(v) == routing::VcClass::kEscape) c.escape += f;
      }
      total += c.all;
      escape += c.escape;
      ch.push_back(c);
    }
  }
  nlohmann::json j;
  const double m = std::max(1.0, measure);
  j["channels"] = ch.size();
  j["mean"] = ch.empty() ? 0.0 : total / m / static_cast<double>(ch.size());
  j["escape_flit_share"] = total > 0 ? escape / total : 0.0;
  std::sort(ch.begin(), ch.end(), [](const Channel& a, const Channel& b) { return a.all > b.all; });
  j["max"] = ch.empty() ? 0.0 : ch.front().all / m;
  nlohmann::json hot = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min<std::size_t>(8, ch.size()); ++i)
    hot.push_back({{"channel", topo.router_label(ch[i].r) + "." + topo.port_name(ch[i].r, ch[i].p)},
                   {"utilisation", ch[i].all / m},
                   {"escape_utilisation", ch[i].escape / m}});
  j["hottest"] = hot;
  return j;
}

namespace {

/// The faults of a run after the fault model: resolved faults and, for
/// bgl-planes, the nodes cabled around (their links keep working).
struct RunFaults {
  std::vector<ResolvedFault> faults;
  std::vector<routing::NodeId> bypassed;
  /// Component per node with the bypassed nodes as -1 (not alive).
  std::vector<int> components(const routing::Topology& topo, const routing::FaultSet& fs) const {
    std::vector<int> comp = routing::node_components(topo, fs);
    for (routing::NodeId n : bypassed) comp[static_cast<std::size_t>(n)] = -1;
    return comp;
  }
  /// The faults present from cycle 0 (permanent or not).
  std::vector<ResolvedFault> at_cycle0() const {
    std::vector<ResolvedFault> at0;
    for (const auto& f : faults)
      if (f.at == 0) at0.push_back(f);
    return at0;
  }
};

/// Resolves the experiment's faults, applies the fault model and, for a
/// relation with a static fault model, computes its routes offline. Throws
/// ftsim::ConfigError for a fault the static model cannot take.
RunFaults prepare_faults(Network& net, const ExperimentConfig& cfg, bool quiet) {
  RunFaults rf;
  rf.faults = resolve_faults(net.topology(), cfg.faults, net.reports_lost_nodes());
  if (cfg.faults.model == "bgl-planes") {
    rf.bypassed = bgl_bypassed_nodes(net.topology(), rf.faults, cfg.faults.bgl_plane_nodes);
    rf.faults.clear();  // cabled around: the links themselves keep working
  }
  if (net.relation().static_faults_only()) {
    for (const auto& f : rf.faults)
      if (f.at != 0 || f.repair >= 0)
        throw ftsim::ConfigError(fmt::format(
            "routing '{}' computes its routes offline (static fault model): fault '{}' must be present from cycle 0 "
            "and permanent (got at = {}, repair = {})",
            cfg.routing, f.label, f.at, f.repair));
    const auto t0 = Clock::now();
    if (!quiet && !rf.faults.empty())
      std::fprintf(stderr, "ftsim: computing %s routes around %zu faults on %s...\n", cfg.routing.c_str(),
                   rf.faults.size(), net.topology().spec().c_str());
    net.set_static_faults(permanent_faults(rf.faults));
    if (!quiet && !rf.faults.empty())
      std::fprintf(stderr, "ftsim: routes computed in %.1f s\n",
                   std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return rf;
}

/// sim.check_deadlock_freedom: the relation's claim checked on the CDG of
/// the faults present at cycle 0. Throws ftsim::ConfigError naming a cycle.
routing::DeadlockCheck check_deadlock_freedom(const Network& net, const ExperimentConfig& cfg,
                                              const routing::FaultSet& faults_at0, std::size_t faults_at0_count,
                                              bool quiet) {
  const auto t0 = Clock::now();
  if (!quiet)
    std::fprintf(stderr, "ftsim: checking the channel dependency graph of '%s' on %s...\n", cfg.routing.c_str(),
                 net.topology().spec().c_str());
  routing::DeadlockCheck check = routing::check_deadlock_claim(net.relation(), faults_at0, cfg.router.vct);
  if (!check.acyclic) {
    std::string cycle;
    for (std::size_t i = 0; i < check.cycle.size() && i < 8; ++i) cycle += (i > 0 ? " -> " : "") + check.cycle[i];
    if (check.cycle.size() > 8) cycle += fmt::format(" -> ... ({} channels)", check.cycle.size());
    throw ftsim::ConfigError(fmt::format(
        "sim.check_deadlock_freedom: routing '{}' claims \"{}\", but its channel dependency graph on {} with {} "
        "fault(s) at cycle 0 has a cycle: {}",
        cfg.routing, check.claim.basis, net.topology().spec(), faults_at0_count, cycle));
  }
  if (!quiet)
    std::fprintf(stderr, "ftsim: acyclic (%d channels, %d dependencies) in %.1f s\n", check.channels, check.edges,
                 std::chrono::duration<double>(Clock::now() - t0).count());
  return check;
}

/// Runs the simulation to its end, with the VCD window of `opts` (trace
/// from/to, router selection). Returns the wall seconds of sc_start. The VCD
/// goes through a CheckedFileSink: a write that failed (a full disk) leaves
/// its message in *vcd_error, and the run goes on to write its statistics.
double simulate(Network& net, const RunOptions& opts, std::string* vcd_error) {
  const std::vector<char> traced =
      opts.trace_routers.empty() ? std::vector<char>{} : parse_router_selection(net.topology(), opts.trace_routers);
  const sc_core::sc_time period = net.clk.period();
  const auto sim_start = Clock::now();
  sc_core::sc_trace_file* tf = nullptr;
  std::unique_ptr<CheckedFileSink> sink;
  auto open_trace = [&] {
    sink = std::make_unique<CheckedFileSink>(opts.vcd_path, ".vcd");
    tf = sc_core::sc_create_vcd_trace_file(sink->writer_base().c_str());
    tf->set_time_unit(1, sc_core::SC_PS);  // Immunet drives its wires in the second half of a cycle
    net.trace(tf, traced);
    net.context().trace_mode = true;
    for (auto& r : net.routers) r.wake();
  };
  auto close_trace = [&] {
    sc_core::sc_close_vcd_trace_file(tf);
    tf = nullptr;
    try {
      sink->finish();
    } catch (const OutputError& e) {
      *vcd_error = e.what();
    }
  };
  auto running = [] { return sc_core::sc_get_status() != sc_core::SC_STOPPED; };
  if (!opts.vcd_path.empty()) {
    if (opts.trace_from > 0) sc_core::sc_start(period * static_cast<double>(opts.trace_from));
    if (running()) {
      open_trace();
      if (opts.trace_to >= 0) {
        const std::int64_t len = std::max<std::int64_t>(1, opts.trace_to - opts.trace_from + 1);
        sc_core::sc_start(period * static_cast<double>(len));
        close_trace();
        net.context().trace_mode = false;
      }
    }
  }
  if (running()) sc_core::sc_start();
  if (tf != nullptr) close_trace();
  return std::chrono::duration<double>(Clock::now() - sim_start).count();
}

/// stats.json "packets", "dropped_by_reason", buffers, utilisation, source
/// queues and hardware cost.
void traffic_stats(const Network& net, const ExperimentConfig& cfg, const hw::NetworkStats& s, std::uint64_t dropped,
                   std::uint64_t cycles, double measure, nlohmann::json& j) {
  const routing::Topology& topo = net.topology();
  const auto inflight = net.scan_in_flight();
  const std::uint64_t in_flight = inflight.in_network + inflight.source_queued;
  const bool conserved = s.created == s.delivered + dropped + in_flight;
  j["latency_cycles"] = latency_percentiles(s.latencies);
  j["network_latency_cycles"] = latency_percentiles(s.network_latencies);
  j["mean_hops"] = s.hops_count ? static_cast<double>(s.hops_sum) / static_cast<double>(s.hops_count) : 0.0;
  // Routers traversed: hops + 1 in direct networks; hops - 1 in indirect ones,
  // whose hop count includes the two node links (docs/validation.md).
  const double routers_traversed = j["mean_hops"].get<double>() + (topo.is_direct() ? 1.0 : -1.0);
  j["zero_load_latency_model_cycles"] =
      2.0 + routers_traversed * cfg.router.hop_latency() + (cfg.traffic.mean_packet_flits() - 1.0);
  j["packets"] = {{"injected", s.created},
                  {"delivered", s.delivered},
                  {"dropped", dropped},
                  {"in_flight", in_flight},
                  {"in_network", inflight.in_network},
                  {"source_queued", inflight.source_queued},
                  {"entered_network", s.injected},
                  {"measured", s.latencies.size() + s.measured_outstanding},
                  {"measured_undelivered", s.measured_outstanding}};
  nlohmann::json by_reason = nlohmann::json::object();
  for (int r = 0; r < static_cast<int>(hw::DropReason::kCount); ++r)
    by_reason[hw::drop_reason_name(static_cast<hw::DropReason>(r))] = s.dropped[r];
  j["dropped_by_reason"] = by_reason;
  j["link_failure_losses"] = {
      {"on_link", s.link_loss[0]}, {"routed_before_detection", s.link_loss[1]}, {"cut_in_buffers", s.link_loss[2]}};
  j["conservation_ok"] = conserved;
  {
    nlohmann::json by_vc = nlohmann::json::array();
    for (int v = 0; v < cfg.router.vcs; ++v) {
      long n = 0;
      for (const auto& r : net.routers)
        for (int p = 0; p < r.radix(); ++p) n += r.input_occupancy(p, v);
      by_vc.push_back(n);
    }
    j["buffered_flits_by_vc"] = by_vc;  // at the end of the run
  }
  j["channel_utilisation"] = channel_utilisation(net, cfg.router.vcs, measure);
  std::uint64_t q_integral = 0;
  std::size_t q_max = 0;
  for (const auto& ni : net.interfaces) {
    q_integral += ni.source_queue_integral();
    q_max = std::max(q_max, ni.source_queue_max());
  }
  if (cfg.traffic.phased()) j["phases"] = phases_json(net);
  if (cfg.traffic.traced()) {
    const TraceController& tc = *net.trace_controller;
    j["trace"] = {{"file", cfg.traffic.trace},
                  {"records", tc.records().size()},
                  {"sent", tc.sent()},
                  {"delivered", tc.arrived()},
                  {"lost", tc.lost()},
                  {"blocked", tc.blocked()},
                  {"complete", tc.finished() && tc.blocked() == 0 && tc.lost() == 0},
                  {"execution_cycles", tc.finished() ? nlohmann::json(tc.last_delivery()) : nlohmann::json(nullptr)}};
  }
  if (cfg.traffic.closed_loop())
    j["request_reply"] = request_reply_json(
        net, cfg, net.live_node_cycles(s.window_start, s.window_start + static_cast<std::uint64_t>(measure)));
  j["source_queue"] = {
      {"mean_packets_per_node",
       cycles ? static_cast<double>(q_integral) / (static_cast<double>(cycles) * topo.num_nodes()) : 0.0},
      {"max_packets", q_max}};
  long table_bits = 0;
  for (auto& r : net.routers) table_bits += r.forwarding_table().size_bits();
  j["hardware"] = {
      {"forwarding_table_bits", table_bits},
      {"vc_buffers_flits", topo.num_routers() * topo.max_radix() * cfg.router.vcs * cfg.router.buffer_flits}};
  j["hardware_cost"] = hardware_cost_json(net, cfg);
}

/// The run's outcome: exit code 0, 3 (deadlock), 4 (conservation) or
/// 128 + signal, and the message for the user.
RunResult run_result(const Monitor& monitor, const ExperimentConfig& cfg, const nlohmann::json& j) {
  RunResult res;
  res.stats = j;
  const auto& p = j["packets"];
  if (monitor.stop_signal != 0) {
    res.exit_code = 128 + monitor.stop_signal;
    res.message = fmt::format("interrupted by {} at cycle {}: partial outputs written (stats.json \"complete\": false)",
                              signal_name(monitor.stop_signal), monitor.end_cycle);
  } else if (!j["conservation_ok"].get<bool>()) {
    res.exit_code = 4;
    res.message = fmt::format("conservation violated: injected {} != delivered {} + dropped {} + in_flight {}",
                              p["injected"].get<std::uint64_t>(), p["delivered"].get<std::uint64_t>(),
                              p["dropped"].get<std::uint64_t>(), p["in_flight"].get<std::uint64_t>());
  } else if (monitor.deadlock && !cfg.sim.deadlock_is_outcome) {
    res.exit_code = 3;
    const std::string chain =
        monitor.chain.empty() ? std::string("(none found)") : fmt::format("{}", fmt::join(monitor.chain, " -> "));
    res.message = monitor.deadlock_kind == "stuck_flit"
                      ? fmt::format(
                            "deadlock: a flit in transit has not moved since cycle {} (4 x sim.watchdog_cycles "
                            "= {} cycles) at {} while others still move; wait-for chain: {}",
                            monitor.deadlock_cycle, 4 * cfg.sim.watchdog_cycles, monitor.stuck_where, chain)
                      : fmt::format("deadlock: no flit moved for {} cycles since cycle {}; wait-for chain: {}",
                                    cfg.sim.watchdog_cycles, monitor.deadlock_cycle, chain);
  }
  return res;
}

/// Atomic writes, stats.json last: a complete stats.json means a finished
/// run (sweeps rely on it when they resume).
void write_outputs(const std::string& out_dir, const Monitor& monitor, const nlohmann::json& j) {
  if (out_dir.empty()) return;
  std::filesystem::create_directories(out_dir);
  write_file_atomically(out_dir + "/timeseries.csv",
                        "cycle_start,cycle_end,offered_flits_per_node_cycle,accepted_flits_per_node_cycle,"
                        "packets_delivered,mean_latency_cycles,packets_dropped,source_queue_packets,buffered_"
                        "flits,mean_hops\n" +
                            monitor.csv);
  write_file_atomically(out_dir + "/stats.json",
                        j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace

void check_trace_routers(const ExperimentConfig& cfg, const std::string& spec) {
  parse_router_selection(*routing::make_topology(cfg.topology), spec);
}

RunResult run_experiment(const ExperimentConfig& cfg, const RunOptions& opts) {
  const auto wall_start = Clock::now();
  const StopSignals stop_signals;
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // Never destroyed: SystemC removes each module from its registry by a
  // linear search, so tearing down a large network costs O(modules^2)
  // (6.6% of a short 8x8x8 run, a minute on a 200x200 mesh), and SystemC
  // elaborates once per process, which ends after this run anyway.
  // A bad technology file ends the run before it starts.
  const Technology tech = cfg.energy.technology.empty() ? Technology{} : load_technology(cfg.energy.technology);
  Network& net = *new Network("net", cfg);
  const RunFaults rf = prepare_faults(net, cfg, opts.quiet);
  const std::vector<ResolvedFault> at0 = rf.at_cycle0();
  const routing::FaultSet faults_at0 = permanent_faults(at0);
  net.set_traffic_components(rf.components(net.topology(), faults_at0));
  std::optional<routing::DeadlockCheck> deadlock_check;
  if (cfg.sim.check_deadlock_freedom)
    deadlock_check = check_deadlock_freedom(net, cfg, faults_at0, at0.size(), opts.quiet);
  FaultInjector injector("faults", net, rf.faults, cfg.faults.detection_delay);
  Monitor monitor("monitor", net, cfg, opts.quiet);
  if (opts.on_elaborated) opts.on_elaborated(net);

  std::string vcd_error;
  const double sim_wall = simulate(net, opts, &vcd_error);
  const double wall = std::chrono::duration<double>(Clock::now() - wall_start).count();

  const hw::NetworkStats& s = net.context().stats;
  const std::uint64_t dropped = s.dropped_total();
  const routing::Topology& topo = net.topology();
  const auto comp = rf.components(topo, permanent_faults(rf.faults));
  const double live_nodes = static_cast<double>(std::count_if(comp.begin(), comp.end(), [](int c) { return c >= 0; }));
  const std::uint64_t cycles = monitor.end_cycle;
  // The measurement window; an interrupted run, and closed-loop work done
  // before the window's end, measured up to the last cycle.
  const std::uint64_t window_end =
      monitor.stop_signal == 0 && !cfg.traffic.closed_loop() && !cfg.traffic.phased() && !cfg.traffic.traced()
          ? s.window_end
          : std::clamp<std::uint64_t>(cycles, s.window_start, s.window_end);
  const double measure = std::max(1.0, static_cast<double>(window_end - s.window_start));

  nlohmann::json j;
  j["experiment"] = opts.experiment_name;
  j["ftsim"] = {{"version", version()}, {"git_commit", git_commit()}, {"command_line", opts.command_line}};
  j["topology"] = topo.spec();
  j["routing"] = cfg.routing;
  // Active mechanisms (tb/mechanism_registry.hpp) and their own figures;
  // the built-in ones report under "reconfiguration" and "routing".
  j["mechanisms"] = nlohmann::json::object();
  for (const auto& m : net.mechanisms()) j["mechanisms"][m.name] = m.report ? m.report(net) : nlohmann::json::object();
  j["flow_control"] = cfg.router.vct ? "vct" : "wormhole";
  j["injection"] = injection_policy_name(cfg.router.injection);
  j["cycles"] = cycles;
  j["nodes"] = topo.num_nodes();
  j["routers"] = topo.num_routers();
  j["links"] = topo.num_links();
  j["live_nodes"] = live_nodes;
  // Loads per live node-cycle: a node counts only while it is alive.
  const double node_cycles = net.live_node_cycles(s.window_start, window_end);
  j["offered_load"] = node_cycles > 0 ? static_cast<double>(s.window_flits_created) / node_cycles : 0.0;
  j["accepted_load"] = node_cycles > 0 ? static_cast<double>(s.window_flits_delivered) / node_cycles : 0.0;
  j["accepted_flits_per_cycle"] = static_cast<double>(s.window_flits_delivered) / measure;
  // Payload only (issue 48): header overhead flits (a subheader per
  // intermediate node) are reported apart and never count as throughput.
  j["payload"] = {
      {"offered_load", node_cycles > 0 ? static_cast<double>(s.window_payload_created) / node_cycles : 0.0},
      {"accepted_load", node_cycles > 0 ? static_cast<double>(s.window_payload_delivered) / node_cycles : 0.0},
      {"accepted_flits_per_cycle", static_cast<double>(s.window_payload_delivered) / measure},
      {"header_overhead_flits_per_cycle",
       static_cast<double>(s.window_flits_delivered - s.window_payload_delivered) / measure}};
  {
    nlohmann::json rr = nlohmann::json::object();
    for (const auto& [k, v] : net.relation().report()) rr[k] = v;
    if (!rr.empty()) j["routing_report"] = rr;
  }
  if (deadlock_check)
    j["deadlock_freedom"] = {
        {"claim", deadlock_check->claim.basis},
        {"escape_extended", deadlock_check->claim.kind == routing::DeadlockClaim::Kind::kAcyclicEscapeCdg},
        {"bubble_rings", deadlock_check->claim.bubble_rings},
        {"channels", deadlock_check->channels},
        {"dependencies", deadlock_check->edges},
        {"acyclic", deadlock_check->acyclic}};
  if (cfg.faults.model == "bgl-planes") j["bgl_bypassed_nodes"] = rf.bypassed.size();
  traffic_stats(net, cfg, s, dropped, cycles, measure, j);
  net.gather_energy_events();
  EnergyEvents ev;
  ev.crossbar_flits = s.crossbar_flits();
  ev.ejected_flits = s.ejected_flits();
  ev.heads = s.crossbar_heads();
  ev.injected_flits = s.flits_injected;
  ev.cycles = cycles;
  j["energy"] = energy_json(net, cfg, tech, ev);
  j["deadlock"] = monitor.deadlock;
  if (monitor.deadlock)
    j["deadlock_report"] = {{"kind", monitor.deadlock_kind},     {"last_move_cycle", monitor.deadlock_cycle},
                            {"stuck_flit", monitor.stuck_where}, {"watchdog_cycles", cfg.sim.watchdog_cycles},
                            {"blocked_vcs", monitor.blocked},    {"wait_for_chain", monitor.chain}};
  // Starved flits (waited 4W, then moved): never a deadlock.
  j["starvation"] = {{"flits", monitor.starvation.flits},
                     {"max_wait_cycles", monitor.starvation.max_wait_cycles},
                     {"worst", monitor.starvation.worst},
                     {"still_waiting", monitor.starvation.still_waiting},
                     {"still_waiting_cycles", monitor.starvation.still_waiting_cycles}};
  j["drained"] = monitor.drained;
  // Where the undelivered packets wait when the drain did not finish.
  if (!monitor.drained && !monitor.deadlock) j["undrained_vcs"] = net.blocked_vcs(64);
  nlohmann::json jf = nlohmann::json::array();
  for (const auto& f : rf.faults)
    jf.push_back({{"kind", f.is_router ? "switch" : "link"},
                  {"id", f.id},
                  {"label", f.label},
                  {"at", f.at},
                  {"repair", f.repair >= 0 ? nlohmann::json(f.repair) : nlohmann::json(nullptr)},
                  {"random", f.random}});
  j["faults"] = jf;
  for (const auto& m : net.mechanisms())  // sections of their own (Immunet's "reconfiguration")
    if (m.stats) m.stats(net, cfg, dropped, j);
  j["seed"] = cfg.sim.seed;
  j["wall_seconds"] = wall;            // elaboration + simulation + statistics
  j["simulation_seconds"] = sim_wall;  // sc_start only
  j["node_cycles_per_second"] = sim_wall > 0 ? static_cast<double>(cycles) * topo.num_nodes() / sim_wall : 0.0;
  j["config"] = resolved_config_json(cfg);
  // The document as written, after --set; one whose aliases expand it past
  // the echo limit is named, not copied (a 1 KB alias bomb made a 159 MB
  // stats.json).
  constexpr std::size_t kEchoNodes = 100'000, kEchoBytes = 1u << 20;
  j["config_input"] = yaml_fits(cfg.source, kEchoNodes, kEchoBytes)
                          ? yaml_to_json(cfg.source)
                          : nlohmann::json{{"omitted", fmt::format("the document expands (aliases) beyond {} nodes or "
                                                                   "{} bytes, the echo limit",
                                                                   kEchoNodes, kEchoBytes)}};
  j["complete"] = monitor.stop_signal == 0;
  if (monitor.stop_signal != 0) j["interrupted"] = signal_name(monitor.stop_signal);
  add_mechanism_energy(j, cfg, tech);  // after the mechanisms' sections
  j["warnings"] = run_warnings(j);
  write_outputs(opts.out_dir, monitor, j);
  if (!vcd_error.empty()) throw OutputError(vcd_error + "; the other outputs were written");
  return run_result(monitor, cfg, j);
}

}  // namespace ftsim::tb
