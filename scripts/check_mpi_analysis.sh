#!/usr/bin/env bash
# Issue 15, section 4: `ftsim analyze fault-tolerance` on MPI ranks gives the
# same counts as one process, for the exhaustive, region and sampled fault
# models, and the region model runs on a torus above 256 links (5x5x5, 375).
# Usage: check_mpi_analysis.sh BUILD_DIR (skipped, with a message, when
# ftsim was built without MPI).
set -euo pipefail
build=$(cd "${1:?usage: check_mpi_analysis.sh BUILD_DIR}" && pwd)
ftsim=$build/ftsim
if ! "$ftsim" --version | grep -q "MPI sweep backend on"; then
  echo "check_mpi_analysis: ftsim built without MPI; skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mpi=(mpirun --allow-run-as-root --oversubscribe -n 3)
check() {  # name args...
  local name=$1
  shift
  "$ftsim" analyze fault-tolerance "$@" --jobs 2 --quiet --out "$name-local.json"
  "${mpi[@]}" "$ftsim" analyze fault-tolerance "$@" --out "$name-mpi.json" 2> "$name-mpi.err"
  grep -q "analyze fault-tolerance" "$name-mpi.err" || { echo "no progress on rank 0: $(cat "$name-mpi.err")"; exit 1; }
  python3 - "$name" <<'PY'
import json, sys
name = sys.argv[1]
a = json.load(open(f'{name}-local.json'))
b = json.load(open(f'{name}-mpi.json'))
assert b['backend'] == 'mpi' and b['ranks'] == 3, (b['backend'], b.get('ranks'))
assert a['backend'] == 'threads', a['backend']
for key in ('results', 'combinations', 'fault_tolerant_up_to', 'region_links', 'tasks'):
    assert a.get(key) == b.get(key), f'{name}: {key} differs: {a.get(key)} vs {b.get(key)}'
print(f'{name}: {a["combinations"]} combinations in {a["tasks"]} tasks, identical')
PY
}
check exhaustive --topology torus:3x3x3 --mechanism I+D --faults 1..3 --exhaustive
check region --topology torus:3x3x3 --mechanism Ix2 --faults 2..4 --region distance1 --center 13
check samples --topology torus:3x3x3 --mechanism I+D+M --faults 3..4 --samples 600 --seed 5
check region5 --topology torus:5x5x5 --mechanism I --faults 1..2 --region distance1 --center 62
python3 - <<'PY'
import json
r = json.load(open('region5-mpi.json'))
assert r['links'] == 375 and r['region_links'] == 36, (r['links'], r['region_links'])
# 36 region links: C(36,1) + C(36,2) combinations.
assert [x['combinations'] for x in r['results']] == [36, 630], r['results']
PY
echo "check_mpi_analysis: ok"
