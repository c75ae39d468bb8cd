// hw::ImmediateTargetSocket: the lean target socket of the network
// interfaces, table targets and sinks (issue 54, memory) behaves as the
// TLM-2.0 base protocol asks of a target that completes at once.
#include <gtest/gtest.h>

#include <stdexcept>
#include <systemc>
#include <tlm>

#include "hw/immediate_target_socket.hpp"

using namespace ftsim;

namespace {

/// Target: counts calls, answers TLM_OK_RESPONSE and adds 5 ns to the delay.
struct Target : sc_core::sc_module {
  hw::ImmediateTargetSocket<Target> socket;
  int calls = 0;
  explicit Target(sc_core::sc_module_name name, bool registered = true) : sc_module(name), socket("socket") {
    if (registered) socket.register_b_transport(this, &Target::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++calls;
    delay += sc_core::sc_time(5, sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

/// Initiator with a plain tlm_initiator_socket (its backward path is never
/// used: the target completes every transaction in the forward call).
struct Initiator : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
  tlm::tlm_initiator_socket<32> socket;
  explicit Initiator(sc_core::sc_module_name name) : sc_module(name), socket("socket") { socket.bind(*this); }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    ADD_FAILURE() << "the target completes at BEGIN_REQ; no backward call is expected";
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

struct Bench {
  Initiator initiator{"initiator"};
  Target target;
  explicit Bench(bool registered = true) : target("target", registered) {
    initiator.socket.bind(target.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // complete the binding
  }
};

/// A write, response status TLM_INCOMPLETE_RESPONSE.
struct WritePayload : tlm::tlm_generic_payload {
  WritePayload() {
    set_command(tlm::TLM_WRITE_COMMAND);
    set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
};

}  // namespace

TEST(ImmediateTargetSocket, BlockingTransportReachesTheOwner) {
  Bench b;
  WritePayload gp;
  sc_core::sc_time delay(1, sc_core::SC_NS);
  b.initiator.socket->b_transport(gp, delay);
  EXPECT_EQ(b.target.calls, 1);
  EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(delay, sc_core::sc_time(6, sc_core::SC_NS));  // the owner's annotation is kept
}

/// One nb_transport_fw call of a fresh write in `phase` (zero delay in).
struct NonBlockingCall {
  Bench b;
  WritePayload gp;
  tlm::tlm_phase phase;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  explicit NonBlockingCall(tlm::tlm_phase p) : phase(p) {}
  tlm::tlm_sync_enum call() { return b.initiator.socket->nb_transport_fw(gp, phase, delay); }
};

TEST(ImmediateTargetSocket, NonBlockingBeginRequestCompletesAtOnce) {
  NonBlockingCall n(tlm::BEGIN_REQ);
  EXPECT_EQ(n.call(), tlm::TLM_COMPLETED);
  EXPECT_EQ(n.b.target.calls, 1);
  EXPECT_EQ(n.phase, tlm::BEGIN_RESP);
  EXPECT_EQ(n.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(n.delay, sc_core::sc_time(5, sc_core::SC_NS));
}

TEST(ImmediateTargetSocket, OtherPhasesAreProtocolErrors) {
  NonBlockingCall n(tlm::END_RESP);
  EXPECT_THROW(n.call(), sc_core::sc_report);
  EXPECT_EQ(n.b.target.calls, 0);
}

TEST(ImmediateTargetSocket, NoDirectMemoryAndNoDebugTransport) {
  Bench b;
  WritePayload gp;
  tlm::tlm_dmi dmi;
  EXPECT_FALSE(b.initiator.socket->get_direct_mem_ptr(gp, dmi));
  EXPECT_EQ(dmi.get_granted_access(), tlm::tlm_dmi::DMI_ACCESS_NONE);
  EXPECT_EQ(b.initiator.socket->transport_dbg(gp), 0U);
  EXPECT_EQ(b.target.calls, 0);
}

TEST(ImmediateTargetSocket, UnregisteredOwnerIsAnErrorNotACrash) {
  Bench b(false);
  WritePayload gp;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  EXPECT_THROW(b.initiator.socket->b_transport(gp, delay), sc_core::sc_report);
  EXPECT_THROW(b.target.socket.register_b_transport(nullptr, &Target::b_transport), std::invalid_argument);
  EXPECT_THROW(b.target.socket.register_b_transport(&b.target, nullptr), std::invalid_argument);
}

// What the socket saves is named SystemC objects: two (the socket and its
// backward port) where simple_target_socket registers three and a payload
// event queue with its event.
TEST(ImmediateTargetSocket, RegistersTwoObjectsAndNoEvent) {
  Bench b;
  EXPECT_EQ(b.target.get_child_objects().size(), 2U);
  EXPECT_TRUE(b.target.get_child_events().empty());
}
