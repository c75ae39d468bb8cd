#include "tb/analysis/fault_tolerance_analysis.hpp"

#include "tb/cli_text.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "routing_logic/inodes/inode_analyzer.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;
namespace in = routing::inodes;

nlohmann::json analyze_fault_tolerance(const FaultToleranceOptions& o) {
  auto topo = routing::make_topology(o.topology);
  const auto* cube = dynamic_cast<const routing::KAryNCube*>(topo.get());
  if (cube == nullptr)
    throw ConfigError(fmt::format("--topology {}: fault-tolerance analysis needs a mesh or torus", o.topology));
  const in::Mechanism mech = in::parse_mechanism(o.mechanism);
  if (o.faults.empty()) throw ConfigError("--faults: empty range");
  for (std::size_t i = 1; i < o.faults.size(); ++i)
    if (o.faults[i] != o.faults[i - 1] + 1)
      throw ConfigError("--faults: give a consecutive range A..B for fault-tolerance analysis");
  const int fmin = o.faults.front(), fmax = o.faults.back();

  std::vector<routing::LinkId> region;
  if (o.mode == FaultToleranceOptions::Mode::kRegion)
    region = in::FaultToleranceAnalyzer::distance1_region(*cube, o.region_center);
  const auto t0 = std::chrono::steady_clock::now();
  const in::FaultToleranceAnalyzer an(*cube, mech, region);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::string mode;
  // The shared progress format (tb/cli_text.hpp), called from this thread
  // only; one analysis mode per run, so one final line.
  Progress prog("analyze fault-tolerance " + mech.name(), "combinations", o.progress);
  const auto start = std::chrono::steady_clock::now();
  in::ProgressFn progress = [&](std::uint64_t done, std::uint64_t total) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    prog.step(done, total, fmt::format("{}, {:.0f} combinations/s", mode, s > 0 ? static_cast<double>(done) / s : 0.0));
  };

  in::FaultToleranceAnalyzer::Plan plan;
  switch (o.mode) {
    case FaultToleranceOptions::Mode::kExhaustive:
      mode = "exhaustive";
      plan = o.symmetry && an.translation_symmetric() ? an.plan_exhaustive_symmetric(fmin, fmax)
                                                      : an.plan_exhaustive(fmin, fmax, {});
      break;
    case FaultToleranceOptions::Mode::kRegion:
      mode = "region distance1";
      plan = an.plan_exhaustive(fmin, fmax, {});
      break;
    case FaultToleranceOptions::Mode::kSamples:
      mode = "samples";
      plan = an.plan_sampled(fmin, fmax, o.samples, o.seed);
      break;
  }
  std::vector<in::FaultCountResult> rows =
      o.runner ? o.runner(an, plan, progress) : an.run(plan, 0, plan.tasks(), o.threads, progress);
  in::FaultToleranceAnalyzer::unfold(plan, rows);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t combos = 0;
  for (const auto& r : rows) combos += r.combinations;

  nlohmann::json j;
  j["topology"] = cube->spec();
  j["mechanism"] = mech.name();
  j["mode"] = mode;
  j["links"] = cube->num_links();
  j["nodes"] = cube->num_nodes();
  if (o.mode == FaultToleranceOptions::Mode::kRegion) {
    j["region_center"] = cube->router_label(o.region_center);
    j["region_links"] = region.size();
  }
  if (o.mode == FaultToleranceOptions::Mode::kSamples) {
    j["samples"] = o.samples;
    j["seed"] = o.seed;
  }
  j["threads"] = o.threads;
  j["backend"] = o.backend;
  if (o.backend != "threads") j["ranks"] = o.ranks;
  j["tasks"] = plan.tasks();
  j["symmetry"] = plan.orbit > 0 ? fmt::format(
                                       "torus translations: the sets containing node 0's + link of each "
                                       "dimension, weighted {} / faults (same counts as every combination)",
                                       plan.orbit)
                                 : std::string("none: every combination");
  j["combinations_evaluated"] = plan.combinations;
  j["route_options"] = an.option_count();
  j["setup_seconds"] = build_s;
  j["wall_seconds"] = secs;
  j["combinations"] = combos;
  j["combinations_per_second"] = secs > 0 ? static_cast<double>(combos) / secs : 0.0;
  j["pairs_counted"] =
      "ordered pairs (s, d), s != d, still connected in the faulty network, summed over the combinations; a pair is "
      "affected when a minimal path of the fault-free network crosses a fault";
  const int entry = in::routing_info_entry_bytes(mech, cube->num_nodes());
  j["routing_info"] = {{"entry_bytes", entry},
                       {"table_bytes_per_source", entry * cube->num_nodes()},
                       {"subheader_bits", in::subheader_bits(mech, cube->num_nodes())}};
  nlohmann::json res = nlohmann::json::array();
  int tolerant_up_to = fmin - 1;
  bool still = true;
  for (const auto& r : rows) {
    nlohmann::json share = nlohmann::json::object();
    for (int c = 1; c < in::kCategories; ++c) {
      const auto n = r.by_category[static_cast<std::size_t>(c)];
      if (n == 0) continue;
      in::RouteKey k{0, c / 4, (c & 2) ? 1 : 0, (c & 1) ? 1 : 0};
      share[in::category_name(k)] = 100.0 * static_cast<double>(n) / static_cast<double>(r.affected);
    }
    if (r.unroutable > 0)
      share["unroutable"] = 100.0 * static_cast<double>(r.unroutable) / static_cast<double>(r.affected);
    res.push_back({{"faults", r.faults},
                   {"combinations", r.combinations},
                   {"not_tolerated", r.not_tolerated},
                   {"not_tolerated_percent", r.not_tolerated_percent()},
                   {"pairs", r.pairs},
                   {"affected_paths", r.affected},
                   {"affected_paths_percent", r.affected_percent()},
                   // The paper's denominator (Table 3): every ordered pair of
                   // nodes, self pairs and disconnected pairs included.
                   {"affected_paths_percent_all_pairs",
                    r.combinations ? 100.0 * static_cast<double>(r.affected) /
                                         (static_cast<double>(r.combinations) * cube->num_nodes() * cube->num_nodes())
                                   : 0.0},
                   {"mechanism_share", share}});
    if (still && r.not_tolerated == 0)
      tolerant_up_to = r.faults;
    else
      still = false;
  }
  j["results"] = res;
  // n-fault tolerance (section 5.1) is a claim about every combination, so it
  // is stated only for the exhaustive model.
  // The counts below the analysed range are not known: the degree needs the
  // range to start at 1 (null otherwise).
  if (o.mode == FaultToleranceOptions::Mode::kExhaustive)
    j["fault_tolerant_up_to"] = fmin == 1 ? nlohmann::json(tolerant_up_to) : nlohmann::json(nullptr);
  return j;
}

}  // namespace ftsim::tb
