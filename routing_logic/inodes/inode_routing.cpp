#include "routing_logic/inodes/inode_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "common/thread_group.hpp"
#include "routing_logic/dor.hpp"

namespace ftsim::routing {

using inodes::Route;
using inodes::Segment;

void InodeRouting::check_topology(const Topology& topo) const {
  if (dynamic_cast<const KAryNCube*>(&topo) == nullptr)
    throw ConfigError(fmt::format("routing '{}' needs a mesh or torus topology, got {}", name(), topo.spec()));
}

void InodeRouting::on_configure() {
  m_cube = static_cast<const KAryNCube*>(&topology());
  m_geo = std::make_unique<inodes::CubeGeometry>(*m_cube);
  m_direct.resize(static_cast<std::size_t>(m_cube->num_nodes()));
  for (NodeId d = 0; d < m_cube->num_nodes(); ++d) {
    Route& r = m_direct[static_cast<std::size_t>(d)];
    r.count = 1;
    r.segments[0].to = d;
  }
  set_static_faults(FaultSet{});
}

bool InodeRouting::needs_bubble() const {
  return m_cube != nullptr && m_cube->torus();
}

void InodeRouting::set_static_faults(const FaultSet& faults) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<LinkId> links = faults.links;
  for (RouterId r : faults.routers)
    for (PortId p = 1; p < m_cube->radix(r); ++p)
      if (m_cube->peer(r, p).kind == PortPeer::Kind::kRouter) links.push_back(m_cube->peer(r, p).link);
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  const inodes::FaultyLinks fl(*m_geo, links);
  // A dead router's node neither sends nor receives: searching routes to or
  // from it can only fail, after trying every option (this made one node fault
  // take 19 s on a 4x4x4 torus against 0.013 s for a link fault).
  std::vector<char> dead(static_cast<std::size_t>(m_cube->num_nodes()), 0);
  for (RouterId r : faults.routers) dead[static_cast<std::size_t>(r)] = 1;
  // Pairs in different components of the surviving links have no route
  // either (a node whose links all failed): they are unroutable without a
  // search.
  std::vector<int> comp(static_cast<std::size_t>(m_cube->num_nodes()), -1);
  for (NodeId root = 0; root < m_cube->num_nodes(); ++root) {
    if (comp[static_cast<std::size_t>(root)] >= 0) continue;
    std::vector<NodeId> stack{root};
    comp[static_cast<std::size_t>(root)] = root;
    while (!stack.empty()) {
      const NodeId r = stack.back();
      stack.pop_back();
      for (PortId p = 1; p < m_cube->radix(r); ++p) {
        const PortPeer& pp = m_cube->peer(r, p);
        if (pp.kind != PortPeer::Kind::kRouter || fl.faulty(pp.link) || comp[static_cast<std::size_t>(pp.id)] >= 0)
          continue;
        comp[static_cast<std::size_t>(pp.id)] = root;
        stack.push_back(pp.id);
      }
    }
  }
  m_routes.clear();
  m_unroutable.clear();
  m_affected = 0;
  m_by_category = {};
  const int n = m_cube->num_nodes();
  const int threads = std::max(1, std::min(static_cast<int>(std::thread::hardware_concurrency()), 16));
  struct Found {
    NodeId s, d;
    bool ok;
    Route r;
  };
  std::vector<std::vector<Found>> per(static_cast<std::size_t>(threads));
  if (!links.empty()) {
    ftsim::ThreadGroup pool;
    for (int t = 0; t < threads; ++t)
      pool.spawn([&, t] {
        for (NodeId s = t; s < n; s += threads)
          for (NodeId d = 0; d < n; ++d) {
            if (s == d || dead[static_cast<std::size_t>(s)] || dead[static_cast<std::size_t>(d)] ||
                fl.adaptive_clear(s, d))
              continue;
            Found f{s, d, false, {}};
            if (comp[static_cast<std::size_t>(s)] == comp[static_cast<std::size_t>(d)])
              f.ok = inodes::find_route(*m_geo, m_mech, fl, s, d, f.r);
            per[static_cast<std::size_t>(t)].push_back(f);
          }
      });
    pool.join();
  }
  for (const auto& v : per)
    for (const Found& f : v) {
      ++m_affected;
      if (f.ok) {
        m_routes.emplace(pair_key(f.s, f.d), f.r);
        ++m_by_category[static_cast<std::size_t>(inodes::category_index(f.r.key))];
      } else {
        m_unroutable.insert(pair_key(f.s, f.d));
      }
    }
  m_compute_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const Route* InodeRouting::route_of(NodeId src, NodeId dst) const {
  if (!m_routes.empty() || !m_unroutable.empty()) {
    const std::uint64_t k = pair_key(src, dst);
    if (const auto it = m_routes.find(k); it != m_routes.end()) return &it->second;
    if (m_unroutable.count(k)) return nullptr;
  }
  return &m_direct[static_cast<std::size_t>(dst)];
}

void InodeRouting::position(const Route& rt, const PacketHeader& h, RouterId r, int& seg, int& step, int& hops) const {
  const auto s = h.state.get<InodeHeader>();
  seg = s.subpath;
  step = s.misroute_step;
  hops = s.step_hops;
  while (seg < rt.count - 1 && step >= rt.segments[static_cast<std::size_t>(seg)].misroute_steps &&
         r == rt.segments[static_cast<std::size_t>(seg)].to) {
    ++seg;
    step = 0;
    hops = 0;
  }
}

PortId InodeRouting::deterministic_port(const DimDirection* way, int min_dir) const {
  const int dir = m_geo->deterministic_direction(way, inodes::uses_direction_order(m_mech), min_dir);
  if (dir < 0) return kNone;
  const int n = m_cube->dimensions();
  return KAryNCube::port_of(dir % n, dir < n);
}

void InodeRouting::route(const RouteQuery& q, RouteSet& out) const {
  const PacketHeader& h = *q.header;
  const Route* rt = route_of(h.src, h.dst);
  if (rt == nullptr) return;  // no fault-free route: dropped, counted by the router
  int seg = 0, step = 0, hops = 0;
  position(*rt, h, q.router, seg, step, hops);
  const Segment& s = rt->segments[static_cast<std::size_t>(seg)];
  const bool misrouting = step < s.misroute_steps;
  if (!misrouting && seg == rt->count - 1 && q.router == h.dst) {
    out.add(RouteCandidate{KAryNCube::kLocalPort, 1U, 0, false});
    return;
  }
  const std::uint32_t esc = 1U << escape_vc(seg, misrouting);
  const std::uint32_t adaptive = adaptive_vcs();
  // Staying in the same ring on the same escape VC needs one free buffer;
  // anything else (injection, from an adaptive VC or another subpath's escape
  // VC, a turn) enters a ring and needs two (bubble flow control).
  auto enters_ring = [&](PortId p) {
    if (!m_cube->torus()) return false;  // meshes need no bubble: the escape CDG is acyclic
    const bool straight = !q.injected_here && q.in_vc == escape_vc(seg, misrouting) &&
                          q.in_port == KAryNCube::port_of(KAryNCube::dim_of(p), !KAryNCube::is_plus(p));
    return !straight;
  };
  auto alive = [&](PortId p) { return p != kNone && (q.view.port_alive >> p & 1U); };
  if (misrouting) {
    const int dir = s.misroute[static_cast<std::size_t>(step)].direction;
    const int nd = m_cube->dimensions();
    const PortId p = KAryNCube::port_of(dir % nd, dir < nd);
    if (!alive(p)) return;
    if (adaptive) out.add(RouteCandidate{p, adaptive, 0, false});
    out.add(RouteCandidate{p, esc, 1, enters_ring(p)});
    return;
  }
  const NodeId target = s.to;
  // After a prefix the rest continues the direction order (paper's rule).
  const int min_dir = inodes::rest_min_direction(m_mech, s);
  // Each dimension's minimal way to the target, once for both the
  // deterministic (escape) hop and the adaptive ones (issue 54).
  const int nd = m_cube->dimensions();
  const auto way = dim_directions(*m_cube, q.router, target);
  const PortId det = deterministic_port(way.data(), min_dir);
  if (s.deterministic) {
    if (!alive(det)) return;
    if (adaptive) out.add(RouteCandidate{det, adaptive, 0, false});
    out.add(RouteCandidate{det, esc, 1, enters_ring(det)});
    return;
  }
  if (adaptive) {
    for (int d = 0; d < nd; ++d) {
      const int dir = way[static_cast<std::size_t>(d)].sign;
      if (dir == 0) continue;
      if (way[static_cast<std::size_t>(d)].tie) {
        // Both ways are minimal; d+ only while the order still allows it.
        const PortId plus = KAryNCube::port_of(d, true), minus = KAryNCube::port_of(d, false);
        if (d >= min_dir && alive(plus)) out.add(RouteCandidate{plus, adaptive, 0, false});
        if (alive(minus)) out.add(RouteCandidate{minus, adaptive, 0, false});
        continue;
      }
      const PortId p = KAryNCube::port_of(d, dir > 0);
      if (alive(p)) out.add(RouteCandidate{p, adaptive, 0, false});
    }
  }
  if (alive(det)) out.add(RouteCandidate{det, esc, 1, enters_ring(det)});
}

void InodeRouting::on_hop(PacketHeader& h, RouterId r, PortId /*port*/, VcId /*vc*/) const {
  const Route* rt = route_of(h.src, h.dst);
  if (rt == nullptr) return;
  // A route of one subpath without misroute steps (every pair's route
  // without faults): the state below would be written back as read.
  if (rt->count == 1 && rt->segments[0].misroute_steps == 0 && h.state.get<InodeHeader>().subpath == 0) return;
  int seg = 0, step = 0, hops = 0;
  position(*rt, h, r, seg, step, hops);
  const Segment& s = rt->segments[static_cast<std::size_t>(seg)];
  if (step < s.misroute_steps && ++hops == s.misroute[static_cast<std::size_t>(step)].hops) {
    ++step;
    hops = 0;
  }
  h.state.set(
      InodeHeader{static_cast<std::uint8_t>(seg), static_cast<std::uint8_t>(step), static_cast<std::uint8_t>(hops)});
}

int InodeRouting::header_overhead_flits(NodeId src, NodeId dst, int flit_bytes) const {
  // The first subheader (destination, I bit, misroute and D fields) is the
  // packet's own header; each intermediate node adds one subheader (Figure 8).
  const Route* rt = route_of(src, dst);
  if (rt == nullptr || rt->count <= 1) return 0;
  const int bits = (rt->count - 1) * inodes::subheader_bits(m_mech, m_cube->num_nodes());
  return (bits + 8 * flit_bytes - 1) / (8 * flit_bytes);
}

int InodeRouting::max_header_overhead_flits(int flit_bytes) const {
  const int bits = m_mech.max_intermediates * inodes::subheader_bits(m_mech, m_cube->num_nodes());
  return (bits + 8 * flit_bytes - 1) / (8 * flit_bytes);
}

std::vector<std::pair<std::string, double>> InodeRouting::report() const {
  std::vector<std::pair<std::string, double>> r;
  r.emplace_back("affected_pairs", static_cast<double>(m_affected));
  r.emplace_back("unroutable_pairs", static_cast<double>(m_unroutable.size()));
  for (int c = 1; c < inodes::kCategories; ++c) {
    if (m_by_category[static_cast<std::size_t>(c)] == 0) continue;
    const inodes::RouteKey k{0, c / 4, (c & 2) ? 1 : 0, (c & 1) ? 1 : 0};
    r.emplace_back("pairs_using_" + inodes::category_name(k),
                   static_cast<double>(m_by_category[static_cast<std::size_t>(c)]));
  }
  const int entry = inodes::routing_info_entry_bytes(m_mech, m_cube->num_nodes());
  r.emplace_back("routing_info_bytes_per_source", static_cast<double>(entry * m_cube->num_nodes()));
  r.emplace_back("routing_info_bytes_per_source_compacted",
                 static_cast<double>(entry + 2) * static_cast<double>(m_routes.size()) / m_cube->num_nodes());
  r.emplace_back("route_computation_seconds", m_compute_seconds);
  return r;
}

}  // namespace ftsim::routing
