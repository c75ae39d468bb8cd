#!/usr/bin/env python3
"""Prints the result tables of docs/reproduction/intermediate-nodes.md from the
analysis JSON files and sweep CSVs.

usage: scripts/inodes_report.py DIR [PREFIX] [--plot OUTDIR]
DIR holds ft-exh-MECH.json, ft-reg-MECH.json, ft-smp-MECH.json (from
`ftsim analyze fault-tolerance`) and PREFIX-{5vc,4vc,bgl}/results.csv (from
`ftsim sweep`; PREFIX defaults to inodes4; PREFIX-{5vc,4vc}-odd, the odd
fault counts, are merged in when present). With --plot OUTDIR, writes
OUTDIR/figure9-{5vc,4vc,bgl}.png (gnuplot): throughput against faults, one
line per routing, error bars = sample standard deviation over fault draws.
"""
import csv
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

MECHS = ['I', 'D', 'M', 'I+D', 'I+M', 'D+M', 'I+D+M', 'Ix2', 'Ix3', 'Ix2+D']


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
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd


def plot(outdir, sw, agg, faults):
    """Figure 9 panel as a PNG: mean throughput per fault count with error
    bars of one sample standard deviation over the fault draws."""
    os.makedirs(outdir, exist_ok=True)
    routings = sorted({k[0] for k in agg})
    dat = os.path.join(outdir, f'figure9-{sw}.dat')
    with open(dat, 'w') as f:
        for rt in routings:
            f.write(f'# {rt}\n')
            for fc in faults:
                v = agg.get((rt, fc), [])
                if v:
                    m, sd = mean_sd([a for a, _ in v])
                    f.write(f'{fc} {m} {sd}\n')
            f.write('\n\n')
    png = os.path.join(outdir, f'figure9-{sw}.png')
    lines = ', '.join(f"'{dat}' index {i} using 1:2:3 with yerrorlines title '{rt}'" for i, rt in enumerate(routings))
    script = (f"set terminal pngcairo noenhanced size 900,600; set output '{png}';"
              f"set title \"Intermediate nodes, 8x8x8 torus, {sw}: saturation throughput against link faults\\n"
              "mean over fault draws, bars: one sample standard deviation\";"
              "set xlabel 'faulty links'; set ylabel 'accepted load (flits/cycle, whole network)';"
              "set key below left Left reverse; set grid; set yrange [0:*]; set xrange [-0.5:*];"
              f"plot {lines}")
    subprocess.run(['gnuplot', '-e', script], check=True)
    return png


def main():
    args = [a for a in sys.argv[1:]]
    plot_dir = None
    if '--plot' in args:
        i = args.index('--plot')
        plot_dir = args[i + 1]
        del args[i:i + 2]
    d = args[0]
    # Folder prefix of the cycle-level sweeps: DIR/PREFIX-{5vc,4vc,bgl}.
    prefix = args[1] if len(args) > 1 else 'inodes4'
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
    for sw in ['5vc', '4vc', 'bgl']:
        path = f"{d}/{prefix}-{sw}/results.csv"
        if not os.path.exists(path):
            continue
        # PREFIX-SW-odd (the odd fault counts, inodes-8x8x8-SW-odd-sweep.yaml)
        # adds its rows when present.
        paths = [path] + [p for p in [f"{d}/{prefix}-{sw}-odd/results.csv"] if os.path.exists(p)]
        # Saturation throughput of a fault draw: the larger accepted load of
        # the offered loads in the grid; then the mean over the draws.
        best = {}
        bad = 0
        for r in (row for p in paths for row in csv.DictReader(open(p))):
            if r['exit_code'] != '0' or r.get('status', 'ok') != 'ok':
                bad += 1
                continue
            key = (r.get('routing', 'duato (BG/L planes)'), int(r['faults.random_links']), r['faults.random_seed'])
            val = (float(r['accepted_flits_per_cycle']), int(r['deadlock'] in ('1', 'true', 'True')))
            best[key] = max(best.get(key, val), val)
        agg = defaultdict(list)
        for (rt, f, _), v in best.items():
            agg[(rt, f)].append(v)
        faults = sorted({k[1] for k in agg})
        print(f'\n### Throughput, {sw} (flits/cycle, best of the offered loads, mean ± sample sd over fault draws){" — %d failed runs" % bad if bad else ""}\n')
        print('| routing | ' + ' | '.join(str(f) for f in faults) + ' | last / fault-free |')
        print('|---|' + '---|' * (len(faults) + 1))
        for rt in sorted({k[0] for k in agg}):
            cells = []
            for f in faults:
                v = agg.get((rt, f), [])
                if v:
                    m, sd = mean_sd([a for a, _ in v])
                    dl = sum(b for _, b in v)
                    cells.append(f"{m:.1f} ± {sd:.1f}" + (f" ({dl} dl)" if dl else ''))
                else:
                    cells.append('')
            first = agg.get((rt, faults[0]), [])
            last = agg.get((rt, faults[-1]), [])
            rel = ''
            if first and last:
                rel = f"{100.0 * (sum(a for a, _ in last) / len(last)) / (sum(a for a, _ in first) / len(first)):.1f}%"
            print(f'| {rt} | ' + ' | '.join(cells) + f' | {rel} |')
        if plot_dir:
            print(f'\nplot: {plot(plot_dir, sw, agg, faults)}')


if __name__ == '__main__':
    main()
