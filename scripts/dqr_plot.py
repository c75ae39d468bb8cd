#!/usr/bin/env python3
"""Plot `ftsim analyze dqr` results in the style of the DQR paper's section V.

Usage: scripts/dqr_plot.py [--metric NAME] [--variants V,V] --out FILE.png RESULT.json [RESULT.json ...]

One line per (topology, variant): the metric (a field of each point, default
success_probability) against the number of link faults. With several files
(e.g. the mesh plug-in on 5x5..20x20) the legend names the topology.
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    markers = "os^vDx+*<>"
    line = 0
    for f in a.files:
        with open(f) as fh:
            j = json.load(fh)
        for v in j["variants"]:
            if keep and v["variant"] not in keep:
                continue
            pts = v["points"]
            if a.metric != "success_probability":
                pts = [p for p in pts if p["successes"] > 0]  # means over successful reconfigurations only
            xs = [p["faults"] for p in pts]
            ys = [p[a.metric] * (100.0 if a.metric == "flows_rerouted_fraction" else 1.0) for p in pts]
            label = v["variant"] if len(a.files) == 1 else f'{j["topology"]} {v["variant"]}'
            ax.plot(xs, ys, marker=markers[line % len(markers)], markersize=4, label=label)
            line += 1
    ax.set_xlabel("link faults (added one by one, reconfigured after each)")
    ax.set_ylabel(LABELS.get(a.metric, a.metric))
    if a.metric == "success_probability":
        ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    runs = j.get("runs", "?")
    ax.set_title(a.title or f"DQR, {runs} runs per point")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
