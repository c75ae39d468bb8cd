// `ftsim analyze`: routing-success, fault-tolerance, connectivity, dqr.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

#include "common/config_error.hpp"
#include "common/text_input.hpp"
#include "routing_logic/dqr/dqr.hpp"
#include "routing_logic/dlr/fat_tree_analysis.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/routing_trials.hpp"
#include "tb/cli/cli_commands.hpp"
#include "tb/cli_text.hpp"
#include "tb/analysis/dqr_analysis.hpp"
#include "tb/analysis/fault_tolerance_analysis.hpp"
#include "tb/output_files.hpp"
#include "tb/sweep/sweep.hpp"
#ifdef FTSIM_HAVE_MPI
#include "tb/sweep/sweep_mpi.hpp"
#endif

namespace ftsim::tb::cli {

namespace {

/// The options every analysis has: --jobs (parallel worker threads, 1..256;
/// --threads is the old name) and --out (the JSON file, required).
template <typename Int>
void add_jobs_and_out(CLI::App* app, Int& jobs, std::string& out) {
  app->add_option("--jobs,--threads", jobs, "parallel workers (threads; default: all cores)")
      ->check(CLI::Range(1, 256));
  app->add_option("--out", out, "JSON file to write")->required();
}

constexpr long long kMaxRangeValues = 100000;
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

std::vector<int> parse_range_impl(const std::string& text, const std::string& option) {
  std::vector<int> out;
  auto num = [&](const std::string& t) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(t, &used);
      if (used != t.size() || v < 0) throw std::invalid_argument(t);
      return v;
    } catch (const std::exception&) {
      throw ftsim::ConfigError(
          fmt::format("{} '{}': '{}' is not a non-negative integer; use A..B, A..B:STEP or A,B,C", option, text, t));
    }
  };
  const std::size_t dots = text.find("..");
  if (dots != std::string::npos) {
    std::string rest = text.substr(dots + 2);
    int step = 1;
    const std::size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      step = num(rest.substr(colon + 1));
      rest = rest.substr(0, colon);
    }
    const int a = num(text.substr(0, dots));
    const int b = num(rest);
    if (step < 1 || b < a)
      throw ftsim::ConfigError(fmt::format("{} '{}': expected A..B with A <= B and STEP >= 1", option, text));
    const long long count = (static_cast<long long>(b) - a) / step + 1;
    if (count > kMaxRangeValues)
      throw ftsim::ConfigError(
          fmt::format("{} '{}': {} values; at most {} allowed", option, text, count, kMaxRangeValues));
    for (long long v = a; v <= b; v += step) out.push_back(static_cast<int>(v));  // no int overflow at INT_MAX
    return out;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t next = text.find(',', pos);
    if (next == std::string::npos) next = text.size();
    out.push_back(num(text.substr(pos, next - pos)));
    pos = next + 1;
  }
  return out;
}

class RoutingSuccessCommand final : public Command {
 public:
  RoutingSuccessCommand(CLI::App* analyze, const Defaults& d) {
    auto* success = analyze->add_subcommand(
        "routing-success", "success ratio and mean path length of routing algorithms under random link faults");
    success->add_option("--topology", an_topology, "topology spec (default mikant:3,3)");
    success->add_option(
        "--algorithms", an_algorithms,
        "comma list of shortest, go-neighbor-switch, go-down-level, three-turn, gns+gdl, gns+xt+gdl, tt+gdl, "
        "connectivity, or all");
    success->add_option("--faults", an_faults, "faulty links per trial: A..B, A..B:STEP or A,B,C (default 0..20)");
    success->add_option("--fault-rate", an_rate, "percent of links faulty instead of a count: A..B[:STEP], 0..100");
    success->add_option("--trials", an_trials, "trials per fault count (default 100000)")
        ->check(CLI::Range(1L, 100000000L));
    success->add_option("--seed", an_seed, "seed (default 1)")->check(integer_in(0, kMaxU64));
    add_jobs_and_out(success, an_threads, an_out);
    success->add_flag("--quiet", quiet, "no summary line");
    an_threads = d.jobs;
    m_app = success;
  }
  int execute() override {
    ftsim::tb::check_output_file(an_out, "--out");
    const std::vector<std::string> implemented{"shortest", "go-neighbor-switch", "go-down-level", "three-turn",
                                               "gns+gdl",  "gns+xt+gdl",         "tt+gdl",        "connectivity"};
    const std::vector<std::string> planned;
    std::vector<std::string> algos;
    if (an_algorithms == "all") {
      algos = implemented;
    } else {
      for (const std::string& a : split_names(an_algorithms, "--algorithms")) {
        if (std::find(implemented.begin(), implemented.end(), a) != implemented.end()) {
          algos.push_back(a);
        } else if (std::find(planned.begin(), planned.end(), a) != planned.end()) {
          throw ftsim::ConfigError(
              fmt::format("--algorithms: '{}' is not implemented yet; available: {}", a, fmt::join(implemented, ", ")));
        } else {
          throw ftsim::ConfigError(
              fmt::format("--algorithms: unknown '{}'; allowed: {}, or all", a, fmt::join(implemented, ", ")));
        }
      }
    }
    auto topo = ftsim::routing::make_topology(an_topology);
    std::vector<int> counts;
    std::vector<double> rates;
    if (!an_rate.empty()) {
      for (int r : parse_range(an_rate, "--fault-rate")) {
        if (r > 100) throw ftsim::ConfigError(fmt::format("--fault-rate {}: allowed 0..100", r));
        rates.push_back(r);
        counts.push_back(static_cast<int>(std::lround(r / 100.0 * topo->num_links())));
      }
    } else {
      counts = parse_range(an_faults, "--faults");
    }
    const auto wall0 = std::chrono::steady_clock::now();
    ftsim::tb::Progress progress("analyze routing-success", "fault counts", !quiet, 2.0);
    const auto rows =
        ftsim::routing::routing_success(an_topology, algos, counts, an_trials, an_seed, an_threads,
                                        [&](std::uint64_t done, std::uint64_t total) { progress.step(done, total); });
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    nlohmann::json j;
    j["topology"] = topo->spec();
    j["links"] = topo->num_links();
    j["trials"] = an_trials;
    j["seed"] = an_seed;
    j["wall_seconds"] = secs;
    j["trials_per_second"] =
        secs > 0 ? static_cast<double>(an_trials) * static_cast<double>(counts.size()) / secs : 0.0;
    nlohmann::json res = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      nlohmann::json row = {{"algorithm", r.algorithm},
                            {"faults", r.faults},
                            {"success_ratio", r.success_ratio},
                            {"mean_path_length", r.mean_path_length},
                            {"trials", r.trials}};
      if (!rates.empty()) row["fault_rate"] = rates[i / algos.size()];
      res.push_back(row);
    }
    j["results"] = res;
    ftsim::tb::write_file_atomically(an_out, j.dump(2) + "\n");
    if (!quiet) std::cout << fmt::format("ftsim: wrote {} ({} rows, {:.1f} s)\n", an_out, rows.size(), secs);
    return 0;
  }

 private:
  bool quiet = false;
  std::string an_topology = "mikant:3,3";
  std::string an_algorithms = "all";
  std::string an_faults = "0..20";
  std::string an_rate;
  long an_trials = 100000;
  std::uint64_t an_seed = 1;
  std::string an_out;
  int an_threads = 1;
};

class FaultToleranceCommand final : public Command {
 public:
  FaultToleranceCommand(CLI::App* analyze, const Defaults& d) {
    auto* ftol = analyze->add_subcommand(
        "fault-tolerance",
        "intermediate nodes (I, IxN), disabled adaptivity (D) and misrouting (M): share of fault combinations not "
        "tolerated and of affected paths per mechanism (mesh/torus)");
    ftol->add_option("--topology", ft.topology, "mesh or torus spec (default torus:3x3x3)");
    ftol->add_option("--mechanism", ft.mechanism,
                     "I, D, M, I+D, I+M, D+M, I+D+M, IxN (N=1..3), Ix2+D, none (default I)");
    ftol->add_option("--faults", ft_faults, "faulty links per combination: A..B (default 1..3)");
    auto* ex_flag = ftol->add_flag("--exhaustive", ft_exhaustive, "every combination of the whole network");
    auto* region_opt = ftol->add_option("--region", ft_region, "distance1: every combination inside the region")
                           ->check(CLI::IsMember({"distance1"}));
    ftol->add_option("--center", ft.region_center, "region centre node id (default 0)")
        ->check(integer_in(0, std::numeric_limits<int>::max()));
    auto* samples_opt = ftol->add_option("--samples", ft.samples, "random combinations per fault count")
                            ->check(CLI::Range(1L, 1000000000L));
    ftol->add_option("--seed", ft.seed, "seed for --samples (default 1)")->check(integer_in(0, kMaxU64));
    add_jobs_and_out(ftol, ft.threads, ft_out);
    ftol->add_flag(
        "--mpi", ft_mpi,
        "MPI backend: spread the combinations over the ranks of `mpirun -n N ftsim analyze "
        "fault-tolerance ...` (chosen automatically under mpirun; --jobs is then threads per rank, default 1)");
    ftol->add_flag("--quiet", quiet, "no progress or summary");
    ftol->add_flag("--no-symmetry", ft_no_symmetry,
                   "exhaustive on a torus: enumerate every combination instead of one per translation class (same "
                   "counts, about nodes / faults times the work)");
    ex_flag->excludes(region_opt)->excludes(samples_opt);
    region_opt->excludes(samples_opt);
    ft.threads = d.jobs;
    m_app = ftol;
  }
  int execute() override {
    ftsim::tb::check_output_file(ft_out, "--out");
    if (!ft_exhaustive && ft_region.empty() && ft.samples == 0)
      throw ftsim::ConfigError(
          "analyze fault-tolerance: choose one fault model: --exhaustive, --region distance1 or --samples N");
    ft.mode = ft_exhaustive        ? ftsim::tb::FaultToleranceOptions::Mode::kExhaustive
              : !ft_region.empty() ? ftsim::tb::FaultToleranceOptions::Mode::kRegion
                                   : ftsim::tb::FaultToleranceOptions::Mode::kSamples;
    ft.faults = parse_range(ft_faults, "--faults");
    ft.progress = !quiet;
    ft.symmetry = !ft_no_symmetry;
    nlohmann::json j;
    if (ft_mpi || ftsim::tb::launched_by_mpi()) {
#ifdef FTSIM_HAVE_MPI
      if (m_app->get_option("--jobs")->count() == 0) ft.threads = 1;  // one rank per core
      bool is_root = false;
      j = ftsim::tb::analyze_fault_tolerance_mpi(ft, &is_root);
      if (!is_root) return 0;
#else
      throw ftsim::ConfigError(
          "analyze fault-tolerance: this ftsim was built without MPI (install libopenmpi-dev and rebuild with "
          "-DFTSIM_WITH_MPI=ON), but --mpi was given or an MPI launcher started it");
#endif
    } else {
      j = ftsim::tb::analyze_fault_tolerance(ft);
    }
    ftsim::tb::write_file_atomically(ft_out, j.dump(2) + "\n");
    if (!quiet)
      std::cout << fmt::format("ftsim: wrote {} ({} combinations, {:.1f} s, {:.0f} combinations/s)\n", ft_out,
                               j["combinations"].get<std::uint64_t>(), j["wall_seconds"].get<double>(),
                               j["combinations_per_second"].get<double>());
    return 0;
  }

 private:
  bool quiet = false;
  ftsim::tb::FaultToleranceOptions ft;
  std::string ft_faults = "1..3";
  std::string ft_region;
  bool ft_exhaustive = false;
  bool ft_no_symmetry = false;
  std::string ft_out;
  bool ft_mpi = false;
};

class ConnectivityCommand final : public Command {
 public:
  ConnectivityCommand(CLI::App* analyze, const Defaults& d) {
    auto* conn = analyze->add_subcommand(
        "connectivity", "probability that a fat-tree mechanism's routing keeps every end-node pair connected");
    conn->add_option("--topology", cn_topology, "kary-ntree:K,N (default kary-ntree:4,3)");
    conn->add_option("--mechanism", cn_mechanism, "dlr (DDLR/ADLR rerouting) or ddrc (recomputed tables)")
        ->check(CLI::IsMember({"dlr", "ddrc"}));
    conn->add_option("--faults", cn_faults, "faulty switch-switch links: A..B, A..B:STEP or A,B,C (default 1..10)");
    conn->add_option("--samples", cn_samples, "fault sets per count; exact enumeration when C(L,f) <= samples")
        ->check(CLI::Range(1L, 100000000L));
    conn->add_option("--seed", cn_seed, "seed (default 1)")->check(integer_in(0, kMaxU64));
    add_jobs_and_out(conn, an_threads, cn_out);
    conn->add_flag("--quiet", quiet, "no summary line");
    an_threads = d.jobs;
    m_app = conn;
  }
  int execute() override {
    ftsim::tb::check_output_file(cn_out, "--out");
    auto topo = ftsim::routing::make_topology(cn_topology);
    const auto* tree = dynamic_cast<const ftsim::routing::KAryNTree*>(topo.get());
    if (tree == nullptr)
      throw ftsim::ConfigError(fmt::format("--topology {}: connectivity analysis needs kary-ntree:K,N", cn_topology));
    const auto counts = parse_range(cn_faults, "--faults");
    const auto wall0 = std::chrono::steady_clock::now();
    ftsim::tb::Progress progress("analyze connectivity " + cn_mechanism, "sources x fault sets", !quiet, 2.0);
    const auto rows = ftsim::routing::fat_tree_connectivity(
        *tree, cn_mechanism, counts, cn_samples, cn_seed, an_threads,
        [&](std::uint64_t done, std::uint64_t total) { progress.step(done, total); });
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    nlohmann::json j;
    j["topology"] = tree->spec();
    j["mechanism"] = cn_mechanism;
    j["samples"] = cn_samples;
    j["seed"] = cn_seed;
    j["wall_seconds"] = secs;
    j["definition"] =
        "a fault set counts as connected when the routing function (DDLR's rerouting for dlr, the recomputed "
        "up*/down* tables for ddrc) delivers every ordered pair of end nodes; faults are switch-switch links";
    nlohmann::json res = nlohmann::json::array();
    for (const auto& r : rows)
      res.push_back({{"faults", r.faults},
                     {"connected_probability", r.connected_probability},
                     {"samples", r.samples},
                     {"exact", r.exact}});
    j["results"] = res;
    ftsim::tb::write_file_atomically(cn_out, j.dump(2) + "\n");
    if (!quiet) std::cout << fmt::format("ftsim: wrote {} ({} rows, {:.1f} s)\n", cn_out, rows.size(), secs);
    return 0;
  }

 private:
  bool quiet = false;
  int an_threads = 1;
  std::string cn_topology = "kary-ntree:4,3";
  std::string cn_mechanism = "dlr";
  std::string cn_faults = "1..10";
  long cn_samples = 500;
  std::uint64_t cn_seed = 1;
  std::string cn_out;
};

class DqrCommand final : public Command {
 public:
  DqrCommand(CLI::App* analyze, const Defaults& d) {
    auto* dqr = analyze->add_subcommand(
        "dqr",
        "dynamic quick reconfiguration (DQR) under progressive random link faults: success probability, flows "
        "rerouted, LFT entries and blocks changed, turns enabled, T, stretch and compute time per fault count");
    dqr->add_option("--topology", dq.topology,
                    "mesh:KxK, torus:KxK, fat-tree2:L,S,H or ibnet:FILE.net (default mesh:10x10)");
    dqr->add_option("--initial", dq.initial,
                    "initial tables: dor, updn (up*/down*), lash (tori: minimal DOR paths in LASH virtual layers) or "
                    "import:DIR (OpenSM opensm-lfts.dump) (default dor)");
    dqr->add_option("--endpoints", dq.endpoints,
                    "hca = the fabric's end nodes; all = also every switch's own LID (switch-to-switch paths, as the "
                    "paper's fat tree; flows = the pairs the initial tables route) (default hca)")
        ->check(CLI::IsMember({"hca", "all"}));
    dqr->add_option("--layers", dq_layers,
                    "with several virtual layers (lash): all = a flow set may move to another layer when its own "
                    "has no path (the paper's tori), same = never (default all)")
        ->check(CLI::IsMember({"all", "same"}));
    dqr->add_option(
        "--variant", dq_variants,
        "comma list of e2e-single, e2e-path, lr-single, lr-path, lr-path-all, mesh-plugin, local-search, or "
        "all (default lr-path)");
    dqr->add_option("--faults", dq_faults, "fault counts 1..N: each run adds up to N faults (default 1..10)");
    dqr->add_option("--runs", dq.runs, "runs per variant (default 500, as in the paper)")
        ->check(CLI::Range(1, 10000000));
    dqr->add_option("--seed", dq.seed, "seed (default 1)")->check(integer_in(0, kMaxU64));
    add_jobs_and_out(dqr, dq.threads, dq_out);
    dqr->add_flag("--quiet", quiet, "no progress or summary");
    dqr->add_flag("--every-single-fault", dq.every_single_fault,
                  "also fail every link (or switch, with --fault-kind switch) alone and count the successes (the "
                  "one-fault guarantee)");
    dqr->add_option("--fault-kind", dq.fault_kind,
                    "link = a switch-to-switch link per fault; switch = a switch with all its links and its nodes "
                    "(their flows are lost, counted in flows_lost) (default link)")
        ->check(CLI::IsMember({"link", "switch"}));
    dqr->add_option("--fallback", dq.fallback,
                    "when the variant fails: none = the run ends (the paper's P(N)); updn = full reroute by "
                    "up*/down* over the survivors (a static reconfiguration), counted per point in full_reroutes, "
                    "and the run goes on (default none)")
        ->check(CLI::IsMember({"none", "updn"}));
    dqr->add_flag("--check-transition", dq.check_transition,
                  "check every table update under non-atomic writes in any order (acyclic, loop-free, turns only a "
                  "partial write takes): per point transition_acyclic, transition_loop_free, transition_mixed_turns");
    dq.threads = d.jobs;
    m_app = dqr;
  }
  int execute() override {
    ftsim::tb::check_output_file(dq_out, "--out");
    // Each run adds faults one by one and reports every count 1..N: a list
    // or a step cannot be honoured ("1,3,2" stopped at 2, "1..5:2" ran 1..5).
    const auto counts = parse_range(dq_faults, "--faults");
    bool consecutive = !counts.empty() && counts.front() == 1;
    for (std::size_t i = 1; i < counts.size(); ++i) consecutive = consecutive && counts[i] == counts[i - 1] + 1;
    if (!consecutive)
      throw ftsim::ConfigError(fmt::format(
          "--faults '{}': analyze dqr adds faults one at a time and reports every count, so give a range 1..N "
          "(N >= 1) without a step",
          dq_faults));
    dq.max_faults = counts.back();
    dq.variants.clear();
    if (dq_variants == "all") {
      dq.variants = ftsim::routing::dqr::variant_names();
      dq.variants_all = true;
    } else {
      dq.variants = split_names(dq_variants, "--variant");
    }
    dq.progress = !quiet;
    dq.move_layers = dq_layers == "all";
    const auto j = ftsim::tb::analyze_dqr(dq);
    ftsim::tb::write_file_atomically(dq_out, j.dump(2) + "\n");
    if (!quiet) {
      for (const auto& v : j["variants"]) {
        std::string line;
        for (const auto& p : v["points"]) line += fmt::format(" {:.2f}", p["success_probability"].get<double>());
        std::cout << fmt::format("{:<13} P(1..{}):{}\n", v["variant"].get<std::string>(), dq.max_faults, line);
        if (v.contains("single_faults"))
          std::cout << fmt::format("{:<13} single link faults reconfigured: {} of {}\n", "",
                                   v["single_faults"]["succeeded"].get<std::size_t>(),
                                   v["single_faults"]["links"].get<std::size_t>());
      }
      std::cout << fmt::format("ftsim: wrote {} ({:.1f} s)\n", dq_out, j["wall_seconds"].get<double>());
    }
    return 0;
  }

 private:
  bool quiet = false;
  ftsim::tb::DqrAnalysisOptions dq;
  std::string dq_variants = "lr-path", dq_faults = "1..10", dq_out;
  std::string dq_layers = "all";
};

}  // namespace

CLI::Validator integer_in(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const auto v = ftsim::parse_unsigned(text, 10, max);
        if (v && *v >= min) return {};
        return fmt::format("'{}' is not an integer in {}..{}", ftsim::shown(text), min, max);
      },
      fmt::format("INT in {}..{}", min, max));
}

std::vector<std::string> split_names(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string name = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (name.empty())
      throw ftsim::ConfigError(fmt::format("{} '{}': an empty name; give a comma list of names", option, text));
    out.push_back(name);
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

std::vector<int> parse_range(const std::string& text, const std::string& option) {
  return parse_range_impl(text, option);
}

void add_analyze_commands(CLI::App& app, const Defaults& d, Commands& out) {
  auto* analyze = app.add_subcommand("analyze", "offline analyses (no timing)");
  analyze->require_subcommand(1);
  out.push_back(std::make_unique<RoutingSuccessCommand>(analyze, d));
  out.push_back(std::make_unique<FaultToleranceCommand>(analyze, d));
  out.push_back(std::make_unique<ConnectivityCommand>(analyze, d));
  out.push_back(std::make_unique<DqrCommand>(analyze, d));
  add_saturation_command(analyze, out);
}

}  // namespace ftsim::tb::cli
