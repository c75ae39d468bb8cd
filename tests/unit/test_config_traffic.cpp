// Experiment parsing and traffic patterns (no simulation).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "routing_logic/topology/kary_ncube.hpp"
#include "tb/experiment_config.hpp"
#include "tb/experiment_runner.hpp"
#include "tb/traffic_generator.hpp"
#include "tb/traffic_pattern.hpp"

using namespace ftsim;

TEST(Config, DefaultsAndOverrides) {
  const auto c = tb::parse_experiment("topology: torus:4x4\nrouter: {vcs: 3}\n",
                                      {"traffic.load=0.25", "router.latency.link=3", "faults.random_links=2"});
  EXPECT_EQ(c.topology, "torus:4x4");
  EXPECT_EQ(c.router.vcs, 3);
  EXPECT_DOUBLE_EQ(c.traffic.load, 0.25);
  EXPECT_EQ(c.router.lat_link, 3);
  EXPECT_EQ(c.router.hop_latency(), 7);
  EXPECT_EQ(c.faults.random_links, 2);
}

TEST(Config, FaultListBecomesScheduleUnderSet) {
  const auto c =
      tb::parse_experiment("faults:\n  - {link: '1,1:x+', at: 100, repair: 200}\n  - {switch: '2,2', at: 5}\n",
                           {"faults.random_links=1", "faults.detection_delay=7"});
  ASSERT_EQ(c.faults.schedule.size(), 2U);
  EXPECT_EQ(c.faults.schedule[0].link, "1,1:x+");
  EXPECT_EQ(c.faults.schedule[0].repair, 200);
  EXPECT_EQ(c.faults.schedule[1].router, "2,2");
  EXPECT_EQ(c.faults.random_links, 1);
  EXPECT_EQ(c.faults.detection_delay, 7);
}

TEST(Config, ErrorsNameKeyAndRange) {
  auto msg = [](const std::string& y, const std::vector<std::string>& s = {}) {
    try {
      tb::parse_experiment(y, s);
    } catch (const ftsim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("router: {vcs: 0}").find("router.vcs"), std::string::npos);
  EXPECT_NE(msg("router: {vcs: 0}").find("1..16"), std::string::npos);
  EXPECT_NE(msg("router: {flow_control: sloppy}").find("wormhole, vct"), std::string::npos);
  EXPECT_NE(msg("sim: {seed: abc}").find("sim.seed"), std::string::npos);
  EXPECT_NE(msg("faults: [{at: 3}]").find("exactly one"), std::string::npos);
  EXPECT_NE(msg("faults: [{link: '1,1:x+', at: 30, repair: 20}]").find("later"), std::string::npos);
  EXPECT_NE(msg("router: {flow_control: vct, buffer_flits: 2}\ntraffic: {packet_flits: 4}").find("longest packet"),
            std::string::npos);
  EXPECT_NE(msg("{}", {"novalue"}).find("dotted.key=value"), std::string::npos);
  EXPECT_NE(msg("a: [").find("malformed YAML"), std::string::npos);
  EXPECT_NE(msg("router: {injection: greedy}").find("router.injection"), std::string::npos);
  EXPECT_NE(msg("router: {queues: shared}").find("key 'router.queues' = 'shared': allowed input, voq"),
            std::string::npos);
  EXPECT_NE(msg("router: {crossbar: full}").find("router.crossbar' = 'full': allowed multiplexed, per_vc"),
            std::string::npos);
  EXPECT_NE(msg("router: {vc_realloc: eager}").find("router.vc_realloc' = 'eager': allowed atomic, non_atomic"),
            std::string::npos);
  EXPECT_NE(msg("router: {switch_allocator: wavefront}")
                .find("router.switch_allocator' = 'wavefront': allowed separable_input_first, islip"),
            std::string::npos);
  EXPECT_NE(msg("router: {vc_allocator: islip}")
                .find("router.vc_allocator' = 'islip': allowed separable_input_first, wavefront"),
            std::string::npos);
  EXPECT_NE(msg("router: {vc_allocator: wavefront, queues: voq}")
                .find("router.vc_allocator = 'wavefront' needs router.queues = 'input'"),
            std::string::npos);
  EXPECT_NE(msg("router: {selection: greedy}")
                .find("router.selection' = 'greedy': allowed max_credits, max_credits_rr, round_robin"),
            std::string::npos);
  EXPECT_NE(msg("router: {islip_iterations: 9}").find("router.islip_iterations"), std::string::npos);
  EXPECT_NE(msg("router: {islip_iterations: 9}").find("1..8"), std::string::npos);
  EXPECT_NE(msg("router: {injection_ports: 0}").find("router.injection_ports"), std::string::npos);
  EXPECT_NE(msg("router: {ejection_ports: 17}").find("1..16"), std::string::npos);
  EXPECT_NE(msg("router: {vcs: 2, injection_ports: 3}").find("exceeds router.vcs = 2"), std::string::npos);
  EXPECT_NE(msg("routing: immunet\nrouter: {queues: voq}").find("not available with routing 'immunet'"),
            std::string::npos);
  EXPECT_NE(msg("router: {queues: voq, voq: private}").find("router.voq' = 'private': allowed shared, per_output"),
            std::string::npos);
  EXPECT_NE(msg("router: {voq: per_output}").find("needs router.queues = 'voq'"), std::string::npos);
  EXPECT_NE(msg("router: {queues: voq, voq: per_output, flow_control: vct, buffer_flits: 8, voq_flits: 9}")
                .find("router.voq_flits = 9 exceeds router.buffer_flits = 8: allowed 1..8"),
            std::string::npos);
  EXPECT_NE(msg("router: {queues: voq, voq: per_output, flow_control: vct, buffer_flits: 8, voq_flits: 2}\n"
                "traffic: {packet_flits: 4}")
                .find("router.voq_flits = 2 is smaller than the longest packet (4 flits)"),
            std::string::npos);
  EXPECT_NE(msg("router: {queues: voq, voq: per_output, flow_control: wormhole}").find("virtual cut-through only"),
            std::string::npos);
  EXPECT_NE(msg("router: {voq_flits: 0}").find("router.voq_flits"), std::string::npos);
  EXPECT_NE(msg("traffic: {kind: closed}").find("traffic.kind' = 'closed': allowed open_loop, request_reply"),
            std::string::npos);
  EXPECT_NE(msg("traffic: {kind: request_reply, load: 0.3}")
                .find("traffic.load' does not apply to traffic.kind = 'request_reply' (only to open_loop)"),
            std::string::npos);
  EXPECT_NE(msg("traffic: {mshrs: 4}").find("traffic.mshrs' does not apply to traffic.kind = 'open_loop'"),
            std::string::npos);
  EXPECT_NE(msg("traffic: {kind: request_reply, mshrs: 0}").find("traffic.mshrs"), std::string::npos);
  EXPECT_NE(msg("traffic: {kind: request_reply, reply_flits: 9}\nrouter: {flow_control: vct, buffer_flits: 8}")
                .find("smaller than the longest packet (9 flits)"),
            std::string::npos);
  EXPECT_NE(msg("traffic: {load: lots}").find("allowed (0, 1] flits/node/cycle"), std::string::npos);
  EXPECT_NE(msg("traffic: {load: 0}").find("allowed (0, 1] flits/node/cycle"), std::string::npos);
  // Duplicate keys: yaml-cpp reads the first and iterates both, so the run
  // and the stats.json echo disagreed; and keys that are not names.
  EXPECT_NE(msg("topology: mesh:4x4\ntopology: mesh:2x2\n").find("key 'topology' appears twice"), std::string::npos);
  EXPECT_NE(msg("router: {vcs: 2, vcs: 4}").find("line 1, column 18"), std::string::npos);
  EXPECT_NE(msg("faults: [{link: '1,1:x+', at: 3, at: 5}]").find("'at' appears twice"), std::string::npos);
  EXPECT_NE(msg("? [a, b]\n: 1\n").find("must be a plain name, not a list"), std::string::npos);
  EXPECT_NE(msg("{}", {"router={vcs: 2, vcs: 3}"}).find("--set 'router={vcs: 2, vcs: 3}'"), std::string::npos);
  EXPECT_NE(msg("router: {injection: greedy}").find("transit_priority"), std::string::npos);
}

TEST(Config, MechanismSectionsAreCheckedAgainstTheRegistrySpecs) {
  auto msg = [](const std::string& y) {
    try {
      tb::parse_experiment(y, {}, "exp");
    } catch (const ftsim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Integer keys: the range from the spec, 2^40 written as a power.
  EXPECT_EQ(msg("immunet: {handle_cycles: 0}"),
            "exp: key 'immunet.handle_cycles' = 0 out of range: allowed 1..1000000");
  EXPECT_EQ(msg("ddrc: {computation_cycles: -1}"),
            "exp: key 'ddrc.computation_cycles' = -1 out of range: allowed 0..2^40");
  EXPECT_EQ(msg("dlr: {reroute_timeout: 1099511627777}"),
            "exp: key 'dlr.reroute_timeout' = 1099511627777 out of range: allowed 1..2^40");
  EXPECT_EQ(msg("dlr: {reroute_timeout: 1099511627776}"), "no error");  // 2^40 itself
  // Choices name every value and suggest the closest.
  EXPECT_EQ(msg("dqr: {distribution: atomc}"),
            "exp: key 'dqr.distribution' = 'atomc': allowed atomic, sequential, static; did you mean 'atomic'?");
  EXPECT_EQ(msg("immunet: {boot_safe_network: rings}")
                .rfind("exp: key 'immunet.boot_safe_network' = 'rings': allowed dimension-rings, tree-ring", 0),
            0U);
  EXPECT_EQ(msg("dqr: {enabled: maybe}"), "exp: key 'dqr.enabled' = 'maybe' is not a boolean (true/false)");
  // The mechanism's own cross-key rule.
  EXPECT_NE(msg("immunet: {control_packet_flits: 8, control_packet_cycles: 8}")
                .find("key 'immunet.control_packet_cycles' = 8 must exceed immunet.control_packet_flits = 8"),
            std::string::npos);
  // Valid values reach the typed specs and the validated section.
  const auto cfg = tb::parse_experiment(
      "immunet: {max_moves: 7, boot_safe_network: tree-ring}\nddrc: {enabled: true, notification_cycles: 12}\n"
      "dqr: {order: random, block_cycles: 5}\n",
      {});
  EXPECT_EQ(cfg.immunet.max_moves, 7);
  EXPECT_EQ(cfg.immunet.boot_safe_network, "tree-ring");
  EXPECT_TRUE(cfg.ddrc.enabled);
  EXPECT_EQ(cfg.ddrc.notification_cycles, 12);
  EXPECT_EQ(cfg.dqr.order, "random");
  EXPECT_EQ(cfg.dqr.block_cycles, 5);
  ASSERT_EQ(cfg.mechanism_sections.count("ddrc"), 1U);
  EXPECT_EQ(cfg.mechanism_sections.at("ddrc").integer("notification_cycles"), std::optional<std::int64_t>(12));
  EXPECT_FALSE(cfg.mechanism_sections.at("ddrc").integer("computation_cycles").has_value());
  EXPECT_EQ(cfg.mechanism_sections.count("dlr"), 0U);
  // Reading a key as another type than its spec's is the mechanism's bug.
  EXPECT_THROW((void)cfg.mechanism_sections.at("ddrc").text("notification_cycles"), ftsim::ConfigError);
}

TEST(Config, InjectionPolicyDefaultsPerRelationAndRoundTrips) {
  EXPECT_EQ(tb::parse_experiment("routing: dor\n", {}).router.injection, hw::InjectionPolicy::kFair);
  EXPECT_EQ(tb::parse_experiment("routing: immunet\n", {}).router.injection, tb::default_injection_policy("immunet"));
  EXPECT_NE(tb::default_injection_policy("immunet"), hw::InjectionPolicy::kFair);
  EXPECT_EQ(tb::parse_experiment("routing: immunet\nrouter: {injection: fair}\n", {}).router.injection,
            hw::InjectionPolicy::kFair);
  for (auto p : {hw::InjectionPolicy::kFair, hw::InjectionPolicy::kTransitPriority,
                 hw::InjectionPolicy::kAdaptiveBubble, hw::InjectionPolicy::kTransitPriorityAdaptiveBubble}) {
    hw::InjectionPolicy back = hw::InjectionPolicy::kFair;
    ASSERT_TRUE(tb::parse_injection_policy(tb::injection_policy_name(p), &back));
    EXPECT_EQ(back, p);
  }
}

namespace {
tb::TrafficPattern pattern(const routing::Topology& t, const std::string& name) {
  tb::TrafficSpec s;
  s.pattern = name;
  return tb::TrafficPattern(t, s);
}
}  // namespace

TEST(Traffic, PermutationsByHand) {
  auto t = routing::make_topology("mesh:8x8");
  const auto& c = dynamic_cast<const routing::KAryNCube&>(*t);
  EXPECT_EQ(pattern(*t, "bit-complement").permutation(0), 63);
  EXPECT_EQ(pattern(*t, "bit-complement").permutation(0b101010), 0b010101);
  EXPECT_EQ(pattern(*t, "bit-reversal").permutation(1), 32);
  EXPECT_EQ(pattern(*t, "bit-reversal").permutation(0b110100), 0b001011);
  EXPECT_EQ(pattern(*t, "shuffle").permutation(0b100001), 0b000011);
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 8; ++y) {
      const int s = x + 8 * y;
      EXPECT_EQ(pattern(*t, "transpose").permutation(s), y + 8 * x);
      EXPECT_EQ(pattern(*t, "tornado").permutation(s), (x + 3) % 8 + 8 * ((y + 3) % 8));
      EXPECT_EQ(pattern(*t, "neighbor").permutation(s), c.neighbour(s, 0, true));
    }
  auto odd = routing::make_topology("mesh:3x3");
  EXPECT_THROW(pattern(*odd, "bit-complement"), ftsim::ConfigError);
  auto t8 = routing::make_topology("mesh:8x4");
  EXPECT_THROW(pattern(*t8, "transpose"), ftsim::ConfigError);  // 32 nodes: odd number of bits
}

TEST(Traffic, UniformExcludesSelfAndIsUniform) {
  auto t = routing::make_topology("mesh:4x4");
  auto p = pattern(*t, "uniform");
  std::mt19937_64 rng(5);
  std::map<int, int> count;
  const int n = 150000;
  for (int i = 0; i < n; ++i) ++count[p.destination(5, rng)];
  EXPECT_EQ(count.count(5), 0U);
  EXPECT_EQ(count.size(), 15U);
  // Each of 15 destinations expects n/15 = 10000; 5 sigma of a binomial is ~470.
  for (auto [d, k] : count) EXPECT_NEAR(k, n / 15.0, 500) << d;
}

TEST(Traffic, DeadNodesAreNotTargets) {
  auto t = routing::make_topology("mesh:4x4");
  auto p = pattern(*t, "uniform");
  std::vector<int> comp(16, 0);
  comp[3] = -1;
  p.set_components(comp);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 5000; ++i) EXPECT_NE(p.destination(0, rng), 3);
  EXPECT_EQ(p.destination(3, rng), routing::kNone);
}

// stats.json latency percentiles (selection, not a full sort) against a
// sorted copy read at the nearest rank ceil(p * n), on sizes around the
// ranks' edges and with many repeated values.
TEST(LatencyPercentiles, NearestRanksEqualThoseOfTheSortedValues) {
  std::mt19937 rng(54);
  for (const std::size_t n : {1U, 2U, 3U, 99U, 100U, 101U, 199U, 200U, 1000U, 4097U}) {
    for (const std::uint32_t spread : {3U, 1000000U}) {
      std::vector<std::uint32_t> v(n);
      for (auto& x : v) x = static_cast<std::uint32_t>(rng() % spread);
      std::vector<std::uint32_t> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      const auto at_rank = [&](std::size_t rank) { return sorted[rank - 1]; };
      const auto j = tb::latency_percentiles(v);
      EXPECT_EQ(j["p50"].get<std::uint32_t>(), at_rank((n + 1) / 2)) << n;          // ceil(n / 2)
      EXPECT_EQ(j["p99"].get<std::uint32_t>(), at_rank((99 * n + 99) / 100)) << n;  // ceil(0.99 n)
      EXPECT_EQ(j["max"].get<std::uint32_t>(), sorted.back()) << n;
      EXPECT_EQ(j["count"].get<std::size_t>(), n);
      double sum = 0;
      for (auto x : sorted) sum += x;
      EXPECT_DOUBLE_EQ(j["mean"].get<double>(), sum / static_cast<double>(n));
    }
  }
  const auto empty = tb::latency_percentiles({});
  EXPECT_TRUE(empty["p50"].is_null());
  EXPECT_EQ(empty["count"].get<int>(), 0);
}

// The injection calendar's queue against an ordered set of (cycle,
// generator) pairs: the same top after every push, replace_top and pop, for
// generator counts at and just past a power of two (the key's field width).
TEST(DueQueue, PopsInCycleThenGeneratorOrderLikeAnOrderedSet) {
  for (const std::uint32_t n : {1U, 2U, 7U, 64U, 65U, 512U}) {
    std::mt19937_64 rng(n);
    tb::DueQueue q(n);
    std::set<std::pair<std::uint64_t, std::uint32_t>> model;
    for (std::uint32_t g = 0; g < n; ++g) {
      const std::uint64_t c = 1 + rng() % 20;  // ties in cycle are common
      q.push(c, g);
      model.emplace(c, g);
    }
    for (int step = 0; step < 20000 && !model.empty(); ++step) {
      ASSERT_EQ(q.size(), model.size());
      ASSERT_EQ(q.top_cycle(), model.begin()->first) << "n " << n << " step " << step;
      ASSERT_EQ(q.top_generator(), model.begin()->second) << "n " << n << " step " << step;
      const auto [c, g] = *model.begin();
      model.erase(model.begin());
      if (rng() % 50 == 0) {
        q.pop();
      } else {
        const std::uint64_t next = c + 1 + rng() % 30;
        q.replace_top(next);
        model.emplace(next, g);
      }
    }
  }
}

TEST(DueQueue, ClampsCyclesBeyondItsKeyRange) {
  tb::DueQueue q(1000);  // 10 generator bits: cycles up to 2^54 - 1
  EXPECT_EQ(q.max_cycle(), (std::uint64_t{1} << 54) - 1);
  q.push(~0ULL, 999);
  q.push(5, 3);
  EXPECT_EQ(q.top_cycle(), 5U);
  q.pop();
  EXPECT_EQ(q.top_cycle(), q.max_cycle());
  EXPECT_EQ(q.top_generator(), 999U);
}
