#!/usr/bin/env bash
# The fat-tree DLR paper's section IX grids with ftsim sweep: throughput
# against link faults for DDLR, ADLR and DDRC, packets discarded per fault,
# and ADLR's deadlock probability beyond k-1 faults. RUNS fault draws per
# point (the paper: 500). Resumable: re-running with a larger RUNS keeps the
# finished runs and adds the new draws (the replication axis is the slowest).
# Usage: scripts/dlr_grids.sh [RUNS] [OUTDIR] [JOBS]   (default 20 results 1)
# Report: python3 scripts/dlr_report.py OUTDIR/dlr   (reads OUTDIR/dlr-{ddlr,adlr,ddrc}; discards and
# adlr-deadlock tables too when those folders exist)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
out=${2:-results}
jobs=${3:-1}
ftsim=${FTSIM:-./build/ftsim}
for sweep in discards adlr-deadlock ddlr adlr ddrc; do
  file=experiments/dlr-$sweep-throughput-sweep.yaml
  [[ -f $file ]] || file=experiments/dlr-$sweep-sweep.yaml
  echo "== $file: $runs runs per point -> $out/dlr-$sweep" >&2
  "$ftsim" sweep "$file" --runs "$runs" --jobs "$jobs" --resume --out "$out/dlr-$sweep"
done
