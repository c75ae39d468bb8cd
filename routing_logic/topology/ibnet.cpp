#include "routing_logic/topology/ibnet.hpp"

#include "common/text_input.hpp"

#include <fmt/format.h>

#include <array>
#include <set>
#include <sstream>

namespace ftsim::routing {

namespace {

struct Record {
  bool is_switch;
  std::string name;  // the quoted name: what port lines refer to
  std::string desc;  // ibnetdiscover's node description (the comment's "..."), or ""
  std::uint64_t guid;
  int ports;
  int line;
  std::uint64_t port_guid = 0;  // an HCA's port GUID ("[1](guid)"), 0 when not given
};
struct Wire {
  int owner;  // record index
  int port;   // IB port of the owner
  std::string peer;
  int peer_port;
  int line;
};

constexpr int kMaxSwitchPorts = 64;  // the model's largest radix (IB allows 254)

/// Text up to a '#' that is not inside double quotes.
std::string_view without_comment(std::string_view line, std::string_view* comment) {
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') quoted = !quoted;
    if (line[i] == '#' && !quoted) {
      *comment = line.substr(i + 1);
      return line.substr(0, i);
    }
  }
  *comment = {};
  return line;
}

}  // namespace

IbNetTopology::IbNetTopology(const std::string& text, const std::string& source) {
  m_spec = "ibnet:" + source;
  std::vector<Record> recs;
  std::vector<Wire> wires;
  LineReader lines(text, source);
  std::string_view raw;
  std::uint64_t pending_guid = 0;  // switchguid= / caguid= of the next record
  auto fail = [&](int at, const std::string& why) { throw ConfigError(fmt::format("{}:{}: {}", source, at, why)); };
  auto here = [&](const std::string& why) { fail(lines.line_number(), why); };
  auto number = [&](Scanner& sc, int min, int max, const char* field) {
    const std::string_view d = sc.digits();
    if (d.empty()) here(fmt::format("expected the {} (a number)", field));
    const auto v = parse_unsigned(d, 10, static_cast<std::uint64_t>(max));
    if (!v || *v < static_cast<std::uint64_t>(min))
      here(fmt::format("{} {} out of range, allowed {}..{}", field, shown(d), min, max));
    return static_cast<int>(*v);
  };
  auto quoted = [&](Scanner& sc, const char* field) {
    if (!sc.eat("\"")) here(fmt::format("expected the {} in double quotes", field));
    const auto name = sc.until('"');
    if (!name) here(fmt::format("the {} has no closing double quote", field));
    if (name->empty()) here(fmt::format("the {} is empty", field));
    if (const std::string e = name_length_error(*name, field); !e.empty()) here(e);
    return std::string(*name);
  };
  // An optional "(hexguid)" after a port number (ibnetdiscover's port GUID).
  auto port_guid = [&](Scanner& sc) -> std::uint64_t {
    if (!sc.eat("(")) return 0;
    const std::string_view d = sc.digits(true);
    const auto g = parse_unsigned(d, 16, UINT64_MAX);
    if (!g || !sc.eat(")")) here(fmt::format("expected a port GUID as (hexdigits), got '({}'", shown(d)));
    return *g;
  };
  while (lines.next(&raw)) {
    std::string_view comment;
    Scanner sc(without_comment(raw, &comment));
    if (sc.at_end()) continue;
    static constexpr std::string_view kIds[] = {
        "vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "routerguid="};
    bool id_line = false;
    for (const std::string_view id : kIds) {
      if (!sc.eat(id)) continue;
      id_line = true;
      if (!sc.eat("0x")) here(fmt::format("{} expects 0x followed by hexadecimal digits", id));
      const std::string_view d = sc.digits(true);
      const auto v = parse_unsigned(d, 16, UINT64_MAX);
      if (!v) here(fmt::format("{}0x{}: expected 1..16 hexadecimal digits", id, shown(d)));
      if (id == "switchguid=" || id == "caguid=") pending_guid = *v;
      if (id == "routerguid=")
        here("router nodes (routerguid=) are not supported: ftsim fabrics hold switches and HCAs only");
      break;
    }
    if (id_line) continue;
    const bool is_switch = sc.eat("Switch");
    if (is_switch || sc.eat("Hca") || sc.eat("Ca")) {
      // Switch P "name" [enhanced|base port 0] [# "description" ... lid L lmc M]
      const std::size_t before = sc.position();
      sc.skip_blanks();
      if (sc.position() == before) here("expected blanks and the port count after the record type");
      const int ports = number(sc, 1, kMaxSwitchPorts, "port count");
      sc.skip_blanks();
      Record r{is_switch, quoted(sc, "node name"), "", pending_guid, ports, lines.line_number()};
      pending_guid = 0;
      sc.skip_blanks();
      if (!sc.at_end() && !sc.eat("enhanced port 0") && !sc.eat("base port 0"))
        here(fmt::format("unexpected text after the node name: '{}'", shown(sc.rest())));
      Scanner c(comment);
      c.skip_blanks();
      if (c.eat("\"")) {
        if (const auto d = c.until('"')) {
          if (const std::string e = name_length_error(*d, "node description"); !e.empty()) here(e);
          r.desc = std::string(*d);
        }
      }
      if (r.guid == 0 && r.name.size() > 2 && (r.name[0] == 'S' || r.name[0] == 'H') && r.name[1] == '-') {
        // ibnetdiscover names nodes S-<guid> / H-<guid>.
        if (const auto g = parse_unsigned(std::string_view(r.name).substr(2), 16, UINT64_MAX)) r.guid = *g;
      }
      recs.push_back(std::move(r));
    } else if (sc.eat("[")) {
      // [P](guid) "peer"[PP](guid) ...
      if (recs.empty()) here("a port line before any Switch or Hca record");
      const int port = number(sc, 1, kMaxSwitchPorts, "port");
      if (!sc.eat("]")) here("expected ']' after the port number");
      if (port > recs.back().ports)
        here(fmt::format("port {} of '{}' out of range, allowed 1..{}", port, recs.back().name, recs.back().ports));
      if (const std::uint64_t g = port_guid(sc); g != 0 && !recs.back().is_switch) recs.back().port_guid = g;
      sc.skip_blanks();
      std::string peer = quoted(sc, "peer name");
      sc.skip_blanks();
      if (!sc.eat("[")) here("expected '[port]' after the peer name");
      const int peer_port = number(sc, 1, kMaxSwitchPorts, "peer port");
      if (!sc.eat("]")) here("expected ']' after the peer port number");
      port_guid(sc);
      wires.push_back({static_cast<int>(recs.size()) - 1, port, std::move(peer), peer_port, lines.line_number()});
    } else if (sc.eat("Rt")) {
      here("router nodes (Rt) are not supported: ftsim fabrics hold switches and HCAs only");
    } else {
      here(
          fmt::format("not understood: '{}' (expected 'Switch P \"name\"', 'Hca P \"name\"', 'Ca P \"name\"', "
                      "'[port] \"peer\"[port]' or an ibnetdiscover id line such as 'switchguid=0x...')",
                      shown(raw)));
    }
  }
  std::map<std::string, int> by_name;
  for (std::size_t i = 0; i < recs.size(); ++i)
    if (!by_name.emplace(recs[i].name, static_cast<int>(i)).second)
      fail(recs[i].line, fmt::format("name '{}' used twice", recs[i].name));
  // Labels: ibnetdiscover's node descriptions when every node of the kind
  // has one and they are unique (its quoted names are S-<guid>/H-<guid>),
  // else the quoted names (ibsim netfiles).
  std::set<std::string> switch_descs, hca_descs;
  bool switch_by_desc = true, hca_by_desc = true;
  for (const Record& r : recs) {
    bool& by_desc = r.is_switch ? switch_by_desc : hca_by_desc;
    by_desc = by_desc && !r.desc.empty() && (r.is_switch ? switch_descs : hca_descs).insert(r.desc).second;
  }
  // The labels share one namespace in the netfile this fabric writes: a
  // switch's label may not equal an HCA's (either a description or a quoted
  // name). On a clash both kinds keep their quoted names, which are unique.
  const auto label_of = [&](const Record& r) { return (r.is_switch ? switch_by_desc : hca_by_desc) ? r.desc : r.name; };
  if (switch_by_desc || hca_by_desc) {
    std::set<std::string> labels;
    for (const Record& r : recs)
      if (!labels.insert(label_of(r)).second) {
        switch_by_desc = hca_by_desc = false;
        break;
      }
  }
  std::vector<std::string> switches, hcas;
  std::vector<int> index(recs.size(), -1), ports;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const Record& r = recs[i];
    if (r.is_switch) {
      index[i] = static_cast<int>(switches.size());
      switches.push_back(label_of(r));
      m_router_guids.push_back(r.guid);
      ports.push_back(r.ports);
    } else {
      index[i] = static_cast<int>(hcas.size());
      hcas.push_back(label_of(r));
      m_node_guids.push_back(r.guid);
      m_node_port_guids.push_back(r.port_guid);
    }
  }
  if (switches.empty()) throw ConfigError(fmt::format("{}: no Switch record", source));
  if (hcas.empty())
    throw ConfigError(fmt::format("{}: no Hca or Ca record: the fabric has no end nodes to route between", source));
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
  const std::size_t open = label.find('[');
  const std::size_t close = label.find(']');
  const auto port_number = open == std::string::npos || close == std::string::npos || close < open
                               ? std::nullopt
                               : parse_unsigned(std::string_view(label).substr(open + 1, close - open - 1), 10, 254);
  const std::string rest = close == std::string::npos ? std::string() : label.substr(close + 1);
  if (open == 0 || !port_number || (!rest.empty() && rest[0] != '-'))
    throw ConfigError(fmt::format("link '{}' in {}: expected SWITCH[port] with the IB port (1..254), e.g. {}",
                                  shown(label), spec(), link_label(0)));
  const std::string name = label.substr(0, open);
  const RouterId r = find_router(name);
  const int port = static_cast<int>(*port_number) - 1;
  if (r == kNone) throw ConfigError(fmt::format("link '{}': no switch '{}' in {}", shown(label), shown(name), spec()));
  if (port < 0 || port >= radix(r) || peer(r, port).kind == PortPeer::Kind::kUnconnected)
    throw ConfigError(fmt::format("link '{}': port {} of '{}' is not connected in {}", label, port + 1, name, spec()));
  const PortPeer& pp = peer(r, port);
  if (!rest.empty()) {
    const std::string far =
        pp.kind == PortPeer::Kind::kRouter ? fmt::format("{}[{}]", router_label(pp.id), pp.port + 1) : "";
    if (far != rest.substr(1))
      throw ConfigError(fmt::format("link '{}': {}[{}] leads to {} in {}", shown(label), name, port + 1,
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
