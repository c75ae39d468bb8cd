// libFuzzer target: the --set override path. Each input line is one
// `--set dotted.key=value` applied to a small experiment, as the command
// line does. Any input must parse or throw ftsim::ConfigError (deep keys
// once overflowed the stack in with_override). Built and run by
// scripts/fuzz.sh (issue 47).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "routing_logic/types.hpp"
#include "tb/experiment_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string kBase =
      "topology: mesh:4x4\nrouting: dor\nrouter: {vcs: 2, buffer_flits: 4}\n"
      "traffic: {pattern: uniform, load: 0.1, packet_flits: 4}\nsim: {warmup_cycles: 100, measure_cycles: 500}\n";
  std::vector<std::string> sets;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(in, line) && sets.size() < 64;) sets.push_back(line);
  try {
    (void)ftsim::tb::parse_experiment(kBase, sets, "fuzz");
  } catch (const ftsim::ConfigError&) {
  }
  return 0;
}
