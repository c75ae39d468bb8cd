#include "hw/immunet/immunet_control_plane.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hw/current_cycle.hpp"
#include "hw/network_interface.hpp"
#include "hw/router.hpp"
#include "tables/immunet/immunet_tables.hpp"

namespace ftsim::hw {

using routing::KAryNCube;

ImmunetControlPlane::ImmunetControlPlane(sc_core::sc_module_name name, NetworkContext& ctx,
                                         const routing::KAryNCube& topo, std::vector<Router*> routers,
                                         std::vector<NetworkInterface*> interfaces,
                                         std::vector<LinkDirection*> out_links, const ImmunetParams& params,
                                         ManagementBus& bus)
    : sc_module(name), m_topo(topo), m_status("status") {
  const int n = topo.num_routers();
  const int radix = topo.max_radix();
  const auto ss = tables::fault_free_ss_table(topo);
  auto ss_word = [](int o) { return o < 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(tables::ss_port(o)); };
  double dist_sum = 0;
  m_nodes.resize(static_cast<std::size_t>(n));
  // Boot tables through the back-door (section 2's fault-free tables).
  for (int r = 0; r < n; ++r) {
    ImmunetRouter* hw = dynamic_cast<ImmunetRouter*>(routers[r]->mechanism());
    if (hw == nullptr) throw std::logic_error(std::string(routers[r]->name()) + ": built without Immunet hardware");
    m_nodes[r] = hw;
    const auto s = tables::fault_free_safe_table(topo, r);
    const auto a = tables::fault_free_adaptive_table(topo, r);
    for (int d = 0; d < n; ++d) {
      hw->safe_table.write_word(d, static_cast<std::uint32_t>(s.mask(d)));
      hw->adaptive_table.write_word(2 * d, static_cast<std::uint32_t>(a.mask(d)));
      hw->adaptive_table.write_word(2 * d + 1, static_cast<std::uint32_t>(a.distance(d)));
      dist_sum += a.distance(d);
    }
    for (int p = 1; p < radix; ++p) hw->ss_table.write_word(p, ss_word(ss.next(tables::ss_index(p))));
    hw->set_single_ring(false);
  }
  m_mean_before = dist_sum / (static_cast<double>(n) * (n - 1));
  if (params.boot_tree_ring) {
    // The tables a completed reconfiguration would leave with no fault: the
    // BFS tree from router 0, its tour, and optimised safe tables (towards
    // the child whose subtree holds the destination, else the parent).
    const auto tree = tables::emergency_tree(topo, {}, 0);
    for (int r = 0; r < n; ++r) {
      ImmunetRouter& hw = *m_nodes[r];
      const auto tss = tables::tour_ss_table(topo, tree, r);
      for (int p = 1; p < radix; ++p) hw.ss_table.write_word(p, ss_word(tss.next(tables::ss_index(p))));
      const std::uint32_t up =
          tree.parent_port[r] >= 0 ? (1U << tree.parent_port[r]) : (1U << tree.children[r].front());
      for (int d = 0; d < n; ++d) hw.safe_table.write_word(d, up);
      hw.safe_table.write_word(r, 1U << KAryNCube::kLocalPort);
      hw.set_single_ring(true);
    }
    for (int d = 0; d < n; ++d)  // walk up from every destination, marking the port below
      for (int x = d; tree.parent_port[x] >= 0;) {
        const routing::PortPeer& pp = topo.peer(x, tree.parent_port[x]);
        m_nodes[pp.id]->safe_table.write_word(d, 1U << pp.port);
        x = pp.id;
      }
  }
  // From here on the Table Update Modules write through the management plane.
  for (int r = 0; r < n; ++r) {
    m_nodes[r]->table_update_module.attach(bus, r);
    m_nodes[r]->attach(*interfaces[r], ctx, m_status);
  }
  // Control packets in the safe VC lost in the network (a failed link or
  // router): counted here, checked for the end of the reconfiguration in the
  // second half of the cycle.
  ctx.control_lost = [this, &ctx](std::uint32_t) {
    ++m_lost_in_network;
    m_status.packet(-1);
    const std::uint64_t t = sc_core::sc_time_stamp().value();
    const std::uint64_t half = t / ctx.period_ticks * ctx.period_ticks + ctx.period_ticks / 2;
    m_status.poke(sc_core::sc_time::from_value((half > t ? half : half + ctx.period_ticks) - t));
  };
  // One ImmunetLink per link direction between two routers, bound to the
  // sender's Output Block and the receiver's Input Block.
  std::vector<ImmunetLink*> out(static_cast<std::size_t>(n) * radix, nullptr);
  for (int r = 0; r < n; ++r)
    for (int p = 1; p < radix; ++p) {
      const routing::PortPeer& pp = topo.peer(r, p);
      if (pp.kind != routing::PortPeer::Kind::kRouter) continue;
      const std::string ln = std::string("link_") + routers[r]->basename() + "_" + topo.port_name(r, p);
      m_links.push_back(std::make_unique<ImmunetLink>(ln.c_str(), *m_nodes[r], p, *m_nodes[pp.id], pp.port,
                                                      out_links[static_cast<std::size_t>(r) * radix + p]));
      out[static_cast<std::size_t>(r) * radix + p] = m_links.back().get();
    }
  for (int r = 0; r < n; ++r)
    for (int p = 1; p < radix; ++p) {
      const routing::PortPeer& pp = topo.peer(r, p);
      if (pp.kind != routing::PortPeer::Kind::kRouter) continue;
      m_nodes[r]->bind(p, out[static_cast<std::size_t>(r) * radix + p],
                       out[static_cast<std::size_t>(pp.id) * radix + pp.port]);
    }
}

const ImmunetReport& ImmunetControlPlane::report() const {
  ImmunetReport& rep = m_report;
  const bool complete = rep.complete;
  const double before = rep.mean_distance_before;
  const double after = rep.mean_distance_after;
  std::vector<int> lost = rep.lost_nodes;
  rep = ImmunetReport{};
  rep.complete = complete;
  rep.mean_distance_before = before;
  rep.mean_distance_after = after;
  rep.lost_nodes = std::move(lost);
  std::uint64_t last_done = 0;
  std::uint64_t last_root = 0;
  bool any_done = false;
  bool any_root = false;
  for (const ImmunetRouter* hw : m_nodes) {
    const ImmunetRouterCounters& c = hw->counters();
    if (c.detected) {
      if (!rep.happened || c.first_fault_cycle < rep.first_fault_cycle) rep.first_fault_cycle = c.first_fault_cycle;
      if (!rep.happened || c.first_detect_cycle < rep.first_detect_cycle) rep.first_detect_cycle = c.first_detect_cycle;
      rep.happened = true;
    }
    // Within a cycle the highest router id counts as the last (the order of
    // the network-wide loop this record replaced).
    if (c.finished && (!any_done || c.done_cycle >= last_done)) {
      any_done = true;
      last_done = c.done_cycle;
      rep.final_epl = c.done_epl;
    }
    if (c.finished_as_root && (!any_root || c.root_done_cycle >= last_root)) {
      any_root = true;
      last_root = c.root_done_cycle;
      rep.root = hw->id();
    }
    rep.emergency_end_cycle = std::max(rep.emergency_end_cycle, c.finished ? c.done_cycle : 0);
    rep += c;
  }
  rep.lost_control_packets += m_lost_in_network;
  return rep;
}

long ImmunetControlPlane::safe_table_bits() const {
  return static_cast<long>(m_topo.num_nodes()) * m_topo.max_radix();
}

long ImmunetControlPlane::adaptive_table_bits() const {
  int w = 0;
  while ((1L << w) < m_topo.num_nodes() + 1L) ++w;
  return static_cast<long>(m_topo.num_nodes()) * (m_topo.max_radix() + w);
}

long ImmunetControlPlane::ss_table_bits() const {
  const long p = 2L * m_topo.dimensions();
  return p * p;
}

void ImmunetControlPlane::finalize() {
  report();  // the routers' counters summed (the root is needed below)
  m_report.mean_distance_before = m_mean_before;
  m_report.complete = !m_status.active();
  const int n = static_cast<int>(m_nodes.size());
  double sum = 0;
  double pairs = 0;
  for (int r = 0; r < n; ++r) {
    if (m_nodes[r]->dead()) continue;
    for (int d = 0; d < n; ++d)
      if (d != r && !m_nodes[d]->dead() && adaptive_distance(r, d) < n) {
        sum += adaptive_distance(r, d);
        pairs += 1;
      }
  }
  m_report.mean_distance_after = pairs > 0 ? sum / pairs : 0.0;
  m_report.lost_nodes.clear();
  const int ref = m_report.root >= 0 ? m_report.root : 0;
  if (m_report.complete) {
    for (int d = 0; d < n; ++d)
      if (adaptive_distance(ref, d) >= n) m_report.lost_nodes.push_back(d);
    return;
  }
  // The run ended during a reconfiguration: the distance tables are still
  // being rebuilt, so they would list healthy nodes. Use what the routers'
  // detectors know instead: the nodes the root cannot reach over enabled
  // ports of live routers.
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<int> stack;
  if (!m_nodes[ref]->dead()) {
    stack.push_back(ref);
    seen[static_cast<std::size_t>(ref)] = 1;
  }
  const int ports = 2 * m_topo.dimensions();
  while (!stack.empty()) {
    const int r = stack.back();
    stack.pop_back();
    for (int i = 0; i < ports; ++i) {
      if (!(m_nodes[r]->reconfiguration_module.port_enable >> i & 1u)) continue;
      const routing::PortPeer& pp = m_topo.peer(r, i + 1);
      if (pp.kind != routing::PortPeer::Kind::kRouter || m_nodes[pp.id]->dead() || seen[pp.id]) continue;
      seen[pp.id] = 1;
      stack.push_back(pp.id);
    }
  }
  for (int d = 0; d < n; ++d)
    if (!seen[static_cast<std::size_t>(d)]) m_report.lost_nodes.push_back(d);
}

}  // namespace ftsim::hw
