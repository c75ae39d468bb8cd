#include "tables/lft.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "routing_logic/cdg.hpp"
#include "routing_logic/ibnet.hpp"
#include "routing_logic/lft_routing.hpp"

namespace ftsim::tables {

using ftsim::ConfigError;

LftSet LftSet::parse_dump(const std::string& text, const std::string& source) {
  static const std::regex header(
      R"(^Unicast lids \[(\d+)-(\d+)\] of switch Lid (\d+) guid 0x([0-9a-fA-F]{1,16}) \('(.*)'\):\s*$)");
  static const std::regex entry(
      R"(^0x([0-9a-fA-F]{1,4}) (\d{1,3})(?: # (Channel Adapter|Switch|Router) portguid 0x([0-9a-fA-F]{1,16}): '(.*)')?\s*$)");
  static const std::regex trailer(R"(^(\d+) lids dumped\s*$)");
  LftSet out;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  bool open = false;
  auto fail = [&](const std::string& why) { throw ConfigError(fmt::format("{}:{}: {}", source, no, why)); };
  while (std::getline(in, line)) {
    ++no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      if (open) fail("a new switch block before the previous one's 'N lids dumped' line");
      SwitchLft s;
      s.top_lid = std::stoi(m[2].str().substr(0, 6));
      s.lid = std::stoi(m[3].str().substr(0, 6));
      s.guid = std::stoull(m[4].str(), nullptr, 16);
      s.name = m[5];
      if (s.top_lid < 1 || s.top_lid > 49151) fail(fmt::format("top LID {} out of range, allowed 1..49151", s.top_lid));
      out.switches.push_back(s);
      open = true;
    } else if (std::regex_match(line, m, entry)) {
      if (!open) fail("a LID entry outside a switch block");
      SwitchLft& s = out.switches.back();
      const int lid = std::stoi(m[1].str(), nullptr, 16);
      const int port = std::stoi(m[2].str());
      if (lid < 1 || lid > s.top_lid)
        fail(fmt::format("LID 0x{:04x} out of range, allowed 0x0001..0x{:04x}", lid, s.top_lid));
      if (port > 254) fail(fmt::format("port {} out of range, allowed 0..254", port));
      if (!s.port.emplace(lid, port).second)
        fail(fmt::format("LID 0x{:04x} listed twice for switch '{}'", lid, s.name));
      if (m[3].matched) {
        LidEndpoint e{m[5], m[3] == "Switch", std::stoull(m[4].str(), nullptr, 16)};
        const auto [it, fresh] = out.lids.emplace(lid, e);
        if (!fresh && (it->second.name != e.name || it->second.guid != e.guid))
          fail(fmt::format("LID 0x{:04x} names '{}' here and '{}' before", lid, e.name, it->second.name));
      }
    } else if (std::regex_match(line, m, trailer)) {
      if (!open) fail("'lids dumped' outside a switch block");
      if (std::stoi(m[1].str().substr(0, 6)) != out.switches.back().top_lid)
        fail(fmt::format("the trailer says {} lids, the header's range ends at {}", m[1].str(),
                         out.switches.back().top_lid));
      open = false;
    } else {
      fail(fmt::format("not an opensm-lfts.dump line: '{}'", line));
    }
  }
  if (open) throw ConfigError(fmt::format("{}: the last switch block has no 'N lids dumped' line", source));
  if (out.switches.empty()) throw ConfigError(fmt::format("{}: no switch block", source));
  return out;
}

LftSet LftSet::load(const std::string& dir_or_file) {
  const std::string path = std::filesystem::is_directory(dir_or_file) ? dir_or_file + "/opensm-lfts.dump" : dir_or_file;
  std::ifstream f(path);
  if (!f) throw ConfigError(fmt::format("cannot read the LFT dump '{}'", path));
  std::stringstream text;
  text << f.rdbuf();
  return parse_dump(text.str(), path);
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

bool named_fabric(const routing::Topology& topo) {
  return dynamic_cast<const routing::IbNetTopology*>(&topo) != nullptr;
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
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) nodes[hca_name(topo, n)] = n;
  std::vector<int> node_lid(static_cast<std::size_t>(topo.num_nodes()), 0);
  for (const auto& [lid, e] : lfts.lids) {
    if (e.is_switch) continue;
    const auto it = nodes.find(e.name);
    if (it == nodes.end())
      throw ConfigError(fmt::format("LFTs: HCA '{}' (LID {}) is not in {}", e.name, lid, topo.spec()));
    node_lid[static_cast<std::size_t>(it->second)] = lid;
  }
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n)
    if (node_lid[static_cast<std::size_t>(n)] == 0)
      throw ConfigError(fmt::format("LFTs: no LID names HCA '{}' of {}", hca_name(topo, n), topo.spec()));
  NodeTables t;
  t.port.assign(static_cast<std::size_t>(topo.num_routers()),
                std::vector<routing::PortId>(static_cast<std::size_t>(topo.num_nodes()), routing::kNone));
  std::vector<char> covered(static_cast<std::size_t>(topo.num_routers()), 0);
  for (const SwitchLft& s : lfts.switches) {
    const auto it = routers.find(s.name);
    if (it == routers.end()) throw ConfigError(fmt::format("LFTs: switch '{}' is not in {}", s.name, topo.spec()));
    const routing::RouterId r = it->second;
    covered[static_cast<std::size_t>(r)] = 1;
    for (routing::NodeId n = 0; n < topo.num_nodes(); ++n) {
      const auto e = s.port.find(node_lid[static_cast<std::size_t>(n)]);
      if (e == s.port.end()) continue;
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
      node_lid[static_cast<std::size_t>(n)] = lid;
      out.lids[lid++] = {hca_name(topo, n), false, 0x0000000000100001ULL + 2 * static_cast<std::uint64_t>(n)};
    }
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      router_lid[static_cast<std::size_t>(r)] = lid;
      router_guid[static_cast<std::size_t>(r)] = 0x0000000000200000ULL + static_cast<std::uint64_t>(r);
      out.lids[lid++] = {switch_name(topo, r), true, router_guid[static_cast<std::size_t>(r)]};
    }
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
    for (routing::RouterId o = 0; o < topo.num_routers(); ++o) {
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
  std::map<std::string, const SwitchLft*> in_a;
  for (const SwitchLft& s : a.switches) in_a[s.name] = &s;
  std::map<std::string, const SwitchLft*> in_b;
  for (const SwitchLft& s : b.switches) in_b[s.name] = &s;
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
  double stretch_sum = 0;
  std::size_t stretched = 0;
  for (routing::NodeId s = 0; s < topo->num_nodes(); ++s)
    for (routing::NodeId t = 0; t < topo->num_nodes(); ++t) {
      if (s == t) continue;
      ++d.flows;
      const auto pa = trace(ta, *topo, none, s, t);
      const auto pb = trace(tb, *topo, dead, s, t);
      d.unrouted_a += pa.empty();
      d.unrouted_b += pb.empty();
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
