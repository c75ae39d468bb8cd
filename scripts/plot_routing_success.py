#!/usr/bin/env python3
"""Plots `ftsim analyze routing-success` output with gnuplot: success ratio and
mean path length against faults (or fault rate), one line per algorithm.

usage: scripts/plot_routing_success.py RESULT.json OUT_PREFIX
writes OUT_PREFIX-success.png and OUT_PREFIX-length.png
"""
import json
import subprocess
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    data = json.load(open(sys.argv[1]))
    prefix = sys.argv[2]
    rate = any('fault_rate' in r for r in data['results'])
    series = defaultdict(list)
    for r in data['results']:
        x = r['fault_rate'] if rate else r['faults']
        series[r['algorithm']].append((x, r['success_ratio'], r['mean_path_length']))
    dat = prefix + '.dat'
    with open(dat, 'w') as f:
        for name, pts in series.items():
            f.write('# %s\n' % name)
            for x, s, l in sorted(pts):
                f.write('%g %g %g\n' % (x, s, l))
            f.write('\n\n')
    xlabel = 'faulty links (%)' if rate else 'faulty links'
    names = list(series)
    plot_s = ', '.join("'%s' index %d using 1:2 with linespoints title '%s'" % (dat, i, n) for i, n in enumerate(names))
    plot_l = ', '.join("'%s' index %d using 1:3 with linespoints title '%s'" % (dat, i, n) for i, n in enumerate(names))
    script = """set terminal pngcairo size 900,600
set grid
set key bottom left
set xlabel '%s'
set output '%s-success.png'
set ylabel 'successful routing ratio'
plot %s
set output '%s-length.png'
set key top left
set ylabel 'average path length (links)'
plot %s
""" % (xlabel, prefix, plot_s, prefix, plot_l)
    subprocess.run(['gnuplot'], input=script.encode(), check=True)
    print('wrote %s-success.png and %s-length.png' % (prefix, prefix))


if __name__ == '__main__':
    main()
