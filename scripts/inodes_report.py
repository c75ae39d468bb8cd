#!/usr/bin/env python3
"""Prints the result tables of docs/reproduction/intermediate-nodes.md from the
analysis JSON files and sweep CSVs.

usage: scripts/inodes_report.py DIR
DIR holds ft-exh-MECH.json, ft-reg-MECH.json, ft-smp-MECH.json (from
`ftsim analyze fault-tolerance`) and inodes4-{5vc,4vc,bgl}/results.csv (from
`ftsim sweep`).
"""
import csv
import json
import os
import sys
from collections import defaultdict

MECHS = ['I', 'D', 'M', 'I+D', 'I+M', 'D+M', 'I+D+M', 'Ix2', 'Ix3', 'Ix2+D']


def table(kind, d):
    docs = [json.load(open(f'{d}/ft-{kind}-{m}.json')) for m in MECHS if os.path.exists(f'{d}/ft-{kind}-{m}.json')]
    faults = sorted({r['faults'] for x in docs for r in x['results']})
    print('| mechanism | ' + ' | '.join(str(f) for f in faults) + ' |')
    print('|---|' + '---|' * len(faults))
    for x in docs:
        by = {r['faults']: r for r in x['results']}
        print(f"| {x['mechanism']} | " + ' | '.join(f"{by[f]['not_tolerated_percent']:.3g}" for f in faults) + ' |')
    return docs


def main():
    d = sys.argv[1]
    print('### Exhaustive (every combination of the 81 links)\n')
    docs = table('exh', d)
    print('\n| mechanism | n-fault-tolerant | combinations/s | wall s |')
    print('|---|---|---|---|')
    for x in docs:
        print(f"| {x['mechanism']} | {x['fault_tolerant_up_to']} | {x['combinations_per_second']:.0f} | {x['wall_seconds']:.0f} |")
    print('\n### Distance-1 region (33 links around node 0)\n')
    table('reg', d)
    print('\n### Random sampling (20,000 combinations per count)\n')
    table('smp', d)
    print('\n### Affected paths and mechanism share, exhaustive, 5 faults\n')
    cats = ['M', 'I', 'I+M', 'D', 'I+D', 'D+M', 'I+D+M', 'Ix2', 'Ix2+D', 'Ix3', 'unroutable']
    print('| mechanism | affected paths % | ' + ' | '.join(cats) + ' |')
    print('|---|---|' + '---|' * len(cats))
    for x in docs:
        r = [r for r in x['results'] if r['faults'] == 5][0]
        s = r['mechanism_share']
        print(f"| {x['mechanism']} | {r['affected_paths_percent']:.2f} | " +
              ' | '.join(f'{s[c]:.2f}' if c in s else '' for c in cats) + ' |')
    for sw in ['5vc', '4vc', 'bgl']:
        path = f"{d}/inodes4-{sw}/results.csv"
        if not os.path.exists(path):
            continue
        # Saturation throughput of a fault draw: the larger accepted load of
        # the offered loads in the grid; then the mean over the draws.
        best = {}
        bad = 0
        for r in csv.DictReader(open(path)):
            if r['exit_code'] != '0':
                bad += 1
                continue
            key = (r.get('routing', 'duato (BG/L planes)'), int(r['faults.random_links']), r['faults.random_seed'])
            val = (float(r['accepted_flits_per_cycle']), int(r['deadlock']))
            best[key] = max(best.get(key, val), val)
        agg = defaultdict(list)
        for (rt, f, _), v in best.items():
            agg[(rt, f)].append(v)
        faults = sorted({k[1] for k in agg})
        print(f'\n### Throughput, {sw} (flits/cycle, best of the offered loads, mean over fault draws){" — %d failed runs" % bad if bad else ""}\n')
        print('| routing | ' + ' | '.join(str(f) for f in faults) + ' |')
        print('|---|' + '---|' * len(faults))
        for rt in sorted({k[0] for k in agg}):
            cells = []
            for f in faults:
                v = agg.get((rt, f), [])
                cells.append(f"{sum(a for a, _ in v) / len(v):.1f}" + (f" ({sum(b for _, b in v)} dl)" if any(b for _, b in v) else '') if v else '')
            print(f'| {rt} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()
