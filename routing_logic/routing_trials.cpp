#include "routing_logic/routing_trials.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "common/thread_group.hpp"

namespace ftsim::routing {

WalkResult walk(const RoutingRelation& relation, const std::vector<std::uint64_t>& alive, NodeId s, NodeId d,
                int max_hops, std::vector<RerouteState>* reroute) {
  const Topology& t = relation.topology();
  WalkResult res;
  RouterId r = t.node_router(s);
  PortId in = t.node_port(s);
  if (!t.is_direct() && !(alive[r] >> in & 1U)) return res;  // source link down
  PacketHeader h;
  h.src = s;
  h.dst = d;
  res.links = t.is_direct() ? 0 : 1;
  bool injected = true;
  VcId vc = 0;
  RouteSet out;
  for (int hop = 0; hop < max_hops; ++hop) {
    RouteQuery q;
    q.router = r;
    q.in_port = in;
    q.in_vc = vc;
    q.injected_here = injected;
    q.header = &h;
    q.view.port_alive = alive[r];
    if (reroute != nullptr) q.view.mechanism.set(&(*reroute)[static_cast<std::size_t>(r)]);
    q.view.cycle = static_cast<std::uint64_t>(hop);
    out.clear();
    relation.route(q, out);
    if (out.size == 0) return res;
    const RouteCandidate& c = out.items[0];
    if (!(alive[r] >> c.port & 1U)) return res;
    const PortPeer& pp = t.peer(r, c.port);
    if (pp.kind == PortPeer::Kind::kNode) {
      res.delivered = pp.id == d;
      if (res.delivered) res.links += t.is_direct() ? 0 : 1;
      return res;
    }
    if (pp.kind != PortPeer::Kind::kRouter) return res;
    vc = c.vc_mask != 0 ? __builtin_ctz(c.vc_mask) : 0;
    relation.on_hop(h, r, c.port, vc);
    ++res.links;
    r = pp.id;
    in = pp.port;
    injected = false;
  }
  return res;
}

int live_distance(const Topology& t, const std::vector<std::uint64_t>& alive, NodeId s, NodeId d) {
  const RouterId rs = t.node_router(s);
  const RouterId rd = t.node_router(d);
  const int extra = t.is_direct() ? 0 : 2;
  if (!t.is_direct() && (!(alive[rs] >> t.node_port(s) & 1U) || !(alive[rd] >> t.node_port(d) & 1U))) return -1;
  std::vector<int> dist(t.num_routers(), -1);
  std::deque<RouterId> q{rs};
  dist[rs] = 0;
  while (!q.empty()) {
    const RouterId r = q.front();
    q.pop_front();
    if (r == rd) return dist[r] + extra;
    for (PortId p = 0; p < t.radix(r); ++p) {
      const PortPeer& pp = t.peer(r, p);
      if (pp.kind != PortPeer::Kind::kRouter || !(alive[r] >> p & 1U) || dist[pp.id] >= 0) continue;
      dist[pp.id] = dist[r] + 1;
      q.push_back(pp.id);
    }
  }
  return -1;
}

std::vector<SuccessRow> routing_success(const std::string& topology_spec, const std::vector<std::string>& algorithms,
                                        const std::vector<int>& fault_counts, long trials, std::uint64_t seed,
                                        int threads,
                                        const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  auto topo = make_topology(topology_spec);
  for (int f : fault_counts)
    if (f < 0 || f > topo->num_links())
      throw ConfigError("--faults: " + std::to_string(f) + " out of range 0.." + std::to_string(topo->num_links()) +
                        " (links of " + topo->spec() + ")");
  // Relations are configured once and shared read-only by the workers.
  std::vector<std::unique_ptr<RoutingRelation>> rels;
  for (const auto& a : algorithms) {
    if (a == "connectivity") {
      rels.emplace_back(nullptr);
      continue;
    }
    rels.push_back(make_routing(a == "shortest" ? "mikant-shortest" : a));
    rels.back()->configure(*topo, 1);
  }
  std::vector<SuccessRow> rows(fault_counts.size() * algorithms.size());
  auto work = [&](std::size_t fi) {
    const int f = fault_counts[fi];
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(f) * 1000003ULL + 17);
    std::vector<LinkId> links(topo->num_links());
    std::vector<long> ok(algorithms.size(), 0);
    std::vector<double> len(algorithms.size(), 0);
    std::uniform_int_distribution<NodeId> pick(0, topo->num_nodes() - 1);
    for (long tr = 0; tr < trials; ++tr) {
      const NodeId s = pick(rng);
      NodeId d = pick(rng);
      while (d == s) d = pick(rng);
      for (LinkId l = 0; l < topo->num_links(); ++l) links[l] = l;
      FaultSet fs;
      for (int i = 0; i < f; ++i) {  // partial Fisher-Yates: f distinct links
        std::uniform_int_distribution<int> j(i, topo->num_links() - 1);
        std::swap(links[i], links[j(rng)]);
        fs.links.push_back(links[i]);
      }
      const auto alive = alive_port_masks(*topo, fs);
      for (std::size_t a = 0; a < algorithms.size(); ++a) {
        int l = -1;
        if (rels[a] == nullptr) {
          l = live_distance(*topo, alive, s, d);
        } else {
          const WalkResult w = walk(*rels[a], alive, s, d);
          if (w.delivered) l = w.links;
        }
        if (l >= 0) {
          ++ok[a];
          len[a] += l;
        }
      }
    }
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      SuccessRow& r = rows[fi * algorithms.size() + a];
      r.algorithm = algorithms[a];
      r.faults = f;
      r.trials = trials;
      r.success_ratio = trials > 0 ? static_cast<double>(ok[a]) / static_cast<double>(trials) : 0.0;
      r.mean_path_length = ok[a] > 0 ? len[a] / static_cast<double>(ok[a]) : 0.0;
    }
  };
  ftsim::ThreadGroup pool;
  std::size_t next = 0;
  std::uint64_t finished = 0;
  std::mutex m;
  for (int i = 0; i < std::max(1, threads); ++i)
    pool.spawn([&] {
      for (;;) {
        std::size_t fi;
        {
          std::lock_guard<std::mutex> lock(m);
          if (next >= fault_counts.size()) return;
          fi = next++;
        }
        work(fi);
        std::lock_guard<std::mutex> lock(m);
        ++finished;
        if (progress) progress(finished, fault_counts.size());
      }
    });
  pool.join();
  return rows;
}

}  // namespace ftsim::routing
