#!/usr/bin/env bash
# Command (2): install what is missing, build in Release and run the whole
# test suite through ctest (except the 'slow' label), then build the unit tests
# with ASan+UBSan and run them again, then fuzz the experiment and sweep
# parsers for FUZZ_SECONDS each (default 60; scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
jobs="$(nproc)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs" -LE slow)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFTSIM_SANITIZE=ON -DFTSIM_UNIT_ONLY=ON > /dev/null
cmake --build build-asan -j "$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j "$jobs" -L unit)
bash scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
