#include "routing_logic/dqr.hpp"

#include "routing_logic/lft_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <queue>
#include <set>

namespace ftsim::routing::dqr {

namespace {

/// Dependencies of flows towards one destination: where each switch's d
/// traffic comes from.
struct DestState {
  std::vector<signed char> status;        // 1 delivers over live links, 2 broken (dead link, no entry, loop)
  std::vector<char> carrier;              // some flow to d passes this switch
  std::vector<std::vector<int>> feeders;  // channels carrying d traffic into the switch
};

}  // namespace

int Engine::channel(RouterId r, PortId p) const {
  const PortPeer& pp = m_topo.peer(r, p);
  if (pp.kind != PortPeer::Kind::kRouter || pp.link == kNone) return -1;
  return 2 * pp.link + (m_topo.link(pp.link).a == r ? 0 : 1);
}

std::vector<std::pair<int, int>> Engine::traced_dependencies() const {
  std::set<std::pair<int, int>> deps;
  for (NodeId d = 0; d < m_topo.num_nodes(); ++d)
    for (NodeId s = 0; s < m_topo.num_nodes(); ++s) {
      if (s == d) continue;
      int prev = -1;
      follow_tables(m_topo, m_tables, m_dead, m_topo.node_router(s), d, [&](RouterId r, PortId p) {
        const int c = channel(r, p);
        if (prev >= 0) deps.emplace(prev, c);
        prev = c;
      });
    }
  return {deps.begin(), deps.end()};
}

std::size_t Engine::undelivered_flows() const {
  std::size_t n = 0;
  for (NodeId d = 0; d < m_topo.num_nodes(); ++d)
    for (NodeId s = 0; s < m_topo.num_nodes(); ++s)
      if (s != d && !follow_tables(m_topo, m_tables, m_dead, m_topo.node_router(s), d, [](RouterId, PortId) {})) ++n;
  return n;
}

Engine::Engine(const Topology& topo, std::vector<std::vector<PortId>> tables)
    : m_topo(topo),
      m_tables(std::move(tables)),
      m_dead(static_cast<std::size_t>(topo.num_links()), 0),
      m_list(2 * topo.num_links(), {}) {
  if (static_cast<int>(m_tables.size()) != topo.num_routers())
    throw ConfigError(fmt::format("dqr: {} switch tables for {} switches", m_tables.size(), topo.num_routers()));
  for (const auto& row : m_tables)
    if (static_cast<int>(row.size()) != topo.num_nodes())
      throw ConfigError(fmt::format("dqr: a switch table has {} entries for {} nodes", row.size(), topo.num_nodes()));
  if (const std::size_t u = undelivered_flows(); u > 0)
    throw ConfigError(fmt::format("dqr: the initial tables leave {} flows undelivered", u));
  try {
    m_list = ChannelList(2 * topo.num_links(), traced_dependencies());
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("dqr: the initial routing is not deadlock-free: {}", e.what()));
  }
}

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
  auto finish = [&](bool ok, std::string why) {
    res.success = ok;
    res.failure = std::move(why);
    if (!ok) {
      m_tables = before_tables;
      m_list = before_list;
    } else {
      for (std::size_t r = 0; r < m_tables.size(); ++r)
        for (std::size_t n = 0; n < m_tables[r].size(); ++n)
          res.entries_changed += m_tables[r][n] != before_tables[r][n];
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  res.flows_disconnected = undelivered_flows();
  {
    // A fault set that splits the fabric has no answer: report it.
    std::vector<char> seen(static_cast<std::size_t>(m_topo.num_routers()), 0);
    std::vector<RouterId> stack{m_topo.node_router(0)};
    seen[static_cast<std::size_t>(stack[0])] = 1;
    while (!stack.empty()) {
      const RouterId r = stack.back();
      stack.pop_back();
      for (PortId p = 0; p < m_topo.radix(r); ++p) {
        const PortPeer& pp = m_topo.peer(r, p);
        if (pp.kind != PortPeer::Kind::kRouter || m_dead[static_cast<std::size_t>(pp.link)] ||
            seen[static_cast<std::size_t>(pp.id)])
          continue;
        seen[static_cast<std::size_t>(pp.id)] = 1;
        stack.push_back(pp.id);
      }
    }
    for (NodeId n = 0; n < m_topo.num_nodes(); ++n)
      if (!seen[static_cast<std::size_t>(m_topo.node_router(n))] ||
          (m_topo.peer(m_topo.node_router(n), m_topo.node_port(n)).link != kNone &&
           m_dead[static_cast<std::size_t>(m_topo.peer(m_topo.node_router(n), m_topo.node_port(n)).link)])) {
        res.disconnected = true;
        return finish(false, fmt::format("the faults disconnect the fabric: {} is unreachable from {}",
                                         m_topo.node_label(n), m_topo.node_label(0)));
      }
  }
  const int routers = m_topo.num_routers();
  const int channels = m_list.num_channels();
  auto head = [&](int c) {
    const Link& k = m_topo.link(c / 2);
    return (c % 2 == 0) ? static_cast<RouterId>(k.b) : k.a;
  };
  auto tail = [&](int c) {
    const Link& k = m_topo.link(c / 2);
    return (c % 2 == 0) ? k.a : static_cast<RouterId>(k.b);
  };
  auto port_of = [&](int c) {
    const Link& k = m_topo.link(c / 2);
    return (c % 2 == 0) ? k.a_port : k.b_port;
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();

  for (NodeId d = 0; d < m_topo.num_nodes(); ++d) {
    std::vector<char> blocked(static_cast<std::size_t>(routers), 0);
    std::string last_failure;
    for (int guard = 0; guard <= 4 * routers * routers; ++guard) {
      // Where d's traffic runs now, and which carriers are broken.
      DestState st;
      st.status.assign(static_cast<std::size_t>(routers), 0);
      st.carrier.assign(static_cast<std::size_t>(routers), 0);
      st.feeders.assign(static_cast<std::size_t>(routers), {});
      for (RouterId r = 0; r < routers; ++r)
        st.status[static_cast<std::size_t>(r)] =
            follow_tables(m_topo, m_tables, m_dead, r, d, [](RouterId, PortId) {}) ? 1 : 2;
      std::set<std::pair<RouterId, int>> fed;
      for (NodeId s = 0; s < m_topo.num_nodes(); ++s) {
        if (s == d) continue;
        RouterId at = m_topo.node_router(s);
        st.carrier[static_cast<std::size_t>(at)] = 1;
        follow_tables(m_topo, m_tables, m_dead, at, d, [&](RouterId r, PortId p) {
          const int c = channel(r, p);
          const RouterId next = m_topo.peer(r, p).id;
          st.carrier[static_cast<std::size_t>(next)] = 1;
          if (fed.emplace(next, c).second) st.feeders[static_cast<std::size_t>(next)].push_back(c);
        });
      }
      // The unblocked broken carrier nearest the point of failure along its
      // route: fixing it fixes every switch upstream that routes into it.
      // When its own detour is impossible (a switch feeding it would have to
      // U-turn, or a turn is refused), it is blocked and the switches that
      // feed it are tried first; any success unblocks everything.
      RouterId y = kNone;
      int y_dist = std::numeric_limits<int>::max();
      bool any_broken = false;
      for (RouterId r = 0; r < routers; ++r) {
        if (!st.carrier[static_cast<std::size_t>(r)] || st.status[static_cast<std::size_t>(r)] != 2) continue;
        any_broken = true;
        if (blocked[static_cast<std::size_t>(r)]) continue;
        int dist = 0;
        follow_tables(m_topo, m_tables, m_dead, r, d, [&](RouterId, PortId) { ++dist; });
        if (dist < y_dist) {
          y = r;
          y_dist = dist;
        }
      }
      if (!any_broken) break;
      if (y == kNone)
        return finish(false, fmt::format("destination {}: no deadlock-free path{}", m_topo.node_label(d),
                                         last_failure.empty() ? "" : " (" + last_failure + ")"));
      // Dijkstra over channels from y (section IV-B step 3).
      struct Label {
        double cost = kInf;
        int parent = -1;                         // previous channel, -1: leaves y
        std::vector<std::pair<int, int>> turns;  // new turns along the path, in order
        bool moved = false;                      // some turn needs the list reordered
      };
      std::vector<Label> lab(static_cast<std::size_t>(channels));
      using QE = std::pair<double, int>;
      std::priority_queue<QE, std::vector<QE>, std::greater<>> pq;
      int best_end = -1;
      double best_cost = kInf;
      int best_merge_channel = -1;  // channel the path merges into (x's entry), or -1: delivers
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
        // updated with each turn of this step; copied only when it differs.
        std::optional<ChannelList> local;
        if (whole && l != nullptr && l->moved) {
          local = m_list;
          for (const auto& [u, v] : l->turns) local->enable(u, v);
        }
        double cost = 0;
        for (std::size_t i = 0; i < need.size(); ++i) {
          const auto [u, v] = need[i];
          const ChannelList& now = local ? *local : m_list;
          if (now.has_dependency(u, v)) continue;
          if (now.legal(u, v)) {
            cost += opt.legal_new;
          } else if (now.channels_to_move(u, v).has_value()) {
            cost += opt.enable_cost;
            moves = true;
          } else {
            return kInf;
          }
          if (whole && i + 1 < need.size()) {
            if (!local) local = m_list;
            local->enable(u, v);
          }
        }
        return cost;
      };
      auto relax = [&](int from, int c, double base, const std::vector<std::pair<int, int>>& need) {
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
        for (const auto& t : need)
          if (!m_list.has_dependency(t.first, t.second)) l.turns.push_back(t);
        pq.emplace(cost, c);
      };
      const auto& fy = st.feeders[static_cast<std::size_t>(y)];
      for (PortId p = 0; p < m_topo.radix(y); ++p) {
        const int c = channel(y, p);
        if (c < 0 || m_dead[static_cast<std::size_t>(c / 2)]) continue;
        std::vector<std::pair<int, int>> need;
        bool uturn = false;
        for (int f : fy) {
          uturn |= (f ^ 1) == c;
          need.emplace_back(f, c);
        }
        if (!uturn) relax(-1, c, 0.0, need);
      }
      while (!pq.empty()) {
        const auto [cost, c] = pq.top();
        pq.pop();
        if (cost > lab[static_cast<std::size_t>(c)].cost || cost >= best_cost) continue;
        const RouterId x = head(c);
        if (x == m_topo.node_router(d)) {
          best_cost = cost;
          best_end = c;
          best_merge_channel = -1;
          continue;
        }
        if (st.status[static_cast<std::size_t>(x)] == 1) {
          // Merge into x's intact route: the turn into its entry.
          const int out = channel(x, m_tables[static_cast<std::size_t>(x)][static_cast<std::size_t>(d)]);
          if (out == (c ^ 1)) continue;  // a U-turn
          bool moves = false;
          const double tc = turns_cost(c, {{c, out}}, moves);
          if (tc == kInf || cost + tc >= best_cost) continue;
          best_cost = cost + tc;
          best_end = c;
          best_merge_channel = out;
          continue;
        }
        for (PortId p = 0; p < m_topo.radix(x); ++p) {
          const int n = channel(x, p);
          if (n < 0 || n == (c ^ 1) || m_dead[static_cast<std::size_t>(n / 2)] || on_path(c, head(n))) continue;
          if (head(n) == y || blocked[static_cast<std::size_t>(head(n))]) continue;
          std::vector<std::pair<int, int>> need{{c, n}};
          bool uturn = false;
          if (st.carrier[static_cast<std::size_t>(x)])
            for (int f : st.feeders[static_cast<std::size_t>(x)]) {
              if (f == c) continue;
              uturn |= (f ^ 1) == n;
              need.emplace_back(f, n);
            }
          if (!uturn) relax(c, n, cost, need);
        }
      }
      if (best_end < 0) {
        blocked[static_cast<std::size_t>(y)] = 1;
        last_failure = "none from switch " + m_topo.router_label(y);
        continue;
      }
      std::fill(blocked.begin(), blocked.end(), 0);
      // Enable the path's turns (step 3a) and write its entries (step 4).
      std::vector<std::pair<int, int>> turns = lab[static_cast<std::size_t>(best_end)].turns;
      if (best_merge_channel >= 0 && !m_list.has_dependency(best_end, best_merge_channel))
        turns.emplace_back(best_end, best_merge_channel);
      for (const auto& [u, v] : turns) {
        if (m_list.has_dependency(u, v)) continue;
        const bool was_legal = m_list.legal(u, v);
        const int t = m_list.enable(u, v);
        if (t < 0)
          return finish(false, fmt::format("destination {}: turn {} -> {} refused", m_topo.node_label(d), u, v));
        ++res.turns_enabled;
        res.turns_moved += !was_legal;
        res.channels_moved += static_cast<std::size_t>(t);
      }
      for (int k = best_end; k >= 0; k = lab[static_cast<std::size_t>(k)].parent)
        m_tables[static_cast<std::size_t>(tail(k))][static_cast<std::size_t>(d)] = port_of(k);
      if (best_merge_channel < 0)
        m_tables[static_cast<std::size_t>(head(best_end))][static_cast<std::size_t>(d)] = m_topo.node_port(d);
    }
  }
  if (const std::size_t u = undelivered_flows(); u > 0)
    return finish(false, fmt::format("{} flows still undelivered", u));
  return finish(true, "");
}

}  // namespace ftsim::routing::dqr
