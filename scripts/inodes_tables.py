#!/usr/bin/env python3
"""Markdown tables from `ftsim analyze fault-tolerance` JSON files.

usage: scripts/inodes_tables.py not-tolerated FILE.json ...   # % not tolerated, one row per mechanism
       scripts/inodes_tables.py share FILE.json ...           # affected paths and mechanism share
"""
import json
import sys


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ('not-tolerated', 'share'):
        sys.exit(__doc__)
    docs = [json.load(open(p)) for p in sys.argv[2:]]
    if sys.argv[1] == 'not-tolerated':
        faults = sorted({r['faults'] for d in docs for r in d['results']})
        print('| mechanism | ' + ' | '.join(f'{f}' for f in faults) + ' |')
        print('|---|' + '---|' * len(faults))
        for d in docs:
            by = {r['faults']: r for r in d['results']}
            cells = [f"{by[f]['not_tolerated_percent']:.4g}" if f in by else '' for f in faults]
            print(f"| {d['mechanism']} | " + ' | '.join(cells) + ' |')
        return
    cats = []
    for d in docs:
        for r in d['results']:
            for c in r['mechanism_share']:
                if c not in cats:
                    cats.append(c)
    print('| mechanism | faults | affected paths % | ' + ' | '.join(cats) + ' |')
    print('|---|---|---|' + '---|' * len(cats))
    for d in docs:
        for r in d['results']:
            s = r['mechanism_share']
            print(f"| {d['mechanism']} | {r['faults']} | {r['affected_paths_percent']:.2f} | " +
                  ' | '.join(f'{s[c]:.2f}' if c in s else '' for c in cats) + ' |')


if __name__ == '__main__':
    main()
