// The line-oriented input parsers (OpenSM LFT dumps, ibsim netfiles, real
// ibnetdiscover output) on hostile input: long lines, numbers past their
// field's range, fabrics without end nodes (issue 47), and real files.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "common/text_input.hpp"
#include "common/thread_group.hpp"
#include "routing_logic/topology/ibnet.hpp"
#include "tables/lft.hpp"

using ftsim::ConfigError;
using ftsim::routing::IbNetTopology;
using ftsim::tables::LftSet;

namespace {

std::string fixture(const std::string& rel) {
  std::ifstream f(std::string(FTSIM_FIXTURES_DIR) + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The ConfigError message of `f`, or "" when it does not throw one.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* const kBlock =
    "Unicast lids [0-2] of switch Lid 2 guid 0x0000000000200000 ('SW_0_0'):\n"
    "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'H_0_0_0'\n"
    "0x0002 000 # Switch portguid 0x0000000000200000: 'SW_0_0'\n"
    "2 lids dumped\n";

}  // namespace

TEST(TextInput, ParseUnsignedChecksDigitsBaseAndRange) {
  EXPECT_EQ(ftsim::parse_unsigned("0000032", 10, 49151), 32U);  // leading zeros are the number, not its prefix
  EXPECT_EQ(ftsim::parse_unsigned("bfff", 16, 0xBFFF), 49151U);
  EXPECT_FALSE(ftsim::parse_unsigned("c000", 16, 0xBFFF));  // one past the unicast range
  EXPECT_FALSE(ftsim::parse_unsigned("99999999999", 10, 49151));
  EXPECT_FALSE(ftsim::parse_unsigned("18446744073709551616", 10, UINT64_MAX));  // 2^64
  EXPECT_EQ(ftsim::parse_unsigned("18446744073709551615", 10, UINT64_MAX), UINT64_MAX);
  EXPECT_FALSE(ftsim::parse_unsigned("", 10, 5));
  EXPECT_FALSE(ftsim::parse_unsigned("1a", 10, 100));
  EXPECT_FALSE(ftsim::parse_unsigned("3", 10, 2));  // a digit above the maximum
  EXPECT_EQ(ftsim::parse_unsigned("0002", 16, 2), 2U);
}

// An exception in a worker thread used to abort the process (analyze dqr
// --variant all on a torus). Four workers take 100 items; the one that
// draws item 37 throws. join() rethrows that ConfigError; the others run
// on, so every other item is done exactly once: 99.
TEST(ThreadGroup, AWorkersExceptionReachesJoinAndTheOthersFinish) {
  std::atomic<int> next{0}, done{0};
  ftsim::ThreadGroup group;
  for (int t = 0; t < 4; ++t)
    group.spawn([&] {
      for (int i = next++; i < 100; i = next++) {
        if (i == 37) throw ftsim::ConfigError("item 37 is bad");
        ++done;
      }
    });
  try {
    group.join();
    ADD_FAILURE() << "join() did not rethrow";
  } catch (const ftsim::ConfigError& e) {
    EXPECT_STREQ(e.what(), "item 37 is bad");
  }
  // The thrower stops; the three others take the rest of the items.
  EXPECT_EQ(done.load(), 99);
  EXPECT_NO_THROW(ftsim::run_on_threads(3, [] {}));
}

TEST(TextInput, ShownCutsLongTokensAndSaysHowLong) {
  EXPECT_EQ(ftsim::shown("short"), "short");
  EXPECT_EQ(ftsim::shown(std::string(50000, 'A')), std::string(40, 'A') + "... (50000 characters)");
}

TEST(OpenSmLftInput, AFiftyThousandCharacterNameIsALineLengthErrorNotACrash) {
  // std::regex recursed once per character here and overflowed the stack.
  const std::string line =
      "Unicast lids [0-1] of switch Lid 1 guid 0x1 ('" + std::string(50000, 'A') + "'):\n1 lids dumped\n";
  const std::string e = error_of([&] { LftSet::parse_dump(line, "x.dump"); });
  EXPECT_TRUE(contains(e, "x.dump:1: the line is 50049 bytes long; at most 4096 allowed")) << e;
}

// The fuzzer (CI, 2026-11-29) found a dump that parsed but whose written
// dump did not: "0x1 0 # Router portguid 0x1: 'NAME'" fits in 4,096 bytes
// with a 4,060-byte name, and dump() writes that entry as "0x0001 000 #
// Channel Adapter portguid 0x0000000000000001: 'NAME'", 29 bytes more than
// the line limit. Names are now at most 1,024 bytes. At that bound an
// entry dump() writes has 60 bytes of fixed text, a switch header 64 with
// one-digit LIDs (72 at most, with five-digit ones): the longest line here
// is the header, 64 + 1,024 = 1,088 bytes, and never above 1,096.
TEST(OpenSmLftInput, NamesAreBoundedSoThatTheWrittenDumpParsesAgain) {
  const auto dump_with = [](std::size_t switch_name, std::size_t node_name) {
    return "Unicast lids [0-1] of switch Lid 1 guid 0x1 ('" + std::string(switch_name, 'S') + "'):\n0x1 0 # Router " +
           "portguid 0x1: '" + std::string(node_name, 'N') + "'\n1 lids dumped\n";
  };
  EXPECT_TRUE(contains(error_of([&] { LftSet::parse_dump(dump_with(1, 4060), "d"); }),
                       "d:2: the node name is 4060 bytes long; at most 1024 allowed"));
  EXPECT_TRUE(contains(error_of([&] { LftSet::parse_dump(dump_with(1025, 1), "d"); }),
                       "d:1: the switch name is 1025 bytes long; at most 1024 allowed"));
  const LftSet at_bound = LftSet::parse_dump(dump_with(1024, 1024), "d");
  const std::string written = at_bound.dump();
  std::size_t longest = 0;
  for (std::size_t from = 0, nl; (nl = written.find('\n', from)) != std::string::npos; from = nl + 1)
    longest = std::max(longest, nl - from);
  EXPECT_EQ(longest, 64U + 1024U);  // the header, as counted above
  const LftSet again = LftSet::parse_dump(written, "again");
  EXPECT_EQ(again.dump(), written);
  EXPECT_EQ(again.switches.at(0).name, std::string(1024, 'S'));
  EXPECT_EQ(again.lids.at(1).name, std::string(1024, 'N'));
}

TEST(OpenSmLftInput, NumbersAreReadWholeAndRangeChecked) {
  std::string text = kBlock;
  // Switch LID 99999999999 was read as its first six digits, 999999.
  std::string t = text;
  t.replace(t.find("Lid 2 "), 6, "Lid 99999999999 ");
  EXPECT_TRUE(contains(error_of([&] { LftSet::parse_dump(t, "d"); }),
                       "d:1: switch LID 99999999999 out of range, allowed 1..49151"));
  // A switch LID above the unicast range (0xBFFF = 49151).
  t = text;
  t.replace(t.find("Lid 2 "), 6, "Lid 49152 ");
  EXPECT_TRUE(contains(error_of([&] { LftSet::parse_dump(t, "d"); }), "switch LID 49152 out of range"));
  // [0-0000032] was read as 3 (the first six characters, "000003").
  t = text;
  t.replace(t.find("[0-2]"), 5, "[0-0000002]");
  EXPECT_EQ(LftSet::parse_dump(t, "d").switches.at(0).top_lid, 2);
  // An entry's LID beyond the block's top LID.
  t = text;
  t.replace(t.find("0x0002 000"), 10, "0x0003 000");
  EXPECT_TRUE(
      contains(error_of([&] { LftSet::parse_dump(t, "d"); }), "d:3: LID 0x0003 out of range, allowed 0x1..0x2"));
  // A GUID of 17 digits.
  t = text;
  t.replace(t.find("guid 0x0000000000200000"), 23, "guid 0x10000000000200000");
  EXPECT_TRUE(contains(error_of([&] { LftSet::parse_dump(t, "d"); }), "switch GUID 0x10000000000200000"));
  // Trailing text after an entry.
  t = text;
  t.replace(t.find("0x0002 000"), 10, "0x0002 000 extra");
  EXPECT_TRUE(contains(error_of([&] { LftSet::parse_dump(t, "d"); }), "d:3: unexpected text after the port"));
}

TEST(OpenSmLftInput, ALidNamingTwoEndpointsNamesBothGuids) {
  std::string text = kBlock;
  text +=
      "Unicast lids [0-2] of switch Lid 3 guid 0x0000000000200001 ('SW_0_1'):\n"
      "0x0001 002 # Channel Adapter portguid 0x0000000000100009: 'H_0_0_0'\n"
      "2 lids dumped\n";
  const std::string e = error_of([&] { LftSet::parse_dump(text, "d"); });
  EXPECT_TRUE(contains(e,
                       "d:6: LID 0x0001 names 'H_0_0_0' (GUID 0x0000000000100009) here and 'H_0_0_0' "
                       "(GUID 0x0000000000100001) before"))
      << e;
}

TEST(OpenSmLftInput, ADeviceOrAMissingFileIsAUserErrorBeforeAnyRead) {
  // /dev/zero was read until bad_alloc after 35-46 s.
  EXPECT_TRUE(contains(error_of([] { LftSet::load("/dev/zero"); }), "is not a regular file"));
  EXPECT_TRUE(contains(error_of([] { LftSet::load("/nonexistent/opensm-lfts.dump"); }), "does not exist"));
}

TEST(IbNetInput, ALongNameAndAFabricWithoutEndNodesAreUserErrors) {
  const std::string long_name = "Switch 2 \"" + std::string(50000, 'A') + "\"\n";
  EXPECT_TRUE(contains(error_of([&] { IbNetTopology(long_name, "n.net"); }), "n.net:1: the line is 50011 bytes"));
  // Two switches wired to each other and nothing else: the DQR analysis
  // dereferenced a null node router on it.
  const std::string no_hcas = "Switch 2 \"S0\"\n[1] \"S1\"[1]\nSwitch 2 \"S1\"\n[1] \"S0\"[1]\n";
  EXPECT_TRUE(contains(error_of([&] { IbNetTopology(no_hcas, "n.net"); }), "no Hca or Ca record"));
  EXPECT_TRUE(contains(error_of([] { IbNetTopology("Switch 99999999999 \"S\"\n", "n.net"); }),
                       "n.net:1: port count 99999999999 out of range, allowed 1..64"));
  EXPECT_TRUE(contains(error_of([] { IbNetTopology("Switch 2 \"S\n", "n.net"); }), "no closing double quote"));
  // Names and descriptions are at most 1,024 bytes (kMaxInputNameBytes), so
  // the netfile ftsim writes back stays within the line limit.
  const std::string name_1025 = "Switch 2 \"" + std::string(1025, 'A') + "\"\n";
  EXPECT_TRUE(contains(error_of([&] { IbNetTopology(name_1025, "n.net"); }),
                       "n.net:1: the node name is 1025 bytes long; at most 1024 allowed"));
  const std::string desc_1025 = "Switch 2 \"S-1\" # \"" + std::string(1025, 'D') + "\" lid 1 lmc 0\n";
  EXPECT_TRUE(contains(error_of([&] { IbNetTopology(desc_1025, "n.net"); }),
                       "n.net:1: the node description is 1025 bytes long; at most 1024 allowed"));
}

TEST(IbNetInput, RealIbnetdiscoverOutputOfTheMesh4x4Fabric) {
  const IbNetTopology t(fixture("ibnetdiscover/mesh4x4.ibnetdiscover"), "mesh4x4.ibnetdiscover");
  // The 4x4 mesh: 16 switches, 16 HCAs, 2 * 4 * 3 = 24 switch-to-switch
  // links plus 16 HCA links.
  EXPECT_EQ(t.num_routers(), 16);
  EXPECT_EQ(t.num_nodes(), 16);
  EXPECT_EQ(t.num_links(), 24 + 16);
  // Labels are the node descriptions of the comments; GUIDs from
  // switchguid= / caguid= (the netfile's switch SW_3_3 is 0x20000f).
  const auto r = t.find_router("SW_3_3");
  ASSERT_NE(r, ftsim::routing::kNone);
  EXPECT_EQ(t.router_guid(r), 0x20000fU);
  const auto n = t.find_node("H_3_3_0");
  ASSERT_NE(n, ftsim::routing::kNone);
  EXPECT_EQ(t.node_router(n), r);
  EXPECT_EQ(t.node_guid(n), 0x10001eU);
  // Same wiring as the netfile it was discovered from, link for link.
  const IbNetTopology net(fixture("opensm/mesh4x4.net"), "mesh4x4.net");
  std::set<std::string> a, b;
  for (ftsim::routing::RouterId x = 0; x < t.num_routers(); ++x)
    for (ftsim::routing::PortId p = 0; p < t.radix(x); ++p) {
      const auto& pp = t.peer(x, p);
      if (pp.kind == ftsim::routing::PortPeer::Kind::kRouter)
        a.insert(t.router_label(x) + "/" + std::to_string(p) + "->" + t.router_label(pp.id) + "/" +
                 std::to_string(pp.port));
    }
  for (ftsim::routing::RouterId x = 0; x < net.num_routers(); ++x)
    for (ftsim::routing::PortId p = 0; p < net.radix(x); ++p) {
      const auto& pp = net.peer(x, p);
      if (pp.kind == ftsim::routing::PortPeer::Kind::kRouter)
        b.insert(net.router_label(x) + "/" + std::to_string(p) + "->" + net.router_label(pp.id) + "/" +
                 std::to_string(pp.port));
    }
  EXPECT_EQ(a.size(), 48U);  // each of the 24 links from both ends
  EXPECT_EQ(a, b);
  // Round trip through ftsim's own netfile writer.
  const IbNetTopology again(t.netfile(), "again.net");
  EXPECT_EQ(again.netfile(), t.netfile());
}

TEST(IbNetInput, RealIbnetdiscoverOutputOfTheSmallFatTree) {
  const IbNetTopology t(fixture("ibnetdiscover/ft_small.ibnetdiscover"), "ft_small.ibnetdiscover");
  // ft_small.net: leaves L0..L3 with two HCAs each, spines S0 and S1 linked
  // to every leaf: 6 switches, 8 HCAs, 4 * 2 = 8 switch links + 8 HCA links.
  EXPECT_EQ(t.num_routers(), 6);
  EXPECT_EQ(t.num_nodes(), 8);
  EXPECT_EQ(t.num_links(), 8 + 8);
  EXPECT_NE(t.find_router("S1"), ftsim::routing::kNone);
  EXPECT_EQ(t.node_router(t.find_node("H_3_1")), t.find_router("L3"));
}

TEST(IbNetInput, ASwitchDescriptionEqualToAnHcasNameFallsBackToQuotedNames) {
  // One switch described "X" and one HCA described "X": each kind's
  // descriptions are unique, but the netfile writes both kinds in one
  // namespace, so both keep their quoted (S-/H-<guid>) names and the written
  // netfile parses to itself (found by fuzz_ibnet).
  const std::string text =
      "switchguid=0x2\nSwitch\t2 \"S-0000000000000002\"\t\t# \"X\" base port 0 lid 1 lmc 0\n"
      "[1]\t\"H-0000000000000001\"[1](11)\t\t# \"X\" lid 2 4xSDR\n\n"
      "caguid=0x1\nCa\t1 \"H-0000000000000001\"\t\t# \"X\"\n"
      "[1](11) \t\"S-0000000000000002\"[1]\t\t# lid 2 lmc 0 \"X\" lid 1 4xSDR\n";
  const IbNetTopology t(text, "clash.ibnetdiscover");
  EXPECT_EQ(t.router_label(0), "S-0000000000000002");
  EXPECT_EQ(t.node_label(0), "H-0000000000000001");
  const IbNetTopology again(t.netfile(), "again.net");
  EXPECT_EQ(again.netfile(), t.netfile());
  // Without the clash the descriptions stay the labels.
  std::string distinct = text;
  distinct.replace(distinct.find("# \"X\" base"), 5, "# \"Y\"");
  const IbNetTopology d(distinct, "distinct.ibnetdiscover");
  EXPECT_EQ(d.router_label(0), "Y");
  EXPECT_EQ(d.node_label(0), "X");
}

TEST(IbNetInput, LinkLabelsAreParsedWithoutARegex) {
  const IbNetTopology t(fixture("opensm/mesh4x4.net"), "mesh4x4.net");
  const auto l = t.parse_link("SW_0_0[4]");
  EXPECT_EQ(t.link_label(l), "SW_0_0[4]");
  EXPECT_TRUE(contains(error_of([&] { t.parse_link(std::string(50000, 'A') + "[1]"); }), "(50000 characters)"));
  EXPECT_TRUE(contains(error_of([&] { t.parse_link("SW_0_0[99999999999]"); }), "expected SWITCH[port]"));
  EXPECT_TRUE(contains(error_of([&] { t.parse_link("SW_0_0[4]-SW_9_9[1]"); }), "leads to"));
}
