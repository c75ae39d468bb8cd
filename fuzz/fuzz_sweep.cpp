// libFuzzer target: the sweep parser (sweep YAML -> grid points, each point
// validated as an experiment). The input is written to a file beside a fixed
// base experiment, as `ftsim sweep` reads it. Any input must expand or throw
// ftsim::ConfigError. Built and run by scripts/fuzz.sh.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "routing_logic/types.hpp"
#include "tb/sweep/sweep.hpp"

namespace {
std::filesystem::path workdir_path() {
  return std::filesystem::temp_directory_path() / ("ftsim-fuzz-sweep-" + std::to_string(::getpid()));
}

const std::string& workdir() {
  static const std::string dir = [] {
    const auto d = workdir_path();
    std::filesystem::create_directories(d);
    std::ofstream(d / "base.yaml") << "topology: mesh:4x4\nrouting: dor\ntraffic: {load: 0.1}\n";
    // libFuzzer ends with exit(): leave nothing in /tmp. (Not through `dir`:
    // registered during its initialisation, this runs after its destructor.)
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(workdir_path(), ec);
    });
    return d.string();
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = workdir() + "/sweep.yaml";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  std::string base;
  std::string x;
  try {
    (void)ftsim::tb::expand_sweep(path, workdir() + "/out", &base, &x);
  } catch (const ftsim::ConfigError&) {
  }
  return 0;
}
