// Router-level tests: one router (the centre of a 3x3 mesh under DOR) with
// stub neighbours. The test drives flits into its input links directly and
// records what leaves its output links; each downstream stub either sinks
// flits (returns a credit per flit) or withholds credits. Every expected
// number below is a hand count from the allocator rules in hw/router.hpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <systemc>
#include <vector>

#include "hw/network_context.hpp"
#include "hw/router.hpp"
#include "routing_logic/routing_relation.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::test {
namespace {

using hw::Flit;
using routing::PortPeer;

constexpr routing::RouterId kCentre = 4;  // (1,1) of the 3x3 mesh

/// Downstream behaviour of one output port.
enum class Stub { kSink, kWithhold };

struct Departure {
  std::uint64_t cycle;  ///< cycle the flit is visible downstream
  Flit flit;
};

class RouterBench : public sc_core::sc_module {
 public:
  sc_core::sc_clock clk{"clk", sc_core::sc_time(1, sc_core::SC_NS)};
  std::unique_ptr<routing::Topology> topo = routing::make_topology("mesh:3x3");
  std::unique_ptr<routing::RoutingRelation> relation = routing::make_routing("dor");
  hw::NetworkContext ctx;
  std::unique_ptr<hw::Router> router;
  std::vector<hw::LinkDirection> in, out;
  std::vector<Stub> stub;
  std::map<int, std::vector<Departure>> departed;                     ///< per output port
  std::map<int, std::vector<std::pair<std::uint64_t, Flit>>> staged;  ///< per input port: flits sent by the test
  std::vector<int> credits_back;                                      ///< per input port: credits the router returned
  int max_credit_seen = 0;
  int min_credit_seen = 1 << 30;

  SC_HAS_PROCESS(RouterBench);
  explicit RouterBench(const hw::RouterParams& params, int max_packet_flits = 4)
      : sc_module(sc_core::sc_module_name("bench")) {
    relation->configure(*topo, params.vcs);
    ctx.params = params;
    ctx.relation = relation.get();
    ctx.topology = topo.get();
    ctx.max_packet_flits = max_packet_flits;
    ctx.period_ticks = clk.period().value();
    const int radix = topo->radix(kCentre);
    in.resize(static_cast<std::size_t>(radix));
    out.resize(static_cast<std::size_t>(radix));
    stub.assign(static_cast<std::size_t>(radix), Stub::kSink);
    credits_back.assign(static_cast<std::size_t>(radix), 0);
    router = std::make_unique<hw::Router>("router", kCentre, radix, ctx);
    router->clk(clk);
    for (int p = 0; p < radix; ++p) {
      const PortPeer& pp = topo->peer(kCentre, p);
      router->bind_port(p, &in[p], &out[p], pp.kind == PortPeer::Kind::kNode);
    }
    SC_METHOD(stubs);
    sensitive << clk.posedge_event();
    dont_initialize();
  }

  /// Port of the centre router towards neighbour router r (or the node port for -1).
  int port_to(routing::RouterId r) const {
    for (int p = 0; p < topo->radix(kCentre); ++p) {
      const PortPeer& pp = topo->peer(kCentre, p);
      if ((r < 0 && pp.kind == PortPeer::Kind::kNode) || (pp.kind == PortPeer::Kind::kRouter && pp.id == r)) return p;
    }
    return -1;
  }
  int west() const { return port_to(3); }
  int east() const { return port_to(5); }
  int north() const { return port_to(1); }
  int south() const { return port_to(7); }
  int local() const { return port_to(-1); }

  /// Puts a whole packet of `len` flits on input link `port`, VC `vc`, one
  /// flit per cycle from cycle `at` on; returns its id.
  std::uint32_t send(int port, int vc, routing::NodeId dst, int len, std::uint64_t at) {
    const std::uint32_t id = ctx.packets.allocate();
    hw::PacketInfo& p = ctx.packets[id];
    p.header.src = 0;
    p.header.dst = dst;
    p.length = static_cast<std::uint16_t>(len);
    for (int s = 0; s < len; ++s) {
      Flit f;
      f.packet = id;
      f.seq = static_cast<std::uint16_t>(s);
      f.vc = static_cast<std::uint8_t>(vc);
      f.head = s == 0;
      f.tail = s == len - 1;
      staged[port].emplace_back(at + static_cast<std::uint64_t>(s), f);
    }
    // A link delivers in push order, so keep its future flits sorted by cycle
    // (stable: one packet's flits stay in order).
    auto& st = staged[port];
    std::stable_sort(st.begin(), st.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    in[port].clear_flits();
    const std::uint64_t c = now();
    for (const auto& [ready, flit] : st)
      if (ready >= c) in[port].push_flit(ready, flit);
    router->wake();
    return id;
  }

  void run(std::uint64_t cycles) { sc_core::sc_start(clk.period() * static_cast<double>(cycles)); }
  std::uint64_t now() const { return sc_core::sc_time_stamp().value() / ctx.period_ticks; }

  std::size_t flits_out(int port) { return departed[port].size(); }

 private:
  void stubs() {
    const std::uint64_t c = now();
    for (std::size_t p = 0; p < out.size(); ++p) {
      while (out[p].flits().ready(c)) {
        departed[static_cast<int>(p)].push_back(Departure{out[p].flits().front().ready, out[p].flits().front().item});
        const std::uint8_t vc = out[p].flits().front().item.vc;
        out[p].pop_flit();
        if (stub[p] == Stub::kSink && topo->peer(kCentre, static_cast<int>(p)).kind == PortPeer::Kind::kRouter) {
          out[p].push_credit(c + 1, vc);
          router->wake();
        }
      }
      while (in[p].credits().ready(c)) {
        ++credits_back[p];
        in[p].pop_credit();
      }
      if (topo->peer(kCentre, static_cast<int>(p)).kind == PortPeer::Kind::kRouter)
        for (int v = 0; v < ctx.params.vcs; ++v) {
          const int cr = router->output_vc(static_cast<int>(p), v).credits;
          max_credit_seen = std::max(max_credit_seen, cr);
          min_credit_seen = std::min(min_credit_seen, cr);
        }
    }
  }
};

hw::RouterParams params(int vcs, int buffer, bool vct) {
  hw::RouterParams p;
  p.vcs = vcs;
  p.buffer_flits = buffer;
  p.vct = vct;
  return p;
}

std::vector<std::uint32_t> packets_in_order(const std::vector<Departure>& d) {
  std::vector<std::uint32_t> out;
  for (const auto& x : d)
    if (x.flit.head) out.push_back(x.flit.packet);
  return out;
}

// Output arbitration is round robin over the input ports. West and north
// each send one 8-flit packet east; with 2 VCs each holds its own output VC
// (VCT, B = 8, so credits never run out), and the switch allocator then
// alternates between the two inputs flit by flit: 16 flits in 16 consecutive
// cycles, 8 from each, never the same input twice in a row.
TEST(RouterUnit, SwitchAllocatorIsRoundRobinBetweenTwoInputs) {
  RouterBench b(params(2, 8, true), 8);
  const auto w = b.send(b.west(), 0, 5, 8, 1);
  b.send(b.north(), 0, 5, 8, 1);
  b.run(60);
  const auto& d = b.departed[b.east()];
  ASSERT_EQ(d.size(), 16u);
  int from_west = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    from_west += d[i].flit.packet == w ? 1 : 0;
    if (i > 0) {
      EXPECT_NE(d[i].flit.packet, d[i - 1].flit.packet) << "grant " << i << " repeated an input";
      EXPECT_EQ(d[i].cycle, d[i - 1].cycle + 1);
    }
  }
  EXPECT_EQ(from_west, 8);
}

// Credits: with a downstream that never returns credits, exactly B = 4 of a
// 6-flit wormhole packet leave, and the upstream view of the VC's credits
// stays within [0, B].
TEST(RouterUnit, CreditsBoundTheFlitsInFlightDownstream) {
  RouterBench b(params(1, 4, false), 6);
  b.stub[b.east()] = Stub::kWithhold;
  b.send(b.west(), 0, 5, 6, 1);
  b.run(60);
  EXPECT_EQ(b.flits_out(b.east()), 4u);
  EXPECT_EQ(b.min_credit_seen, 0);
  EXPECT_EQ(b.max_credit_seen, 4);
}

// Wormhole VC reallocation. Packets of 2 flits, B = 4, one VC, a downstream
// that never returns credits. Atomic: the second packet needs an empty
// downstream VC, so only the first packet's 2 flits leave. Non-atomic: the
// VC is free again once the first tail has left, and the second packet's 2
// flits use the 2 remaining credits: 4 flits.
TEST(RouterUnit, AtomicReallocationWaitsForAnEmptyVc) {
  RouterBench b(params(1, 4, false), 2);
  b.stub[b.east()] = Stub::kWithhold;
  b.send(b.west(), 0, 5, 2, 1);
  b.send(b.west(), 0, 5, 2, 3);
  b.run(60);
  EXPECT_EQ(b.flits_out(b.east()), 2u);
}

TEST(RouterUnit, NonAtomicReallocationLetsTheNextPacketFollowTheTail) {
  hw::RouterParams p = params(1, 4, false);
  p.vc_realloc = hw::VcRealloc::kNonAtomic;
  RouterBench b(p, 2);
  b.stub[b.east()] = Stub::kWithhold;
  const auto a = b.send(b.west(), 0, 5, 2, 1);
  const auto c = b.send(b.west(), 0, 5, 2, 3);
  b.run(60);
  ASSERT_EQ(b.flits_out(b.east()), 4u);
  EXPECT_EQ(packets_in_order(b.departed[b.east()]), (std::vector<std::uint32_t>{a, c}));
  EXPECT_EQ(b.min_credit_seen, 0);
}

// Head-of-line blocking. VCT, one VC of B = 4 flits, 2-flit packets. The
// west input receives packet A for the east neighbour, whose STOP line is
// held, then packet B for the south neighbour, which is free. With one FIFO
// per input VC, B waits behind A: nothing leaves south. With virtual output
// queues B leaves: its 2 flits reach south while A still waits.
TEST(RouterUnit, InputQueueBlocksAtTheHead) {
  RouterBench b(params(1, 4, true), 2);
  b.out[b.east()].bundle.stop = true;
  b.send(b.west(), 0, 5, 2, 1);
  b.send(b.west(), 0, 7, 2, 3);
  b.run(40);
  EXPECT_EQ(b.flits_out(b.east()), 0u);
  EXPECT_EQ(b.flits_out(b.south()), 0u);
}

TEST(RouterUnit, VirtualOutputQueuesLetTheSecondPacketPass) {
  hw::RouterParams p = params(1, 4, true);
  p.queues = hw::QueueOrganisation::kVoq;
  RouterBench b(p, 2);
  b.out[b.east()].bundle.stop = true;
  b.send(b.west(), 0, 5, 2, 1);
  const auto second = b.send(b.west(), 0, 7, 2, 3);
  b.run(40);
  EXPECT_EQ(b.flits_out(b.east()), 0u);
  ASSERT_EQ(b.flits_out(b.south()), 2u);
  EXPECT_EQ(b.departed[b.south()][0].flit.packet, second);
  // Releasing STOP lets A go.
  b.out[b.east()].bundle.stop = false;
  b.router->wake();
  b.run(20);
  EXPECT_EQ(b.flits_out(b.east()), 2u);
}

// Packets to the same output keep their order under VOQ. East's only VC is
// held by packet P from the north input while east's STOP is up. On the west
// input, X (for south) takes queue 0 and leaves, A (for east) arrives while
// X is still there and takes queue 1, then B (for east) takes the freed queue
// 0. When STOP drops and P's tail frees the VC, A and B ask for it in the
// same cycle; the round robin alone would pick queue 0 (B) first, the VOQ
// order rule makes A go first: east sees P, A, B.
TEST(RouterUnit, VirtualOutputQueuesKeepOrderPerOutput) {
  hw::RouterParams p = params(1, 6, true);
  p.queues = hw::QueueOrganisation::kVoq;
  RouterBench b(p, 2);
  b.out[b.east()].bundle.stop = true;
  const auto held = b.send(b.north(), 0, 5, 2, 1);
  b.send(b.west(), 0, 7, 2, 1);
  const auto a = b.send(b.west(), 0, 5, 2, 3);
  const auto bb = b.send(b.west(), 0, 5, 2, 10);
  b.run(30);
  EXPECT_EQ(b.flits_out(b.south()), 2u);
  EXPECT_EQ(b.flits_out(b.east()), 0u);
  b.out[b.east()].bundle.stop = false;
  b.router->wake();
  b.run(30);
  EXPECT_EQ(packets_in_order(b.departed[b.east()]), (std::vector<std::uint32_t>{held, a, bb}));
}

// Crossbar inputs. Two VCs of the west port hold a 4-flit packet each, VC 0
// for east and VC 1 for south. Multiplexed: one flit per cycle leaves the
// west port, so the 8 flits take 8 cycles and no two leave together.
// Per-VC crossbar: both VCs send every cycle, 8 flits in 4 cycles.
int same_cycle_pairs(RouterBench& b) {
  int pairs = 0;
  for (const auto& x : b.departed[b.east()])
    for (const auto& y : b.departed[b.south()]) pairs += x.cycle == y.cycle ? 1 : 0;
  return pairs;
}
std::uint64_t span(RouterBench& b) {
  std::uint64_t first = ~0ULL, last = 0;
  for (int p : {b.east(), b.south()})
    for (const auto& x : b.departed[p]) {
      first = std::min(first, x.cycle);
      last = std::max(last, x.cycle);
    }
  return last - first + 1;
}

TEST(RouterUnit, MultiplexedCrossbarSendsOneFlitPerInputPortPerCycle) {
  RouterBench b(params(2, 4, true), 4);
  b.send(b.west(), 0, 5, 4, 1);
  b.send(b.west(), 1, 7, 4, 1);
  b.run(40);
  ASSERT_EQ(b.flits_out(b.east()), 4u);
  ASSERT_EQ(b.flits_out(b.south()), 4u);
  EXPECT_EQ(same_cycle_pairs(b), 0);
  EXPECT_EQ(span(b), 8u);
}

TEST(RouterUnit, PerVcCrossbarSendsTwoVcsOfOnePortInOneCycle) {
  hw::RouterParams p = params(2, 4, true);
  p.crossbar = hw::CrossbarKind::kPerVc;
  RouterBench b(p, 4);
  b.send(b.west(), 0, 5, 4, 1);
  b.send(b.west(), 1, 7, 4, 1);
  b.run(40);
  ASSERT_EQ(b.flits_out(b.east()), 4u);
  ASSERT_EQ(b.flits_out(b.south()), 4u);
  EXPECT_EQ(same_cycle_pairs(b), 4);
  EXPECT_EQ(span(b), 4u);
}

// Ejection ports. West and east each deliver a 4-flit packet to this
// router's node, arriving together. Both ask VC allocation for ejection VC 0
// (equal credits, lowest VC first); one wins, the other gets VC 1 a cycle
// later. One ejection port: 8 flits, one per cycle, span 8. Two: the second
// packet runs one cycle behind the first, span 4 + 1 = 5.
std::uint64_t ejection_span(int ports) {
  hw::RouterParams p = params(2, 4, true);
  p.ejection_ports = ports;
  RouterBench b(p, 4);
  b.send(b.west(), 0, kCentre, 4, 1);
  b.send(b.east(), 0, kCentre, 4, 1);
  b.run(40);
  const auto& d = b.departed[b.local()];
  EXPECT_EQ(d.size(), 8u);
  if (d.empty()) return 0;
  return d.back().cycle - d.front().cycle + 1;
}
TEST(RouterUnit, OneEjectionPortEjectsOneFlitPerCycle) {
  EXPECT_EQ(ejection_span(1), 8u);
}
TEST(RouterUnit, TwoEjectionPortsEjectTwoPacketsAtOnce) {
  EXPECT_EQ(ejection_span(2), 5u);
}

// The units are child modules with real hierarchical names (Garnet-style
// boundaries): a debugger or a test finds them with sc_find_object.
TEST(RouterUnit, UnitsAreNamedChildModules) {
  RouterBench b(params(2, 4, true), 4);
  const std::string r = b.router->name();
  for (const char* unit : {"route_unit", "vc_allocator", "switch_allocator", "crossbar"}) {
    const sc_core::sc_object* o = sc_core::sc_find_object((r + "." + unit).c_str());
    ASSERT_NE(o, nullptr) << unit;
    EXPECT_EQ(o->get_parent_object(), b.router.get()) << unit;
  }
  // Ports of the centre of a 3x3 mesh: local, east, west, north, south; two
  // VCs each, named when elaboration ends (none before).
  EXPECT_EQ(sc_core::sc_find_object((r + ".input_east.vc0").c_str()), nullptr);
  b.run(0);
  for (const char* port : {"local", "east", "west", "north", "south"})
    for (const char* side : {"input_", "output_"})
      for (int v = 0; v < 2; ++v) {
        const std::string path = fmt::format("{}.{}{}.vc{}", r, side, port, v);
        const sc_core::sc_object* o = sc_core::sc_find_object(path.c_str());
        ASSERT_NE(o, nullptr) << path;
        EXPECT_STREQ(o->kind(), side[0] == 'i' ? "ftsim_input_vc" : "ftsim_output_vc");
      }
  EXPECT_EQ(sc_core::sc_find_object((r + ".input_east.vc2").c_str()), nullptr);  // only 2 VCs
  EXPECT_EQ(&b.router->input_unit(b.east()), sc_core::sc_find_object((r + ".input_east").c_str()));
}

// Switch allocator kinds, from one clean state. West holds two full 8-flit
// packets, VC 0 for east (X) and VC 1 for south (Y, the test's name for the
// port towards router 7); north holds one for Y (B = 8, VCT, so credits
// never run out). STOP holds both outputs until every flit is buffered and
// every VC allocated; then both are released together and we count flits
// per cycle. Requesters: west wants {X, Y}, north wants {Y}.
struct AllocatorRun {
  std::vector<int> per_cycle;  ///< flits leaving the router in each cycle after the release
  std::uint64_t span = 0;      ///< cycles from the first to the last of the 24 flits
};
AllocatorRun run_allocator(hw::SwitchAllocatorKind kind, int iterations) {
  hw::RouterParams p = params(2, 8, true);
  p.switch_allocator = kind;
  p.islip_iterations = iterations;
  RouterBench b(p, 8);
  for (int o : {b.east(), b.south()}) b.out[o].bundle.stop = true;
  b.send(b.west(), 0, 5, 8, 1);
  b.send(b.west(), 1, 7, 8, 1);
  b.send(b.north(), 0, 7, 8, 1);
  b.run(20);
  EXPECT_EQ(b.flits_out(b.east()) + b.flits_out(b.south()), 0u);
  for (int o : {b.east(), b.south()}) b.out[o].bundle.stop = false;
  b.router->wake();
  b.run(40);
  std::map<std::uint64_t, int> count;
  for (int o : {b.east(), b.south()})
    for (const auto& d : b.departed[o]) ++count[d.cycle];
  AllocatorRun r;
  int total = 0;
  for (std::uint64_t c = count.begin()->first; c <= count.rbegin()->first; ++c) {
    r.per_cycle.push_back(count.count(c) != 0 ? count[c] : 0);
    total += r.per_cycle.back();
  }
  EXPECT_EQ(total, 24);
  r.span = r.per_cycle.size();
  return r;
}

// Separable input first: cycle 1 west picks VC 0 (X), north Y: 2 flits. Then
// west's pointer is at VC 1 (Y) and north also asks Y; Y's pointer (after
// north) wraps to west: 1 flit. The pattern 2, 1 repeats: west sends every
// cycle, its 16 flits take 16 cycles.
TEST(RouterUnit, SeparableInputFirstAllocatorAlternatesTwoAndOneFlits) {
  const AllocatorRun r = run_allocator(hw::SwitchAllocatorKind::kSeparableInputFirst, 1);
  ASSERT_GE(r.per_cycle.size(), 4u);
  EXPECT_EQ(std::vector<int>(r.per_cycle.begin(), r.per_cycle.begin() + 4), (std::vector<int>{2, 1, 2, 1}));
  EXPECT_EQ(r.span, 16u);
}

// iSLIP, one iteration. Cycle 1: X and Y both grant west (pointers at 0),
// west accepts X (accept pointer 0, X is port 1 < Y port 3); north gets no
// grant: 1 flit. Cycle 2: Y's pointer did not move (its grant was not
// accepted), so Y grants west again, and west's accept pointer (past X) now
// takes Y: 1 flit. Cycle 3: Y's pointer is past west, so Y grants north, X
// grants west: 2 flits. Then 1, 2, ... North's 8th flit leaves in cycle 17.
TEST(RouterUnit, IslipOneIterationMatchesOnlyInTheFirstRound) {
  const AllocatorRun r = run_allocator(hw::SwitchAllocatorKind::kIslip, 1);
  ASSERT_GE(r.per_cycle.size(), 5u);
  EXPECT_EQ(std::vector<int>(r.per_cycle.begin(), r.per_cycle.begin() + 5), (std::vector<int>{1, 1, 2, 1, 2}));
  EXPECT_EQ(r.span, 17u);
}

// iSLIP, two iterations: in cycle 1 the second round matches the unmatched
// north input to the unmatched Y output (pointers stay): 2 flits; from then
// on 1, 2, ... as with one iteration, and the 24 flits take 16 cycles.
TEST(RouterUnit, IslipSecondIterationFillsTheUnmatchedOutput) {
  const AllocatorRun r = run_allocator(hw::SwitchAllocatorKind::kIslip, 2);
  ASSERT_GE(r.per_cycle.size(), 4u);
  EXPECT_EQ(std::vector<int>(r.per_cycle.begin(), r.per_cycle.begin() + 4), (std::vector<int>{2, 1, 2, 1}));
  EXPECT_EQ(r.span, 16u);
}

// Selection function (router.selection). A two-candidate relation: at the
// centre router every packet not for its node may leave east or south (in
// that order, VC 0). West sends four 3-flit packets 11 cycles apart, with
// 16 flits of buffer behind each output: each packet's credits are all back
// before the next head arrives, so both outputs show 16 credits to every head,
// and consecutive heads reach VC allocation 11 cycles apart.
class EastOrSouth : public routing::RoutingRelation {
 public:
  std::string name() const override { return "east-or-south"; }
  void route(const routing::RouteQuery& q, routing::RouteSet& out) const override {
    for (int p : {east, south}) out.add(routing::RouteCandidate{p, 1U, 0, false});
    (void)q;
  }
  void check_topology(const routing::Topology&) const override {}
  int east = -1;
  int south = -1;
};

/// The output each of the four packets took, in packet order; *east_port
/// receives the east port's index.
std::vector<int> selected_ports(hw::SelectionKind kind, int* east_port) {
  hw::RouterParams p = params(1, 16, true);
  p.selection = kind;
  RouterBench b(p, 3);
  EastOrSouth rel;
  rel.east = b.east();
  rel.south = b.south();
  *east_port = b.east();
  rel.configure(*b.topo, 1);
  b.ctx.relation = &rel;
  for (int i = 0; i < 4; ++i) b.send(b.west(), 0, 8, 3, 1 + 11 * static_cast<std::uint64_t>(i));
  b.run(80);
  std::vector<std::pair<std::uint32_t, int>> heads;  // (packet, port) in packet order
  for (int o : {b.east(), b.south()})
    for (const auto& d : b.departed[o])
      if (d.flit.head) heads.emplace_back(d.flit.packet, o);
  std::sort(heads.begin(), heads.end());
  std::vector<int> ports;
  for (const auto& h : heads) ports.push_back(h.second);
  return ports;
}

// max_credits: equal credits, so every packet takes the first candidate.
TEST(RouterUnit, MaxCreditsSelectionTakesTheFirstCandidateOnTies) {
  int east = -1;
  const auto ports = selected_ports(hw::SelectionKind::kMaxCredits, &east);
  EXPECT_EQ(ports, std::vector<int>(4, east));
}

// round_robin: the scan starts at candidate (queue index + cycle) mod 2, and
// consecutive heads are 11 cycles (an odd number) apart, so the packets
// alternate between the two outputs: 2 east, 2 south, never the same twice
// in a row.
TEST(RouterUnit, RoundRobinSelectionAlternatesWhenHeadsAreAnOddNumberOfCyclesApart) {
  int east = -1;
  const auto ports = selected_ports(hw::SelectionKind::kRoundRobin, &east);
  ASSERT_EQ(ports.size(), 4u);
  for (std::size_t i = 1; i < ports.size(); ++i) EXPECT_NE(ports[i], ports[i - 1]) << "packet " << i;
  EXPECT_EQ(std::count(ports.begin(), ports.end(), east), 2);
}

/// Cycles at which east's output VCs 0 and 1 are first allocated when the
/// west and north inputs each send a 4-flit packet east whose heads arrive
/// in the same cycle (2 VCs, VCT, B = 8: a VC stays allocated until its
/// packet's tail has left, 8 cycles later at the earliest).
std::pair<std::uint64_t, std::uint64_t> east_vc_allocation_cycles(hw::VcAllocatorKind kind) {
  hw::RouterParams p = params(2, 8, true);
  p.vc_allocator = kind;
  RouterBench b(p, 4);
  b.send(b.west(), 0, 5, 4, 1);
  b.send(b.north(), 0, 5, 4, 1);
  std::uint64_t first[2] = {0, 0};
  for (int t = 0; t < 30; ++t) {
    b.run(1);
    for (int v = 0; v < 2; ++v)
      if (first[v] == 0 && b.router->output_vc(b.east(), v).allocated) first[v] = b.now();
  }
  return {first[0], first[1]};
}

// Separable input-first: both heads see two free VCs with equal credits and
// pick the first, VC 0; VC 0 grants one of them and the other asks again
// next cycle, now for VC 1. One cycle apart.
TEST(RouterUnit, SeparableInputFirstVcAllocatorLosesACycleWhenTwoHeadsPickTheSameVc) {
  const auto [vc0, vc1] = east_vc_allocation_cycles(hw::VcAllocatorKind::kSeparableInputFirst);
  ASSERT_GT(vc0, 0u);
  EXPECT_EQ(vc1, vc0 + 1);
}

// Wavefront: both heads request both VCs; any maximal matching of a 2 x 2
// all-ones request matrix grants both, so VC 0 and VC 1 are allocated in
// the same cycle.
TEST(RouterUnit, WavefrontVcAllocatorGrantsBothHeadsInOneCycle) {
  const auto [vc0, vc1] = east_vc_allocation_cycles(hw::VcAllocatorKind::kWavefront);
  ASSERT_GT(vc0, 0u);
  EXPECT_EQ(vc1, vc0);
}

}  // namespace
}  // namespace ftsim::test

TEST(RouterUnit, QueueBitsVisitsTheSetQueuesInRoundRobinOrderLikeAFullScan) {
  // Against a full scan from the pointer with wrap-around (the switch
  // allocator's input stage before the bit sets), for one-word and
  // multi-word sizes and every pointer.
  std::mt19937 rng(5);
  for (const int n : {1, 2, 7, 63, 64, 65, 130, 256}) {
    ftsim::hw::QueueBits bits;
    bits.resize(n);
    std::vector<bool> ref(static_cast<std::size_t>(n));
    for (int q = 0; q < n; ++q)
      if (rng() % 3 == 0) {
        bits.set(q);
        ref[static_cast<std::size_t>(q)] = true;
      }
    if (n > 1) {  // reset works too
      bits.reset(n / 2);
      ref[static_cast<std::size_t>(n / 2)] = false;
    }
    // Over every queue (to = n) and over a prefix (to < n: the queues at
    // and above `to` are never visited).
    for (int step = 0; step < 2; ++step) {
      const int to = step == 0 ? n : std::max(1, n - 5);
      for (int from = 0; from < to; ++from) {
        std::vector<int> expected;
        for (int i = 0, q = from; i < to; ++i, q = q + 1 == to ? 0 : q + 1)
          if (ref[static_cast<std::size_t>(q)]) expected.push_back(q);
        std::vector<int> got;
        bits.visit_from(from, to, [&](int q) {
          got.push_back(q);
          return false;
        });
        ASSERT_EQ(got, expected) << "n=" << n << " to=" << to << " from=" << from;
        // Stopping after the second visited queue.
        std::vector<int> stopped;
        const bool stop = bits.visit_from(from, to, [&](int q) {
          stopped.push_back(q);
          return stopped.size() == 2;
        });
        EXPECT_EQ(stop, expected.size() >= 2);
        EXPECT_EQ(stopped.size(), std::min<std::size_t>(2, expected.size()));
      }
    }
    for (int q = 0; q < n; ++q) EXPECT_EQ(bits.test(q), ref[static_cast<std::size_t>(q)]) << "n=" << n << " q=" << q;
    EXPECT_EQ(bits.any(), std::find(ref.begin(), ref.end(), true) != ref.end()) << n;
    bits.clear();
    EXPECT_FALSE(bits.any()) << n;
  }
  // One set resized across the inline word and the heap words: each resize
  // starts empty, and the highest queue is its own bit.
  ftsim::hw::QueueBits bits;
  for (const int n : {200, 3, 130, 64, 65, 1}) {
    bits.resize(n);
    EXPECT_FALSE(bits.any()) << n;
    bits.set(n - 1);
    EXPECT_TRUE(bits.test(n - 1)) << n;
    EXPECT_EQ(n == 1 || !bits.test(n - 2), true) << n;
    int visited = -1;
    bits.visit_from(0, n, [&](int q) {
      visited = q;
      return true;
    });
    EXPECT_EQ(visited, n - 1) << n;
  }
}
