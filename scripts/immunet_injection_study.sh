#!/usr/bin/env bash
# Immunet injection regulation study (docs/reproduction/immunet.md, "Injection
# regulation"): for each router.injection policy and offered load, runs the
# single link-fault experiment and the same network fault-free, and prints the
# accepted load after the reconfiguration (mean over cycles FROM..TO) against
# the fault-free value in the same window.
# Usage: scripts/immunet_injection_study.sh EXPERIMENT.yaml OUTDIR FROM:TO "LOADS" "POLICIES" [--set k=v ...]
set -euo pipefail
cd "$(dirname "$0")/.."
exp=$1 out=$2 win=$3 loads=$4 policies=$5
shift 5
mkdir -p "$out"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
jobs=()
for pol in $policies; do
  for load in $loads; do
    jobs+=("$pol $load fault" "$pol $load free")
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -L 1 bash -c '
  pol=$0 load=$1 kind=$2; shift 3
  dir="'"$out"'/$pol-$load-$kind"
  extra=(); [ "$kind" = free ] && extra=(--set "faults.schedule=[]")
  ./build/ftsim run "'"$exp"'" --out "$dir" --quiet --set router.injection=$pol --set traffic.load=$load "${extra[@]}" '"$*"' > "$dir.log" 2>&1 || echo "run $dir failed (see $dir.log)" >&2'
printf "%-34s %6s %10s %10s %8s\n" policy offered fault_free after_fault change
for pol in $policies; do
  for load in $loads; do
    f=$(python3 scripts/ts_window.py "$out/$pol-$load-free/timeseries.csv" "$win" | awk '{print $4}')
    a=$(python3 scripts/ts_window.py "$out/$pol-$load-fault/timeseries.csv" "$win" | awk '{print $4}')
    printf "%-34s %6s %10s %10s %+7.1f%%\n" "$pol" "$load" "$f" "$a" "$(python3 -c "print(100*($a-$f)/$f)")"
  done
done | tee "$out/summary.txt"
