#!/usr/bin/env python3
"""Tables, CSV and plots of Figure 9 measured as saturation throughput
(issue 48), from the grid of scripts/inodes_saturation_grid.py.

A cell is the mean over the fault draws of the saturation throughput
(accepted payload flits/cycle of the whole 8x8x8 network at the knee, `ftsim
analyze saturation`) ± its standard error (sample sd / sqrt(draws)); the
fault-free cell is one network (every draw is the same). Only draws that
every fault count of a series has finished are used (`complete draws`), so
a growing grid always reports whole draws.

The "no gain from faults" check: a fault removes links and never gives a
network more capacity, so for every series and fault count n > 0 the mean
must not exceed the fault-free value by more than two standard errors.

Usage: inodes_saturation_report.py DIR [--csv FILE] [--plot DIR] [--draws N] [--points-csv FILE]
Exit 1 when the check fails (the violations are printed).
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_sweep import sample_sd  # noqa: E402

PANELS = [("5vc", "Figure 9 (a), five VCs"), ("4vc", "Figure 9 (b), four VCs"),
          ("bgl", "BlueGene/L-like planes (three VCs)")]


POINT_FIELDS = ["series", "faults", "draw", "saturation_throughput", "peak", "knee_load", "probes"]


def load_points_csv(path, data=None):
    """Adds the points of a points CSV (--points-csv) to data."""
    data = data if data is not None else defaultdict(lambda: defaultdict(dict))
    with open(path) as f:
        for r in csv.DictReader(f):
            point = (float(r["saturation_throughput"]), float(r["peak"]), float(r["knee_load"]))
            if r.get("probes"):  # kept, so rewriting the file loses nothing
                point += (int(r["probes"]),)
            data[r["series"]][int(r["faults"])][int(r["draw"])] = point
    return data


def load(d, points_csv=""):
    """{series: {faults: {draw: (throughput, peak, knee_load[, probes])}}} from the
    grid's JSON files under d, and from a points CSV when given (the
    committed summary of an earlier grid)."""
    data = defaultdict(lambda: defaultdict(dict))
    if points_csv and os.path.exists(points_csv):
        load_points_csv(points_csv, data)
    if not os.path.isdir(d):
        return data
    for sub in sorted(os.listdir(d)):
        folder = os.path.join(d, sub)
        if not os.path.isdir(folder) or sub.endswith(".runs"):
            continue
        for name in os.listdir(folder):
            m = re.fullmatch(r"f(\d+)-d(\d+)\.json", name)
            if not m:
                continue
            with open(os.path.join(folder, name)) as f:
                j = json.load(f)
            thr = j.get("saturation_throughput")
            if thr is None:
                continue
            series = sub.replace("-", "/", 1)
            data[series][int(m.group(1))][int(m.group(2))] = (
                thr, j["peak"]["accepted_payload_flits_per_cycle"], j["knee"]["load"], len(j.get("probes", [])))
    return data


def write_points_csv(data, path):
    """One row per finished point: the grid's results in a few kilobytes,
    what main keeps (docs/reproduction/data); the grid script skips them."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(POINT_FIELDS)
        for series in sorted(data):
            for n in sorted(data[series]):
                for d, v in sorted(data[series][n].items()):
                    w.writerow([series, n, d, round(v[0], 4), round(v[1], 4), round(v[2], 4),
                                v[3] if len(v) > 3 else ""])


def complete_draws(points, limit=None):
    """The draws (sorted) that every faulty count of a series has."""
    faulty = [n for n in points if n > 0]
    if not faulty:
        return []
    common = set.intersection(*(set(points[n]) for n in faulty))
    draws = sorted(common)
    return draws[:limit] if limit else draws


def cells(data, limit=None):
    """Rows: series, faults, draws, mean, se, peak_mean, knee_load_mean."""
    rows = []
    for series in sorted(data):
        points = data[series]
        draws = complete_draws(points, limit)
        for n in sorted(points):
            use = [1] if n == 0 else draws
            vals = [points[n][d] for d in use if d in points[n]]
            if not vals:
                continue
            thr = [v[0] for v in vals]
            k = len(thr)
            rows.append({"series": series, "faults": n, "draws": k, "mean": sum(thr) / k,
                         "se": sample_sd(thr) / math.sqrt(k) if k > 1 else 0.0,
                         "peak_mean": sum(v[1] for v in vals) / k, "knee_load_mean": sum(v[2] for v in vals) / k})
    return rows


def gains(rows, sigmas=2.0):
    """Cells whose mean exceeds their series' fault-free mean by more than
    `sigmas` standard errors: (series, faults, mean, fault-free, se)."""
    free = {r["series"]: r["mean"] for r in rows if r["faults"] == 0}
    out = []
    for r in rows:
        if r["faults"] > 0 and r["series"] in free and r["mean"] > free[r["series"]] + sigmas * r["se"] + 1e-9:
            out.append((r["series"], r["faults"], r["mean"], free[r["series"]], r["se"]))
    return out


def markdown(rows, panel):
    sel = [r for r in rows if r["series"].startswith(panel + "/")]
    if not sel:
        return ""
    series = sorted({r["series"] for r in sel})
    counts = sorted({r["faults"] for r in sel})
    by = {(r["series"], r["faults"]): r for r in sel}
    out = "| routing | " + " | ".join(str(n) for n in counts) + " | last / fault-free | draws |\n"
    out += "|---" * (len(counts) + 3) + "|\n"
    for s in series:
        cells_ = []
        for n in counts:
            r = by.get((s, n))
            cells_.append("" if r is None else (f"{r['mean']:.1f}" if n == 0 else f"{r['mean']:.1f} ± {r['se']:.1f}"))
        last = max(n for n in counts if (s, n) in by)
        ratio = by[(s, last)]["mean"] / by[(s, 0)]["mean"] if (s, 0) in by else float("nan")
        draws = max((by[(s, n)]["draws"] for n in counts if n > 0 and (s, n) in by), default=0)
        out += f"| {s.split('/', 1)[1]} | " + " | ".join(cells_) + f" | {100 * ratio:.1f}% | {draws} |\n"
    return out


def plot(rows, outdir):
    os.makedirs(outdir, exist_ok=True)
    pngs = []
    for panel, title in PANELS:
        sel = [r for r in rows if r["series"].startswith(panel + "/")]
        if not sel:
            continue
        dat = os.path.join(outdir, f"figure9-saturation-{panel}.dat")
        series = sorted({r["series"] for r in sel})
        with open(dat, "w") as f:
            for s in series:
                f.write(f"# {s}\n")
                for r in sorted((r for r in sel if r["series"] == s), key=lambda r: r["faults"]):
                    f.write(f"{r['faults']} {r['mean']} {r['se']}\n")
                f.write("\n\n")
        png = os.path.join(outdir, f"figure9-saturation-{panel}.png")
        lines = ", ".join(f"'{dat}' index {i} using 1:2:3 with yerrorlines lw 1.5 title '{s.split('/', 1)[1]}'"
                          for i, s in enumerate(series))
        maxf = max(r["faults"] for r in sel)
        script = (f"set terminal pngcairo noenhanced size 1000,600; set output '{png}';"
                  f"set title \"{title}: saturation throughput of the 8x8x8 torus against link faults\\n"
                  f"knee (ftsim analyze saturation), mean over fault draws, bars: standard error\";"
                  "set xlabel 'faulty links'; set ylabel 'saturation throughput (payload flits/cycle, whole network)';"
                  "set key outside right top vertical Left reverse; set grid;"
                  f"set xrange [-0.5:{maxf + 0.5}]; set xtics 1;"
                  f"plot {lines}")
        subprocess.run(["gnuplot", "-e", script], check=True)
        os.remove(dat)
        pngs.append(png)
    return pngs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--csv", default="")
    ap.add_argument("--plot", default="")
    ap.add_argument("--draws", type=int, default=0, help="use at most the first N complete draws")
    ap.add_argument("--points-csv", default="", help="read this points CSV too, and write it back with every point")
    args = ap.parse_args()
    data = load(args.dir, args.points_csv)
    if args.points_csv:
        write_points_csv(data, args.points_csv)
    rows = cells(data, args.draws or None)
    for panel, title in PANELS:
        md = markdown(rows, panel)
        if md:
            print(f"**{title}** (payload flits/cycle, whole network)\n\n{md}")
    if args.csv:
        os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["series", "faults", "draws", "mean", "se", "peak_mean",
                                              "knee_load_mean"])
            w.writeheader()
            for r in rows:
                w.writerow({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()})
    if args.plot:
        for png in plot(rows, args.plot):
            print(f"wrote {png}", file=sys.stderr)
    bad = gains(rows)
    for s, n, m, f0, se in bad:
        print(f"GAIN FROM FAULTS: {s} at {n} faults: {m:.1f} > fault-free {f0:.1f} + 2 x {se:.1f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
