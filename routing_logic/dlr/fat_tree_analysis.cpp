#include "routing_logic/dlr/fat_tree_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "common/thread_group.hpp"
#include "routing_logic/inodes/inode_analyzer.hpp"  // binomial
#include "routing_logic/routing_trials.hpp"

namespace ftsim::routing {

namespace {}  // namespace

namespace {

/// Issue 49: rechooses DDRC's open entries (destinations whose fault-free
/// up-port is dead or leads nowhere) so the flows of uniform all-to-all
/// traffic, one per ordered pair of end nodes, spread over the surviving
/// channels. Per-switch destination counts are not enough: every leaf
/// switch sees the same counts, breaks the tie the same way, and so sends
/// the displaced destination of a dead middle-to-leaf link down one
/// surviving link from every source (twice a channel's fault-free flows, the
/// network saturating at half its load). Here the flows whose fault-free
/// path is intact are counted first; then each remaining (source leaf,
/// destination) flow, destination by destination and leaf by leaf, takes
/// the up*/down* path, among those its open entries allow, whose most
/// loaded channel ends least loaded (then the least total load, then the
/// lowest ports), and fixes the open entries on it (tables stay
/// destination-based: a later flow through a fixed entry follows it).
void balance_open_entries(const KAryNTree& tree, const std::vector<std::uint64_t>& alive,
                          const std::vector<std::vector<char>>& reach, const std::vector<std::vector<char>>& open,
                          std::vector<std::vector<std::int32_t>>& table) {
  const int k = tree.k(), n = tree.n();
  const int switches = tree.num_routers(), nodes = tree.num_nodes();
  const int ports = 2 * k;
  std::vector<long> load(static_cast<std::size_t>(switches) * static_cast<std::size_t>(ports), 0);
  std::vector<std::vector<char>> fixed(static_cast<std::size_t>(switches), std::vector<char>(nodes, 0));
  auto entry = [&](RouterId s, NodeId d) -> std::int32_t& {
    return table[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)];
  };
  auto channel = [&](RouterId s, PortId p) {
    return static_cast<std::size_t>(s) * ports + static_cast<std::size_t>(p);
  };
  auto is_open = [&](RouterId s, NodeId d) {
    return open[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] != 0 &&
           fixed[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] == 0;
  };
  struct Flow {
    RouterId leaf;
    NodeId dest;
    long weight;
  };
  std::vector<Flow> pending;
  std::vector<std::size_t> path;
  for (RouterId leaf = 0; leaf < switches; ++leaf) {
    if (tree.tier(leaf) != n - 1) continue;
    long sources = 0;
    for (PortId p = 0; p < k; ++p)
      if (tree.peer(leaf, p).kind == PortPeer::Kind::kNode) ++sources;
    for (NodeId d = 0; d < nodes; ++d) {
      if (tree.node_router(d) == leaf) continue;
      path.clear();
      bool through_open = false, delivered = false;
      RouterId r = leaf;
      for (int hop = 0; hop < 2 * n && !through_open; ++hop) {
        const PortId p = entry(r, d);
        if (p == kNone) break;
        through_open = open[static_cast<std::size_t>(r)][static_cast<std::size_t>(d)] != 0;
        path.push_back(channel(r, p));
        const PortPeer& pp = tree.peer(r, p);
        if (pp.kind == PortPeer::Kind::kNode) {
          delivered = pp.id == d;
          break;
        }
        r = pp.id;
      }
      if (through_open)
        pending.push_back({leaf, d, sources});
      else if (delivered)
        for (const std::size_t c : path) load[c] += sources;
    }
  }
  std::stable_sort(pending.begin(), pending.end(), [](const Flow& a, const Flow& b) { return a.dest < b.dest; });
  // Depth-first over the paths a flow may take: open, unfixed entries
  // branch over their usable up-ports; every other entry is followed.
  struct Best {
    long worst = -1, total = 0;
    std::vector<std::pair<RouterId, PortId>> choices;
  } best;
  std::vector<std::pair<RouterId, PortId>> choices;
  std::vector<std::size_t> best_path;
  std::function<void(RouterId, NodeId, long, long, long)> explore = [&](RouterId r, NodeId d, long weight, long worst,
                                                                        long total) {
    auto step = [&](PortId p) {
      const std::size_t c = channel(r, p);
      const long after = load[c] + weight;
      path.push_back(c);
      const PortPeer& pp = tree.peer(r, p);
      if (pp.kind == PortPeer::Kind::kNode) {
        if (pp.id == d) {
          const long w = std::max(worst, after), t = total + after;
          if (best.worst < 0 || w < best.worst || (w == best.worst && t < best.total)) {
            best.worst = w;
            best.total = t;
            best.choices = choices;
            best_path = path;
          }
        }
      } else if (static_cast<int>(path.size()) <= 2 * n) {
        explore(pp.id, d, weight, std::max(worst, after), total + after);
      }
      path.pop_back();
    };
    if (is_open(r, d)) {
      for (PortId p = k; p < 2 * k; ++p) {
        const PortPeer& pp = tree.peer(r, p);
        if ((alive[static_cast<std::size_t>(r)] >> p & 1U) == 0U || pp.kind != PortPeer::Kind::kRouter ||
            reach[static_cast<std::size_t>(pp.id)][static_cast<std::size_t>(d)] == 0)
          continue;
        choices.emplace_back(r, p);
        step(p);
        choices.pop_back();
      }
    } else if (entry(r, d) != kNone) {
      step(entry(r, d));
    }
  };
  for (const Flow& f : pending) {
    best = Best{};
    path.clear();
    choices.clear();
    explore(f.leaf, f.dest, f.weight, 0, 0);
    if (best.worst < 0) continue;  // unreachable: the entries stay as they are
    for (const auto& [r, p] : best.choices) {
      entry(r, f.dest) = p;
      fixed[static_cast<std::size_t>(r)][static_cast<std::size_t>(f.dest)] = 1;
    }
    for (const std::size_t c : best_path) load[c] += f.weight;
  }
}

}  // namespace

static std::vector<std::vector<std::int32_t>> ddrc_tables_impl(const KAryNTree& tree, const FaultSet& faults,
                                                               bool balance) {
  const auto alive = alive_port_masks(tree, faults);
  const int k = tree.k(), n = tree.n();
  const int switches = tree.num_routers(), nodes = tree.num_nodes();
  std::vector<std::vector<char>> down_ok(static_cast<std::size_t>(switches), std::vector<char>(nodes, 0));
  std::vector<std::vector<char>> reach(static_cast<std::size_t>(switches), std::vector<char>(nodes, 0));
  std::vector<std::vector<std::int32_t>> table(static_cast<std::size_t>(switches),
                                               std::vector<std::int32_t>(nodes, kNone));
  auto live = [&](RouterId r, PortId p) { return (alive[static_cast<std::size_t>(r)] >> p & 1U) != 0; };
  // Downward paths, bottom tier first.
  for (int l = n - 1; l >= 0; --l)
    for (RouterId s = 0; s < switches; ++s) {
      if (tree.tier(s) != l) continue;
      for (NodeId d = 0; d < nodes; ++d) {
        if (!tree.is_ancestor(s, d)) continue;
        const PortId dp = tree.node_digit(d, l);
        if (!live(s, dp)) continue;
        const PortPeer& pp = tree.peer(s, dp);
        down_ok[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] =
            pp.kind == PortPeer::Kind::kNode ? 1
                                             : down_ok[static_cast<std::size_t>(pp.id)][static_cast<std::size_t>(d)];
      }
    }
  // Up*/down* reachability, top tier first. A destination keeps its D-mod-k
  // up-port while that port is alive and leads to it; the destinations whose
  // port is dead (or leads nowhere) are then spread over the surviving
  // up-ports, each to the one with the fewest destinations so far (lowest
  // port on ties), as a fat-tree subnet manager balances its port counters
  // (OpenSM's ftree and updn engines). Moving them all to the first live
  // port doubled that leaf up-link's destinations and saturated it (issue 49).
  std::vector<int> count(static_cast<std::size_t>(k));
  std::vector<NodeId> displaced;
  // Entries whose fault-free port is unusable: their choice is open to the
  // flow balancing below.
  std::vector<std::vector<char>> open(static_cast<std::size_t>(switches), std::vector<char>(nodes, 0));
  for (int l = 0; l < n; ++l)
    for (RouterId s = 0; s < switches; ++s) {
      if (tree.tier(s) != l) continue;
      auto up_ok = [&](PortId p, NodeId d) {
        return live(s, p) && reach[static_cast<std::size_t>(tree.peer(s, p).id)][static_cast<std::size_t>(d)] != 0;
      };
      std::fill(count.begin(), count.end(), 0);
      displaced.clear();
      for (NodeId d = 0; d < nodes; ++d) {
        auto& t = table[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)];
        if (down_ok[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)]) {
          t = tree.node_digit(d, l);
          reach[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] = 1;
          continue;
        }
        if (l == 0) continue;
        const PortId preferred = k + tree.node_digit(d, l);
        if (up_ok(preferred, d)) {
          t = preferred;
          ++count[static_cast<std::size_t>(preferred - k)];
          reach[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] = 1;
        } else {
          displaced.push_back(d);
        }
      }
      for (const NodeId d : displaced) {
        PortId chosen = kNone;
        for (PortId p = k; p < 2 * k; ++p)
          if (up_ok(p, d) &&
              (chosen == kNone || count[static_cast<std::size_t>(p - k)] < count[static_cast<std::size_t>(chosen - k)]))
            chosen = p;
        table[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] = chosen;
        open[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] = chosen != kNone ? 1 : 0;
        if (chosen != kNone) ++count[static_cast<std::size_t>(chosen - k)];
        reach[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] = chosen != kNone ? 1 : 0;
      }
    }
  if (balance) balance_open_entries(tree, alive, reach, open, table);
  return table;
}

std::vector<std::vector<std::int32_t>> ddrc_tables(const KAryNTree& tree, const FaultSet& faults) {
  return ddrc_tables_impl(tree, faults, true);
}

bool ddrc_connected(const KAryNTree& tree, const FaultSet& faults) {
  // Whether a path exists does not depend on the balancing.
  const auto table = ddrc_tables_impl(tree, faults, false);
  for (NodeId s = 0; s < tree.num_nodes(); ++s) {
    const RouterId leaf = tree.node_router(s);
    for (NodeId d = 0; d < tree.num_nodes(); ++d)
      if (s != d && table[static_cast<std::size_t>(leaf)][static_cast<std::size_t>(d)] == kNone) return false;
  }
  return true;
}

bool routing_connected(const RoutingRelation& relation, const FaultSet& faults,
                       const std::function<void(std::uint64_t)>& sources_done) {
  const auto& tree = dynamic_cast<const KAryNTree&>(relation.topology());
  const auto alive = alive_port_masks(tree, faults);
  std::vector<RerouteState> reroute(static_cast<std::size_t>(tree.num_routers()));
  const int max_hops = 16 + 8 * tree.n() * tree.k();
  for (NodeId s = 0; s < tree.num_nodes(); ++s) {
    for (NodeId d = 0; d < tree.num_nodes(); ++d)
      if (s != d && !walk(relation, alive, s, d, max_hops, &reroute).delivered) {
        if (sources_done) sources_done(static_cast<std::uint64_t>(tree.num_nodes() - s));
        return false;
      }
    if (sources_done) sources_done(1);
  }
  return true;
}

std::vector<ConnectivityRow> fat_tree_connectivity(const KAryNTree& tree, const std::string& mechanism,
                                                   const std::vector<int>& fault_counts, long samples,
                                                   std::uint64_t seed, int threads,
                                                   const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (mechanism != "dlr" && mechanism != "ddrc")
    throw ConfigError(fmt::format("--mechanism '{}': allowed dlr, ddrc", mechanism));
  if (samples < 1) throw ConfigError(fmt::format("--samples {}: allowed >= 1", samples));
  std::vector<LinkId> links;  // switch-switch links: node links need extra hardware (section V)
  for (const Link& lk : tree.links())
    if (!lk.b_is_node) links.push_back(lk.id);
  const int m = static_cast<int>(links.size());
  for (int f : fault_counts)
    if (f > m || f < 0)
      throw ConfigError(
          fmt::format("--faults {}: allowed 0..{} ({} has {} switch-switch links)", f, m, tree.spec(), m));
  // Progress counts source nodes checked over every fault set of every row
  // (a DDRC set counts all its sources at once), so one long row of a large
  // tree still reports as it goes.
  std::uint64_t total_units = 0;
  const auto per_set = static_cast<std::uint64_t>(tree.num_nodes());
  for (int f : fault_counts) {
    const std::uint64_t c = inodes::binomial(m, f);
    total_units += (c <= static_cast<std::uint64_t>(samples) ? c : static_cast<std::uint64_t>(samples)) * per_set;
  }
  std::uint64_t units_done = 0;
  std::mutex progress_mu;
  const std::function<void(std::uint64_t)> advance = [&](std::uint64_t n) {
    if (!progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    units_done += n;
    progress(units_done, total_units);
  };
  std::vector<ConnectivityRow> rows;
  for (int f : fault_counts) {
    if (f > m) throw ConfigError(fmt::format("--faults {}: {} has only {} switch-switch links", f, tree.spec(), m));
    const std::uint64_t total = inodes::binomial(m, f);
    ConnectivityRow row;
    row.faults = f;
    row.exact = total <= static_cast<std::uint64_t>(samples);
    row.samples = row.exact ? static_cast<long>(total) : samples;
    // Fault sets: every combination (exact) or random draws.
    std::vector<std::vector<LinkId>> sets;
    if (row.exact) {
      std::vector<int> idx(static_cast<std::size_t>(f));
      std::iota(idx.begin(), idx.end(), 0);
      while (true) {
        std::vector<LinkId> s;
        for (int i : idx) s.push_back(links[static_cast<std::size_t>(i)]);
        sets.push_back(s);
        int i = f - 1;
        while (i >= 0 && idx[static_cast<std::size_t>(i)] == m - f + i) --i;
        if (i < 0) break;
        ++idx[static_cast<std::size_t>(i)];
        for (int j = i + 1; j < f; ++j) idx[static_cast<std::size_t>(j)] = idx[static_cast<std::size_t>(j - 1)] + 1;
      }
    } else {
      std::mt19937_64 rng(seed * 1000003ULL + static_cast<std::uint64_t>(f));
      for (long i = 0; i < samples; ++i) {
        std::vector<LinkId> all = links;
        for (int j = 0; j < f; ++j) {
          std::uniform_int_distribution<int> pick(j, m - 1);
          std::swap(all[static_cast<std::size_t>(j)], all[static_cast<std::size_t>(pick(rng))]);
        }
        sets.emplace_back(all.begin(), all.begin() + f);
      }
    }
    std::atomic<long> connected{0};
    std::atomic<std::size_t> next{0};
    ftsim::ThreadGroup pool;
    for (int t = 0; t < std::max(1, threads); ++t)
      pool.spawn([&] {
        FatTreeDlrRouting ddlr(FatTreeDlrRouting::Variant::kDeterministic);
        ddlr.configure(tree, 2);
        for (std::size_t i = next++; i < sets.size(); i = next++) {
          FaultSet fs;
          fs.links = sets[i];
          bool ok = false;
          if (mechanism == "ddrc") {
            ok = ddrc_connected(tree, fs);
            advance(per_set);
          } else {
            ok = routing_connected(ddlr, fs, advance);
          }
          if (ok) ++connected;
        }
      });
    pool.join();
    row.connected_probability = static_cast<double>(connected.load()) / static_cast<double>(sets.size());
    rows.push_back(row);
  }
  return rows;
}

}  // namespace ftsim::routing
