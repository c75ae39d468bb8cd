// The SystemC halves of the built-in mechanisms. The mechanism catalogue
// (tb/mechanism_registry.cpp) links without SystemC, for the experiment
// parser and its fuzz targets; the network adds these hooks to the active
// plug-ins, so that a built-in mechanism reaches the model through the same
// hooks as a user's.
#pragma once
#include <vector>

#include "tb/mechanism_registry.hpp"

namespace ftsim::tb {

/// Adds the SystemC hooks of each built-in plug-in in `plugins` (Immunet's
/// hardware, elaboration, fault hooks and statistics; the fat-tree DLR
/// re-route vector); user plug-ins are left as they are.
void add_builtin_hardware(std::vector<MechanismPlugin>& plugins);

/// DDRC's and DQR's subnet managers (tb/mechanisms/subnet_managers.cpp):
/// elaborate, link_detected, busy, stats ("ddrc" / "dqr").
void add_ddrc_hardware(MechanismPlugin& plugin);
void add_dqr_hardware(MechanismPlugin& plugin);

}  // namespace ftsim::tb
