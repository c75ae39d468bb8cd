#include "routing_logic/ibnet.hpp"

#include <fmt/format.h>

#include <array>
#include <regex>
#include <sstream>

namespace ftsim::routing {

namespace {

struct Record {
  bool is_switch;
  std::string name;
  int ports;
  int line;
};
struct Wire {
  int owner;  // record index
  int port;   // IB port of the owner
  std::string peer;
  int peer_port;
  int line;
};

}  // namespace

IbNetTopology::IbNetTopology(const std::string& text, const std::string& source) {
  m_spec = "ibnet:" + source;
  const std::regex node_re(R"(^\s*(Switch|Hca|Ca)\s+(\d+)\s+\"([^\"]+)\".*$)");
  const std::regex wire_re(R"(^\s*\[(\d+)\]\s+\"([^\"]+)\"\s*\[(\d+)\].*$)");
  std::vector<Record> recs;
  std::vector<Wire> wires;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  auto fail = [&](int at, const std::string& why) { throw ConfigError(fmt::format("{}:{}: {}", source, at, why)); };
  while (std::getline(in, line)) {
    ++no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_match(line, m, node_re)) {
      const int ports = std::stoi(m[2].str().substr(0, 6));
      if (ports < 1 || ports > 64) fail(no, fmt::format("'{}' declares {} ports, allowed 1..64", m[3].str(), ports));
      recs.push_back({m[1] == "Switch", m[3], ports, no});
    } else if (std::regex_match(line, m, wire_re)) {
      if (recs.empty()) fail(no, "a port line before any Switch or Hca record");
      const int port = std::stoi(m[1].str().substr(0, 6)), peer_port = std::stoi(m[3].str().substr(0, 6));
      if (port < 1 || port > recs.back().ports)
        fail(no, fmt::format("port {} of '{}' out of range, allowed 1..{}", port, recs.back().name, recs.back().ports));
      wires.push_back({static_cast<int>(recs.size()) - 1, port, m[2], peer_port, no});
    } else {
      fail(no, fmt::format("not understood: '{}' (expected 'Switch P \"name\"', 'Hca P \"name\"' or "
                           "'[port] \"peer\"[port]')",
                           line));
    }
  }
  std::map<std::string, int> by_name;
  for (std::size_t i = 0; i < recs.size(); ++i)
    if (!by_name.emplace(recs[i].name, static_cast<int>(i)).second)
      fail(recs[i].line, fmt::format("name '{}' used twice", recs[i].name));
  std::vector<std::string> switches, hcas;
  std::vector<int> index(recs.size(), -1), ports;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].is_switch) {
      index[i] = static_cast<int>(switches.size());
      switches.push_back(recs[i].name);
      ports.push_back(recs[i].ports);
    } else {
      index[i] = static_cast<int>(hcas.size());
      hcas.push_back(recs[i].name);
    }
  }
  if (switches.empty()) throw ConfigError(fmt::format("{}: no Switch record", source));
  // Each end lists the link; keep it once and check that the ends agree.
  std::map<std::pair<int, int>, std::pair<int, int>> end;  // (record, port) -> (record, port)
  for (const Wire& w : wires) {
    const auto it = by_name.find(w.peer);
    if (it == by_name.end()) fail(w.line, fmt::format("unknown peer '{}'", w.peer));
    const Record& pr = recs[static_cast<std::size_t>(it->second)];
    if (w.peer_port < 1 || w.peer_port > pr.ports)
      fail(w.line, fmt::format("port {} of '{}' out of range, allowed 1..{}", w.peer_port, pr.name, pr.ports));
    const std::pair<int, int> a{w.owner, w.port}, b{it->second, w.peer_port};
    for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
      const auto [e, fresh] = end.emplace(x, y);
      if (!fresh && e->second != y)
        fail(w.line, fmt::format("link ends disagree: '{}'[{}] is also wired to '{}'[{}]",
                                 recs[static_cast<std::size_t>(x.first)].name, x.second,
                                 recs[static_cast<std::size_t>(e->second.first)].name, e->second.second));
    }
  }
  std::vector<std::array<int, 4>> links;
  std::vector<std::array<int, 3>> hca_links;
  std::vector<int> hca_ports(hcas.size(), 0);
  for (const auto& [a, b] : end) {
    const Record& ra = recs[static_cast<std::size_t>(a.first)];
    const Record& rb = recs[static_cast<std::size_t>(b.first)];
    if (ra.is_switch && rb.is_switch) {
      if (a < b)
        links.push_back({index[static_cast<std::size_t>(a.first)], a.second - 1,
                         index[static_cast<std::size_t>(b.first)], b.second - 1});
    } else if (ra.is_switch) {
      const int h = index[static_cast<std::size_t>(b.first)];
      if (++hca_ports[static_cast<std::size_t>(h)] > 1)
        fail(rb.line, fmt::format("HCA '{}' has more than one connected port (ftsim nodes have one)", rb.name));
      hca_links.push_back({h, index[static_cast<std::size_t>(a.first)], a.second - 1});
    } else if (!rb.is_switch) {
      fail(ra.line, fmt::format("HCAs '{}' and '{}' are wired to each other", ra.name, rb.name));
    }
  }
  for (std::size_t h = 0; h < hcas.size(); ++h)
    if (hca_ports[h] == 0) throw ConfigError(fmt::format("{}: HCA '{}' is not connected", source, hcas[h]));
  build(switches, ports, hcas, links, hca_links);
}

IbNetTopology::IbNetTopology(int leaves, int spines, int hosts) {
  if (leaves < 1 || spines < 1 || hosts < 1 || hosts + spines > 64 || leaves > 64)
    throw ConfigError(
        fmt::format("topology fat-tree2:{},{},{}: need leaves, spines, hosts >= 1, hosts + spines <= "
                    "64 and leaves <= 64 (switch ports)",
                    leaves, spines, hosts));
  m_spec = fmt::format("fat-tree2:{},{},{}", leaves, spines, hosts);
  std::vector<std::string> switches, hcas;
  std::vector<int> ports;
  std::vector<std::array<int, 4>> links;
  std::vector<std::array<int, 3>> hca_links;
  for (int l = 0; l < leaves; ++l) {
    switches.push_back(fmt::format("L{}", l));
    ports.push_back(hosts + spines);
    for (int h = 0; h < hosts; ++h) {
      hca_links.push_back({static_cast<int>(hcas.size()), l, h});
      hcas.push_back(fmt::format("H_{}_{}", l, h));
    }
  }
  for (int s = 0; s < spines; ++s) {
    switches.push_back(fmt::format("S{}", s));
    ports.push_back(leaves);
    for (int l = 0; l < leaves; ++l) links.push_back({l, hosts + s, leaves + s, l});
  }
  build(switches, ports, hcas, links, hca_links);
}

void IbNetTopology::build(const std::vector<std::string>& switches, const std::vector<int>& ports,
                          const std::vector<std::string>& hcas, const std::vector<std::array<int, 4>>& links,
                          const std::vector<std::array<int, 3>>& hca_links) {
  int radix = 0;
  for (int p : ports) radix = std::max(radix, p);
  resize(static_cast<int>(switches.size()), radix, static_cast<int>(hcas.size()));
  m_router_names = switches;
  m_node_names = hcas;
  for (std::size_t i = 0; i < switches.size(); ++i) m_router_by_name[switches[i]] = static_cast<RouterId>(i);
  for (std::size_t i = 0; i < hcas.size(); ++i) m_node_by_name[hcas[i]] = static_cast<NodeId>(i);
  for (const auto& [a, pa, b, pb] : links) connect(a, pa, b, pb);
  for (const auto& [h, r, p] : hca_links) attach_node(h, r, p, true);
}

std::string IbNetTopology::port_name(RouterId /*r*/, PortId p) const {
  return fmt::format("p{}", p + 1);
}

std::string IbNetTopology::link_label(LinkId l) const {
  const Link& k = link(l);
  return fmt::format("{}[{}]", router_label(k.a), k.a_port + 1);
}

LinkId IbNetTopology::parse_link(const std::string& label) const {
  // "SW[port]", optionally followed by "-PEER[port]" (checked).
  const std::regex re(R"(^([^\[\]]+)\[(\d+)\](?:-([^\[\]]+)\[(\d+)\])?$)");
  std::smatch m;
  if (!std::regex_match(label, m, re))
    throw ConfigError(
        fmt::format("link '{}' in {}: expected SWITCH[port] with the IB port, e.g. {}", label, spec(), link_label(0)));
  const RouterId r = find_router(m[1]);
  const int port = std::stoi(m[2].str().substr(0, 6)) - 1;
  if (r == kNone) throw ConfigError(fmt::format("link '{}': no switch '{}' in {}", label, m[1].str(), spec()));
  if (port < 0 || port >= radix(r) || peer(r, port).kind == PortPeer::Kind::kUnconnected)
    throw ConfigError(
        fmt::format("link '{}': port {} of '{}' is not connected in {}", label, port + 1, m[1].str(), spec()));
  const PortPeer& pp = peer(r, port);
  if (m[3].matched) {
    const std::string far =
        pp.kind == PortPeer::Kind::kRouter ? fmt::format("{}[{}]", router_label(pp.id), pp.port + 1) : "";
    if (far != m[3].str() + "[" + m[4].str() + "]")
      throw ConfigError(fmt::format("link '{}': {}[{}] leads to {} in {}", label, m[1].str(), port + 1,
                                    far.empty() ? node_label(pp.id) : far, spec()));
  }
  if (pp.link == kNone) throw ConfigError(fmt::format("link '{}' has no link id in {}", label, spec()));
  return pp.link;
}

RouterId IbNetTopology::parse_router(const std::string& label) const {
  const RouterId r = find_router(label);
  if (r == kNone) throw ConfigError(fmt::format("no switch '{}' in {}", label, spec()));
  return r;
}

RouterId IbNetTopology::find_router(const std::string& name) const {
  const auto it = m_router_by_name.find(name);
  return it == m_router_by_name.end() ? kNone : it->second;
}

NodeId IbNetTopology::find_node(const std::string& name) const {
  const auto it = m_node_by_name.find(name);
  return it == m_node_by_name.end() ? kNone : it->second;
}

std::string IbNetTopology::netfile() const {
  std::string out;
  for (NodeId n = 0; n < num_nodes(); ++n)
    out += fmt::format("Hca\t1 \"{}\"\n[1]\t\"{}\"[{}]\n\n", node_label(n), router_label(node_router(n)),
                       node_port(n) + 1);
  for (RouterId r = 0; r < num_routers(); ++r) {
    int ports = 0;
    for (PortId p = 0; p < radix(r); ++p)
      if (peer(r, p).kind != PortPeer::Kind::kUnconnected) ports = p + 1;
    out += fmt::format("Switch\t{} \"{}\"\n", std::max(ports, 1), router_label(r));
    for (PortId p = 0; p < radix(r); ++p) {
      const PortPeer& pp = peer(r, p);
      if (pp.kind == PortPeer::Kind::kRouter)
        out += fmt::format("[{}]\t\"{}\"[{}]\n", p + 1, router_label(pp.id), pp.port + 1);
      else if (pp.kind == PortPeer::Kind::kNode)
        out += fmt::format("[{}]\t\"{}\"[1]\n", p + 1, node_label(pp.id));
    }
    out += "\n";
  }
  return out;
}

}  // namespace ftsim::routing
