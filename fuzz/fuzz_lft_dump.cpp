// libFuzzer target: the OpenSM LFT dump parser (opensm-lfts.dump text ->
// LftSet), then what a user does next with a dump that parsed: write it
// back (dump() must parse to the same entries) and place it on a 4x4 mesh.
// Any input must parse or throw ftsim::ConfigError; anything else (a crash,
// a stack overflow on a long line, another exception, a sanitizer report)
// is a defect. Built and run by scripts/fuzz.sh (issue 47).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "routing_logic/topology/topology.hpp"
#include "tables/lft.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::unique_ptr<ftsim::routing::Topology> mesh = ftsim::routing::make_topology("mesh:4x4");
  const std::string text(reinterpret_cast<const char*>(data), size);
  ftsim::tables::LftSet set;
  try {
    set = ftsim::tables::LftSet::parse_dump(text, "fuzz");
  } catch (const ftsim::ConfigError&) {
    return 0;
  }
  // A set that parsed is written back whole: same switches, same entries.
  const ftsim::tables::LftSet again = ftsim::tables::LftSet::parse_dump(set.dump(), "fuzz-again");
  if (again.entries() != set.entries() || again.switches.size() != set.switches.size() || again.dump() != set.dump())
    std::abort();
  try {
    (void)ftsim::tables::place(set, *mesh);
  } catch (const ftsim::ConfigError&) {
  }
  return 0;
}
