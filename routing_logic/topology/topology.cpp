#include "routing_logic/topology/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <deque>

#include <fstream>
#include <sstream>

#include "common/text_input.hpp"
#include "routing_logic/topology/ibnet.hpp"
#include "routing_logic/topology/kary_ncube.hpp"
#include "routing_logic/topology/kary_ntree.hpp"
#include "routing_logic/mikant/mikant.hpp"

namespace ftsim::routing {

void Topology::resize(int routers, int radix, int nodes) {
  m_ports.assign(routers, std::vector<PortPeer>(radix));
  m_node_router.assign(nodes, kNone);
  m_node_port.assign(nodes, kNone);
  m_max_radix = radix;
}

LinkId Topology::connect(RouterId a, PortId pa, RouterId b, PortId pb) {
  const LinkId id = static_cast<LinkId>(m_links.size());
  m_links.push_back(Link{id, a, pa, false, b, pb});
  m_ports[a][pa] = PortPeer{PortPeer::Kind::kRouter, b, pb, id};
  m_ports[b][pb] = PortPeer{PortPeer::Kind::kRouter, a, pa, id};
  return id;
}

void Topology::attach_node(NodeId n, RouterId r, PortId p, bool counts_as_link) {
  LinkId id = kNone;
  if (counts_as_link) {
    id = static_cast<LinkId>(m_links.size());
    m_links.push_back(Link{id, r, p, true, n, kNone});
  }
  m_ports[r][p] = PortPeer{PortPeer::Kind::kNode, n, kNone, id};
  m_node_router[n] = r;
  m_node_port[n] = p;
}

LinkId Topology::parse_link_any(const std::string& text) const {
  std::string t = text;
  if (!t.empty() && t[0] == '#') t = t.substr(1);
  if (!t.empty() && std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); })) {
    const long v = std::stol(t);
    if (v < 0 || v >= num_links())
      throw ConfigError(fmt::format("link id {} does not exist in {}: allowed 0..{}", v, spec(), num_links() - 1));
    return static_cast<LinkId>(v);
  }
  return parse_link(text);
}

std::vector<int> Topology::node_distances_from(NodeId src) const {
  // BFS over routers, then add the terminal links (indirect networks only).
  const int extra = is_direct() ? 0 : 1;
  std::vector<int> rd(num_routers(), -1);
  std::deque<RouterId> q;
  rd[node_router(src)] = 0;
  q.push_back(node_router(src));
  while (!q.empty()) {
    const RouterId r = q.front();
    q.pop_front();
    for (PortId p = 0; p < radix(r); ++p) {
      const PortPeer& pp = peer(r, p);
      if (pp.kind == PortPeer::Kind::kRouter && rd[pp.id] < 0) {
        rd[pp.id] = rd[r] + 1;
        q.push_back(pp.id);
      }
    }
  }
  std::vector<int> out(num_nodes(), -1);
  for (NodeId n = 0; n < num_nodes(); ++n) {
    const int d = rd[node_router(n)];
    if (d >= 0) out[n] = (n == src) ? 0 : d + 2 * extra;
  }
  return out;
}

namespace {

std::vector<int> parse_int_list(const std::string& s, char sep, const std::string& spec) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t next = s.find(sep, pos);
    if (next == std::string::npos) next = s.size();
    const std::string tok = s.substr(pos, next - pos);
    if (tok.empty() || !std::all_of(tok.begin(), tok.end(), [](unsigned char c) { return std::isdigit(c); }) ||
        tok.size() > 6)
      throw ConfigError(fmt::format("topology '{}': '{}' is not a positive integer", spec, tok));
    out.push_back(std::stoi(tok));
    pos = next + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> topology_names() {
  return {"mesh:KxK[xK]", "torus:KxK[xK]", "kary-ntree:K,N", "mikant:K,N", "ibnet:FILE.net", "fat-tree2:L,S,H"};
}

std::unique_ptr<Topology> make_topology(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos)
    throw ConfigError(fmt::format(
        "topology '{}': expected NAME:PARAMS, one of mesh:8x8, torus:3x3x3, kary-ntree:4,3, mikant:3,3", spec));
  const std::string name = spec.substr(0, colon);
  const std::string params = spec.substr(colon + 1);
  if (name == "mesh" || name == "torus") {
    return std::make_unique<KAryNCube>(parse_int_list(params, 'x', spec), name == "torus");
  }
  if (name == "kary-ntree" || name == "mikant") {
    const auto v = parse_int_list(params, ',', spec);
    if (v.size() != 2) throw ConfigError(fmt::format("topology '{}': expected {}:K,N with two integers", spec, name));
    if (name == "kary-ntree") return std::make_unique<KAryNTree>(v[0], v[1]);
    return std::make_unique<Mikant>(v[0], v[1]);
  }
  if (name == "ibnet") {
    return std::make_unique<IbNetTopology>(read_text_file(params, fmt::format("topology '{}': netfile", spec)),
                                           params);
  }
  if (name == "fat-tree2") {
    const auto v = parse_int_list(params, ',', spec);
    if (v.size() != 3)
      throw ConfigError(fmt::format("topology '{}': expected fat-tree2:LEAVES,SPINES,HOSTS (e.g. 36,18,18)", spec));
    return std::make_unique<IbNetTopology>(v[0], v[1], v[2]);
  }
  throw ConfigError(fmt::format(
      "topology '{}': unknown name '{}'; allowed: mesh, torus, kary-ntree, mikant, ibnet, fat-tree2", spec, name));
}

}  // namespace ftsim::routing
