#!/usr/bin/env python3
"""Figure 9 of the intermediate-node paper measured as saturation throughput
(issue 48): `ftsim analyze saturation` on the 8x8x8 torus of
experiments/inodes-8x8x8-base.yaml for every mechanism of Figure 9 (a) (five
VCs), (b) (four VCs) and the BlueGene/L-like baseline, at 0..14 random link
faults (BG/L: 0..7), DRAWS fault draws per count (faults.random_seed 1..DRAWS;
the paper: 50).

Resumable and growable: a point whose JSON exists is skipped, so running
again with a larger DRAWS adds draws. Fault-free points run first (one per
series: without faults every draw is the same network); a faulty point's
search starts from the bracket [0.88 k0, 1.01 k0] around its series'
fault-free knee k0 and widens it when the knee lies outside, so the bracket
only saves probes and never bounds the answer. Points run draw by draw, so
a partial grid holds complete draws.

Usage: inodes_saturation_grid.py [--draws N] [--counts N,N,...] [--out DIR]
                                 [--jobs J] [--ftsim BIN] [--series NAME,...]

--counts picks the fault counts (default every count 0..14, BG/L 0..7; a
count beyond a series' last is skipped for it), so the grid can be sized by
the question and grown later: the same command with more counts or draws
runs only the missing points.
Report: scripts/inodes_saturation_report.py DIR --points-csv FILE (which also
saves the finished points into FILE, the summary main keeps between sessions)
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import time

BASE = "experiments/inodes-8x8x8-base.yaml"
# (series name, fault counts, --set overrides)
SERIES = [
    ("5vc/I+D", 14, ["router.vcs=5", "routing=inodes:I+D"]),
    ("5vc/I+D+M", 14, ["router.vcs=5", "routing=inodes:I+D+M"]),
    ("5vc/I+M", 14, ["router.vcs=5", "routing=inodes:I+M"]),
    ("5vc/D+M", 14, ["router.vcs=5", "routing=inodes:D+M"]),
    ("5vc/D+M@adaptivity-first", 14, ["router.vcs=5", "routing=inodes:D+M@adaptivity-first"]),
    ("5vc/Ix2", 14, ["router.vcs=5", "routing=inodes:Ix2"]),
    ("4vc/I+D", 14, ["router.vcs=4", "routing=inodes:I+D"]),
    ("4vc/I+D+M", 14, ["router.vcs=4", "routing=inodes:I+D+M"]),
    ("4vc/I+M", 14, ["router.vcs=4", "routing=inodes:I+M"]),
    ("4vc/D+M", 14, ["router.vcs=4", "routing=inodes:D+M"]),
    ("4vc/Ix2", 14, ["router.vcs=4", "routing=inodes:Ix2"]),
    # BlueGene/L-like: Duato routing, 2 adaptive + 1 escape VC (its fourth VC
    # is for high-priority packets, which this traffic has none of), every
    # fault bypasses its 32-node plane; bypassed nodes neither send nor
    # receive, and the throughput is the whole machine's.
    ("bgl/duato", 7, ["routing=duato", "router.vcs=3", "router.injection_ports=3", "faults.model=bgl-planes",
                      "faults.bgl_plane_nodes=32"]),
]


def point_file(out, series, faults, draw):
    return os.path.join(out, series.replace("/", "-"), f"f{faults:02d}-d{draw:02d}.json")


def run_point(args, series, faults, draw, sets, bracket):
    path = point_file(args.out, series, faults, draw)
    if os.path.exists(path) or (series, faults, draw) in args.done:
        return path, 0.0, "kept"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    cmd = [args.ftsim, "analyze", "saturation", BASE, "--quiet", "--out", path, "--low", "0.2", "--high", "1.0",
           "--bracket", f"{bracket[0]:.4f},{bracket[1]:.4f}"]
    for s in sets + [f"faults.random_links={faults}", f"faults.random_seed={draw}"]:
        cmd += ["--set", s]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{series} f={faults} d={draw}: exit {p.returncode}: {p.stdout[-300:]} {p.stderr[-300:]}")
    return path, time.time() - t0, "ran"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--out", default="results/inodes-saturation")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ftsim", default="./build/ftsim")
    ap.add_argument("--counts", default="",
                    help="comma list of fault counts > 0 (default: every count up to the series' last)")
    ap.add_argument("--series", default="", help="comma list of series names (default: all)")
    ap.add_argument("--points-csv", default="docs/reproduction/data/figure9-saturation-points.csv",
                    help="points already finished (inodes_saturation_report.py --points-csv): skipped")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    series = [s for s in SERIES if not args.series or s[0] in args.series.split(",")]
    wanted = sorted({int(c) for c in args.counts.split(",") if c.strip()}) if args.counts else None
    if wanted and min(wanted) < 1:
        ap.error("--counts: fault counts must be >= 1 (the fault-free point always runs)")

    def counts_of(last):
        return [n for n in (wanted or range(1, last + 1)) if n <= last]
    args.done = {}
    if os.path.exists(args.points_csv):
        with open(args.points_csv) as f:
            for r in csv.DictReader(f):
                args.done[(r["series"], int(r["faults"]), int(r["draw"]))] = float(r["knee_load"])
    done = 0
    start = time.time()

    def report(path, secs, how, total):
        nonlocal done
        done += 1
        rate = (time.time() - start) / done
        print(f"[{done}/{total}] {how} {path} ({secs:.0f} s; ETA {rate * (total - done) / 60:.0f} min)",
              file=sys.stderr, flush=True)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        # Phase 1: the fault-free knee of every series (a wide search).
        jobs = [pool.submit(run_point, args, name, 0, 1, sets, (0.55, 1.0)) for name, _, sets in series]
        total = len(jobs) + sum(len(counts_of(n)) * args.draws for _, n, _ in series)
        for f in concurrent.futures.as_completed(jobs):
            report(*f.result(), total)
        knee0 = {}
        for name, _, _ in series:
            if (name, 0, 1) in args.done:
                knee0[name] = args.done[(name, 0, 1)]
                continue
            with open(point_file(args.out, name, 0, 1)) as f:
                j = json.load(f)
            knee0[name] = j["knee"]["load"] if j.get("knee") else 0.6
        # Phase 2: draw by draw, every faulty point.
        jobs = []
        for draw in range(1, args.draws + 1):
            for name, counts, sets in series:
                k0 = knee0[name]
                bracket = (max(0.2, round(0.88 * k0, 4)), min(1.0, round(1.01 * k0, 4)))
                if bracket[0] >= bracket[1]:
                    bracket = (0.55, 1.0)
                for n in counts_of(counts):
                    jobs.append(pool.submit(run_point, args, name, n, draw, sets, bracket))
        for f in concurrent.futures.as_completed(jobs):
            report(*f.result(), total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
