// Immunet emergency-signal logic of one router: P Input Blocks, the
// Reconfiguration Module and P Output Blocks (Figure 9). STOP is asserted on
// all input channels during the emergency state.
module ftsim_emergency_logic #(
  parameter P = 4, parameter W = 16, parameter IDB = 8,
  parameter HANDLE = 3, parameter WINDOW = 8
) (
  input  wire           clk,
  input  wire           rst,
  input  wire [P-1:0]   in_req0,
  input  wire [P-1:0]   in_req1,
  input  wire [P*W-1:0] in_data,
  input  wire [P-1:0]   normal_req0,
  input  wire [P-1:0]   normal_req1,
  input  wire [P*W-1:0] normal_data,
  input  wire [P-1:0]   port_enable,
  input  wire           fault_detect,
  input  wire [IDB-1:0] node_id,
  output wire [P-1:0]   out_req0,
  output wire [P-1:0]   out_req1,
  output wire [P*W-1:0] out_data,
  output wire           stop,
  output wire           valid,
  output wire [W-1:0]   epl,
  output wire           root,
  output wire [3:0]     parent,
  output wire [P-1:0]   children,
  output wire           emergency,
  output wire           done
);
  /* verilator lint_off UNUSEDSIGNAL */
  wire [P-1:0] emergency_in;  // decoded for waves; the RM uses is_ack and is_epl
  /* verilator lint_on UNUSEDSIGNAL */
  wire [P-1:0] ack_in;
  wire [P-1:0] epl_in;
  wire ack_now;
  wire propagate_now;

  genvar g;
  generate
    for (g = 0; g < P; g = g + 1) begin : link
      ftsim_input_block #(.W(W)) ib (
        .req0(in_req0[g]), .req1(in_req1[g]), .data(in_data[g*W +: W]),
        .emergency(emergency_in[g]), .is_ack(ack_in[g]), .is_epl(epl_in[g]));
      wire to_parent = ~root & (parent == g);
      ftsim_output_block #(.W(W)) ob (
        .send_ack(ack_now & to_parent),
        .send_epl(propagate_now & port_enable[g] & ~to_parent & ~(ack_now & to_parent)),
        .epl(epl),
        .normal_req0(normal_req0[g]), .normal_req1(normal_req1[g]), .normal_data(normal_data[g*W +: W]),
        .req0(out_req0[g]), .req1(out_req1[g]), .data(out_data[g*W +: W]));
    end
  endgenerate

  ftsim_reconfiguration_module #(.P(P), .W(W), .IDB(IDB), .HANDLE(HANDLE), .WINDOW(WINDOW)) rm (
    .clk(clk), .rst(rst), .epl_valid_in(epl_in), .ack_in(ack_in), .in_data(in_data),
    .port_enable(port_enable), .fault_detect(fault_detect), .node_id(node_id),
    .valid(valid), .epl(epl), .root(root), .parent(parent), .children(children),
    .ack_now(ack_now), .propagate_now(propagate_now), .emergency(emergency), .stop(stop), .done(done));
endmodule
