// The Verilog emergency logic of rtl_ref/ (Input Blocks, Reconfiguration
// Module, Output Blocks; Immunet section 5, Figure 9) as the emergency blocks
// a router's Immunet hardware steps inside the network (`immunet.rtl:
// verilated`), through Verilator's C++ model. Verilog parameters are fixed
// when the model is compiled, so the build holds one model per parameter set
// (verilated_parameter_sets()).
#pragma once
#include <string>

#include "hw/immunet/emergency_logic.hpp"

namespace ftsim::rtl {

/// The parameter sets compiled into this build, as text for error messages
/// ("P=4 W=32 IDB=4 HANDLE=100 WINDOW=10; ...").
std::string verilated_parameter_sets();

/// Factory for ImmunetParams::blocks: each call builds one router's Verilated
/// ftsim_emergency_logic, reset, with these parameters. Throws ConfigError
/// naming the allowed sets when no compiled model has them.
hw::EmergencyBlocksFactory verilated_emergency_blocks();

}  // namespace ftsim::rtl
