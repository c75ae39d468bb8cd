#!/usr/bin/env python3
"""Immunet control packets on the links (docs/reproduction/immunet.md,
"Control packets on the links"): runs one experiment with
immunet.control_packet_flits = 0 (control packets take no link bandwidth) and
with each other given flit count, at each offered load, and prints the
reconfiguration time, the cycles control packets waited for a link, and the
accepted load after the reconfiguration (mean over cycles FROM..TO).

Usage: immunet_control_link_study.py EXPERIMENT.yaml OUTDIR FROM:TO "LOADS" "FLITS" [--set k=v ...]
Example: scripts/immunet_control_link_study.py experiments/immunet-8x8-link-fault.yaml \
           results/ctl-8x8 25000:45000 "0.2 0.4 0.6 1.0" "0 2 19"
"""
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from ts_window import window_means  # noqa: E402


def run(exp, out, load, flits, extra):
    d = os.path.join(out, f"{load}-{flits}")
    cmd = [os.path.join(ROOT, "build", "ftsim"), "run", exp, "--out", d, "--quiet", "--set",
           f"traffic.load={load}", "--set", f"immunet.control_packet_flits={flits}"] + extra
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    with open(d + ".log", "w") as log:
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    return d, rc


def main(argv):
    if len(argv) < 6:
        raise SystemExit(__doc__)
    exp, out, win, loads, flit_counts = argv[1], argv[2], argv[3], argv[4].split(), argv[5].split()
    extra = argv[6:]
    lo, hi = (int(x) for x in win.split(":"))
    os.makedirs(out, exist_ok=True)
    points = [(load, f) for load in loads for f in flit_counts]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda p: run(exp, out, p[0], p[1], extra), points))
    lines = [f"{'offered':>7} {'flits':>5} {'reconf_cycles':>13} {'hops':>7} {'wait_mean':>9} {'wait_max':>8} "
             f"{'accepted_after':>14} {'lost':>5} {'exit':>4}"]
    for (load, flits), (d, rc) in zip(points, results):
        try:
            s = json.load(open(os.path.join(d, "stats.json")))
        except (OSError, ValueError):
            lines.append(f"{load:>7} {flits:>5} run failed with exit {rc}, see {d}.log")
            continue
        r = s["reconfiguration"]
        hops = r["safe_control_hops"] + r["adaptive_control_hops"]
        sent = r["control_link_flits"] // int(flits) if int(flits) > 0 else 0
        wait_mean = r["control_link_wait_cycles"] / sent if sent else 0.0
        acc = window_means(os.path.join(d, "timeseries.csv"), lo, hi)[1]
        lines.append(f"{load:>7} {flits:>5} {r['reconfiguration_cycles']:>13} {hops:>7} {wait_mean:>9.2f} "
                     f"{r['control_link_wait_max']:>8} {acc:>14.4f} {r['packets_lost']:>5} {rc:>4}")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main(sys.argv)
