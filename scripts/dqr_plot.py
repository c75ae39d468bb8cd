#!/usr/bin/env python3
"""Plot `ftsim analyze dqr` results with gnuplot, in the style of the DQR paper's section V.

Usage: scripts/dqr_plot.py [--metric NAME] [--variants V,V] --out FILE.png RESULT.json [RESULT.json ...]

One line per (topology, variant): the metric (a field of each point, default
success_probability) against the number of link faults. With several files
(e.g. the mesh plug-in on 5x5..20x20) the legend names the topology; then a
variant keeps its colour across files and each file gets its own point
shape and dash pattern, so sixteen curves stay tellable apart.
"""
import argparse
import json
import os
import subprocess

LABELS = {
    "success_probability": "P(connected, deadlock-free)",
    "flows_rerouted_fraction": "flows rerouted per fault (%)",
    "entries_changed": "LFT entries changed per fault",
    "channels_moved": "channels moved (T) per fault",
    "seconds_mean": "compute time per fault (s)",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--metric", default="success_probability")
    ap.add_argument("--variants", default="", help="comma list to keep (default: all in the files)")
    ap.add_argument("--title", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    keep = set(v for v in a.variants.split(",") if v)
    dat = os.path.splitext(a.out)[0] + ".dat"
    series = []  # (label, variant index, file index)
    variant_index = {}
    runs = "?"
    with open(dat, "w") as out:
        for file_index, f in enumerate(a.files):
            with open(f) as fh:
                j = json.load(fh)
            runs = j.get("runs", runs)
            for v in j["variants"]:
                if keep and v["variant"] not in keep:
                    continue
                pts = v["points"]
                if a.metric != "success_probability":
                    pts = [p for p in pts if p["successes"] > 0]  # means over successful reconfigurations
                scale = 100.0 if a.metric == "flows_rerouted_fraction" else 1.0
                label = v["variant"] if len(a.files) == 1 else f'{j["topology"]} {v["variant"]}'
                out.write(f"# {label}\n")
                for p in pts:
                    out.write(f'{p["faults"]} {p[a.metric] * scale:.6g}\n')
                out.write("\n\n")
                series.append((label, variant_index.setdefault(v["variant"], len(variant_index)), file_index))
    if len(a.files) == 1:
        styles = [f"pt {i % 12 + 1}" for i in range(len(series))]
    else:
        styles = [f"lc {v % 8 + 1} pt {(f * 3) % 12 + 1} dt {f % 5 + 1}" for _, v, f in series]
    plots = ", ".join(
        f"'{dat}' index {i} using 1:2 with linespoints {styles[i]} ps 0.8 title '{t}'"
        for i, (t, _, _) in enumerate(series))
    many = len(series) > 4  # a legend inside would cover the curves
    script = f"""set terminal pngcairo size {1000 if many else 800},520 font ',10'
set output '{a.out}'
set title '{a.title or f"DQR, {runs} runs per point"}'
set xlabel 'link faults (added one by one, reconfigured after each)'
set ylabel '{LABELS.get(a.metric, a.metric)}'
set grid
{"set key outside right top vertical" if many else "set key top right"}
{"set yrange [-0.02:1.02]" if a.metric == "success_probability" else ""}
plot {plots}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
