#include "tb/fault_injector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <random>

#include "routing_logic/topology/kary_ncube.hpp"
#include "tb/traffic_generator.hpp"

namespace ftsim::tb {

using ftsim::ConfigError;

namespace {
int live_components(const routing::Topology& topo, const routing::FaultSet& fs) {
  const auto comp = routing::node_components(topo, fs);
  std::vector<char> seen;
  int count = 0;
  for (int c : comp) {
    if (c < 0) continue;
    if (c >= static_cast<int>(seen.size())) seen.resize(c + 1, 0);
    if (!seen[c]) {
      seen[c] = 1;
      ++count;
    }
  }
  return count;
}
}  // namespace

std::vector<routing::NodeId> bgl_bypassed_nodes(const routing::Topology& topo, const std::vector<ResolvedFault>& faults,
                                                int plane_nodes) {
  const auto* cube = dynamic_cast<const routing::KAryNCube*>(&topo);
  if (cube == nullptr || cube->dimensions() != 3)
    throw ConfigError(fmt::format("faults.model = bgl-planes needs a 3-D mesh or torus, got {}", topo.spec()));
  const int kx = cube->radix_of(0), ky = cube->radix_of(1);
  if (plane_nodes % kx != 0 || (kx * ky) % plane_nodes != 0)
    throw ConfigError(
        fmt::format("faults.bgl_plane_nodes = {}: must be a multiple of k_x = {} that divides k_x*k_y = {}",
                    plane_nodes, kx, kx * ky));
  const int rows = plane_nodes / kx;
  std::vector<char> off(static_cast<std::size_t>(topo.num_nodes()), 0);
  for (const auto& f : faults) {
    if (f.is_router)
      throw ConfigError(fmt::format("faults.model = bgl-planes takes link faults only, got switch '{}'", f.label));
    const routing::RouterId a = topo.link(f.id).a;
    const int block = cube->coord(a, 1) / rows, z = cube->coord(a, 2);
    for (routing::NodeId n = 0; n < topo.num_nodes(); ++n)
      if (cube->coord(n, 2) == z && cube->coord(n, 1) / rows == block) off[static_cast<std::size_t>(n)] = 1;
  }
  std::vector<routing::NodeId> out;
  for (routing::NodeId n = 0; n < topo.num_nodes(); ++n)
    if (off[static_cast<std::size_t>(n)]) out.push_back(n);
  return out;
}

std::vector<routing::LinkId> fault_links(const routing::Topology& topo, const ResolvedFault& f) {
  if (!f.is_router) return {f.id};
  std::vector<routing::LinkId> out;
  for (routing::PortId p = 0; p < topo.radix(f.id); ++p)
    if (topo.peer(f.id, p).link != routing::kNone) out.push_back(topo.peer(f.id, p).link);
  return out;
}

namespace {
std::string interval_text(const ResolvedFault& f) {
  return f.repair >= 0 ? fmt::format("cycles {}..{}", f.at, f.repair) : fmt::format("from cycle {}", f.at);
}
}  // namespace

void check_no_overlap(const routing::Topology& topo, const std::vector<ResolvedFault>& faults) {
  // The links each fault takes down: a link fault its link, a switch fault
  // every link of the switch. A repair brings all of them back, so two faults
  // that hold one link at the same time, one of them transient, would end the
  // other early (issue: overlapping transient faults).
  std::vector<std::vector<routing::LinkId>> links;
  for (const auto& f : faults) links.push_back(fault_links(topo, f));
  constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < faults.size(); ++i)
    for (std::size_t j = i + 1; j < faults.size(); ++j) {
      const auto& a = faults[i];
      const auto& b = faults[j];
      if (a.repair < 0 && b.repair < 0) continue;  // two permanent faults: nothing ends early
      const std::int64_t ea = a.repair >= 0 ? a.repair : kNever;
      const std::int64_t eb = b.repair >= 0 ? b.repair : kNever;
      if (!(a.at < eb && b.at < ea)) continue;
      const bool same_router = a.is_router && b.is_router && a.id == b.id;
      routing::LinkId shared = routing::kNone;
      for (routing::LinkId l : links[i])
        if (std::find(links[j].begin(), links[j].end(), l) != links[j].end()) shared = l;
      if (!same_router && shared == routing::kNone) continue;
      throw ConfigError(fmt::format(
          "faults: '{}' ({}) and '{}' ({}) overlap on {}; the first repair would end the other fault early. "
          "Give faults on the same link or switch disjoint intervals",
          a.label, interval_text(a), b.label, interval_text(b),
          same_router ? "switch " + a.label : "link " + topo.link_label(shared)));
    }
}

routing::FaultSet permanent_faults(const std::vector<ResolvedFault>& faults) {
  routing::FaultSet fs;
  for (const auto& f : faults) {
    if (f.repair >= 0) continue;
    (f.is_router ? fs.routers : fs.links).push_back(f.id);
  }
  return fs;
}

namespace {
/// Takes `count` faults from `candidates` (router ids when `routers`, else
/// link ids) in their order, skipping each that would split the surviving
/// nodes into more groups than `fs` already does; appends them to `out` and
/// to `fs`. Returns how many were taken.
int draw_keeping_connected(const routing::Topology& topo, routing::FaultSet& fs, const std::vector<int>& candidates,
                           int count, std::int64_t at, bool routers, std::vector<ResolvedFault>& out) {
  const int base = live_components(topo, fs);
  int drawn = 0;
  for (const int id : candidates) {
    if (drawn == count) break;
    auto& ids = routers ? fs.routers : fs.links;
    ids.push_back(id);
    if (live_components(topo, fs) > base) {
      ids.pop_back();
      continue;
    }
    ResolvedFault f;
    f.is_router = routers;
    f.id = id;
    f.label = routers ? topo.router_label(id) : topo.link_label(id);
    f.at = at;
    f.random = true;
    out.push_back(f);
    ++drawn;
  }
  return drawn;
}
}  // namespace

std::vector<ResolvedFault> resolve_faults(const routing::Topology& topo, const FaultsSpec& spec,
                                          bool allow_disconnect) {
  std::vector<ResolvedFault> out;
  for (std::size_t i = 0; i < spec.schedule.size(); ++i) {
    const FaultSpec& f = spec.schedule[i];
    ResolvedFault r;
    r.at = f.at;
    r.repair = f.repair;
    try {
      if (!f.link.empty()) {
        r.id = topo.parse_link_any(f.link);
        r.label = topo.link_label(r.id);
      } else {
        r.is_router = true;
        r.id = topo.parse_router(f.router);
        r.label = topo.router_label(r.id);
      }
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("faults.schedule[{}]: {}", i, e.what()));
    }
    out.push_back(r);
  }
  if (const FaultModelFunction model = user_fault_model(spec.model)) {
    for (ResolvedFault f : model(topo, spec)) {
      const int limit = f.is_router ? topo.num_routers() : topo.num_links();
      if (f.id < 0 || f.id >= limit)
        throw ConfigError(fmt::format("faults.model = '{}': {} id {} out of range 0..{}", spec.model,
                                      f.is_router ? "router" : "link", f.id, limit - 1));
      if (f.repair >= 0 && f.repair <= f.at)
        throw ConfigError(fmt::format("faults.model = '{}': fault at cycle {} repaired at {} (must be later)",
                                      spec.model, f.at, f.repair));
      f.label = f.is_router ? topo.router_label(f.id) : topo.link_label(f.id);
      out.push_back(f);
    }
  }
  if (spec.random_switches > 0) {
    routing::FaultSet fs = permanent_faults(out);
    std::vector<char> taken(static_cast<std::size_t>(topo.num_routers()), 0);
    for (const auto& f : out)
      if (f.is_router) taken[static_cast<std::size_t>(f.id)] = 1;
    std::vector<routing::RouterId> candidates;
    for (routing::RouterId r = 0; r < topo.num_routers(); ++r) {
      bool has_node = false;
      for (routing::PortId p = 0; p < topo.radix(r); ++p)
        has_node = has_node || topo.peer(r, p).kind == routing::PortPeer::Kind::kNode;
      if (!taken[static_cast<std::size_t>(r)] && !has_node) candidates.push_back(r);
    }
    std::mt19937_64 rng(derive_seed(spec.random_seed, 0x5A17C4));
    std::shuffle(candidates.begin(), candidates.end(), rng);
    const int drawn = draw_keeping_connected(topo, fs, candidates, spec.random_switches, spec.random_at, true, out);
    if (drawn < spec.random_switches)
      throw ConfigError(
          fmt::format("faults.random_switches = {}: only {} switches of {} without an attached node can fail without "
                      "disconnecting the surviving nodes",
                      spec.random_switches, drawn, topo.spec()));
  }
  if (spec.random_links > 0) {
    routing::FaultSet fs = permanent_faults(out);
    // Random links avoid every link a scheduled fault already takes down
    // (permanent or transient, link or switch), so they never overlap one.
    std::vector<char> taken(static_cast<std::size_t>(topo.num_links()), 0);
    for (const auto& f : out)
      for (routing::LinkId l : fault_links(topo, f)) taken[static_cast<std::size_t>(l)] = 1;
    std::vector<routing::LinkId> candidates;
    for (routing::LinkId l = 0; l < topo.num_links(); ++l)
      if (!taken[static_cast<std::size_t>(l)]) candidates.push_back(l);
    std::mt19937_64 rng(derive_seed(spec.random_seed, 0xFA17));
    std::shuffle(candidates.begin(), candidates.end(), rng);
    std::vector<routing::LinkId> switch_links;  // losing a node link always disconnects that node
    for (routing::LinkId l : candidates)
      if (!topo.link(l).b_is_node) switch_links.push_back(l);
    const std::size_t first = out.size();
    const int drawn = draw_keeping_connected(topo, fs, switch_links, spec.random_links, spec.random_at, false, out);
    if (drawn < spec.random_links)
      throw ConfigError(fmt::format(
          "faults.random_links = {}: only {} links of {} can fail without disconnecting the surviving nodes",
          spec.random_links, drawn, topo.spec()));
    if (spec.random_until > spec.random_at) {
      // Spread over the interval, in the drawn order (the connectivity check
      // holds for every prefix of the draw).
      std::mt19937_64 when(derive_seed(spec.random_seed, 0x7153));
      std::uniform_int_distribution<std::int64_t> u(spec.random_at, spec.random_until);
      std::vector<std::int64_t> cycles;
      for (std::size_t i = first; i < out.size(); ++i) cycles.push_back(u(when));
      std::sort(cycles.begin(), cycles.end());
      for (std::size_t i = first; i < out.size(); ++i) out[i].at = cycles[i - first];
    }
  }
  check_no_overlap(topo, out);
  const int comps = live_components(topo, permanent_faults(out));
  if (comps > 1 && !allow_disconnect)
    throw ConfigError(fmt::format(
        "faults: the permanent faults disconnect the network {} into {} groups of surviving nodes; remove a fault "
        "or give it a repair cycle",
        topo.spec(), comps));
  return out;
}

FaultInjector::FaultInjector(sc_core::sc_module_name name, Network& net, std::vector<ResolvedFault> faults,
                             std::int64_t detection_delay)
    : sc_module(name), m_net(net), m_faults(std::move(faults)) {
  for (std::size_t i = 0; i < m_faults.size(); ++i) {
    const auto& f = m_faults[i];
    m_events.push_back(Event{f.at, 0, i});
    m_events.push_back(Event{f.at + detection_delay, 1, i});
    if (f.repair >= 0) {
      m_events.push_back(Event{f.repair, 2, i});
      m_events.push_back(Event{f.repair + detection_delay, 3, i});
    }
  }
  std::stable_sort(m_events.begin(), m_events.end(), [](const Event& a, const Event& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.order < b.order;
  });
  SC_METHOD(fire);
}

void FaultInjector::fire() {
  const auto now = static_cast<std::int64_t>(m_net.cycle());
  while (m_next < m_events.size() && m_events[m_next].cycle <= now) {
    const Event& e = m_events[m_next++];
    const ResolvedFault& f = m_faults[e.fault];
    const routing::Topology& t = m_net.topology();
    if (!f.is_router) {
      switch (e.order) {
        case 0:
          m_net.fail_link(f.id);
          break;
        case 1:
          m_net.set_link_detected(f.id, false);
          m_net.fault_detected(f.id, static_cast<std::uint64_t>(f.at));
          break;
        case 2:
          m_net.repair_link(f.id);
          break;
        default:
          m_net.set_link_detected(f.id, true);
          break;
      }
    } else {
      const std::vector<routing::LinkId> links = fault_links(t, f);
      switch (e.order) {
        case 0:
          m_net.fail_router(f.id);
          break;
        case 1:
          for (auto l : links) {
            m_net.set_link_detected(l, false);
            m_net.fault_detected(l, static_cast<std::uint64_t>(f.at));
          }
          break;
        case 2:
          m_net.routers[f.id].repair();
          for (auto l : links) m_net.repair_link(l);
          break;
        default:
          for (auto l : links) m_net.set_link_detected(l, true);
          break;
      }
    }
    if (e.order == 0 || e.order == 2) {
      // Traffic only targets nodes that are alive and reachable now.
      routing::FaultSet now_failed;
      for (std::size_t i = 0; i < m_faults.size(); ++i) {
        const auto& g = m_faults[i];
        if (g.at <= now && (g.repair < 0 || g.repair > now))
          (g.is_router ? now_failed.routers : now_failed.links).push_back(g.id);
      }
      m_net.update_traffic_components(now_failed);
    }
  }
  if (m_next < m_events.size()) next_trigger(m_net.clk.period() * static_cast<double>(m_events[m_next].cycle - now));
}

}  // namespace ftsim::tb
