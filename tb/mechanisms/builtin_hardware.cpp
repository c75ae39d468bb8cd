#include "tb/mechanisms/builtin_hardware.hpp"

#include "hw/dlr/reroute_vector.hpp"
#include "routing_logic/dlr/fat_tree_dlr.hpp"
#include "tb/experiment_config.hpp"
#include "tb/mechanisms/immunet.hpp"

namespace ftsim::tb {

namespace {

/// DLR (fat trees, section VI): the adaptive variants keep a U-turn re-route
/// vector in every switch.
void add_dlr_hardware(MechanismPlugin& m) {
  m.configure_relation = [](routing::RoutingRelation& r, const ExperimentConfig& cfg) {
    if (auto* dlr = dynamic_cast<routing::FatTreeDlrRouting*>(&r))
      dlr->set_reroute_timeout(static_cast<std::uint64_t>(cfg.dlr.reroute_timeout));
  };
  m.router_hardware = [](const ExperimentConfig&, const routing::Topology&,
                         const routing::RoutingRelation& r) -> hw::RouterMechanismFactory {
    const auto* dlr = dynamic_cast<const routing::FatTreeDlrRouting*>(&r);
    if (dlr != nullptr && dlr->uses_reroute_vector()) return hw::reroute_vector_factory();
    return {};
  };
}

}  // namespace

void add_builtin_hardware(std::vector<MechanismPlugin>& plugins) {
  for (MechanismPlugin& m : plugins) {
    if (m.name == "immunet" && !m.elaborate) add_immunet_hardware(m);
    if (m.name == "dlr" && !m.router_hardware) add_dlr_hardware(m);
    if (m.name == "ddrc" && !m.elaborate) add_ddrc_hardware(m);
    if (m.name == "dqr" && !m.elaborate) add_dqr_hardware(m);
  }
}

}  // namespace ftsim::tb
