// Immunet's emergency-signal logic: Input Block, Output Block and the
// Reconfiguration Module's EPL compare/latch, parent latch, children table,
// special-ACK and time-out logic. Cycle-exact twin of rtl_ref/*.v.
// Source: immunet-fault-tolerant-routing.txt, sections 4.1 and 5, Figure 9.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace ftsim::hw {

/// Parameters shared with the Verilog (module parameters of the same names).
struct EmergencyParams {
  int ports = 4;          ///< P: network ports, 1..16
  int epl_bits = 16;      ///< W: EPL width, data lines used for it, 4..32
  int id_bits = 8;        ///< low EPL bits holding the node id (x); the rest holds t
  int handle_cycles = 3;  ///< adoption -> propagation of the emergency, >= 1
  int ack_window = 8;     ///< cycles after propagation in which ACKs are accepted, >= 1
  /// All-ones EPL: the special ACK. Never used as an EPL.
  std::uint32_t ack_code() const { return epl_bits >= 32 ? 0xFFFFFFFFu : ((1u << epl_bits) - 1u); }
};

/// One port's wires as in Figure 9 (one direction).
struct EmergencyWires {
  bool req0 = false;
  bool req1 = false;
  std::uint32_t data = 0;
  bool operator==(const EmergencyWires& o) const { return req0 == o.req0 && req1 == o.req1 && data == o.data; }
};

/// Input Block (one per physical link): both request lines asserted means an
/// emergency (impossible in normal operation); an all-ones EPL on the data
/// lines means a special ACK. A single level of AND gates per link.
struct InputBlock {
  static bool emergency(const EmergencyWires& w) { return w.req0 && w.req1; }
  static bool ack(const EmergencyWires& w, std::uint32_t ack_code) { return emergency(w) && w.data == ack_code; }
  static bool epl(const EmergencyWires& w, std::uint32_t ack_code) { return emergency(w) && w.data != ack_code; }
};

/// Inputs of one clock cycle.
struct EmergencyInputs {
  std::vector<EmergencyWires> in;      ///< P links, from the neighbours
  std::vector<EmergencyWires> normal;  ///< P links, the router's normal output traffic
  std::uint32_t port_enable = ~0u;     ///< bit i: link i alive (Local Fault Detector)
  bool fault_detect = false;           ///< Local Fault Detector: a fault was detected this cycle
  std::uint32_t node_id = 0;           ///< x, < 2^id_bits
};

/// Registered state of the Reconfiguration Module (all visible for lockstep).
struct EmergencyState {
  bool valid = false;          ///< EPL latch holds an EPL
  std::uint32_t epl = 0;       ///< EPL latch
  bool root = false;           ///< this node detected the winning fault
  int parent = 0;              ///< parent latch: port towards the parent (meaningless at the root)
  std::uint32_t children = 0;  ///< children table: bit i = port i leads to a child
  bool ack_now = false;        ///< send the special ACK to the parent this cycle
  bool propagate_now = false;  ///< send the EPL on every other enabled port this cycle
  int handle_count = 0;        ///< cycles left before propagation (0 = none pending)
  int window_count = 0;        ///< cycles left in the ACK window (0 = closed)
  bool emergency = false;      ///< emergency state: STOP asserted on all input channels
  bool done = false;           ///< tree known (window closed); tables may be built
};

/// Outputs of one cycle (Moore: functions of the state and the normal inputs).
struct EmergencyOutputs {
  std::vector<EmergencyWires> out;  ///< P links, to the neighbours
  bool stop = false;                ///< STOP on all input channels
};

/// What a router's Immunet hardware steps each cycle while it has emergency
/// work: the C++ EmergencyLogic below, or the Verilog of rtl_ref/ through
/// Verilator (`immunet.rtl: verilated`, rtl_ref/verilated_emergency_logic.hpp).
/// step() is the clock edge; outputs() gives the wires driven during the
/// current cycle (a function of the registered state, the normal traffic
/// and the port enables); state() the registers. An implementation that
/// cannot see a register leaves it at its default; the network reads only
/// valid, epl, root, parent, children, emergency and done.
class EmergencyBlocks {
 public:
  virtual ~EmergencyBlocks() = default;
  virtual void step(const EmergencyInputs& in) = 0;
  virtual EmergencyOutputs outputs(const std::vector<EmergencyWires>& normal, std::uint32_t port_enable) const = 0;
  virtual const EmergencyState& state() const = 0;
};

/// Builds the emergency blocks of one router (nullptr-free; throws
/// ConfigError when the implementation cannot take these parameters).
using EmergencyBlocksFactory = std::function<std::unique_ptr<EmergencyBlocks>(const EmergencyParams&)>;

/// The composed logic. step() is the clock edge: it samples `in` and updates
/// the state; outputs() gives the wires driven during the current cycle.
///
/// Rules (one cycle each, evaluated at the clock edge):
/// 1. Candidate EPL: the highest EPL among enabled ports whose Input Block
///    shows an emergency that is not an ACK; ties go to the lowest port
///    (first come, first served within a cycle; later arrivals of an equal
///    EPL are ignored). A local fault detection proposes EPL = (t + 1, x)
///    where t is the latched generation (or (0, x) with an empty latch); it
///    wins over an incoming EPL that is not higher.
/// 2. Adoption when the latch is empty or the candidate is higher: latch it,
///    record the parent (or root), clear the children, enter the emergency,
///    send the ACK next cycle (not at the root) and propagate after
///    handle_cycles. A higher EPL adopted later cancels the partial tree.
/// 3. A special ACK on an enabled port while the window is open adds that
///    port to the children table.
/// 4. The window opens with the propagation cycle and lasts ack_window
///    cycles; when it closes the emergency ends and `done` is set.
/// EPL = t * 2^id_bits + x: the paper's t*N + x with N rounded up to a power of
/// two, so that it is a bit concatenation (no multiplier), with the same order.
class EmergencyLogic : public EmergencyBlocks {
 public:
  explicit EmergencyLogic(const EmergencyParams& p);
  void reset() { m_s = EmergencyState{}; }
  void step(const EmergencyInputs& in) override;
  EmergencyOutputs outputs(const std::vector<EmergencyWires>& normal, std::uint32_t port_enable) const override;
  const EmergencyState& state() const override { return m_s; }
  const EmergencyParams& params() const { return m_p; }
  /// Test hook: when set, the model deliberately mis-handles equal-EPL ties
  /// (highest port wins), so the lockstep checker can be shown to catch it.
  bool inject_tie_bug = false;

 private:
  EmergencyParams m_p;
  EmergencyState m_s;
};

}  // namespace ftsim::hw
