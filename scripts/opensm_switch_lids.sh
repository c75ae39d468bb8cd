#!/usr/bin/env bash
# Issue 50 item 1, against a live OpenSM: after a link fault on a fat tree,
# the tables DQR exports (ftsim lft export --endpoints all) must let the SM's
# host reach every switch and every HCA. On an ibsim fabric:
#   1. OpenSM (ENGINE, default updn) routes the fabric; its tables are dumped.
#   2. ibsim fails LINK; OpenSM is stopped.
#   3. ftsim imports the initial dump, runs DQR (VARIANT, default lr-path)
#      around the link and exports for every LID (--endpoints ENDPOINTS,
#      default all; --fallback FALLBACK, default none).
#   4. OpenSM's file engine programs the export on the faulted fabric.
#   5. From the SM's host, a LID-routed SMP (smpquery nodedesc) to every
#      switch and HCA LID in the export must come back: the switches'
#      forwarding tables deliver it there and back.
# Exits 1 when a LID does not answer (the list in unreachable.txt), 77 when
# OpenSM or ibsim is not installed.
#
# usage: opensm_switch_lids.sh FTSIM NETFILE TOPOLOGY SWITCH PORT LINK [OUTDIR]
#   TOPOLOGY  ftsim's name of the fabric (ibnet:NETFILE)
#   SWITCH PORT  the failed link as ibsim names it; LINK as ftsim does (SWITCH[PORT])
#   PORT "-": the whole switch SWITCH fails (issue 50 item 5: ibsim unlinks
#   every port; ftsim --fail-switch LINK); its HCAs and its own LID are then
#   gone, and every other LID must answer.
set -euo pipefail
FTSIM=$(readlink -f "$1"); NET=$(readlink -f "$2"); TOPOLOGY=$3; SW=$4; PORT=$5; LINK=$6
OUT=${7:-$(mktemp -d)}
ENGINE=${ENGINE:-updn}; VARIANT=${VARIANT:-lr-path}; ENDPOINTS=${ENDPOINTS:-all}; FALLBACK=${FALLBACK:-none}
mkdir -p "$OUT"; OUT=$(readlink -f "$OUT")
source "$(dirname "$(readlink -f "$0")")/opensm_lib.sh"
osm_require opensm_switch_lids
export IBSIM_SOCKNAME="ftsim-lids-$$"
log() { echo "opensm_switch_lids: $*"; }
fail() { echo "opensm_switch_lids: FAIL: $*" >&2; exit 1; }

cd "$OUT"
ibsim_start "$NET" || fail "ibsim did not start (ibsim.out)"
SM=$OUT/sm
osm_start "$SM" -R "$ENGINE"
osm_wait_up "$SM" 1 || fail "OpenSM did not report SUBNET UP within 20 s ($SM/opensm.log)"
sleep 0.3
mkdir -p initial
cp "$SM/opensm-lfts.dump" "$SM/opensm-subnet.lst" "$SM/guid2lid" initial/
if [ "$PORT" = "-" ]; then
  echo "Unlink \"$SW\"" > console.fifo
  FAULT=(--fail-switch "$LINK")
else
  echo "Unlink \"$SW\"[$PORT]" > console.fifo
  FAULT=(--fault "$LINK")
fi
osm_wait_up "$SM" 2 || fail "OpenSM did not see the fault within 20 s ($SM/opensm.log)"
kill "${PIDS[-1]}" 2> /dev/null || true
sleep 0.3
"$FTSIM" lft export --topology "$TOPOLOGY" --initial "import:$OUT/initial" "${FAULT[@]}" --variant "$VARIANT" \
  --endpoints "$ENDPOINTS" --fallback "$FALLBACK" --out dqr > dqr-export.txt
osm_run "$OUT/file" -o -R file -U "$OUT/dqr/opensm-lfts.dump" ||
  fail "OpenSM -R file failed on DQR's tables (file/opensm.log)"
grep -q 'file tables configured on all switches' file/opensm.log ||
  fail "OpenSM's file engine did not configure the switches (file/opensm.log)"
# Every LID of the export (HCAs and switches) that a live switch routes,
# queried from the SM's host; a failed switch's own table is skipped.
lids=$(awk -v dead="$([ "$PORT" = "-" ] && echo "$SW")" '
  /^Unicast lids/ { skip = (dead != "" && index($0, "(\x27" dead "\x27)") > 0); next }
  !skip && /^0x[0-9a-f]+ [0-9]+ # / { sub(/^0x/, "", $1); print $1 }' dqr/opensm-lfts.dump | sort -u)
: > unreachable.txt
n=0
for hex in $lids; do
  lid=$((16#$hex)); n=$((n + 1))
  LD_PRELOAD=$UMAD timeout 10 smpquery -t 200 nodedesc "$lid" > "smp-$lid.txt" 2>&1 ||
    grep -m1 "0x$hex" dqr/opensm-lfts.dump | sed -E 's/.*# //' >> unreachable.txt
done
bad=$(wc -l < unreachable.txt)
log "$((n - bad)) of $n LIDs answered the SM's host after $LINK failed (DQR $VARIANT, --endpoints $ENDPOINTS)"
[ "$bad" -eq 0 ] || fail "$bad LIDs did not answer: $(tr '\n' ';' < unreachable.txt)"
log "results in $OUT"
