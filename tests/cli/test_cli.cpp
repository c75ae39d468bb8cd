// The ftsim command as users run it: exit codes, messages, outputs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "cli_support.hpp"

namespace fs = std::filesystem;
using namespace ftsim_cli_test;  // NOLINT(google-build-using-namespace)

TEST(Cli, MalformedYaml) {
  const auto d = tmpdir("malformed");
  expect_config_error(write_file(d, "bad.yaml", "topology: [mesh:8x8\nrouting: dor\n"), "malformed YAML");
}

TEST(Cli, InputThatIsNotAYamlFileIsAUserError) {
  // A directory used to run the default experiment with exit 0; /dev/zero
  // was read for ever and ended as an internal error.
  const auto d = tmpdir("notafile");
  expect_config_error(d, "is a directory");
  expect_config_error("/dev/zero", "not a regular file");
  expect_config_error(d + "/missing.yaml", "does not exist");
  const Result r = run("sweep " + d + " --quiet --out " + d + "/sw");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("sweep file"), std::string::npos) << r.output;
}

TEST(Cli, DuplicateKeysAreRejected) {
  const auto d = tmpdir("dupkeys");
  expect_config_error(write_file(d, "dup.yaml", "topology: mesh:4x4\nrouting: dor\ntopology: mesh:2x2\n"),
                      "key 'topology' appears twice");
  const std::string sw = write_file(d, "sw.yaml", "experiment: " + kBase + "\ngrid: {traffic.load: [0.1]}\ngrid: {}\n");
  const Result r = run("sweep " + sw + " --quiet --out " + d + "/sw");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'grid' appears twice"), std::string::npos) << r.output;
}

TEST(Cli, OutputsThatCannotBeWrittenAreUserErrorsFoundBeforeTheRun) {
  // Each used to print "wrote" and exit 0 with nothing written, or exit 4
  // after the whole simulation.
  const auto d = tmpdir("outs");
  const std::string file = write_file(d, "plain", "x");
  expect_config_error(kBase + kShort + " --out ''", "give a directory");
  expect_config_error(kBase + kShort + " --out /proc/self", "cannot write files");
  expect_config_error(kBase + kShort + " --out " + file, "existing file");
  expect_config_error(kBase + kShort + " --out " + d + "/r --vcd " + d + "/w.vcd --trace-from 100000",
                      "beyond the run");
  expect_config_error(kBase + kShort + " --set \"faults={model: [links]}\"", "faults.model");
  expect_config_error(write_file(d, "bad-utf8.yaml", "name: \xff\xfe\ntopology: mesh:4x4\n"), "not valid UTF-8");
  EXPECT_FALSE(std::filesystem::exists(d + "/r/stats.json"));
  for (const char* an : {"routing-success --trials 10", "connectivity --samples 10", "fault-tolerance --samples 10"}) {
    const Result r = run(std::string("analyze ") + an + " --out /proc/nonexist/a.json");
    EXPECT_EQ(r.code, 2) << an << ": " << r.output;
    EXPECT_NE(r.output.find("--out /proc/nonexist/a.json"), std::string::npos) << r.output;
  }
}

TEST(Cli, SweepIsValidatedBeforeAnyRunStarts) {
  const auto d = tmpdir("sweepcheck");
  const std::string typo = write_file(d, "typo.yaml", "experiment: " + kBase + "\ngrid: {traffic.lod: [0.1, 0.2]}\n");
  Result r = run("sweep " + typo + " --quiet --out " + d + "/a");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("point 1 of 2 (traffic.lod=0.1)"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(d + "/a/run_0000"));
  const std::string plot =
      write_file(d, "plot.yaml", "experiment: " + kBase + "\ngrid: {traffic.load: [0.1]}\nplot: 5\n");
  r = run("sweep " + plot + " --quiet --out " + d + "/b");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'plot'"), std::string::npos) << r.output;
}

TEST(Cli, EveryWaveViewOpensAtItsTracedWindow) {
  // GTKWave reads [timestart] in the VCD's time unit, picoseconds (1,000 per
  // cycle of the 1 ns clock); a value in cycles, or none, opened every view
  // at time 0 on flat lines. Each view documents its trace command.
  int views = 0;
  for (const auto& e : fs::directory_iterator(std::string(FTSIM_SOURCE_DIR) + "/waves")) {
    if (e.path().extension() != ".gtkw") continue;
    std::ifstream in(e.path());
    std::string line;
    long trace_from = -1;
    long timestart = -1;
    while (std::getline(in, line)) {
      const auto at = line.find("--trace-from ");
      if (line.rfind("[*]", 0) == 0 && at != std::string::npos) trace_from = std::stol(line.substr(at + 13));
      if (line.rfind("[timestart] ", 0) == 0) timestart = std::stol(line.substr(12));
    }
    EXPECT_GE(trace_from, 0) << e.path() << ": no documented --trace-from";
    EXPECT_EQ(timestart, trace_from * 1000) << e.path();
    ++views;
  }
  EXPECT_GE(views, 4);
}

TEST(Cli, UnknownKey) {
  expect_config_error(kBase + kShort + " --set router.vc=2", "router.vc");
  const auto d = tmpdir("unknown");
  expect_config_error(write_file(d, "u.yaml", "topology: mesh:4x4\nspeed: 3\n"), "speed");
}

TEST(Cli, UnknownNames) {
  expect_config_error(kBase + kShort + " --set topology=ring:8", "ring");
  expect_config_error(kBase + kShort + " --set routing=xy-magic", "xy-magic");
  expect_config_error(kBase + kShort + " --set traffic.pattern=zipf", "zipf");
}

TEST(Cli, OutOfRangeValues) {
  expect_config_error(kBase + kShort + " --set traffic.load=0", "traffic.load");
  expect_config_error(kBase + kShort + " --set traffic.load=1.5", "(0, 1]");
  expect_config_error(kBase + kShort + " --set topology=mesh:1x8", "k=1");
  expect_config_error(kBase + kShort + " --set routing=duato --set router.vcs=1", "router.vcs=1");
  expect_config_error(kBase + kShort + " --set router.vcs=17", "1..16");
  expect_config_error(kBase + kShort + " --set topology=torus:4x4", "vct");  // bubble needs VCT
}

TEST(Cli, FaultOnMissingLink) {
  expect_config_error(kBase + kShort + " --set 'faults=[{link: \"7,0:x+\", at: 10}]'", "does not exist");
  expect_config_error(kBase + kShort + " --set 'faults=[{link_id: 500, at: 10}]'", "0..111");
}

TEST(Cli, DisconnectedNetwork) {
  // Both links of corner router (0,0) fail permanently: node (0,0) is cut off.
  expect_config_error(kBase + kShort + " --set 'faults=[{link: \"0,0:x+\"}, {link: \"0,0:y+\"}]'", "disconnect");
  expect_config_error(kBase + kShort + " --set faults.random_links=200", "random_links");
}

TEST(Cli, RunWritesOutputsAndIsDeterministic) {
  const auto d = tmpdir("det");
  const Result a = run("run " + kBase + kShort + " --out " + d + "/a");
  const Result b = run("run " + kBase + kShort + " --out " + d + "/b");
  ASSERT_EQ(a.code, 0) << a.output;
  ASSERT_EQ(b.code, 0) << b.output;
  nlohmann::json ja;
  nlohmann::json jb;
  std::ifstream(d + "/a/stats.json") >> ja;
  std::ifstream(d + "/b/stats.json") >> jb;
  // Provenance: the version, the commit and the command line that made it.
  EXPECT_EQ(ja["ftsim"]["command_line"].get<std::string>().find(" run "), std::string(FTSIM_BINARY).size())
      << ja["ftsim"].dump();
  EXPECT_NE(ja["ftsim"]["command_line"].get<std::string>().find(d + "/a"), std::string::npos);
  EXPECT_FALSE(ja["ftsim"]["git_commit"].get<std::string>().empty());
  const Result v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.output.rfind("ftsim " + ja["ftsim"]["version"].get<std::string>() + " (commit ", 0), 0U) << v.output;
  for (const char* k : {"wall_seconds", "simulation_seconds", "node_cycles_per_second", "ftsim"}) {
    ja.erase(k);
    jb.erase(k);
  }
  EXPECT_EQ(ja, jb);
  for (const char* k : {"cycles", "nodes", "offered_load", "accepted_load", "latency_cycles", "mean_hops", "packets",
                        "dropped_by_reason", "deadlock"})
    EXPECT_TRUE(ja.contains(k)) << k;
  EXPECT_TRUE(ja["conservation_ok"].get<bool>());
  const auto& p = ja["packets"];
  EXPECT_EQ(p["injected"].get<long>(),
            p["delivered"].get<long>() + p["dropped"].get<long>() + p["in_flight"].get<long>());
  // A different seed gives a different run.
  const Result c = run("run " + kBase + kShort + " --set sim.seed=99 --out " + d + "/c");
  nlohmann::json jc;
  std::ifstream(d + "/c/stats.json") >> jc;
  EXPECT_NE(ja["packets"], jc["packets"]);
  std::ifstream ts(d + "/a/timeseries.csv");
  std::string header;
  std::getline(ts, header);
  EXPECT_EQ(header.rfind("cycle_start,cycle_end,offered", 0), 0U);
  // mean_hops, the last column: averaged over the rows (weighted by packets)
  // it is the mean DOR distance of uniform traffic on the 8x8 mesh, pairs of
  // distinct nodes: per dimension (k^2 - 1) / (3k) over all pairs, 2 x 63/24
  // = 5.25, times N / (N - 1) = 64/63 for excluding self pairs: 5.333.
  EXPECT_EQ(header.substr(header.rfind(',') + 1), "mean_hops");
  std::string line;
  double hops = 0;
  double packets = 0;
  while (std::getline(ts, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 10U) << line;
    packets += std::stod(f[4]);
    hops += std::stod(f[4]) * std::stod(f[9]);
  }
  ASSERT_GT(packets, 500);
  EXPECT_NEAR(hops / packets, 5.25 * 64.0 / 63.0, 0.2);
}

TEST(Cli, DeadlockIsReportedAndExitsNonZero) {
  const std::string args = kBase +
                           " --quiet --set topology=torus:4x4 --set routing=dor-unprotected"
                           " --set traffic.load=0.9 --set sim.watchdog_cycles=500 --set sim.warmup_cycles=100"
                           " --set sim.measure_cycles=20000";
  const auto d = tmpdir("deadlock");
  const Result r = run("run " + args + " --out " + d + "/x");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("deadlock"), std::string::npos);
  nlohmann::json j;
  std::ifstream(d + "/x/stats.json") >> j;
  EXPECT_TRUE(j["deadlock"].get<bool>());
  const auto& chain = j["deadlock_report"]["wait_for_chain"];
  ASSERT_GE(chain.size(), 3U);
  EXPECT_EQ(chain.front(), chain.back());  // a cycle
  EXPECT_FALSE(j["deadlock_report"]["blocked_vcs"].empty());
  // Recorded as an outcome: exit 0.
  const Result o = run("run " + args + " --set sim.deadlock_is_outcome=true --out " + d + "/y");
  EXPECT_EQ(o.code, 0) << o.output;
}

namespace {
// Minimal VCD reader: variable path -> id, id -> (time, value) changes.
struct Vcd {
  std::map<std::string, std::string> ids;
  std::map<std::string, std::vector<std::pair<long, std::string>>> changes;
  long last_time = -1;
  explicit Vcd(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> scopes;
    std::string line;
    bool defs = true;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string tok;
      ls >> tok;
      if (defs) {
        if (tok == "$scope") {
          std::string kind, name;
          ls >> kind >> name;
          scopes.push_back(name);
        } else if (tok == "$upscope") {
          scopes.pop_back();
        } else if (tok == "$var") {
          std::string type, width, id, name, path;
          ls >> type >> width >> id >> name;
          for (const auto& s : scopes) path += s + ".";
          ids[path + name] = id;
        } else if (tok == "$enddefinitions") {
          defs = false;
        }
      } else if (!tok.empty() && tok[0] == '#') {
        last_time = std::stol(tok.substr(1));
      } else if (!tok.empty()) {
        std::string id;
        std::string value;
        if (tok[0] == 'b') {
          ls >> id;
          value = tok.substr(1);
        } else {
          id = tok.substr(1);
          value = tok.substr(0, 1);
        }
        changes[id].emplace_back(last_time, value);
      }
    }
  }
  const std::vector<std::pair<long, std::string>>& of(const std::string& var) { return changes[ids[var]]; }
};

/// Every signal a view names exists in the VCD (by our own VCD reader), and
/// real GTKWave under Xvfb displays every one of them
/// (scripts/gtkwave_check.sh; it fails on a signal GTKWave skipped).
void expect_gtkw_signals_exist(const std::string& gtkw_path, const Vcd& vcd, const std::string& vcd_path,
                               int min_signals = 50) {
  std::ifstream gtkw(gtkw_path);
  std::string line;
  int signals = 0;
  while (std::getline(gtkw, line)) {
    if (line.rfind("+{", 0) == 0) line = line.substr(line.find("} ") + 2);  // alias
    if (line.rfind("SystemC.", 0) != 0) continue;
    const std::string name = line.substr(0, line.find('['));
    EXPECT_TRUE(vcd.ids.count(name)) << gtkw_path << " names a missing signal: " << name;
    ++signals;
  }
  EXPECT_GT(signals, min_signals) << gtkw_path;
  const Result g = shell("cd " + std::string(FTSIM_SOURCE_DIR) + " && bash scripts/gtkwave_check.sh " + vcd_path + " " +
                         gtkw_path + " 2>&1");
  EXPECT_EQ(g.code, 0) << g.output;
  EXPECT_NE(g.output.find("signals displayed"), std::string::npos) << g.output;
}
}  // namespace

TEST(Cli, ImmunetEmergencyIsVisibleInWaves) {
  const auto d = tmpdir("immunet_vcd");
  const Result r = run("run " + std::string(FTSIM_SOURCE_DIR) + "/experiments/immunet-4x4-waves.yaml --quiet --out " +
                       d + " --vcd " + d + "/w.vcd --trace-from 2990 --trace-to 3400");
  ASSERT_EQ(r.code, 0) << r.output;
  Vcd vcd(d + "/w.vcd");
  // Every router enters the emergency and leaves it inside the window, and
  // ends with EPL 6 (router 2,1, the higher-id detector, t = 0).
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y) {
      const std::string b = "SystemC.net.router_" + std::to_string(x) + "_" + std::to_string(y) + ".rm.";
      const auto& em = vcd.of(b + "emergency");
      ASSERT_GE(em.size(), 3U) << b;  // initial 0, then 1, then 0
      EXPECT_EQ(em.back().second, "0") << b;
      EXPECT_EQ(std::stol(vcd.of(b + "epl").back().second, nullptr, 2), 6) << b;
    }
  // Router 2,1 is the root; 1,1 started as a root with EPL 5 and then adopted 6.
  EXPECT_EQ(vcd.of("SystemC.net.router_2_1.rm.root").back().second, "1");
  EXPECT_EQ(vcd.of("SystemC.net.router_1_1.rm.root").back().second, "0");
  // The emergency rides on the phit bundle: both request lines high with the
  // EPL, or all ones (special ACK), on the data lines.
  int both = 0;
  for (const auto& [name, id] : vcd.ids) {
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".req0") != 0) continue;
    const auto& r0 = vcd.changes[id];
    const auto& r1 = vcd.of(name.substr(0, name.size() - 5) + ".req1");
    for (const auto& [t, v] : r0)
      for (const auto& [t1, v1] : r1)
        if (t == t1 && v == "1" && v1 == "1") ++both;
  }
  EXPECT_GT(both, 16);
  // Link 1,1:x+ fails at cycle 3000: both directions' alive lines drop to 0
  // then (the VCD's unit is 1 ps, one cycle 1000 ps), others stay 1.
  for (const char* a : {"SystemC.net.router_1_1.output_east.alive", "SystemC.net.router_2_1.output_west.alive"}) {
    const auto& ch = vcd.of(a);
    ASSERT_EQ(ch.size(), 2U) << a;
    EXPECT_EQ(ch.front().second, "1") << a;
    EXPECT_EQ(ch.back().second, "0") << a;
    EXPECT_GE(ch.back().first, 3000000) << a;
    EXPECT_LT(ch.back().first, 3001000) << a;
  }
  EXPECT_EQ(vcd.of("SystemC.net.router_1_1.output_west.alive").back().second, "1");
  expect_gtkw_signals_exist(std::string(FTSIM_SOURCE_DIR) + "/waves/immunet-emergency.gtkw", vcd, d + "/w.vcd");
}

TEST(Cli, DemoWavesAndPlotAreWrittenIntoANewFolder) {
  // scripts/demo.sh's run, shortened after the emergency: --vcd creates its
  // folder, every signal of the demo's GTKWave view exists, and router 4,3
  // (the higher-id end of the failed link 3,3:x+) is the root.
  const auto d = tmpdir("demo") + "/new/folder";
  const Result r = run("run " + std::string(FTSIM_SOURCE_DIR) +
                       "/experiments/immunet-8x8-link-fault.yaml --quiet --plot --out " + d + " --vcd " + d +
                       "/waves/w.vcd --trace-from 9990 --trace-to 10600 --set sim.warmup_cycles=1000 "
                       "--set sim.measure_cycles=10000 --set sim.max_drain_cycles=0");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(d + "/timeseries.png"));
  Vcd vcd(d + "/waves/w.vcd");
  EXPECT_EQ(vcd.of("SystemC.net.router_4_3.rm.root").back().second, "1");
  expect_gtkw_signals_exist(std::string(FTSIM_SOURCE_DIR) + "/waves/immunet-8x8-demo.gtkw", vcd, d + "/waves/w.vcd");
}

TEST(Cli, VcdHasHierarchyAndValueChanges) {
  const auto d = tmpdir("vcd");
  const Result r = run("run " + kBase + kShort + " --set traffic.load=0.3 --out " + d + " --vcd " + d +
                       "/w.vcd --trace-from 200 --trace-to 300");
  ASSERT_EQ(r.code, 0) << r.output;
  Vcd vcd(d + "/w.vcd");
  const std::string occ = "SystemC.net.router_3_3.input_east.vc0.occupancy";
  ASSERT_TRUE(vcd.ids.count(occ)) << "missing " << occ;
  for (const char* v : {"SystemC.net.router_3_3.output_west.grant", "SystemC.net.router_3_3.output_west.flit.packet",
                        "SystemC.net.router_3_3.output_west.req0", "SystemC.net.router_3_3.output_west.stop",
                        "SystemC.net.router_3_3.output_local.vc1.credits", "SystemC.net.clk"})
    EXPECT_TRUE(vcd.ids.count(v)) << "missing " << v;
  // The clock toggles twice per cycle over the 101 traced cycles.
  EXPECT_GE(vcd.of("SystemC.net.clk").size(), 2U * 100);
  // At load 0.3 some router switched flits during the window.
  std::size_t grants = 0;
  for (const auto& [name, id] : vcd.ids)
    if (name.size() > 6 && name.compare(name.size() - 6, 6, ".grant") == 0) grants += vcd.changes[id].size();
  EXPECT_GT(grants, 50U);
  EXPECT_GE(vcd.last_time, 300);
  expect_gtkw_signals_exist(std::string(FTSIM_SOURCE_DIR) + "/waves/router.gtkw", vcd, d + "/w.vcd");
}

TEST(Cli, TraceRoutersTracesOnlyTheListedRoutersAndRegions) {
  const auto d = tmpdir("trace_routers");
  const std::string base = "run " + kBase + kShort + " --set traffic.load=0.3 --out " + d + " --vcd " + d +
                           "/w.vcd --trace-from 200 --trace-to 260";
  Result r = run(base + " --trace-routers '3,3;5..6,0..1'");
  ASSERT_EQ(r.code, 0) << r.output;
  Vcd vcd(d + "/w.vcd");
  std::set<std::string> routers;
  for (const auto& [name, id] : vcd.ids) {
    const auto at = name.find(".router_");
    if (at != std::string::npos) routers.insert(name.substr(at + 1, name.find('.', at + 1) - at - 1));
  }
  // 3,3 plus the 2 x 2 region {5,6} x {0,1}.
  EXPECT_EQ(routers, (std::set<std::string>{"router_3_3", "router_5_0", "router_6_0", "router_5_1", "router_6_1"}));
  EXPECT_TRUE(vcd.ids.count("SystemC.net.clk"));
  // The traced flit carries source and destination nodes.
  EXPECT_TRUE(vcd.ids.count("SystemC.net.router_3_3.output_west.flit.src"));
  EXPECT_TRUE(vcd.ids.count("SystemC.net.router_3_3.output_west.flit.dst"));
  const auto small = fs::file_size(d + "/w.vcd");
  r = run(base);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_GT(fs::file_size(d + "/w.vcd"), 8 * small);  // 64 routers against 5
  r = run(base + " --trace-routers 3,9");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--trace-routers '3,9'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0..7,0..7"), std::string::npos) << r.output;
  r = run(base + " --trace-routers '0..8,1'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("outside 0..7"), std::string::npos) << r.output;
}

TEST(CliFirstContact, AnalyzeUsesTheSharedProgressFormatAndJobsMeansWorkers) {
  const auto d = tmpdir("analyze_progress");
  const struct {
    std::string args;
    std::string final_line;
  } cases[] = {
      // 3x3x3 torus, 81 links: C(81,1) + C(81,2) = 81 + 3240 = 3321 combinations;
      // by translation symmetry only the sets holding one of the 3
      // representative links: per dimension 1 + 80 = 81, so 243.
      {"fault-tolerance --topology torus:3x3x3 --mechanism I+D --faults 1..2 --exhaustive --jobs 2 --out " + d +
           "/ft.json",
       "ftsim analyze fault-tolerance I+D: 100.0% (243 of 243 combinations)"},
      {"fault-tolerance --topology torus:3x3x3 --mechanism I+D --faults 1..2 --exhaustive --no-symmetry --jobs 2 "
       "--out " +
           d + "/ft-plain.json",
       "ftsim analyze fault-tolerance I+D: 100.0% (3321 of 3321 combinations)"},
      // 2 variants x 5 runs = 10 runs.
      {"dqr --topology mesh:4x4 --initial dor --variant lr-path,e2e-path --faults 1..2 --runs 5 --seed 1 --jobs 2 "
       "--out " +
           d + "/dqr.json",
       "ftsim analyze dqr: 100.0% (10 of 10 runs)"},
      // Fault counts 0, 1, 2.
      {"routing-success --topology mikant:3,3 --algorithms shortest --faults 0..2 --trials 100 --seed 1 --jobs 2 "
       "--out " +
           d + "/rs.json",
       "ftsim analyze routing-success: 100.0% (3 of 3 fault counts)"},
      {"connectivity --topology kary-ntree:2,3 --mechanism dlr --faults 1..2 --samples 10 --seed 1 --out " + d +
           "/cn.json",
       // kary-ntree:2,3: 8 nodes, 16 switch-switch links; 10 of C(16, 1) and of
       // C(16, 2) sampled: 20 fault sets x 8 sources.
       "ftsim analyze connectivity dlr: 100.0% (160 of 160 sources x fault sets)"},
  };
  Result r;
  for (const auto& c : cases) {
    r = run("analyze " + c.args);
    ASSERT_EQ(r.code, 0) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.final_line), std::string::npos) << r.output;
  }
  // --threads stays accepted as the older spelling.
  r =
      run("analyze dqr --topology mesh:4x4 --initial dor --variant lr-path --faults 1..2 --runs 2 --seed 1 "
          "--threads 1 --quiet --out " +
          d + "/dqr1.json");
  EXPECT_EQ(r.code, 0) << r.output;
}

TEST(Cli, LftExportWritesDumpsThatDiffAndReimport) {
  const auto d = tmpdir("lft_export");
  Result r = run("lft export --topology mesh:10x10 --out " + d + "/init");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run("lft export --topology mesh:10x10 --fault 4,4:x+ --variant lr-path --out " + d + "/fault");
  ASSERT_EQ(r.code, 0) << r.output;
  // DQR rewrites 100 (switch, node) entries in 2 switches for 4,4:x+ (the
  // library test's count); the dump has a HCA LID and a switch LID per
  // router, both routed alike, so 200 LFT entries.
  EXPECT_NE(r.output.find("100 entries changed"), std::string::npos) << r.output;
  r = run("lft diff " + d + "/init " + d + "/fault --topology mesh:10x10 --fault 4,4:x+");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("entries changed   200 of 20000 (2 switches"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CDG B             acyclic"), std::string::npos) << r.output;
  // Importing an exported dump and exporting it again gives the same tables.
  r = run("lft export --topology mesh:10x10 --initial import:" + d + "/init --out " + d + "/again");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run("lft diff " + d + "/init " + d + "/again");
  EXPECT_NE(r.output.find("entries changed   0 of 20000"), std::string::npos) << r.output;
  r = run("lft export --topology mesh:10x10 --fault 9,9:x+ --out " + d + "/bad");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("9,9:x+"), std::string::npos) << r.output;
}

TEST(Cli, ListNamesEverything) {
  const Result r = run("list");
  EXPECT_EQ(r.code, 0);
  for (const char* n :
       {"mesh", "torus", "kary-ntree", "mikant", "dor", "dor-dateline", "duato", "updown", "mikant-shortest", "uniform",
        "hotspot", "transpose", "bit-complement", "bit-reversal", "shuffle", "tornado", "neighbor"})
    EXPECT_NE(r.output.find(n), std::string::npos) << n;
}

// The mechanism registry feeds `ftsim list mechanisms` and the user guide's
// key table: every key listed there must be documented in the guide, and
// every section key the parser accepts is listed (a key it did not list
// would be refused by validation, which reads the same list).
TEST(Cli, ListMechanismsKeysAreAllInTheUserGuide) {
  const Result r = run("list mechanisms");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(std::string(FTSIM_SOURCE_DIR) + "/docs/user-guide.md");
  const std::string guide((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream lines(r.output);
  std::string line;
  int keys = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("    ", 0) != 0) continue;  // key lines are indented by four
    std::istringstream words(line);
    std::string key;
    words >> key;
    ++keys;
    EXPECT_NE(guide.find("`" + key + "`"), std::string::npos) << key << " is not in docs/user-guide.md";
  }
  // immunet 8, dlr 1, ddrc 4, dqr 10.
  EXPECT_EQ(keys, 23);
  for (const char* m : {"immunet", "dlr", "ddrc", "dqr", "bgl-planes", "static-faults"})
    EXPECT_NE(r.output.find(std::string("  ") + m + " "), std::string::npos) << m;
}

TEST(Cli, ImmunetControlPacketsInTheSafeRingWaitBehindTraffic) {
  // experiments/immunet-8x8-link-fault.yaml (one fault beyond saturation,
  // shortened): as packets in the safe VC (the default, section 4.2's
  // sharing) control hops wait for the VC, its credits and the packets ahead
  // of them in the receiver's queue; as link slots only for the link. A hop
  // in the safe VC cannot take less than its flits plus SA, ST and the link
  // (2 + 3 cycles); a link slot at zero load takes its 2 flits.
  const std::string dir = tmpdir("immunet-control");
  const std::string exp = std::string(FTSIM_SOURCE_DIR) + "/experiments/immunet-8x8-link-fault.yaml";
  const std::string common = " --quiet --set sim.measure_cycles=12000";
  const Result a = run("run " + exp + common + " --out " + dir + "/ring");
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = run("run " + exp + common + " --set immunet.control_packets=link-slots --out " + dir + "/slots");
  ASSERT_EQ(b.code, 0) << b.output;
  const auto ring = nlohmann::json::parse(std::ifstream(dir + "/ring/stats.json"))["reconfiguration"];
  const auto slots = nlohmann::json::parse(std::ifstream(dir + "/slots/stats.json"))["reconfiguration"];
  const double hops = ring["safe_control_hops"].get<double>() + ring["adaptive_control_hops"].get<double>();
  const double ring_mean = ring["control_hop_cycles"].get<double>() / hops;
  const double slot_mean = slots["control_hop_cycles"].get<double>() / hops;
  std::printf("mean control hop: safe-ring %.1f cycles, link-slots %.1f\n", ring_mean, slot_mean);
  EXPECT_GE(ring_mean, 5.0);
  EXPECT_GE(slot_mean, 2.0);
  EXPECT_GT(ring_mean, slot_mean);
  EXPECT_TRUE(ring["complete"].get<bool>());
  EXPECT_GT(ring["reconfiguration_cycles"].get<int>(), slots["reconfiguration_cycles"].get<int>());
  const auto cfg = nlohmann::json::parse(std::ifstream(dir + "/ring/stats.json"))["config"]["immunet"];
  EXPECT_EQ(cfg["control_packets"], "safe-ring");
  // A control packet longer than a VC cannot travel in the safe VC: exit 2,
  // the key and the allowed range named.
  const Result big = run("run " + exp + " --set immunet.control_packet_flits=19 --out " + dir + "/big");
  EXPECT_EQ(big.code, 2) << big.output;
  EXPECT_NE(big.output.find("immunet.control_packet_flits = 19"), std::string::npos) << big.output;
  EXPECT_NE(big.output.find("allowed 0..8"), std::string::npos) << big.output;
}

TEST(Cli, SweepWritesResultsAndPlots) {
  const auto d = tmpdir("sweep");
  const std::string sweep = write_file(d, "s.yaml",
                                       "experiment: " + kBase +
                                           "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\n"
                                           "grid:\n  traffic.load: [0.05, 0.1]\n  sim.seed: [1, 2]\n");
  const Result r = run("sweep " + sweep + " --jobs 2 --quiet --out " + d + "/out");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream csv(d + "/out/results.csv");
  std::string line;
  int rows = -1;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 4);
  EXPECT_TRUE(fs::exists(d + "/out/accepted_load.png"));
  EXPECT_TRUE(fs::exists(d + "/out/latency.png"));
  EXPECT_FALSE(fs::exists(d + "/out/plots.gp"));  // no scripts or logs left behind
  EXPECT_FALSE(fs::exists(d + "/out/gnuplot.log"));
}

namespace {
// ftsim processes whose command line mentions `needle` (from /proc).
int processes_mentioning(const std::string& needle) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.find(needle) != std::string::npos && cmd.find("ftsim") != std::string::npos) ++n;
  }
  return n;
}
}  // namespace

TEST(Cli, SweepLocksItsDirectoryTakesItsRunsDownWithItAndResumesOnlyFinishedPoints) {
  // Issue 12 defect 3: killing only the sweep left its runs as orphans that
  // later wrote stats.json without exit_code, --resume counted a missing
  // exit_code as 0, and a second sweep on the same directory ran the same
  // points again.
  const auto d = tmpdir("sweeplock");
  const std::string out = d + "/out";
  const std::string sweep =
      write_file(d, "s.yaml",
                 "experiment: " + kBase +
                     "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\ngrid:\n  sim.seed: [1, 2, 3]\n"
                     "  sim.measure_cycles: [400, 4000000]\n");
  const pid_t sweep_pid = fork();
  if (sweep_pid == 0) {
    execl(FTSIM_BINARY, FTSIM_BINARY, "sweep", sweep.c_str(), "--jobs", "2", "--quiet", "--out", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the short points are done and the long ones run.
  for (int i = 0; i < 600 && !fs::exists(out + "/run_0002/exit_code"); ++i) usleep(50000);
  ASSERT_TRUE(fs::exists(out + "/run_0002/exit_code"));
  const Result second = run("sweep " + sweep + " --quiet --out " + out + " --resume");
  EXPECT_EQ(second.code, 2) << second.output;
  EXPECT_NE(second.output.find("another sweep is running"), std::string::npos) << second.output;
  EXPECT_EQ(processes_mentioning(out + "/run_0003"), 1);  // the long run, once
  kill(sweep_pid, SIGKILL);
  waitpid(sweep_pid, nullptr, 0);
  int left = 1;
  for (int i = 0; i < 100 && left > 0; ++i) {
    usleep(20000);
    left = processes_mentioning(out + "/run_");
  }
  EXPECT_EQ(left, 0) << "runs outlived their sweep";
  EXPECT_FALSE(fs::exists(out + "/run_0003/exit_code"));
  // Resume with the long points shortened: the three finished points are
  // kept (their stats.json files are not rewritten), the three killed ones run.
  const auto kept = fs::last_write_time(out + "/run_0000/stats.json");
  const std::string short_sweep =
      write_file(d, "s2.yaml",
                 "experiment: " + kBase +
                     "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\ngrid:\n  sim.seed: [1, 2, 3]\n"
                     "  sim.measure_cycles: [400, 500]\n");
  const Result resumed = run("sweep " + short_sweep + " --quiet --jobs 2 --out " + out + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  EXPECT_EQ(fs::last_write_time(out + "/run_0000/stats.json"), kept);
  for (int i = 0; i < 6; ++i) {
    std::array<char, 32> name{};
    std::snprintf(name.data(), name.size(), "/run_%04d/exit_code", i);
    std::ifstream ec(out + name.data());
    int code = -1;
    ec >> code;
    EXPECT_EQ(code, 0) << i;
  }
}

TEST(Cli, ResumeAndCollectRefuseFinishedRunsOfAnotherConfiguration) {
  // A finished point is kept by --resume; if the sweep file, --set or --grid
  // changed since it ran, results.csv would mix two configurations. The
  // sweep stops before running anything, names the run and the key, and
  // leaves the runs as they were.
  const auto d = tmpdir("resumecfg");
  const std::string out = d + "/out";
  const std::string sweep = write_file(
      d, "s.yaml",
      "experiment: " + kBase + "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\ngrid:\n  sim.seed: [1, 2]\n");
  ASSERT_EQ(run("sweep " + sweep + " --quiet --out " + out).code, 0);
  const auto kept = fs::last_write_time(out + "/run_0000/stats.json");
  const Result changed = run("sweep " + sweep + " --quiet --out " + out + " --resume --set sim.measure_cycles=600");
  EXPECT_EQ(changed.code, 2) << changed.output;
  EXPECT_NE(changed.output.find(out + "/run_0000: a finished run of another configuration"), std::string::npos)
      << changed.output;
  EXPECT_NE(changed.output.find("sim.measure_cycles is 400 there, 600 in this sweep"), std::string::npos)
      << changed.output;
  EXPECT_EQ(fs::last_write_time(out + "/run_0000/stats.json"), kept);
  const Result collect = run("sweep " + sweep + " --quiet --collect " + out + " --set traffic.load=0.123");
  EXPECT_EQ(collect.code, 2) << collect.output;
  EXPECT_NE(collect.output.find("traffic.load is"), std::string::npos) << collect.output;
  // A grid that reorders the points: run_0000 would now be seed 2.
  const std::string reordered = write_file(
      d, "r.yaml",
      "experiment: " + kBase + "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\ngrid:\n  sim.seed: [2, 1]\n");
  const Result swapped = run("sweep " + reordered + " --quiet --out " + out + " --resume");
  EXPECT_EQ(swapped.code, 2) << swapped.output;
  EXPECT_NE(swapped.output.find("sim.seed is 1 there, 2 in this sweep"), std::string::npos) << swapped.output;
  // The same sweep resumes (nothing to run) and collects.
  EXPECT_EQ(run("sweep " + sweep + " --quiet --out " + out + " --resume").code, 0);
  EXPECT_EQ(run("sweep " + sweep + " --quiet --collect " + out).code, 0);
  EXPECT_EQ(fs::last_write_time(out + "/run_0000/stats.json"), kept);
}

TEST(Cli, PlotPathsAreNeverRunThroughAShell) {
  // An output folder whose name is shell (and gnuplot) syntax: the plot is
  // written into that folder and nothing named INJECTED appears anywhere.
  const auto d = tmpdir("inject");
  const std::string weird = "o'; touch INJECTED; echo '";
  const std::string out = d + "/" + weird;
  const Result r = run("run " + kBase + kShort + " --plot --out \"" + out + "\"");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out + "/timeseries.png")) << r.output;
  EXPECT_FALSE(fs::exists("INJECTED"));
  EXPECT_FALSE(fs::exists(d + "/INJECTED"));
  EXPECT_FALSE(fs::exists(out + "/timeseries.gp"));
  EXPECT_FALSE(fs::exists(out + "/gnuplot.log"));
  const std::string sweep = write_file(d, "s.yaml",
                                       "experiment: " + kBase +
                                           "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 300}\n"
                                           "grid:\n  traffic.load: [0.05, 0.1]\n");
  const Result s = run("sweep " + sweep + " --jobs 2 --quiet --out \"" + d + "/s" + weird + "\"");
  ASSERT_EQ(s.code, 0) << s.output;
  EXPECT_TRUE(fs::exists(d + "/s" + weird + "/accepted_load.png")) << s.output;
  EXPECT_FALSE(fs::exists("INJECTED"));
}

TEST(Cli, AnalyzeRoutingSuccess) {
  const auto d = tmpdir("analyze");
  const Result r =
      run("analyze routing-success --topology mikant:3,3 --algorithms shortest,connectivity --faults 0..3 "
          "--trials 2000 --seed 1 --out " +
          d + "/rs.json");
  ASSERT_EQ(r.code, 0) << r.output;
  nlohmann::json j;
  std::ifstream(d + "/rs.json") >> j;
  ASSERT_EQ(j["results"].size(), 8U);  // 4 fault counts x 2 algorithms
  for (const auto& row : j["results"])
    for (const char* k : {"algorithm", "faults", "success_ratio", "mean_path_length"})
      EXPECT_TRUE(row.contains(k)) << k;
  EXPECT_DOUBLE_EQ(j["results"][0]["success_ratio"].get<double>(), 1.0);
  const Result rate =
      run("analyze routing-success --algorithms gns+gdl --fault-rate 0..100:50 --trials 500 --out " + d + "/rate.json");
  ASSERT_EQ(rate.code, 0) << rate.output;
  std::ifstream(d + "/rate.json") >> j;
  ASSERT_EQ(j["results"].size(), 3U);
  EXPECT_EQ(j["results"][2]["faults"].get<int>(), 135);  // 100% of MiKANT(3,3)'s links
  EXPECT_DOUBLE_EQ(j["results"][2]["success_ratio"].get<double>(), 0.0);
  // Bad input: exit code 2 and a message naming the option.
  EXPECT_EQ(run("analyze routing-success --algorithms teleport --out " + d + "/x.json").code, 2);
  EXPECT_EQ(run("analyze routing-success --faults 5..2 --out " + d + "/x.json").code, 2);
  EXPECT_EQ(run("analyze routing-success --faults 0..500 --out " + d + "/x.json").code, 2);
  // INT_MAX as the end of a range overflowed the loop counter (UBSan), then
  // allocated until bad_alloc; a negative seed wrapped to 2^64-1.
  const Result big = run("analyze routing-success --faults 2147483646..2147483647 --out " + d + "/x.json");
  EXPECT_EQ(big.code, 2) << big.output;
  const Result huge = run("analyze routing-success --faults 0..2147483647 --out " + d + "/x.json");
  EXPECT_EQ(huge.code, 2) << huge.output;
  EXPECT_NE(huge.output.find("at most 100000"), std::string::npos) << huge.output;
  for (const char* an : {"routing-success", "fault-tolerance", "connectivity"}) {
    const Result neg = run(std::string("analyze ") + an + " --seed -1 --out " + d + "/x.json");
    EXPECT_EQ(neg.code, 2) << an << ": " << neg.output;
  }
  const Result bad = run("analyze routing-success --algorithms shortest,wormhole --out " + d + "/x.json");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("wormhole"), std::string::npos);
  const Result all = run("analyze routing-success --algorithms all --faults 2 --trials 200 --out " + d + "/all.json");
  ASSERT_EQ(all.code, 0) << all.output;
  std::ifstream(d + "/all.json") >> j;
  std::set<std::string> names;
  for (const auto& row : j["results"]) names.insert(row["algorithm"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"shortest", "go-neighbor-switch", "go-down-level", "three-turn", "gns+gdl",
                                          "gns+xt+gdl", "tt+gdl", "connectivity"}));
}

TEST(Cli, AnalyzeFaultTolerance) {
  const auto d = tmpdir("ftol");
  // 3x3 torus (18 links): every combination of 1..2 faults, C(18,1) + C(18,2).
  const Result r =
      run("analyze fault-tolerance --topology torus:3x3 --mechanism I --faults 1..2 --exhaustive "
          "--threads 2 --quiet --out " +
          d + "/ft.json");
  ASSERT_EQ(r.code, 0) << r.output;
  nlohmann::json j;
  std::ifstream(d + "/ft.json") >> j;
  ASSERT_EQ(j["results"].size(), 2U);
  EXPECT_EQ(j["results"][0]["combinations"].get<long>(), 18);
  EXPECT_EQ(j["results"][1]["combinations"].get<long>(), 153);
  for (const auto& row : j["results"])
    for (const char* k :
         {"faults", "combinations", "not_tolerated_percent", "affected_paths_percent", "mechanism_share"})
      EXPECT_TRUE(row.contains(k)) << k;
  EXPECT_EQ(j["combinations"].get<long>(), 171);
  EXPECT_TRUE(j.contains("combinations_per_second"));
  EXPECT_TRUE(j.contains("fault_tolerant_up_to"));
  // The distance-1 region of the 3x3x3 torus has 33 links (section 5.1.1).
  const Result reg =
      run("analyze fault-tolerance --topology torus:3x3x3 --mechanism I+D --faults 1..2 --region "
          "distance1 --quiet --out " +
          d + "/reg.json");
  ASSERT_EQ(reg.code, 0) << reg.output;
  std::ifstream(d + "/reg.json") >> j;
  EXPECT_EQ(j["region_links"].get<int>(), 33);
  EXPECT_EQ(j["results"][1]["combinations"].get<long>(), 33 * 32 / 2);
  // Sampling: exactly N combinations per count; progress lines otherwise.
  const Result smp =
      run("analyze fault-tolerance --topology torus:3x3x3 --mechanism Ix2 --faults 6..7 --samples 400 "
          "--seed 3 --out " +
          d + "/smp.json");
  ASSERT_EQ(smp.code, 0) << smp.output;
  EXPECT_NE(smp.output.find("combinations/s"), std::string::npos) << smp.output;
  std::ifstream(d + "/smp.json") >> j;
  EXPECT_EQ(j["results"][0]["combinations"].get<long>(), 400);
  // Bad input: exit code 2, one message naming the problem.
  const Result none = run("analyze fault-tolerance --faults 1..2 --out " + d + "/x.json");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.output.find("--exhaustive"), std::string::npos) << none.output;
  const Result bad = run("analyze fault-tolerance --mechanism I+Q --exhaustive --out " + d + "/x.json");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("I+Q"), std::string::npos) << bad.output;
  EXPECT_EQ(run("analyze fault-tolerance --topology kary-ntree:4,3 --exhaustive --out " + d + "/x.json").code, 2);
  EXPECT_EQ(run("analyze fault-tolerance --topology torus:8x8x8 --exhaustive --out " + d + "/x.json").code, 2);
  EXPECT_EQ(run("analyze fault-tolerance --exhaustive --samples 5 --out " + d + "/x.json").code, 2);
}

TEST(Cli, FatTreeUTurnIsVisibleInWaves) {
  // experiments/fat-tree-uturn.yaml: link <13,1>:down2 fails at cycle 300.
  const auto d = tmpdir("uturn_vcd");
  const Result r = run("run " + std::string(FTSIM_SOURCE_DIR) + "/experiments/fat-tree-uturn.yaml --quiet --out " + d +
                       " --vcd " + d + "/w.vcd --trace-from 250 --trace-to 700");
  ASSERT_EQ(r.code, 0) << r.output;
  Vcd vcd(d + "/w.vcd");
  expect_gtkw_signals_exist(std::string(FTSIM_SOURCE_DIR) + "/waves/fat-tree-uturn.gtkw", vcd, d + "/w.vcd", 10);
  // Times are in ps with a 1 ns clock: cycle = time / 1000.
  auto cycles_with = [&](const std::string& sig, long value) {
    std::vector<long> at;
    for (const auto& [t, v] : vcd.of(sig))
      if (std::stol(v, nullptr, 2) == value) at.push_back(t / 1000);
    return at;
  };
  // The U-turn switch t sends flits up0 in the re-routing layer (VC 1), only
  // after the fault; u forwards them down to s in VC 1.
  const auto t_up_ml = cycles_with("SystemC.net.router_10_2.output_up0.flit.vc", 1);
  ASSERT_FALSE(t_up_ml.empty());
  EXPECT_GT(t_up_ml.front(), 300);
  const auto u_down_ml = cycles_with("SystemC.net.router_10_1.output_down2.flit.vc", 1);
  ASSERT_FALSE(u_down_ml.empty());
  EXPECT_GT(u_down_ml.front(), t_up_ml.front());
  // No head flit crosses the faulty link after the fault.
  for (long c : cycles_with("SystemC.net.router_13_1.output_down2.req1", 1)) EXPECT_LE(c, 300);
}

TEST(Cli, AnalyzeConnectivity) {
  const auto d = tmpdir("conn");
  const Result r =
      run("analyze connectivity --topology kary-ntree:4,3 --mechanism ddrc --faults 1..3 --samples 200 "
          "--seed 1 --quiet --out " +
          d + "/c.json");
  ASSERT_EQ(r.code, 0) << r.output;
  nlohmann::json j;
  std::ifstream(d + "/c.json") >> j;
  ASSERT_EQ(j["results"].size(), 3U);
  for (const auto& row : j["results"])
    for (const char* k : {"faults", "connected_probability", "samples"}) EXPECT_TRUE(row.contains(k)) << k;
  EXPECT_EQ(j["results"][0]["samples"].get<long>(), 128);  // exact: C(128, 1) switch-switch links
  EXPECT_TRUE(j["results"][0]["exact"].get<bool>());
  EXPECT_EQ(j["results"][1]["samples"].get<long>(), 200);
  EXPECT_EQ(run("analyze connectivity --mechanism teleport --out " + d + "/x.json").code, 2);
  EXPECT_EQ(run("analyze connectivity --topology torus:4x4 --out " + d + "/x.json").code, 2);
  EXPECT_EQ(run("analyze connectivity --faults 1..500 --out " + d + "/x.json").code, 2);
}

TEST(Cli, NetworkTooLargeForTheMachineIsRejectedBeforeElaboration) {
  // mesh:1000x1000 used to be accepted and to abort with bad_alloc. At about
  // 50 KB per router, 1024x1024x4 (4.2 M routers) needs over 200 GiB, more than any CI machine.
  const Result r = run("run " + kBase + kShort + " --set topology=mesh:1024x1024x4 --out " + tmpdir("huge"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("GiB"), std::string::npos) << r.output;
}

TEST(Cli, LftExportRoutesSwitchLidsAroundTheFaultOnAFatTree) {
  // ft_small: 4 leaves x 2 HCAs, 2 spines; OpenSM's updn tables. Link
  // L0[3] (leaf L0 to spine S0) fails. 14 endpoints (8 HCAs + 6 switch
  // LIDs) make 14 x 13 = 182 ordered pairs. OpenSM's own up*/down* tables
  // route every pair but S0 <-> S1 (two spines meet only through a leaf: a
  // down-then-up turn). Issue 50: the exported tables must route every
  // switch LID around the fault too, so that the SM's host still reaches
  // every switch; copying the switch-LID entries from the reference (what
  // --endpoints hca does) leaves the entries of S0's LID, L0's LID and the
  // HCAs' paths through the dead port (25 pairs unrouted).
  const std::string f = std::string(FTSIM_SOURCE_DIR) + "/tests/fixtures/opensm/";
  const std::string dir = tmpdir("lftswitch");
  for (const std::string e : {"all", "hca"}) {
    Result r = run("lft export --topology ibnet:" + f + "ft_small.net --initial import:" + f +
                   "ftsmall-updn --fault L0[3] --variant lr-path --endpoints " + e + " --out " + dir + "/" + e);
    ASSERT_EQ(r.code, 0) << r.output;
    r = run("lft diff " + f + "ftsmall-updn " + dir + "/" + e + " --topology ibnet:" + f +
            "ft_small.net --fault L0[3] --json " + dir + "/" + e + ".json");
    ASSERT_EQ(r.code, 0) << r.output;
  }
  const auto all = nlohmann::json::parse(std::ifstream(dir + "/all.json"));
  EXPECT_EQ(all["flows"].get<int>(), 182);
  EXPECT_EQ(all["unrouted_a_pairs"], nlohmann::json({"S0 -> S1", "S1 -> S0"}));
  // Every pair with an HCA or a leaf at either end is routed around the dead link.
  for (const auto& p : all["unrouted_b_pairs"]) {
    const auto pair = p.get<std::string>();
    EXPECT_TRUE(pair == "S0 -> S1" || pair == "S1 -> S0") << pair;
  }
  EXPECT_TRUE(all["cdg_acyclic_b"].get<bool>());
  const auto hca = nlohmann::json::parse(std::ifstream(dir + "/hca.json"));
  EXPECT_GT(hca["unrouted_b"].get<int>(), 2);
  EXPECT_EQ(run("lft export --topology mesh:4x4 --endpoints some --out " + dir + "/x").code, 2);
}

TEST(Cli, LftDiffOfOpenSmsRerouteAroundALinkFault) {
  // The fixture mesh10x10 before and after OpenSM rerouted around 4,4:x+.
  // Hand count: only the two end switches change their entries for the
  // destinations beyond the link: columns 5..9 seen from 4,4 (50 HCAs + 50
  // switches = 100 LIDs), the same from 5,4: 200 entries. Flows that crossed
  // the link: k(i+1)(k-1-i) per direction with k = 10, i = 4: 10*5*5 = 250,
  // twice: 500 of 9900 HCA pairs.
  const std::string f = std::string(FTSIM_SOURCE_DIR) + "/tests/fixtures/opensm/";
  const std::string dir = tmpdir("lftdiff");
  const Result r = run("lft diff " + f + "mesh10x10-dor-initial " + f +
                       "mesh10x10-dor-fault --topology mesh:10x10 --fault 4,4:x+ --json " + dir + "/d.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/d.json"));
  EXPECT_EQ(j["entries_changed"].get<int>(), 200);
  EXPECT_EQ(j["switches_changed"].get<int>(), 2);
  EXPECT_EQ(j["flows"].get<int>(), 9900);
  EXPECT_EQ(j["flows_rerouted"].get<int>(), 500);
  EXPECT_TRUE(j["cdg_acyclic_a"].get<bool>());
  EXPECT_FALSE(j["cdg_acyclic_b"].get<bool>());
  EXPECT_NE(r.output.find("CYCLIC: router"), std::string::npos) << r.output;
  // A malformed line: exit 2, the file and line named.
  std::ifstream in(f + "mesh4x4-dor/opensm-lfts.dump");
  std::stringstream text;
  text << in.rdbuf();
  std::string bad = text.str();
  bad.replace(bad.find("0x0003 004"), 10, "0x0003 4x4");
  const std::string path = write_file(dir, "bad.dump", bad);
  const Result e = run("lft diff " + f + "mesh4x4-dor " + path);
  EXPECT_EQ(e.code, 2) << e.output;
  EXPECT_NE(e.output.find("bad.dump:4: unexpected text after the port: 'x4"), std::string::npos) << e.output;
  // A fault on a link that does not exist.
  const Result l = run("lft diff " + f + "mesh4x4-dor " + f + "mesh4x4-dor --topology mesh:4x4 --fault 9,9:x+");
  EXPECT_EQ(l.code, 2) << l.output;
  fs::remove_all(dir);
}

TEST(Cli, AnalyzeDqrMeshPluginTakesEverySingleFaultOfLargeMeshes) {
  // The paper's one-fault guarantee for the mesh plug-in (sections IV-C,
  // VI), exhaustively on the sizes of section V beyond the unit tests'
  // 5x5 and 10x10: 2k(k-1) links, 420 on 15x15 and 760 on 20x20, all
  // reconfigured. One progressive run of one fault: P(1) = 1.
  const std::string dir = tmpdir("dqr-single");
  for (int k : {15, 20}) {
    const std::string mesh = std::to_string(k) + "x" + std::to_string(k);
    const std::string out = dir + "/m" + mesh + ".json";
    const Result r =
        run("analyze dqr --topology mesh:" + mesh +
            " --initial dor --variant mesh-plugin --faults 1..1 --runs 1 --every-single-fault --out " + out);
    ASSERT_EQ(r.code, 0) << r.output;
    const auto j = nlohmann::json::parse(std::ifstream(out));
    const auto& v = j["variants"][0];
    EXPECT_EQ(v["single_faults"]["links"].get<int>(), 2 * k * (k - 1));
    EXPECT_EQ(v["single_faults"]["succeeded"].get<int>(), 2 * k * (k - 1)) << v["single_faults"]["failed"].dump();
    EXPECT_DOUBLE_EQ(v["points"][0]["success_probability"].get<double>(), 1.0);
    EXPECT_EQ(j["flows"].get<int>(), k * k * (k * k - 1));
  }
}

TEST(Cli, AnalyzeDqrCheckTransitionReportsSharesPerPoint) {
  // --check-transition adds the non-atomic-write figures to every point
  // (shares of the successful reconfigurations, so within 0..1; the counts
  // themselves are checked against enumeration in DqrTransition.*), and
  // only with the flag.
  const std::string dir = tmpdir("dqr-transition");
  const Result r =
      run("analyze dqr --topology mesh:5x5 --initial dor --variant lr-path --faults 1..3 --runs 6 "
          "--check-transition --quiet --out " +
          dir + "/t.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/t.json"));
  EXPECT_TRUE(j["check_transition"].get<bool>());
  for (const auto& p : j["variants"][0]["points"]) {
    if (p["successes"].get<int>() == 0) continue;
    for (const char* k : {"transition_acyclic", "transition_loop_free"}) {
      ASSERT_TRUE(p.contains(k)) << p.dump();
      EXPECT_GE(p[k].get<double>(), 0.0);
      EXPECT_LE(p[k].get<double>(), 1.0);
    }
    // A transient loop is a cycle of channels: loop-free is necessary for acyclic.
    EXPECT_LE(p["transition_acyclic"].get<double>(), p["transition_loop_free"].get<double>());
    EXPECT_GE(p["transition_mixed_turns"].get<double>(), 0.0);
  }
  const Result plain =
      run("analyze dqr --topology mesh:5x5 --initial dor --variant lr-path --faults 1..1 --runs 2 "
          "--quiet --out " +
          dir + "/p.json");
  ASSERT_EQ(plain.code, 0) << plain.output;
  const auto q = nlohmann::json::parse(std::ifstream(dir + "/p.json"));
  EXPECT_FALSE(q["variants"][0]["points"][0].contains("transition_acyclic"));
  fs::remove_all(dir);
}

TEST(Cli, AnalyzeDqrRejectsBadInputWithExit2) {
  const std::string dir = tmpdir("dqr-bad");
  const Result v = run("analyze dqr --variant lr-whole --out " + dir + "/a.json");
  EXPECT_EQ(v.code, 2) << v.output;
  EXPECT_NE(v.output.find("unknown variant 'lr-whole'"), std::string::npos) << v.output;
  const Result i = run("analyze dqr --initial minhop --out " + dir + "/b.json");
  EXPECT_EQ(i.code, 2) << i.output;
  EXPECT_NE(i.output.find("--initial 'minhop'"), std::string::npos) << i.output;
  // DOR on a torus without VCs has a cyclic CDG: DQR refuses to start.
  const Result t = run("analyze dqr --topology torus:4x4 --out " + dir + "/c.json");
  EXPECT_EQ(t.code, 2) << t.output;
  EXPECT_NE(t.output.find("not deadlock-free"), std::string::npos) << t.output;
  const Result f = run("analyze dqr --faults 3..5 --out " + dir + "/d.json");
  EXPECT_EQ(f.code, 2) << f.output;
  EXPECT_NE(f.output.find("--faults"), std::string::npos) << f.output;
  const Result l = run("analyze dqr --topology torus:5x5 --initial lash --layers some --out " + dir + "/e.json");
  EXPECT_EQ(l.code, 2) << l.output;
  EXPECT_NE(l.output.find("--layers"), std::string::npos) << l.output;
  const Result ft = run("analyze dqr --topology fat-tree2:4,2,2 --initial lash --out " + dir + "/f.json");
  EXPECT_EQ(ft.code, 2) << ft.output;
  EXPECT_NE(ft.output.find("not a mesh or torus"), std::string::npos) << ft.output;
}

TEST(Cli, AnalyzeDqrLashToriReportTheirLayers) {
  // The same torus DQR refuses with plain DOR runs with LASH layers (5x5:
  // 3 layers, the library test's count); the JSON names the layer count and
  // the layer search, and --layers same never moves a flow.
  const std::string dir = tmpdir("dqr-lash");
  for (const std::string layers : {"all", "same"}) {
    const Result r =
        run("analyze dqr --topology torus:5x5 --initial lash --variant e2e-path --faults 1..3 --runs 5 "
            "--quiet --layers " +
            layers + " --out " + dir + "/" + layers + ".json");
    ASSERT_EQ(r.code, 0) << r.output;
    const auto j = nlohmann::json::parse(std::ifstream(dir + "/" + layers + ".json"));
    EXPECT_EQ(j["layers"].get<int>(), 3);
    EXPECT_EQ(j["layer_search"].get<std::string>(), layers);
    EXPECT_EQ(j["variants"][0]["points"][0]["success_probability"].get<double>(), 1.0);
    if (layers == "same") {
      for (const auto& p : j["variants"][0]["points"]) EXPECT_EQ(p["flows_moved"].get<double>(), 0.0);
    }
  }
  // The cycle-level model has no layers: the run refuses lash by name.
  const std::string exp = std::string(FTSIM_SOURCE_DIR) + "/experiments/dqr-mesh10x10-link-fault.yaml";
  const Result run_lash = run("run " + exp + " --quiet --set dqr.initial=lash --out " + dir + "/run");
  EXPECT_EQ(run_lash.code, 2) << run_lash.output;
  EXPECT_NE(run_lash.output.find("lash"), std::string::npos) << run_lash.output;
}

TEST(Cli, DqrStaticDistributionHaltsDrainsWritesAndResumes) {
  // The DQR paper's baseline: halt new packets, wait for an empty network,
  // write, resume. Same tables as the atomic write (100 entries for 4,4:x+ on
  // the 10x10 mesh, the library test's hand count), but the network is
  // halted from the end of the computation until the write, which comes
  // distribution_cycles after the last flit left.
  const auto d = tmpdir("dqr_static");
  const std::string exp = std::string(FTSIM_SOURCE_DIR) + "/experiments/dqr-mesh10x10-link-fault.yaml";
  Result r = run("run " + exp + " --quiet --set dqr.distribution=static --set dqr.distribution_cycles=50 --out " + d);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto s = nlohmann::json::parse(std::ifstream(d + "/stats.json"));
  const auto& q = s["dqr"];
  ASSERT_EQ(q["halted_cycles"].size(), 1U);
  const auto halted = q["halted_cycles"][0].get<std::int64_t>();
  EXPECT_GE(halted, 51);  // at least one cycle of drain, then 50
  EXPECT_EQ(q["update_cycles"][0].get<std::int64_t>() - q["computed_cycles"][0].get<std::int64_t>(), halted);
  EXPECT_EQ(q["table_writes"].get<int>(), 100);
  EXPECT_FALSE(s["deadlock"].get<bool>());
  r = run("run " + exp + " --quiet --set dqr.distribution=halt --out " + d + "/bad");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("atomic, sequential, static"), std::string::npos) << r.output;
}

TEST(Cli, DqrLiveTransitionWritesOnlyTheChangedEntries) {
  // experiments/dqr-mesh10x10-link-fault.yaml, shortened: link 4,4 - 5,4
  // fails at cycle 3,000, detection 10 cycles, notification 100: the SM
  // computes at cycle 3,110 and writes, atomically, exactly the 100 entries
  // of the hand count (4,4 for columns 5..9, 5,4 for columns 0..4) in 4
  // 64-entry blocks. Sequential writes of one block per 1,000 cycles end
  // 4,000 cycles later and lose more packets than the atomic write.
  const std::string dir = tmpdir("dqr-live");
  const std::string exp = std::string(FTSIM_SOURCE_DIR) + "/experiments/dqr-mesh10x10-link-fault.yaml";
  const std::string common = " --set sim.measure_cycles=7000 --set traffic.load=0.15";
  const Result a = run("run " + exp + common + " --out " + dir + "/atomic");
  ASSERT_EQ(a.code, 0) << a.output;
  const auto ja = nlohmann::json::parse(std::ifstream(dir + "/atomic/stats.json"));
  EXPECT_EQ(ja["dqr"]["table_writes"].get<int>(), 100);
  EXPECT_EQ(ja["dqr"]["blocks_written"].get<int>(), 4);
  EXPECT_EQ(ja["dqr"]["computed_cycles"][0].get<int>(), 3110);
  EXPECT_EQ(ja["dqr"]["update_cycles"][0].get<int>(), 3110);
  const Result s = run("run " + exp + common + " --set dqr.distribution=sequential --set dqr.block_cycles=1000 --out " +
                       dir + "/seq");
  ASSERT_EQ(s.code, 0) << s.output;
  const auto js = nlohmann::json::parse(std::ifstream(dir + "/seq/stats.json"));
  EXPECT_EQ(js["dqr"]["table_writes"].get<int>(), 100);
  EXPECT_EQ(js["dqr"]["update_cycles"][0].get<int>(), 3110 + 4 * 1000);
  EXPECT_GT(js["dropped_by_reason"]["no_route"].get<int>(), ja["dropped_by_reason"]["no_route"].get<int>());
  // A bad distribution name: exit 2, the key named.
  const Result b = run("run " + exp + " --set dqr.distribution=lazy --out " + dir + "/bad");
  EXPECT_EQ(b.code, 2) << b.output;
  EXPECT_NE(b.output.find("dqr.distribution"), std::string::npos) << b.output;
  // DQR needs table routing.
  const Result r = run("run " + exp + " --set routing=dor --out " + dir + "/bad2");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("routing 'lft'"), std::string::npos) << r.output;
}

TEST(Cli, OpenSmsCyclicRerouteDeadlocksUnderLoadWhereDqrDoesNot) {
  // The fixture mesh10x10-dor-fault (OpenSM's reroute of 4,4:x+, cyclic
  // CDG) replayed on the same model and load: the deadlock watchdog names a
  // wait-for cycle around the fault. DQR's tables (previous test) do not.
  const std::string dir = tmpdir("dqr-replay");
  const std::string exp = std::string(FTSIM_SOURCE_DIR) + "/experiments/dqr-mesh10x10-link-fault.yaml";
  const Result r =
      run("run " + exp + " --set sim.measure_cycles=7000 --set traffic.load=0.15 --set dqr.replay_tables=" +
          std::string(FTSIM_SOURCE_DIR) + "/tests/fixtures/opensm/mesh10x10-dor-fault --out " + dir);
  EXPECT_NE(r.output.find("deadlock"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("router_4_4"), std::string::npos) << r.output;
}

TEST(CliFirstContact, SummaryAndWarningsBeyondSaturation) {
  // Offered 0.5 on an 8x8 XY mesh: beyond its ~0.23 saturation (the
  // mesh-uniform sweep), and a 200-cycle drain cannot empty the queues.
  const auto d = tmpdir("summary");
  const Result r = run("run " + kBase + " --out " + d +
                       " --set sim.warmup_cycles=500 --set sim.measure_cycles=2000 --set sim.max_drain_cycles=200 "
                       "--set traffic.load=0.5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("  load      offered 0.5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  latency   mean "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("WARNING   not_drained"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("beyond_saturation"), std::string::npos) << r.output;
  const auto s = read_json(d + "/stats.json");
  std::set<std::string> codes;
  for (const auto& w : s["warnings"]) codes.insert(w["code"].get<std::string>());
  EXPECT_EQ(codes, (std::set<std::string>{"not_drained", "beyond_saturation"}));
  // Provenance: the resolved config is typed and complete.
  EXPECT_EQ(s["config"]["traffic"]["load"], 0.5);
  EXPECT_EQ(s["config"]["sim"]["max_drain_cycles"], 200);
  EXPECT_EQ(s["config"]["router"]["latency"]["credit"], 1);  // a default the file does not name
  EXPECT_TRUE(s["complete"].get<bool>());
  EXPECT_NE(s["ftsim"]["command_line"].get<std::string>().find("traffic.load=0.5"), std::string::npos);
  // Below saturation: no warning.
  const auto d2 = tmpdir("summary_ok");
  const Result ok = run("run " + kBase + " --out " + d2 + " --set sim.warmup_cycles=500 --set sim.measure_cycles=2000");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_EQ(ok.output.find("WARNING"), std::string::npos) << ok.output;
  EXPECT_TRUE(read_json(d2 + "/stats.json")["warnings"].empty());
}

TEST(CliFirstContact, SigintWritesPartialOutputsAndExitsNonZero) {
  const auto d = tmpdir("sigint");
  const std::string cmd = "sh -c '" + std::string(FTSIM_BINARY) + " run " + kBase + " --quiet --out " + d +
                          " --set sim.measure_cycles=100000000 & p=$!; sleep 2; kill -INT $p; wait $p; echo rc=$?'";
  const std::string out = shell(cmd).output;
  EXPECT_NE(out.find("rc=130"), std::string::npos) << out;  // 128 + SIGINT
  const auto s = read_json(d + "/stats.json");
  EXPECT_FALSE(s["complete"].get<bool>());
  EXPECT_EQ(s["interrupted"], "SIGINT");
  EXPECT_EQ(s["warnings"][0]["code"], "interrupted");
  EXPECT_LT(s["cycles"].get<double>(), 100000000.0);
  std::ifstream ts(d + "/timeseries.csv");
  std::string line;
  int rows = 0;
  while (std::getline(ts, line)) ++rows;
  EXPECT_GT(rows, 1);  // header and the windows simulated so far
}

TEST(CliFirstContact, SweepSigintWritesPartialResultsAndResumes) {
  const auto d = tmpdir("sweep_sigint");
  const std::string sweep = write_file(d, "s.yaml",
                                       "experiment: " + kBase +
                                           "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 300}\n"
                                           "grid: {sim.seed: [1, 2, 3]}\n");
  // The --set makes the first point run for ever; the signal stops it.
  const std::string cmd = "sh -c '" + std::string(FTSIM_BINARY) + " sweep " + sweep + " --jobs 1 --quiet --out " + d +
                          "/out --set sim.max_drain_cycles=0 --set sim.measure_cycles=100000000 & p=$!; sleep 2; "
                          "kill -TERM $p; wait $p; echo rc=$?'";
  const std::string out = shell(cmd).output;
  EXPECT_NE(out.find("rc=143"), std::string::npos) << out;  // 128 + SIGTERM
  std::ifstream csv(d + "/out/results.csv");
  std::vector<std::string> rows;
  std::string line;
  while (std::getline(csv, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 4U) << out;
  EXPECT_EQ(rows[1].rfind("0,1,,interrupted,interrupted,", 0), 0U) << rows[1];
  EXPECT_EQ(rows[2].rfind("1,2,,not_run,", 0), 0U) << rows[2];
  EXPECT_FALSE(fs::exists(d + "/out/run_0000/exit_code"));  // so --resume runs it again
  // sweep --set cannot fix a grid axis.
  const Result bad = run("sweep " + sweep + " --quiet --out " + d + "/bad --set sim.seed=4");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("'sim.seed' is a grid axis"), std::string::npos) << bad.output;
}

TEST(CliFirstContact, DidYouMeanForSubcommandsFlagsAndKeys) {
  Result r = run("sweeep x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("did you mean 'sweep'?"), std::string::npos) << r.output;
  r = run("run " + kBase + " --vdc w.vcd");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("did you mean '--vcd'?"), std::string::npos) << r.output;
  r = run("run " + kBase + kShort + " --set router.vsc=2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("did you mean 'vcs'?"), std::string::npos) << r.output;
  // ftsim list keys: every key with its default.
  r = run("list keys");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("sim.watchdog_cycles"), std::string::npos) << r.output;
  r = run("list experiments --experiments-dir " + std::string(FTSIM_SOURCE_DIR) + "/experiments");
  EXPECT_NE(r.output.find("immunet-8x8-link-fault.yaml"), std::string::npos) << r.output;
}

// sim.check_deadlock_freedom: the relation's claim is checked on its CDG
// before the run and recorded; a relation without a claim is refused.
TEST(Cli, CheckDeadlockFreedomChecksTheClaimBeforeTheRun) {
  const std::string out = tmpdir("deadlock_check");
  const Result r = run("run " + kBase + kShort + " --set sim.check_deadlock_freedom=true --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(out + "/stats.json");
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("deadlock_freedom")) << j.dump();
  EXPECT_TRUE(j["deadlock_freedom"]["acyclic"].get<bool>());
  EXPECT_FALSE(j["deadlock_freedom"]["escape_extended"].get<bool>());
  // 8x8 mesh, 5 ports, 2 VCs: 640 channel slots (router x max radix x VC).
  EXPECT_EQ(j["deadlock_freedom"]["channels"].get<int>(), 640);
  EXPECT_TRUE(j["config"]["sim"]["check_deadlock_freedom"].get<bool>());
  expect_config_error(
      kBase + kShort + " --set topology=torus:4x4 --set routing=dor-unprotected --set sim.check_deadlock_freedom=true",
      "makes no deadlock-freedom claim");
  fs::remove_all(out);
}

// Issue 15: the distributed backends' input errors end with exit 2 and name
// the flag and its range (the backends' results are checked bit for bit by
// scripts/check_distributed_sweep.sh and check_slurm_sweep.sh).
TEST(CliDistributedSweep, BadBackendFlagsNameTheFlagAndRange) {
  const auto d = tmpdir("distsweep");
  const std::string sweep = write_file(d, "s.yaml",
                                       "experiment: " + kBase +
                                           "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\n"
                                           "grid:\n  traffic.load: [0.05, 0.1, 0.2]\n");
  struct Case {
    std::string args;
    std::string must_mention;
  };
  const Case cases[] = {
      {"--out " + d + "/a --tasks 3 --task-id 3", "--task-id 3: out of range 0..2 (--tasks 3)"},
      {"--out " + d + "/a --tasks 0 --task-id 0", "--tasks 0: give the array's task count, at least 1"},
      {"--out " + d + "/a --tasks 3", "SLURM_ARRAY_TASK_ID unset"},
      {"--collect " + d + "/missing", "--collect " + d + "/missing: no such directory"},
      {"--out " + d + "/b --slurm --no-submit --slurm-tasks 1001", "--slurm-tasks 1001: out of range 1..1000"},
      {"--out " + d + "/b --slurm --no-submit --slurm-max-running 0", "--slurm-max-running 0: at least 1"},
  };
  for (const auto& c : cases) {
    const Result r =
        shell("env -u SLURM_ARRAY_TASK_ID " + std::string(FTSIM_BINARY) + " sweep " + sweep + " " + c.args + " 2>&1");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.must_mention), std::string::npos) << c.args << "\n" << r.output;
  }
  // SLURM_ARRAY_TASK_ID that is not a number.
  const Result bad = shell("SLURM_ARRAY_TASK_ID=x " + std::string(FTSIM_BINARY) + " sweep " + sweep + " --out " + d +
                           "/c --tasks 2 2>&1");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("SLURM_ARRAY_TASK_ID 'x'"), std::string::npos) << bad.output;
}

TEST(CliDistributedSweep, ArrayTasksSplitThePointsStridedAndCollectMarksTheRest) {
  // 3 points in 2 tasks: task 1 runs point 1 only (points 0 and 2 are task
  // 0's), so a collect after task 1 has 1 of 3 finished.
  const auto d = tmpdir("tasksplit");
  const std::string sweep = write_file(d, "s.yaml",
                                       "experiment: " + kBase +
                                           "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\n"
                                           "grid:\n  traffic.load: [0.05, 0.1, 0.2]\n");
  Result r = run("sweep " + sweep + " --quiet --out " + d + "/o --tasks 2 --task-id 1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(fs::exists(d + "/o/run_0000/stats.json"));
  EXPECT_TRUE(fs::exists(d + "/o/run_0001/stats.json"));
  EXPECT_FALSE(fs::exists(d + "/o/run_0002/stats.json"));
  EXPECT_FALSE(fs::exists(d + "/o/results.csv"));  // a task writes no results.csv
  r = run("sweep " + sweep + " --collect " + d + "/o");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("collected 1 of 3 points (0 failed, 2 not finished)"), std::string::npos) << r.output;
  std::ifstream csv(d + "/o/results.csv");
  std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  std::size_t not_run = 0;
  for (std::size_t p = text.find(",not_run,"); p != std::string::npos; p = text.find(",not_run,", p + 1)) ++not_run;
  EXPECT_EQ(not_run, 2U) << text;
}

TEST(CliDistributedSweep, RunsAndGridFlagsSetTheReplicationAxisForEveryBackend) {
  // runs.paper = 3 seeds from runs.first = 7: --runs paper gives sim.seed
  // 7, 8, 9, moved to the last (slowest) axis; --grid keeps one load of
  // two; 3 points in all.
  const auto d = tmpdir("runsflag");
  const std::string sweep = write_file(d, "s.yaml",
                                       "experiment: " + kBase +
                                           "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 400}\n"
                                           "runs: {key: sim.seed, paper: 3, first: 7}\n"
                                           "grid:\n  sim.seed: [1]\n  traffic.load: [0.05, 0.1]\n");
  Result r = run("sweep " + sweep + " --quiet --out " + d + "/o --runs paper --grid traffic.load=0.1");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream csv(d + "/o/results.csv");
  std::string header;
  std::getline(csv, header);
  ASSERT_EQ(header.rfind("run,traffic.load,sim.seed,exit_code,status", 0), 0U) << header;
  std::vector<std::string> rows;
  for (std::string line; std::getline(csv, line);)
    rows.push_back(line.substr(0, line.find(",", line.find(",", line.find(",") + 1) + 1)));
  EXPECT_EQ(rows, (std::vector<std::string>{"0,0.1,7", "1,0.1,8", "2,0.1,9"}));
  // The Slurm script's tasks and the merge hint re-expand the same points.
  r = run("sweep " + sweep + " --out " + d + "/s --runs 2 --grid traffic.load=0.05 --slurm --no-submit");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("(2 points in 2 array tasks)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--grid 'traffic.load=0.05' --runs '2' --collect"), std::string::npos) << r.output;
  std::ifstream script(d + "/s/slurm/sweep.sbatch");
  const std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("--grid 'traffic.load=0.05' --runs '2'\n"), std::string::npos) << text;
  // Errors name the flag or key and the allowed range.
  const std::string no_runs = write_file(d, "n.yaml", "experiment: " + kBase + "\ngrid:\n  traffic.load: [0.05]\n");
  const std::string bad_paper =
      write_file(d, "b.yaml", "experiment: " + kBase + "\nruns: {key: sim.seed, paper: 0}\ngrid:\n  sim.seed: [1]\n");
  struct Case {
    std::string args;
    std::string must_mention;
  };
  const Case cases[] = {
      {sweep + " --runs 0", "--runs '0': expected 'paper' or an integer in 1..100000"},
      {sweep + " --runs many", "--runs 'many': expected 'paper' or an integer in 1..100000"},
      {no_runs + " --runs 5", "has no 'runs' key naming its replication axis"},
      {sweep + " --grid traffic.load", "--grid 'traffic.load': expected KEY=V1,V2,..."},
      {sweep + " --grid traffic.load=0.1,,0.2", "--grid 'traffic.load=0.1,,0.2': empty value"},
      {bad_paper + " --runs paper", "runs.paper = '0': expected an integer in 1..100000"},
  };
  for (const auto& c : cases) {
    r = run("sweep " + c.args + " --out " + d + "/e");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.must_mention), std::string::npos) << c.args << "\n" << r.output;
  }
}
