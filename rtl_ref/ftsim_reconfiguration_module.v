// Immunet Reconfiguration Module, sections 4.1 and 5: first-come-first-served
// EPL compare and latch, parent latch, children table, special-ACK and
// time-out logic. Cycle-exact twin of hw/immunet/emergency_logic.cpp.
// EPL = {t, x}: generation t in the high bits, node id x in the low IDB bits.
module ftsim_reconfiguration_module #(
  parameter P = 4, parameter W = 16, parameter IDB = 8,
  parameter HANDLE = 3, parameter WINDOW = 8
) (
  input  wire           clk,
  input  wire           rst,
  input  wire [P-1:0]   epl_valid_in,   // Input Blocks: an EPL (not an ACK) on port i
  input  wire [P-1:0]   ack_in,         // Input Blocks: a special ACK on port i
  input  wire [P*W-1:0] in_data,
  input  wire [P-1:0]   port_enable,
  input  wire           fault_detect,
  input  wire [IDB-1:0] node_id,
  output reg            valid,
  output reg  [W-1:0]   epl,
  output reg            root,
  output reg  [3:0]     parent,
  output reg  [P-1:0]   children,
  output reg            ack_now,
  output reg            propagate_now,
  output reg            emergency,
  output reg            stop,       // STOP on all input channels: a register of its own (see docs)
  output reg            done
);
  localparam [31:0] HANDLE32 = HANDLE;
  localparam [31:0] WINDOW32 = WINDOW;
  reg [15:0] handle_count;
  reg [15:0] window_count;

  // Comparator chain: highest EPL, lowest port on ties.
  reg           have;
  reg [W-1:0]   best;
  reg [3:0]     best_port;
  reg [W-1:0]   e;
  reg           adopt;
  reg           adopt_root;
  reg [W-1:0]   adopt_epl;
  reg [3:0]     adopt_port;
  reg [W-IDB-1:0] t_next;
  reg [W-1:0]   local_epl;
  reg [P-1:0]   children_next;
  integer i;

  always @* begin
    have = 1'b0;
    best = {W{1'b0}};
    best_port = 4'd0;
    for (i = 0; i < P; i = i + 1) begin
      e = in_data[i*W +: W];
      if (port_enable[i] && epl_valid_in[i] && (!have || e > best)) begin
        have = 1'b1;
        best = e;
        best_port = i[3:0];
      end
    end
    adopt = 1'b0;
    adopt_root = 1'b0;
    adopt_epl = {W{1'b0}};
    adopt_port = 4'd0;
    if (have && (!valid || best > epl)) begin
      adopt = 1'b1;
      adopt_epl = best;
      adopt_port = best_port;
    end
    t_next = valid ? epl[W-1:IDB] + 1'b1 : {(W-IDB){1'b0}};
    local_epl = {t_next, node_id};
    if (fault_detect && (!adopt || local_epl >= adopt_epl) && (!valid || local_epl > epl || adopt)) begin
      adopt = 1'b1;
      adopt_root = 1'b1;
      adopt_epl = local_epl;
    end
    children_next = children;
    if (window_count != 16'd0)
      children_next = children | (ack_in & port_enable);
  end

  always @(posedge clk) begin
    if (rst) begin
      valid <= 1'b0;
      epl <= {W{1'b0}};
      root <= 1'b0;
      parent <= 4'd0;
      children <= {P{1'b0}};
      ack_now <= 1'b0;
      propagate_now <= 1'b0;
      handle_count <= 16'd0;
      window_count <= 16'd0;
      emergency <= 1'b0;
      stop <= 1'b0;
      done <= 1'b0;
    end else if (adopt) begin
      valid <= 1'b1;
      epl <= adopt_epl;
      root <= adopt_root;
      parent <= adopt_root ? 4'd0 : adopt_port;
      children <= {P{1'b0}};
      ack_now <= ~adopt_root;
      propagate_now <= 1'b0;
      handle_count <= HANDLE32[15:0];
      window_count <= 16'd0;
      emergency <= 1'b1;
      stop <= 1'b1;
      done <= 1'b0;
    end else begin
      children <= children_next;
      ack_now <= 1'b0;
      propagate_now <= (handle_count == 16'd1);
      if (handle_count != 16'd0) handle_count <= handle_count - 1'b1;
      if (propagate_now) window_count <= WINDOW32[15:0];
      else if (window_count != 16'd0) window_count <= window_count - 1'b1;
      if (window_count == 16'd1 && !propagate_now) begin
        emergency <= 1'b0;
        stop <= 1'b0;
        done <= 1'b1;
      end
    end
  end
endmodule
