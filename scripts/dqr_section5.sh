#!/usr/bin/env bash
# Section V of the DQR paper with ftsim analyze dqr (500 runs per point).
# Usage: scripts/dqr_section5.sh [OUTDIR] [RUNS]   (default results/dqr, 500)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/dqr}
runs=${2:-500}
mkdir -p "$out"
ftsim=./build/ftsim
# E1: every variation on the 10x10 XY mesh.
$ftsim analyze dqr --topology mesh:10x10 --initial dor --variant all --faults 1..20 --runs "$runs" --seed 1 \
  --out "$out/e1-mesh10x10.json"
# E2: the mesh plug-in on 5x5..20x20 (E3, flows rerouted per fault, is in the 20x20 file).
for k in 5 10 15 20; do
  $ftsim analyze dqr --topology "mesh:${k}x${k}" --initial dor --variant mesh-plugin,lr-path --faults "1..$((2 * k))" \
    --runs "$runs" --seed 1 --out "$out/e2-mesh${k}x${k}.json"
done
# E5: the 648-port two-tier fat tree of 36-port switches, up*/down* tables,
# end-to-end against local reroute: with switch-to-switch paths (every
# switch's LID an endpoint, as in the paper), and with HCA endpoints only.
$ftsim analyze dqr --topology fat-tree2:36,18,18 --endpoints all --initial updn \
  --variant e2e-path,lr-path,e2e-single,lr-single --faults 1..40 --runs "$runs" --seed 1 \
  --out "$out/e5-fattree648-switches.json"
$ftsim analyze dqr --topology fat-tree2:36,18,18 --initial updn --variant e2e-path,lr-path,e2e-single,lr-single \
  --faults 1..40 --runs "$runs" --seed 1 --out "$out/e5-fattree648.json"
# E4: LASH tori of 5x5..20x20, every virtual layer searched (at 500 runs on 2
# threads: 2 s, 59 s, 1109 s and 3374 s), and 10x10 with the flows kept in their layer.
for k in 5 10 15 20; do
  $ftsim analyze dqr --topology "torus:${k}x${k}" --initial lash --variant lr-path,lr-path-all,e2e-path,local-search \
    --faults "1..$((2 * k))" --runs "$runs" --seed 1 --jobs 2 --every-single-fault --out "$out/e4-torus${k}x${k}.json"
done
$ftsim analyze dqr --topology torus:10x10 --initial lash --layers same --variant lr-path-all,e2e-path,local-search \
  --faults 1..20 --runs "$runs" --seed 1 --jobs 2 --every-single-fault --out "$out/e4-torus10x10-same.json"
