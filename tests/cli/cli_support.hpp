// Helpers of the CLI tests: run the ftsim binary, scratch folders removed
// when every test of the process passed, one-line error checks.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace ftsim_cli_test {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string output;
};

/// Runs a shell command; its exit code and its stdout.
inline Result shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline Result run(const std::string& args) {
  return shell(std::string(FTSIM_BINARY) + " " + args + " 2>&1");
}

/// Removes the test's scratch folders when every test of this process
/// passed; a failing test keeps them for inspection.
class ScratchFolders : public testing::Environment {
 public:
  void add(const fs::path& d) { m_dirs.insert(d); }
  void TearDown() override {
    if (!testing::UnitTest::GetInstance()->Passed()) return;
    std::error_code ec;
    for (const auto& d : m_dirs) fs::remove_all(d, ec);
  }

 private:
  std::set<fs::path> m_dirs;
};
inline ScratchFolders* const g_scratch =
    static_cast<ScratchFolders*>(testing::AddGlobalTestEnvironment(new ScratchFolders));

inline std::string tmpdir(const std::string& name) {
  // The pid names the folder, and pids are reused (pid_max is 32768 here,
  // and a sweep grid starts thousands of processes an hour): a folder left by
  // a failed run of an earlier process must not leak its runs into this one.
  const fs::path d = fs::temp_directory_path() / ("ftsim_cli_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  g_scratch->add(d);
  return d.string();
}

inline std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

/// The JSON document in a file (an empty object when it cannot be read).
inline nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  nlohmann::json j = nlohmann::json::object();
  if (f) f >> j;
  return j;
}

inline const std::string kBase = std::string(FTSIM_SOURCE_DIR) + "/experiments/mesh-uniform.yaml";
inline const std::string kShort = " --quiet --set sim.warmup_cycles=100 --set sim.measure_cycles=500";

inline void expect_config_error(const std::string& args, const std::string& must_mention) {
  const Result r = run("run " + args);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(must_mention), std::string::npos) << "message: " << r.output;
  // One clear message: a single line starting with "ftsim: error:".
  EXPECT_EQ(r.output.rfind("ftsim: error:", 0), 0U) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

}  // namespace ftsim_cli_test
