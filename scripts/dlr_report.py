#!/usr/bin/env python3
"""Throughput tables of docs/reproduction/fat-tree-dlr.md from the
dlr-{ddlr,adlr,ddrc}-throughput sweeps, and their plots; the discard and
ADLR-deadlock tables too when PREFIX-discards and PREFIX-adlr-deadlock exist.

usage: scripts/dlr_report.py PREFIX [IMG_DIR] [--draws N]
reads PREFIX-ddlr/results.csv, PREFIX-adlr/results.csv, PREFIX-ddrc/results.csv
(the folders of `ftsim sweep experiments/dlr-$m-throughput-sweep.yaml --out
PREFIX-$m`, as in docs/reproduction/fat-tree-dlr.md; PREFIX-$m-throughput is
accepted too); PREFIX-discards/run_*/stats.json and
PREFIX-adlr-deadlock/run_*/stats.json when present (with no throughput
folder beside them, only their tables are printed; the discard table is
followed by each hybrid's extra loss over its base routing, paired over the
fault draws); with IMG_DIR writes
IMG_DIR/dlr-throughput-K-ary-N-LOAD.png through scripts/plot_sweep.py
--error-bars (± standard error; temporary files in a private directory).
--draws N keeps the throughput runs of fault draws (faults.random_seed) 1..N
only: the report of a grid stopped part-way through a draw, with the same
draws at every point. --draws complete picks N per mechanism: the largest N
whose draws 1..N every point of that sweep has finished (a grid still
running). The run count of each mechanism is printed.
"""
import argparse
import csv
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

from plot_sweep import standard_error  # scripts/ is on the path of a script run from it
from sweep_draws import draws_arg, keep_draws

MECHS = ['ddlr', 'adlr', 'ddrc']
# A point of a throughput sweep; its fault draws are faults.random_seed.
POINT_COLUMNS = ('topology', 'traffic.load', 'faults.random_links')


def csv_paths(prefix, m):
    """Where a throughput sweep's results.csv may be, in order."""
    return (f'{prefix}-{m}/results.csv', f'{prefix}-{m}-throughput/results.csv')


def results_csv(prefix, m):
    for path in csv_paths(prefix, m):
        if os.path.exists(path):
            return path
    sys.exit(f'dlr_report: no {prefix}-{m}/results.csv (run the sweep with --out {prefix}-{m})')


def mean_se(xs, digits=3):
    """'mean ± standard error' (sample standard deviation / sqrt(n)); the
    mean alone for one run."""
    mean = sum(xs) / len(xs)
    if len(xs) < 2:
        return f'{mean:,.{digits}f}'
    return f'{mean:,.{digits}f} ± {standard_error(xs):,.{digits}f}'


def stats_of(folder):
    """Every run's stats.json of a sweep folder (runs that did not finish are skipped)."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, 'run_*', 'stats.json'))):
        with open(path) as f:
            out.append(json.load(f))
    return out


def paired_line(name, base, hybrid):
    """The hybrid's extra loss per fault over its base routing, paired over
    the fault draws (faults.random_seed) both finished: mean ± standard error
    of the per-draw differences, and how many draws lose more, fewer, equal."""
    seeds = sorted(set(base) & set(hybrid))
    if not seeds:
        return
    diff = [hybrid[s]['packets']['dropped'] - base[s]['packets']['dropped'] for s in seeds]
    more, fewer = sum(d > 0 for d in diff), sum(d < 0 for d in diff)
    print(f'{name} + DDRC (hybrid) - {name}, paired over {len(seeds)} draws: {mean_se(diff, 1)} packets per fault '
          f'({more} draws more, {fewer} fewer, {len(seeds) - more - fewer} equal)')


def discards_table(folder):
    """Section IX's packets discarded per link fault: one row per routing x
    DDRC on/off, plus the paper's analytical DDRC loss (the link's packet rate,
    measured by the no-reconfiguration reference, times the distribution time)."""
    rows = defaultdict(dict)  # (routing, ddrc) -> seed -> stats
    for j in stats_of(folder):
        c = j['config']
        rows[(c['routing'], bool(c['ddrc']['enabled']))][c['faults']['random_seed']] = j
    if not rows:
        return
    names = [(('ddlr', False), 'DDLR'), (('adlr', False), 'ADLR'), (('ddlr', True), 'DDLR + DDRC (hybrid)'),
             (('adlr', True), 'ADLR + DDRC (hybrid)'), (('updown-det', True), 'DDRC, simulated'),
             (('updown-det', False), 'up/down with no reconfiguration (reference)')]
    runs = sorted({len(v) for v in rows.values()})
    print(f'\n{folder}: packets lost per link fault, {runs[0]}..{runs[-1]} fault draws per row\n')
    print('| mechanism | packets lost per fault | of which on the link / no route / discarded | accepted load |')
    print('|---|---|---|---|')
    for key, name in names:
        v = list(rows.get(key, {}).values())
        if not v:
            continue
        lost = [j['packets']['dropped'] for j in v]
        reason = lambda r: sum(j['dropped_by_reason'][r] for j in v) / len(v)
        print(f'| {name} | {mean_se(lost, 1)} ({min(lost)}..{max(lost)}) | '
              f'{reason("link_failure"):.1f} / {reason("no_route"):.0f} / {reason("reroute_discarded"):.0f} | '
              f'{sum(j["accepted_load"] for j in v) / len(v):.3f} |')
    print()
    for base, name in (('ddlr', 'DDLR'), ('adlr', 'ADLR')):
        paired_line(name, rows.get((base, False), {}), rows.get((base, True), {}))
    ref, ddrc = rows.get(('updown-det', False), {}), rows.get(('updown-det', True), {})
    seeds = sorted(set(ref) & set(ddrc))
    if seeds:
        ratios, analytical = [], []
        for s in seeds:
            c = ref[s]['config']
            after = ref[s]['cycles'] - c['faults']['random_at'] - c['faults']['detection_delay']
            a = ref[s]['dropped_by_reason']['no_route'] / after * c['ddrc']['distribution_cycles']
            analytical.append(a)
            ratios.append(ddrc[s]['packets']['dropped'] / a if a else float('nan'))
        print(f'\nDDRC analytical (reference row\'s no-route rate x distribution cycles): '
              f'{sum(analytical) / len(analytical):,.0f}; simulated / analytical per draw '
              f'{min(ratios):.3f}..{max(ratios):.3f} over {len(seeds)} draws')


def binomial_upper_bound(events, runs, alpha=0.05):
    """Exact one-sided (1 - alpha) upper confidence bound on a probability
    after `events` in `runs` Bernoulli trials (Clopper-Pearson): the p at
    which P(X <= events) = alpha for X ~ Binomial(runs, p). With no event it
    is 1 - alpha**(1/runs), about 3/runs (the rule of three). Bisection to
    1e-12; runs >= 1, 0 <= events <= runs."""
    if events >= runs:
        return 1.0

    def cdf(p):
        return sum(math.comb(runs, i) * p**i * (1 - p)**(runs - i) for i in range(events + 1))
    lo, hi = events / runs, 1.0
    while hi - lo > 1e-12:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) > alpha else (lo, mid)
    return hi


def deadlock_table(folder):
    """Section IX's ADLR deadlock probability beyond k-1 faults: the share of
    runs that deadlocked and its exact one-sided 95% upper bound
    (binomial_upper_bound; about 3/runs when no run deadlocked)."""
    by_faults = defaultdict(list)
    for j in stats_of(folder):
        by_faults[j['config']['faults']['random_links']].append(j)
    if not by_faults:
        return
    cycles = sorted({j['config']['sim']['warmup_cycles'] + j['config']['sim']['measure_cycles']
                     for v in by_faults.values() for j in v})
    print(f'\n{folder}: ADLR deadlock, runs of {cycles[-1]:,} cycles\n')
    print('| faults | runs | deadlocked | probability (95% upper bound) | accepted load |')
    print('|---|---|---|---|---|')
    for f in sorted(by_faults):
        v = by_faults[f]
        dl = sum(1 for j in v if j['deadlock'])
        bound = f'(< {binomial_upper_bound(dl, len(v)):.2g})'
        p = f'{dl / len(v):.3f} {bound}' if dl else f'0 {bound}'
        print(f'| {f} | {len(v)} | {dl} | {p} | {sum(j["accepted_load"] for j in v) / len(v):.3f} |')


def sweep_rows(prefix, m, draws):
    """The rows of a throughput sweep's results.csv, fault draws 1..draws
    only when given ('complete': the draws every point has finished)."""
    rows = list(csv.DictReader(open(results_csv(prefix, m))))
    return keep_draws(rows, draws, POINT_COLUMNS)


def side_folders(prefix):
    """(folder, table printer) of PREFIX-discards and PREFIX-adlr-deadlock, those that exist."""
    return [(f, t) for f, t in ((f'{prefix}-discards', discards_table), (f'{prefix}-adlr-deadlock', deadlock_table))
            if os.path.isdir(f)]


def side_tables(prefix):
    """The discard and deadlock tables of the side folders (finished runs only)."""
    for folder, table in side_folders(prefix):
        table(folder)


def has_throughput(prefix):
    return any(os.path.exists(path) for m in MECHS for path in csv_paths(prefix, m))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('prefix', help='PREFIX of the PREFIX-{ddlr,adlr,ddrc} sweep folders')
    ap.add_argument('img', nargs='?', help='folder for the plots')
    ap.add_argument('--draws', type=draws_arg, metavar='N',
                    help="keep fault draws 1..N only (N >= 1), or 'complete': per mechanism, the draws "
                         'every point has finished')
    args = ap.parse_args()
    prefix, img = args.prefix, args.img
    if not has_throughput(prefix) and side_folders(prefix):
        # a folder of the discard or deadlock sweep alone (say, the deadlock grid at 200,000 cycles)
        side_tables(prefix)
        return
    tmp = tempfile.TemporaryDirectory(prefix='dlr-report-')
    data = defaultdict(list)
    for m in MECHS:
        for r in sweep_rows(prefix, m, args.draws):
            if r['exit_code'] != '0':
                continue
            data[(r['topology'], r['traffic.load'], m, int(r['faults.random_links']))].append(
                (float(r['accepted_load']), int(r['deadlock'] in ('1', 'true', 'True'))))
    for m in MECHS:
        counts = sorted({len(v) for k, v in data.items() if k[2] == m})
        if counts:
            print(f'{m.upper()}: runs per point {counts[0]}' + (f'..{counts[-1]}' if counts[-1] != counts[0] else ''))
        else:
            print(f'{m.upper()}: no finished run' + (' of a draw that every point has finished'
                                                      if args.draws == 'complete' else ''))
    print('cells: mean accepted load ± its standard error (sample sd / sqrt(runs))')
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
                # two decimals whatever the CSV wrote (0.7 -> 0.70): the names the docs link
                tag = topo.replace('kary-ntree:', '').replace(',', '-ary-') + f'-{float(load):.2f}'
                sel = []
                for m in MECHS:
                    path = os.path.join(tmp.name, f'{m}.csv')
                    rows = [r for r in sweep_rows(prefix, m, args.draws)
                            if r['topology'] == topo and r['traffic.load'] == load]
                    with open(path, 'w') as f:
                        w = csv.DictWriter(f, fieldnames=rows[0].keys())
                        w.writeheader()
                        w.writerows(rows)
                    sel.append(f'{m.upper()}={path}')
                subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), 'plot_sweep.py'), '--error-bars',
                                f'{img}/dlr-throughput-{tag}.png', 'faults.random_links', 'accepted_load',
                                f'{topo}, offered {load} flits/node/cycle', 'accepted load (flits/node/cycle)'] + sel,
                               check=True)
    side_tables(prefix)


if __name__ == '__main__':
    main()
