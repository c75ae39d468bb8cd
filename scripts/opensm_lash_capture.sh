#!/usr/bin/env bash
# Issue 50 item 4: OpenSM's LASH routing of an ibsim fabric with its
# service levels. OpenSM writes its forwarding tables (opensm-lfts.dump) but
# no file of the SL it gives each path (LASH's virtual layer: osm_ucast_lash.c
# get_lash_sl, answered to SA PathRecord queries). This script runs ibsim and
# OpenSM -R lash once, keeps the dumps, asks the SA for the path record of
# every ordered pair of HCA LIDs (saquery -p --src-to-dst) and writes
# OUTDIR/path-sl.txt ("SLID DLID SL" per line), the format
# `ftsim lft export/analyze dqr --initial import:OUTDIR` reads.
# ENGINE=updn (or any other OpenSM engine) captures that engine's tables
# instead, without path SLs (the other engines give every path SL 0).
# Exits 77 when OpenSM or ibsim is not installed.
#
# usage: [ENGINE=lash] opensm_lash_capture.sh NETFILE OUTDIR
set -euo pipefail
NET=$(readlink -f "$1"); OUT=$2
mkdir -p "$OUT"; OUT=$(readlink -f "$OUT")
source "$(dirname "$(readlink -f "$0")")/opensm_lib.sh"
osm_require opensm_lash_capture
export IBSIM_SOCKNAME="ftsim-lash-$$"
fail() { echo "opensm_lash_capture: FAIL: $*" >&2; exit 1; }
WORK=$(mktemp -d)
cd "$WORK"
ibsim_start "$NET" || fail "ibsim did not start ($WORK/ibsim.out)"
ENGINE=${ENGINE:-lash}
osm_start "$WORK/sm" -R "$ENGINE"
osm_wait_up "$WORK/sm" 1 || fail "OpenSM did not report SUBNET UP within 20 s ($WORK/sm/opensm.log)"
sleep 0.3
cp "$WORK/sm/opensm-lfts.dump" "$WORK/sm/opensm-subnet.lst" "$WORK/sm/guid2lid" "$OUT/"
grep -E "lash_core: (Lanes|Balancing)" "$WORK/sm/opensm.log" | sed -E 's/.*lash_core: /# OpenSM lash: /' > "$OUT/lash.log" || true
if [ "$ENGINE" != lash ]; then
  kill "${PIDS[-1]}" 2> /dev/null || true
  wait "${PIDS[-1]}" 2> /dev/null || true
  echo "opensm_lash_capture: OpenSM -R $ENGINE tables of $(basename "$NET") in $OUT"
  exit 0
fi
hcas=$(sed -nE "s/^0x([0-9a-f]+) [0-9]+ # Channel Adapter .*/\1/p" "$OUT/opensm-lfts.dump" | sort -u)
{
  echo "# SLID DLID SL: OpenSM 3.3.23 -R lash on $(basename "$NET"), SA PathRecord answers (saquery -p --src-to-dst)"
  for s in $hcas; do
    for d in $hcas; do
      [ "$s" = "$d" ] && continue
      sl=$(LD_PRELOAD=$UMAD timeout 10 saquery -p --src-to-dst "$((16#$s)):$((16#$d))" 2> /dev/null |
        sed -nE 's/^[[:space:]]*sl\.+0x([0-9a-f]+)$/\1/p' | head -1)
      [ -n "$sl" ] || fail "no path record for LID $((16#$s)) -> $((16#$d))"
      echo "$((16#$s)) $((16#$d)) $((16#$sl))"
    done
  done
} > "$OUT/path-sl.txt"
# OpenSM first, then ibsim (the exit trap): OpenSM left without its fabric
# does not always end on SIGTERM.
kill "${PIDS[-1]}" 2> /dev/null || true
wait "${PIDS[-1]}" 2> /dev/null || true
echo "opensm_lash_capture: $(grep -vc '^#' "$OUT/path-sl.txt") paths, SLs $(grep -v '^#' "$OUT/path-sl.txt" | awk '{print $3}' | sort -u | tr '\n' ' ')in $OUT"
