#include "tb/analysis/dqr_analysis.hpp"

#include "tb/cli_text.hpp"

#include "common/text_input.hpp"
#include "common/thread_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "routing_logic/dqr/dqr.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/lft_routing.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/switch_endpoints.hpp"
#include "tables/lft.hpp"
#include "tables/path_sl.hpp"

namespace ftsim::tb {

namespace {
using ftsim::ConfigError;

namespace rt = ftsim::routing;

/// The folder of `--initial import:DIR_OR_FILE`, where path-sl.txt sits.
std::string import_folder(const std::string& dir_or_file) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir_or_file, ec)) return dir_or_file;
  const std::string parent = std::filesystem::path(dir_or_file).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

std::vector<std::vector<std::int32_t>> dqr_initial_tables(const routing::Topology& topo, const std::string& initial) {
  namespace rt = ftsim::routing;
  if (initial == "dor") {
    auto dor = rt::make_routing("dor");
    dor->configure(topo, 1);
    return rt::deterministic_tables(*dor);
  }
  if (initial == "updn") return rt::updown_tables(topo);
  if (initial.rfind("import:", 0) == 0) {
    const std::string where = initial.substr(7);
    if (const auto sls = tables::PathSlSet::load_if_present(import_folder(where)); sls && !sls->sl.empty()) {
      int top = 0;
      for (const auto& [p, sl] : sls->sl) top = std::max(top, sl);
      if (top > 0)
        throw ftsim::ConfigError(
            fmt::format("--initial {}: its path-sl.txt puts paths in {} service levels (virtual layers), which the "
                        "cycle-level DQR model does not have; use it with `ftsim analyze dqr` or `ftsim lft export`",
                        initial, top + 1));
    }
    return tables::place(tables::LftSet::load(where), topo).port;
  }
  if (initial == "lash")
    throw ftsim::ConfigError(
        "--initial lash: LASH needs a virtual layer per VC, which the cycle-level DQR model does not have; "
        "use it with `ftsim analyze dqr` or `ftsim lft export`");
  throw ftsim::ConfigError(
      fmt::format("--initial '{}': one of dor, updn, lash, import:DIR (a folder with opensm-lfts.dump)", initial));
}

DqrInitial dqr_initial(const routing::Topology& topo, const std::string& initial) {
  DqrInitial out;
  if (initial == "lash") {
    out.tables = routing::dqr::lash_tables(topo);
    out.layers = routing::dqr::lash_layers(topo, out.tables);
  } else if (initial.rfind("import:", 0) == 0) {
    const std::string where = initial.substr(7);
    const auto placed = tables::place(tables::LftSet::load(where), topo);
    out.tables = placed.port;
    if (const auto sls = tables::PathSlSet::load_if_present(import_folder(where)))
      out.layers = tables::layers_from_path_sl(*sls, topo, placed.lid);
  } else {
    out.tables = dqr_initial_tables(topo, initial);
  }
  return out;
}

namespace {

/// Per fault count, sums over the runs.
struct Point {
  int successes = 0;
  double flows_fraction = 0, entries = 0, blocks = 0, turns = 0, moved_turns = 0, channels = 0, stretch = 0;
  int stretch_count = 0;
  double stretch_max = 0, seconds = 0, seconds_max = 0, plugin_refused = 0, flows_moved = 0, flows_lost = 0;
  int full_reroutes = 0, runs_routed = 0;
  int transition_acyclic = 0, transition_loop_free = 0;
  double transition_mixed = 0;
  void add(const rt::dqr::Result& r, double flows, const rt::dqr::TransitionCheck* chk) {
    if (chk != nullptr) {
      transition_acyclic += chk->acyclic;
      transition_loop_free += chk->loop_free;
      transition_mixed += static_cast<double>(chk->mixed_turns);
    }
    ++successes;
    flows_fraction += static_cast<double>(r.flows_disconnected) / flows;
    entries += static_cast<double>(r.entries_changed);
    blocks += static_cast<double>(r.blocks_changed);
    turns += static_cast<double>(r.turns_enabled);
    moved_turns += static_cast<double>(r.turns_moved);
    channels += static_cast<double>(r.channels_moved);
    stretch += r.stretch_mean;
    stretch_count += r.stretch_mean > 0;
    stretch_max = std::max(stretch_max, r.stretch_max);
    seconds += r.seconds;
    seconds_max = std::max(seconds_max, r.seconds);
    plugin_refused += static_cast<double>(r.plugin_refused);
    flows_moved += static_cast<double>(r.flows_moved);
    flows_lost += static_cast<double>(r.flows_lost);
  }
};

/// One fault of a run with a fallback: DQR reconfigured it, the full reroute
/// did, or neither (the run ends).
enum class Outcome : char { kDqr, kFullReroute, kEnded };

}  // namespace

namespace {
/// Refuses, before anything large is allocated, an analysis whose routing
/// tables cannot fit: every engine (the prototype, one per worker, and the
/// tables before each step with --check-transition) holds a port per router
/// and destination, and the flow set holds a path per source-destination
/// pair. mesh:1024x1024 ended in bad_alloc after 33 s.
void check_dqr_memory(const rt::Topology& topo, const DqrAnalysisOptions& opt) {
  const double routers = topo.num_routers(), nodes = topo.num_nodes();
  const double table = routers * nodes * sizeof(rt::PortId);
  const double engines = 2.0 + std::max(1, std::min(opt.threads, opt.runs)) * (opt.check_transition ? 2.0 : 1.0);
  const double flows = nodes * nodes * 16.0;  // a flow's bookkeeping: at least its two ends and its path's start
  const double need = table * engines + flows;
  const std::uint64_t have = ftsim::available_memory_bytes();
  if (have > 0 && need > static_cast<double>(have) * 0.9)
    throw ftsim::ConfigError(fmt::format(
        "topology {}: {} switches x {} destinations of routing tables for {:.0f} engines need at least {:.1f} GiB, "
        "but this machine has {:.1f} GiB available; choose a smaller fabric or fewer --jobs",
        topo.spec(), topo.num_routers(), topo.num_nodes(), engines, need / (1ULL << 30),
        static_cast<double>(have) / (1ULL << 30)));
}

}  // namespace

nlohmann::json analyze_dqr(const DqrAnalysisOptions& opt_in) {
  DqrAnalysisOptions opt = opt_in;
  if (opt.max_faults < 1) throw ftsim::ConfigError(fmt::format("--faults: at least 1 (got {})", opt.max_faults));
  if (opt.runs < 1) throw ftsim::ConfigError(fmt::format("--runs: at least 1 (got {})", opt.runs));
  std::vector<rt::dqr::Options> variants;
  for (const auto& v : opt.variants) {
    variants.push_back(rt::dqr::variant_options(v));
    variants.back().move_layers = opt.move_layers;
  }
  if (opt.endpoints != "hca" && opt.endpoints != "all")
    throw ftsim::ConfigError(fmt::format("--endpoints '{}': one of hca, all", opt.endpoints));
  if (opt.fault_kind != "link" && opt.fault_kind != "switch")
    throw ftsim::ConfigError(fmt::format("--fault-kind '{}': one of link, switch", opt.fault_kind));
  if (opt.fallback != "none" && opt.fallback != "updn")
    throw ftsim::ConfigError(fmt::format("--fallback '{}': one of none, updn", opt.fallback));
  const bool switch_faults = opt.fault_kind == "switch";
  const bool fallback = opt.fallback == "updn";
  const bool switch_endpoints = opt.endpoints == "all";
  std::unique_ptr<rt::Topology> topo = rt::make_topology(opt.topology);
  if (switch_endpoints) topo = std::make_unique<rt::SwitchEndpointTopology>(std::move(topo));
  // The mesh plug-in (section IV-B step 2 on a mesh) needs the 2-D mesh's
  // coordinates: refused before any run, or left out of --variant all.
  const auto* cube = dynamic_cast<const rt::KAryNCube*>(topo.get());
  const bool mesh2d = cube != nullptr && !cube->torus() && cube->dimensions() == 2;
  std::vector<std::string> skipped;
  for (std::size_t i = 0; i < variants.size();) {
    if (variants[i].plugin != rt::dqr::Plugin::kMeshCentre || mesh2d) {
      ++i;
      continue;
    }
    if (!opt.variants_all)
      throw ftsim::ConfigError(
          fmt::format("--variant {}: the mesh plug-in needs a 2-D mesh (mesh:KxK{}); {} is not one", opt.variants[i],
                      switch_endpoints ? " with --endpoints hca" : "", topo->spec()));
    skipped.push_back(opt.variants[i]);
    variants.erase(variants.begin() + static_cast<std::ptrdiff_t>(i));
    opt.variants.erase(opt.variants.begin() + static_cast<std::ptrdiff_t>(i));
  }
  check_dqr_memory(*topo, opt);
  DqrInitial initial = dqr_initial(*topo, opt.initial);
  const int layers = initial.layers.count;
  const rt::dqr::Engine prototype(*topo, std::move(initial.tables), std::move(initial.layers),
                                  switch_endpoints ? rt::dqr::FlowSet::kRouted : rt::dqr::FlowSet::kAllPairs);
  std::vector<rt::LinkId> switch_links;
  for (rt::LinkId l = 0; l < topo->num_links(); ++l)
    if (!topo->link(l).b_is_node) switch_links.push_back(l);
  if (!switch_faults && static_cast<std::size_t>(opt.max_faults) > switch_links.size())
    throw ftsim::ConfigError(fmt::format("--faults 1..{}: {} has {} switch-to-switch links; at most 1..{}",
                                         opt.max_faults, topo->spec(), switch_links.size(), switch_links.size()));
  if (switch_faults && opt.max_faults >= topo->num_routers())
    throw ftsim::ConfigError(fmt::format("--faults 1..{} with --fault-kind switch: {} has {} switches; at most 1..{}",
                                         opt.max_faults, topo->spec(), topo->num_routers(), topo->num_routers() - 1));
  const double flows = static_cast<double>(prototype.flow_count());
  const auto wall0 = std::chrono::steady_clock::now();
  const std::uint64_t total_runs = static_cast<std::uint64_t>(opt.runs) * variants.size();
  Progress progress("analyze dqr", "runs", opt.progress);

  nlohmann::json out;
  out["topology"] = topo->spec();
  out["initial"] = opt.initial;
  out["layers"] = layers;
  out["layer_search"] = opt.move_layers ? "all" : "same";
  out["runs"] = opt.runs;
  out["seed"] = opt.seed;
  out["max_faults"] = opt.max_faults;
  out["check_transition"] = opt.check_transition;
  out["endpoints"] = opt.endpoints;
  out["fault_kind"] = opt.fault_kind;
  out["fallback"] = opt.fallback;
  out["nodes"] = topo->num_nodes();
  out["flows"] = static_cast<std::uint64_t>(flows);
  out["links"] = switch_links.size();
  out["variants"] = nlohmann::json::array();
  if (!skipped.empty()) out["variants_skipped"] = skipped;
  const int threads = std::max(1, std::min(opt.threads, opt.runs));
  for (std::size_t vi = 0; vi < variants.size(); ++vi) {
    std::vector<Point> total(static_cast<std::size_t>(opt.max_faults));
    std::mutex mu;
    std::atomic<int> next_run{0}, done{0};
    // Each run's successful reconfigurations, summed in run order after
    // the workers finish, so the figures do not depend on the thread count.
    std::vector<std::vector<rt::dqr::Result>> per_run(static_cast<std::size_t>(opt.runs));
    std::vector<std::vector<rt::dqr::TransitionCheck>> per_run_check(static_cast<std::size_t>(opt.runs));
    std::vector<std::vector<Outcome>> per_run_outcome(static_cast<std::size_t>(opt.runs));
    auto worker = [&] {
      for (int run = next_run++; run < opt.runs; run = next_run++) {
        std::seed_seq seq{static_cast<std::uint32_t>(opt.seed), static_cast<std::uint32_t>(opt.seed >> 32),
                          static_cast<std::uint32_t>(run)};
        std::mt19937_64 rng(seq);
        rt::dqr::Engine eng = prototype;
        bool clean = true;  // no fallback yet: DQR's own P(N)
        for (int f = 0; f < opt.max_faults; ++f) {
          // Draw a live link (or switch) whose loss keeps the survivors
          // connected; drop a candidate that would not.
          std::vector<int> live;
          if (switch_faults) {
            for (rt::RouterId r = 0; r < topo->num_routers(); ++r)
              if (!eng.dead_switches()[static_cast<std::size_t>(r)]) live.push_back(r);
          } else {
            for (rt::LinkId l : switch_links)
              if (!eng.dead_links()[static_cast<std::size_t>(l)]) live.push_back(l);
          }
          int pick = rt::kNone;
          while (!live.empty() && pick == rt::kNone) {
            std::uniform_int_distribution<std::size_t> u(0, live.size() - 1);
            const std::size_t i = u(rng);
            if (switch_faults ? eng.connected_without_switch(live[i]) : eng.connected_without(live[i])) {
              pick = live[i];
            } else {
              live[i] = live.back();
              live.pop_back();
            }
          }
          if (pick == rt::kNone) break;
          std::vector<std::vector<rt::PortId>> tables_before;
          rt::dqr::Layers layers_before;
          if (opt.check_transition) {
            tables_before = eng.tables();
            layers_before = eng.layers();
          }
          const auto r = switch_faults ? eng.fail_switch(pick, variants[vi]) : eng.reconfigure({pick}, variants[vi]);
          auto& outcome = per_run_outcome[static_cast<std::size_t>(run)];
          if (r.success) {
            outcome.push_back(Outcome::kDqr);
            if (clean) {
              per_run[static_cast<std::size_t>(run)].push_back(r);
              if (opt.check_transition)
                per_run_check[static_cast<std::size_t>(run)].push_back(
                    rt::dqr::check_transition(*topo, tables_before, eng.tables(), eng.dead_links(), layers_before,
                                              eng.layers(), eng.not_flows()));
            }
            continue;
          }
          clean = false;
          if (!fallback || !eng.full_reroute().success) {
            outcome.push_back(Outcome::kEnded);
            break;
          }
          outcome.push_back(Outcome::kFullReroute);
        }
        const int d = ++done;
        if (opt.progress) {
          std::lock_guard<std::mutex> lock(mu);
          const std::uint64_t all_done = vi * static_cast<std::uint64_t>(opt.runs) + static_cast<std::uint64_t>(d);
          const std::string note = fmt::format("variant {} ({} of {})", opt.variants[vi], vi + 1, variants.size());
          progress.step(all_done, total_runs, note);
        }
      }
    };
    ftsim::run_on_threads(threads, worker);
    for (std::size_t run = 0; run < per_run.size(); ++run) {
      for (std::size_t f = 0; f < per_run[run].size(); ++f)
        total[f].add(per_run[run][f], flows, opt.check_transition ? &per_run_check[run][f] : nullptr);
      for (std::size_t f = 0; f < per_run_outcome[run].size(); ++f) {
        total[f].full_reroutes += per_run_outcome[run][f] == Outcome::kFullReroute;
        total[f].runs_routed += per_run_outcome[run][f] != Outcome::kEnded;
      }
    }
    nlohmann::json v;
    v["variant"] = opt.variants[vi];
    v["points"] = nlohmann::json::array();
    for (std::size_t i = 0; i < total.size(); ++i) {
      const Point& p = total[i];
      const double k = std::max(1, p.successes);
      v["points"].push_back({{"faults", i + 1},
                             {"successes", p.successes},
                             {"success_probability", p.successes / static_cast<double>(opt.runs)},
                             {"flows_rerouted_fraction", p.flows_fraction / k},
                             {"entries_changed", p.entries / k},
                             {"blocks_changed", p.blocks / k},
                             {"turns_enabled", p.turns / k},
                             {"turns_moved", p.moved_turns / k},
                             {"channels_moved", p.channels / k},
                             {"stretch_mean", p.stretch / std::max(1, p.stretch_count)},
                             {"stretch_max", p.stretch_max},
                             {"seconds_mean", p.seconds / k},
                             {"seconds_max", p.seconds_max},
                             {"plugin_refused", p.plugin_refused / k},
                             {"flows_moved", p.flows_moved / k},
                             {"flows_lost", p.flows_lost / k}});
      if (fallback) {
        v["points"].back()["full_reroutes"] = p.full_reroutes;
        v["points"].back()["runs_routed"] = p.runs_routed;
      }
      if (opt.check_transition) {
        auto& pt = v["points"].back();
        pt["transition_acyclic"] = p.transition_acyclic / k;
        pt["transition_loop_free"] = p.transition_loop_free / k;
        pt["transition_mixed_turns"] = p.transition_mixed / k;
      }
    }
    if (opt.every_single_fault) {
      // Every switch-to-switch link (or every switch) alone, from the
      // initial tables; one whose loss disconnects the survivors is skipped.
      std::vector<int> items;
      if (switch_faults) {
        for (rt::RouterId r = 0; r < topo->num_routers(); ++r)
          if (prototype.connected_without_switch(r)) items.push_back(r);
      } else {
        items.assign(switch_links.begin(), switch_links.end());
      }
      std::atomic<std::size_t> next{0};
      std::vector<char> ok(items.size(), 0);
      auto single = [&] {
        for (std::size_t i = next++; i < items.size(); i = next++) {
          rt::dqr::Engine eng = prototype;
          ok[i] = (switch_faults ? eng.fail_switch(items[i], variants[vi]) : eng.reconfigure({items[i]}, variants[vi]))
                      .success;
        }
      };
      ftsim::run_on_threads(std::max(1, opt.threads), single);
      nlohmann::json failed = nlohmann::json::array();
      std::size_t succeeded = 0;
      for (std::size_t i = 0; i < ok.size(); ++i) {
        succeeded += ok[i];
        if (!ok[i] && failed.size() < 50)
          failed.push_back(switch_faults ? topo->router_label(items[i]) : topo->link_label(items[i]));
      }
      v["single_faults"] = {
          {switch_faults ? "switches" : "links", items.size()}, {"succeeded", succeeded}, {"failed", failed}};
    }
    out["variants"].push_back(v);
  }
  out["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

}  // namespace ftsim::tb
