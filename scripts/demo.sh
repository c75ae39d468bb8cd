#!/usr/bin/env bash
# Command (1): install what is missing, build in Release, and run the default
# experiment: Immunet on an 8x8 torus beyond saturation, one link fault at
# cycle 10,000 (immunet-fault-tolerant-routing.txt, section 6.1). ftsim prints
# a one-screen summary (loads, latency, packets lost, reconfiguration times,
# warnings: this run is beyond saturation on purpose, as in the paper) and
# writes stats.json, timeseries.csv, a plot that marks the fault, the
# emergency and the recovery, and a VCD of the emergency for GTKWave.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out=results/demo
mkdir -p "$out"
./build/ftsim run experiments/immunet-8x8-link-fault.yaml --out "$out" --plot \
  --vcd "$out/waves.vcd" --trace-from 9990 --trace-to 10600
echo "stats: $out/stats.json"
echo "plot:  $out/timeseries.png"
echo "waves: $out/waves.vcd  (gtkwave $out/waves.vcd waves/immunet-8x8-demo.gtkw)"
