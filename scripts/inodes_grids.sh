#!/usr/bin/env bash
# The intermediate-node paper's Figure 9 grid (section 5.3.3) with ftsim
# sweep: saturation throughput of the 8x8x8 torus against 0..14 random link
# faults, five VCs (a) and four VCs (b), and the BlueGene/L-like baseline
# (0..7 faults). RUNS fault draws per point (the paper: 50). Resumable:
# re-running with a larger RUNS keeps the finished runs and adds the new
# draws (the replication axis is the slowest), so the grid can grow in
# stages (5, then 10, 20, 50) with a complete report after each.
# Usage: scripts/inodes_grids.sh [RUNS] [PREFIX] [JOBS]   (default 5 results/inodes-fig9 2)
# Writes PREFIX-{5vc,5vc-odd,4vc,4vc-odd,bgl} (the -odd sweeps add the odd
# fault counts). INODES_SWEEPS="5vc 5vc-odd" runs those sweeps only (default:
# all five); FTSIM=path picks the binary (a copy, so that rebuilding does not
# change a long grid's binary). Cost: docs/performance.md (about 77
# CPU-minutes per fault draw here: 64 CPU-hours for the 50-draw grid).
# Report, mean ± standard error over the draws every point has finished:
#   python3 scripts/inodes_report.py "$(dirname PREFIX)" "$(basename PREFIX)" --draws complete --error se [--plot DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
prefix=${2:-results/inodes-fig9}
jobs=${3:-2}
ftsim=${FTSIM:-./build/ftsim}
sweeps=${INODES_SWEEPS:-5vc 5vc-odd 4vc 4vc-odd bgl}
if ! [[ $runs =~ ^[0-9]+$ ]] || ((runs < 1)); then
  echo "inodes_grids.sh: RUNS must be a count of at least 1 (got '$runs')" >&2
  exit 2
fi
for sweep in $sweeps; do
  case $sweep in
    5vc | 5vc-odd | 4vc | 4vc-odd | bgl) ;;
    *)
      echo "inodes_grids.sh: unknown sweep '$sweep' in INODES_SWEEPS (allowed: 5vc 5vc-odd 4vc 4vc-odd bgl)" >&2
      exit 2
      ;;
  esac
done
for sweep in $sweeps; do
  file=experiments/inodes-8x8x8-$sweep-sweep.yaml
  echo "== $file: $runs fault draws per point -> $prefix-$sweep" >&2
  "$ftsim" sweep "$file" --runs "$runs" --jobs "$jobs" --resume --out "$prefix-$sweep"
done
