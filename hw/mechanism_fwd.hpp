// Forward declarations of the mechanism seam (hw/mechanism.hpp) for code that
// names a factory without SystemC (the experiment parser, the mechanism
// registry's catalogue).
#pragma once
#include <functional>
#include <memory>

namespace ftsim::hw {

class Router;
class RouterMechanism;

/// Builds a router's mechanism hardware. Called inside the Router's
/// constructor, so the module it returns is a child of that router; the
/// router owns it. May return nullptr (no hardware in this router).
using RouterMechanismFactory = std::function<std::unique_ptr<RouterMechanism>(Router& router)>;

}  // namespace ftsim::hw
