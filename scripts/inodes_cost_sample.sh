#!/usr/bin/env bash
# Cost of the intermediate-node paper's Figure 9 grid at 50 fault draws,
# from a sample: fault draw 1 of every routing and offered load of the
# five-VC, four-VC and BlueGene/L-like sweeps at fault counts 0, 7 and 14
# (BG/L: 0, 4, 7), one run at a time (108 runs, about 25 minutes here).
# Prints the mean wall seconds per run and the full grid's runs, CPU-hours
# and wall time on 64 cores (docs/performance.md).
# Usage: scripts/inodes_cost_sample.sh [OUTDIR]   (default results/inodes-cost-sample)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/inodes-cost-sample}
ftsim=${FTSIM:-./build/ftsim}
mkdir -p "$out"
echo "sweep,vcs,routing,load,faults,wall_seconds" > "$out/sample.csv"
one() {  # SWEEP VCS ROUTING LOAD FAULTS [--set ...]
  local s=$1 v=$2 r=$3 l=$4 f=$5
  shift 5
  "$ftsim" run experiments/inodes-8x8x8-base.yaml --quiet --out "$out/run" --set router.vcs="$v" --set "routing=$r" \
    --set traffic.load="$l" --set faults.random_links="$f" --set faults.random_seed=1 "$@" > /dev/null
  echo "$s,$v,$r,$l,$f,$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_seconds'])" "$out/run/stats.json")" >> "$out/sample.csv"
}
for l in 0.7 0.85 1.0; do
  for f in 0 7 14; do
    for r in I+D I+D+M I+M D+M Ix2 D+M@adaptivity-first; do one 5vc 5 "inodes:$r" $l $f; done
    for r in I+D I+D+M I+M D+M Ix2; do one 4vc 4 "inodes:$r" $l $f; done
  done
  for f in 0 4 7; do
    one bgl 3 duato $l $f --set router.injection_ports=3 --set faults.model=bgl-planes --set faults.bgl_plane_nodes=32
  done
done
python3 - "$out/sample.csv" <<'PY'
import csv, sys
from collections import defaultdict
secs = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    secs[r['sweep']].append(float(r['wall_seconds']))
# runs per fault draw of each sweep file (routings x loads x fault counts)
per_draw = {'5vc': 162, '5vc-odd': 108, '4vc': 135, '4vc-odd': 90, 'bgl': 24}
print('| sweep | sampled runs | s per run | runs per draw | CPU-min per draw | 50 draws: runs, CPU-hours | wall on 64 cores |')
print('|---|---|---|---|---|---|---|')
total = 0.0
for s, n in per_draw.items():
    v = secs[s.replace('-odd', '')]
    m = sum(v) / len(v)
    cpu_h = m * n * 50 / 3600
    total += cpu_h
    print(f'| {s} | {len(v)} | {m:.1f} | {n} | {m * n / 60:.0f} | {n * 50:,}, {cpu_h:.1f} | {cpu_h * 60 / 64:.0f} min |')
print(f'total: {sum(per_draw.values()) * 50:,} runs, {total:.1f} CPU-hours, {total / 64:.1f} h on 64 cores')
PY
