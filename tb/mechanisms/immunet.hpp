// Immunet through the mechanism seam (tb/mechanism_registry.hpp): the
// SystemC half of the built-in `immunet` plug-in. Its per-router hardware
// (hw/immunet/immunet_router.hpp), its network-wide part (the
// ImmunetControlPlane, `net.immunet`), its fault hooks (the Local Fault
// Detectors) and its stats.json section ("reconfiguration"), registered the
// way a user's mechanism registers its own.
// Source: immunet-fault-tolerant-routing.txt, sections 2-6.
#pragma once
#include "hw/immunet/immunet_control_plane.hpp"
#include "tb/mechanism_registry.hpp"

namespace ftsim::tb {

/// Fills the hooks of the built-in `immunet` plug-in that need SystemC:
/// router_hardware, elaborate, fault_detected, router_failed, busy, stats;
/// and reports_lost_nodes.
void add_immunet_hardware(MechanismPlugin& plugin);

/// Immunet's network-wide part of `net` (its control plane), or nullptr
/// when routing is not immunet.
hw::ImmunetControlPlane* immunet_plane(Network& net);
const hw::ImmunetControlPlane* immunet_plane(const Network& net);

}  // namespace ftsim::tb
