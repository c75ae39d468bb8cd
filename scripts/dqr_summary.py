#!/usr/bin/env python3
"""One CSV row per (file, variant, fault count) of `ftsim analyze dqr` JSON
files: the small table a doc keeps in main when results/ is not versioned.

Usage: dqr_summary.py FILE.json [FILE.json ...] [--csv OUT] [--faults N,N,...]

Columns: topology, initial, endpoints, fault_kind, fallback, runs, variant,
faults, success_probability, full_reroutes, runs_routed, flows_lost,
entries_changed, stretch_mean, single_succeeded, single_total (the last two
from --every-single-fault, the same on every row of a variant; empty
without it). Fields a file does not have (older JSON, no --fallback) are
left empty. Prints the rows as a Markdown table too.
"""
import argparse
import csv
import json
import sys

COLUMNS = ["topology", "initial", "endpoints", "fault_kind", "fallback", "runs", "variant", "faults",
           "success_probability", "full_reroutes", "runs_routed", "flows_lost", "entries_changed", "stretch_mean",
           "single_succeeded", "single_total"]


def rows_of(doc, keep_faults=None):
    """The CSV rows (dicts) of one analyze dqr JSON document."""
    out = []
    for v in doc["variants"]:
        single = v.get("single_faults", {})
        total = single.get("links", single.get("switches", ""))
        for p in v["points"]:
            if keep_faults and p["faults"] not in keep_faults:
                continue
            out.append({
                "topology": doc["topology"], "initial": doc["initial"], "endpoints": doc.get("endpoints", "hca"),
                "fault_kind": doc.get("fault_kind", "link"), "fallback": doc.get("fallback", "none"),
                "runs": doc["runs"], "variant": v["variant"], "faults": p["faults"],
                "success_probability": p["success_probability"], "full_reroutes": p.get("full_reroutes", ""),
                "runs_routed": p.get("runs_routed", ""), "flows_lost": p.get("flows_lost", ""),
                "entries_changed": p.get("entries_changed", ""), "stretch_mean": p.get("stretch_mean", ""),
                "single_succeeded": single.get("succeeded", ""), "single_total": total,
            })
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--csv")
    ap.add_argument("--faults", help="keep these fault counts only (comma list)")
    a = ap.parse_args()
    keep = {int(x) for x in a.faults.split(",")} if a.faults else None
    rows = []
    for f in a.files:
        try:
            with open(f) as fh:
                rows += rows_of(json.load(fh), keep)
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"dqr_summary: {f}: {e}")
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()
