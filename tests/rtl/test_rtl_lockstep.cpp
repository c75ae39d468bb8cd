// Lockstep: the Verilated RTL (rtl_ref/) and the C++ emergency logic of hw/
// run from the same random stimulus, and every output and every state
// register is compared every cycle. A deliberately injected difference must
// be caught, which tests the checker itself.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <systemc>

#include "Vftsim_emergency_logic.h"
#include "hw/immunet/emergency_logic.hpp"

namespace {

constexpr int kP = 4;
constexpr int kW = 16;

struct Coverage {
  long adoptions = 0, nested = 0, equal_ignored = 0, acks_accepted = 0, done = 0, simultaneous = 0, local_roots = 0,
       resets = 0;
};

SC_MODULE(Lockstep) {
  sc_core::sc_clock clk{"clk", 10, sc_core::SC_NS};
  sc_core::sc_signal<bool> rst{"rst"};
  sc_core::sc_signal<uint32_t> in_req0{"in_req0"}, in_req1{"in_req1"}, normal_req0{"normal_req0"},
      normal_req1{"normal_req1"}, port_enable{"port_enable"}, node_id{"node_id"};
  sc_core::sc_signal<uint64_t> in_data{"in_data"}, normal_data{"normal_data"};
  sc_core::sc_signal<bool> fault_detect{"fault_detect"};
  sc_core::sc_signal<uint32_t> out_req0{"out_req0"}, out_req1{"out_req1"}, epl{"epl"}, parent{"parent"},
      children{"children"};
  sc_core::sc_signal<uint64_t> out_data{"out_data"};
  sc_core::sc_signal<bool> stop{"stop"}, valid{"valid"}, root{"root"}, emergency{"emergency"}, done{"done"};

  Vftsim_emergency_logic rtl{"rtl"};
  ftsim::hw::EmergencyLogic model;
  std::mt19937_64 rng;
  long cycle = 0;
  long cycles_to_run;
  long mismatches = 0;
  std::string first_mismatch;
  Coverage cov;
  bool prev_emergency = false;

  SC_HAS_PROCESS(Lockstep);
  Lockstep(sc_core::sc_module_name n, long cycles, bool inject_bug, std::uint64_t seed)
      : sc_module(n), model(params()), rng(seed), cycles_to_run(cycles) {
    model.inject_tie_bug = inject_bug;
    rtl.clk(clk);
    rtl.rst(rst);
    rtl.in_req0(in_req0);
    rtl.in_req1(in_req1);
    rtl.in_data(in_data);
    rtl.normal_req0(normal_req0);
    rtl.normal_req1(normal_req1);
    rtl.normal_data(normal_data);
    rtl.port_enable(port_enable);
    rtl.fault_detect(fault_detect);
    rtl.node_id(node_id);
    rtl.out_req0(out_req0);
    rtl.out_req1(out_req1);
    rtl.out_data(out_data);
    rtl.stop(stop);
    rtl.valid(valid);
    rtl.epl(epl);
    rtl.root(root);
    rtl.parent(parent);
    rtl.children(children);
    rtl.emergency(emergency);
    rtl.done(done);
    SC_METHOD(on_posedge);
    sensitive << clk.posedge_event();
    dont_initialize();
    SC_METHOD(on_negedge);
    sensitive << clk.negedge_event();
    dont_initialize();
  }

  static ftsim::hw::EmergencyParams params() {
    ftsim::hw::EmergencyParams p;
    p.ports = kP;
    p.epl_bits = kW;
    p.id_bits = 8;
    p.handle_cycles = 3;
    p.ack_window = 8;
    return p;
  }

  ftsim::hw::EmergencyInputs sampled() const {
    ftsim::hw::EmergencyInputs in;
    in.in.resize(kP);
    in.normal.resize(kP);
    for (int i = 0; i < kP; ++i) {
      in.in[i] = {((in_req0.read() >> i) & 1u) != 0, ((in_req1.read() >> i) & 1u) != 0,
                  static_cast<uint32_t>((in_data.read() >> (i * kW)) & 0xFFFFu)};
      in.normal[i] = {((normal_req0.read() >> i) & 1u) != 0, ((normal_req1.read() >> i) & 1u) != 0,
                      static_cast<uint32_t>((normal_data.read() >> (i * kW)) & 0xFFFFu)};
    }
    in.port_enable = port_enable.read();
    in.fault_detect = fault_detect.read();
    in.node_id = node_id.read();
    return in;
  }

  void on_posedge() {
    const auto before = model.state();
    if (rst.read()) {
      model.reset();
      return;
    }
    const auto in = sampled();
    // Coverage of the stimulus.
    int epls = 0;
    bool equal = false;
    for (int i = 0; i < kP; ++i)
      if (((in.port_enable >> i) & 1u) && ftsim::hw::InputBlock::epl(in.in[i], 0xFFFF)) {
        ++epls;
        equal |= before.valid && in.in[i].data == before.epl;
      }
    model.step(in);
    const auto& after = model.state();
    const bool adopted = after.emergency && after.handle_count == 3 && after.window_count == 0 &&
                         (!before.valid || after.epl != before.epl);
    if (adopted) {
      ++cov.adoptions;
      if (before.emergency) ++cov.nested;
      if (after.root) ++cov.local_roots;
    }
    if (equal && !adopted) ++cov.equal_ignored;
    if (epls >= 2) ++cov.simultaneous;
    if ((after.children & ~before.children) != 0) ++cov.acks_accepted;
    if (after.done && !before.done) ++cov.done;
  }

  void check(const char* what, uint64_t rtl_v, uint64_t model_v) {
    if (rtl_v == model_v) return;
    if (mismatches++ == 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "cycle %ld: %s rtl=0x%llx model=0x%llx", cycle, what,
                    static_cast<unsigned long long>(rtl_v), static_cast<unsigned long long>(model_v));
      first_mismatch = buf;
    }
  }

  void on_negedge() {
    // 1. Compare everything driven during this cycle.
    if (cycle > 2) {
      const auto in = sampled();
      const auto out = model.outputs(in.normal, in.port_enable);
      uint32_t r0 = 0, r1 = 0;
      uint64_t data = 0;
      for (int i = 0; i < kP; ++i) {
        r0 |= static_cast<uint32_t>(out.out[i].req0) << i;
        r1 |= static_cast<uint32_t>(out.out[i].req1) << i;
        data |= static_cast<uint64_t>(out.out[i].data) << (i * kW);
      }
      const auto& s = model.state();
      if (std::getenv("LOCKSTEP_TRACE") != nullptr && cycle < 12)
        std::printf(
            "cyc %ld rtl: r0=%x valid=%d epl=%x em=%d root=%d par=%u | model r0=%x valid=%d epl=%x em=%d root=%d "
            "par=%d h=%d w=%d in_r0=%x in_r1=%x n_r0=%x en=%x fd=%d\n",
            cycle, out_req0.read(), valid.read(), epl.read(), emergency.read(), root.read(), parent.read(), r0, s.valid,
            s.epl, s.emergency, s.root, s.parent, s.handle_count, s.window_count, in_req0.read(), in_req1.read(),
            normal_req0.read(), in.port_enable, in.fault_detect);
      check("out_req0", out_req0.read(), r0);
      check("out_req1", out_req1.read(), r1);
      check("out_data", out_data.read(), data);
      check("stop", stop.read(), out.stop);
      check("valid", valid.read(), s.valid);
      check("epl", epl.read(), s.epl);
      check("root", root.read(), s.root);
      check("parent", parent.read(), static_cast<uint64_t>(s.parent));
      check("children", children.read(), s.children);
      check("emergency", emergency.read(), s.emergency);
      check("done", done.read(), s.done);
    }
    if (++cycle >= cycles_to_run) {
      sc_core::sc_stop();
      return;
    }
    // 2. Drive the next cycle's stimulus.
    std::uniform_real_distribution<double> u(0, 1);
    const bool do_reset = cycle <= 2 || u(rng) < 0.0005;
    if (do_reset) {
      ++cov.resets;
      node_id.write(static_cast<uint32_t>(rng() % 256));
      port_enable.write(0xF);
    }
    rst.write(do_reset);
    if (u(rng) < 0.01) port_enable.write(port_enable.read() ^ (1u << (rng() % kP)));
    fault_detect.write(u(rng) < 0.004);
    const auto& s = model.state();
    const uint32_t latch = s.valid ? s.epl : 0;
    uint32_t r0 = 0, r1 = 0, n0 = 0, n1 = 0;
    uint64_t data = 0, ndata = 0;
    const bool burst = u(rng) < 0.02;  // the same EPL on several ports at once
    const uint32_t burst_epl = latch + static_cast<uint32_t>(rng() % 3);
    for (int i = 0; i < kP; ++i) {
      uint32_t d;
      bool a = false, b = false;
      const double x = u(rng);
      if (burst && u(rng) < 0.7) {
        a = b = true;
        d = burst_epl;
      } else if (x < 0.07) {  // an emergency: equal, lower, slightly higher or next generation
        a = b = true;
        switch (rng() % 5) {
          case 0:
            d = latch;
            break;
          case 1:
            d = latch > 0 ? latch - 1 : 0;
            break;
          case 2:
            d = latch + 1 + static_cast<uint32_t>(rng() % 4);
            break;
          case 3:
            d = (((latch >> 8) + 1) << 8) | static_cast<uint32_t>(rng() % 256);
            break;
          default:
            d = static_cast<uint32_t>(rng() % 0x0400);
            break;
        }
        d &= 0xFFFE;          // keep clear of the ACK code
      } else if (x < 0.12) {  // a special ACK
        a = b = true;
        d = 0xFFFF;
      } else {  // normal traffic never asserts both request lines
        const int k = static_cast<int>(rng() % 3);
        a = k == 1;
        b = k == 2;
        d = static_cast<uint32_t>(rng() & 0xFFFF);
      }
      r0 |= static_cast<uint32_t>(a) << i;
      r1 |= static_cast<uint32_t>(b) << i;
      data |= static_cast<uint64_t>(d) << (i * kW);
      const int k = static_cast<int>(rng() % 3);
      n0 |= static_cast<uint32_t>(k == 1) << i;
      n1 |= static_cast<uint32_t>(k == 2) << i;
      ndata |= static_cast<uint64_t>(rng() & 0xFFFF) << (i * kW);
    }
    in_req0.write(r0);
    in_req1.write(r1);
    in_data.write(data);
    normal_req0.write(n0);
    normal_req1.write(n1);
    normal_data.write(ndata);
  }
};

}  // namespace

TEST(RtlLockstep, EmergencyLogicMatchesTheModelEveryCycle) {
  Lockstep ls("lockstep", 120000, false, 12345);
  sc_core::sc_start();
  EXPECT_EQ(ls.mismatches, 0) << ls.first_mismatch;
  EXPECT_GE(ls.cycle, 100000);
  // The stimulus reached every case it is meant to cover.
  std::printf(
      "coverage: adoptions %ld nested %ld equal-ignored %ld acks %ld done %ld simultaneous %ld roots %ld resets %ld\n",
      ls.cov.adoptions, ls.cov.nested, ls.cov.equal_ignored, ls.cov.acks_accepted, ls.cov.done, ls.cov.simultaneous,
      ls.cov.local_roots, ls.cov.resets);
  EXPECT_GT(ls.cov.adoptions, 500);
  EXPECT_GT(ls.cov.nested, 100);
  EXPECT_GT(ls.cov.equal_ignored, 100);
  EXPECT_GT(ls.cov.acks_accepted, 100);
  EXPECT_GT(ls.cov.done, 50);
  EXPECT_GT(ls.cov.simultaneous, 100);
  EXPECT_GT(ls.cov.local_roots, 50);
}

TEST(RtlLockstep, InjectedDifferenceIsCaught) {
  Lockstep ls("lockstep", 120000, true, 12345);
  sc_core::sc_start();
  EXPECT_GT(ls.mismatches, 0);
  std::printf("first mismatch: %s\n", ls.first_mismatch.c_str());
}
