// LASH service levels (issue 50 item 4): OpenSM's own LASH routing of the
// 4x4 torus with the SL the SA gives every path (tests/fixtures/opensm/
// torus4x4-lash-sl, scripts/opensm_lash_capture.sh), imported as DQR's
// virtual layers, checked against OpenSM's log and an independent Kahn check.
#include <gtest/gtest.h>

#include <set>

#include "common/config_error.hpp"
#include "routing_logic/dqr/dqr.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/lft_routing.hpp"
#include "tables/lft.hpp"
#include "tables/path_sl.hpp"
#include "tests/support/acyclic.hpp"

namespace rt = ftsim::routing;
namespace tb = ftsim::tables;

namespace {
const std::string kDir = std::string(FTSIM_FIXTURES_DIR) + "/opensm/torus4x4-lash-sl";

// Per layer, the dependencies of the flows in it (traced here, not by the engine).
std::vector<std::vector<std::pair<int, int>>> layer_deps(const rt::Topology& topo,
                                                         const std::vector<std::vector<rt::PortId>>& tables,
                                                         const rt::dqr::Layers& layers) {
  std::vector<std::vector<std::pair<int, int>>> out(static_cast<std::size_t>(layers.count));
  const std::vector<char> none(static_cast<std::size_t>(topo.num_links()), 0);
  for (rt::NodeId s = 0; s < topo.num_nodes(); ++s)
    for (rt::NodeId d = 0; d < topo.num_nodes(); ++d) {
      if (s == d) continue;
      int prev = -1;
      auto& deps = out[static_cast<std::size_t>(layers.of(s, d, topo.num_nodes()))];
      rt::follow_tables(topo, tables, none, topo.node_router(s), d, [&](rt::RouterId r, rt::PortId p) {
        const int c = rt::dqr::link_channel(topo, r, p);
        if (c < 0) return;
        if (prev >= 0) deps.emplace_back(prev, c);
        prev = c;
      });
    }
  return out;
}
}  // namespace

TEST(OpenSmLash, ServiceLevelsAreLashLayersEachAcyclic) {
  // OpenSM's log for this run (lash.log): "Lanes needed: 2", then after
  // balancing "Lanes in layer 0: 122", "Lanes in layer 1: 118": its lanes
  // are switch pairs, and with one HCA per switch the 240 HCA pairs split
  // the same way. Each layer's channel dependencies are acyclic (Kahn),
  // while all of them in one layer are not: the torus needs both SLs, and
  // the DQR engine refuses the tables without them.
  const auto topo = rt::make_topology("torus:4x4");
  const auto placed = tb::place(tb::LftSet::load(kDir), *topo);
  const auto sls = tb::PathSlSet::load_if_present(kDir);
  ASSERT_TRUE(sls.has_value());
  EXPECT_EQ(sls->sl.size(), 240U);
  const auto layers = tb::layers_from_path_sl(*sls, *topo, placed.lid);
  ASSERT_EQ(layers.count, 2);
  int in_layer[2] = {0, 0};
  for (rt::NodeId s = 0; s < 16; ++s)
    for (rt::NodeId d = 0; d < 16; ++d)
      if (s != d) ++in_layer[layers.of(s, d, 16)];
  EXPECT_EQ(in_layer[0], 122);
  EXPECT_EQ(in_layer[1], 118);
  const auto deps = layer_deps(*topo, placed.port, layers);
  std::vector<std::pair<int, int>> all;
  for (const auto& l : deps) {
    EXPECT_TRUE(ftsim::test::acyclic_deps(2 * topo->num_links(), l));
    all.insert(all.end(), l.begin(), l.end());
  }
  EXPECT_FALSE(ftsim::test::acyclic_deps(2 * topo->num_links(), all));
  EXPECT_NO_THROW(rt::dqr::Engine(*topo, placed.port, layers));
  EXPECT_THROW(rt::dqr::Engine(*topo, placed.port), ftsim::ConfigError);
}

TEST(OpenSmLash, PathSlsRoundTripThroughDqr) {
  // Import, reconfigure around a link (layer moves included), write the SLs
  // back: the file parses to the engine's layers, and OpenSM's own set
  // written unchanged is the file it came from.
  const auto topo = rt::make_topology("torus:4x4");
  const auto set = tb::LftSet::load(kDir);
  const auto placed = tb::place(set, *topo);
  const auto sls = *tb::PathSlSet::load_if_present(kDir);
  const auto layers = tb::layers_from_path_sl(sls, *topo, placed.lid);
  EXPECT_EQ(tb::PathSlSet::parse(tb::path_sl_of(layers, *topo, placed.lid).dump(), "x").sl, sls.sl);
  rt::dqr::Engine eng(*topo, placed.port, layers);
  const auto r = eng.reconfigure({topo->parse_link("1,1:x+")}, rt::dqr::variant_options("lr-path-all"));
  ASSERT_TRUE(r.success) << r.failure;
  const auto back = tb::PathSlSet::parse(tb::path_sl_of(eng.layers(), *topo, placed.lid).dump(), "y");
  const auto again = tb::layers_from_path_sl(back, *topo, placed.lid);
  EXPECT_EQ(again.of_flow, eng.layers().of_flow);
  for (const auto& l : layer_deps(*topo, eng.tables(), eng.layers()))
    EXPECT_TRUE(ftsim::test::acyclic_deps(2 * topo->num_links(), l));
}

TEST(OpenSmLash, MalformedPathSlLinesNameTheirLine) {
  for (const char* bad : {"1 2\n", "1 2 16\n", "0 2 1\n", "1 2 1\n1 2 0\n", "1 2 1 x\n", "a b c\n"}) {
    try {
      tb::PathSlSet::parse(std::string("# header\n") + bad, "f.txt");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const ftsim::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("f.txt:"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(tb::PathSlSet::parse("# c\n\n3 4 15\n", "ok").sl.at({3, 4}), 15);
  // A pair the file lacks is named.
  const auto topo = rt::make_topology("torus:4x4");
  const auto placed = tb::place(tb::LftSet::load(kDir), *topo);
  tb::PathSlSet partial = *tb::PathSlSet::load_if_present(kDir);
  partial.sl.erase(partial.sl.begin());
  EXPECT_THROW(tb::layers_from_path_sl(partial, *topo, placed.lid), ftsim::ConfigError);
  EXPECT_NO_THROW(tb::layers_from_path_sl(partial, *topo, placed.lid, false));
}

TEST(OpenSmLash, SlToVlTablesMapEachUsedSlToItsVl) {
  // 4x4 torus: every switch has port 0, its HCA and 4 links: 6 x 6 = 36
  // (in, out) rows per switch, 16 switches; SL 0 and 1 go to VL 0 and 1,
  // the 14 others to VL 15.
  const auto topo = rt::make_topology("torus:4x4");
  const auto set = tb::LftSet::load(kDir);
  const std::string text = tb::sl2vl_dump(set, *topo, 2);
  std::size_t rows = 0, pos = 0;
  while ((pos = text.find(" : 0  1  15", pos)) != std::string::npos) {
    ++rows;
    ++pos;
  }
  EXPECT_EQ(rows, 16U * 36U);
}
