// The current clock cycle of a network, read inline from the SystemC kernel.
// Kept apart from network_context.hpp, which the configuration parser (and
// its fuzz targets, linked without SystemC) include.
#pragma once
#include <systemc>

#include <cstdint>

#include "hw/network_context.hpp"

namespace ftsim::hw {

/// Simulated time / clock period, in cycles. sc_time_stamp() is an
/// out-of-line library call (1.9% of the 8x8 bench's instructions when every
/// router asked it every cycle); the kernel's time accessor inlines.
inline std::uint64_t current_cycle(const NetworkContext& ctx) {
  return sc_core::sc_get_curr_simcontext()->time_stamp().value() / ctx.period_ticks;
}

}  // namespace ftsim::hw
