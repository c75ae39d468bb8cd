# Helpers for running OpenSM on an ibsim fabric, sourced by
# scripts/opensm_side_by_side.sh and bench/dqr_vs_opensm.sh. Background
# processes go into PIDS and are killed on exit; IBSIM_SOCKNAME names the
# ibsim instance.
UMAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
PIDS=()
osm_cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
}
trap osm_cleanup EXIT

# Exits 2 unless opensm, ibsim and umad2sim are installed.
# Exit 77 (ctest's SKIP_RETURN_CODE for the opensm label: skipped, not
# failed) when OpenSM or ibsim is not installed.
osm_require() {
  command -v opensm > /dev/null && command -v ibsim > /dev/null && [ -f "$UMAD" ] ||
    { echo "$1: needs opensm and ibsim-utils (apt install opensm ibsim-utils); skipped" >&2; exit 77; }
}

# ibsim_start NETFILE [ibsim args]: ibsim in the current folder with its
# console on ./console.fifo (held open by a sleeper); returns at its prompt.
ibsim_start() {
  local net=$1; shift
  rm -f console.fifo; mkfifo console.fifo
  sleep 100000 > console.fifo &
  PIDS+=($!)
  ibsim -s "$@" "$net" < console.fifo > ibsim.out 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 200); do grep -q 'sim>' ibsim.out 2> /dev/null && return 0; sleep 0.05; done
  echo "ibsim did not start ($(pwd)/ibsim.out)" >&2
  return 1
}

# osm_run DIR [opensm args]: OpenSM under umad2sim with its log (flushed
# after every line) and dumps in DIR; debug mask OSM_DEBUG (default 0x43).
# Returns OpenSM's exit status (use -o for one sweep).
osm_run() {
  osm_start "$@"
  wait "${PIDS[-1]}"
}

# osm_start DIR [opensm args]: osm_run in the background, its process id
# (opensm itself) added to PIDS. A previous run's log and dumps in DIR are
# removed first: OpenSM appends to its log, and osm_wait_up counts the
# "SUBNET UP" lines in it (a stale line made a re-run copy the last run's
# rerouted dump as the initial tables).
osm_start() {
  local dir=$1; shift
  mkdir -p "$dir"
  rm -f "$dir/opensm.log" "$dir"/opensm-*.dump "$dir"/opensm-*.lst "$dir/guid2lid"
  (cd "$dir" && OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir LD_PRELOAD=$UMAD \
     exec opensm -F /dev/null -D "${OSM_DEBUG:-0x43}" -d 2 -f "$dir/opensm.log" --dump_files_dir "$dir" -s 0 "$@" \
     > "$dir/stdout.txt" 2>&1) &
  PIDS+=($!)
}

# osm_wait_up DIR COUNT: waits up to 20 s for the COUNT-th "SUBNET UP".
osm_wait_up() {
  for _ in $(seq 1 400); do
    [ "$(awk '/SUBNET UP$/ {n++} END {print n + 0}' "$1/opensm.log" 2> /dev/null || echo 0)" -ge "$2" ] && return 0
    sleep 0.05
  done
  return 1
}

# osm_stamp LOG PATTERN: seconds of the first log line matching PATTERN
# (OpenSM's "Nov 24 10:17:50 851176 [...]" stamps).
osm_stamp() {
  awk -v pat="$2" '/^[A-Z][a-z][a-z] +[0-9]+ [0-9:]+ [0-9]+ / {split($3, a, ":"); t = a[1]*3600 + a[2]*60 + a[3] + $4/1e6}
                   $0 ~ pat {printf "%.6f\n", t; exit}' "$1"
}
