#!/usr/bin/env python3
"""Mean accepted load (flits/node/cycle) of a timeseries.csv over cycle windows.

Usage: ts_window.py TIMESERIES.csv FROM:TO [FROM:TO ...]
Prints one line per window: from, to, mean offered, mean accepted, windows used.
"""
import csv
import sys


def window_means(path, lo, hi):
    rows = [r for r in csv.DictReader(open(path)) if lo <= int(r["cycle_start"]) and int(r["cycle_end"]) <= hi]
    if not rows:
        raise SystemExit(f"{path}: no time-series window inside {lo}:{hi}")
    off = sum(float(r["offered_flits_per_node_cycle"]) for r in rows) / len(rows)
    acc = sum(float(r["accepted_flits_per_node_cycle"]) for r in rows) / len(rows)
    return off, acc, len(rows)


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    for spec in argv[2:]:
        lo, hi = (int(x) for x in spec.split(":"))
        off, acc, n = window_means(argv[1], lo, hi)
        print(f"{lo} {hi} {off:.4f} {acc:.4f} {n}")


if __name__ == "__main__":
    main(sys.argv)
