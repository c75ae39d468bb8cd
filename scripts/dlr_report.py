#!/usr/bin/env python3
"""Throughput tables of docs/reproduction/fat-tree-dlr.md from the
dlr-{ddlr,adlr,ddrc}-throughput sweeps, and their plots.

usage: scripts/dlr_report.py PREFIX [IMG_DIR]
reads PREFIX-ddlr/results.csv, PREFIX-adlr/results.csv, PREFIX-ddrc/results.csv
(the folders of `ftsim sweep experiments/dlr-$m-throughput-sweep.yaml --out
PREFIX-$m`, as in docs/reproduction/fat-tree-dlr.md; PREFIX-$m-throughput is
accepted too); with IMG_DIR writes IMG_DIR/dlr-throughput-K-ary-N-LOAD.png
through scripts/plot_sweep.py (temporary files in a private directory).
"""
import csv
import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

MECHS = ['ddlr', 'adlr', 'ddrc']


def results_csv(prefix, m):
    for path in (f'{prefix}-{m}/results.csv', f'{prefix}-{m}-throughput/results.csv'):
        if os.path.exists(path):
            return path
    sys.exit(f'dlr_report: no {prefix}-{m}/results.csv (run the sweep with --out {prefix}-{m})')


def mean_se(xs):
    """'mean ± standard error' (sample standard deviation / sqrt(n)); the
    mean alone for one run."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return f'{mean:.3f}'
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return f'{mean:.3f} ± {sd / math.sqrt(n):.3f}'


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    prefix = sys.argv[1]
    img = sys.argv[2] if len(sys.argv) > 2 else None
    tmp = tempfile.TemporaryDirectory(prefix='dlr-report-')
    data = defaultdict(list)
    for m in MECHS:
        for r in csv.DictReader(open(results_csv(prefix, m))):
            if r['exit_code'] != '0':
                continue
            data[(r['topology'], r['traffic.load'], m, int(r['faults.random_links']))].append(
                (float(r['accepted_load']), int(r['deadlock'] in ('1', 'true', 'True'))))
    counts = sorted({len(v) for v in data.values()})
    print(f'runs per point: {counts[0]}' + (f'..{counts[-1]}' if counts[-1] != counts[0] else '') +
          '; cells: mean accepted load ± its standard error (sample sd / sqrt(runs))')
    for topo in sorted({k[0] for k in data}, reverse=True):
        faults = sorted({k[3] for k in data if k[0] == topo})
        print(f'\n{topo}\n\n| load | mechanism | ' + ' | '.join(str(f) for f in faults) + ' |')
        print('|---|---|' + '---|' * len(faults))
        for load in sorted({k[1] for k in data if k[0] == topo}, reverse=True):
            for m in MECHS:
                cells = []
                for f in faults:
                    v = data.get((topo, load, m, f), [])
                    dl = sum(d for _, d in v)
                    cells.append((mean_se([a for a, _ in v]) + (f' ({dl} dl)' if dl else '')) if v else '')
                print(f'| {load} | {m.upper()} | ' + ' | '.join(cells) + ' |')
            if img:
                tag = topo.replace('kary-ntree:', '').replace(',', '-ary-') + f'-{load}'
                sel = []
                for m in MECHS:
                    path = os.path.join(tmp.name, f'{m}.csv')
                    rows = [r for r in csv.DictReader(open(results_csv(prefix, m)))
                            if r['topology'] == topo and r['traffic.load'] == load]
                    with open(path, 'w') as f:
                        w = csv.DictWriter(f, fieldnames=rows[0].keys())
                        w.writeheader()
                        w.writerows(rows)
                    sel.append(f'{m.upper()}={path}')
                subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), 'plot_sweep.py'),
                                f'{img}/dlr-throughput-{tag}.png', 'faults.random_links', 'accepted_load',
                                f'{topo}, offered {load} flits/node/cycle', 'accepted load (flits/node/cycle)'] + sel,
                               check=True)


if __name__ == '__main__':
    main()
