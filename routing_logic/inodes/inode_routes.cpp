#include "routing_logic/inodes/inode_routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ftsim::routing::inodes {

std::string preference_name(Preference p) {
  switch (p) {
    case Preference::kExtensionsLast:
      return "extensions-last";
    case Preference::kExtensionsWhenIFails:
      return "extensions-when-i-fails";
    case Preference::kFewestIntermediates:
      return "fewest-intermediates";
    case Preference::kAdaptivityFirst:
      return "adaptivity-first";
  }
  return "?";
}

std::string Mechanism::name() const {
  std::string s;
  if (max_intermediates == 1) s = "I";
  if (max_intermediates > 1) s = fmt::format("Ix{}", max_intermediates);
  auto add = [&](const char* t) { s += s.empty() ? t : std::string("+") + t; };
  if (deterministic) add("D");
  if (misroute) add(free_continuation ? "Mfree" : misroute_one_per_dimension ? "Mdim" : "M");
  if (s.empty()) s = "none";
  if (preference != kDefaultPreference) s += "@" + preference_name(preference);
  return s;
}

Mechanism parse_mechanism(const std::string& text) {
  const std::string allowed =
      "allowed: I, D, M, I+D, I+M, D+M, I+D+M, IxN (N = 1..3), Ix2+D, any '+' combination of them, or none; Mdim "
      "in place of M for one misrouting direction per dimension, Mfree for the non-paper free continuation; optionally "
      "@extensions-last (default), @adaptivity-first, "
      "@extensions-when-i-fails or "
      "@fewest-intermediates";
  Mechanism m;
  std::string body = text;
  if (const auto at = text.find('@'); at != std::string::npos) {
    body = text.substr(0, at);
    const std::string pref = text.substr(at + 1);
    bool known = false;
    for (Preference p : {Preference::kExtensionsLast, Preference::kExtensionsWhenIFails,
                         Preference::kFewestIntermediates, Preference::kAdaptivityFirst})
      if (pref == preference_name(p)) {
        m.preference = p;
        known = true;
      }
    if (!known)
      throw ConfigError(fmt::format("mechanism '{}': preference '{}' not understood ({})", text, pref, allowed));
  }
  if (body == "none") return m;
  std::stringstream ss(body);
  std::string tok;
  bool any = false;
  while (std::getline(ss, tok, '+')) {
    any = true;
    if (tok == "I" && m.max_intermediates == 0) {
      m.max_intermediates = 1;
    } else if (tok.size() == 3 && tok[0] == 'I' && (tok[1] == 'x' || tok[1] == 'X') && tok[2] >= '1' && tok[2] <= '3' &&
               m.max_intermediates == 0) {
      m.max_intermediates = tok[2] - '0';
    } else if (tok == "D" && !m.deterministic) {
      m.deterministic = true;
    } else if ((tok == "M" || tok == "Mfree" || tok == "Mdim") && !m.misroute) {
      m.misroute = true;
      m.free_continuation = tok == "Mfree";
      m.misroute_one_per_dimension = tok == "Mdim";
    } else {
      throw ConfigError(fmt::format("mechanism '{}': term '{}' not understood ({})", text, tok, allowed));
    }
  }
  if (!any) throw ConfigError(fmt::format("mechanism '{}' is empty ({})", text, allowed));
  return m;
}

std::vector<std::string> table1_mechanisms() {
  return {"I", "D", "M", "I+D", "I+M", "D+M", "I+D+M", "Ix2", "Ix3", "Ix2+D"};
}

std::array<int, 5> RouteKey::ordered(Preference p) const {
  switch (p) {
    case Preference::kExtensionsLast:
      return {length, misrouted, deterministic, intermediates, extended};
    case Preference::kExtensionsWhenIFails:
      return {extended, length, misrouted, deterministic, intermediates};
    case Preference::kFewestIntermediates:
      return {length, intermediates, deterministic, misrouted, extended};
    case Preference::kAdaptivityFirst:
      return {length, deterministic, misrouted, intermediates, extended};
  }
  return {};
}

RouteKey RouteKey::from_ordered(const std::array<int, 5>& f, Preference p) {
  switch (p) {
    case Preference::kExtensionsLast:
      return {f[0], f[3], f[2], f[1], f[4]};
    case Preference::kExtensionsWhenIFails:
      return {f[1], f[4], f[3], f[2], f[0]};
    case Preference::kFewestIntermediates:
      return {f[0], f[1], f[2], f[3], f[4]};
    case Preference::kAdaptivityFirst:
      return {f[0], f[3], f[1], f[2], f[4]};
  }
  return {};
}

bool RouteKey::operator==(const RouteKey& o) const {
  return length == o.length && intermediates == o.intermediates && deterministic == o.deterministic &&
         misrouted == o.misrouted && extended == o.extended;
}

std::string category_name(const RouteKey& key) {
  Mechanism m;
  m.max_intermediates = std::min(key.intermediates, 3);
  m.deterministic = key.deterministic > 0;
  m.misroute = key.misrouted > 0;
  const std::string n = m.name();
  return n == "none" ? "direct" : n;
}

// ---------------------------------------------------------------- geometry

int CubeGeometry::distance(NodeId a, NodeId b) const {
  int sum = 0;
  for (int d = 0; d < dims(); ++d) {
    const int k = m_cube.radix_of(d);
    const int c = std::abs(m_cube.coord(a, d) - m_cube.coord(b, d));
    sum += m_cube.torus() ? std::min(c, k - c) : c;
  }
  return sum;
}

LinkId CubeGeometry::link(NodeId r, int dir) const {
  const int n = dims();
  const PortPeer& pp = m_cube.peer(r, KAryNCube::port_of(dir % n, dir < n));
  return pp.kind == PortPeer::Kind::kRouter ? pp.link : kNone;
}

NodeId CubeGeometry::step(NodeId r, int dir) const {
  const int n = dims();
  return m_cube.neighbour(r, dir % n, dir < n);
}

bool CubeGeometry::bipartite() const {
  if (!m_cube.torus()) return true;
  for (int d = 0; d < dims(); ++d)
    if (m_cube.radix_of(d) % 2 != 0) return false;
  return true;
}

int CubeGeometry::max_misroute_hops(int dir) const {
  return std::min(8, m_cube.radix_of(dir % dims()) - 1);
}

bool CubeGeometry::on_minimal_path(LinkId l, NodeId a, NodeId b) const {
  const Link& lk = m_cube.link(l);
  const int total = distance(a, b);
  return distance(a, lk.a) + 1 + distance(lk.b, b) == total || distance(a, lk.b) + 1 + distance(lk.a, b) == total;
}

bool CubeGeometry::continues_order(NodeId a, NodeId b, int min_dir) const {
  if (min_dir <= 0) return true;
  const int n = dims();
  for (int d = 0; d < n; ++d) {
    const DimDirection way = dim_direction(m_cube, a, b, d);
    if (way.sign == 0) continue;
    // d- (index n + d) is the later direction of the two: on a tie it is the
    // one that can still continue the order.
    const int later = way.tie ? n + d : direction_index(d, way.sign > 0, n);
    if (later < min_dir) return false;
  }
  return true;
}

bool CubeGeometry::tie(NodeId a, NodeId b, int d) const {
  return dim_direction(m_cube, a, b, d).tie;
}

bool CubeGeometry::on_ordered_minimal_path(LinkId l, NodeId a, NodeId b, int min_dir) const {
  if (min_dir <= 0 || !m_cube.torus()) return on_minimal_path(l, a, b);
  const int n = dims();
  const Link& lk = m_cube.link(l);
  const int total = distance(a, b);
  // Dimensions whose k/2 tie must be travelled in d- (d+ is before min_dir):
  // every node of such a path lies on the d- arc from a to b.
  auto on_minus_arc = [&](NodeId x) {
    for (int d = 0; d < n && d < min_dir; ++d) {
      if (!tie(a, b, d)) continue;
      const int k = m_cube.radix_of(d);
      if ((m_cube.coord(a, d) - m_cube.coord(x, d) + k) % k > k / 2) return false;
    }
    return true;
  };
  auto oriented = [&](NodeId from, PortId from_port, NodeId to) {
    if (distance(a, from) + 1 + distance(to, b) != total) return false;
    if (!on_minus_arc(from) || !on_minus_arc(to)) return false;
    const int d = KAryNCube::dim_of(from_port);
    return !(KAryNCube::is_plus(from_port) && d < min_dir && tie(a, b, d));
  };
  return oriented(lk.a, lk.a_port, lk.b) || oriented(lk.b, lk.b_port, lk.a);
}

int CubeGeometry::deterministic_direction(NodeId a, NodeId b, bool direction_order, int min_dir) const {
  return deterministic_direction(dim_directions(m_cube, a, b).data(), direction_order, min_dir);
}

int CubeGeometry::deterministic_direction(const DimDirection* way, bool direction_order, int min_dir) const {
  const int n = dims();
  int best = -1;
  for (int d = 0; d < n; ++d) {
    const int sign = way[d].sign;
    if (sign == 0) continue;
    const bool plus = way[d].tie ? d >= min_dir : sign > 0;
    const int dir = direction_index(d, plus, n);
    if (!direction_order) return dir;  // dimension order: the lowest dimension first
    if (best < 0 || dir < best) best = dir;
  }
  return best;
}

void CubeGeometry::deterministic_path(NodeId a, NodeId b, bool direction_order, const std::function<void(LinkId)>& f,
                                      int min_dir) const {
  NodeId cur = a;
  // One dimension at a time; moving in one dimension leaves the offsets (and
  // ties) of the others unchanged, so the order is that chosen at a.
  while (cur != b) {
    const int dir = deterministic_direction(cur, b, direction_order, min_dir);
    const int d = dir % dims();
    while (m_cube.coord(cur, d) != m_cube.coord(b, d)) {
      f(link(cur, dir));
      cur = step(cur, dir);
    }
  }
}

NodeId CubeGeometry::misroute_walk(NodeId a, const Segment& seg, const std::function<void(LinkId)>& f) const {
  NodeId cur = a;
  for (int i = 0; i < seg.misroute_steps; ++i) {
    for (int h = 0; h < seg.misroute[static_cast<std::size_t>(i)].hops; ++h) {
      const int dir = seg.misroute[static_cast<std::size_t>(i)].direction;
      const LinkId l = link(cur, dir);
      if (l == kNone) return kNone;
      f(l);
      cur = step(cur, dir);
    }
  }
  return cur;
}

void CubeGeometry::for_each_prefix(NodeId a, int max_length, const std::function<void(const Segment&, NodeId, int)>& f,
                                   NodeId target, bool one_per_dimension) const {
  const int n = dims();
  Segment seg;
  // Depth-first over steps in strictly increasing direction order. A step in
  // d- right after a step in d+ walks back over the same ring and is always
  // dominated (one shorter step, or none, uses a subset of its links and keeps
  // the order), so it is skipped. d- after d+ with other steps between is a
  // real detour (Figure 6b) and is kept.
  std::function<void(NodeId, int, int, int)> rec = [&](NodeId cur, int first_dir, int depth, int used) {
    for (int dir = first_dir; dir < 2 * n; ++dir) {
      if (dir >= n && depth > 0 && seg.misroute[static_cast<std::size_t>(depth - 1)].direction == dir - n) continue;
      if (one_per_dimension && dir >= n) {  // d- after d+ of the same dimension anywhere in the prefix
        bool taken = false;
        for (int i = 0; i < depth; ++i) taken = taken || seg.misroute[static_cast<std::size_t>(i)].direction == dir - n;
        if (taken) continue;
      }
      NodeId end = cur;
      for (int h = 1; h <= max_misroute_hops(dir) && used + h <= max_length; ++h) {
        if (link(end, dir) == kNone) break;
        end = step(end, dir);
        if (target != kNone && used + h + distance(end, target) > max_length) break;
        seg.misroute[static_cast<std::size_t>(depth)] =
            MisrouteStep{static_cast<std::uint8_t>(dir), static_cast<std::uint8_t>(h)};
        seg.misroute_steps = static_cast<std::uint8_t>(depth + 1);
        f(seg, end, used + h);
        if (depth + 1 < 3) rec(end, dir + 1, depth + 1, used + h);
      }
    }
  };
  rec(a, 0, 0, 0);
}

// ---------------------------------------------------------------- faults

FaultyLinks::FaultyLinks(const CubeGeometry& geo, const std::vector<LinkId>& faults)
    : m_geo(geo), m_faults(faults), m_faulty(static_cast<std::size_t>(geo.cube().num_links()), false) {
  const int n = geo.cube().num_nodes();
  for (LinkId l : faults) {
    if (l < 0 || l >= geo.cube().num_links())
      throw ConfigError(fmt::format("faulty link {} does not exist in {} (links 0..{})", l, geo.cube().spec(),
                                    geo.cube().num_links() - 1));
    m_faulty[static_cast<std::size_t>(l)] = true;
    // Distances from both ends of the fault to every node: the minimal-path
    // test below becomes two lookups per fault.
    const Link& lk = geo.cube().link(l);
    for (NodeId end : {lk.a, static_cast<NodeId>(lk.b)})
      for (NodeId x = 0; x < n; ++x) m_end_distance.push_back(geo.distance(end, x));
  }
}

bool FaultyLinks::adaptive_clear(NodeId a, NodeId b, int min_dir) const {
  if (min_dir > 0) {
    for (LinkId l : m_faults)
      if (m_geo.on_ordered_minimal_path(l, a, b, min_dir)) return false;
    return true;
  }
  // Link x-y lies on a minimal path from a to b iff l(a,x) + 1 + l(y,b) or
  // l(a,y) + 1 + l(x,b) equals l(a,b) (CubeGeometry::on_minimal_path).
  const int total = m_geo.distance(a, b);
  const std::size_t n = static_cast<std::size_t>(m_geo.cube().num_nodes());
  const auto sa = static_cast<std::size_t>(a), sb = static_cast<std::size_t>(b);
  for (std::size_t i = 0; i < m_faults.size(); ++i) {
    const int* x = &m_end_distance[2 * i * n];
    const int* y = x + n;
    if (x[sa] + 1 + y[sb] == total || y[sa] + 1 + x[sb] == total) return false;
  }
  return true;
}

bool FaultyLinks::deterministic_clear(NodeId a, NodeId b, bool direction_order, int min_dir) const {
  bool ok = true;
  m_geo.deterministic_path(
      a, b, direction_order, [&](LinkId l) { ok = ok && !faulty(l); }, min_dir);
  return ok;
}

bool FaultyLinks::segment_clear(NodeId a, const Segment& seg, const Mechanism& mech) const {
  bool ok = true;
  const NodeId p = seg.misroute_steps ? m_geo.misroute_walk(a, seg, [&](LinkId l) { ok = ok && !faulty(l); }) : a;
  if (!ok || p == kNone) return false;
  const int min_dir = rest_min_direction(mech, seg);
  if (!m_geo.continues_order(p, seg.to, min_dir)) return false;
  return seg.deterministic ? deterministic_clear(p, seg.to, uses_direction_order(mech), min_dir)
                           : adaptive_clear(p, seg.to, min_dir);
}

// ---------------------------------------------------------------- routes

namespace {

/// Every option of one subpath a -> b within `budget` links. Under the
/// paper's rule a prefix whose rest cannot continue the direction order is
/// no option (section 4.3).
void segment_options(const CubeGeometry& geo, const Mechanism& mech, NodeId a, NodeId b, int budget,
                     const std::function<void(const Segment&, const RouteKey&)>& f) {
  const int l = geo.distance(a, b);
  if (l <= budget) {
    Segment s;
    s.to = b;
    f(s, RouteKey{l, 0, 0, 0, 0});
    if (mech.deterministic) {
      s.deterministic = true;
      f(s, RouteKey{l, 0, 1, 0, 1});
    }
  }
  if (!mech.misroute) return;
  geo.for_each_prefix(
      a, budget,
      [&](const Segment& pre, NodeId p, int plen) {
        Segment s = pre;
        s.to = b;
        if (!geo.continues_order(p, b, rest_min_direction(mech, s))) return;
        const int rest = geo.distance(p, b);
        f(s, RouteKey{plen + rest, 0, 0, 1, 1});
        if (mech.deterministic) {
          s.deterministic = true;
          f(s, RouteKey{plen + rest, 0, 1, 1, 1});
        }
      },
      b, mech.misroute_one_per_dimension);
}

}  // namespace

void enumerate_routes(const CubeGeometry& geo, const Mechanism& mech, NodeId s, NodeId d, int max_length,
                      int intermediates, const std::function<bool(NodeId, const Segment&)>& segment_ok,
                      const std::function<void(const Route&)>& f) {
  Route route;
  const int nodes = geo.cube().num_nodes();
  std::function<void(NodeId, int, RouteKey)> rec = [&](NodeId a, int depth, RouteKey used) {
    const int budget = max_length - used.length;
    if (depth == intermediates) {
      segment_options(geo, mech, a, d, budget, [&](const Segment& seg, const RouteKey& k) {
        if (segment_ok && !segment_ok(a, seg)) return;
        route.segments[static_cast<std::size_t>(depth)] = seg;
        route.count = depth + 1;
        route.key = used + k;
        route.key.intermediates = depth;
        f(route);
      });
      return;
    }
    for (NodeId b = 0; b < nodes; ++b) {
      if (b == a || b == d || b == s) continue;
      const int rest = geo.distance(b, d);
      if (geo.distance(a, b) + rest > budget) continue;
      segment_options(geo, mech, a, b, budget - rest, [&](const Segment& seg, const RouteKey& k) {
        if (segment_ok && !segment_ok(a, seg)) return;
        route.segments[static_cast<std::size_t>(depth)] = seg;
        rec(b, depth + 1, used + k);
      });
    }
  };
  if (s == d) return;
  rec(s, 0, RouteKey{});
}

void enumerate_routes(const CubeGeometry& geo, const Mechanism& mech, NodeId s, NodeId d, int max_length,
                      const std::function<void(const Route&)>& f) {
  for (int k = 0; k <= mech.max_intermediates; ++k) enumerate_routes(geo, mech, s, d, max_length, k, nullptr, f);
}

bool find_route(const CubeGeometry& geo, const Mechanism& mech, const FaultyLinks& faults, NodeId s, NodeId d,
                Route& out, int max_extra) {
  const int l0 = geo.distance(s, d);
  const auto clear = [&](NodeId from, const Segment& seg) { return faults.segment_clear(from, seg, mech); };
  const Preference pref = mech.preference;
  // Among equally preferred routes (the paper: "I_1 can be selected among
  // these nodes") one is drawn uniformly with a generator seeded by the pair,
  // so that the pairs around a fault do not all pile onto the lowest-numbered
  // intermediate node.
  std::uint64_t rng =
      0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(s) * 1000003ULL + static_cast<std::uint64_t>(d) + 1);
  auto next = [&rng] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  bool found = false;
  std::uint64_t ties = 0;
  auto consider = [&](const Route& r) {
    if (!found || key_less(r.key, out.key, pref)) {
      out = r;
      found = true;
      ties = 1;
    } else if (r.key == out.key && next() % ++ties == 0) {
      out = r;  // reservoir sampling: each tie kept with probability 1/ties
    }
  };
  // Routes of exactly `length` links with at most mech.max_intermediates
  // intermediate nodes, filtered by the number of extended subpaths when
  // `extended` >= 0.
  auto search_length = [&](const Mechanism& m, int length, int extended) {
    // The first k with a route holds the best one of this length when the
    // number of intermediate nodes is the first field compared after the
    // length, or the only one left (intermediate nodes alone: no D, no M).
    const bool first_k_wins = pref == Preference::kFewestIntermediates || (!m.deterministic && !m.misroute);
    for (int k = 0; k <= m.max_intermediates; ++k) {
      enumerate_routes(geo, m, s, d, length, k, clear, [&](const Route& r) {
        if (r.key.length != length || (extended >= 0 && r.key.extended != extended)) return;
        consider(r);
      });
      if (found && first_k_wins) return;
    }
  };
  // In a bipartite network (a mesh, or a torus whose radices are all even)
  // every walk from s to d has the parity of l(s, d): the other lengths hold
  // no route and are skipped.
  const int stride = geo.bipartite() ? 2 : 1;
  Mechanism plain = mech;
  plain.deterministic = plain.misroute = false;
  if (pref == Preference::kFewestIntermediates) {
    // Length first: the first length with a fault-free route holds the best.
    for (int extra = 0; extra <= max_extra && !found; extra += stride) search_length(mech, l0 + extra, -1);
    return found;
  }
  if (pref == Preference::kExtensionsLast) {
    // Length, then misrouted, deterministic subpaths, intermediate nodes: at
    // each length intermediate nodes alone first (fewest first), then with D
    // (no M), then with M. Each step only runs when the cheaper ones found
    // nothing of this length, so the common case (section 5.2: most affected
    // paths only need an intermediate node) never enumerates a prefix.
    Mechanism with_d = plain;
    with_d.deterministic = mech.deterministic;
    for (int extra = 0; extra <= max_extra; extra += stride) {
      const int length = l0 + extra;
      search_length(plain, length, -1);
      if (!found && mech.deterministic) search_length(with_d, length, -1);
      if (!found && mech.misroute) search_length(mech, length, -1);
      if (found) return true;
    }
    return false;
  }
  if (pref == Preference::kAdaptivityFirst) {
    // Length, then deterministic, misrouted subpaths, intermediate nodes:
    // intermediate nodes alone first (neither D nor M), then every option of
    // this length compared by key.
    for (int extra = 0; extra <= max_extra; extra += stride) {
      const int length = l0 + extra;
      search_length(plain, length, -1);
      if (!found && (mech.deterministic || mech.misroute)) search_length(mech, length, -1);
      if (found) return true;
    }
    return false;
  }
  // Fewest extended subpaths first, at any length: intermediate nodes alone
  // (the mechanism without D and M), then routes with 1, 2, ... extended
  // subpaths.
  for (int extra = 0; extra <= max_extra && !found; extra += stride) search_length(plain, l0 + extra, 0);
  if (found || (!mech.deterministic && !mech.misroute)) return found;
  for (int e = 1; e <= mech.max_intermediates + 1 && !found; ++e)
    for (int extra = 0; extra <= max_extra && !found; extra += stride) search_length(mech, l0 + extra, e);
  return found;
}

int subheader_bits(const Mechanism& mech, int nodes) {
  const int address = std::max(1, static_cast<int>(std::ceil(std::log2(std::max(2, nodes)))));
  return address + (mech.misroute ? 3 * (3 + 3) : 0) + (mech.deterministic ? 1 : 0);
}

int routing_info_entry_bytes(const Mechanism& mech, int /*nodes*/) {
  const int per_subpath_bits = (mech.misroute ? 3 * (3 + 3) : 0) + (mech.deterministic ? 1 : 0);
  return 2 * mech.max_intermediates + (per_subpath_bits * (mech.max_intermediates + 1) + 7) / 8;
}

}  // namespace ftsim::routing::inodes
