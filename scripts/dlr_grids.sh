#!/usr/bin/env bash
# The fat-tree DLR paper's section IX grids with ftsim sweep: throughput
# against link faults for DDLR, ADLR and DDRC, packets discarded per fault,
# and ADLR's deadlock probability beyond k-1 faults. RUNS fault draws per
# point (the paper: 500). Resumable: re-running with a larger RUNS keeps the
# finished runs and adds the new draws (the replication axis is the slowest).
# Usage: scripts/dlr_grids.sh [RUNS] [OUTDIR] [JOBS]   (default 20 results 1)
# DLR_SWEEPS="ddlr ddrc" runs those sweeps only (default: discards
# adlr-deadlock ddlr adlr ddrc); FTSIM=path picks the binary (a copy, so that
# rebuilding does not change a long grid's binary); DLR_DEADLOCK_CYCLES=200000
# runs the ADLR deadlock sweep at the paper's length (default: the file's
# 50,000 cycles; a folder of one length does not resume at another: use
# another OUTDIR).
# Report: python3 scripts/dlr_report.py OUTDIR/dlr   (reads OUTDIR/dlr-{ddlr,adlr,ddrc}, if any; discards and
# adlr-deadlock tables too when those folders exist)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
out=${2:-results}
jobs=${3:-1}
ftsim=${FTSIM:-./build/ftsim}
sweeps=${DLR_SWEEPS:-discards adlr-deadlock ddlr adlr ddrc}
for sweep in $sweeps; do
  case $sweep in
    discards | adlr-deadlock | ddlr | adlr | ddrc) ;;
    *)
      echo "dlr_grids.sh: unknown sweep '$sweep' in DLR_SWEEPS (allowed: discards adlr-deadlock ddlr adlr ddrc)" >&2
      exit 2
      ;;
  esac
done
for sweep in $sweeps; do
  file=experiments/dlr-$sweep-throughput-sweep.yaml
  [[ -f $file ]] || file=experiments/dlr-$sweep-sweep.yaml
  extra=()
  if [[ $sweep == adlr-deadlock && -n ${DLR_DEADLOCK_CYCLES:-} ]]; then
    extra=(--set "sim.measure_cycles=$DLR_DEADLOCK_CYCLES")
  fi
  echo "== $file: $runs runs per point ${extra[*]} -> $out/dlr-$sweep" >&2
  "$ftsim" sweep "$file" --runs "$runs" --jobs "$jobs" --resume "${extra[@]}" --out "$out/dlr-$sweep"
done
