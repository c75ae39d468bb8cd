// Reliability, round 2 (issue 47): each reproducer of the issue, as a user
// would type it, must end with exit 2 and a message naming the field (or
// exit 0 where the input is valid), never a signal, a hang or exit 4.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_support.hpp"

using namespace ftsim_cli_test;  // NOLINT(google-build-using-namespace)
namespace fs = std::filesystem;

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool mentions(const Result& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

const std::string kFixtures = std::string(FTSIM_SOURCE_DIR) + "/tests/fixtures/";

/// A sweep of two short points of the mesh experiment.
std::string small_sweep(const std::string& d, const std::string& name = "small") {
  return write_file(d, name + ".yaml",
                    "experiment: " + kBase +
                        "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 300}\ngrid: {traffic.load: [0.1, 0.2]}\n");
}

}  // namespace

TEST(CliReliability, LongLinesInFabricFilesAreALineLengthErrorNotAStackOverflow) {
  const auto d = tmpdir("longline");
  const std::string dump = write_file(
      d, "x.dump", "Unicast lids [0-1] of switch Lid 1 guid 0x1 ('" + std::string(50000, 'A') + "'):\n1 lids dumped\n");
  Result r = run("lft diff " + dump + " " + dump);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "x.dump:1: the line is 50049 bytes long; at most 4096 allowed")) << r.output;
  const std::string net = write_file(d, "long.net", "Switch 2 \"" + std::string(50000, 'A') + "\"\n");
  r = run("analyze dqr --topology ibnet:" + net + " --initial updn --runs 2 --faults 1..1 --out " + d + "/d.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "long.net:1: the line is 50011 bytes long")) << r.output;
}

TEST(CliReliability, AFabricWithoutEndNodesIsAUserError) {
  // UBSan: a null reference in node_router, from dqr.cpp.
  const auto d = tmpdir("noends");
  const std::string net = write_file(d, "n.net", "Switch 2 \"S0\"\n[1] \"S1\"[1]\nSwitch 2 \"S1\"\n[1] \"S0\"[1]\n");
  const Result r =
      run("analyze dqr --topology ibnet:" + net + " --initial updn --runs 2 --faults 1..1 --out " + d + "/d.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "no Hca or Ca record")) << r.output;
  EXPECT_FALSE(fs::exists(d + "/d.json"));
}

TEST(CliReliability, DeepSetKeysAreRefusedAtOnce) {
  std::string key;
  for (int i = 0; i < 50000; ++i) key += "a.";
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run("run " + kBase + " --set " + key + "b=1");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 2) << r.output.substr(0, 300);
  EXPECT_TRUE(mentions(r, "more than 16 dotted levels")) << r.output.substr(0, 300);
  EXPECT_LT(secs, 5.0);  // 5,000 levels used to take 10 s, 50,000 overflowed the stack
}

TEST(CliReliability, DeeplyNestedValuesAreRefusedBeforeAnyWalkOverflowsTheStack) {
  // libFuzzer (CI of 2026-11-27) overflowed the stack of the key checker
  // with about 1,500 nested lists in a --set value under ASan. The root
  // mapping is level 1, so `description:` holding N nested lists nests N + 1
  // levels: 63 lists are the deepest allowed (64 levels), 64 are refused.
  const auto d = tmpdir("deepnest");
  auto nested = [](int lists) { return std::string(lists, '[') + "x" + std::string(lists, ']'); };
  Result r =
      run("run " + write_file(d, "ok.yaml", "topology: mesh:4x4\nrouting: dor\ndescription: " + nested(63) + "\n") +
          kShort + " --out " + d + "/ok");
  EXPECT_EQ(r.code, 0) << r.output.substr(0, 300);
  r = run("run " + write_file(d, "deep.yaml", "topology: mesh:4x4\nrouting: dor\ndescription: " + nested(64) + "\n") +
          kShort + " --out " + d + "/deep");
  EXPECT_EQ(r.code, 2) << r.output.substr(0, 300);
  EXPECT_TRUE(mentions(r, "nest more than 64 levels deep")) << r.output.substr(0, 300);
  EXPECT_FALSE(fs::exists(d + "/deep"));
  r = run("run " + kBase + " --set 'description=" + nested(1500) + "'" + kShort + " --out " + d + "/set");
  EXPECT_EQ(r.code, 2) << r.output.substr(0, 300);
  EXPECT_TRUE(mentions(r, "nest more than 64 levels deep")) << r.output.substr(0, 300);
}

TEST(CliReliability, YamlAliasBombsAreBoundedAndTheEchoIsCapped) {
  const auto d = tmpdir("aliasbomb");
  // Levels of nine-fold aliases under description: level L expands to 9^L
  // scalars. Ten levels (3.5e9 nodes, under 1 KB of text) ran past 120 s.
  auto bomb = [&](int levels) {
    std::string s = "topology: mesh:4x4\nrouting: dor\ndescription:\n  a0: &a0 [x,x,x,x,x,x,x,x,x]\n";
    for (int i = 1; i < levels; ++i) {
      s += "  a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
      for (int k = 0; k < 9; ++k) s += std::string(k ? "," : "") + "*a" + std::to_string(i - 1);
      s += "]\n";
    }
    return write_file(d, "bomb" + std::to_string(levels) + ".yaml", s);
  };
  Result r = run("run " + bomb(10) + kShort + " --out " + d + "/o10");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "expands (through its aliases, *name) to more than 1000000 nodes")) << r.output;
  // Six levels (9^6 = 531,441 scalars) are within the parse limit but over
  // the echo limit of 100,000 nodes: stats.json names it instead of copying
  // it (seven levels wrote a 159 MB stats.json).
  r = run("run " + bomb(6) + kShort + " --out " + d + "/o6");
  EXPECT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(read(d + "/o6/stats.json"));
  EXPECT_TRUE(j["config_input"].contains("omitted")) << j["config_input"].dump().substr(0, 200);
  EXPECT_LT(fs::file_size(d + "/o6/stats.json"), 100000U);
}

TEST(CliReliability, ControlCharactersNeverReachTheSlurmScript) {
  const auto d = tmpdir("slurminject");
  // A newline in the sweep's name wrote a bare "touch PWNED" line into
  // sweep.sbatch and pushed #SBATCH --array below a command.
  const std::string sw =
      write_file(d, "sw.yaml", "name: \"x\\ntouch PWNED #\"\nexperiment: " + kBase + "\ngrid: {traffic.load: [0.1]}\n");
  Result r = run("sweep " + sw + " --slurm --no-submit --out " + d + "/o");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "key 'name': 'x' holds a control character (byte 0x0a at position 2)")) << r.output;
  EXPECT_FALSE(fs::exists(d + "/o/slurm/sweep.sbatch"));
  // The same through --set and --sbatch-option.
  r = run("sweep " + small_sweep(d) + " --slurm --no-submit --out " + d +
          "/o2 --set \"$(printf 'description=x\\ntouch PWNED')\"");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "--set")) << r.output;
  r = run("sweep " + small_sweep(d) + " --slurm --no-submit --out " + d +
          "/o3 --sbatch-option=\"$(printf -- '--x\\ntouch PWNED')\"");
  EXPECT_EQ(r.code, 2) << r.output;
  // A printable name with spaces and quotes: the job name keeps letters,
  // digits and . _ - only; every other word of the script is quoted.
  const std::string ok =
      write_file(d, "ok.yaml",
                 "name: \"my sweep; rm -rf '$HOME'\"\nexperiment: " + kBase +
                     "\nset: {sim.warmup_cycles: 100, sim.measure_cycles: 300}\ngrid: {traffic.load: [0.1]}\n");
  r = run("sweep " + ok + " --slurm --no-submit --out " + d + "/o4");
  EXPECT_EQ(r.code, 0) << r.output;
  const std::string script = read(d + "/o4/slurm/sweep.sbatch");
  EXPECT_NE(script.find("#SBATCH --job-name=ftsim-my_sweep__rm_-rf___HOME_\n"), std::string::npos) << script;
  // Every line is a comment, an #SBATCH line or one of the two commands.
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);)
    EXPECT_TRUE(line.rfind('#', 0) == 0 || line == "set -e" || line.rfind("exec ", 0) == 0) << line;
}

TEST(CliReliability, CollectRefusesAFolderThatNoSweepWrote) {
  const auto d = tmpdir("collectforeign");
  const std::string foreign = d + "/mine";
  fs::create_directories(foreign);
  write_file(foreign, "results.csv", "keep me\n");
  Result r = run("sweep " + small_sweep(d) + " --collect " + foreign);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "not a sweep's folder (no sweep.json)")) << r.output;
  EXPECT_EQ(read(foreign + "/results.csv"), "keep me\n");
  // A symlink loop: exit 2, not 4.
  fs::create_symlink(d + "/loop_a", d + "/loop_b");
  fs::create_symlink(d + "/loop_b", d + "/loop_a");
  r = run("sweep " + small_sweep(d) + " --collect " + d + "/loop_a");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "Too many levels of symbolic links")) << r.output;
  // --slurm where OUT/slurm is a file.
  fs::create_directories(d + "/s");
  write_file(d + "/s", "slurm", "a file\n");
  r = run("sweep " + small_sweep(d) + " --slurm --no-submit --out " + d + "/s");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "/s/slurm is an existing file")) << r.output;
}

TEST(CliReliability, AStatsJsonOfAnotherShapeIsNamedNotAnInternalError) {
  const auto d = tmpdir("badstats");
  const std::string sw = small_sweep(d);
  Result r = run("sweep " + sw + " --quiet --jobs 2 --out " + d + "/o");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(d + "/o/sweep.json"));
  const std::string stats = d + "/o/run_0000/stats.json";
  auto j = nlohmann::json::parse(read(stats));
  j["warnings"] = nlohmann::json::array({1});
  std::ofstream(stats) << j.dump();
  for (const std::string& how : {" --collect " + d + "/o", " --quiet --resume --out " + d + "/o"}) {
    r = run("sweep " + sw + how);
    EXPECT_EQ(r.code, 2) << how << "\n" << r.output;
    EXPECT_TRUE(mentions(r, "run_0000/stats.json: not a stats.json as ftsim writes it: 'warnings' must be"))
        << r.output;
  }
}

TEST(CliReliability, DevicesAndSymlinksAreWrittenInPlaceNeverReplaced) {
  const auto d = tmpdir("devices");
  // /dev/full refuses every write: exit 2 naming it, and it stays a device.
  Result r = run("lft netfile --topology mesh:4x4 --out /dev/full");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "cannot write /dev/full: No space left on device")) << r.output;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  r = run("analyze routing-success --topology mikant:2,2 --faults 0..1 --trials 10 --quiet --out /dev/full");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // An --out symlink to this process's standard output: the text reaches
  // stdout and the symlink is still a symlink.
  const std::string link = d + "/so.net";
  fs::create_symlink("/proc/self/fd/1", link);
  r = shell(std::string(FTSIM_BINARY) + " lft netfile --topology mesh:2x2 --out " + link + " 2>/dev/null");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Hca\t1 \"H_0_0_0\""), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_symlink(link));
  // A symlink to a regular file keeps being a symlink; its target is written.
  write_file(d, "target.net", "old\n");
  fs::create_symlink(d + "/target.net", d + "/alias.net");
  r = run("lft netfile --topology mesh:2x2 --out " + d + "/alias.net");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(d + "/alias.net"));
  EXPECT_NE(read(d + "/target.net").find("H_0_0_0"), std::string::npos);
}

TEST(CliReliability, AVcdWriteErrorIsAnErrorNamingTheFile) {
  // SystemC's VCD writer checks no write; the VCD now goes through a pipe
  // whose reader checks every one. /dev/full fails the first write.
  const auto d = tmpdir("vcdfull");
  const Result r = run("run " + kBase + kShort + " --out " + d + " --vcd /dev/full");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "cannot write /dev/full: No space left on device")) << r.output;
  EXPECT_FALSE(mentions(r, "wrote waves")) << r.output;
  EXPECT_TRUE(fs::exists(d + "/stats.json"));  // the other outputs are written
  // A full file system, when this test may mount one (root): the VCD of a
  // traced run is far larger than 64 KiB.
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  const std::string mnt = d + "/small";
  fs::create_directories(mnt);
  if (std::system(("mount -t tmpfs -o size=64k tmpfs " + mnt + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "this machine does not allow a tmpfs mount";
  const Result f = run("run " + kBase + kShort + " --out " + d + "/o --vcd " + mnt + "/w.vcd");
  const Result g = run("run " + kBase + kShort + " --out " + mnt + "/o2 --vcd " + d + "/w2.vcd --set traffic.load=0.3");
  std::system(("umount " + mnt).c_str());
  EXPECT_EQ(f.code, 2) << f.output;
  EXPECT_TRUE(mentions(f, "w.vcd: No space left on device")) << f.output;
  // stats.json on a file system whose space the VCD took: here the VCD goes
  // elsewhere and fits; stats.json fits too (a few KB), so exit 0.
  EXPECT_EQ(g.code, 0) << g.output;
}

TEST(CliReliability, InputsThatNeverEndAreRefusedBeforeAnyRead) {
  const auto d = tmpdir("devzero");
  Result r = run("lft diff /dev/zero /dev/zero");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "'/dev/zero' is not a regular file")) << r.output;
  r = run("analyze dqr --topology ibnet:/dev/zero --runs 1 --faults 1..1 --out " + d + "/d.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "is not a regular file")) << r.output;
  r = run("run " + std::string(FTSIM_SOURCE_DIR) + "/experiments/dqr-mesh10x10-link-fault.yaml --quiet --out " + d +
          "/o --set dqr.replay_tables=/dev/zero");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "is not a regular file")) << r.output;
  // A fabric whose tables cannot fit: refused at once with the estimate
  // (bad_alloc after 33 s).
  const auto t0 = std::chrono::steady_clock::now();
  r = run("analyze dqr --topology mesh:1024x1024 --runs 2 --faults 1..1 --out " + d + "/big.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "1048576 switches x 1048576 destinations")) << r.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

TEST(CliReliability, RangesAndNamesAreReadWholeNeverClampedOrIgnored) {
  const auto d = tmpdir("ranges");
  const std::string dqr = "analyze dqr --topology mesh:4x4 --runs 2 --out " + d + "/d.json";
  // mesh:4x4 has 2 x 4 x 3 = 24 links.
  Result r = run(dqr + " --faults 1..100000");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "mesh:4x4 has 24 switch-to-switch links; at most 1..24")) << r.output;
  for (const char* f : {"1,3,2", "1..5:2", "2..4"}) {
    r = run(dqr + " --faults " + f);
    EXPECT_EQ(r.code, 2) << f << ": " << r.output;
    EXPECT_TRUE(mentions(r, "give a range 1..N (N >= 1) without a step")) << r.output;
  }
  r = run(dqr + " --faults 1..2 --variant ''");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "--variant '': an empty name")) << r.output;
  r = run("analyze routing-success --algorithms shortest, --out " + d + "/r.json");
  EXPECT_EQ(r.code, 2) << r.output;
  // 2^64 was clamped to 2^64 - 1; a negative cycle printed a 309-digit bound.
  r = run("analyze routing-success --seed 18446744073709551616 --out " + d + "/r.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "'18446744073709551616' is not an integer in 0..18446744073709551615")) << r.output;
  r = run("run " + kBase + " --vcd " + d + "/w.vcd --trace-from -5");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "ftsim: error: --trace-from: '-5' is not an integer in 0..9223372036854775807")) << r.output;
  EXPECT_LT(r.output.size(), 200U) << r.output;
  // An unknown command names the commands.
  r = run("frobnicate");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "unknown command 'frobnicate'; the commands are: run, sweep, analyze, lft, cost, list"))
      << r.output;
}

TEST(CliReliability, ABadTraceSelectionLeavesNoOutputBehind) {
  const auto d = tmpdir("tracesel");
  const Result r = run("run " + kBase + kShort + " --out " + d + "/o --vcd " + d + "/o/w.vcd --trace-routers '99,99'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "--trace-routers '99,99'")) << r.output;
  EXPECT_FALSE(fs::exists(d + "/o")) << "an empty output folder and a 0-byte VCD were left";
}

TEST(CliReliability, AFaultAfterTheLastCycleIsAWarning) {
  const auto d = tmpdir("latefault");
  const Result r =
      run("run " + kBase + kShort + " --out " + d + " --set 'faults.schedule=[{link: \"1,1:x+\", at: 1000000000}]'");
  EXPECT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(read(d + "/stats.json"));
  bool warned = false;
  for (const auto& w : j["warnings"]) warned = warned || w["code"] == "fault_after_run";
  EXPECT_TRUE(warned) << j["warnings"].dump();
}

TEST(CliReliability, AStarvedFlitUnderAHotspotIsStarvationNotADeadlock) {
  // DOR on a mesh cannot deadlock: its channel dependency graph is acyclic
  // (checked here by sim.check_deadlock_freedom before the run). A hotspot
  // at 25 times what its ejection port accepts (25 nodes x load 1.0, all to
  // node 0) starves flits far from it for thousands of cycles under local
  // round-robin arbitration (the parking-lot effect); the watchdog used to
  // call that a deadlock (stuck_flit, no wait-for chain, exit 3).
  const auto d = tmpdir("starve");
  const std::string exp =
      write_file(d, "hs.yaml",
                 "topology: mesh:5x5\nrouting: dor\n"
                 "traffic: {pattern: hotspot, load: 1.0, hotspot_fraction: 1.0, hotspot_nodes: [0]}\n"
                 "sim: {warmup_cycles: 200, measure_cycles: 4000, watchdog_cycles: 100, "
                 "max_drain_cycles: 2000, check_deadlock_freedom: true}\n");
  const Result r = run("run " + exp + " --quiet --out " + d + "/o");
  EXPECT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(read(d + "/o/stats.json"));
  EXPECT_TRUE(j["deadlock_freedom"]["acyclic"].get<bool>()) << j["deadlock_freedom"].dump();
  EXPECT_FALSE(j["deadlock"].get<bool>());
  // Some flit waited at least 4W = 400 cycles in a transit VC.
  EXPECT_GE(j["starvation"]["flits"].get<int>() + (j["starvation"]["still_waiting"] != "" ? 1 : 0), 1);
  EXPECT_GE(j["starvation"]["max_wait_cycles"].get<int>(), 400);
  bool warned = false;
  for (const auto& w : j["warnings"]) warned = warned || w["code"] == "starvation";
  EXPECT_TRUE(warned) << j["warnings"].dump();
}
