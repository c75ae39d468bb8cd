// Immunet Output Block (one per physical link), section 5 and Figure 9:
// special ACK to the parent > emergency propagation > normal traffic.
module ftsim_output_block #(parameter W = 16) (
  input  wire         send_ack,
  input  wire         send_epl,
  input  wire [W-1:0] epl,
  input  wire         normal_req0,
  input  wire         normal_req1,
  input  wire [W-1:0] normal_data,
  output wire         req0,
  output wire         req1,
  output wire [W-1:0] data
);
  wire special = send_ack | send_epl;
  assign req0 = special | normal_req0;
  assign req1 = special | normal_req1;
  assign data = send_ack ? {W{1'b1}} : (send_epl ? epl : normal_data);
endmodule
