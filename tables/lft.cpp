#include "tables/lft.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/text_input.hpp"
#include "routing_logic/cdg.hpp"
#include "routing_logic/lft_routing.hpp"
#include "routing_logic/topology/ibnet.hpp"
#include "routing_logic/topology/switch_endpoints.hpp"

namespace ftsim::tables {

using ftsim::ConfigError;
using ftsim::LineReader;
using ftsim::parse_unsigned;
using ftsim::Scanner;
using ftsim::shown;

namespace {

constexpr std::uint64_t kMaxUnicastLid = 0xBFFF;  // 49151: IBA unicast LIDs are 1..0xBFFF
constexpr std::uint64_t kMaxPort = 254;

/// A name quoted as 'NAME' followed by `tail` at the end of the line (the
/// name may itself hold quotes: the last `'` + tail ends it).
std::optional<std::string_view> quoted_to_end(Scanner& sc, std::string_view tail) {
  std::string_view r = sc.rest();
  while (!r.empty() && (r.back() == ' ' || r.back() == '\t')) r.remove_suffix(1);
  const std::string close = "'" + std::string(tail);
  if (r.size() < 1 + close.size() || r.front() != '\'' || r.substr(r.size() - close.size()) != close)
    return std::nullopt;
  return r.substr(1, r.size() - 1 - close.size());
}

}  // namespace

LftSet LftSet::parse_dump(const std::string& text, const std::string& source) {
  LftSet out;
  LineReader lines(text, source);
  std::string_view line;
  bool open = false;
  auto fail = [&](const std::string& why) { throw lines.error(why); };
  // A number field: digits of `base` in 0..max (a LID, a port, a count).
  auto number = [&](Scanner& sc, bool hex, std::uint64_t min, std::uint64_t max, const char* field) {
    const std::string_view d = sc.digits(hex);
    if (d.empty()) fail(fmt::format("expected the {} (a {} number)", field, hex ? "hexadecimal" : "decimal"));
    const auto v = parse_unsigned(d, hex ? 16 : 10, max);
    if (!v || *v < min) {
      if (hex) fail(fmt::format("{} 0x{} out of range, allowed 0x{:x}..0x{:x}", field, shown(d), min, max));
      fail(fmt::format("{} {} out of range, allowed {}..{}", field, shown(d), min, max));
    }
    return *v;
  };
  auto guid = [&](Scanner& sc, const char* field) {
    if (!sc.eat("0x")) fail(fmt::format("expected the {} as 0x followed by hexadecimal digits", field));
    const std::string_view d = sc.digits(true);
    const auto v = parse_unsigned(d, 16, UINT64_MAX);
    if (!v) fail(fmt::format("{} 0x{}: expected 1..16 hexadecimal digits", field, shown(d)));
    return *v;
  };
  while (lines.next(&line)) {
    Scanner sc(line);
    if (sc.at_end()) continue;
    if (sc.eat("Unicast lids [")) {
      // Unicast lids [0-TOP] of switch Lid L guid 0xG ('NAME'):
      if (open) fail("a new switch block before the previous one's 'N lids dumped' line");
      SwitchLft s;
      number(sc, false, 0, 0, "first LID of the block");
      if (!sc.eat("-")) fail("expected '-' in the block's LID range [0-TOP]");
      s.top_lid = static_cast<int>(number(sc, false, 1, kMaxUnicastLid, "top LID"));
      if (!sc.eat("] of switch Lid ")) fail("expected '] of switch Lid ' after the LID range");
      s.lid = static_cast<int>(number(sc, false, 1, kMaxUnicastLid, "switch LID"));
      if (!sc.eat(" guid ")) fail("expected ' guid 0x...' after the switch LID");
      s.guid = guid(sc, "switch GUID");
      if (!sc.eat(" (")) fail("expected \" ('NAME'):\" after the switch GUID");
      const auto name = quoted_to_end(sc, "):");
      if (!name) fail("expected the switch name as ('NAME'): at the end of the line");
      // Bounded so that every line dump() writes back parses again.
      if (const std::string e = ftsim::name_length_error(*name, "switch name"); !e.empty()) fail(e);
      s.name = std::string(*name);
      out.switches.push_back(s);
      open = true;
    } else if (sc.eat("0x")) {
      // 0xLID PORT [# Channel Adapter|Switch|Router portguid 0xG: 'NAME']
      if (!open) fail("a LID entry outside a switch block");
      SwitchLft& s = out.switches.back();
      const int lid = static_cast<int>(number(sc, true, 1, static_cast<std::uint64_t>(s.top_lid), "LID"));
      if (!sc.eat(" ")) fail("expected a space and the port after the LID");
      const int port = static_cast<int>(number(sc, false, 0, kMaxPort, "port"));
      if (!s.port.emplace(lid, port).second)
        fail(fmt::format("LID 0x{:04x} listed twice for switch '{}'", lid, s.name));
      if (sc.at_end()) continue;
      if (!sc.eat("# ")) fail(fmt::format("unexpected text after the port: '{}'", shown(sc.rest())));
      bool is_switch = false;
      if (sc.eat("Switch")) {
        is_switch = true;
      } else if (!sc.eat("Channel Adapter") && !sc.eat("Router")) {
        fail("expected 'Channel Adapter', 'Switch' or 'Router' after '#'");
      }
      if (!sc.eat(" portguid ")) fail("expected ' portguid 0x...' after the node type");
      const std::uint64_t g = guid(sc, "port GUID");
      if (!sc.eat(": ")) fail("expected \": 'NAME'\" after the port GUID");
      const auto name = quoted_to_end(sc, "");
      if (!name) fail("expected the node name as 'NAME' at the end of the line");
      if (const std::string too_long = ftsim::name_length_error(*name, "node name"); !too_long.empty()) fail(too_long);
      LidEndpoint e{std::string(*name), is_switch, g};
      const auto [it, fresh] = out.lids.emplace(lid, e);
      if (!fresh && (it->second.name != e.name || it->second.guid != e.guid))
        fail(fmt::format("LID 0x{:04x} names '{}' (GUID 0x{:016x}) here and '{}' (GUID 0x{:016x}) before", lid, e.name,
                         e.guid, it->second.name, it->second.guid));
    } else if (!sc.digits().empty()) {
      // N lids dumped
      Scanner count(line);
      count.skip_blanks();
      const std::uint64_t n = number(count, false, 0, kMaxUnicastLid, "trailer's LID count");
      if (!count.eat(" lids dumped") || !count.at_end())
        fail(fmt::format("not an opensm-lfts.dump line: '{}'", shown(line)));
      if (!open) fail("'lids dumped' outside a switch block");
      if (n != static_cast<std::uint64_t>(out.switches.back().top_lid))
        fail(fmt::format("the trailer says {} lids, the header's range ends at {}", n, out.switches.back().top_lid));
      open = false;
    } else {
      fail(fmt::format("not an opensm-lfts.dump line: '{}'", shown(line)));
    }
  }
  if (open) throw ConfigError(fmt::format("{}: the last switch block has no 'N lids dumped' line", source));
  if (out.switches.empty()) throw ConfigError(fmt::format("{}: no switch block", source));
  return out;
}

LftSet LftSet::load(const std::string& dir_or_file) {
  std::error_code ec;
  const std::string path =
      std::filesystem::is_directory(dir_or_file, ec) ? dir_or_file + "/opensm-lfts.dump" : dir_or_file;
  return parse_dump(read_text_file(path, "LFT dump"), path);
}

std::string LftSet::dump() const {
  std::string out;
  for (const SwitchLft& s : switches) {
    out +=
        fmt::format("Unicast lids [0-{}] of switch Lid {} guid 0x{:016x} ('{}'):\n", s.top_lid, s.lid, s.guid, s.name);
    for (const auto& [lid, port] : s.port) {
      out += fmt::format("0x{:04x} {:03d}", lid, port);
      if (const auto it = lids.find(lid); it != lids.end())
        out += fmt::format(" # {} portguid 0x{:016x}: '{}'", it->second.is_switch ? "Switch" : "Channel Adapter",
                           it->second.guid, it->second.name);
      out += "\n";
    }
    out += fmt::format("{} lids dumped\n", s.top_lid);
  }
  return out;
}

const SwitchLft* LftSet::find_switch(const std::string& name) const {
  for (const SwitchLft& s : switches)
    if (s.name == name) return &s;
  return nullptr;
}

int LftSet::lid_of(const std::string& name) const {
  for (const auto& [lid, e] : lids)
    if (e.name == name) return lid;
  return 0;
}

std::size_t LftSet::entries() const {
  std::size_t n = 0;
  for (const SwitchLft& s : switches) n += s.port.size();
  return n;
}

namespace {

const routing::IbNetTopology* ibnet_of(const routing::Topology& topo) {
  if (const auto* s = dynamic_cast<const routing::SwitchEndpointTopology*>(&topo)) return ibnet_of(s->base());
  return dynamic_cast<const routing::IbNetTopology*>(&topo);
}

bool named_fabric(const routing::Topology& topo) {
  return ibnet_of(topo) != nullptr;
}

std::string underscores(std::string s) {
  for (char& c : s)
    if (c == ',') c = '_';
  return s;
}

}  // namespace

std::string switch_name(const routing::Topology& topo, routing::RouterId r) {
  return named_fabric(topo) ? topo.router_label(r) : "SW_" + underscores(topo.router_label(r));
}

std::string hca_name(const routing::Topology& topo, routing::NodeId n) {
  if (named_fabric(topo)) return topo.node_label(n);
  return "H_" + underscores(topo.router_label(topo.node_router(n))) + "_0";
}

std::string netfile(const routing::Topology& topo) {
  using routing::PortPeer;
  std::string out;
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n)
    out += fmt::format("Hca\t1 \"{}\"\n[1]\t\"{}\"[{}]\n\n", hca_name(topo, n), switch_name(topo, topo.node_router(n)),
                       topo.node_port(n) + 1);
  for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
    out += fmt::format("Switch\t{} \"{}\"\n", std::max(1, topo.radix(r)), switch_name(topo, r));
    for (routing::PortId p = 0; p < topo.radix(r); ++p) {
      const PortPeer& pp = topo.peer(r, p);
      if (pp.kind == PortPeer::Kind::kRouter)
        out += fmt::format("[{}]\t\"{}\"[{}]\n", p + 1, switch_name(topo, pp.id), pp.port + 1);
      else if (pp.kind == PortPeer::Kind::kNode)
        out += fmt::format("[{}]\t\"{}\"[1]\n", p + 1, hca_name(topo, pp.id));
    }
    out += "\n";
  }
  return out;
}

NodeTables place(const LftSet& lfts, const routing::Topology& topo) {
  std::map<std::string, routing::RouterId> routers;
  std::map<std::string, routing::NodeId> nodes;
  for (routing::RouterId r = 0; r < topo.num_routers(); ++r) routers[switch_name(topo, r)] = r;
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n)
    if (!topo.is_switch_endpoint(n)) nodes[hca_name(topo, n)] = n;
  // A fabric read from ibnetdiscover output knows its GUIDs: switches and
  // HCAs are matched by GUID (switch GUID; HCA port or node GUID) before
  // names, so a dump whose node descriptions differ still places (issue 50).
  std::map<std::uint64_t, routing::RouterId> router_by_guid;
  std::map<std::uint64_t, routing::NodeId> node_by_guid;
  if (const auto* ib = ibnet_of(topo)) {
    for (routing::RouterId r = 0; r < ib->num_routers(); ++r)
      if (ib->router_guid(r) != 0) router_by_guid[ib->router_guid(r)] = r;
    for (routing::NodeId n = 0; n < ib->num_nodes(); ++n) {
      if (ib->node_port_guid(n) != 0) node_by_guid[ib->node_port_guid(n)] = n;
      if (ib->node_guid(n) != 0) node_by_guid.emplace(ib->node_guid(n), n);
    }
  }
  auto find_router = [&](const std::string& name, std::uint64_t guid) -> routing::RouterId {
    if (const auto g = router_by_guid.find(guid); guid != 0 && g != router_by_guid.end()) return g->second;
    const auto it = routers.find(name);
    return it == routers.end() ? routing::kNone : it->second;
  };
  std::vector<int> node_lid(static_cast<std::size_t>(topo.num_nodes()), 0);
  // Switch endpoints (SwitchEndpointTopology): the switch's own LID, which
  // its own table sends to port 0 (the endpoint's "self" port here).
  std::map<routing::RouterId, const SwitchLft*> table_of;
  for (const SwitchLft& s : lfts.switches) {
    const routing::RouterId r = find_router(s.name, s.guid);
    if (r == routing::kNone)
      throw ConfigError(fmt::format("LFTs: switch '{}' (GUID {:#018x}) is not in {}", s.name, s.guid, topo.spec()));
    table_of[r] = &s;
  }
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) {
    if (!topo.is_switch_endpoint(n)) continue;
    const auto found = table_of.find(topo.node_router(n));
    const SwitchLft* s = found == table_of.end() ? nullptr : found->second;
    if (s == nullptr)
      throw ConfigError(
          fmt::format("LFTs: no table for switch '{}' of {}", switch_name(topo, topo.node_router(n)), topo.spec()));
    node_lid[static_cast<std::size_t>(n)] = s->lid;
  }
  for (const auto& [lid, e] : lfts.lids) {
    if (e.is_switch) continue;
    routing::NodeId n = routing::kNone;
    if (const auto g = node_by_guid.find(e.guid); e.guid != 0 && g != node_by_guid.end()) {
      n = g->second;
    } else if (const auto it = nodes.find(e.name); it != nodes.end()) {
      n = it->second;
    }
    if (n == routing::kNone)
      throw ConfigError(fmt::format("LFTs: HCA '{}' (LID {}) is not in {}", e.name, lid, topo.spec()));
    node_lid[static_cast<std::size_t>(n)] = lid;
  }
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n)
    if (node_lid[static_cast<std::size_t>(n)] == 0)
      throw ConfigError(fmt::format("LFTs: no LID names HCA '{}' of {}", hca_name(topo, n), topo.spec()));
  NodeTables t;
  t.port.assign(static_cast<std::size_t>(topo.num_routers()),
                std::vector<routing::PortId>(static_cast<std::size_t>(topo.num_nodes()), routing::kNone));
  std::vector<char> covered(static_cast<std::size_t>(topo.num_routers()), 0);
  for (const auto& [r, sp] : table_of) {
    const SwitchLft& s = *sp;
    covered[static_cast<std::size_t>(r)] = 1;
    for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) {
      const auto e = s.port.find(node_lid[static_cast<std::size_t>(n)]);
      if (e == s.port.end()) continue;
      if (topo.is_switch_endpoint(n) && topo.node_router(n) == r) {  // its own LID: port 0
        t.port[static_cast<std::size_t>(r)][static_cast<std::size_t>(n)] = topo.node_port(n);
        continue;
      }
      const int p = e->second - 1;
      if (p < 0 || p >= topo.radix(r) || topo.peer(r, p).kind == routing::PortPeer::Kind::kUnconnected)
        throw ConfigError(fmt::format("LFTs: switch '{}' sends LID {} to port {}, which is not connected in {}", s.name,
                                      node_lid[static_cast<std::size_t>(n)], e->second, topo.spec()));
      t.port[static_cast<std::size_t>(r)][static_cast<std::size_t>(n)] = p;
    }
  }
  for (routing::RouterId r = 0; r < topo.num_routers(); ++r)
    if (!covered[static_cast<std::size_t>(r)])
      throw ConfigError(fmt::format("LFTs: no table for switch '{}' of {}", switch_name(topo, r), topo.spec()));
  t.lid = node_lid;
  return t;
}

LftSet export_tables(const NodeTables& tables, const routing::Topology& topo, const LftSet& like) {
  LftSet out;
  const bool direct = topo.is_direct();
  std::vector<routing::NodeId> node_at(static_cast<std::size_t>(topo.num_routers()), routing::kNone);
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) node_at[static_cast<std::size_t>(topo.node_router(n))] = n;
  std::vector<int> node_lid(static_cast<std::size_t>(topo.num_nodes()), 0),
      router_lid(static_cast<std::size_t>(topo.num_routers()), 0);
  std::vector<std::uint64_t> router_guid(router_lid.size(), 0);
  if (!like.switches.empty()) {
    out.lids = like.lids;
    for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) {
      if (topo.is_switch_endpoint(n)) continue;  // the switch's LID, below
      node_lid[static_cast<std::size_t>(n)] = like.lid_of(hca_name(topo, n));
      if (node_lid[static_cast<std::size_t>(n)] == 0)
        throw ConfigError(fmt::format("LFT export: the reference tables have no LID for '{}'", hca_name(topo, n)));
    }
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      const SwitchLft* s = like.find_switch(switch_name(topo, r));
      if (s == nullptr)
        throw ConfigError(fmt::format("LFT export: the reference tables have no switch '{}'", switch_name(topo, r)));
      router_lid[static_cast<std::size_t>(r)] = s->lid;
      router_guid[static_cast<std::size_t>(r)] = s->guid;
    }
  } else {
    int lid = 1;
    for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) {
      if (topo.is_switch_endpoint(n)) continue;
      node_lid[static_cast<std::size_t>(n)] = lid;
      out.lids[lid++] = {hca_name(topo, n), false, 0x0000000000100001ULL + 2 * static_cast<std::uint64_t>(n)};
    }
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      router_lid[static_cast<std::size_t>(r)] = lid;
      router_guid[static_cast<std::size_t>(r)] = 0x0000000000200000ULL + static_cast<std::uint64_t>(r);
      out.lids[lid++] = {switch_name(topo, r), true, router_guid[static_cast<std::size_t>(r)]};
    }
  }
  // Switch endpoints carry their switch's LID: their table entries are the
  // switch LIDs' routes (computed, not copied from the reference).
  bool switch_endpoints = false;
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n)
    if (topo.is_switch_endpoint(n)) {
      node_lid[static_cast<std::size_t>(n)] = router_lid[static_cast<std::size_t>(topo.node_router(n))];
      switch_endpoints = true;
    }
  int top = 0;
  for (const auto& [lid, e] : out.lids) top = std::max(top, lid);
  for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
    SwitchLft s;
    s.name = switch_name(topo, r);
    s.lid = router_lid[static_cast<std::size_t>(r)];
    s.guid = router_guid[static_cast<std::size_t>(r)];
    s.top_lid = top;
    const SwitchLft* ref = like.find_switch(s.name);
    if (ref != nullptr) s.top_lid = ref->top_lid;
    for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) {
      const routing::PortId p = tables.port[static_cast<std::size_t>(r)][static_cast<std::size_t>(n)];
      if (p != routing::kNone) s.port[node_lid[static_cast<std::size_t>(n)]] = p + 1;
    }
    s.port[s.lid] = 0;
    for (routing::RouterId o = 0; o < topo.num_routers() && !switch_endpoints; ++o) {
      if (o == r) continue;
      const int lid = router_lid[static_cast<std::size_t>(o)];
      if (direct && node_at[static_cast<std::size_t>(o)] != routing::kNone) {
        // A mesh/torus switch is reached like its own HCA.
        const routing::PortId p =
            tables.port[static_cast<std::size_t>(r)][static_cast<std::size_t>(node_at[static_cast<std::size_t>(o)])];
        if (p != routing::kNone) s.port[lid] = p + 1;
      } else if (ref != nullptr) {
        if (const auto e = ref->port.find(lid); e != ref->port.end()) s.port[lid] = e->second;
      }
    }
    out.switches.push_back(std::move(s));
  }
  // Keep the reference's switch order (the dump order OpenSM used).
  if (!like.switches.empty()) {
    std::map<std::string, std::size_t> rank;
    for (std::size_t i = 0; i < like.switches.size(); ++i) rank[like.switches[i].name] = i;
    std::stable_sort(out.switches.begin(), out.switches.end(),
                     [&rank](const SwitchLft& a, const SwitchLft& b) { return rank[a.name] < rank[b.name]; });
  }
  return out;
}

namespace {

// Switches visited from s's switch to d, or empty when the tables do not
// deliver (missing entry, failed link, loop).
std::vector<routing::RouterId> trace(const NodeTables& t, const routing::Topology& topo,
                                     const std::vector<char>& dead_link, routing::NodeId s, routing::NodeId d) {
  std::vector<routing::RouterId> path;
  const bool ok = routing::follow_tables(topo, t.port, dead_link, topo.node_router(s), d,
                                         [&path](routing::RouterId r, routing::PortId) { path.push_back(r); });
  if (!ok) return {};
  path.push_back(topo.node_router(d));
  return path;
}

std::vector<std::string> cycle_names(const NodeTables& t, const routing::Topology& topo,
                                     const routing::FaultSet& faults, bool& acyclic) {
  routing::LftRouting lft;
  lft.configure(topo, 1);
  lft.set_tables(t.port);
  const auto cdg = routing::build_cdg(lft, faults);
  const auto cycle = cdg.find_cycle();
  acyclic = cycle.empty();
  std::vector<std::string> names;
  for (int c : cycle) names.push_back(routing::describe_channel(topo, cdg.channel(c)));
  return names;
}

}  // namespace

LftDiff diff_tables(const LftSet& a, const LftSet& b, const routing::Topology* topo, const routing::FaultSet& faults) {
  LftDiff d;
  // Switches are matched by GUID when every switch of both sets has one
  // (a renamed switch is the same switch), else by name.
  bool by_guid = true;
  for (const LftSet* set : {&a, &b})
    for (const SwitchLft& s : set->switches) by_guid = by_guid && s.guid != 0;
  auto key = [by_guid](const SwitchLft& s) { return by_guid ? fmt::format("{:#018x}", s.guid) : s.name; };
  std::map<std::string, const SwitchLft*> in_a;
  for (const SwitchLft& s : a.switches) in_a[key(s)] = &s;
  std::map<std::string, const SwitchLft*> in_b;
  for (const SwitchLft& s : b.switches) in_b[key(s)] = &s;
  std::set<std::string> names;
  for (const auto& [n, p] : in_a) names.insert(n);
  for (const auto& [n, p] : in_b) names.insert(n);
  static const SwitchLft kEmpty;
  for (const std::string& n : names) {
    const SwitchLft& x = in_a.count(n) ? *in_a[n] : kEmpty;
    const SwitchLft& y = in_b.count(n) ? *in_b[n] : kEmpty;
    std::set<int> blocks;
    std::size_t changed = 0;
    for (const auto& [lid, port] : x.port) {
      const auto it = y.port.find(lid);
      if (it == y.port.end() || it->second != port) {
        ++changed;
        blocks.insert(lid / 64);
      }
    }
    for (const auto& [lid, port] : y.port)
      if (!x.port.count(lid)) {
        ++changed;
        blocks.insert(lid / 64);
      }
    d.entries_changed += changed;
    d.blocks_changed += blocks.size();
    d.switches_changed += changed > 0;
  }
  if (topo == nullptr) return d;
  d.traced = true;
  const NodeTables ta = place(a, *topo), tb = place(b, *topo);
  std::vector<char> dead(static_cast<std::size_t>(topo->num_links()), 0), none = dead;
  for (routing::LinkId l : faults.links) dead[static_cast<std::size_t>(l)] = 1;
  std::vector<char> lost(static_cast<std::size_t>(topo->num_routers()), 0);
  for (routing::RouterId r : faults.routers) {
    lost[static_cast<std::size_t>(r)] = 1;
    for (routing::PortId p = 0; p < topo->radix(r); ++p)
      if (const routing::LinkId l = topo->peer(r, p).link; l != routing::kNone) dead[static_cast<std::size_t>(l)] = 1;
  }
  double stretch_sum = 0;
  std::size_t stretched = 0;
  for (routing::NodeId s = 0; s < topo->num_nodes(); ++s)
    for (routing::NodeId t = 0; t < topo->num_nodes(); ++t) {
      if (s == t) continue;
      if (lost[static_cast<std::size_t>(topo->node_router(s))] ||
          lost[static_cast<std::size_t>(topo->node_router(t))]) {
        ++d.flows_lost;
        continue;
      }
      ++d.flows;
      const auto pa = trace(ta, *topo, none, s, t);
      const auto pb = trace(tb, *topo, dead, s, t);
      d.unrouted_a += pa.empty();
      d.unrouted_b += pb.empty();
      auto name = [&](routing::NodeId n) {
        return topo->is_switch_endpoint(n) ? switch_name(*topo, topo->node_router(n)) : hca_name(*topo, n);
      };
      if (pa.empty() && d.unrouted_a_pairs.size() < 16) d.unrouted_a_pairs.push_back(name(s) + " -> " + name(t));
      if (pb.empty() && d.unrouted_b_pairs.size() < 16) d.unrouted_b_pairs.push_back(name(s) + " -> " + name(t));
      if (pa != pb) {
        ++d.flows_rerouted;
        if (!pa.empty() && !pb.empty()) {
          const double st = static_cast<double>(pb.size()) / static_cast<double>(pa.size());
          stretch_sum += st;
          ++stretched;
          d.stretch_max = std::max(d.stretch_max, st);
        }
      }
    }
  d.stretch_mean = stretched ? stretch_sum / static_cast<double>(stretched) : 0.0;
  d.cycle_a = cycle_names(ta, *topo, routing::FaultSet{}, d.acyclic_a);
  d.cycle_b = cycle_names(tb, *topo, faults, d.acyclic_b);
  return d;
}

}  // namespace ftsim::tables
