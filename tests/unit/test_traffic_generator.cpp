// Traffic generators woken by their own processes and by one shared
// InjectionCalendar (issue 54): the same packets at the same cycles.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "hw/network_interface.hpp"
#include "routing_logic/topology/topology.hpp"
#include "tb/traffic_generator.hpp"

using namespace ftsim;

namespace {

constexpr int kNodes = 16;
constexpr double kLoad = 0.2;  // flits/node/cycle
constexpr int kFlits = 4;      // flits per packet: one packet per 20 cycles on average

/// A TLM target that logs every message (cycle, destination, bytes) into a
/// log shared by the nodes of one group; from `fail_at` on it answers as a
/// failed node (TLM_GENERIC_ERROR_RESPONSE), which stops its generator.
struct Recorder : sc_core::sc_module {
  struct Message {
    std::uint64_t cycle;
    int node;
    std::uint64_t dst;
    unsigned bytes;
    bool operator==(const Message& o) const {
      return std::tie(cycle, node, dst, bytes) == std::tie(o.cycle, o.node, o.dst, o.bytes);
    }
  };
  tlm_utils::simple_target_socket<Recorder> socket;
  Recorder(sc_core::sc_module_name name, int node, std::vector<Message>& log, std::uint64_t fail_at)
      : sc_module(name), socket("socket"), m_node(node), m_log(log), m_fail_at(fail_at) {
    socket.register_b_transport(this, &Recorder::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    const auto cycle = static_cast<std::uint64_t>(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS));
    if (cycle >= m_fail_at) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    m_log.push_back(Message{cycle, m_node, gp.get_address(), gp.get_data_length()});
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  int m_node;
  std::vector<Message>& m_log;
  std::uint64_t m_fail_at;
};

/// kNodes generators (seeds 100 + n) with recorders; node 3's target fails at
/// cycle 500. calendar null: each generator has its own process.
struct Group {
  std::vector<std::unique_ptr<tb::TrafficGenerator>> generators;
  std::vector<std::unique_ptr<Recorder>> recorders;
  std::vector<Recorder::Message> log;
  Group(const std::string& prefix, const tb::TrafficPattern& pattern, const tb::TrafficSpec& spec,
        tb::InjectionCalendar* calendar) {
    const sc_core::sc_time period(1, sc_core::SC_NS);
    for (int n = 0; n < kNodes; ++n) {
      generators.push_back(std::make_unique<tb::TrafficGenerator>((prefix + "_gen" + std::to_string(n)).c_str(), n,
                                                                  pattern, spec, 100 + n, period, calendar));
      recorders.push_back(
          std::make_unique<Recorder>((prefix + "_rec" + std::to_string(n)).c_str(), n, log, n == 3 ? 500 : ~0ULL));
      generators.back()->socket.bind(recorders.back()->socket);
    }
  }
  std::vector<Recorder::Message> of_node(int n) const {
    std::vector<Recorder::Message> out;
    for (const auto& m : log)
      if (m.node == n) out.push_back(m);
    return out;
  }
};

}  // namespace

TEST(InjectionCalendar, WakesEveryGeneratorAtTheCyclesItsOwnProcessWould) {
  const auto topo = routing::make_topology("mesh:4x4");
  tb::TrafficSpec spec;
  spec.load = kLoad;
  spec.packet_flits = kFlits;
  const tb::TrafficPattern pattern(*topo, spec);
  Group own("own", pattern, spec, nullptr);
  tb::InjectionCalendar calendar("calendar", sc_core::sc_time(1, sc_core::SC_NS));
  Group shared("shared", pattern, spec, &calendar);

  constexpr int kCycles = 4000;
  sc_core::sc_start(1000, sc_core::SC_NS);
  own.generators[5]->stop();  // between runs: no packet after cycle 1000
  shared.generators[5]->stop();
  sc_core::sc_start(kCycles - 1000, sc_core::SC_NS);

  // Same packets, same cycles, node by node.
  for (int n = 0; n < kNodes; ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(own.of_node(n), shared.of_node(n));
    EXPECT_EQ(own.generators[n]->sent(), shared.generators[n]->sent());
  }
  ASSERT_EQ(own.log.size(), shared.log.size());
  // The calendar wakes a cycle's generators in node order.
  for (std::size_t i = 1; i < shared.log.size(); ++i) {
    const auto& a = shared.log[i - 1];
    const auto& b = shared.log[i];
    EXPECT_TRUE(a.cycle < b.cycle || (a.cycle == b.cycle && a.node < b.node)) << i;
  }
  // Bernoulli: a packet per cycle with probability load / length. Node 3
  // (failed at 500) and node 5 (stopped at 1000) aside, 14 nodes over 4000
  // cycles expect 14 * 4000 * 0.05 = 2800 packets, standard deviation
  // sqrt(2800 * 0.95) = 51.6: five of them either side.
  std::size_t others = 0;
  for (int n = 0; n < kNodes; ++n) {
    const auto msgs = shared.of_node(n);
    for (const auto& m : msgs) {
      EXPECT_GE(m.cycle, 1U);  // the first gap is at least one cycle
      EXPECT_EQ(m.bytes, static_cast<unsigned>(kFlits * spec.flit_bytes));
      EXPECT_NE(m.dst, static_cast<std::uint64_t>(n));  // uniform never sends to itself
    }
    if (n == 3) {
      ASSERT_FALSE(msgs.empty());
      EXPECT_LT(msgs.back().cycle, 500U);
    } else if (n == 5) {
      ASSERT_FALSE(msgs.empty());
      EXPECT_LT(msgs.back().cycle, 1000U);
      EXPECT_GT(msgs.back().cycle, 900U);  // P(no packet in 100 cycles) = 0.95^100 = 0.6%
    } else {
      others += msgs.size();
    }
  }
  const double expected = 14.0 * kCycles * kLoad / kFlits;
  EXPECT_NEAR(static_cast<double>(others), expected, 5 * std::sqrt(expected * (1 - kLoad / kFlits)));
}

// MessageSinks: one target for every node's deliveries, each to the sink of
// its address (the receiving node), through any binding.
TEST(MessageSinks, EachDeliveryReachesTheSinkOfItsAddress) {
  struct Source : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Source> socket;
    explicit Source(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
  };
  std::vector<tb::MessageSink> sinks(3);
  sinks[2].record = true;
  tb::MessageSinks target("sinks", sinks);
  Source a("a"), b("b");
  a.socket.bind(target.socket);
  b.socket.bind(target.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  hw::DeliveryExtension ext;
  ext.src = 1;
  ext.hops = 4;
  ext.create_cycle = 10;
  ext.deliver_cycle = 31;
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_extension(&ext);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  const auto send = [&](Source& s, std::uint64_t node, unsigned bytes) {
    gp.set_address(node);
    gp.set_data_length(bytes);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    s.socket->b_transport(gp, d);
    return gp.get_response_status();
  };
  EXPECT_EQ(send(a, 2, 16), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(send(b, 2, 32), tlm::TLM_OK_RESPONSE);  // the binding does not matter
  EXPECT_EQ(send(b, 0, 8), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(send(a, 3, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // no node 3
  gp.clear_extension(&ext);
  EXPECT_EQ(sinks[0].received(), 1U);
  EXPECT_EQ(sinks[0].bytes(), 8U);
  EXPECT_EQ(sinks[1].received(), 0U);
  EXPECT_EQ(sinks[2].received(), 2U);
  EXPECT_EQ(sinks[2].bytes(), 48U);
  ASSERT_EQ(sinks[2].records.size(), 2U);
  EXPECT_EQ(sinks[2].records[0].src, 1);
  EXPECT_EQ(sinks[2].records[0].hops, 4);
  EXPECT_EQ(sinks[2].records[0].latency, 21U);
  EXPECT_TRUE(sinks[0].records.empty());  // not recording
}
