#!/usr/bin/env bash
# Builds the ftsim command with profile-guided optimisation (GCC) into
# BUILD_DIR (default build-pgo): an instrumented build, four short training
# runs (a mesh, Figure 9's 8x8x8 torus, Immunet with a link fault, a fat tree
# with U-turns: none of them the benchmark configurations of
# docs/performance.md), then the optimised build in the same directory.
# Results are bit for bit those of the default build (scripts/same_behaviour.py);
# docs/performance.md gives the gain. About twice a normal build's time.
# Usage: bash scripts/build_pgo.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-pgo}
profile="$(realpath -m "$dir")/pgo-profile"
jobs=$(nproc)
rm -rf "$profile"
common=(-DCMAKE_BUILD_TYPE=Release -DFTSIM_BUILD_TESTS=OFF -DFTSIM_BUILD_RTL=OFF -DFTSIM_PGO_DIR="$profile")
echo "build_pgo: instrumented build in $dir"
cmake -S . -B "$dir" "${common[@]}" -DFTSIM_PGO=generate > /dev/null
cmake --build "$dir" -j"$jobs" --target ftsim
echo "build_pgo: training runs"
train=$(mktemp -d)
trap 'rm -rf "$train"' EXIT
run() { "$dir/ftsim" run "$@" --quiet --out "$train/out" > /dev/null; }
run experiments/mesh-uniform.yaml --set traffic.load=0.15 --set sim.seed=7
run experiments/inodes-8x8x8-base.yaml --set sim.warmup_cycles=200 --set sim.measure_cycles=600 --set traffic.load=0.6 --set sim.seed=2
run experiments/immunet-8x8-link-fault.yaml --set sim.warmup_cycles=1000 --set sim.measure_cycles=12000 --set sim.max_drain_cycles=0
run experiments/fat-tree-uturn.yaml
echo "build_pgo: optimised build in $dir"
cmake -S . -B "$dir" "${common[@]}" -DFTSIM_PGO=use > /dev/null
cmake --build "$dir" -j"$jobs" --target ftsim
echo "build_pgo: $dir/ftsim"
