#include "tables/path_sl.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "common/text_input.hpp"

namespace ftsim::tables {

PathSlSet PathSlSet::parse(const std::string& text, const std::string& source) {
  PathSlSet out;
  LineReader lines(text, source);
  std::string_view line;
  while (lines.next(&line)) {
    Scanner sc(line);
    sc.skip_blanks();
    if (sc.at_end() || sc.eat("#")) continue;
    int v[3] = {0, 0, 0};
    static constexpr const char* kWhat[3] = {"source LID", "destination LID", "SL"};
    static constexpr std::uint64_t kMax[3] = {49151, 49151, 15};
    for (int i = 0; i < 3; ++i) {
      sc.skip_blanks();
      const auto digits = sc.digits();
      const auto value = parse_unsigned(digits, 10, kMax[i]);
      if (!value || (i < 2 && *value == 0))
        throw lines.error(fmt::format("{} '{}': expected {}..{} (a line is \"SLID DLID SL\")", kWhat[i],
                                      shown(digits.empty() ? sc.rest() : digits), i < 2 ? 1 : 0, kMax[i]));
      v[i] = static_cast<int>(*value);
    }
    if (!sc.at_end()) throw lines.error(fmt::format("unexpected '{}' after the SL", shown(sc.rest())));
    if (!out.sl.emplace(std::pair{v[0], v[1]}, v[2]).second)
      throw lines.error(fmt::format("the path {} -> {} is listed twice", v[0], v[1]));
  }
  return out;
}

std::optional<PathSlSet> PathSlSet::load_if_present(const std::string& dir) {
  std::error_code ec;
  const std::string path = (std::filesystem::path(dir) / "path-sl.txt").string();
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  return parse(read_text_file(path, "path SL file"), path);
}

std::string PathSlSet::dump() const {
  std::string out = "# SLID DLID SL: the service level of each path (LASH: its virtual layer)\n";
  for (const auto& [p, s] : sl) out += fmt::format("{} {} {}\n", p.first, p.second, s);
  return out;
}

routing::dqr::Layers layers_from_path_sl(const PathSlSet& sls, const routing::Topology& topo,
                                         const std::vector<int>& lids, bool require_all) {
  const auto n = static_cast<std::size_t>(topo.num_nodes());
  if (lids.size() != n) throw ConfigError(fmt::format("path SLs: {} LIDs for {} nodes", lids.size(), n));
  routing::dqr::Layers layers;
  layers.of_flow.assign(n * n, 0);
  int top = 0;
  for (routing::NodeId s = 0; s < topo.num_nodes(); ++s)
    for (routing::NodeId d = 0; d < topo.num_nodes(); ++d) {
      if (s == d || topo.node_router(s) == topo.node_router(d)) continue;
      const auto it = sls.sl.find({lids[static_cast<std::size_t>(s)], lids[static_cast<std::size_t>(d)]});
      if (it == sls.sl.end()) {
        if (require_all && !topo.is_switch_endpoint(s) && !topo.is_switch_endpoint(d))
          throw ConfigError(fmt::format("path SLs: no SL for {} (LID {}) -> {} (LID {})", topo.node_label(s),
                                        lids[static_cast<std::size_t>(s)], topo.node_label(d),
                                        lids[static_cast<std::size_t>(d)]));
        continue;
      }
      layers.of_flow[static_cast<std::size_t>(s) * n + static_cast<std::size_t>(d)] =
          static_cast<std::uint8_t>(it->second);
      top = std::max(top, it->second);
    }
  layers.count = top + 1;
  return layers;
}

PathSlSet path_sl_of(const routing::dqr::Layers& layers, const routing::Topology& topo, const std::vector<int>& lids) {
  if (layers.count > 16)
    throw ConfigError(fmt::format("path SLs: {} virtual layers, InfiniBand has 16 SLs", layers.count));
  PathSlSet out;
  for (routing::NodeId s = 0; s < topo.num_nodes(); ++s)
    for (routing::NodeId d = 0; d < topo.num_nodes(); ++d) {
      if (s == d || topo.is_switch_endpoint(s) || topo.is_switch_endpoint(d)) continue;
      out.sl[{lids[static_cast<std::size_t>(s)], lids[static_cast<std::size_t>(d)]}] =
          layers.of(s, d, topo.num_nodes());
    }
  return out;
}

std::string sl2vl_dump(const LftSet& set, const routing::Topology& topo, int layers) {
  std::string row;
  for (int sl = 0; sl < 16; ++sl) row += fmt::format(" {:<2d}", sl < layers ? sl : 15);
  const std::string header = "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15";
  const std::string rule = "#--------------------------------------------------------";
  std::string out;
  for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
    const SwitchLft* s = set.find_switch(switch_name(topo, r));
    out += fmt::format("Switch 0x{:016x}, base LID {}, \"{}\"\n{}\n{}\n", s ? s->guid : 0, s ? s->lid : 0,
                       switch_name(topo, r), header, rule);
    for (routing::PortId o = -1; o < topo.radix(r); ++o) {
      if (o >= 0 && topo.peer(r, o).kind == routing::PortPeer::Kind::kUnconnected) continue;
      for (routing::PortId i = -1; i < topo.radix(r); ++i) {
        if (i >= 0 && topo.peer(r, i).kind == routing::PortPeer::Kind::kUnconnected) continue;
        out += fmt::format("{:<3d} {:<3d} :{}\n", i + 1, o + 1, row);
      }
    }
    out += rule + "\n\n";
  }
  return out;
}

}  // namespace ftsim::tables
