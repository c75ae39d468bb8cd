#!/usr/bin/env python3
"""Prints the result tables of docs/reproduction/intermediate-nodes.md from the
analysis JSON files and sweep CSVs.

usage: scripts/inodes_report.py DIR [PREFIX] [--plot OUTDIR] [--draws N|complete] [--error sd|se]
DIR holds ft-exh-MECH.json, ft-reg-MECH.json, ft-smp-MECH.json (from
`ftsim analyze fault-tolerance`; their tables are left out when DIR has
none) and PREFIX-{5vc,4vc,bgl}/results.csv (from `ftsim sweep`; PREFIX,
relative to DIR, defaults to inodes4; PREFIX-{5vc,4vc}-odd, the odd fault
counts, are merged in when present). With --plot OUTDIR, writes
OUTDIR/figure9-{5vc,4vc,bgl}.png (gnuplot): throughput against faults, one
line per routing, error bars as the tables' cells.
Throughput cells: the mean over fault draws of each draw's best accepted
load (flits/cycle) over the grid's offered loads, ± the sample standard
deviation over the draws (--error sd, the default) or its standard error,
sd / sqrt(draws) (--error se). --draws N keeps fault draws
(faults.random_seed) 1..N; --draws complete, per figure panel, the draws
that every point of its sweeps (even and odd fault counts) has finished:
the report of a grid still running (scripts/inodes_grids.sh). Each table
says how many draws its cells average.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

from plot_sweep import sample_sd  # scripts/ is on the path of a script run from it
from sweep_draws import draws_arg, keep_draws

MECHS = ['I', 'D', 'M', 'I+D', 'I+M', 'D+M', 'I+D+M', 'Ix2', 'Ix3', 'Ix2+D', 'Mdim', 'I+Mdim', 'D+Mdim', 'I+D+Mdim']
# A point of a Figure 9 sweep (the BG/L sweep has no routing column); its
# fault draws are faults.random_seed.
POINT_COLUMNS = ('routing', 'traffic.load', 'faults.random_links')
ERROR_NAMES = {'sd': 'sample sd over fault draws', 'se': 'standard error (sample sd / sqrt(draws))'}


def load(kind, d):
    return [json.load(open(f'{d}/ft-{kind}-{m}.json')) for m in MECHS if os.path.exists(f'{d}/ft-{kind}-{m}.json')]


def table(kind, d):
    docs = load(kind, d)
    faults = sorted({r['faults'] for x in docs for r in x['results']})
    print('| mechanism | ' + ' | '.join(str(f) for f in faults) + ' |')
    print('|---|' + '---|' * len(faults))
    for x in docs:
        by = {r['faults']: r for r in x['results']}
        print(f"| {x['mechanism']} | " + ' | '.join(f"{by[f]['not_tolerated_percent']:.3g}" if f in by else ''
                                                   for f in faults) + ' |')
    return docs


def first_failure(docs, mech):
    """Smallest fault count with a not-tolerated combination in these runs
    ('<= N' when the smallest count analysed already fails), or None."""
    rows = [r for x in docs if x['mechanism'] == mech for r in x['results']]
    bad = [r['faults'] for r in rows if r['not_tolerated'] > 0]
    if not bad:
        return None
    return f'<= {min(bad)}' if min(bad) == min(r['faults'] for r in rows) else str(min(bad))


def mean_sd(xs):
    """Mean and sample standard deviation (0 for a single value)."""
    return sum(xs) / len(xs), sample_sd(xs)


def mean_error(xs, error):
    """Mean and error bar of one point's draws: the sample standard
    deviation (error 'sd') or the standard error (error 'se'); 0 for one draw."""
    m, sd = mean_sd(xs)
    return (m, sd / math.sqrt(len(xs))) if error == 'se' else (m, sd)


def plot(outdir, sw, agg, faults, error):
    """Figure 9 panel as a PNG: mean throughput per fault count with error
    bars of one sample standard deviation over the fault draws, or of the
    standard error (error 'se')."""
    os.makedirs(outdir, exist_ok=True)
    routings = sorted({k[0] for k in agg})
    dat = os.path.join(outdir, f'figure9-{sw}.dat')
    with open(dat, 'w') as f:
        for rt in routings:
            f.write(f'# {rt}\n')
            for fc in faults:
                v = agg.get((rt, fc), [])
                if v:
                    m, e = mean_error([a for a, _ in v], error)
                    f.write(f'{fc} {m} {e}\n')
            f.write('\n\n')
    png = os.path.join(outdir, f'figure9-{sw}.png')
    lines = ', '.join(f"'{dat}' index {i} using 1:2:3 with yerrorlines title '{rt}'" for i, rt in enumerate(routings))
    script = (f"set terminal pngcairo noenhanced size 900,600; set output '{png}';"
              f"set title \"Intermediate nodes, 8x8x8 torus, {sw}: saturation throughput against link faults\\n"
              f"mean over fault draws, bars: {ERROR_NAMES[error]}\";"
              "set xlabel 'faulty links'; set ylabel 'accepted load (flits/cycle, whole network)';"
              "set key below left Left reverse; set grid; set yrange [0:*];"
              f"set xrange [-0.5:{max(faults) + 0.5}]; set xtics 1;"
              f"plot {lines}")
    subprocess.run(['gnuplot', '-e', script], check=True)
    return png


def analysis_tables(d):
    """The fault-tolerance analyser's tables from DIR's JSON files."""
    print('### Exhaustive (every combination of the 81 links)\n')
    docs = table('exh', d)
    print('\n### Distance-1 region (33 links around node 0)\n')
    reg = table('reg', d)
    reg910 = load('reg910', d)
    if reg910:
        print('\nRegion, 9 and 10 faults:\n')
        table('reg910', d)
    print('\n### Random sampling (20,000 combinations per count)\n')
    smp = table('smp', d)
    print('\n### Fault-tolerance degree\n')
    print('| mechanism | n-fault-tolerant (exhaustive) | first failure, region | first failure, samples | '
          'combinations/s | wall s (1..5) |')
    print('|---|---|---|---|---|---|')
    for x in docs:
        m = x['mechanism']
        fr = first_failure(reg + reg910, m)
        fs = first_failure(smp, m)
        print(f"| {m} | {x['fault_tolerant_up_to']} | {fr if fr is not None else 'none seen'} | "
              f"{fs if fs is not None else 'none seen up to 14'} | {x['combinations_per_second']:.0f} | "
              f"{x['wall_seconds']:.0f} |")
    cats = ['M', 'I', 'I+M', 'D', 'I+D', 'D+M', 'I+D+M', 'Ix2', 'Ix2+D', 'Ix3', 'unroutable']
    for faults in (1, 3, 5):
        print(f'\n### Affected paths and mechanism share, exhaustive, {faults} faults\n')
        print('affected %: of the connected ordered pairs (s != d); all pairs %: of every ordered pair, self pairs '
              'included (the paper\'s Table 3 denominator). Shares: % of the affected paths.\n')
        print('| mechanism | affected % | all pairs % | ' + ' | '.join(cats) + ' |')
        print('|---|---|---|' + '---|' * len(cats))
        for x in docs:
            r = [r for r in x['results'] if r['faults'] == faults][0]
            s = r['mechanism_share']
            allp = 100.0 * r['affected_paths'] / (r['combinations'] * x['nodes'] ** 2)
            print(f"| {x['mechanism']} | {r['affected_paths_percent']:.2f} | {allp:.2f} | " +
                  ' | '.join(f'{s[c]:.2f}' if c in s else '' for c in cats) + ' |')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('dir', help='folder of the analyser JSON files; the sweep folders are DIR/PREFIX-*')
    ap.add_argument('prefix', nargs='?', default='inodes4',
                    help='prefix of the sweep folders PREFIX-{5vc,4vc,bgl}[-odd], relative to DIR')
    ap.add_argument('--plot', metavar='OUTDIR', help='write OUTDIR/figure9-{5vc,4vc,bgl}.png')
    ap.add_argument('--draws', type=draws_arg, metavar='N',
                    help="keep fault draws 1..N only (N >= 1), or 'complete': per panel, the draws every point "
                         'has finished')
    ap.add_argument('--error', choices=sorted(ERROR_NAMES), default='sd',
                    help='error of a cell: sample standard deviation over the draws (sd, default) or standard '
                         'error (se)')
    args = ap.parse_args()
    d, prefix, plot_dir = args.dir, args.prefix, args.plot
    if not os.path.isdir(d):
        sys.exit(f'inodes_report: DIR {d} is not a folder')
    if any(load(kind, d) for kind in ('exh', 'reg', 'smp')):
        analysis_tables(d)
    found = False
    for sw in ['5vc', '4vc', 'bgl']:
        path = f"{d}/{prefix}-{sw}/results.csv"
        if not os.path.exists(path):
            continue
        # PREFIX-SW-odd (the odd fault counts, inodes-8x8x8-SW-odd-sweep.yaml)
        # adds its rows when present.
        paths = [path] + [p for p in [f"{d}/{prefix}-{sw}-odd/results.csv"] if os.path.exists(p)]
        # Saturation throughput of a fault draw: the larger accepted load of
        # the offered loads in the grid; then the mean over the draws.
        found = True
        # --draws complete: the draws every point of the panel (even and odd counts) has finished.
        rows = keep_draws([row for p in paths for row in csv.DictReader(open(p))], args.draws, POINT_COLUMNS)
        best = {}
        bad = 0
        for r in rows:
            if r['exit_code'] == '':
                continue  # not run yet (a grid still running)
            if r['exit_code'] != '0' or r.get('status', 'ok') != 'ok':
                bad += 1
                continue
            key = (r.get('routing', 'duato (BG/L planes)'), int(r['faults.random_links']), r['faults.random_seed'])
            val = (float(r['accepted_flits_per_cycle']), int(r['deadlock'] in ('1', 'true', 'True')))
            best[key] = max(best.get(key, val), val)
        agg = defaultdict(list)
        for (rt, f, _), v in best.items():
            agg[(rt, f)].append(v)
        if not agg:
            print(f'\n### Throughput, {sw}: no fault draw finished at every point yet\n')
            continue
        faults = sorted({k[1] for k in agg})
        counts = sorted({len(v) for v in agg.values()})
        span = f'{counts[0]}' + (f'..{counts[-1]}' if counts[-1] != counts[0] else '')
        print(f'\n### Throughput, {sw} (flits/cycle, best of the offered loads, mean ± {ERROR_NAMES[args.error]})'
              f'{" — %d failed runs" % bad if bad else ""}\n')
        print(f'fault draws per point: {span}\n')
        print('| routing | ' + ' | '.join(str(f) for f in faults) + ' | last / fault-free |')
        print('|---|' + '---|' * (len(faults) + 1))
        for rt in sorted({k[0] for k in agg}):
            cells = []
            for f in faults:
                v = agg.get((rt, f), [])
                if v:
                    m, e = mean_error([a for a, _ in v], args.error)
                    dl = sum(b for _, b in v)
                    cells.append(f"{m:.1f} ± {e:.1f}" + (f" ({dl} dl)" if dl else ''))
                else:
                    cells.append('')
            first = agg.get((rt, faults[0]), [])
            last = agg.get((rt, faults[-1]), [])
            rel = ''
            if first and last:
                rel = f"{100.0 * (sum(a for a, _ in last) / len(last)) / (sum(a for a, _ in first) / len(first)):.1f}%"
            print(f'| {rt} | ' + ' | '.join(cells) + f' | {rel} |')
        if plot_dir:
            print(f'\nplot: {plot(plot_dir, sw, agg, faults, args.error)}')
    if not found:
        sys.exit(f'inodes_report: no {d}/{prefix}-{{5vc,4vc,bgl}}/results.csv (the --out folders of the '
                 'inodes-8x8x8-*-sweep.yaml sweeps, e.g. scripts/inodes_grids.sh)')


if __name__ == '__main__':
    main()
