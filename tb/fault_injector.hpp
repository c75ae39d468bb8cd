// Scheduled link and switch faults, with detection delay and repair.
#pragma once
#include <systemc>

#include <string>
#include <vector>

#include "routing_logic/fault_set.hpp"
#include "tb/network.hpp"
#include "tb/plugin_registry.hpp"

namespace ftsim::tb {

/// Resolves the experiment's faults: names to ids, random links drawn with
/// faults.random_seed among the links whose loss keeps the surviving nodes
/// connected. Throws ConfigError for a label that does not exist, a random
/// count larger than can be drawn, or a permanent fault set that disconnects
/// the surviving nodes. A user fault model (faults.model registered with
/// register_fault_model) adds its faults after the listed ones and before the
/// random links; an id out of range is a ConfigError naming the model.
/// allow_disconnect: mechanisms that report lost nodes themselves (Immunet)
/// accept a permanent fault set that splits the survivors.
std::vector<ResolvedFault> resolve_faults(const routing::Topology& topo, const FaultsSpec& spec,
                                          bool allow_disconnect = false);

/// BlueGene/L-like baseline (intermediate-nodes paper, section 5.3.3): the
/// nodes of the plane each faulty link lies in, which the machine bypasses.
/// A plane is `plane_nodes` nodes of a 3-D mesh/torus: all of X, plane_nodes /
/// k_x consecutive rows of Y (the block holding the link's first end), one Z.
/// Throws ConfigError for a topology that is not 3-D, a plane size that does
/// not tile an XY layer, or a switch fault.
std::vector<routing::NodeId> bgl_bypassed_nodes(const routing::Topology& topo, const std::vector<ResolvedFault>& faults,
                                                int plane_nodes);

/// The links a fault takes down: its link, or every link of its switch
/// (node links included in indirect networks).
std::vector<routing::LinkId> fault_links(const routing::Topology& topo, const ResolvedFault& f);

/// Throws ftsim::ConfigError when two faults hold the same link (a link
/// fault, or any link of a switch fault) or the same switch at the same time
/// and at least one of them is repaired: the repair would end the other early.
void check_no_overlap(const routing::Topology& topo, const std::vector<ResolvedFault>& faults);

/// The permanent part of a fault list (no repair), as a FaultSet.
routing::FaultSet permanent_faults(const std::vector<ResolvedFault>& faults);

/// Applies faults at their cycles: at `at` the element fails (packets on it
/// are dropped); at `at + detection_delay` the routers at both ends stop
/// routing to it; at `repair` it works again and at `repair +
/// detection_delay` it is used again.
class FaultInjector : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(FaultInjector);
  FaultInjector(sc_core::sc_module_name name, Network& net, std::vector<ResolvedFault> faults,
                std::int64_t detection_delay);

 private:
  struct Event {
    std::int64_t cycle;
    int order;  // fail < detect < repair < redetect within a cycle
    std::size_t fault;
  };
  void fire();
  Network& m_net;
  std::vector<ResolvedFault> m_faults;
  std::vector<Event> m_events;
  std::size_t m_next = 0;
};

}  // namespace ftsim::tb
