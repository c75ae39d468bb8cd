#!/usr/bin/env bash
# Fuzzes the experiment parser and the sweep parser with libFuzzer under
# ASan+UBSan (issue: reliability). Seeds: experiments/*.yaml. Each target runs
# for FUZZ_SECONDS (default 60). Any crash, sanitizer report or exception
# other than the parser's ConfigError (the CLI's exit 2) fails the script and
# leaves the input as build-fuzz/crash-*.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-60}}
bash scripts/setup.sh
out=build-fuzz
mkdir -p "$out"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.
       $(pkg-config --cflags systemc))
common=(tb/experiment_config.cpp tb/yaml_input.cpp tb/cli_text.cpp tb/plugin_registry.cpp tb/mechanism_registry.cpp)
echo "fuzz: building targets with clang++"
clang++ "${flags[@]}" fuzz/fuzz_experiment.cpp "${common[@]}" -lyaml-cpp -lfmt -o "$out/fuzz_experiment" &
p1=$!
clang++ "${flags[@]}" fuzz/fuzz_sweep.cpp tb/sweep.cpp tb/gnuplot.cpp tb/output_files.cpp "${common[@]}" \
  -lyaml-cpp -lfmt -o "$out/fuzz_sweep" &
p2=$!
wait $p1
wait $p2
rm -rf "$out/corpus-experiment" "$out/corpus-sweep" "$out"/crash-*
mkdir -p "$out/corpus-experiment" "$out/corpus-sweep"
cp experiments/*.yaml "$out/corpus-experiment/"
# Inputs that once failed (fuzz/regressions/{experiment,sweep}-*) run first, every time.
cp fuzz/regressions/experiment-* "$out/corpus-experiment/" 2>/dev/null || true
cp fuzz/regressions/sweep-* "$out/corpus-sweep/" 2>/dev/null || true
for f in experiments/*-sweep.yaml; do
  sed 's/^experiment: .*/experiment: base.yaml/' "$f" > "$out/corpus-sweep/$(basename "$f")"
done
status=0
for t in experiment sweep; do
  echo "fuzz: $t parser for $secs s"
  if ! (cd "$out" && ASAN_OPTIONS=detect_leaks=0 ./"fuzz_$t" "corpus-$t" -max_total_time="$secs" -rss_limit_mb=2048 \
          -print_final_stats=1 > "fuzz_$t.log" 2>&1); then
    echo "fuzz: $t parser FAILED; see $out/fuzz_$t.log and $out/crash-*" >&2
    tail -30 "$out/fuzz_$t.log" >&2
    status=1
  else
    grep -E "^Done|stat::number_of_executed_units" "$out/fuzz_$t.log" | head -1
  fi
done
exit $status
