// The U-turn re-route vector of adaptive dynamic local rerouting as a child
// module of each fat-tree switch.
// Source: fat-tree-dynamic-local-rerouting.txt, section VI (the re-route bit
// vector of a U-turn switch) and section VII-A (ADLR: set on a U-turn, cleared
// after a time-out without U-turns).
#pragma once
#include <systemc>

#include <string>

#include "hw/mechanism.hpp"

namespace ftsim::hw {

/// The re-route vector of one switch (child `reroute_vector` of the router):
/// bit j for upward port k + j, set when a U-turn tested that port, cleared
/// by the relation after its time-out (`dlr.reroute_timeout` cycles without a
/// U-turn). The routing relation reads and updates it through
/// RouterView::reroute during route computation; a relation given no vector
/// (the CDG enumeration) assumes every upward port may be tried.
class RerouteVector : public RouterMechanism {
 public:
  explicit RerouteVector(sc_core::sc_module_name name) : RouterMechanism(name) {}
  const char* kind() const override { return "ftsim_reroute_vector"; }
  void fill_view(routing::RouterView& view) override { view.mechanism.set(&state); }
  /// Waves: <router>.reroute_vector.{bits,last_uturn}.
  void trace(sc_core::sc_trace_file* tf, const std::string& prefix) const override {
    sc_core::sc_trace(tf, state.bits, prefix + ".reroute_vector.bits");
    sc_core::sc_trace(tf, state.last_uturn, prefix + ".reroute_vector.last_uturn");
  }
  routing::RerouteState state;
};

/// The factory a Router calls to build its `reroute_vector` child.
inline RouterMechanismFactory reroute_vector_factory() {
  return [](Router&) -> std::unique_ptr<RouterMechanism> { return std::make_unique<RerouteVector>("reroute_vector"); };
}

}  // namespace ftsim::hw
