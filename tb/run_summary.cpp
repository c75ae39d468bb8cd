#include "tb/run_summary.hpp"

#include <fmt/format.h>

namespace ftsim::tb {

namespace {
const nlohmann::json& at_or_null(const nlohmann::json& j, const char* a, const char* b = nullptr) {
  static const nlohmann::json kNull;
  if (!j.is_object() || !j.contains(a)) return kNull;
  if (b == nullptr) return j[a];
  return j[a].is_object() && j[a].contains(b) ? j[a][b] : kNull;
}
double num(const nlohmann::json& v, double otherwise = 0.0) {
  return v.is_number() ? v.get<double>() : otherwise;
}
}  // namespace

nlohmann::json run_warnings(const nlohmann::json& s) {
  nlohmann::json w = nlohmann::json::array();
  auto add = [&](const char* code, const std::string& message) { w.push_back({{"code", code}, {"message", message}}); };
  const auto& interrupted = at_or_null(s, "interrupted");
  if (interrupted.is_string())
    add("interrupted", fmt::format("stopped by {} at cycle {}: the figures cover part of the run only",
                                   interrupted.get<std::string>(), num(at_or_null(s, "cycles"))));
  if (at_or_null(s, "deadlock").is_boolean() && s["deadlock"].get<bool>())
    add("deadlock", "the network deadlocked (recorded as the outcome); see deadlock_report");
  if (at_or_null(s, "conservation_ok").is_boolean() && !s["conservation_ok"].get<bool>())
    add("conservation_violated", "injected != delivered + dropped + in flight: the model lost track of packets");
  const auto& measured = at_or_null(s, "packets", "measured");
  const auto& undelivered = at_or_null(s, "packets", "measured_undelivered");
  if (measured.is_number() && measured.get<double>() == 0)
    add("no_measured_packets", "no packet was created in the measurement window: load and latency are empty");
  if (undelivered.is_number() && undelivered.get<double>() > 0 && measured.is_number() && !interrupted.is_string())
    add("not_drained", fmt::format("{} of {} measured packets ({:.1f}%) were not delivered by the end of the drain "
                                   "(sim.max_drain_cycles); latency covers the delivered ones only",
                                   undelivered.get<std::uint64_t>(), measured.get<std::uint64_t>(),
                                   100.0 * undelivered.get<double>() / std::max(1.0, measured.get<double>())));
  const auto& still = at_or_null(s, "starvation", "still_waiting");
  if (still.is_string() && !still.get<std::string>().empty())
    add("starvation",
        fmt::format("a flit at {} waited {} cycles and had not moved when the run ended; no wait-for "
                    "cycle or failed port holds it: starved by arbitration, not deadlocked",
                    still.get<std::string>(), at_or_null(s, "starvation", "still_waiting_cycles").dump()));
  const auto& starved = at_or_null(s, "starvation", "flits");
  if (starved.is_number() && starved.get<double>() > 0)
    add("starvation",
        fmt::format("{} flit(s) waited at least 4 x sim.watchdog_cycles in a transit VC and then moved (longest "
                    "{} cycles, at {}): starved by arbitration, not deadlocked",
                    starved.dump(), at_or_null(s, "starvation", "max_wait_cycles").dump(),
                    at_or_null(s, "starvation", "worst").is_string() ? s["starvation"]["worst"].get<std::string>()
                                                                     : std::string("?")));
  // A fault scheduled after the run's last cycle never happens (the
  // schedule said 1e9 on a run of 20,000 cycles, and nothing told).
  const auto& faults = at_or_null(s, "faults");
  const auto& cycles = at_or_null(s, "cycles");
  if (faults.is_array() && cycles.is_number()) {
    std::size_t late = 0;
    std::string first;
    for (const auto& f : faults)
      if (f.is_object() && f.contains("at") && f["at"].is_number() && f["at"].get<double>() > cycles.get<double>()) {
        if (late++ == 0)
          first = fmt::format("{} at cycle {}", f.contains("label") ? f["label"].dump() : "?", f["at"].dump());
      }
    if (late > 0)
      add("fault_after_run", fmt::format("{} scheduled fault(s) (first: {}) fall after the run's last cycle {}: "
                                         "they never happened",
                                         late, first, cycles.dump()));
  }
  const auto& rr = at_or_null(s, "request_reply");
  if (rr.is_object() && rr.contains("execution_cycles") && rr["execution_cycles"].is_null())
    add("workload_incomplete",
        fmt::format("{} of {} nodes had all their requests answered by the end of the drain (sim.max_drain_cycles); "
                    "{} requests outstanding (lost to faults, or the run was too short): execution_cycles is empty",
                    at_or_null(s, "request_reply", "nodes_finished").dump(), at_or_null(s, "nodes").dump(),
                    at_or_null(s, "request_reply", "requests_outstanding").dump()));
  if (at_or_null(s, "trace").is_object() && s["trace"]["complete"].is_boolean() && !s["trace"]["complete"].get<bool>())
    add("workload_incomplete",
        fmt::format("the trace did not complete: {} packets lost, {} never sent (a dependency was lost), or the run "
                    "ended first",
                    s["trace"]["lost"].dump(), s["trace"]["blocked"].dump()));
  if (at_or_null(s, "phases").is_object() && !at_or_null(s, "phases", "complete").is_null() &&
      !s["phases"]["complete"].get<bool>())
    add("workload_incomplete",
        "the phases did not all end by the end of the run (sim.measure_cycles + "
        "sim.max_drain_cycles): execution_cycles is empty");
  const double offered = num(at_or_null(s, "offered_load"));
  const double accepted = num(at_or_null(s, "accepted_load"));
  if (offered > 0 && accepted < kSaturationAcceptedShare * offered)
    add("beyond_saturation",
        fmt::format("accepted {:.3f} is {:.0f}% below offered {:.3f} flits/node/cycle: beyond saturation, source "
                    "queues grow and latency depends on the run length",
                    accepted, 100.0 * (1.0 - accepted / offered), offered));
  return w;
}

std::string run_summary(const nlohmann::json& s) {
  std::string out;
  auto line = [&](const char* label, const std::string& text) { out += fmt::format("  {:<9} {}\n", label, text); };
  const auto& cfg = at_or_null(s, "config");
  const std::string name = cfg.is_object() && cfg.contains("name") ? cfg["name"].get<std::string>()
                                                                   : s.value("experiment", std::string("run"));
  out +=
      fmt::format("ftsim: {}: {}, routing {}, {}, {} cycles in {:.1f} s\n", name, s.value("topology", std::string("?")),
                  s.value("routing", std::string("?")), s.value("flow_control", std::string("?")),
                  num(at_or_null(s, "cycles")), num(at_or_null(s, "wall_seconds")));
  line("load", fmt::format("offered {:.3f}, accepted {:.3f} flits/node/cycle", num(at_or_null(s, "offered_load")),
                           num(at_or_null(s, "accepted_load"))));
  const auto& lat = at_or_null(s, "latency_cycles");
  if (lat.is_object() && lat["mean"].is_number())
    line("latency", fmt::format("mean {:.1f}, p99 {}, max {} cycles over {} measured packets",
                                lat["mean"].get<double>(), lat["p99"].dump(), lat["max"].dump(), lat["count"].dump()));
  else
    line("latency", "none measured");
  const auto& rr = at_or_null(s, "request_reply");
  if (rr.is_object()) {
    const auto& rt = rr["round_trip_cycles"];
    line("requests",
         fmt::format("{} issued, {} answered, {:.4f} per node and cycle; round trip mean {}, p99 {} cycles{}",
                     rr["requests_issued"].dump(), rr["requests_completed"].dump(), num(rr["completed_per_node_cycle"]),
                     rt.is_object() && rt["mean"].is_number() ? fmt::format("{:.1f}", rt["mean"].get<double>())
                                                              : std::string("-"),
                     rt.is_object() ? rt["p99"].dump() : std::string("-"),
                     rr.contains("execution_cycles") && rr["execution_cycles"].is_number()
                         ? fmt::format("; work done at cycle {}", rr["execution_cycles"].dump())
                         : std::string()));
  }
  const auto& ph = at_or_null(s, "phases");
  if (ph.is_object() && ph["phases"].is_array()) {
    std::size_t done = 0;
    for (const auto& p : ph["phases"]) done += p["end_cycle"].is_number();
    line("phases", fmt::format("{} of {} done{}", done, ph["phases"].size(),
                               ph["execution_cycles"].is_number()
                                   ? fmt::format(", execution time {} cycles", ph["execution_cycles"].dump())
                                   : std::string(": the workload did not finish")));
  }
  const auto& tr = at_or_null(s, "trace");
  if (tr.is_object())
    line("trace", fmt::format("{} of {} packets delivered ({} lost, {} never sent: a dependency was lost){}",
                              tr["delivered"].dump(), tr["records"].dump(), tr["lost"].dump(), tr["blocked"].dump(),
                              tr["execution_cycles"].is_number()
                                  ? fmt::format(", last arrival at cycle {}", tr["execution_cycles"].dump())
                                  : std::string()));
  const auto& energy = at_or_null(s, "energy");
  if (energy.is_object() && energy["total_pj"].is_number())
    line("energy", fmt::format("{:.3g} uJ ({:.3g} dynamic, {:.3g} static), {:.1f} pJ per delivered flit ({})",
                               num(energy["total_pj"]) * 1e-6, num(energy["dynamic_pj"]["total"]) * 1e-6,
                               num(energy["static_pj"]["total"]) * 1e-6, num(energy["pj_per_delivered_flit"]),
                               energy.value("technology", std::string("?"))));
  std::string lost = fmt::format("{} dropped", num(at_or_null(s, "packets", "dropped")));
  if (s.contains("dropped_by_reason") && s["dropped_by_reason"].is_object()) {
    std::string reasons;
    for (const auto& [k, v] : s["dropped_by_reason"].items())
      if (v.is_number() && v.get<double>() > 0)
        reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", k, v.dump());
    if (!reasons.empty()) lost += " (" + reasons + ")";
  }
  lost += fmt::format(", {} still in flight", num(at_or_null(s, "packets", "in_flight")));
  line("packets", lost);
  if (s.contains("faults") && s["faults"].is_array() && !s["faults"].empty()) {
    std::string f;
    std::size_t shown = 0;
    for (const auto& e : s["faults"]) {
      if (shown == 4) {
        f += fmt::format(", ... ({} in all)", s["faults"].size());
        break;
      }
      f += fmt::format("{}{} {} at {}", f.empty() ? "" : ", ", e.value("kind", std::string("link")),
                       e.value("label", std::string("?")), e["at"].dump());
      if (e.contains("repair") && e["repair"].is_number()) f += fmt::format(" (repaired at {})", e["repair"].dump());
      ++shown;
    }
    line("faults", f);
  }
  const auto& rc = at_or_null(s, "reconfiguration");
  if (rc.is_object() && rc.value("happened", false))
    line("reconfig",
         fmt::format("detected at {}, emergency over at {} ({} cycles), tables final at {} ({} cycles after the fault)",
                     rc["first_detect_cycle"].dump(), rc["emergency_end_cycle"].dump(), rc["emergency_cycles"].dump(),
                     rc["last_table_update_cycle"].dump(), rc["reconfiguration_cycles"].dump()));
  for (const char* sm : {"ddrc", "dqr"}) {
    const auto& d = at_or_null(s, sm);
    if (d.is_object() && d.contains("update_cycles") && d["update_cycles"].is_array() && !d["update_cycles"].empty())
      line("reconfig",
           fmt::format("{}: {} table update(s), last at cycle {}, {} table writes", sm, d["update_cycles"].size(),
                       d["update_cycles"].back().dump(), d.value("table_writes", nlohmann::json(0)).dump()));
  }
  const auto& w = at_or_null(s, "warnings");
  if (w.is_array())
    for (std::size_t i = 0; i < w.size(); ++i)
      line(i == 0 ? "WARNING" : "",
           fmt::format("{}: {}", w[i].value("code", std::string()), w[i].value("message", std::string())));
  return out;
}

}  // namespace ftsim::tb
