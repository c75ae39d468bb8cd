// Immunet Input Block (one per physical link), section 5 and Figure 9.
// Both request lines asserted = emergency (impossible in normal operation);
// all-ones data with it = special ACK. One level of gates on the request lines.
module ftsim_input_block #(parameter W = 16) (
  input  wire         req0,
  input  wire         req1,
  input  wire [W-1:0] data,
  output wire         emergency,
  output wire         is_ack,
  output wire         is_epl
);
  assign emergency = req0 & req1;
  assign is_ack    = emergency & (&data);
  assign is_epl    = emergency & ~(&data);
endmodule
