#!/usr/bin/env python3
"""Golden stats.json regression check (CONVENTIONS.md: golden regressions).

Runs one experiment with the given ftsim binary and compares its stats.json
with tests/golden/<experiment>.json: every field except the run's identity and
timing (wall-clock seconds, speed, command line, the config echo) must match;
integers and strings exactly, floating-point numbers to a relative 1e-9. The
simulation is deterministic for a given seed, so any difference is a change in
behaviour: explain it in the commit that updates the golden file with
`--update`.

Usage: check_golden.py --ftsim BIN --experiment experiments/X.yaml
                       --golden tests/golden/X.json [--update]
"""
import argparse
import json
import math
import subprocess
import sys
import tempfile

# Identity, timing and echoes: not behaviour.
IGNORED = {"wall_seconds", "simulation_seconds", "node_cycles_per_second", "ftsim", "experiment", "config",
           "config_input"}


def behaviour(stats):
    """Drops the ignored top-level fields and, at any depth, timings (keys
    ending in _seconds or _per_second)."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if not k.endswith(("_seconds", "_per_second"))}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip({k: v for k, v in stats.items() if k not in IGNORED})


def differences(golden, got, path=""):
    """Yields 'path: golden -> got' for every differing leaf."""
    if isinstance(golden, dict) and isinstance(got, dict):
        for k in sorted(set(golden) | set(got)):
            p = f"{path}.{k}" if path else k
            if k not in got:
                yield f"{p}: missing (golden {json.dumps(golden[k])[:80]})"
            elif k not in golden:
                yield f"{p}: new field {json.dumps(got[k])[:80]}"
            else:
                yield from differences(golden[k], got[k], p)
    elif isinstance(golden, list) and isinstance(got, list):
        if len(golden) != len(got):
            yield f"{path}: {len(golden)} entries -> {len(got)}"
        for i, (a, b) in enumerate(zip(golden, got)):
            yield from differences(a, b, f"{path}[{i}]")
    elif isinstance(golden, float) or isinstance(got, float):
        if not (isinstance(golden, (int, float)) and isinstance(got, (int, float))) or not math.isclose(
                golden, got, rel_tol=1e-9, abs_tol=1e-12):
            yield f"{path}: {golden!r} -> {got!r}"
    elif golden != got or type(golden) is not type(got):
        yield f"{path}: {json.dumps(golden)[:80]} -> {json.dumps(got)[:80]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ftsim", required=True)
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--golden", required=True)
    ap.add_argument("--update", action="store_true", help="rewrite the golden file from this run")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run([a.ftsim, "run", a.experiment, "--out", out, "--quiet"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"ftsim run {a.experiment} exited {r.returncode}:\n{r.stderr}", file=sys.stderr)
            return 1
        with open(f"{out}/stats.json") as f:
            got = behaviour(json.load(f))
    if a.update:
        with open(a.golden, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {a.golden}")
        return 0
    try:
        with open(a.golden) as f:
            golden = json.load(f)
    except FileNotFoundError:
        print(f"{a.golden}: no golden file; create it with --update", file=sys.stderr)
        return 1
    diff = list(differences(golden, got))
    if diff:
        print(f"{a.experiment}: {len(diff)} field(s) differ from {a.golden} (golden -> now):", file=sys.stderr)
        for d in diff[:40]:
            print("  " + d, file=sys.stderr)
        print("If the change is intended, rerun with --update and explain it in the commit.", file=sys.stderr)
        return 1
    print(f"{a.experiment}: matches {a.golden}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
