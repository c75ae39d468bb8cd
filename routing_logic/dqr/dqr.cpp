#include "routing_logic/dqr/dqr.hpp"

#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/lft_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>

namespace ftsim::routing::dqr {

/// Routes towards one destination d under the current tables.
struct Engine::DestState {
  std::vector<signed char> status;        // 1 delivers over live links, 2 broken (dead link, no entry, loop)
  std::vector<int> dist;                  // broken: switch hops from here to where the route breaks
  std::vector<char> carrier;              // some flow to d passes this switch
  std::vector<std::uint32_t> layers;      // the virtual layers of the flows to d through the switch (bit mask)
  std::vector<std::vector<int>> feeders;  // channels (with their layers) carrying d traffic into the switch
  bool any_broken_carrier = false;
};

namespace {

/// A ChannelList trial undone when the scope ends.
class ListTrial {
 public:
  explicit ListTrial(ChannelList& list) : m_list(list), m_mark(list.begin_trial()) {}
  ~ListTrial() { m_list.rollback(m_mark); }
  ListTrial(const ListTrial&) = delete;
  ListTrial& operator=(const ListTrial&) = delete;

 private:
  ChannelList& m_list;
  std::size_t m_mark;
};

const std::vector<std::pair<std::string, Options>>& variant_table() {
  static const std::vector<std::pair<std::string, Options>> table = [] {
    std::vector<std::pair<std::string, Options>> t;
    Options o;
    o.start = Start::kAtSources;
    o.check = Check::kSingleTurn;
    t.emplace_back("e2e-single", o);
    o.check = Check::kWholePath;
    t.emplace_back("e2e-path", o);
    o = Options{};
    o.plugin = Plugin::kLocalReroute;
    o.plugin_check = Check::kSingleTurn;
    o.check = Check::kSingleTurn;
    t.emplace_back("lr-single", o);
    o.plugin_check = Check::kWholePath;
    t.emplace_back("lr-path", o);
    o.check = Check::kWholePath;
    t.emplace_back("lr-path-all", o);
    o.plugin = Plugin::kMeshCentre;
    t.emplace_back("mesh-plugin", o);
    // Ablation: the same searches without the upstream retry (one search
    // per broken switch): destination-based tables make that fail whenever
    // flows enter the switch from every direction (docs/reproduction/dqr.md).
    const std::size_t paper = t.size();
    for (std::size_t i = 0; i < paper; ++i) {
      Options x = t[i].second;
      x.retry_upstream = false;
      t.emplace_back(t[i].first + "-noretry", x);
    }
    // Extension, not in the paper: no plug-in, search from the switch at the
    // fault.
    t.emplace_back("local-search", Options{});
    return t;
  }();
  return table;
}

}  // namespace

const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, o] : variant_table()) n.push_back(name);
    return n;
  }();
  return names;
}

Options variant_options(const std::string& name) {
  for (const auto& [n, o] : variant_table())
    if (n == name) return o;
  std::string all;
  for (const auto& n : variant_names()) all += (all.empty() ? "" : ", ") + n;
  throw ConfigError(fmt::format("dqr: unknown variant '{}' (one of: {})", name, all));
}

void Engine::dest_state(NodeId d, DestState& st) const {
  const auto routers = static_cast<std::size_t>(m_topo.num_routers());
  st.status.assign(routers, 0);
  st.dist.assign(routers, 0);
  st.carrier.assign(routers, 0);
  st.layers.assign(routers, 0);
  if (st.feeders.size() != routers) st.feeders.assign(routers, {});
  for (auto& f : st.feeders) f.clear();
  st.any_broken_carrier = false;
  // Status and distance to the break, memoised along each walk (3 = on the
  // walk in progress: meeting it again is a loop).
  std::vector<RouterId> walk;
  for (RouterId r0 = 0; r0 < m_topo.num_routers(); ++r0) {
    if (st.status[static_cast<std::size_t>(r0)] != 0) continue;
    walk.clear();
    RouterId x = r0;
    signed char result = 2;
    int base = 0;
    for (;;) {
      const auto xi = static_cast<std::size_t>(x);
      if (st.status[xi] == 3) break;  // a loop: broken
      if (st.status[xi] != 0) {
        result = st.status[xi];
        base = st.dist[xi] + 1;
        break;
      }
      st.status[xi] = 3;
      walk.push_back(x);
      const PortId p = m_tables[xi][static_cast<std::size_t>(d)];
      if (p == kNone) break;
      const PortPeer& pp = m_topo.peer(x, p);
      if (pp.link != kNone && m_dead[static_cast<std::size_t>(pp.link)]) break;
      if (pp.kind == PortPeer::Kind::kNode) {
        result = pp.id == d ? 1 : 2;
        break;
      }
      if (pp.kind != PortPeer::Kind::kRouter) break;
      x = pp.id;
    }
    for (std::size_t i = walk.size(); i-- > 0;) {
      const auto wi = static_cast<std::size_t>(walk[i]);
      st.status[wi] = result;
      st.dist[wi] = base + static_cast<int>(walk.size() - 1 - i);
    }
  }
  // Carriers: every switch on the route of some flow to d, with the layers
  // of those flows (a walk stops where its layer is already marked: the
  // rest of the route has it too).
  for (NodeId s = 0; s < m_topo.num_nodes(); ++s) {
    if (!is_flow(s, d)) continue;
    RouterId x = m_topo.node_router(s);
    const std::uint32_t bit = 1u << m_layers.of(s, d, m_topo.num_nodes());
    while (!(st.layers[static_cast<std::size_t>(x)] & bit)) {
      st.carrier[static_cast<std::size_t>(x)] = 1;
      st.layers[static_cast<std::size_t>(x)] |= bit;
      const PortId p = m_tables[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)];
      if (p == kNone) break;
      const PortPeer& pp = m_topo.peer(x, p);
      if (pp.kind != PortPeer::Kind::kRouter || m_dead[static_cast<std::size_t>(pp.link)]) break;
      x = pp.id;
    }
  }
  for (RouterId r = 0; r < m_topo.num_routers(); ++r) {
    const auto ri = static_cast<std::size_t>(r);
    if (!st.carrier[ri]) continue;
    if (st.status[ri] == 2) st.any_broken_carrier = true;
    const PortId p = m_tables[ri][static_cast<std::size_t>(d)];
    if (p == kNone) continue;
    const PortPeer& pp = m_topo.peer(r, p);
    if (pp.kind != PortPeer::Kind::kRouter || m_dead[static_cast<std::size_t>(pp.link)]) continue;
    for (std::uint32_t m = st.layers[ri]; m != 0; m &= m - 1)
      st.feeders[static_cast<std::size_t>(pp.id)].push_back(layered(channel(r, p), __builtin_ctz(m)));
  }
}

int Engine::channel(RouterId r, PortId p) const {
  return link_channel(m_topo, r, p);
}

std::vector<std::pair<int, int>> Engine::traced_dependencies() const {
  std::set<std::pair<int, int>> deps;
  for (NodeId d = 0; d < m_topo.num_nodes(); ++d)
    for (NodeId s = 0; s < m_topo.num_nodes(); ++s) {
      if (!is_flow(s, d)) continue;
      int prev = -1;
      const int layer = m_layers.of(s, d, m_topo.num_nodes());
      follow_tables(m_topo, m_tables, m_dead, m_topo.node_router(s), d, [&](RouterId r, PortId p) {
        const int c = layered(channel(r, p), layer);
        if (prev >= 0) deps.emplace(prev, c);
        prev = c;
      });
    }
  return {deps.begin(), deps.end()};
}

std::size_t Engine::undelivered_flows() const {
  std::size_t n = 0;
  DestState st;
  for (NodeId d = 0; d < m_topo.num_nodes(); ++d) {
    dest_state(d, st);
    for (NodeId s = 0; s < m_topo.num_nodes(); ++s)
      n += is_flow(s, d) && st.status[static_cast<std::size_t>(m_topo.node_router(s))] != 1;
  }
  return n;
}

RouterId Engine::channel_head(int c) const {
  c = base_of(c);
  const Link& k = m_topo.link(c / 2);
  return (c % 2 == 0) ? static_cast<RouterId>(k.b) : k.a;
}

RouterId Engine::channel_tail(int c) const {
  c = base_of(c);
  const Link& k = m_topo.link(c / 2);
  return (c % 2 == 0) ? k.a : static_cast<RouterId>(k.b);
}

PortId Engine::channel_port(int c) const {
  c = base_of(c);
  const Link& k = m_topo.link(c / 2);
  return (c % 2 == 0) ? k.a_port : k.b_port;
}

std::vector<int> Engine::live_hops(RouterId root, LinkId without, RouterId without_switch) const {
  std::vector<int> hops(static_cast<std::size_t>(m_topo.num_routers()), -1);
  std::vector<RouterId> q{root};
  hops[static_cast<std::size_t>(root)] = 0;
  for (std::size_t i = 0; i < q.size(); ++i)
    for (PortId p = 0; p < m_topo.radix(q[i]); ++p) {
      const PortPeer& pp = m_topo.peer(q[i], p);
      if (pp.kind != PortPeer::Kind::kRouter || pp.link == without || pp.id == without_switch ||
          m_dead[static_cast<std::size_t>(pp.link)] || hops[static_cast<std::size_t>(pp.id)] >= 0)
        continue;
      hops[static_cast<std::size_t>(pp.id)] = hops[static_cast<std::size_t>(q[i])] + 1;
      q.push_back(pp.id);
    }
  return hops;
}

bool Engine::survivors_connected(LinkId without, RouterId without_switch) const {
  auto gone = [&](RouterId r) { return r == without_switch || m_dead_switch[static_cast<std::size_t>(r)]; };
  NodeId first = kNone;
  for (NodeId n = 0; n < m_topo.num_nodes() && first == kNone; ++n)
    if (!gone(m_topo.node_router(n))) first = n;
  if (first == kNone) return false;
  const std::vector<int> hops = live_hops(m_topo.node_router(first), without, without_switch);
  for (NodeId n = 0; n < m_topo.num_nodes(); ++n) {
    const RouterId r = m_topo.node_router(n);
    if (gone(r)) continue;
    const LinkId nl = m_topo.peer(r, m_topo.node_port(n)).link;
    if (hops[static_cast<std::size_t>(r)] < 0 ||
        (nl != kNone && (nl == without || m_dead[static_cast<std::size_t>(nl)])))
      return false;
  }
  return true;
}

bool Engine::connected_without(LinkId l) const {
  return survivors_connected(l, kNone);
}

bool Engine::connected_without_switch(RouterId r) const {
  if (r < 0 || r >= m_topo.num_routers() || m_dead_switch[static_cast<std::size_t>(r)]) return false;
  return survivors_connected(kNone, r);
}

void Engine::count_changes(const std::vector<std::vector<PortId>>& before, Result& res) const {
  for (std::size_t r = 0; r < m_tables.size(); ++r) {
    std::size_t last_block = std::numeric_limits<std::size_t>::max();
    for (std::size_t n = 0; n < m_tables[r].size(); ++n)
      if (m_tables[r][n] != before[r][n]) {
        ++res.entries_changed;
        res.blocks_changed += (n + 1) / 64 != last_block;
        last_block = (n + 1) / 64;
      }
  }
}

Engine::Engine(const Topology& topo, std::vector<std::vector<PortId>> tables, Layers layers, FlowSet flow_set)
    : m_topo(topo),
      m_tables(std::move(tables)),
      m_dead(static_cast<std::size_t>(topo.num_links()), 0),
      m_dead_switch(static_cast<std::size_t>(topo.num_routers()), 0),
      m_nodes(static_cast<std::size_t>(topo.num_nodes())),
      m_layers(std::move(layers)),
      m_list(0, {}) {
  const std::size_t flows = static_cast<std::size_t>(topo.num_nodes()) * static_cast<std::size_t>(topo.num_nodes());
  if (m_layers.count < 1 || m_layers.count > 32)
    throw ConfigError(fmt::format("dqr: {} virtual layers (1..32)", m_layers.count));
  if (!m_layers.of_flow.empty() && m_layers.of_flow.size() != flows)
    throw ConfigError(fmt::format("dqr: layers for {} flows, the fabric has {}", m_layers.of_flow.size(), flows));
  for (const std::uint8_t l : m_layers.of_flow)
    if (l >= m_layers.count) throw ConfigError(fmt::format("dqr: a flow in layer {} of {}", l, m_layers.count));
  if (static_cast<int>(m_tables.size()) != topo.num_routers())
    throw ConfigError(fmt::format("dqr: {} switch tables for {} switches", m_tables.size(), topo.num_routers()));
  for (const auto& row : m_tables)
    if (static_cast<int>(row.size()) != topo.num_nodes())
      throw ConfigError(fmt::format("dqr: a switch table has {} entries for {} nodes", row.size(), topo.num_nodes()));
  m_flow_count = m_nodes * (m_nodes - 1);
  if (flow_set == FlowSet::kRouted) {
    m_unrouted.assign(m_nodes * m_nodes, 0);
    DestState st;
    for (NodeId d = 0; d < topo.num_nodes(); ++d) {
      dest_state(d, st);
      for (NodeId s = 0; s < topo.num_nodes(); ++s)
        if (s != d && st.status[static_cast<std::size_t>(topo.node_router(s))] != 1) {
          m_unrouted[static_cast<std::size_t>(s) * m_nodes + static_cast<std::size_t>(d)] = 1;
          --m_flow_count;
        }
    }
  }
  if (const std::size_t u = undelivered_flows(); u > 0)
    throw ConfigError(fmt::format("dqr: the initial tables leave {} flows undelivered", u));
  try {
    m_list = ChannelList(m_layers.count * 2 * topo.num_links(), traced_dependencies());
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("dqr: the initial routing is not deadlock-free: {}", e.what()));
  }
  m_initial = std::make_shared<const Initial>(Initial{m_tables, m_layers.of_flow});
}

/// A path found by one search: its channels from y (layer 0 ids), its
/// cost, the new turns to enable in order (layered ids) and where it ends.
struct Engine::Found {
  double cost = std::numeric_limits<double>::infinity();
  std::vector<int> path;
  std::vector<std::pair<int, int>> turns;
  bool merges = false;  ///< joins an intact route (else reaches d's switch)
};

Result Engine::reconfigure(const std::vector<LinkId>& failed, const Options& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  Result res;
  for (LinkId l : failed) {
    if (l < 0 || l >= m_topo.num_links())
      throw ConfigError(fmt::format("dqr: link {} does not exist (0..{})", l, m_topo.num_links() - 1));
    m_dead[static_cast<std::size_t>(l)] = 1;
  }
  const auto before_tables = m_tables;
  const ChannelList before_list = m_list;
  const auto before_layers = m_layers.of_flow;
  Stretch stretch;
  auto finish = [&](bool ok, std::string why) {
    res.success = ok;
    res.failure = std::move(why);
    if (!ok) {
      m_tables = before_tables;
      m_list = before_list;
      m_layers.of_flow = before_layers;
    } else {
      count_changes(before_tables, res);
      if (stretch.flows > 0) res.stretch_mean = stretch.sum / static_cast<double>(stretch.flows);
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  // Section IV-B step 1: the flows the faults cut.
  res.flows_disconnected = undelivered_flows();
  if (!connected_without(kNone)) {
    res.disconnected = true;
    return finish(false, "the faults disconnect the fabric");
  }
  if (opt.plugin != Plugin::kNone) run_plugins(failed, opt, res);  // step 2
  // Steps 3 and 4, destination by destination.
  DestState st;
  for (NodeId d = 0; d < m_topo.num_nodes(); ++d) {
    dest_state(d, st);
    if (!st.any_broken_carrier) continue;
    if (std::string why = reroute_destination(d, opt, st, res, stretch); !why.empty()) return finish(false, why);
  }
  if (const std::size_t u = undelivered_flows(); u > 0)
    return finish(false, fmt::format("{} flows still undelivered", u));
  return finish(true, "");
}

void Engine::run_plugins(const std::vector<LinkId>& failed, const Options& opt, Result& res) {
  for (LinkId l : failed) {
    const Link& k = m_topo.link(l);
    // A plug-in is a detour around a link between two live switches; a
    // failed switch's links have none.
    if (k.b_is_node || m_dead_switch[static_cast<std::size_t>(k.a)] || m_dead_switch[static_cast<std::size_t>(k.b)])
      continue;
    run_plugin(k.a, k.a_port, opt, res);
    run_plugin(static_cast<RouterId>(k.b), k.b_port, opt, res);
  }
}

std::string Engine::reroute_destination(NodeId d, const Options& opt, DestState& st, Result& res, Stretch& stretch) {
  const int routers = m_topo.num_routers();
  const int nodes = m_topo.num_nodes();
  std::vector<NodeId> broken_sources;
  for (NodeId s = 0; s < nodes; ++s)
    if (is_flow(s, d) && st.status[static_cast<std::size_t>(m_topo.node_router(s))] == 2) broken_sources.push_back(s);
  std::vector<char> blocked(static_cast<std::size_t>(routers), 0);
  std::string last_failure;
  for (int guard = 0; guard <= 4 * routers * routers; ++guard) {
    if (guard > 0) dest_state(d, st);
    // The unblocked broken carrier nearest the point of failure along its
    // route: fixing it fixes every switch upstream that routes into it.
    // When its own detour is impossible (a switch feeding it would have to
    // U-turn, or a turn is refused), it is blocked and the switches that
    // feed it are tried first; any success unblocks everything.
    bool any_broken = false;
    const RouterId y = next_broken_carrier(st, blocked, opt.start == Start::kAtSources, any_broken);
    if (!any_broken) break;
    if (y == kNone)
      return fmt::format("destination {}: no deadlock-free path{}", m_topo.node_label(d),
                         last_failure.empty() ? "" : " (" + last_failure + ")");
    const auto& fy = st.feeders[static_cast<std::size_t>(y)];
    Found found = search_path(d, st, blocked, opt, y, st.layers[static_cast<std::size_t>(y)], fy);
    // Every other layer (section IV-A design choice 1): the flows through
    // y move there whole, so the turns of their routes up to y must be
    // enabled in that layer too.
    std::vector<std::pair<int, int>> prefix;
    if (found.path.empty() && opt.move_layers && m_layers.count > 1)
      search_other_layers(d, y, st, blocked, opt, found, prefix, res);
    if (found.path.empty()) {
      if (!opt.retry_upstream)
        return fmt::format("destination {}: no deadlock-free path from switch {}", m_topo.node_label(d),
                           m_topo.router_label(y));
      blocked[static_cast<std::size_t>(y)] = 1;
      last_failure = "none from switch " + m_topo.router_label(y);
      continue;
    }
    std::fill(blocked.begin(), blocked.end(), 0);
    // Enable the path's turns (step 3a) and write its entries (step 4).
    std::vector<std::pair<int, int>> turns = std::move(prefix);
    turns.insert(turns.end(), found.turns.begin(), found.turns.end());
    if (std::string why = apply_path(d, found, turns, res); !why.empty()) return why;
  }
  // Stretch of the rerouted flows: new hops over the shortest live hops.
  if (!broken_sources.empty()) {
    const std::vector<int> hops = live_hops(m_topo.node_router(d), kNone);
    for (NodeId s : broken_sources) {
      int n = 0;
      const RouterId sr = m_topo.node_router(s);
      if (!follow_tables(m_topo, m_tables, m_dead, sr, d, [&](RouterId, PortId) { ++n; }) ||
          hops[static_cast<std::size_t>(sr)] <= 0)
        continue;
      const double ratio = static_cast<double>(n) / hops[static_cast<std::size_t>(sr)];
      stretch.sum += ratio;
      ++stretch.flows;
      res.stretch_max = std::max(res.stretch_max, ratio);
    }
  }
  return "";
}

RouterId Engine::next_broken_carrier(const DestState& st, const std::vector<char>& blocked, bool from_sources,
                                     bool& any_broken) const {
  RouterId y = kNone;
  int y_dist = -1;
  any_broken = false;
  for (RouterId r = 0; r < m_topo.num_routers(); ++r) {
    const auto ri = static_cast<std::size_t>(r);
    if (!st.carrier[ri] || st.status[ri] != 2) continue;
    any_broken = true;
    if (blocked[ri]) continue;
    const int dist = st.dist[ri];
    if (y == kNone || (from_sources ? dist > y_dist : dist < y_dist)) {
      y = r;
      y_dist = dist;
    }
  }
  return y;
}

void Engine::search_other_layers(NodeId d, RouterId y, const DestState& st, const std::vector<char>& blocked,
                                 const Options& opt, Found& found, std::vector<std::pair<int, int>>& prefix,
                                 Result& res) {
  const int routers = m_topo.num_routers();
  const int nodes = m_topo.num_nodes();
  const auto& fy = st.feeders[static_cast<std::size_t>(y)];
  int move_to = -1;
  std::vector<RouterId> subtree;  // broken carriers whose route runs through y (y included)
  for (RouterId z = 0; z < routers; ++z) {
    if (!st.carrier[static_cast<std::size_t>(z)] || st.status[static_cast<std::size_t>(z)] != 2) continue;
    RouterId x = z;
    for (int hops = 0; x != y && x != kNone && hops <= routers; ++hops) {
      const PortId p = m_tables[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)];
      const PortPeer& pp = m_topo.peer(x, p);
      x = (p != kNone && pp.kind == PortPeer::Kind::kRouter && !m_dead[static_cast<std::size_t>(pp.link)]) ? pp.id
                                                                                                           : kNone;
    }
    if (x == y) subtree.push_back(z);
  }
  for (int layer = 0; layer < m_layers.count; ++layer) {
    std::vector<std::pair<int, int>> pre;
    for (RouterId z : subtree) {
      if (z == y) continue;
      const int out = channel(z, m_tables[static_cast<std::size_t>(z)][static_cast<std::size_t>(d)]);
      for (int f : st.feeders[static_cast<std::size_t>(z)]) {
        const std::pair<int, int> t{layered(base_of(f), layer), layered(out, layer)};
        if (std::find(pre.begin(), pre.end(), t) == pre.end()) pre.push_back(t);
      }
    }
    std::vector<int> fy_moved;
    for (int f : fy) {
      const int g = layered(base_of(f), layer);
      if (std::find(fy_moved.begin(), fy_moved.end(), g) == fy_moved.end()) fy_moved.push_back(g);
    }
    const std::size_t mark = m_list.begin_trial();
    bool ok = true;
    for (const auto& [u, v] : pre)
      if (!m_list.has_dependency(u, v) && m_list.enable(u, v) < 0) {
        ok = false;
        break;
      }
    if (ok) {
      Found f = search_path(d, st, blocked, opt, y, 1u << layer, fy_moved);
      if (!f.path.empty() && f.cost < found.cost) {
        found = std::move(f);
        prefix = pre;
        move_to = layer;
      }
    }
    m_list.rollback(mark);
  }
  if (move_to >= 0)
    for (RouterId z : subtree)
      for (NodeId s = 0; s < nodes; ++s)
        if (is_flow(s, d) && m_topo.node_router(s) == z) {
          auto& l = m_layers.of_flow[static_cast<std::size_t>(s) * static_cast<std::size_t>(nodes) + d];
          res.flows_moved += l != move_to;
          l = static_cast<std::uint8_t>(move_to);
        }
}

std::string Engine::apply_path(NodeId d, const Found& found, const std::vector<std::pair<int, int>>& turns,
                               Result& res) {
  for (const auto& [u, v] : turns) {
    if (m_list.has_dependency(u, v)) continue;
    const bool was_legal = m_list.legal(u, v);
    const int t = m_list.enable(u, v);
    if (t < 0) return fmt::format("destination {}: turn {} -> {} refused", m_topo.node_label(d), u, v);
    ++res.turns_enabled;
    res.turns_moved += !was_legal;
    res.channels_moved += static_cast<std::size_t>(t);
  }
  for (int k : found.path)
    m_tables[static_cast<std::size_t>(channel_tail(k))][static_cast<std::size_t>(d)] = channel_port(k);
  if (!found.merges)
    m_tables[static_cast<std::size_t>(channel_head(found.path.back()))][static_cast<std::size_t>(d)] =
        m_topo.node_port(d);
  return "";
}

Engine::Found Engine::search_path(NodeId d, const DestState& st, const std::vector<char>& blocked, const Options& opt,
                                  RouterId y, std::uint32_t mask0, const std::vector<int>& fy) {
  const int base_channels = 2 * m_topo.num_links();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  auto head = [this](int c) { return channel_head(c); };
  auto tail = [this](int c) { return channel_tail(c); };
  // The route of d from switch x as channels (x intact: it delivers).
  auto route_from = [&](RouterId x) {
    std::vector<int> r;
    follow_tables(m_topo, m_tables, m_dead, x, d, [&](RouterId a, PortId p) { r.push_back(channel(a, p)); });
    return r;
  };
  struct Label {
    double cost = kInf;
    int parent = -1;                         // previous channel, -1: leaves y
    std::vector<std::pair<int, int>> turns;  // new turns along the path, in order
    bool moved = false;                      // some turn needs the list reordered
    std::uint32_t mask = 0;                  // layers of the flows on the path
  };
  std::vector<Label> lab(static_cast<std::size_t>(base_channels));
  using QE = std::pair<double, int>;
  std::priority_queue<QE, std::vector<QE>, std::greater<>> pq;
  Found best;
  int best_end = -1;
  std::vector<std::pair<int, int>> best_merge;  // the merge's new turns
  // The label whose turns m_list carries (in a trial) while its
  // successors are checked, or -1: enabled once per expansion, not once
  // per successor.
  int prepared = -1;
  auto on_path = [&](int c, RouterId x) {
    for (int k = c; k >= 0; k = lab[static_cast<std::size_t>(k)].parent)
      if (tail(k) == x) return true;
    return false;
  };
  // Cost of the turns `need` after the label of `from` (or from y when
  // from < 0), or infinity when one cannot be enabled.
  auto turns_cost = [&](int from, const std::vector<std::pair<int, int>>& need, bool& moves) {
    moves = false;
    const Label* l = from >= 0 ? &lab[static_cast<std::size_t>(from)] : nullptr;
    const bool whole = opt.check == Check::kWholePath;
    // Whole-path check: the list as the path's earlier turns leave it, and
    // updated with each turn of this step. While every turn so far is
    // legal the order is unchanged and they ride along as extra
    // dependencies (they can still close a cycle with a later illegal
    // turn); once a turn reorders the list they are enabled in m_list
    // itself inside a trial, rolled back before returning.
    const ListTrial trial(m_list);
    bool applied = false;  // m_list carries the path's earlier turns
    std::vector<std::pair<int, int>> extra;
    if (whole && l != nullptr) {
      if (l->moved) {
        if (from != prepared)
          for (const auto& [u, v] : l->turns) m_list.enable(u, v);
        applied = true;
      } else {
        extra = l->turns;
      }
    }
    auto in_extra = [&](int u, int v) {
      return std::find(extra.begin(), extra.end(), std::pair<int, int>{u, v}) != extra.end();
    };
    double cost = 0;
    for (std::size_t i = 0; i < need.size(); ++i) {
      const auto [u, v] = need[i];
      if (m_list.has_dependency(u, v) || (!applied && in_extra(u, v))) continue;
      const bool legal = m_list.legal(u, v);
      if (legal) {
        cost += opt.legal_new;
      } else if (m_list.channels_to_move(u, v, applied ? nullptr : &extra).has_value()) {
        cost += opt.enable_cost;
        moves = true;
      } else {
        return kInf;
      }
      if (whole && i + 1 < need.size()) {
        if (legal && !applied) {
          extra.emplace_back(u, v);
        } else {
          if (!applied) {
            for (const auto& [a, b] : extra) m_list.enable(a, b);
            applied = true;
          }
          m_list.enable(u, v);
        }
      }
    }
    return cost;
  };
  auto relax = [&](int from, int c, double base, const std::vector<std::pair<int, int>>& need, std::uint32_t mask) {
    bool moves = false;
    const double tc = turns_cost(from, need, moves);
    if (tc == kInf) return;
    const double cost = base + 1.0 + tc;
    Label& l = lab[static_cast<std::size_t>(c)];
    if (cost >= l.cost) return;
    l.cost = cost;
    l.parent = from;
    l.turns = from >= 0 ? lab[static_cast<std::size_t>(from)].turns : std::vector<std::pair<int, int>>{};
    l.moved = (from >= 0 && lab[static_cast<std::size_t>(from)].moved) || moves;
    l.mask = mask;
    for (const auto& t : need)
      if (!m_list.has_dependency(t.first, t.second)) l.turns.push_back(t);
    pq.emplace(cost, c);
  };
  // The turns from c into n for every layer of `mask`.
  auto add_turns = [&](std::vector<std::pair<int, int>>& need, int c, int n, std::uint32_t mask) {
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
      const int layer = __builtin_ctz(m);
      need.emplace_back(layered(c, layer), layered(n, layer));
    }
  };
  for (PortId p = 0; p < m_topo.radix(y); ++p) {
    const int c = channel(y, p);
    if (c < 0 || m_dead[static_cast<std::size_t>(c / 2)]) continue;
    std::vector<std::pair<int, int>> need;
    bool uturn = false;
    for (int f : fy) {
      uturn |= (base_of(f) ^ 1) == c;
      need.emplace_back(f, layered(c, layer_of_channel(f)));
    }
    if (!uturn) relax(-1, c, 0.0, need, mask0);
  }
  while (!pq.empty()) {
    const auto [cost, c] = pq.top();
    pq.pop();
    const Label& lc = lab[static_cast<std::size_t>(c)];
    if (cost > lc.cost || cost >= best.cost) continue;
    const RouterId x = head(c);
    if (x == m_topo.node_router(d)) {
      best.cost = cost;
      best_end = c;
      best.merges = false;
      best_merge.clear();
      continue;
    }
    std::optional<ListTrial> prepared_trial;
    prepared = -1;
    if (opt.check == Check::kWholePath && lc.moved) {
      prepared_trial.emplace(m_list);
      for (const auto& [u, v] : lc.turns) m_list.enable(u, v);
      prepared = c;
    }
    if (st.status[static_cast<std::size_t>(x)] == 1) {
      // Merge into x's intact route: the turn into its entry, and in
      // layers that did not use that route before, its turns onwards.
      const int out = channel(x, m_tables[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)]);
      if (out == (c ^ 1)) continue;  // a U-turn
      std::vector<std::pair<int, int>> need;
      add_turns(need, c, out, lc.mask);
      // Layers whose flows already pass x have its onward turns.
      const std::uint32_t fresh = lc.mask & ~st.layers[static_cast<std::size_t>(x)];
      if (fresh != 0) {
        const std::vector<int> onward = route_from(x);
        for (std::size_t i = 0; i + 1 < onward.size(); ++i) add_turns(need, onward[i], onward[i + 1], fresh);
      }
      bool moves = false;
      const double tc = turns_cost(c, need, moves);
      if (tc == kInf || cost + tc >= best.cost) continue;
      best.cost = cost + tc;
      best_end = c;
      best.merges = true;
      best_merge.clear();
      for (const auto& t : need)
        if (!m_list.has_dependency(t.first, t.second)) best_merge.push_back(t);
      continue;
    }
    const bool carrier = st.carrier[static_cast<std::size_t>(x)] != 0;
    const std::uint32_t mask = lc.mask | (carrier ? st.layers[static_cast<std::size_t>(x)] : 0u);
    for (PortId p = 0; p < m_topo.radix(x); ++p) {
      const int n = channel(x, p);
      if (n < 0 || n == (c ^ 1) || m_dead[static_cast<std::size_t>(n / 2)] || on_path(c, head(n))) continue;
      if (head(n) == y || blocked[static_cast<std::size_t>(head(n))]) continue;
      std::vector<std::pair<int, int>> need;
      add_turns(need, c, n, lc.mask);
      bool uturn = false;
      if (carrier)
        for (int f : st.feeders[static_cast<std::size_t>(x)]) {
          if (base_of(f) == c) continue;
          uturn |= (base_of(f) ^ 1) == n;
          need.emplace_back(f, layered(n, layer_of_channel(f)));
        }
      if (!uturn) relax(c, n, cost, need, mask);
    }
  }
  if (best_end >= 0) {
    for (int k = best_end; k >= 0; k = lab[static_cast<std::size_t>(k)].parent) best.path.push_back(k);
    std::reverse(best.path.begin(), best.path.end());
    best.turns = lab[static_cast<std::size_t>(best_end)].turns;
    best.turns.insert(best.turns.end(), best_merge.begin(), best_merge.end());
  }
  return best;
}

Result Engine::fail_switch(RouterId r, const Options& opt) {
  if (r < 0 || r >= m_topo.num_routers())
    throw ConfigError(fmt::format("dqr: switch {} does not exist (0..{})", r, m_topo.num_routers() - 1));
  if (m_dead_switch[static_cast<std::size_t>(r)])
    throw ConfigError(fmt::format("dqr: switch {} has already failed", m_topo.router_label(r)));
  m_dead_switch[static_cast<std::size_t>(r)] = 1;
  // Its nodes go with it: their flows are lost, not rerouted.
  std::size_t lost = 0;
  if (m_unrouted.empty()) m_unrouted.assign(m_nodes * m_nodes, 0);
  for (NodeId n = 0; n < m_topo.num_nodes(); ++n) {
    if (m_topo.node_router(n) != r) continue;
    for (NodeId o = 0; o < m_topo.num_nodes(); ++o)
      for (const auto& [a, b] : {std::pair{n, o}, std::pair{o, n}})
        if (is_flow(a, b)) {
          m_unrouted[static_cast<std::size_t>(a) * m_nodes + static_cast<std::size_t>(b)] = 1;
          --m_flow_count;
          ++lost;
        }
  }
  std::vector<LinkId> links;
  for (PortId p = 0; p < m_topo.radix(r); ++p) {
    const LinkId l = m_topo.peer(r, p).link;
    if (l != kNone && !m_dead[static_cast<std::size_t>(l)]) links.push_back(l);
  }
  Result res = reconfigure(links, opt);
  res.flows_lost = lost;
  return res;
}

Result Engine::full_reroute() {
  const auto t0 = std::chrono::steady_clock::now();
  Result res;
  res.full_reroute = true;
  auto done = [&](std::string why) {
    res.success = why.empty();
    res.failure = std::move(why);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  res.flows_disconnected = undelivered_flows();
  if (!connected_without(kNone)) {
    res.disconnected = true;
    return done("the faults disconnect the fabric");
  }
  std::vector<std::vector<PortId>> fresh;
  try {
    fresh = updown_tables(m_topo, m_dead, m_dead_switch);
  } catch (const ConfigError& e) {
    return done(fmt::format("full reroute (up*/down*): {}", e.what()));
  }
  const auto before = m_tables;
  const auto before_layers = m_layers.of_flow;
  for (std::size_t r = 0; r < fresh.size(); ++r)
    if (m_dead_switch[r]) fresh[r] = before[r];  // a failed switch's table is never written
  m_tables = std::move(fresh);
  m_layers.of_flow.assign(m_layers.of_flow.size(), 0);
  if (const std::size_t u = undelivered_flows(); u > 0) {
    m_tables = before;
    m_layers.of_flow = before_layers;
    return done(fmt::format("full reroute (up*/down*) leaves {} flows undelivered", u));
  }
  // A static reconfiguration: the old dependencies are gone once the fabric
  // is drained, so the list restarts from the new ones (acyclic: up*/down*).
  m_list = ChannelList(m_layers.count * 2 * m_topo.num_links(), traced_dependencies());
  m_initial = std::make_shared<const Initial>(Initial{m_tables, m_layers.of_flow});
  count_changes(before, res);
  return done("");
}

Result Engine::restore(const std::vector<LinkId>& repaired) {
  const auto t0 = std::chrono::steady_clock::now();
  for (LinkId l : repaired) {
    if (l < 0 || l >= m_topo.num_links())
      throw ConfigError(fmt::format("dqr: link {} does not exist (0..{})", l, m_topo.num_links() - 1));
    if (!m_dead[static_cast<std::size_t>(l)])
      throw ConfigError(fmt::format("dqr: link {} has not failed", m_topo.link_label(l)));
    const Link& k = m_topo.link(l);
    const bool switch_dead =
        m_dead_switch[static_cast<std::size_t>(k.a)] || (!k.b_is_node && m_dead_switch[static_cast<std::size_t>(k.b)]);
    if (switch_dead) throw ConfigError(fmt::format("dqr: link {} belongs to a failed switch", m_topo.link_label(l)));
  }
  for (LinkId l : repaired) m_dead[static_cast<std::size_t>(l)] = 0;
  Result res;
  const auto before = m_tables;
  const Initial& init = *m_initial;
  const auto routers = static_cast<std::size_t>(m_topo.num_routers());
  auto init_layer = [&](std::size_t s, std::size_t d) {
    return init.layers.empty() ? 0 : static_cast<int>(init.layers[s * m_nodes + d]);
  };
  DestState st;
  std::vector<int> dist(routers);
  std::vector<RouterId> walk;
  for (NodeId d = 0; d < m_topo.num_nodes(); ++d) {
    const auto di = static_cast<std::size_t>(d);
    if (m_dead_switch[static_cast<std::size_t>(m_topo.node_router(d))]) continue;
    // Hops from each switch to d over its initial entries and live links
    // (-1: the initial route breaks), memoised along each walk (-2: on the
    // walk in progress).
    std::fill(dist.begin(), dist.end(), -3);
    for (RouterId r0 = 0; r0 < m_topo.num_routers(); ++r0) {
      walk.clear();
      RouterId x = r0;
      int base = -1;  // the distance of walk.back()
      for (;;) {
        int& dx = dist[static_cast<std::size_t>(x)];
        if (dx != -3) {  // known, or -2: a loop
          base = dx >= 0 ? dx + 1 : -1;
          break;
        }
        dx = -2;
        walk.push_back(x);
        const PortId p = init.tables[static_cast<std::size_t>(x)][di];
        if (p == kNone || m_dead_switch[static_cast<std::size_t>(x)]) break;
        const PortPeer& pp = m_topo.peer(x, p);
        if (pp.link != kNone && m_dead[static_cast<std::size_t>(pp.link)]) break;
        if (pp.kind == PortPeer::Kind::kNode) {
          base = pp.id == d ? 0 : -1;
          break;
        }
        if (pp.kind != PortPeer::Kind::kRouter) break;
        x = pp.id;
      }
      for (std::size_t i = walk.size(); i-- > 0;) {
        dist[static_cast<std::size_t>(walk[i])] = base;
        base = base >= 0 ? base + 1 : -1;
      }
    }
    dest_state(d, st);
    bool eligible = true;
    for (std::size_t r = 0; r < routers && eligible; ++r) eligible = !st.carrier[r] || dist[r] >= 0;
    for (NodeId s = 0; s < m_topo.num_nodes() && eligible; ++s)
      eligible = !is_flow(s, d) || m_layers.of(s, d, m_topo.num_nodes()) == init_layer(static_cast<std::size_t>(s), di);
    std::vector<RouterId> changed;
    for (std::size_t r = 0; r < routers; ++r)
      if (!m_dead_switch[r] && dist[r] >= 0 && m_tables[r][di] != init.tables[r][di])
        changed.push_back(static_cast<RouterId>(r));
    if (changed.empty()) continue;
    if (!eligible) {
      ++res.destinations_kept;
      continue;
    }
    std::vector<char> is_changed(routers, 0);
    for (RouterId r : changed) is_changed[static_cast<std::size_t>(r)] = 1;
    // Junction turns: a rerouted hop into a switch about to change, then
    // that switch's initial hop, in the flow's layer.
    std::set<std::pair<int, int>> junctions;
    for (NodeId s = 0; s < m_topo.num_nodes(); ++s) {
      if (!is_flow(s, d)) continue;
      const int layer = m_layers.of(s, d, m_topo.num_nodes());
      follow_tables(m_topo, m_tables, m_dead, m_topo.node_router(s), d, [&](RouterId x, PortId p) {
        const PortPeer& pp = m_topo.peer(x, p);
        if (pp.kind != PortPeer::Kind::kRouter || !is_changed[static_cast<std::size_t>(pp.id)]) return;
        const PortId q = init.tables[static_cast<std::size_t>(pp.id)][di];
        if (m_topo.peer(pp.id, q).kind != PortPeer::Kind::kRouter) return;
        junctions.emplace(layered(channel(x, p), layer), layered(channel(pp.id, q), layer));
      });
    }
    const ChannelList saved = m_list;
    bool refused = false;
    for (const auto& [u, v] : junctions)
      if (m_list.enable(u, v) < 0) {
        refused = true;
        break;
      }
    if (refused) {
      m_list = saved;
      ++res.destinations_kept;
      continue;
    }
    std::stable_sort(changed.begin(), changed.end(), [&](RouterId a2, RouterId b2) {
      return dist[static_cast<std::size_t>(a2)] < dist[static_cast<std::size_t>(b2)];
    });
    for (RouterId r : changed) {
      m_tables[static_cast<std::size_t>(r)][di] = init.tables[static_cast<std::size_t>(r)][di];
      res.writes.emplace_back(r, d);
    }
  }
  count_changes(before, res);
  res.success = true;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

void Engine::run_plugin(RouterId u, PortId up, const Options& opt, Result& res) {
  const int failed_c = channel(u, up);
  if (failed_c < 0) return;
  if (m_layers.count == 1) {
    run_plugin_layer(u, up, 0, opt, res);
    return;
  }
  // Several layers: a detour in each layer whose traffic used the link.
  const RouterId v = m_topo.peer(u, up).id;
  for (int layer = 0; layer < m_layers.count; ++layer) {
    bool used = false;
    const int f = layered(failed_c, layer);
    for (PortId p = 0; p < m_topo.radix(u) && !used; ++p) {
      const int c = channel(u, p);
      used = c >= 0 && m_list.has_dependency(layered(c ^ 1, layer), f);
    }
    for (PortId p = 0; p < m_topo.radix(v) && !used; ++p) {
      const int c = channel(v, p);
      used = c >= 0 && m_list.has_dependency(f, layered(c, layer));
    }
    if (used) run_plugin_layer(u, up, layer, opt, res);
  }
}

void Engine::run_plugin_layer(RouterId u, PortId up, int layer, const Options& opt, Result& res) {
  const int failed_c = channel(u, up);
  const RouterId v = m_topo.peer(u, up).id;
  auto live = [&](int c) { return c >= 0 && !m_dead[static_cast<std::size_t>(c / 2)]; };
  auto head = [this](int c) { return channel_head(c); };
  auto L = [&](int c) { return layered(c, layer); };
  // The traffic that used the link: the old dependencies into and out of it.
  std::vector<int> entry, exit;
  for (PortId p = 0; p < m_topo.radix(u); ++p) {
    const int c = channel(u, p);
    if (live(c) && m_list.has_dependency(L(c ^ 1), L(failed_c))) entry.push_back(c ^ 1);
  }
  for (PortId p = 0; p < m_topo.radix(v); ++p) {
    const int c = channel(v, p);
    if (live(c) && m_list.has_dependency(L(failed_c), L(c))) exit.push_back(c);
  }
  std::vector<int> detour;
  if (opt.plugin == Plugin::kMeshCentre) {
    const auto* cube = dynamic_cast<const KAryNCube*>(&m_topo);
    if (cube == nullptr || cube->torus() || cube->dimensions() != 2)
      throw ConfigError("dqr: the mesh plug-in needs a 2-D mesh (mesh:KxK)");
    const int dl = KAryNCube::dim_of(up);
    const int o = 1 - dl;
    const bool plus = 2 * cube->coord(u, o) <= cube->radix_of(o) - 1;  // towards the centre; + on the centre line
    const RouterId n1 = cube->neighbour(u, o, plus);
    const RouterId n2 = n1 == kNone ? kNone : cube->neighbour(n1, dl, KAryNCube::is_plus(up));
    if (n2 != kNone)
      detour = {channel(u, KAryNCube::port_of(o, plus)), channel(n1, up), channel(n2, KAryNCube::port_of(o, !plus))};
    for (int c : detour)
      if (!live(c)) detour.clear();
  } else {
    // The shortest detour u ~> v (hops, then turns to enable).
    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::vector<double> cost(static_cast<std::size_t>(2 * m_topo.num_links()), kInf);
    std::vector<int> parent(cost.size(), -1);
    using QE = std::pair<double, int>;
    std::priority_queue<QE, std::vector<QE>, std::greater<>> pq;
    auto turn = [&](int a, int b) {
      if (m_list.has_dependency(L(a), L(b))) return 0.0;
      if (m_list.legal(L(a), L(b))) return opt.legal_new;
      return m_list.channels_to_move(L(a), L(b)).has_value() ? opt.enable_cost : kInf;
    };
    for (PortId p = 0; p < m_topo.radix(u); ++p) {
      const int c = channel(u, p);
      if (!live(c) || c == failed_c) continue;
      cost[static_cast<std::size_t>(c)] = 1;
      pq.emplace(1.0, c);
    }
    int found = -1;
    while (!pq.empty()) {
      const auto [k, c] = pq.top();
      pq.pop();
      if (k > cost[static_cast<std::size_t>(c)]) continue;
      const RouterId x = head(c);
      if (x == v) {
        found = c;
        break;
      }
      if (x == u) continue;
      for (PortId p = 0; p < m_topo.radix(x); ++p) {
        const int n = channel(x, p);
        if (!live(n) || n == (c ^ 1)) continue;
        const double nk = k + 1.0 + turn(c, n);
        if (nk < cost[static_cast<std::size_t>(n)]) {
          cost[static_cast<std::size_t>(n)] = nk;
          parent[static_cast<std::size_t>(n)] = c;
          pq.emplace(nk, n);
        }
      }
    }
    for (int c = found; c >= 0; c = parent[static_cast<std::size_t>(c)]) detour.insert(detour.begin(), c);
  }
  if (detour.empty()) {
    ++res.plugin_refused;
    return;
  }
  std::vector<std::pair<int, int>> turns;
  for (int e : entry)
    if (e != (detour.front() ^ 1)) turns.emplace_back(L(e), L(detour.front()));
  for (std::size_t i = 0; i + 1 < detour.size(); ++i) turns.emplace_back(L(detour[i]), L(detour[i + 1]));
  for (int x : exit)
    if (x != (detour.back() ^ 1)) turns.emplace_back(L(detour.back()), L(x));
  if (opt.plugin_check == Check::kSingleTurn)
    for (const auto& [a, b] : turns)
      if (!m_list.has_dependency(a, b) && !m_list.legal(a, b) && !m_list.channels_to_move(a, b).has_value()) {
        ++res.plugin_refused;
        return;
      }
  ChannelList next = m_list;
  std::size_t enabled = 0, moved = 0, channels_moved = 0;
  for (const auto& [a, b] : turns) {
    if (next.has_dependency(a, b)) continue;
    const bool was_legal = next.legal(a, b);
    const int t = next.enable(a, b);
    if (t < 0) {
      ++res.plugin_refused;
      return;
    }
    ++enabled;
    moved += !was_legal;
    channels_moved += static_cast<std::size_t>(t);
  }
  m_list = std::move(next);
  ++res.plugin_detours;
  res.turns_enabled += enabled;
  res.turns_moved += moved;
  res.channels_moved += channels_moved;
}

TransitionCheck check_transition(const Topology& topo, const std::vector<std::vector<PortId>>& before,
                                 const std::vector<std::vector<PortId>>& after, const std::vector<char>& dead,
                                 const Layers& layers_before, const Layers& layers_after,
                                 const std::vector<char>& not_flows) {
  const int routers = topo.num_routers(), nodes = topo.num_nodes();
  auto is_flow = [&](NodeId s, NodeId d) {
    return s != d &&
           (not_flows.empty() || !not_flows[static_cast<std::size_t>(s) * static_cast<std::size_t>(nodes) + d]);
  };
  if (static_cast<int>(before.size()) != routers || static_cast<int>(after.size()) != routers)
    throw ConfigError(fmt::format("transition check: tables for {}/{} switches, the fabric has {}", before.size(),
                                  after.size(), routers));
  const int base = 2 * topo.num_links();
  const int count = std::max(layers_before.count, layers_after.count);
  auto channel = [&](RouterId r, PortId p) { return link_channel(topo, r, p); };
  // Turns of the old and the new tables alone, and of every mixed route.
  std::set<std::pair<int, int>> old_new, all;
  TransitionCheck out;
  std::vector<std::vector<char>> seen(static_cast<std::size_t>(routers));
  for (NodeId d = 0; d < nodes; ++d) {
    // Switch-level loop check: the graph of every switch's old and new next hop.
    std::vector<int> colour(static_cast<std::size_t>(routers), 0);
    std::function<bool(RouterId)> has_loop = [&](RouterId x) {
      colour[static_cast<std::size_t>(x)] = 1;
      for (const auto* t : {&before, &after}) {
        const PortId p = (*t)[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)];
        if (p == kNone) continue;
        const PortPeer& pp = topo.peer(x, p);
        if (pp.kind != PortPeer::Kind::kRouter || dead[static_cast<std::size_t>(pp.link)]) continue;
        const int c = colour[static_cast<std::size_t>(pp.id)];
        if (c == 1 || (c == 0 && has_loop(pp.id))) return true;
      }
      colour[static_cast<std::size_t>(x)] = 2;
      return false;
    };
    for (RouterId r = 0; r < routers && out.loop_free; ++r)
      if (colour[static_cast<std::size_t>(r)] == 0 && has_loop(r)) out.loop_free = false;
    // Mixed routes per layer: states (switch, channel it arrived by).
    for (int layer = 0; layer < count; ++layer) {
      const int off = layer * base;
      for (auto& v : seen) v.assign(static_cast<std::size_t>(base + 1), 0);
      std::vector<std::pair<RouterId, int>> stack;
      for (NodeId s = 0; s < nodes; ++s)
        if (is_flow(s, d) && (layers_before.of(s, d, nodes) == layer || layers_after.of(s, d, nodes) == layer))
          stack.emplace_back(topo.node_router(s), -1);
      while (!stack.empty()) {
        const auto [x, in] = stack.back();
        stack.pop_back();
        auto& sx = seen[static_cast<std::size_t>(x)][static_cast<std::size_t>(in + 1)];
        if (sx) continue;
        sx = 1;
        for (const auto* t : {&before, &after}) {
          const PortId p = (*t)[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)];
          if (p == kNone) continue;
          const PortPeer& pp = topo.peer(x, p);
          if (pp.kind != PortPeer::Kind::kRouter || dead[static_cast<std::size_t>(pp.link)]) continue;
          const int c = channel(x, p);
          if (in >= 0) all.emplace(off + in, off + c);
          stack.emplace_back(pp.id, c);
        }
      }
    }
  }
  // Old and new dependencies alone.
  for (const auto* t : {&before, &after}) {
    const Layers& ly = t == &before ? layers_before : layers_after;
    for (NodeId d = 0; d < nodes; ++d)
      for (NodeId s = 0; s < nodes; ++s) {
        if (!is_flow(s, d)) continue;
        const int off = ly.of(s, d, nodes) * base;
        int prev = -1;
        follow_tables(topo, *t, dead, topo.node_router(s), d, [&](RouterId r, PortId p) {
          const int c = off + channel(r, p);
          if (prev >= 0) old_new.emplace(prev, c);
          prev = c;
        });
      }
  }
  for (const auto& t : all) out.mixed_turns += old_new.count(t) == 0;
  all.insert(old_new.begin(), old_new.end());
  try {
    ChannelList(count * base, {all.begin(), all.end()});
  } catch (const std::invalid_argument&) {
    out.acyclic = false;
  }
  return out;
}

}  // namespace ftsim::routing::dqr
