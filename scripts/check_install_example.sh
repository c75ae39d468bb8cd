#!/usr/bin/env bash
# Installs the built ftsim into a scratch prefix, then configures, builds and
# runs the out-of-tree project examples/custom-network against it with
# find_package(ftsim). Used by ctest (Install.OutOfTreeExampleBuildsAndRuns).
# usage: scripts/check_install_example.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
step() { echo "== $*"; }
step "install $build into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for h in tb/network.hpp hw/router.hpp routing_logic/routing_relation.hpp tables/lft.hpp tb/plugin_registry.hpp; do
  test -f "$work/prefix/include/ftsim/$h" || { echo "missing header include/ftsim/$h"; exit 1; }
done
config=$(find "$work/prefix" -name ftsimConfigVersion.cmake | head -1)
test -n "$config" || { echo "no ftsimConfigVersion.cmake installed"; exit 1; }
grep -q 'PACKAGE_VERSION "' "$config" || { echo "no version in $config"; exit 1; }
step "configure examples/custom-network with find_package(ftsim)"
cmake -S "$src/examples/custom-network" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
grep "found ftsim" "$work/configure.log"
step "build"
cmake --build "$work/example" -j 2 > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
step "run: own initiators, targets and routing relation"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/example/custom_network" endpoints
step "run: experiment runner with the user's routing, pattern and fault model"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/example/custom_network" experiment "$work/out"
python3 - "$work/out/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["config"]["routing"] == "yx", s["config"]["routing"]
assert s["config"]["traffic"]["pattern"] == "mirror"
assert s["config"]["faults"]["model"] == "one-x-link"
assert [f["at"] for f in s["faults"]] == [1000] and [f["repair"] for f in s["faults"]] == [1500], s["faults"]
print("stats.json: routing yx, pattern mirror, fault model one-x-link (link 0, cycles 1000..1500)")
PY
echo "ok"
