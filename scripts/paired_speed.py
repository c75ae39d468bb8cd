#!/usr/bin/env python3
"""Paired wall-time comparison of two ftsim (or bench_network) binaries.

This 2-core VM's timings of one binary spread by tens of percent from run to
run, so two builds are compared only in alternating pairs (A, B, A, B, ...),
each pair giving one speed ratio; the script prints the medians, the mean
per-pair ratio with its standard error, and the median ratio (issue 54,
docs/performance.md). A ratio above 1 means B is faster.

  scripts/paired_speed.py --a OLD/ftsim --b NEW/ftsim --pairs 14 \\
      -- run experiments/inodes-8x8x8-base.yaml --quiet --set traffic.load=1.0

ftsim mode (default): the arguments after `--` are passed to both binaries
with `--out DIR` added; the time is stats.json `simulation_seconds` (the
sc_start time, elaboration excluded) or, with --wall, the whole process.
bench mode (--bench): the binaries are bench_network; the arguments are its
own (for example `mesh:8x8 0.2`), and the time is the inverse of the
"M node-cycles/s" it prints (the first configuration's).

Exit status: 0, or 2 for bad arguments or a run that failed (its output is
printed).
"""
import argparse
import json
import math
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one_run(binary, args, bench, wall, out_dir):
    cmd = [binary] + args
    if not bench:
        cmd += ["--out", out_dir]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(f"paired_speed: {' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
        sys.exit(2)
    if bench:
        m = re.search(r"([0-9.]+) M node-cycles/s", proc.stdout + proc.stderr)
        if not m:
            sys.stderr.write(f"paired_speed: no 'M node-cycles/s' in the output of {' '.join(cmd)}\n")
            sys.exit(2)
        return 1.0 / float(m.group(1))
    if wall:
        return elapsed
    return float(json.loads((Path(out_dir) / "stats.json").read_text())["simulation_seconds"])


def summary(a_times, b_times):
    ratios = [a / b for a, b in zip(a_times, b_times)]
    n = len(ratios)
    se = statistics.stdev(ratios) / math.sqrt(n) if n > 1 else float("nan")
    return {
        "pairs": n,
        "a_median": statistics.median(a_times),
        "b_median": statistics.median(b_times),
        "ratio_mean": statistics.mean(ratios),
        "ratio_se": se,
        "ratio_median": statistics.median(ratios),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", required=True, help="the reference binary")
    p.add_argument("--b", required=True, help="the binary compared with it")
    p.add_argument("--pairs", type=int, default=14, help="alternating pairs, 2..1000 (default 14)")
    p.add_argument("--bench", action="store_true", help="the binaries are bench_network")
    p.add_argument("--wall", action="store_true", help="ftsim mode: time the whole process, not sc_start")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("args", nargs=argparse.REMAINDER, help="-- then the arguments of both binaries")
    o = p.parse_args()
    args = o.args[1:] if o.args[:1] == ["--"] else o.args
    if not 2 <= o.pairs <= 1000:
        p.error(f"--pairs {o.pairs}: allowed 2..1000")
    if not args:
        p.error("no arguments for the binaries (after --)")
    for b in (o.a, o.b):
        if not Path(b).is_file():
            p.error(f"binary {b} does not exist")
    a_times, b_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(o.pairs):
            a_times.append(one_run(o.a, args, o.bench, o.wall, str(Path(tmp) / "a")))
            b_times.append(one_run(o.b, args, o.bench, o.wall, str(Path(tmp) / "b")))
            print(f"pair {i + 1}/{o.pairs}: {a_times[-1]:.4f} s / {b_times[-1]:.4f} s", file=sys.stderr)
    s = summary(a_times, b_times)
    if o.json:
        print(json.dumps(s, indent=2))
    else:
        print(f"A median {s['a_median']:.4f} s, B median {s['b_median']:.4f} s; speed ratio A/B over "
              f"{s['pairs']} pairs: mean {s['ratio_mean']:.3f} (SE {s['ratio_se']:.3f}), median {s['ratio_median']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
