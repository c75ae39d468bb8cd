#!/usr/bin/env python3
"""Immunet's application experiment (section 6.2, Table 2, Figures 14 and 15)
with the phase models of experiments/workloads (issue 53 item 4): each
workload on the 8x8 Immunet torus fault-free, then with K random link faults
injected one by one at seeded random cycles over [5%, 80%] of its fault-free
execution time (faults.random_at / random_until), DRAWS fault draws per K.
Prints the execution time normalised to the fault-free run (Figure 14's
axis) as mean and standard error per (workload, K), and writes a CSV.

Usage: immunet_app_experiment.py [--ftsim BIN] [--faults 3,9,17] [--draws N]
                                 [--out DIR] [--csv FILE]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

WORKLOADS = ["fft", "radix", "lu"]


def run(ftsim, app, out, sets):
    cmd = [ftsim, "run", f"experiments/phases-{app}-8x8.yaml", "--quiet", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"immunet_app_experiment: {' '.join(cmd)} exited {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}")
    with open(os.path.join(out, "stats.json")) as f:
        j = json.load(f)
    ph = j["phases"]
    if not ph["complete"]:
        sys.exit(f"immunet_app_experiment: {out}: the workload did not finish")
    return ph["execution_cycles"], j["packets"]["dropped"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ftsim", default="./build/ftsim")
    ap.add_argument("--faults", default="3,9,17")
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--out", default="results/immunet-apps")
    ap.add_argument("--csv")
    a = ap.parse_args()
    counts = [int(x) for x in a.faults.split(",")]
    rows = []
    for app in WORKLOADS:
        t0, _ = run(a.ftsim, app, os.path.join(a.out, f"{app}-f00"), [])
        rows.append({"workload": app, "faults": 0, "draw": 0, "execution_cycles": t0, "normalised": 1.0,
                     "packets_lost": 0})
        for k in counts:
            for d in range(1, a.draws + 1):
                sets = [f"faults.random_links={k}", f"faults.random_seed={d}", f"faults.random_at={int(0.05 * t0)}",
                        f"faults.random_until={int(0.8 * t0)}"]
                t, lost = run(a.ftsim, app, os.path.join(a.out, f"{app}-f{k:02d}-d{d:02d}"), sets)
                rows.append({"workload": app, "faults": k, "draw": d, "execution_cycles": t, "normalised": t / t0,
                             "packets_lost": lost})
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    print("| workload | fault-free cycles | " + " | ".join(f"{k} faults" for k in counts) + " |")
    print("|---|---|" + "---|" * len(counts))
    for app in WORKLOADS:
        t0 = next(r["execution_cycles"] for r in rows if r["workload"] == app and r["faults"] == 0)
        cells = []
        for k in counts:
            xs = [r["normalised"] for r in rows if r["workload"] == app and r["faults"] == k]
            m = sum(xs) / len(xs)
            se = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else 0.0
            cells.append(f"{m:.3f} ± {se:.3f}")
        print(f"| {app} | {t0} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
