// sim.router_processes: one process clocking every router (hw::RouterClock,
// the default) against one clocked SC_METHOD per router. The two run the
// routers of a cycle in different orders (id order inside one process
// against the kernel's order of its runnable processes) and a sleeping
// router woken during a cycle at a different point, so identical results
// check what docs/architecture.md claims: channels written at cycle t are
// read from t + 1, and no router sees another's work of the same cycle.
#include <fstream>
#include <iterator>
#include <string>

#include "cli_support.hpp"

namespace {

using namespace ftsim_cli_test;  // NOLINT(google-build-using-namespace)

/// Drops timings (keys ending in _seconds or _per_second) at any depth.
void strip_timings(nlohmann::json& j) {
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (ends_with(it.key(), "_seconds") || ends_with(it.key(), "_per_second")) {
        it = j.erase(it);
      } else {
        strip_timings(*it);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& v : j) strip_timings(v);
  }
}

/// stats.json without what is not behaviour (as scripts/check_golden.py):
/// identity, the config echo (which names the setting) and timings.
nlohmann::json behaviour(const std::string& path) {
  nlohmann::json j = read_json(path);
  for (const char* k : {"ftsim", "experiment", "config", "config_input"}) j.erase(k);
  strip_timings(j);
  return j;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

/// Runs `args` under both settings; expects exit 0 and identical stats.json
/// and timeseries.csv.
void expect_identical(const std::string& name, const std::string& args) {
  const std::string d = tmpdir("router_clock_" + name);
  const Result a = run(args + " --out " + d + "/shared");
  const Result b = run(args + " --out " + d + "/per_router --set sim.router_processes=per_router");
  ASSERT_EQ(a.code, 0) << a.output;
  ASSERT_EQ(b.code, 0) << b.output;
  const nlohmann::json ja = behaviour(d + "/shared/stats.json");
  const nlohmann::json jb = behaviour(d + "/per_router/stats.json");
  EXPECT_GT(ja["packets"]["delivered"].get<long>(), 0) << name;
  EXPECT_EQ(ja, jb) << name << ": the patch that turns one into the other: " << nlohmann::json::diff(ja, jb).dump();
  EXPECT_EQ(read_text(d + "/shared/timeseries.csv"), read_text(d + "/per_router/timeseries.csv")) << name;
  EXPECT_EQ(read_json(d + "/per_router/stats.json")["config"]["sim"]["router_processes"], "per_router");
}

const std::string kExp = std::string(FTSIM_SOURCE_DIR) + "/experiments/";

TEST(CliRouterClock, AMeshNearSaturationRunsTheSameEitherWay) {
  expect_identical("mesh", "run " + kBase + kShort + " --set traffic.load=0.4");
}

TEST(CliRouterClock, ALinkFaultUnderImmunetRunsTheSameEitherWay) {
  // Immunet's emergency blocks have processes of their own (drive, sample)
  // and the fault wakes sleeping routers in the middle of a cycle.
  expect_identical("immunet", "run " + kBase + kShort +
                                  " --set traffic.load=0.2 --set routing=immunet --set topology=torus:8x8"
                                  " --set router.flow_control=vct --set router.buffer_flits=8"
                                  " --set 'faults=[{link: \"3,3:x+\", at: 300}]'");
}

TEST(CliRouterClock, IntermediateNodesAndTheFatTreeRunTheSameEitherWay) {
  expect_identical("inodes", "run " + kExp + "inodes-smoke.yaml --quiet");
  expect_identical("dlr_voq", "run " + kExp + "dlr-base.yaml" + kShort + " --set router.queues=voq");
}

TEST(CliRouterClock, WavesAreTheSameEitherWay) {
  // While a VCD is open every router ticks every cycle.
  const std::string d = tmpdir("router_clock_vcd");
  const std::string args = "run " + kExp + "immunet-4x4-waves.yaml --quiet --trace-from 2990 --trace-to 3200";
  const Result a = run(args + " --out " + d + "/a --vcd " + d + "/a.vcd");
  const Result b = run(args + " --out " + d + "/b --vcd " + d + "/b.vcd --set sim.router_processes=per_router");
  ASSERT_EQ(a.code, 0) << a.output;
  ASSERT_EQ(b.code, 0) << b.output;
  // Everything after the header's date line.
  auto body = [](const std::string& vcd) { return vcd.substr(vcd.find("$end", vcd.find("$date"))); };
  const std::string va = read_text(d + "/a.vcd");
  ASSERT_GT(va.size(), 10000U);
  EXPECT_TRUE(body(va) == body(read_text(d + "/b.vcd")));
}

// A plain router (no mechanism, one queue per VC, the plain switch
// allocator: Router::m_plain) ticks through tick_of<true>, which leaves out
// the tests such a router always passes; while a VCD is open every router
// ticks through tick_of<false> (and none sleeps). A VCD over the whole run
// must change no result: a mesh near saturation whose two link faults drop
// packets (the failed-link and drop paths run in both).
TEST(CliRouterClock, APlainRouterTicksAsTheGeneralTickDoes) {
  const std::string d = tmpdir("router_clock_plain");
  const std::string args = "run " + kBase + kShort + " --set traffic.load=0.4 --set faults.random_links=2";
  const Result a = run(args + " --out " + d + "/plain");
  const Result b = run(args + " --out " + d + "/general --vcd " + d + "/general.vcd --trace-routers 0,0");
  ASSERT_EQ(a.code, 0) << a.output;
  ASSERT_EQ(b.code, 0) << b.output;
  const nlohmann::json ja = behaviour(d + "/plain/stats.json");
  const nlohmann::json jb = behaviour(d + "/general/stats.json");
  EXPECT_GT(ja["packets"]["delivered"].get<long>(), 1000);
  EXPECT_GT(ja["packets"]["dropped"].get<long>(), 0);
  EXPECT_EQ(ja, jb) << "the patch that turns one into the other: " << nlohmann::json::diff(ja, jb).dump();
  EXPECT_EQ(read_text(d + "/plain/timeseries.csv"), read_text(d + "/general/timeseries.csv"));
}

TEST(CliRouterClock, AnUnknownSettingIsAConfigError) {
  expect_config_error(kBase + kShort + " --set sim.router_processes=threads", "sim.router_processes");
}

}  // namespace
