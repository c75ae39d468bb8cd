// libFuzzer target: the experiment parser (YAML text -> ExperimentConfig).
// Any input must either parse or throw ftsim::ConfigError; anything else
// (a crash, another exception, a sanitizer report) is a defect.
// Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "routing_logic/types.hpp"
#include "tb/experiment_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)ftsim::tb::parse_experiment(text, {}, "fuzz");
  } catch (const ftsim::ConfigError&) {
  }
  return 0;
}
