// `ftsim analyze dqr` and `ftsim lft` with switch faults and the full-reroute
// fallback (issue 50 item 5), against hand counts.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "cli_support.hpp"

using namespace ftsim_cli_test;  // NOLINT(google-build-using-namespace)

TEST(CliDqr, TheMeshPlugInOffAMeshIsAnErrorOrLeftOutOfAll) {
  // `--variant all` on a torus aborted the process ("terminate called after
  // throwing an instance of ConfigError": the mesh plug-in's error escaped a
  // worker thread). Now `all` leaves the two mesh-plugin variants out and
  // names them; asking for one explicitly is a clear error before any run.
  const std::string d = tmpdir("dqr_plugin");
  Result r = run("analyze dqr --topology torus:4x4 --initial lash --variant all --faults 1..2 --runs 2 --quiet --out " +
                 d + "/all.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = read_json(d + "/all.json");
  EXPECT_EQ(j["variants_skipped"], nlohmann::json({"mesh-plugin", "mesh-plugin-noretry"}));
  r = run("analyze dqr --topology mesh:4x4 --variant all --faults 1..2 --runs 2 --quiet --out " + d + "/mesh.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto m = read_json(d + "/mesh.json");
  EXPECT_FALSE(m.contains("variants_skipped"));
  EXPECT_EQ(j["variants"].size() + 2, m["variants"].size());
  r =
      run("analyze dqr --topology torus:4x4 --initial lash --variant lr-path,mesh-plugin --faults 1..2 --runs 2 "
          "--quiet --out " +
          d + "/one.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--variant mesh-plugin: the mesh plug-in needs a 2-D mesh"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(d + "/one.json"));
}

TEST(CliDqr, SwitchFaultsLoseTheirHostsFlowsAndTheFallbackKeepsEveryRunRouted) {
  // 10x10 XY mesh, one HCA per switch. The f-th failed switch takes the
  // ordered pairs of its HCA with the 100 - f others alive before it:
  // 2 (100 - f) flows lost. Every single switch fault: DQR reroutes around
  // the 36 border switches (4 x 10 - 4) and, as measured, around none of
  // the 64 interior ones, which need the fallback; it keeps every run
  // routed.
  const std::string d = tmpdir("dqr_switch");
  const Result r =
      run("analyze dqr --topology mesh:10x10 --initial dor --variant lr-path --fault-kind switch "
          "--fallback updn --faults 1..3 --runs 20 --every-single-fault --quiet --out " +
          d + "/sw.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = read_json(d + "/sw.json");
  EXPECT_EQ(j["fault_kind"], "switch");
  EXPECT_EQ(j["fallback"], "updn");
  const auto& v = j["variants"][0];
  const auto& single = v["single_faults"];
  EXPECT_EQ(single["switches"].get<int>(), 100);
  EXPECT_EQ(single["succeeded"].get<int>(), 36);
  for (const auto& label : single["failed"]) {
    const std::string s = label.get<std::string>();
    const int x = std::stoi(s.substr(0, s.find(','))), y = std::stoi(s.substr(s.find(',') + 1));
    EXPECT_TRUE(x > 0 && x < 9 && y > 0 && y < 9) << s << " is a border switch";
  }
  int f = 1;
  for (const auto& p : v["points"]) {
    if (p["successes"].get<int>() > 0) {
      EXPECT_DOUBLE_EQ(p["flows_lost"].get<double>(), 2.0 * (100 - f));
    }
    EXPECT_EQ(p["runs_routed"].get<int>(), 20) << "fault " << f;
    EXPECT_GT(p["full_reroutes"].get<int>(), 0) << "fault " << f;
    ++f;
  }
  // The first fault: DQR alone tolerates it exactly when the switch drawn
  // is on the border, so every run either succeeded or fell back.
  EXPECT_EQ(v["points"][0]["successes"].get<int>() + v["points"][0]["full_reroutes"].get<int>(), 20);
  EXPECT_EQ(run("analyze dqr --topology mesh:4x4 --fault-kind node --out " + d + "/x.json").code, 2);
  EXPECT_EQ(run("analyze dqr --topology mesh:4x4 --fault-kind switch --faults 1..16 --out " + d + "/x.json").code, 2);
}

TEST(CliDqr, LftExportAroundAFailedSwitchDropsItsLidsEverywhere) {
  // 10x10 mesh with OpenSM's LIDs; switch 0,4 (on the border) fails. Its
  // HCA pairs with the 99 others both ways: 198 flows lost. Every one of
  // the 99 live switches drops its entries for two LIDs (H_0_4_0 and
  // SW_0_4); each entry DQR rewrites counts twice (a mesh switch's LID is
  // routed like its HCA's): 2 E + 198 entries changed, with E from the
  // export's summary. Interior switch 4,4 fails DQR (exit 2) unless the
  // fallback reroutes it.
  const std::string f = std::string(FTSIM_SOURCE_DIR) + "/tests/fixtures/opensm/";
  const std::string d = tmpdir("lft_switch");
  Result r = run("lft export --topology mesh:10x10 --initial import:" + f +
                 "mesh10x10-dor-initial --fail-switch 0,4 --out " + d + "/a");
  ASSERT_EQ(r.code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(\((\d+) entries changed)"))) << r.output;
  const int dqr_entries = std::stoi(m[1]);
  EXPECT_GT(dqr_entries, 0);
  r = run("lft diff " + f + "mesh10x10-dor-initial " + d + "/a --topology mesh:10x10 --fail-switch SW_0_4 --json " + d +
          "/a.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = read_json(d + "/a.json");
  EXPECT_EQ(j["flows_lost"].get<int>(), 198);
  EXPECT_EQ(j["flows"].get<int>(), 99 * 98);
  EXPECT_EQ(j["unrouted_b"].get<int>(), 0);
  EXPECT_TRUE(j["cdg_acyclic_b"].get<bool>());
  EXPECT_EQ(j["entries_changed"].get<int>(), 2 * dqr_entries + 198);
  EXPECT_EQ(run("lft export --topology mesh:10x10 --fail-switch 4,4 --out " + d + "/b").code, 2);
  r = run("lft export --topology mesh:10x10 --fail-switch 4,4 --fallback updn --out " + d + "/b");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("full reroute by up*/down*"), std::string::npos) << r.output;
  r = run("lft diff " + f + "mesh10x10-dor-initial " + d + "/b --topology mesh:10x10 --fail-switch 4,4 --json " + d +
          "/b.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_json(d + "/b.json")["unrouted_b"].get<int>(), 0);
  EXPECT_TRUE(read_json(d + "/b.json")["cdg_acyclic_b"].get<bool>());
  EXPECT_EQ(run("lft export --topology mesh:10x10 --fail-switch 12,4 --out " + d + "/c").code, 2);
  EXPECT_EQ(run("lft diff " + d + "/a " + d + "/b --fail-switch 4,4").code, 2);  // needs --topology
}

TEST(CliDqr, LashServiceLevelsImportAndExportWithTheTables) {
  // OpenSM's LASH routing of the 4x4 torus with its path SLs: `analyze dqr`
  // sees its 2 virtual layers; `lft export` of the import writes the same
  // tables and the same 240 path SLs back, plus the SL-to-VL tables; after a
  // fault the export still carries 2 layers and imports again.
  const std::string fix = std::string(FTSIM_SOURCE_DIR) + "/tests/fixtures/opensm/torus4x4-lash-sl";
  const std::string d = tmpdir("lash_sl");
  Result r = run("analyze dqr --topology torus:4x4 --initial import:" + fix +
                 " --variant lr-path-all --faults 1..3 --runs 5 --quiet --out " + d + "/a.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_json(d + "/a.json")["layers"].get<int>(), 2);
  r = run("lft export --topology torus:4x4 --initial import:" + fix + " --out " + d + "/same");
  ASSERT_EQ(r.code, 0) << r.output;
  auto lines = [](const std::string& path) {
    std::ifstream f(path);
    std::set<std::string> out;
    for (std::string l; std::getline(f, l);)
      if (!l.empty() && l[0] != '#') out.insert(l);
    return out;
  };
  EXPECT_EQ(lines(d + "/same/path-sl.txt"), lines(fix + "/path-sl.txt"));
  EXPECT_EQ(lines(d + "/same/path-sl.txt").size(), 240U);
  EXPECT_EQ(lines(d + "/same/opensm-lfts.dump"), lines(fix + "/opensm-lfts.dump"));
  EXPECT_FALSE(lines(d + "/same/opensm-sl2vl.dump").empty());
  r = run("lft export --topology torus:4x4 --initial import:" + fix + " --fault 1,1:x+ --variant lr-path-all --out " +
          d + "/fault");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("2 virtual layers"), std::string::npos) << r.output;
  r = run("lft export --topology torus:4x4 --initial import:" + d + "/fault --out " + d + "/again");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(lines(d + "/again/path-sl.txt"), lines(d + "/fault/path-sl.txt"));
  // A malformed SL file is named with its line.
  const std::string bad = tmpdir("lash_sl_bad");
  r = run("lft export --topology torus:4x4 --initial import:" + fix + " --out " + bad);
  ASSERT_EQ(r.code, 0) << r.output;
  std::ofstream(bad + "/path-sl.txt") << "1 2 99\n";
  r = run("lft export --topology torus:4x4 --initial import:" + bad + " --out " + d + "/x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("path-sl.txt:1"), std::string::npos) << r.output;
}

TEST(CliCost, CostPrintsTheBlocksAndWritesTheSameJsonAsTheRun) {
  // The 4x4 mesh of HardwareCost.RouterStorageAndCrossbarByHandOnA4x4Mesh:
  // 16 x (5,120 + 30 + 60) = 83,360 bits, the figure stats.json reports too.
  const std::string d = tmpdir("cost");
  const std::string exp = write_file(
      d, "m.yaml",
      "topology: mesh:4x4\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 4}\ntraffic: {load: 0.1, flit_bytes: 16}\n"
      "sim: {warmup_cycles: 100, measure_cycles: 200}\n");
  Result r = run("cost " + exp + " --json " + d + "/cost.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("storage: 83360 bits"), std::string::npos) << r.output;
  r = run("run " + exp + " --quiet --out " + d + "/run");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_json(d + "/cost.json"), read_json(d + "/run/stats.json")["hardware_cost"]);
  EXPECT_EQ(run("cost " + exp + " --set router.vcs=0").code, 2);
  EXPECT_EQ(run("cost " + d + "/missing.yaml").code, 2);
}

TEST(CliCost, EnergyInTheRunAndABadTechnologyFileStopsItBeforeItStarts) {
  const std::string d = tmpdir("energy");
  const std::string exp = write_file(d, "m.yaml",
                                     "topology: mesh:4x4\nrouting: dor\ntraffic: {load: 0.1}\n"
                                     "sim: {warmup_cycles: 100, measure_cycles: 300}\n");
  Result r = run("run " + exp + " --out " + d + "/a");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("pJ per delivered flit"), std::string::npos) << r.output;
  const auto e = read_json(d + "/a/stats.json")["energy"];
  EXPECT_GT(e["dynamic_pj"]["total"].get<double>(), 0);
  EXPECT_EQ(e["events"]["buffer_reads"], e["events"]["crossbar_traversals"]);
  const std::string bad =
      write_file(d, "bad.yaml", "name: x\nflit_bits: 128\nclock_ghz: 1\ndynamic_pj: {buffer_write: -1}\n");
  r = run("run " + exp + " --set energy.technology=" + bad + " --out " + d + "/b");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("bad.yaml"), std::string::npos) << r.output;
  r = run("run " + exp + " --set energy.watts=1 --out " + d + "/c");
  EXPECT_EQ(r.code, 2);
}

TEST(CliWorkloads, ShippedPhaseModelsRunAndBadPhasesAreNamed) {
  // Every shipped workload parses and its phases run to the end on a small
  // torus; a phase with an unknown key or pattern, or a workload without
  // phases, is an error naming the file and the key.
  const std::string d = tmpdir("workloads");
  const std::string src = FTSIM_SOURCE_DIR;
  for (const char* w : {"fft", "radix", "lu"}) {
    const std::string exp =
        write_file(d, std::string(w) + ".yaml",
                   "topology: torus:4x4\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 40, flow_control: vct}\n"
                   "traffic: {kind: phases, workload: " +
                       src + "/experiments/workloads/" + w +
                       ".yaml, flit_bytes: 4}\nsim: {warmup_cycles: 0, measure_cycles: 3000000}\n");
    const Result r = run("run " + exp + " --quiet --out " + d + "/" + w);
    ASSERT_EQ(r.code, 0) << w << ": " << r.output;
    const auto ph = read_json(d + "/" + w + "/stats.json")["phases"];
    EXPECT_TRUE(ph["complete"].get<bool>()) << w;
    EXPECT_GT(ph["execution_cycles"].get<long long>(), 0) << w;
  }
  const std::string bad1 = write_file(
      d, "b1.yaml", "topology: mesh:2x2\ntraffic: {kind: phases, phases: [{pattern: all_to_all, speed: 3}]}\n");
  Result r = run("run " + bad1 + " --out " + d + "/x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("speed"), std::string::npos) << r.output;
  const std::string bad2 =
      write_file(d, "b2.yaml", "topology: mesh:2x2\ntraffic: {kind: phases, phases: [{pattern: everywhere}]}\n");
  r = run("run " + bad2 + " --out " + d + "/x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("all_to_all"), std::string::npos) << r.output;
  const std::string wl = write_file(d, "w.yaml", "name: empty\n");
  const std::string bad3 =
      write_file(d, "b3.yaml", "topology: mesh:2x2\ntraffic: {kind: phases, workload: " + wl + "}\n");
  r = run("run " + bad3 + " --out " + d + "/x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("phases"), std::string::npos) << r.output;
  const std::string bad4 = write_file(
      d, "b4.yaml", "topology: mesh:2x2\ntraffic: {kind: phases, load: 0.3, phases: [{pattern: uniform}]}\n");
  EXPECT_EQ(run("run " + bad4 + " --out " + d + "/x").code, 2);
}

TEST(CliWorkloads, RandomFaultsSpreadOverAnInterval) {
  // faults.random_until: three random links fail at seeded cycles inside
  // [100, 2000], in order; the same seed gives the same cycles; an interval
  // that ends before it starts is an error.
  const std::string d = tmpdir("spread");
  const std::string exp = write_file(d, "m.yaml",
                                     "topology: torus:4x4\nrouting: immunet\nrouter: {vcs: 2, buffer_flits: 8, "
                                     "flow_control: vct}\ntraffic: {load: 0.1}\nsim: {warmup_cycles: 100, "
                                     "measure_cycles: 3000}\nfaults: {random_links: 3, random_seed: 4, random_at: "
                                     "100, random_until: 2000}\n");
  std::vector<long long> at[2];
  for (int i = 0; i < 2; ++i) {
    const Result r = run("run " + exp + " --quiet --out " + d + "/r" + std::to_string(i));
    ASSERT_EQ(r.code, 0) << r.output;
    const auto stats = read_json(d + "/r" + std::to_string(i) + "/stats.json");
    for (const auto& f : stats["faults"]) at[i].push_back(f["at"].get<long long>());
  }
  ASSERT_EQ(at[0].size(), 3U);
  EXPECT_EQ(at[0], at[1]);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_GE(at[0][k], 100);
    EXPECT_LE(at[0][k], 2000);
    if (k > 0) {
      EXPECT_GE(at[0][k], at[0][k - 1]);
    }
  }
  EXPECT_NE(at[0].front(), at[0].back());
  EXPECT_EQ(run("run " + exp + " --set faults.random_until=50 --out " + d + "/x").code, 2);
}

TEST(CliDqr, LftExportRepairGivesBackTheInitialTables) {
  // 10x10 mesh with OpenSM's LIDs: link 4,4:x+ fails and DQR reroutes; the
  // link comes back (--repair): the exported tables are OpenSM's initial
  // ones entry for entry (lft diff: 0 entries changed). --repair without the
  // fault it repairs is an error.
  const std::string f = std::string(FTSIM_SOURCE_DIR) + "/tests/fixtures/opensm/";
  const std::string d = tmpdir("lft_repair");
  Result r = run("lft export --topology mesh:10x10 --initial import:" + f +
                 "mesh10x10-dor-initial --fault 4,4:x+ --repair 4,4:x+ --out " + d + "/a");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("written back nearest-first"), std::string::npos) << r.output;
  r = run("lft diff " + f + "mesh10x10-dor-initial " + d + "/a --json " + d + "/a.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_json(d + "/a.json")["entries_changed"].get<int>(), 0);
  EXPECT_EQ(run("lft export --topology mesh:10x10 --repair 4,4:x+ --out " + d + "/b").code, 2);
}
