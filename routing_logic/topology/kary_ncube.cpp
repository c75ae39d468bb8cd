#include "routing_logic/topology/kary_ncube.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

namespace ftsim::routing {

KAryNCube::KAryNCube(std::vector<int> dims, bool torus) : m_dims(std::move(dims)), m_torus(torus) {
  const char* kind = m_torus ? "torus" : "mesh";
  if (m_dims.empty() || m_dims.size() > static_cast<std::size_t>(kMaxDimensions))
    throw ConfigError(
        fmt::format("topology {}: {} dimensions given, allowed 1..{}", kind, m_dims.size(), kMaxDimensions));
  long total = 1;
  for (int k : m_dims) {
    if (k < 2 || k > 1024)
      throw ConfigError(fmt::format("topology {}: radix k={} out of range, allowed 2..1024", kind, k));
    total *= k;
    if (total > (1L << 22)) throw ConfigError(fmt::format("topology {}: more than {} routers", kind, 1L << 22));
  }
  m_stride.resize(m_dims.size());
  int s = 1;
  for (std::size_t d = 0; d < m_dims.size(); ++d) {
    m_stride[d] = s;
    s *= m_dims[d];
  }
  const int n = static_cast<int>(total);
  m_coords.resize(static_cast<std::size_t>(n) * m_dims.size());
  for (RouterId r = 0; r < n; ++r)
    for (int d = 0; d < dimensions(); ++d)
      m_coords[static_cast<std::size_t>(r * dimensions() + d)] =
          static_cast<std::uint16_t>((r / m_stride[d]) % m_dims[d]);
  // The minimal way per dimension and coordinate difference (dim_direction):
  // a mesh goes toward the target; a torus the shorter way round, + on a
  // tie (exactly k/2 apart).
  for (std::size_t d = 0; d < m_dims.size(); ++d) {
    const int k = m_dims[d];
    m_way_base[d] = static_cast<int>(m_way.size()) + k;
    for (int delta = -k; delta < k; ++delta) {
      DimDirection w;
      if (delta != 0 && delta != -k) {
        if (!m_torus) {
          w.sign = delta > 0 ? 1 : -1;
        } else {
          const int fwd = (delta + k) % k;
          w.sign = fwd <= k - fwd ? 1 : -1;
          w.tie = 2 * fwd == k;
        }
      }
      m_way.push_back(w);
    }
  }
  resize(n, 1 + 2 * dimensions(), n);
  for (RouterId r = 0; r < n; ++r) attach_node(r, r, kLocalPort, false);
  // Links in order: router r, dimension d, the + link. Link id = r*n + d when
  // every link exists (torus with k >= 2).
  for (RouterId r = 0; r < n; ++r) {
    for (int d = 0; d < dimensions(); ++d) {
      const bool wraps = coord(r, d) == m_dims[d] - 1;
      if (wraps && !m_torus) continue;
      connect(r, port_of(d, true), neighbour(r, d, true), port_of(d, false));
    }
  }
}

RouterId KAryNCube::neighbour(RouterId r, int d, bool plus) const {
  const int c = coord(r, d);
  const int k = m_dims[d];
  const int nc = plus ? (c + 1) % k : (c + k - 1) % k;
  return r + (nc - c) * m_stride[d];
}

std::string KAryNCube::spec() const {
  return fmt::format("{}:{}", m_torus ? "torus" : "mesh", fmt::join(m_dims, "x"));
}

std::string KAryNCube::router_label(RouterId r) const {
  std::vector<int> c;
  for (int d = 0; d < dimensions(); ++d) c.push_back(coord(r, d));
  return fmt::format("{}", fmt::join(c, ","));
}

std::string KAryNCube::direction_name(int d, bool plus) const {
  static const char* kNames[3][2] = {{"east", "west"}, {"north", "south"}, {"up", "down"}};
  if (d < 3) return kNames[d][plus ? 0 : 1];
  return fmt::format("d{}{}", d, plus ? '+' : '-');
}

std::string KAryNCube::port_name(RouterId /*r*/, PortId p) const {
  if (p == kLocalPort) return "local";
  return direction_name(dim_of(p), is_plus(p));
}

std::string KAryNCube::link_label(LinkId l) const {
  const Link& lk = link(l);
  const int d = dim_of(lk.a_port);
  static const char kAxis[] = "xyzuvw";
  return fmt::format("{}:{}+", router_label(lk.a), kAxis[d]);
}

RouterId KAryNCube::parse_router(const std::string& label) const {
  std::vector<int> c;
  std::stringstream ss(label);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    try {
      std::size_t used = 0;
      c.push_back(std::stoi(tok, &used));
      if (used != tok.size()) throw std::invalid_argument(tok);
    } catch (const std::exception&) {
      throw ConfigError(fmt::format("router '{}' in {}: '{}' is not an integer coordinate", label, spec(), tok));
    }
  }
  if (static_cast<int>(c.size()) != dimensions())
    throw ConfigError(
        fmt::format("router '{}' in {}: expected {} comma-separated coordinates", label, spec(), dimensions()));
  RouterId r = 0;
  for (int d = 0; d < dimensions(); ++d) {
    if (c[d] < 0 || c[d] >= m_dims[d])
      throw ConfigError(fmt::format("router '{}' in {}: coordinate {} = {} out of range 0..{}", label, spec(), d, c[d],
                                    m_dims[d] - 1));
    r += c[d] * m_stride[d];
  }
  return r;
}

LinkId KAryNCube::parse_link(const std::string& label) const {
  const std::size_t colon = label.find(':');
  const std::string dir = colon == std::string::npos ? "" : label.substr(colon + 1);
  static const std::string kAxis = "xyzuvw";
  const std::size_t axis = dir.size() == 2 ? kAxis.find(dir[0]) : std::string::npos;
  if (axis == std::string::npos || static_cast<int>(axis) >= dimensions() || (dir[1] != '+' && dir[1] != '-'))
    throw ConfigError(fmt::format(
        "link '{}' in {}: expected COORDS:AXIS+ or COORDS:AXIS- with AXIS one of x..{} (e.g. '1,2:x+'), or a "
        "link id 0..{}",
        label, spec(), kAxis[dimensions() - 1], num_links() - 1));
  const RouterId r = parse_router(label.substr(0, colon));
  const PortId p = port_of(static_cast<int>(axis), dir[1] == '+');
  const PortPeer& pp = peer(r, p);
  if (pp.kind != PortPeer::Kind::kRouter)
    throw ConfigError(fmt::format("link '{}' does not exist in {} (mesh edge)", label, spec()));
  return pp.link;
}

}  // namespace ftsim::routing
