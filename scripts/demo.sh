#!/usr/bin/env bash
# Command (1): install what is missing, build in Release, run the default
# experiment, and write stats.json, timeseries.csv, a plot and a VCD.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)"
out=results/mesh-uniform
mkdir -p "$out"
./build/ftsim run experiments/mesh-uniform.yaml --out "$out" --plot \
  --vcd "$out/waves.vcd" --trace-from 2000 --trace-to 2200
echo "stats: $out/stats.json"
echo "plot:  $out/timeseries.png"
echo "waves: $out/waves.vcd  (gtkwave $out/waves.vcd waves/router.gtkw)"
