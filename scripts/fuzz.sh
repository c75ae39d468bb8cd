#!/usr/bin/env bash
# Fuzzes ftsim's input parsers with libFuzzer under ASan+UBSan: the
# experiment parser, the sweep parser, the --set override path (issue 47),
# the OpenSM LFT dump parser and the fabric parser (ibsim netfiles and
# ibnetdiscover output). Seeds: experiments/*.yaml and tests/fixtures, plus
# fuzz/regressions/ (every input that once failed runs first, every time).
# Each target runs for FUZZ_SECONDS (default 60). Any crash, sanitizer report
# or exception other than the parser's ConfigError (the CLI's exit 2) fails
# the script and leaves the input as build-fuzz/crash-*.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-60}}
bash scripts/setup.sh
out=build-fuzz
mkdir -p "$out/obj"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I.
       $(pkg-config --cflags systemc))
link=(-fsanitize=fuzzer,address,undefined)
# Sources shared by the targets, compiled once into objects (in parallel).
sources=(common/text_input.cpp tb/experiment_config.cpp tb/yaml_input.cpp tb/cli_text.cpp tb/plugin_registry.cpp
         tb/mechanism_registry.cpp tb/sweep/sweep.cpp tb/gnuplot.cpp tb/output_files.cpp tables/lft.cpp
         routing_logic/*.cpp routing_logic/*/*.cpp)
echo "fuzz: compiling ${#sources[@]} sources with clang++"
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c 'clang++ "$@" -c "{}" -o "$0/obj/$(echo "{}" | tr / _).o"' \
  "$out" "${flags[@]}"
objs() { for s in "$@"; do echo "$out/obj/$(echo "$s" | tr / _).o"; done; }
config_objs=$(objs common/text_input.cpp tb/experiment_config.cpp tb/yaml_input.cpp tb/cli_text.cpp tb/plugin_registry.cpp tb/mechanism_registry.cpp)
routing_objs=$(objs common/text_input.cpp routing_logic/*.cpp routing_logic/*/*.cpp)
targets=(experiment sweep set_override lft_dump ibnet)
pids=()
for t in "${targets[@]}"; do
  case $t in
    experiment|set_override) deps="$config_objs" libs="-lyaml-cpp -lfmt" ;;
    sweep) deps="$config_objs $(objs tb/sweep/sweep.cpp tb/gnuplot.cpp tb/output_files.cpp)" libs="-lyaml-cpp -lfmt" ;;
    lft_dump) deps="$routing_objs $(objs tables/lft.cpp)" libs="-lfmt -lpthread" ;;
    ibnet) deps="$routing_objs" libs="-lfmt -lpthread" ;;
  esac
  # shellcheck disable=SC2086
  clang++ "${flags[@]}" "${link[@]}" "fuzz/fuzz_$t.cpp" $deps $libs -o "$out/fuzz_$t" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
rm -rf "$out"/corpus-* "$out"/crash-*
for t in "${targets[@]}"; do mkdir -p "$out/corpus-$t"; done
cp experiments/*.yaml "$out/corpus-experiment/"
cp fuzz/regressions/experiment-* "$out/corpus-experiment/" 2>/dev/null || true
cp fuzz/regressions/sweep-* "$out/corpus-sweep/" 2>/dev/null || true
for f in experiments/*-sweep.yaml; do
  sed 's/^experiment: .*/experiment: base.yaml/' "$f" > "$out/corpus-sweep/$(basename "$f")"
done
# --set seeds: one assignment per line, from `ftsim list keys`-like examples.
printf 'traffic.load=0.3\nrouter.vcs=4\n' > "$out/corpus-set_override/basic"
printf 'faults=[{link: "1,1:x+", at: 100}]\nsim.seed=7\n' > "$out/corpus-set_override/faults"
printf 'router.latency.rc=2\ntraffic.pattern=transpose\n' > "$out/corpus-set_override/nested"
cp fuzz/regressions/set-* "$out/corpus-set_override/"
i=0
for f in tests/fixtures/opensm/{ftsmall,ftsmall-updn,mesh4x4-dor,torus4x4-lash}/opensm-lfts.dump; do
  cp "$f" "$out/corpus-lft_dump/seed$((i++))"
done
cp fuzz/regressions/lft-* "$out/corpus-lft_dump/"
cp tests/fixtures/opensm/*.net tests/fixtures/ibnetdiscover/*.ibnetdiscover "$out/corpus-ibnet/"
cp fuzz/regressions/ibnet-* "$out/corpus-ibnet/"
status=0
for t in "${targets[@]}"; do
  echo "fuzz: $t for $secs s"
  if ! (cd "$out" && ASAN_OPTIONS=detect_leaks=0 ./"fuzz_$t" "corpus-$t" -max_total_time="$secs" -rss_limit_mb=2048 \
          -max_len=131072 -print_final_stats=1 > "fuzz_$t.log" 2>&1); then
    echo "fuzz: $t FAILED; see $out/fuzz_$t.log and $out/crash-*" >&2
    tail -30 "$out/fuzz_$t.log" >&2
    status=1
  else
    grep -E "^Done|stat::number_of_executed_units" "$out/fuzz_$t.log" | head -1
  fi
done
exit $status
