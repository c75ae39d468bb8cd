// The saturation search (issue 48) on probes whose saturation is known.
#include <gtest/gtest.h>

#include <cmath>

#include "common/config_error.hpp"
#include "tb/analysis/saturation_search.hpp"

using ftsim::tb::find_saturation;
using ftsim::tb::SaturationOptions;
using ftsim::tb::SaturationProbe;

namespace {

/// A network of 8 nodes whose one bottleneck channel carries half the
/// traffic (the line of 8 under bit complement: 4 flows of load x cross the
/// middle channel of capacity 1 flit/cycle), so it saturates at x = 0.25
/// flits/node/cycle and accepts 8 x 0.25 = 2 flits/cycle beyond; with
/// `drop`, accepted falls beyond saturation (adaptive routing's
/// post-saturation drop) by that fraction per unit of overload.
SaturationProbe analytic(double load, double drop = 0) {
  SaturationProbe p;
  p.offered = load;
  p.accepted = load <= 0.25 ? load : 0.25 * (1 - drop * (load - 0.25));
  p.live_nodes = 8;
  p.accepted_network = p.accepted * 8;
  return p;
}

}  // namespace

TEST(SaturationSearch, FindsTheAnalyticKneeToWithinThePrecision) {
  SaturationOptions o;
  o.tolerance = 0.02;
  o.precision = 0.01;
  int calls = 0;
  const auto r = find_saturation(
      [&](double x) {
        ++calls;
        return analytic(x);
      },
      o);
  ASSERT_TRUE(r.knee.has_value());
  ASSERT_TRUE(r.saturated.has_value());
  // Carried: accepted >= 0.98 x offered, i.e. load <= 0.25 / 0.98 = 0.2551.
  EXPECT_LE(r.knee->load, 0.25 / 0.98 + 1e-4);
  EXPECT_GT(r.saturated->load, 0.25 / 0.98);
  EXPECT_LE(r.saturated->load - r.knee->load, 0.01 * r.knee->load + 1e-4);
  EXPECT_NEAR(r.knee->accepted_network, 2.0, 0.0405);  // 8 x 0.25, within the bracket's 1%
  EXPECT_DOUBLE_EQ(r.peak.accepted_network, 2.0);
  EXPECT_TRUE(r.saturated_in_range);
  // Bisection from [0.05, 1.0] to 1%: the two ends plus
  // ceil(log2(0.95 / (0.01 x 0.25))) = 9 midpoints at most.
  EXPECT_LE(calls, 11);
  EXPECT_EQ(static_cast<std::size_t>(calls), r.probes.size());
}

TEST(SaturationSearch, ThePeakIsTheLargestAcceptedLoadSeenBeyondTheKnee) {
  SaturationOptions o;
  const auto r = find_saturation([](double x) { return analytic(x, 0.5); }, o);
  ASSERT_TRUE(r.knee.has_value());
  // With a post-saturation drop the accepted load at the knee is the peak.
  EXPECT_NEAR(r.peak.accepted_network, r.knee->accepted_network, 0.02);
  EXPECT_LE(r.peak.accepted_network, 2.0 + 1e-9);
}

TEST(SaturationSearch, ABracketIsWidenedWhenItsEndsAreOnTheWrongSide) {
  SaturationOptions o;
  o.bracket = std::make_pair(0.3, 0.4);  // both ends saturated
  auto r = find_saturation([](double x) { return analytic(x); }, o);
  ASSERT_TRUE(r.knee.has_value());
  EXPECT_LE(r.knee->load, 0.25 / 0.98 + 1e-4);
  EXPECT_GT(r.saturated->load, 0.25 / 0.98);
  o.bracket = std::make_pair(0.1, 0.2);  // both ends carried
  r = find_saturation([](double x) { return analytic(x); }, o);
  ASSERT_TRUE(r.knee.has_value());
  EXPECT_GT(r.saturated->load, 0.25 / 0.98);
  EXPECT_LE(r.knee->load, 0.25 / 0.98 + 1e-4);
  // A tight bracket around the knee needs few probes.
  o.bracket = std::make_pair(0.245, 0.26);
  r = find_saturation([](double x) { return analytic(x); }, o);
  EXPECT_LE(r.probes.size(), 5U);
}

TEST(SaturationSearch, NotSaturatedInRangeAndNotCarriedAtAllAreReported) {
  SaturationOptions o;
  o.high = 0.2;
  auto r = find_saturation([](double x) { return analytic(x); }, o);
  EXPECT_FALSE(r.saturated_in_range);
  ASSERT_TRUE(r.knee.has_value());
  EXPECT_DOUBLE_EQ(r.knee->load, 0.2);
  o = SaturationOptions{};
  o.low = 0.3;
  r = find_saturation([](double x) { return analytic(x); }, o);
  EXPECT_FALSE(r.knee.has_value());
  // A deadlocked probe is never carried, whatever it accepted.
  o = SaturationOptions{};
  r = find_saturation(
      [](double x) {
        auto p = analytic(x);
        p.deadlock = x > 0.2;
        return p;
      },
      o);
  ASSERT_TRUE(r.knee.has_value());
  EXPECT_LE(r.knee->load, 0.2);
  SaturationOptions bad;
  bad.low = 0.5;
  bad.high = 0.4;
  EXPECT_THROW(find_saturation([](double x) { return analytic(x); }, bad), ftsim::ConfigError);
}
