#!/usr/bin/env python3
"""Checks that sweep directories hold the same results bit for bit (issue 15:
a point is one `ftsim run` process whether the sweep ran locally, under MPI
or under Slurm).

For every run directory of the first sweep, each other sweep must hold the
same run with a stats.json equal to it after dropping wall-clock timings
(keys ending in _seconds or _per_second, at any depth) and the `ftsim`
identity block (its command line names the output directory); exact equality, no tolerance. results.csv must be equal row for row
except the timing columns.

Usage: compare_sweeps.py DIR_A DIR_B [DIR_C ...]   (exit 1 on a difference)
"""
import csv
import json
import os
import sys

TIMING_SUFFIXES = ("_seconds", "_per_second")


def behaviour(x):
    if isinstance(x, dict):
        return {k: behaviour(v) for k, v in x.items() if not k.endswith(TIMING_SUFFIXES)}
    if isinstance(x, list):
        return [behaviour(v) for v in x]
    return x


def stats_behaviour(path):
    with open(path) as f:
        stats = json.load(f)
    stats.pop("ftsim", None)
    return behaviour(stats)


def runs(d):
    return sorted(e for e in os.listdir(d) if os.path.isfile(os.path.join(d, e, "stats.json")))


def csv_rows(d):
    with open(os.path.join(d, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return [{k: v for k, v in r.items() if not k.endswith(TIMING_SUFFIXES)} for r in rows]


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    base = argv[1]
    base_runs = runs(base)
    if not base_runs:
        print(f"{base}: no run directories with stats.json", file=sys.stderr)
        return 1
    bad = 0
    for other in argv[2:]:
        if runs(other) != base_runs:
            print(f"{other}: runs {runs(other)} != {base}: {base_runs}")
            bad += 1
            continue
        for r in base_runs:
            a = stats_behaviour(os.path.join(base, r, "stats.json"))
            b = stats_behaviour(os.path.join(other, r, "stats.json"))
            if a != b:
                diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
                print(f"{other}/{r}/stats.json differs from {base} in {diff}")
                bad += 1
        if csv_rows(base) != csv_rows(other):
            print(f"{other}/results.csv differs from {base}/results.csv")
            bad += 1
    print(f"compare_sweeps: {len(base_runs)} runs in {len(argv) - 1} sweeps, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
