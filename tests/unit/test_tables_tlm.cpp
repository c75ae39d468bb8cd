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

// One management address space: router r's tables are the window at r << 32.
// Hand count on the 2-ary 3-tree: leaf <00,2> holds node 1 on port 1, root
// <00,0> reaches node 6 through port 1, leaf <01,2> (nodes 2, 3) reaches
// node 1 only upwards (-1 in its LFT: no down port).
TEST(TablesTlm, EachRouterIsOneWindowOfTheManagementAddressSpace) {
  test::Harness h(kTree);
  const auto& t = h.net->topology();
  auto& bus = *h.net->management;
  std::int32_t word = 99;
  tlm::tlm_generic_payload gp;
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  const auto raw_read = [&](std::uint64_t address) {
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(address);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&word));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    h.net->management->socket->b_transport(gp, d);
    return gp.get_response_status();
  };
  const std::uint64_t leaf = static_cast<std::uint64_t>(t.parse_router("<00,2>"));
  const std::uint64_t root = static_cast<std::uint64_t>(t.parse_router("<00,0>"));
  const std::uint64_t other_leaf = static_cast<std::uint64_t>(t.parse_router("<01,2>"));
  ASSERT_EQ(raw_read((leaf << 32) + 4 * 1), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(word, 1);
  EXPECT_EQ(gp.get_address(), (leaf << 32) + 4);  // the decoder restores the address
  ASSERT_EQ(raw_read((root << 32) + 4 * 6), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(word, 1);
  ASSERT_EQ(raw_read((other_leaf << 32) + 4 * 1), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(word, -1);
  // A 2-ary 3-tree has 3 levels of 2^2 switches: routers 0..11, no window 12.
  EXPECT_EQ(raw_read(std::uint64_t{12} << 32), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  // The bus rejects what has no window before any transaction.
  EXPECT_EQ(bus.read(-1, 0, &word), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bus.read(t.num_routers(), 0, &word), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  std::uint32_t u = 0;
  EXPECT_EQ(bus.read_word(static_cast<int>(leaf), std::uint64_t{1} << 32, &u), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bus.transactions(), 0U);
  EXPECT_EQ(t.num_routers(), 12);
}
