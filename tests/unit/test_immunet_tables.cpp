// Immunet tables: shapes, sizes in bits, and the tree-tour safe ring.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "tables/immunet/immunet_tables.hpp"

using namespace ftsim;
using routing::KAryNCube;

TEST(ImmunetTables, FaultFreeSsTableIsTheStraightRingConnections) {
  const KAryNCube t({4, 4}, true);
  const auto ss = tables::fault_free_ss_table(t);
  EXPECT_EQ(ss.ports(), 4);
  EXPECT_EQ(ss.size_bits(), 16);
  EXPECT_EQ(ss.ones(), 4);  // one per unidirectional ring through the router
  // A packet travelling east enters from the west port and leaves east, etc.
  auto idx = [](int d, bool plus) { return tables::ss_index(KAryNCube::port_of(d, plus)); };
  EXPECT_TRUE(ss.get(idx(0, false), idx(0, true)));
  EXPECT_TRUE(ss.get(idx(0, true), idx(0, false)));
  EXPECT_TRUE(ss.get(idx(1, false), idx(1, true)));
  EXPECT_TRUE(ss.get(idx(1, true), idx(1, false)));
  // Following the SS tables from any entry stays in one ring of length k.
  std::vector<tables::SsTable> all(16, ss);
  const auto ring = tables::trace_safe_ring(t, all, 5, KAryNCube::port_of(0, false));
  EXPECT_EQ(ring.size(), 4U);
  for (auto r : ring) EXPECT_EQ(t.coord(r, 1), t.coord(5, 1));
}

TEST(ImmunetTables, SizesInBits) {
  const KAryNCube t({8, 8}, true);
  // Safe: N x P = 64 x 5; adaptive: N x (P + ceil(log2(N+1))) = 64 x (5 + 7); SS: 4 x 4.
  EXPECT_EQ(tables::fault_free_safe_table(t, 0).size_bits(), 320);
  EXPECT_EQ(tables::fault_free_adaptive_table(t, 0).size_bits(), 768);
  EXPECT_EQ(tables::fault_free_ss_table(t).size_bits(), 16);
  const KAryNCube t3({4, 4, 4}, true);
  EXPECT_EQ(tables::fault_free_ss_table(t3).size_bits(), 36);
}

TEST(ImmunetTables, FaultFreeAdaptiveTableMatchesBfsReference) {
  for (const auto& dims : {std::vector<int>{4, 4}, std::vector<int>{5, 3}, std::vector<int>{3, 3, 3}}) {
    const KAryNCube t(dims, true);
    const auto ref = tables::reference_adaptive_tables(t, {});
    for (routing::RouterId r = 0; r < t.num_routers(); ++r) {
      const auto a = tables::fault_free_adaptive_table(t, r);
      for (routing::NodeId d = 0; d < t.num_nodes(); ++d) {
        EXPECT_EQ(a.distance(d), ref[r].distance(d));
        EXPECT_EQ(a.mask(d), ref[r].mask(d)) << "router " << r << " dest " << d;
      }
    }
  }
}

TEST(ImmunetTables, SafeTableFollowsDorToEveryDestination) {
  const KAryNCube t({5, 4}, true);
  std::vector<tables::SafeTable> safe;
  for (routing::RouterId r = 0; r < t.num_routers(); ++r) safe.push_back(tables::fault_free_safe_table(t, r));
  const auto ref = tables::reference_adaptive_tables(t, {});
  for (routing::NodeId s = 0; s < t.num_nodes(); ++s)
    for (routing::NodeId d = 0; d < t.num_nodes(); ++d) {
      routing::RouterId r = s;
      int hops = 0;
      while (r != d && hops < 100) {
        const auto mask = safe[r].mask(d);
        ASSERT_EQ(__builtin_popcountll(mask), 1);
        r = t.peer(r, __builtin_ctzll(mask)).id;
        ++hops;
      }
      EXPECT_EQ(safe[d].mask(d), 1ULL << KAryNCube::kLocalPort);
      EXPECT_EQ(hops, ref[s].distance(d));  // DOR is minimal
    }
}

TEST(ImmunetTables, TreeTourIsOneRingThroughEverySurvivor) {
  const KAryNCube t({4, 4}, true);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    // Random link and router faults; the tree covers the root's component.
    routing::FaultSet fs;
    std::vector<routing::LinkId> links(t.num_links());
    for (int i = 0; i < t.num_links(); ++i) links[i] = i;
    std::shuffle(links.begin(), links.end(), rng);
    fs.links.assign(links.begin(), links.begin() + static_cast<long>(trial % 20));
    if (trial % 3 == 0) fs.routers.push_back(static_cast<int>(rng() % 16));
    routing::RouterId root = static_cast<int>(rng() % 16);
    if (!fs.routers.empty() && fs.routers[0] == root) root = (root + 1) % 16;
    const auto tree = tables::emergency_tree(t, fs, root);
    const auto comp = routing::node_components(t, fs);
    std::set<routing::RouterId> survivors;
    for (int n = 0; n < 16; ++n)
      if (comp[n] == comp[root]) survivors.insert(n);
    std::vector<tables::SsTable> ss;
    for (routing::RouterId r = 0; r < 16; ++r) ss.push_back(tables::tour_ss_table(t, tree, r));
    if (survivors.size() == 1) continue;
    // Enter the root from its last child: the tour then starts with the first child.
    const auto ring = tables::trace_safe_ring(t, ss, root, tree.children[root].back());
    ASSERT_FALSE(ring.empty()) << "trial " << trial;
    // An Euler tour crosses every tree edge twice: 2 (M - 1) visits.
    EXPECT_EQ(ring.size(), 2 * (survivors.size() - 1)) << "trial " << trial;
    EXPECT_EQ(std::set<routing::RouterId>(ring.begin(), ring.end()), survivors) << "trial " << trial;
  }
}

TEST(ImmunetTables, LostNodesKeepDistanceN) {
  const KAryNCube t({4, 4}, true);
  routing::FaultSet fs;
  fs.routers = {5};
  const auto ref = tables::reference_adaptive_tables(t, fs);
  EXPECT_EQ(ref[0].distance(5), 16);
  EXPECT_EQ(ref[0].mask(5), 0U);
  // (0,1) -> (2,1): both x directions are 2 hops on a 4-ring; +x crosses the
  // dead (1,1), so only -x (over the wrap link) stays minimal.
  EXPECT_EQ(ref[4].distance(6), 2);
  EXPECT_EQ(ref[4].mask(6), 1ULL << KAryNCube::port_of(0, false));
  // Fault-free, both x directions were minimal.
  EXPECT_EQ(tables::fault_free_adaptive_table(t, 4).mask(6),
            (1ULL << KAryNCube::port_of(0, false)) | (1ULL << KAryNCube::port_of(0, true)));
}
