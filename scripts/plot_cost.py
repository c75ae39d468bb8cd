#!/usr/bin/env python3
"""Bar charts of what each configuration costs (issue 52 item 3): storage per
router split into the router's own (buffers, credits, VC state) and each
mechanism's (tables, registers, routing information), and, for stats.json
inputs, the energy per delivered flit split into dynamic and static.

Usage: plot_cost.py LABEL=FILE [LABEL=FILE ...] --out PREFIX
  FILE  `ftsim cost --json` output, or a run's stats.json (its hardware_cost
        and energy sections)
Writes PREFIX-storage.png and, when every input is a stats.json,
PREFIX-energy.png; prints the figures as a Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def load(path):
    """(hardware_cost section, energy section or None) of a cost JSON or a stats.json."""
    with open(path) as f:
        j = json.load(f)
    if "hardware_cost" in j:
        return j["hardware_cost"], j.get("energy")
    if "blocks" in j and "storage_bits" in j:
        return j, None
    raise ValueError(f"{path}: neither ftsim cost output nor a stats.json with hardware_cost")


def per_router(cost):
    """{mechanism: bits per router} (totals / routers)."""
    n = max(1, cost["routers"])
    return {m: b / n for m, b in cost["storage_bits"]["by_mechanism"].items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+", help="LABEL=FILE")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows = []
    for item in a.inputs:
        if "=" not in item:
            sys.exit(f"plot_cost: '{item}': expected LABEL=FILE")
        label, path = item.split("=", 1)
        try:
            cost, energy = load(path)
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"plot_cost: {e}")
        rows.append((label, per_router(cost), energy))
    mechs = sorted({m for _, pr, _ in rows for m in pr}, key=lambda m: (m != "router", m))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "storage.dat")
        with open(data, "w") as f:
            for label, pr, _ in rows:
                f.write(f'"{label}" ' + " ".join(f"{pr.get(m, 0.0) / 8192:.6f}" for m in mechs) + "\n")
        cols = " ".join(f"using {i + 2}:xtic(1) title '{m}'" + ("," if i + 1 < len(mechs) else "")
                        for i, m in enumerate(mechs))
        plot(histogram(f"{a.out}-storage.png", len(rows), "storage per router (KiB)",
                       "Storage per router by mechanism (ftsim cost)",
                       f"'{data}' " + cols.replace("using", "'' using").replace("'' using", "using", 1)))

        print("| configuration | " + " | ".join(f"{m} (bits/router)" for m in mechs) + " |")
        print("|---|" + "---|" * len(mechs))
        for label, pr, _ in rows:
            print(f"| {label} | " + " | ".join(f"{pr.get(m, 0):.0f}" for m in mechs) + " |")
        print(f"wrote {a.out}-storage.png", file=sys.stderr)
        if all(e is not None for _, _, e in rows):
            edata = os.path.join(tmp, "energy.dat")
            lines = []
            with open(edata, "w") as f:
                for label, _, e in rows:
                    per = e["pj_per_delivered_flit"]
                    dyn = per * e["dynamic_pj"]["total"] / max(1e-300, e["total_pj"])
                    f.write(f'"{label}" {dyn:.6f} {per - dyn:.6f}\n')
                    lines.append(f"| {label} | {dyn:.1f} | {per - dyn:.1f} |")
            plot(histogram(f"{a.out}-energy.png", len(rows), "pJ per delivered flit",
                           "Energy per delivered flit (stats.json energy)",
                           f"'{edata}' using 2:xtic(1) title 'dynamic', '' using 3 title 'static'"))

            print("\n| configuration | dynamic pJ/flit | static pJ/flit |\n|---|---|---|")
            print("\n".join(lines))
            print(f"wrote {a.out}-energy.png", file=sys.stderr)


def histogram(png, bars, ylabel, title, plot_clause):
    """A gnuplot script for a row-stacked bar chart of `bars` bars."""
    return f"""set terminal pngcairo size {max(560, 140 * bars + 200)},420
set output '{png}'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set ylabel '{ylabel}'
set title '{title}'
set key outside right top
set yrange [0:*]
set xtics rotate by -30
set bmargin 6
plot {plot_clause}
"""


def plot(script):
    """Runs gnuplot on the script; exits with its message on failure."""
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"plot_cost: gnuplot failed: {r.stderr.strip()}")

if __name__ == "__main__":
    main()
