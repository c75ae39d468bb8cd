"""Fault draws of a sweep's results.csv: which draws every point has
finished, and the --draws option of the report scripts (dlr_report.py,
inodes_report.py).

A sweep run with `--runs N` numbers its fault draws faults.random_seed =
1..N and runs them slowest-first, so a grid stopped part-way (or still
running) has finished draws 1..K at every point and some points of draw
K+1; a report of draws 1..K compares every point over the same draws.
"""
import argparse
from collections import defaultdict


def complete_draws(rows, point_columns):
    """The largest K such that every point of the rows has finished (has an
    exit code) each of its fault draws 1..K. A point is the tuple of the
    rows' values in point_columns (a missing column counts as ''); rows
    are results.csv dicts with 'exit_code' and 'faults.random_seed'.
    0 when no row or some point has not finished draw 1."""
    finished = defaultdict(set)  # per point: the draws with an exit code
    for r in rows:
        done = finished[tuple(r.get(c, '') for c in point_columns)]
        if r['exit_code'] != '':
            done.add(int(r['faults.random_seed']))

    def prefix(done):  # K such that draws 1..K are all in done
        k = 0
        while k + 1 in done:
            k += 1
        return k

    return min((prefix(done) for done in finished.values()), default=0)


def keep_draws(rows, draws, point_columns):
    """The rows of fault draws 1..draws; draws None keeps every row,
    'complete' the draws every point has finished (complete_draws)."""
    if draws == 'complete':
        draws = complete_draws(rows, point_columns)
    if draws is None:
        return rows
    return [r for r in rows if int(r['faults.random_seed']) <= draws]


def draws_arg(text):
    """argparse type of --draws: a count of at least 1, or 'complete'."""
    if text == 'complete':
        return text
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--draws must be a count of at least 1 or 'complete' (got {text!r})")
    if n < 1:
        raise argparse.ArgumentTypeError(f'--draws must be at least 1 (got {n})')
    return n
