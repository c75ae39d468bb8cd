#!/usr/bin/env bash
# Gate counts of the Verilog reference blocks (rtl_ref/) with yosys, for the
# cost report (issue 52 item 1): the Input and Output Blocks per link (W = 16
# data lines) and the Reconfiguration Module per router (P = 4 ports, W = 16,
# IDB = 8 node-id bits: a 2-D torus of up to 256 nodes), mapped to two-input
# gates and flip-flops as rtl_ref/check_synth.sh does. Writes the CSV
# (block, parameters, cells, flip_flops). Exits 77 without yosys.
# usage: rtl_cell_counts.sh SOURCE_DIR OUT.csv
set -euo pipefail
src=$(readlink -f "$1"); out=$2
command -v yosys > /dev/null || { echo "rtl_cell_counts: needs yosys; skipped" >&2; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
synth() {  # module file params -> stat file
  cat > "$work/$1.ys" <<YS
read_verilog $src/rtl_ref/$2
chparam $3 $1
synth -top $1 -flatten
abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX
opt_clean
tee -o $work/$1.txt stat
YS
  yosys -q -s "$work/$1.ys"
}
count() { awk '/Number of cells/ {print $4; exit}' "$work/$1.txt"; }
flops() { awk '/\$_(S?DFF|DFF|SDFF|DFFE)[A-Z0-9_]*_/ {n += $2} END {print n + 0}' "$work/$1.txt"; }
synth ftsim_input_block ftsim_input_block.v "-set W 16"
synth ftsim_output_block ftsim_output_block.v "-set W 16"
synth ftsim_reconfiguration_module ftsim_reconfiguration_module.v "-set P 4 -set W 16 -set IDB 8"
{
  echo "block,parameters,cells,flip_flops"
  echo "input_block,W=16,$(count ftsim_input_block),$(flops ftsim_input_block)"
  echo "output_block,W=16,$(count ftsim_output_block),$(flops ftsim_output_block)"
  echo "reconfiguration_module,P=4 W=16 IDB=8,$(count ftsim_reconfiguration_module),$(flops ftsim_reconfiguration_module)"
} > "$out"
cat "$out"
