// Basic identifiers shared by every layer. Pure C++, no SystemC.
#pragma once
#include <cstdint>

#include "common/config_error.hpp"

namespace ftsim::routing {

using RouterId = std::int32_t;  ///< 0..num_routers-1
using PortId = std::int32_t;    ///< 0..radix-1 of one router
using NodeId = std::int32_t;    ///< terminal (processing node) 0..num_nodes-1
using LinkId = std::int32_t;    ///< bidirectional link 0..num_links-1
using VcId = std::int32_t;      ///< virtual channel 0..V-1

constexpr std::int32_t kNone = -1;

}  // namespace ftsim::routing
