// The management plane: forwarding tables behind TLM-2.0 target sockets.
#include <gtest/gtest.h>

#include "../integration/harness.hpp"

using namespace ftsim;

namespace {
const char* kTree = R"(
topology: kary-ntree:2,3
routing: updown
router: {vcs: 1, buffer_flits: 4, flow_control: wormhole}
traffic: {pattern: uniform, load: 0.1, packet_flits: 2}
sim: {warmup_cycles: 0, measure_cycles: 4000, seed: 2}
)";
}

TEST(TablesTlm, BootTablesMatchUpDownAndAreReadableOverTlm) {
  test::Harness h(kTree);
  auto& bus = *h.net->management;
  const auto& t = h.net->topology();
  // Leaf <00,2> holds nodes 000 and 001 on ports 0 and 1; it is not an
  // ancestor of node 010 (digit 1 differs), so that entry is -1.
  const int leaf = t.parse_router("<00,2>");
  std::int32_t port = 99;
  EXPECT_EQ(bus.read(leaf, 0, &port), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(port, 0);
  EXPECT_EQ(bus.read(leaf, 1, &port), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(port, 1);
  EXPECT_EQ(bus.read(leaf, 2, &port), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(port, -1);
  // Root <00,0> reaches node 6 = 110 through down port d_0 = 1.
  EXPECT_EQ(bus.read(t.parse_router("<00,0>"), 6, &port), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(port, 1);
  EXPECT_EQ(bus.read(leaf, 8, &port), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bus.write(leaf, 0, 7), tlm::TLM_GENERIC_ERROR_RESPONSE);  // port 7 does not exist (radix 4)
}

TEST(TablesTlm, RewritingAnEntryChangesRouting) {
  test::Harness h(kTree);
  auto& bus = *h.net->management;
  const int leaf = h.net->topology().parse_router("<00,2>");
  // Misdirect node 0's packets to node 1's port: they reach the wrong node and
  // are not delivered to node 0; then restore the entry.
  ASSERT_EQ(bus.write(leaf, 0, -1), tlm::TLM_OK_RESPONSE);
  h.run(2000);
  const auto delivered_to_0 = h.net->sinks[0].received();
  const auto dropped = h.stats().dropped[static_cast<int>(hw::DropReason::kNoRoute)];
  EXPECT_EQ(delivered_to_0, 0U);
  EXPECT_GT(dropped, 0U);
  ASSERT_EQ(bus.write(leaf, 0, 0), tlm::TLM_OK_RESPONSE);
  h.run(2000);
  EXPECT_GT(h.net->sinks[0].received(), 0U);
  EXPECT_EQ(h.stats().dropped[static_cast<int>(hw::DropReason::kNoRoute)], dropped);
  EXPECT_EQ(bus.transactions(), 2U);
}

TEST(NetworkInterfaceTlm, MessagesAreDeliveredAndBadAddressesRejected) {
  test::Harness h(kTree, {"traffic.load=0.000001"});
  tlm::tlm_generic_payload gp;
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(5);
  gp.set_data_length(40);  // 3 flits of 16 bytes
  gp.set_streaming_width(40);
  gp.set_data_ptr(nullptr);
  h.net->generators[2].socket->b_transport(gp, d);
  EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  gp.set_address(8);
  h.net->generators[2].socket->b_transport(gp, d);
  EXPECT_EQ(gp.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  h.run(200);
  ASSERT_EQ(h.net->sinks[5].records.size(), 1U);
  EXPECT_EQ(h.net->sinks[5].records[0].src, 2);
  EXPECT_EQ(h.net->sinks[5].bytes(), 48U);
  // 2 (010) to 5 (101): LCA at tier 0, 6 links.
  EXPECT_EQ(h.net->sinks[5].records[0].hops, 6);
  // Zero-load: 2 + (switch hops 4 + 1) * 5 + (3 - 1) = 29 cycles (docs/validation.md).
  EXPECT_EQ(h.net->sinks[5].records[0].latency, 29U);
}
