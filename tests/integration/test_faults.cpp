// Scheduled faults: drops by reason, repair, conservation, no deadlock.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "tb/experiment_runner.hpp"

using namespace ftsim;

namespace {
const char* kMesh = R"(
topology: mesh:6x6
routing: dor
router: {vcs: 2, buffer_flits: 8, flow_control: wormhole}
traffic: {pattern: uniform, load: 0.15, packet_flits: 4}
sim: {warmup_cycles: 500, measure_cycles: 8000, seed: 11, max_drain_cycles: 4000}
)";

nlohmann::json run_yaml(const std::vector<std::string>& sets) {
  const auto cfg = tb::parse_experiment(kMesh, sets);
  tb::RunOptions o;
  o.quiet = true;
  auto r = tb::run_experiment(cfg, o);
  EXPECT_EQ(r.exit_code, 0) << r.message;
  return r.stats;
}

void expect_conserved(const nlohmann::json& j) {
  const auto& p = j["packets"];
  EXPECT_TRUE(j["conservation_ok"].get<bool>());
  EXPECT_EQ(p["injected"].get<long>(),
            p["delivered"].get<long>() + p["dropped"].get<long>() + p["in_flight"].get<long>());
  EXPECT_FALSE(j["deadlock"].get<bool>());
}
}  // namespace

TEST(Faults, TransientLinkFaultDropsThenRecovers) {
  // The link fails at 2000, is detected at 2010 and repaired at 5000.
  const auto j = run_yaml({"faults=[{link: '2,2:x+', at: 2000, repair: 5000}]"});
  expect_conserved(j);
  const auto& d = j["dropped_by_reason"];
  EXPECT_GT(d["no_route"].get<long>(), 0);  // DOR has no way around it once detected
  EXPECT_EQ(d["switch_failure"].get<long>(), 0);
  EXPECT_GT(j["packets"]["delivered"].get<long>(), 1000);
  // After the repair every measured packet created later is delivered: the
  // run drains completely.
  EXPECT_TRUE(j["drained"].get<bool>() || j["packets"]["measured_undelivered"].get<long>() == 0);
}

TEST(Faults, SwitchFaultDropsBufferedPacketsAndStopsTheNode) {
  const auto j = run_yaml({"faults=[{switch: '3,3', at: 3000}]", "faults.detection_delay=0"});
  expect_conserved(j);
  const auto& d = j["dropped_by_reason"];
  EXPECT_GT(d["switch_failure"].get<long>() + d["link_failure"].get<long>(), 0);
  EXPECT_GT(d["no_route"].get<long>(), 0);
  EXPECT_DOUBLE_EQ(j["live_nodes"].get<double>(), 35.0);
}

TEST(Faults, RandomLinksKeepNetworkConnectedAndAreReproducible) {
  const auto a = run_yaml({"faults.random_links=5", "faults.random_seed=4"});
  const auto b =
      tb::resolve_faults(*routing::make_topology("mesh:6x6"),
                         tb::parse_experiment(kMesh, {"faults.random_links=5", "faults.random_seed=4"}).faults);
  ASSERT_EQ(a["faults"].size(), 5U);
  ASSERT_EQ(b.size(), 5U);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(a["faults"][i]["id"].get<int>(), b[i].id);
  expect_conserved(a);
  // Brute-force connectivity check of the drawn set.
  auto t = routing::make_topology("mesh:6x6");
  routing::FaultSet fs;
  for (const auto& f : b) fs.links.push_back(f.id);
  const auto comp = routing::node_components(*t, fs);
  for (int c : comp) EXPECT_EQ(c, comp[0]);
}

TEST(Faults, DuatoTorusLinkFaultWithRepairConserves) {
  const auto j = run_yaml({"topology=torus:4x4", "routing=duato", "router.vcs=3", "router.flow_control=vct",
                           "traffic.load=0.4", "faults=[{link: '1,1:y+', at: 1500, repair: 4000}]"});
  expect_conserved(j);
  EXPECT_GT(j["packets"]["dropped"].get<long>(), 0);
}

namespace {
// MiKANT(3,3), one wormhole VC, load 0.8, 20 random faulty links (seed 1).
const char* kMikantStress = R"(
topology: mikant:3,3
router: {vcs: 1, buffer_flits: 4, flow_control: wormhole}
traffic: {pattern: uniform, load: 0.8, packet_flits: 4}
sim: {warmup_cycles: 2000, measure_cycles: 10000, max_drain_cycles: 5000, seed: 1, watchdog_cycles: 2000,
      deadlock_is_outcome: true}
faults: {random_links: 20, random_seed: 1}
)";

nlohmann::json run_mikant_stress(const std::string& routing) {
  tb::RunOptions o;
  o.quiet = true;
  return tb::run_experiment(tb::parse_experiment(kMikantStress, {"routing=" + routing}), o).stats;
}
}  // namespace

TEST(Faults, MikantDetourRelationDeadlocksWhereAlgorithm1DoesNot) {
  // gns+xt+gdl has cyclic channel dependencies (MikantFt.ChannelDependency*);
  // with one wormhole VC at high load the watchdog finds the deadlock and its
  // wait-for cycle. Each ctest process elaborates one network, hence two tests.
  const auto s = run_mikant_stress("gns+xt+gdl");
  EXPECT_TRUE(s["deadlock"].get<bool>());
  const auto& chain = s["deadlock_report"]["wait_for_chain"];
  ASSERT_GE(chain.size(), 3U);
  EXPECT_EQ(chain.front(), chain.back());
  EXPECT_TRUE(s["conservation_ok"].get<bool>());
}

TEST(Faults, MikantAlgorithm1DoesNotDeadlockOnTheSameFaults) {
  const auto s = run_mikant_stress("mikant-shortest");
  EXPECT_FALSE(s["deadlock"].get<bool>());
  EXPECT_GT(s["accepted_load"].get<double>(), 0.03);
}

TEST(Faults, RepairedSwitchCarriesTrafficAgain) {
  // Issue 12 defect 1: a switch failing at 300 and repaired at 400 used to
  // wedge the mesh (accepted load 0.005 afterwards, hundreds of measured
  // packets never delivered). After the repair every measured packet between
  // live nodes must be delivered or dropped with a reason.
  test::Harness h(R"(
topology: mesh:4x4
routing: dor
router: {vcs: 2, buffer_flits: 8, flow_control: wormhole}
traffic: {pattern: uniform, load: 0.1, packet_flits: 4}
sim: {warmup_cycles: 100, measure_cycles: 2000, seed: 1}
faults: [{switch: '1,1', at: 300, repair: 400}]
)");
  h.run(3000);
  for (auto& g : h.net->generators) g.stop();
  h.run(3000);
  EXPECT_EQ(h.net->buffered_flits(), 0U);
  const auto inflight = h.net->scan_in_flight();
  EXPECT_EQ(inflight.in_network + inflight.source_queued, 0U);
}

TEST(Faults, WatchdogCatchesAStuckPacketWhileOthersStillMove) {
  // The defect the repaired switch used to cause, injected directly: router
  // 1,1's port to its own node is down, so packets for node 1,1 wait at its
  // head for ever while the rest of the mesh keeps moving flits (which hid the
  // wedge from the "no flit moved" watchdog). Expected: exit 3 within about
  // 4W + W/4 cycles of the first stuck arrival, kind stuck_flit, naming a
  // packet for node 1,1 (id 5) as the oldest waiting flit.
  auto cfg = tb::parse_experiment(kMesh, {"topology=mesh:4x4", "sim.watchdog_cycles=1000", "sim.measure_cycles=20000"});
  tb::RunOptions o;
  o.quiet = true;
  o.on_elaborated = [](tb::Network& net) { net.routers[net.topology().parse_router("1,1")].set_port_alive(0, false); };
  const auto r = tb::run_experiment(cfg, o);
  EXPECT_EQ(r.exit_code, 3) << r.message;
  const auto& rep = r.stats["deadlock_report"];
  EXPECT_EQ(rep["kind"], "stuck_flit");
  EXPECT_NE(rep["stuck_flit"].get<std::string>().find("->5)"), std::string::npos) << rep.dump();  // bound for 1,1
  EXPECT_LE(r.stats["cycles"].get<long>(), rep["last_move_cycle"].get<long>() + 4000 + 250 + 100);
  EXPECT_NE(r.message.find("while others still move"), std::string::npos) << r.message;
}

TEST(Faults, LoadsArePerLiveNodeCycle) {
  // Issue 12 defect 10: the window's flits were divided by the final live
  // node count, so nodes that died mid-window inflated the rates (14 of 16
  // dead gave offered 1.136). Column x = 3 of a 4x4 mesh (4 switches) dies at
  // the middle of the window: the 16 nodes offer 0.1 for the first half and
  // the 12 survivors for the second. Per live node-cycle the offered load is
  // 0.1; dividing by the final 12 nodes would give (16 + 12) / 2 / 12 x 0.1
  // = 0.1167.
  std::vector<std::string> sets = {"topology=mesh:4x4", "traffic.load=0.1", "sim.warmup_cycles=1000",
                                   "sim.measure_cycles=20000"};
  std::string faults = "faults=[";
  for (int y = 0; y < 4; ++y)
    faults += (y ? ", " : "") + std::string("{switch: '3,") + std::to_string(y) + "', at: 11000}";
  sets.push_back(faults + "]");
  const auto j = run_yaml(sets);
  EXPECT_NEAR(j["offered_load"].get<double>(), 0.1, 0.005);
  EXPECT_EQ(j["live_nodes"].get<double>(), 12.0);
}

TEST(Faults, OverlappingFaultsWithARepairAreRejected) {
  // Issue 12 defect 7: the inner repair ended the outer fault early, silently.
  auto resolve = [](const std::string& faults) {
    const auto cfg = tb::parse_experiment(kMesh, {"faults=" + faults});
    const auto topo = routing::make_topology(cfg.topology);
    return tb::resolve_faults(*topo, cfg.faults, false);
  };
  auto error = [&](const std::string& faults) {
    try {
      resolve(faults);
    } catch (const ftsim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("[{link: '1,1:x+', at: 100, repair: 500}, {link: '1,1:x+', at: 300, repair: 900}]")
                .find("overlap on link 1,1:x+"),
            std::string::npos);
  EXPECT_NE(error("[{switch: '1,1', at: 100, repair: 500}, {link: '1,1:x+', at: 200}]").find("overlap on link"),
            std::string::npos);
  EXPECT_NE(error("[{switch: '2,2', at: 100}, {switch: '2,2', at: 50, repair: 150}]").find("switch 2,2"),
            std::string::npos);
  EXPECT_EQ(resolve("[{link: '1,1:x+', at: 100, repair: 200}, {link: '1,1:x+', at: 300, repair: 400}]").size(), 2U);
  EXPECT_EQ(resolve("[{link: '1,1:x+', at: 100}, {switch: '1,1', at: 300}]").size(), 2U);  // both permanent
  // Random links never land on a link a scheduled transient fault holds.
  for (int seed = 1; seed <= 20; ++seed) {
    const auto cfg = tb::parse_experiment(
        kMesh, {"faults={schedule: [{switch: '2,2', at: 100, repair: 900}], random_links: 20, random_seed: " +
                std::to_string(seed) + "}"});
    const auto topo = routing::make_topology(cfg.topology);
    EXPECT_NO_THROW(tb::resolve_faults(*topo, cfg.faults, false)) << "seed " << seed;
  }
}

// The per-VC crossbar's switch allocator keeps, per output port, the queues
// sending through it (SwitchAllocator::track_sending); the router updates
// the sets where a queue gets or releases its output VC, where a dropped
// packet's queue is purged, and where a switch fails. Checked against the
// queues' own states every few cycles through a switch fault, its repair and
// a link fault, with the sets seen non-empty often enough to matter.
TEST(Faults, PerVcSendingSetsMatchTheQueuesThroughSwitchAndLinkFaults) {
  test::Harness h(R"(
topology: mesh:4x4
routing: dor
router: {vcs: 3, buffer_flits: 4, flow_control: wormhole, crossbar: per_vc}
traffic: {pattern: uniform, load: 0.4, packet_flits: 4}
sim: {warmup_cycles: 100, measure_cycles: 2000, seed: 3}
faults: [{switch: '1,1', at: 300, repair: 500}, {link: '2,2:y+', at: 700}]
)");
  long checks = 0, sending = 0;
  for (int step = 0; step < 200; ++step) {
    h.run(7);
    for (const hw::Router& r : h.net->routers) {
      const hw::SwitchAllocator& sa = r.switch_allocator();
      ASSERT_TRUE(sa.tracks_sending());
      std::vector<std::uint64_t> expected(static_cast<std::size_t>(r.radix()), 0);
      for (int p = 0; p < r.radix(); ++p)
        for (int q = 0; q < r.queues_per_port(); ++q) {
          const hw::InputVc& iv = r.input_queue(p, q);
          if (iv.state != hw::InputVc::State::kActive) continue;
          expected[static_cast<std::size_t>(iv.out_port)] |= 1ULL << (p * r.queues_per_port() + q);
          ++sending;
        }
      for (int o = 0; o < r.radix(); ++o) {
        ASSERT_EQ(sa.sending_keys(o), expected[static_cast<std::size_t>(o)])
            << r.name() << " output " << o << " after cycle " << (step + 1) * 7;
        ++checks;
      }
    }
  }
  const auto& d = h.net->context().stats;
  EXPECT_GT(checks, 10000);
  EXPECT_GT(sending, 5000);  // queues in kActive seen, so the sets were exercised
  EXPECT_GT(d.dropped[static_cast<int>(hw::DropReason::kSwitchFailure)], 0u);  // the switch failed loaded
  EXPECT_GT(d.dropped[static_cast<int>(hw::DropReason::kNoRoute)], 0u);        // queues purged after drops
}

// The per-port queue sets the allocators visit (InputUnit::waiting_va,
// active) follow each queue's state: a packet's hop moves its queue idle ->
// kVcAlloc -> kActive -> idle through RouterDatapath's transitions that
// leave alone the sets the state it leaves has clear (an idle queue is in
// neither set, an active one not in the waiting set). Checked every few
// cycles through a switch fault, its repair and a link fault that drop
// packets (purged queues), with every state and parked heads seen often.
TEST(Faults, QueueSetsFollowTheQueueStatesThroughSwitchAndLinkFaults) {
  test::Harness h(R"(
topology: mesh:4x4
routing: dor
router: {vcs: 2, buffer_flits: 4, flow_control: wormhole}
traffic: {pattern: uniform, load: 0.4, packet_flits: 4}
sim: {warmup_cycles: 100, measure_cycles: 2000, seed: 5}
faults: [{switch: '1,1', at: 300, repair: 500}, {link: '2,2:y+', at: 700}]
)");
  long idle = 0, waiting = 0, parked = 0, active = 0;
  for (int step = 0; step < 200; ++step) {
    h.run(7);
    for (const hw::Router& r : h.net->routers) {
      const int nq = r.queues_per_port();
      for (int p = 0; p < r.radix(); ++p) {
        const hw::InputUnit& ip = r.input_unit(p);
        for (int q = 0; q < nq; ++q) {
          const auto state = r.input_queue(p, q).state;
          const bool in_waiting = ip.waiting_va.test(q);
          const bool in_active = ip.active.test(q);
          const bool is_parked = (r.parked_heads() >> (p * nq + q) & 1U) != 0;
          const std::string where = std::string(r.name()) + " port " + std::to_string(p) + " queue " +
                                    std::to_string(q) + " after cycle " + std::to_string((step + 1) * 7);
          ASSERT_EQ(in_active, state == hw::InputVc::State::kActive) << where;
          if (state == hw::InputVc::State::kVcAlloc) {
            ASSERT_NE(in_waiting, is_parked) << where;  // waiting, or parked, never both
            ++(is_parked ? parked : waiting);
          } else {
            ASSERT_FALSE(in_waiting) << where;
            ASSERT_FALSE(is_parked) << where;
            ++(state == hw::InputVc::State::kIdle ? idle : active);
          }
        }
      }
    }
  }
  EXPECT_GT(active, 5000);
  EXPECT_GT(waiting, 100);
  EXPECT_GT(parked, 100);
  EXPECT_GT(idle, 5000);
  const auto& d = h.net->context().stats;
  EXPECT_GT(d.dropped[static_cast<int>(hw::DropReason::kSwitchFailure)], 0u);
  EXPECT_GT(d.dropped[static_cast<int>(hw::DropReason::kNoRoute)], 0u);
}
