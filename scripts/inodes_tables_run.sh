#!/usr/bin/env bash
# Runs every fault-tolerance analysis of docs/reproduction/intermediate-nodes.md
# (3x3x3 torus, section 5.1) into DIR (default results/inodes-ft), skipping
# files already present. The misrouting family first (issue 11 changed it).
#   scripts/inodes_tables_run.sh [DIR] [THREADS]
# INODES_MECHS="M D+M" runs those mechanisms only (default: every one).
# Then: scripts/inodes_report.py DIR
set -euo pipefail
dir=${1:-results/inodes-ft}
threads=${2:-2}
ftsim=${FTSIM:-./build/ftsim}
mkdir -p "$dir"
mechs=${INODES_MECHS:-"M I+M D+M I+D+M I+D Ix2+D I D Ix2 Ix3"}
run() {  # kind mech args...
  local kind=$1 m=$2
  shift 2
  local out="$dir/ft-$kind-$m.json"
  [ -s "$out" ] && return 0
  echo "== $kind $m $*" >&2
  "$ftsim" analyze fault-tolerance --topology torus:3x3x3 --mechanism "$m" --threads "$threads" "$@" \
    --out "$out.tmp" && mv "$out.tmp" "$out"
}
for m in $mechs; do run exh "$m" --faults 1..5 --exhaustive; done
for m in $mechs; do run reg "$m" --faults 5..8 --region distance1; done
for m in $mechs; do run smp "$m" --faults 6..14 --samples 20000 --seed 1; done
for m in $mechs; do run reg910 "$m" --faults 9..10 --region distance1; done
