// Dynamic local rerouting (DLR) in k-ary n-trees, link faults: deterministic
// with two virtual layers (DDLR), deterministic for one fault without the
// extra layer, and adaptive with a re-route bit vector (ADLR); plus
// deterministic destination-based up/down routing. Pure C++.
// Source: fat-tree-dynamic-local-rerouting.txt, sections V, VI-A, VI-C, VII-A
// and Appendix A (Theorem 2), Appendix B (Algorithm 1).
#pragma once
#include <cstdint>
#include <vector>

#include "routing_logic/topology/kary_ntree.hpp"
#include "routing_logic/routing_relation.hpp"

namespace ftsim::routing {

/// Deterministic up/down routing: at a common ancestor of the destination the
/// one downward port, otherwise the upward port k + d_l at tier l (digit l of
/// the destination, "D-mod-k": destinations below one switch spread over all
/// its upward links). A forwarding table, when present (RouterView), replaces
/// both choices: the DDRC subnet manager writes it. The selection of a dead
/// port yields no candidate (the packet is dropped, reason no_route).
class UpDownDeterministicRouting : public RoutingRelation {
 public:
  std::string name() const override { return "updown-det"; }
  void route(const RouteQuery& q, RouteSet& out) const override;
  /// The fault-free table entry: output port at switch r towards node d.
  PortId default_port(RouterId r, NodeId d) const;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  const KAryNTree* m_tree = nullptr;
};

/// Dynamic local rerouting around link faults.
///
/// kDeterministic (DDLR, R_det^link, section VI-A): VC 0 is the normal layer
/// NL, VC 1 the re-routing layer ML. Routing is a lookup in the Algorithm 1
/// table route[destination][in port][in VC] -> (out port, out VC), with the
/// upward sequence D = upward ports k, k+1, ..., 2k-1. When the looked-up
/// link is faulty: an upward output in ML (a U-turn) moves on along D to the
/// next live port, and the packet is discarded after the last one (counted,
/// DropReason::kRerouteDiscard); any other output in NL takes another live
/// port in the same direction (mechanism (i) of Appendix B); a downward
/// output in ML goes back through the incoming port (mechanism (ii)).
///
/// kOneFault (Appendix A, Theorem 2): one layer; the detour around a faulty
/// downward link always takes the lowest live other downward port, and the
/// U-turn switch the lowest live upward port other than the arrival port, so
/// all re-routed packets share one U-turn. Guaranteed for one fault only; a
/// packet that makes more than 2k U-turns is discarded (livelock guard).
///
/// kAdaptive (ADLR, R_adapt^link, section VII-A): one layer, every live
/// upward port in the upward phase; at a U-turn switch the bit of the arrival
/// port is set in the switch's re-route vector (RouterView::reroute) and any
/// live upward port whose bit is clear is a candidate; with none left the
/// packet is discarded. The vector is cleared after `reroute_timeout` cycles
/// without a U-turn, so repaired links are used again.
///
/// kDeterministicSwitch (R_det^switch, section VI-B): three layers NL = VC 0,
/// ML1 = VC 1, ML2 = VC 2, and the header's port field (-1, -2 or a port
/// number, DlrHeader::port_field) to re-route down two tiers around a faulty
/// switch and back to the same U-turn switch: steps 1-5 of the paper. A U-turn
/// from NL goes up the first live port of D other than the arrival port in
/// ML1 (the paper leaves the layer of step 4.b.i implicit; ML1 is the one its
/// step 4.b.ii continues in).
///
/// kAdaptiveSwitch (R_adapt^switch, section VII-B): one layer, the port field
/// and the re-route vector: steps 1-7 of the paper.
///
/// In every variant a repaired link is used again as soon as the router sees
/// it alive (transient faults).
class FatTreeDlrRouting : public RoutingRelation {
 public:
  enum class Variant { kDeterministic, kOneFault, kAdaptive, kDeterministicSwitch, kAdaptiveSwitch };
  explicit FatTreeDlrRouting(Variant v) : m_variant(v) {}
  std::string name() const override;
  int min_vcs() const override {
    return m_variant == Variant::kDeterministic ? 2 : m_variant == Variant::kDeterministicSwitch ? 3 : 1;
  }
  std::uint32_t injection_vcs() const override { return 1U; }
  void route(const RouteQuery& q, RouteSet& out) const override;
  void on_hop(PacketHeader& h, RouterId r, PortId port, VcId vc) const override;

  /// Cycles of U-turn inactivity after which ADLR clears a re-route vector
  /// (>= 1; default 10,000).
  void set_reroute_timeout(std::uint64_t cycles) { m_timeout = cycles; }
  Variant variant() const { return m_variant; }
  /// True for the adaptive variants, which keep a re-route vector per
  /// U-turn switch (RouterView::reroute; hw::RerouteVector in the model).
  bool uses_reroute_vector() const { return m_variant == Variant::kAdaptive || m_variant == Variant::kAdaptiveSwitch; }

  /// One Algorithm 1 table entry: output port and VC, kNone when the
  /// combination cannot occur, kDiscard after the last port of D.
  struct Entry {
    std::int8_t port = kNone;
    std::int8_t vc = 0;
  };
  static constexpr std::int8_t kDiscard = -2;
  /// route[d][in_port][in_vc] of switch s (Algorithm 1, ROUTEDESTINATION).
  Entry table_entry(RouterId s, NodeId d, PortId in_port, VcId in_vc) const;
  /// Next upward port after p in D, or kNone after the last.
  PortId next_in_sequence(PortId p) const { return p + 1 < 2 * m_k ? p + 1 : kNone; }
  bool is_ancestor(RouterId s, NodeId d) const;

 protected:
  void check_topology(const Topology& topo) const override;
  void on_configure() override;

 private:
  Entry compute_entry(RouterId s, NodeId d, PortId in_port, VcId in_vc) const;
  void route_deterministic(const RouteQuery& q, RouteSet& out) const;
  void route_one_fault(const RouteQuery& q, RouteSet& out) const;
  void route_adaptive(const RouteQuery& q, RouteSet& out) const;
  void route_switch(const RouteQuery& q, RouteSet& out, bool adaptive) const;
  /// The header state of the variants (PacketHeader::state): all zero at
  /// injection.
  struct DlrHeader {
    /// R_1 (section V): U-turns made so far, the livelock guard (0..255).
    std::uint8_t u_turns = 0;
    /// The previous hop went down (the packet arrived from above), 0 or 1.
    std::uint8_t from_above = 0;
    /// Switch variants: the arrival port at the current switch.
    std::uint8_t arrival_port = 0;
    /// Switch variants: the port field (section VI-B), -1 -> 0, -2 -> 1,
    /// port p -> p + 2; read through port_field().
    std::uint8_t port_field_code = 0;
    [[nodiscard]] int port_field() const {
      return port_field_code == 0 ? -1 : port_field_code == 1 ? -2 : port_field_code - 2;
    }
    void set_port_field(int pf) { port_field_code = static_cast<std::uint8_t>(pf == -1 ? 0 : pf == -2 ? 1 : pf + 2); }
  };
  /// Port field of the header: -1, -2 or a port number.
  static int port_field(const PacketHeader& h) { return h.state.get<DlrHeader>().port_field(); }
  /// U-turn candidates of the adaptive variants (steps 3-5 / 4b, 5, 7).
  void adaptive_uturn(const RouteQuery& q, RouteSet& out) const;
  bool alive(const RouteQuery& q, PortId p) const {
    return p >= 0 && topology().peer(q.router, p).kind != PortPeer::Kind::kUnconnected && (q.view.port_alive >> p & 1U);
  }
  /// Lowest live port in [first, last) other than `except`, or kNone.
  PortId first_alive(const RouteQuery& q, PortId first, PortId last, PortId except) const;

  Variant m_variant;
  const KAryNTree* m_tree = nullptr;
  int m_k = 0;
  std::uint64_t m_timeout = 10000;
  /// Algorithm 1 tables, filled at configure time when they hold at most
  /// 2^24 entries (indexed ((s * nodes + d) * 2k + port) * 2 + vc).
  std::vector<Entry> m_table;
};

}  // namespace ftsim::routing
