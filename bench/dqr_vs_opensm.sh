#!/usr/bin/env bash
# DQR's computation time for one link fault next to OpenSM's routing time
# for the same fabric (issue 14 section 6, docs/performance.md). For each
# fabric: ftsim writes the ibsim netfile; ibsim simulates it; OpenSM routes
# it once per engine (-o, routing time from its log: "building routing with"
# to "tables configured on all switches"); DQR starts from each engine's
# dumped tables and reconfigures RUNS random single link faults (mean and
# max compute time, LFT entries changed). Then one fixed link fails in ibsim
# and OpenSM (first engine) routes the faulted fabric again, as its resweep
# does: dump entries it changed against those DQR changes for the same link.
# An engine that fails falls back to minhop in OpenSM; the table says so.
#
# usage: bench/dqr_vs_opensm.sh FTSIM [OUTDIR] [RUNS]
set -euo pipefail
FTSIM=$(readlink -f "$1"); OUT=${2:-$(mktemp -d)}; RUNS=${3:-50}
mkdir -p "$OUT"; OUT=$(readlink -f "$OUT")
source "$(dirname "$(readlink -f "$0")")/../scripts/opensm_lib.sh"
osm_require dqr_vs_opensm
export OSM_DEBUG=0x47

printf '%-22s %-8s %12s %14s %14s %14s\n' fabric engine osm_route_ms dqr_mean_ms dqr_max_ms dqr_entries > "$OUT/table.txt"
bench() {  # TOPOLOGY VARIANT FAULT_SWITCH FAULT_PORT FAULT_LINK ENGINE...
  local topo=$1 variant=$2 fsw=$3 fport=$4 flink=$5; shift 5
  local dir=$OUT/${topo//[:,]/_}
  mkdir -p "$dir"; cd "$dir"
  rm -rf osm_* rerouted dqr
  "$FTSIM" lft netfile --topology "$topo" --out fabric.net > /dev/null
  export IBSIM_SOCKNAME="ftsim-bench-$$-${#PIDS[@]}"
  ibsim_start fabric.net -S 1024 -N 4096 -P 65536
  for eng in "$@"; do
    local ed=$dir/osm_$eng
    if [ "$eng" = minhop ]; then osm_run "$ed" -o; else osm_run "$ed" -o -R "$eng"; fi
    local t1 t2
    t1=$(osm_stamp "$ed/opensm.log" 'building routing with'); t2=$(osm_stamp "$ed/opensm.log" 'tables configured on all switches')
    local route_ms used
    route_ms=$(python3 -c "print(f'{($t2 - $t1) * 1000:.1f}')")
    used=$(grep -m1 -oE '[a-z0-9-]+ tables configured on all switches' "$ed/opensm.log" | cut -d' ' -f1)
    [ "$used" = "$eng" ] || route_ms="$route_ms(used:$used)"
    # DQR needs deadlock-free initial tables (minhop on a mesh is not).
    "$FTSIM" analyze dqr --topology "$topo" --initial "import:$ed" --variant "$variant" --faults 1..1 --runs "$RUNS" \
      --jobs 1 --quiet --out "$ed/dqr.json" 2> "$ed/dqr.err" || rm -f "$ed/dqr.json"
    python3 - "$ed/dqr.json" "$topo" "$eng" "$route_ms" >> "$OUT/table.txt" << 'PY'
import json, os, sys
if not os.path.exists(sys.argv[1]):
    print(f"{sys.argv[2]:22s} {sys.argv[3]:8s} {sys.argv[4]:>12s}   DQR refuses: initial CDG cyclic")
    sys.exit(0)
p = json.load(open(sys.argv[1]))["variants"][0]["points"][0]
print(f"{sys.argv[2]:22s} {sys.argv[3]:8s} {sys.argv[4]:>12s} {p['seconds_mean']*1e3:14.2f} {p['seconds_max']*1e3:14.2f} "
      f"{p['entries_changed']:14.1f}")
PY
  done
  # One fixed link: ibsim drops it and OpenSM (first engine) routes the
  # faulted fabric again, as its resweep does; DQR reconfigures the same link.
  local eng=$1
  echo "Unlink \"$fsw\"[$fport]" > console.fifo
  sleep 0.5
  if [ "$eng" = minhop ]; then osm_run "$dir/rerouted" -o; else osm_run "$dir/rerouted" -o -R "$eng"; fi
  local resweep b e
  b=$(osm_stamp rerouted/opensm.log 'building routing with'); e=$(osm_stamp rerouted/opensm.log 'tables configured on all switches')
  resweep=$(python3 -c "print(f'{($e - $b) * 1000:.1f}')")
  "$FTSIM" lft diff "osm_$eng" rerouted --topology "$topo" --fault "$flink" --json osm-diff.json > osm-diff.txt
  "$FTSIM" lft export --topology "$topo" --initial "import:$dir/osm_$eng" --fault "$flink" --variant "$variant" \
    --out dqr > /dev/null
  "$FTSIM" lft diff "osm_$eng" dqr --topology "$topo" --fault "$flink" --json dqr-diff.json > dqr-diff.txt
  python3 - "$dir" "$topo" "$eng" "$flink" "$resweep" "$variant" >> "$OUT/fault.txt" << 'PY'
import json, sys
d, topo, eng, link, resweep, variant = sys.argv[1:]
o = json.load(open(f"{d}/osm-diff.json")); q = json.load(open(f"{d}/dqr-diff.json"))
print(f"{topo}, link {link}: OpenSM {eng} rerouting {resweep} ms, {o['entries_changed']} dump entries changed "
      f"({o['blocks_changed']} blocks), CDG {'acyclic' if o['cdg_acyclic_b'] else 'CYCLIC'}; DQR {variant}: "
      f"{q['entries_changed']} entries ({q['blocks_changed']} blocks), CDG {'acyclic' if q['cdg_acyclic_b'] else 'CYCLIC'}")
PY
  cd "$OUT"
}
: > "$OUT/fault.txt"
bench mesh:20x20 lr-path SW_9_9 2 9,9:x+ dor minhop updn
bench fat-tree2:36,18,18 e2e-path L0 19 'L0[19]' minhop updn ftree
cat "$OUT/table.txt" "$OUT/fault.txt"
