#include "rtl_ref/verilated_emergency_logic.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "Vimmunet_p4_w32_id4_h100_a10.h"
#include "Vimmunet_p4_w32_id6_h100_a10.h"
#include "common/config_error.hpp"
#include "verilated.h"

namespace ftsim::rtl {

namespace {

/// One Verilated ftsim_emergency_logic with P = 4 and W = 32 (one 32-bit
/// word of in_data / out_data per port). step() is one clock edge with the
/// inputs of the cycle; outputs() evaluates the combinational Output Blocks
/// from the registers, the normal traffic and the port enables.
template <class Model>
class VerilatedBlocks final : public hw::EmergencyBlocks {
 public:
  VerilatedBlocks(VerilatedContext& ctx, int ports) : m_v(&ctx, "ftsim_emergency_logic"), m_ports(ports) {
    m_v.clk = 0;
    m_v.rst = 1;
    m_v.eval();
    m_v.clk = 1;
    m_v.eval();
    m_v.clk = 0;
    m_v.rst = 0;
    m_v.eval();
    read_state();
  }

  void step(const hw::EmergencyInputs& in) override {
    set_inputs(in.normal, in.port_enable);
    unsigned r0 = 0;
    unsigned r1 = 0;
    for (int i = 0; i < m_ports; ++i) {
      r0 |= static_cast<unsigned>(in.in[static_cast<std::size_t>(i)].req0) << i;
      r1 |= static_cast<unsigned>(in.in[static_cast<std::size_t>(i)].req1) << i;
      m_v.in_data[i] = in.in[static_cast<std::size_t>(i)].data;
    }
    m_v.in_req0 = static_cast<CData>(r0);
    m_v.in_req1 = static_cast<CData>(r1);
    m_v.fault_detect = in.fault_detect;
    m_v.node_id = static_cast<CData>(in.node_id);
    m_v.clk = 1;
    m_v.eval();
    m_v.clk = 0;
    m_v.eval();
    read_state();
  }

  hw::EmergencyOutputs outputs(const std::vector<hw::EmergencyWires>& normal,
                               std::uint32_t port_enable) const override {
    auto& v = const_cast<Model&>(m_v);  // evaluating combinational logic changes no register
    const_cast<VerilatedBlocks*>(this)->set_inputs(normal, port_enable);
    v.eval();
    hw::EmergencyOutputs o;
    o.out.resize(static_cast<std::size_t>(m_ports));
    for (int i = 0; i < m_ports; ++i)
      o.out[static_cast<std::size_t>(i)] = hw::EmergencyWires{(v.out_req0 >> i & 1) != 0, (v.out_req1 >> i & 1) != 0,
                                                              static_cast<std::uint32_t>(v.out_data[i])};
    o.stop = v.stop != 0;
    return o;
  }

  const hw::EmergencyState& state() const override { return m_s; }

 private:
  void set_inputs(const std::vector<hw::EmergencyWires>& normal, std::uint32_t port_enable) {
    unsigned r0 = 0;
    unsigned r1 = 0;
    for (int i = 0; i < m_ports; ++i) {
      r0 |= static_cast<unsigned>(normal[static_cast<std::size_t>(i)].req0) << i;
      r1 |= static_cast<unsigned>(normal[static_cast<std::size_t>(i)].req1) << i;
      m_v.normal_data[i] = normal[static_cast<std::size_t>(i)].data;
    }
    m_v.normal_req0 = static_cast<CData>(r0);
    m_v.normal_req1 = static_cast<CData>(r1);
    m_v.port_enable = static_cast<CData>(port_enable & ((1u << m_ports) - 1u));
  }
  // The registers the Verilog has as ports; its counters and pulses are
  // internal (the network reads only these).
  void read_state() {
    m_s.valid = m_v.valid != 0;
    m_s.epl = m_v.epl;
    m_s.root = m_v.root != 0;
    m_s.parent = m_v.parent;
    m_s.children = m_v.children;
    m_s.emergency = m_v.emergency != 0;
    m_s.done = m_v.done != 0;
  }
  Model m_v;
  int m_ports;
  hw::EmergencyState m_s;
};

VerilatedContext& context() {
  static VerilatedContext ctx;
  return ctx;
}

}  // namespace

std::string verilated_parameter_sets() {
  return "P=4 W=32 IDB=4 HANDLE=100 WINDOW=10 (up to 16 routers); P=4 W=32 IDB=6 HANDLE=100 WINDOW=10 (17..64 "
         "routers)";
}

hw::EmergencyBlocksFactory verilated_emergency_blocks() {
  return [](const hw::EmergencyParams& p) -> std::unique_ptr<hw::EmergencyBlocks> {
    if (p.ports == 4 && p.epl_bits == 32 && p.handle_cycles == 100 && p.ack_window == 10) {
      if (p.id_bits == 4) return std::make_unique<VerilatedBlocks<Vimmunet_p4_w32_id4_h100_a10>>(context(), 4);
      if (p.id_bits == 6) return std::make_unique<VerilatedBlocks<Vimmunet_p4_w32_id6_h100_a10>>(context(), 4);
    }
    throw ConfigError(fmt::format(
        "immunet.rtl = 'verilated': no Verilated model with P={} W={} IDB={} HANDLE={} WINDOW={} in this build "
        "(immunet.handle_cycles, immunet.ack_window, the torus's 2n ports and its router count fix them); compiled: {}",
        p.ports, p.epl_bits, p.id_bits, p.handle_cycles, p.ack_window, verilated_parameter_sets()));
  };
}

}  // namespace ftsim::rtl
