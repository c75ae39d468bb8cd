#!/usr/bin/env python3
"""Plots one column of `ftsim sweep` results.csv files against another with
gnuplot, one line per series (averaging the runs that share x and series).

usage: scripts/plot_sweep.py [--error-bars] OUT.png X_COLUMN Y_COLUMN "TITLE" "Y LABEL" \
           LABEL=CSV[:SERIES_COLUMN[=VALUE]] ...

--error-bars draws each point's standard error of the mean (sample standard
deviation / sqrt(runs)) as a vertical bar; points of one run get none.

Each LABEL=CSV argument adds the rows of CSV; with :SERIES_COLUMN the rows
split into one line per value of that column (LABEL is then a prefix), with
:SERIES_COLUMN=VALUE only the rows where the column equals VALUE are kept.
Rows with a non-zero exit_code are skipped and counted on stderr.
"""
import csv
import math
import subprocess
import sys
import tempfile
from collections import defaultdict


def sample_sd(ys):
    """Sample standard deviation (n - 1 in the denominator); 0 for one value."""
    n = len(ys)
    if n < 2:
        return 0.0
    mean = sum(ys) / n
    return math.sqrt(sum((y - mean) ** 2 for y in ys) / (n - 1))


def standard_error(ys):
    """Sample standard deviation / sqrt(n); 0 for one value."""
    return sample_sd(ys) / math.sqrt(len(ys))


def main():
    args = sys.argv[1:]
    error_bars = '--error-bars' in args
    args = [a for a in args if a != '--error-bars']
    if len(args) < 6:
        sys.exit(__doc__)
    out, xcol, ycol, title, ylabel = args[:5]
    series = defaultdict(lambda: defaultdict(list))
    skipped = 0
    for spec in args[5:]:
        label, rest = spec.split('=', 1)
        path, _, sel = rest.partition(':')
        col, _, want = sel.partition('=')
        for row in csv.DictReader(open(path)):
            if row.get('exit_code', '0') != '0' or row.get(ycol, '') == '':
                skipped += 1
                continue
            if col and want and row[col] != want:
                continue
            name = label if not col or want else f'{label} {row[col]}'
            series[name][float(row[xcol])].append(float(row[ycol]))
    if skipped:
        print(f'plot_sweep: skipped {skipped} rows (non-zero exit or no value)', file=sys.stderr)
    with tempfile.NamedTemporaryFile('w', suffix='.dat', delete=False) as d:
        plots = []
        for i, (name, pts) in enumerate(series.items()):
            d.write(f'# {name}\n')
            for x in sorted(pts):
                ys = pts[x]
                d.write(f'{x} {sum(ys) / len(ys)} {standard_error(ys)}\n')
            d.write('\n\n')
            style = "using 1:2:3 with yerrorlines" if error_bars else "using 1:2 with linespoints"
            plots.append(f"'{d.name}' index {i} {style} title '{name}'")
    gp = (f"set terminal pngcairo size 900,600 noenhanced\nset output '{out}'\nset grid\nset key outside right\n"
          f"set title '{title}'\nset xlabel '{xcol}'\nset ylabel '{ylabel}'\nplot " + ', '.join(plots) + '\n')
    subprocess.run(['gnuplot'], input=gp.encode(), check=True)


if __name__ == '__main__':
    main()
