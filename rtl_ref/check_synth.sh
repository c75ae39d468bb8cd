#!/usr/bin/env bash
# Synthesises the Input and Output Blocks with yosys (W = 16) and checks the
# cell counts against a hand count (docs/reproduction/immunet.md):
#   Input Block : 1 AND (req0 & req1) + 15 ANDs (all-ones decode) + 3 gates (ACK/EPL) = 19
#   Output Block: 3 ORs (request lines) + 16 x (MUX + OR) on the data lines        = 35
# and that the emergency detection is one gate deep.
set -euo pipefail
src="$1"
out="${2:-results}"
mkdir -p "$out"
cd "$src"
sed "s#results/#$out/#g" rtl_ref/synth_blocks.ys > "$out/synth_blocks.ys"
yosys -q -s "$out/synth_blocks.ys"
cells() { awk '/Number of cells/ {print $4; exit}' "$1"; }
in_cells=$(cells "$out/synth_input_block.txt")
out_cells=$(cells "$out/synth_output_block.txt")
echo "input block cells per link: $in_cells (expected 19)"
echo "output block cells per link: $out_cells (expected 35)"
[ "$in_cells" -eq 19 ] && [ "$out_cells" -eq 35 ]
# The emergency output alone (a wrapper exposing only it): one 2-input AND.
cat > "$out/detect.ys" <<YS
read_verilog rtl_ref/ftsim_input_block.v
read_verilog <<EOT
module detect_only(input req0, input req1, input [15:0] data, output emergency);
  wire a, e;
  ftsim_input_block #(.W(16)) ib(.req0(req0), .req1(req1), .data(data), .emergency(emergency), .is_ack(a), .is_epl(e));
endmodule
EOT
synth -top detect_only -flatten
abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX
opt_clean
tee -o $out/detect_cells.txt stat
YS
yosys -q -s "$out/detect.ys"
n=$(cells "$out/detect_cells.txt")
echo "cells between the request lines and the emergency signal: $n (expected 1)"
[ "$n" -eq 1 ]
