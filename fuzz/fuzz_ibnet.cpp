// libFuzzer target: the fabric parser (ibsim netfiles and real
// ibnetdiscover output -> IbNetTopology). A fabric that parsed must write a
// netfile that parses to the same netfile again. Any input must parse or
// throw ftsim::ConfigError. Built and run by scripts/fuzz.sh (issue 47).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "routing_logic/topology/ibnet.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string net;
  try {
    net = ftsim::routing::IbNetTopology(text, "fuzz").netfile();
  } catch (const ftsim::ConfigError&) {
    return 0;
  }
  if (ftsim::routing::IbNetTopology(net, "fuzz-again").netfile() != net) std::abort();
  return 0;
}
