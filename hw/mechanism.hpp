// The seam between the router and a fault-tolerance mechanism's per-router
// hardware. The router knows no mechanism by name: a mechanism that needs
// state in each router (tables, a re-route vector, an emergency latch) gives
// the router a factory, and the router builds that state as one of its child
// modules, then reads it through the hooks below.
#pragma once
#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "hw/mechanism_fwd.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::hw {

class Router;
class TableTarget;

/// Per-router hardware of a mechanism: a child module of its router
/// (`net.router_3_2.immunet`, `net.router_0_1_2.reroute_vector`) with
/// children of its own as the hardware has them. The router's clocked method
/// calls the hooks; blocks with work of their own (Immunet's emergency
/// logic) have their own clocked methods and reach the neighbours' blocks
/// through per-link channels bound at elaboration.
class RouterMechanism : public sc_core::sc_module {
 public:
  explicit RouterMechanism(sc_core::sc_module_name name) : sc_module(name) {}

  /// Route computation hook: adds this mechanism's state to the view the
  /// routing relation reads (RouterView::immunet, RouterView::reroute, ...).
  /// Called once per route computation.
  virtual void fill_view(routing::RouterView& view) = 0;

  /// Tables-changed hook, read on the hot path by pointer: a counter that
  /// changes whenever the tables the relation reads change (packets waiting
  /// for VC allocation then re-run route computation). nullptr: the
  /// mechanism keeps no tables; the router's own port-change epoch applies.
  /// When set, port changes do not move the epoch by themselves (the
  /// mechanism's tables decide where packets go).
  virtual const std::uint32_t* table_epoch() const { return nullptr; }

  /// Switch hook, read on the hot path by pointer: while *hold_transit() is
  /// true no packet leaves an input buffer (Immunet's emergency state,
  /// section 5: "packets in transit stay in the local buffers"). nullptr:
  /// never held.
  virtual const bool* hold_transit() const { return nullptr; }

  /// Port-changed hook: output port `port` became usable (alive) or not,
  /// after fault detection. Default: nothing.
  virtual void on_port_changed(routing::PortId /*port*/, bool /*alive*/) {}

  /// Control-packet hook: control packet `packet` (PacketStore id, a packet
  /// the mechanism queued with Router::queue_control at the neighbour) has
  /// reached input port `port` of this router whole at cycle `cycle`; the
  /// router has taken its flits out of the queue (credits returned) and
  /// releases the id after the call. Default: nothing.
  virtual void on_control_packet(std::uint32_t /*packet*/, routing::PortId /*port*/, std::uint64_t /*cycle*/) {}

  /// VC-allocated hook: the head packet `packet` (PacketStore id) of queue
  /// `queue` of input port `in_port` was granted output VC `out_vc` of
  /// output port `out_port` at cycle `cycle` (the cycle its VC-allocation
  /// stage ran). The router asks wants_vc_allocated() once, when it is
  /// built, and calls the hook only if it said true, so a mechanism without
  /// it costs nothing per grant. Default: not wanted.
  virtual bool wants_vc_allocated() const { return false; }
  virtual void on_vc_allocated(routing::PortId /*in_port*/, int /*queue*/, routing::PortId /*out_port*/, int /*out_vc*/,
                               std::uint32_t /*packet*/, std::uint64_t /*cycle*/) {}

  /// Tables hook: maps this mechanism's table memories into the router's
  /// management target (TableTarget::map), so the control plane and a
  /// debugger reach them through the management plane. Default: none.
  virtual void map_tables(TableTarget& /*target*/) {}

  /// Trace hook: registers this block's waves under `prefix` (the router's
  /// hierarchical name). Default: none.
  virtual void trace(sc_core::sc_trace_file* /*tf*/, const std::string& /*prefix*/) const {}
};

}  // namespace ftsim::hw
