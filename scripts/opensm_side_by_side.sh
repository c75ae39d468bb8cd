#!/usr/bin/env bash
# DQR next to a live OpenSM (issue 14 section 6; DQR paper section V used
# tables dumped by OpenSM). On an ibsim fabric:
#   1. OpenSM (engine ENGINE, long-lived, sweeps only on traps) routes the
#      fabric; its tables are dumped (initial/).
#   2. ibsim fails LINK; OpenSM's trap-driven resweep reroutes; dumped (opensm/).
#   3. ftsim imports initial/, runs DQR (VARIANT) around the same link and
#      exports its tables (dqr/).
#   4. Both are compared with `ftsim lft diff` against initial/: entries and
#      64-entry blocks changed, flows rerouted, CDG acyclic or not.
#   5. OpenSM's `file` engine loads dqr/opensm-lfts.dump on the faulted fabric
#      and must program exactly those tables (0 entries differ).
# Exits non-zero when a step fails, when DQR's tables are cyclic or leave a
# flow unrouted, or when OpenSM programs anything else than DQR's tables.
#
# usage: opensm_side_by_side.sh FTSIM NETFILE SWITCH PORT LINK [OUTDIR]
#   FTSIM    the ftsim binary
#   NETFILE  ibsim netfile of a mesh (switches SW_a_b, one HCA each)
#   SWITCH PORT  the failed link as ibsim names it (switch name, IB port)
#   LINK     the same link in ftsim's mesh notation (e.g. 1,1:x+)
#   OUTDIR   where dumps and the comparison go (default: a temporary folder)
# Environment: ENGINE (default dor), VARIANT (default lr-path), TOPOLOGY
# (default mesh:KxK from the netfile's switch names).
set -euo pipefail
FTSIM=$(readlink -f "$1"); NET=$(readlink -f "$2"); SW=$3; PORT=$4; LINK=$5
OUT=${6:-$(mktemp -d)}
ENGINE=${ENGINE:-dor}; VARIANT=${VARIANT:-lr-path}
mkdir -p "$OUT"; OUT=$(readlink -f "$OUT")
source "$(dirname "$(readlink -f "$0")")/opensm_lib.sh"
osm_require opensm_side_by_side
if [ -z "${TOPOLOGY:-}" ]; then
  k=$(grep -oE '"SW_[0-9]+_[0-9]+"' "$NET" | sed -E 's/"SW_([0-9]+)_([0-9]+)"/\1 \2/' |
      awk '{if ($1 > a) a = $1; if ($2 > b) b = $2} END {print a + 1 "x" b + 1}')
  TOPOLOGY=mesh:$k
fi
# ibsim and umad2sim meet on an abstract unix socket: one name per run.
export IBSIM_SOCKNAME="ftsim-osm-$$"
log() { echo "opensm_side_by_side: $*"; }
fail() { echo "opensm_side_by_side: FAIL: $*" >&2; exit 1; }

cd "$OUT"
ibsim_start "$NET" || fail "ibsim did not start (ibsim.out)"

# 1-2. OpenSM routes, then reroutes around the fault.
SM=$OUT/sm
osm_start "$SM" -R "$ENGINE"
osm_wait_up "$SM" 1 || fail "OpenSM did not report SUBNET UP within 20 s ($SM/opensm.log)"
sleep 0.3
mkdir -p initial opensm
cp "$SM/opensm-lfts.dump" "$SM/opensm-subnet.lst" "$SM/guid2lid" initial/
log "OpenSM $ENGINE routed $(grep -c '^0x' initial/opensm-lfts.dump) entries"
echo "Unlink \"$SW\"[$PORT]" > console.fifo
osm_wait_up "$SM" 2 || fail "OpenSM did not reroute within 20 s ($SM/opensm.log)"
sleep 0.3
cp "$SM/opensm-lfts.dump" "$SM/opensm-subnet.lst" opensm/
kill "${PIDS[-1]}" 2> /dev/null || true
log "OpenSM rerouted after Unlink \"$SW\"[$PORT]"

# 3. DQR on the same fault, from OpenSM's initial tables.
"$FTSIM" lft export --topology "$TOPOLOGY" --initial "import:$OUT/initial" --fault "$LINK" --variant "$VARIANT" \
  --out dqr > dqr-export.txt
# 4. Side by side.
"$FTSIM" lft diff initial opensm --topology "$TOPOLOGY" --fault "$LINK" --json opensm.json > opensm-diff.txt
"$FTSIM" lft diff initial dqr --topology "$TOPOLOGY" --fault "$LINK" --json dqr.json > dqr-diff.txt
python3 - "$OUT" "$ENGINE" "$VARIANT" "$TOPOLOGY" "$LINK" << 'PY'
import json, sys
out, engine, variant, topo, link = sys.argv[1:]
o = json.load(open(f"{out}/opensm.json"))
d = json.load(open(f"{out}/dqr.json"))
rows = [("entries changed", "entries_changed"), ("64-entry blocks changed", "blocks_changed"),
        ("switches changed", "switches_changed"), ("flows rerouted", "flows_rerouted"),
        ("flows unrouted", "unrouted_b"), ("stretch mean", "stretch_mean"), ("stretch max", "stretch_max"),
        ("CDG acyclic", "cdg_acyclic_b")]
lines = [f"{topo}, link {link} failed: OpenSM {engine} reroute vs DQR {variant}",
         f"{'':26s}{'OpenSM':>12s}{'DQR':>12s}"]
fmt = lambda v: ("yes" if v else "no") if isinstance(v, bool) else (f"{v:.3f}" if isinstance(v, float) else str(v))
for label, key in rows:
    lines.append(f"{label:26s}{fmt(o[key]):>12s}{fmt(d[key]):>12s}")
if not o["cdg_acyclic_b"]:
    lines.append("OpenSM cycle: " + " -> ".join(o["cycle_b"]))
open(f"{out}/side-by-side.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
python3 -c "
import json, sys
d = json.load(open('$OUT/dqr.json'))
sys.exit(0 if d['cdg_acyclic_b'] and d['unrouted_b'] == 0 and d['entries_changed'] > 0 else 1)" ||
  fail "DQR's tables are cyclic, leave flows unrouted or change nothing (dqr-diff.txt)"

# 5. OpenSM's file engine programs DQR's tables on the faulted fabric.
osm_run "$OUT/file" -o -R file -U "$OUT/dqr/opensm-lfts.dump" ||
  fail "OpenSM -R file failed on DQR's tables (file/opensm.log)"
grep -q 'file tables configured on all switches' file/opensm.log ||
  fail "OpenSM's file engine did not configure the switches (file/opensm.log)"
"$FTSIM" lft diff dqr file --json file.json > file-diff.txt
python3 -c "
import json, sys
sys.exit(0 if json.load(open('$OUT/file.json'))['entries_changed'] == 0 else 1)" ||
  fail "OpenSM programmed other tables than DQR's (file-diff.txt)"
log "OpenSM's file engine programmed DQR's tables entry for entry ($(grep -c '^0x' file/opensm-lfts.dump) entries)"
log "results in $OUT"
