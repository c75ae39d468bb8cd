// A lean TLM-2.0 target socket for targets that answer at once.
#pragma once
#include <systemc>
#include <tlm>

#include <stdexcept>
#include <string>

namespace ftsim::hw {

/// TLM-2.0 target socket (base protocol, 32-bit bus width) of a target whose
/// b_transport returns without waiting: the network interface's message
/// input, the table memories' management port, the testbench's sinks.
///
/// - b_transport calls the owner's registered member function.
/// - nb_transport_fw with BEGIN_REQ calls the same function and returns
///   TLM_COMPLETED (the base protocol lets a target complete a transaction
///   at BEGIN_REQ, the delay argument carrying its annotation); any other
///   phase is a protocol error (SC_REPORT_ERROR).
/// - No DMI (get_direct_mem_ptr returns false); transport_dbg moves 0 bytes.
///
/// Why not tlm_utils::simple_target_socket: that socket keeps a payload
/// event queue and the machinery to turn non-blocking calls into blocking
/// ones in a spawned thread, 1,184 bytes and three named sc_objects per
/// socket with SystemC 2.3.4; this one is a tlm_target_socket (280 bytes,
/// two sc_objects) plus two pointers. A network has one per node and one per
/// router (issue 54, memory: 32x32 mesh).
template <typename Owner>
class ImmediateTargetSocket : public tlm::tlm_target_socket<32> {
 public:
  using BTransport = void (Owner::*)(tlm::tlm_generic_payload&, sc_core::sc_time&);

  explicit ImmediateTargetSocket(const char* name) : tlm::tlm_target_socket<32>(name), m_fw(*this) { this->bind(m_fw); }
  const char* kind() const override { return "ftsim_immediate_target_socket"; }

  /// The owner's blocking transport; must not call wait(). Throws
  /// std::invalid_argument when owner or fn is null.
  void register_b_transport(Owner* owner, BTransport fn) {
    if (owner == nullptr || fn == nullptr)
      throw std::invalid_argument(std::string(this->name()) + ": register_b_transport needs an owner and a function");
    m_owner = owner;
    m_fn = fn;
  }

 private:
  class Forward : public tlm::tlm_fw_transport_if<> {
   public:
    explicit Forward(ImmediateTargetSocket& s) : m_socket(s) {}
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override { m_socket.call(gp, delay); }
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) override {
      if (phase != tlm::BEGIN_REQ) {
        SC_REPORT_ERROR(m_socket.name(), "nb_transport_fw: only BEGIN_REQ is expected (the target completes at once)");
        return tlm::TLM_COMPLETED;
      }
      m_socket.call(gp, delay);
      phase = tlm::BEGIN_RESP;
      return tlm::TLM_COMPLETED;
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) override {
      dmi.allow_none();
      return false;
    }
    unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }

   private:
    ImmediateTargetSocket& m_socket;
  };

  void call(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (m_owner == nullptr) {
      SC_REPORT_ERROR(this->name(), "b_transport called before register_b_transport");
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    (m_owner->*m_fn)(gp, delay);
  }

  Forward m_fw;
  Owner* m_owner = nullptr;
  BTransport m_fn = nullptr;
};

}  // namespace ftsim::hw
