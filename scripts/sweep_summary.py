#!/usr/bin/env python3
"""Per-point summary of one or more sweeps' results.csv: the runs grouped by
the given columns, each value column as mean and standard error (sample
standard deviation / sqrt(runs)), the runs that deadlocked and those that
did not end ok. The small CSV a doc keeps in main when the run folders are
not (results/ is not versioned).

Usage: sweep_summary.py DIR[=LABEL] [DIR[=LABEL] ...] --by COL[,COL...]
                        --values COL[,COL...] [--csv OUT] [--draws N]
  DIR      a sweep's --out folder (its results.csv); LABEL names it in the
           output's first column (default: the folder's name)
  --draws  keep fault draws 1..N (faults.random_seed) only

Prints a Markdown table (mean ± standard error); --csv writes one row per
(label, point) with <col>_mean, <col>_se, runs, deadlocked, not_ok.
"""
import argparse
import csv
import math
import os
import sys
from collections import OrderedDict


def mean_se(xs):
    """(mean, standard error) of the floats xs; se 0 for one value."""
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, 0.0
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n)


def summarise(rows, by, values):
    """OrderedDict point tuple -> dict with per-value (mean, se), runs,
    deadlocked, not_ok; points in first-seen order, rows with no exit code
    (not finished) skipped, empty values skipped per column."""
    groups = OrderedDict()
    for r in rows:
        if r.get('exit_code', '') == '':
            continue
        groups.setdefault(tuple(r.get(c, '') for c in by), []).append(r)
    out = OrderedDict()
    for point, rs in groups.items():
        s = {'runs': len(rs), 'deadlocked': sum(r.get('deadlock', '') == 'true' for r in rs),
             'not_ok': sum(r.get('status', 'ok') != 'ok' for r in rs)}
        for v in values:
            xs = [float(r[v]) for r in rs if r.get(v, '') != '']
            s[v] = mean_se(xs) if xs else (float('nan'), float('nan'))
        out[point] = s
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dirs', nargs='+')
    ap.add_argument('--by', required=True)
    ap.add_argument('--values', required=True)
    ap.add_argument('--csv')
    ap.add_argument('--draws', type=int)
    a = ap.parse_args(argv)
    by = a.by.split(',')
    values = a.values.split(',')
    table = []
    for d in a.dirs:
        path, _, label = d.partition('=')
        label = label or os.path.basename(os.path.normpath(path))
        with open(os.path.join(path, 'results.csv')) as f:
            rows = list(csv.DictReader(f))
        if a.draws:
            rows = [r for r in rows if int(r.get('faults.random_seed') or 0) <= a.draws]
        for point, s in summarise(rows, by, values).items():
            table.append((label, point, s))
    print('| sweep | ' + ' | '.join(by + values) + ' | runs | deadlocked |')
    print('|' + '---|' * (len(by) + len(values) + 3))
    for label, point, s in table:
        cells = [f'{s[v][0]:.3f} ± {s[v][1]:.3f}' for v in values]
        print(f'| {label} | ' + ' | '.join(list(point) + cells) + f' | {s["runs"]} | {s["deadlocked"]} |')
    if a.csv:
        with open(a.csv, 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['sweep'] + by + [f'{v}_{k}' for v in values for k in ('mean', 'se')] +
                       ['runs', 'deadlocked', 'not_ok'])
            for label, point, s in table:
                w.writerow([label] + list(point) + [f'{x:.6g}' for v in values for x in s[v]] +
                           [s['runs'], s['deadlocked'], s['not_ok']])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
