#!/usr/bin/env python3
"""Runs two ftsim binaries on the same configurations and checks that their
stats.json agree bit for bit, apart from timing and identity fields (the
ones scripts/check_golden.py ignores). For speed work: a faster router
must not change a single number (issue 54).

The configurations cover every router organisation and mechanism with a
short run each: the golden experiments, the mesh at saturation, the torus
with bubble flow control, the 8x8x8 torus of Figure 9 with faults, the fat
tree under DDLR, ADLR, DDRC and virtual output queues, iSLIP, the per-VC
crossbar (with Immunet's control packets and with switch faults), two
injection ports, MiKANT, DQR and a run that deadlocks.

Usage: same_behaviour.py --a OLD_BIN --b NEW_BIN [--jobs N] [--only SUBSTRING] [--b-set KEY=VALUE ...]
                         [--packet-ids-as-labels]
(--b-set: extra settings for B only, so one binary can be compared with
itself under two settings, e.g. sim.router_processes=per_router)
Exit 0 when every configuration agrees; 1 with the differences otherwise.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_golden import behaviour  # noqa: E402

SHORT = ["sim.warmup_cycles=500", "sim.measure_cycles=2000"]
CONFIGS = [
    ("mesh-uniform", "experiments/mesh-uniform.yaml", []),
    ("mesh-saturated", "experiments/mesh-uniform.yaml", SHORT + ["traffic.load=0.5"]),
    ("mesh-islip", "experiments/mesh-uniform.yaml",
     SHORT + ["traffic.load=0.3", "router.switch_allocator=islip", "router.islip_iterations=2"]),
    ("mesh-wavefront-transit", "experiments/mesh-uniform.yaml",
     SHORT + ["traffic.load=0.4", "router.vc_allocator=wavefront", "router.vcs=4", "router.injection=transit_priority"]),
    ("mesh-per-vc-2inj", "experiments/mesh-uniform.yaml",
     SHORT + ["traffic.load=0.3", "router.crossbar=per_vc", "router.injection_ports=2", "router.ejection_ports=2"]),
    ("mesh-link-fault", "experiments/mesh-uniform.yaml",
     SHORT + ["traffic.load=0.2", "routing=immunet", "topology=torus:8x8", "router.flow_control=vct",
              "router.buffer_flits=8", 'faults=[{link: "3,3:x+", at: 900}]']),
    ("mesh-non-atomic-slow-rc", "experiments/mesh-uniform.yaml",
     SHORT + ["traffic.load=0.35", "router.vc_realloc=non_atomic", "router.latency={rc: 3, va: 2, credit: 2}"]),
    ("mesh-atomic-slow-link", "experiments/mesh-uniform.yaml",
     SHORT + ["traffic.load=0.3", "router.latency={rc: 2, link: 3, credit: 3}", "router.vcs=3"]),
    ("torus-bubble", "experiments/mesh-uniform.yaml",
     SHORT + ["topology=torus:8x8", "router.flow_control=vct", "router.buffer_flits=8", "traffic.load=0.3"]),
    ("immunet-8x8", "experiments/immunet-8x8-link-fault.yaml", []),
    ("immunet-8x8-per-vc", "experiments/immunet-8x8-link-fault.yaml", ["router.crossbar=per_vc"]),
    ("mesh-per-vc-switch-fault", "experiments/mesh-uniform.yaml",
     SHORT + ["router.crossbar=per_vc", "router.vcs=3", "traffic.load=0.3",
              "faults=[{switch: '3,3', at: 900, repair: 1400}]"]),
    ("inodes-smoke", "experiments/inodes-smoke.yaml", []),
    ("inodes-8x8x8-faults", "experiments/inodes-8x8x8-base.yaml",
     ["sim.warmup_cycles=300", "sim.measure_cycles=1000", "traffic.load=1.0", "faults.random_links=4"]),
    ("fat-tree-uturn", "experiments/fat-tree-uturn.yaml", []),
    ("dlr-ddlr", "experiments/dlr-base.yaml", SHORT),
    ("dlr-adlr", "experiments/dlr-base.yaml", SHORT + ["routing=adlr", "router.vcs=1"]),
    ("dlr-ddrc-fault", "experiments/dlr-base.yaml",
     SHORT + ["routing=updown-det", "router.vcs=1", "ddrc.enabled=true", "faults.random_links=3"]),
    ("dlr-voq", "experiments/dlr-base.yaml", SHORT + ["router.queues=voq"]),
    ("mikant", "experiments/mikant-base.yaml", []),
    ("dqr-10x10", "experiments/dqr-mesh10x10-link-fault.yaml", []),
    ("mikant-deadlock", "experiments/mikant-base.yaml",
     SHORT + ["routing=gns+xt+gdl", "faults.random_links=20", "traffic.load=0.8", "router.vcs=1",
              "sim.deadlock_is_outcome=true", "faults.random_seed=2"]),
]


def run(binary, exp, sets, out):
    cmd = [binary, "run", exp, "--quiet", "--out", out] + [a for s in sets for a in ("--set", s)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    path = os.path.join(out, "stats.json")
    if not os.path.exists(path):
        return p.returncode, None, p.stderr
    with open(path) as f:
        return p.returncode, behaviour(json.load(f)), p.stderr


PACKET_ID = re.compile(r"packet \d+")


def exact_differences(a, b, path="", packet_ids=True):
    """Every differing leaf as 'path: a -> b'. packet_ids=False compares
    strings with the numbers after "packet " blanked: a packet's id is a
    label given in creation order, and the order in which packets created in
    the same cycle at different nodes get their ids is not behaviour."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            yield from exact_differences(a.get(k, "<missing>"), b.get(k, "<missing>"), f"{path}.{k}" if path else k,
                                         packet_ids)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from exact_differences(x, y, f"{path}[{i}]", packet_ids)
    elif (not packet_ids and isinstance(a, str) and isinstance(b, str)
          and PACKET_ID.sub("packet #", a) == PACKET_ID.sub("packet #", b)):
        return
    elif a != b or type(a) is not type(b):
        yield f"{path}: {json.dumps(a)[:70]} -> {json.dumps(b)[:70]}"


def check(args, name, exp, sets, tmp):
    ra = run(args.a, exp, sets, os.path.join(tmp, name + "-a"))
    rb = run(args.b, exp, sets + args.b_set, os.path.join(tmp, name + "-b"))
    diffs = []
    if ra[0] != rb[0]:
        diffs.append(f"exit code {ra[0]} -> {rb[0]}")
    if ra[1] is None or rb[1] is None:
        diffs.append(f"no stats.json: {ra[2][-200:]} | {rb[2][-200:]}")
    else:
        diffs += list(exact_differences(ra[1], rb[1], packet_ids=not args.packet_ids_as_labels))
    return name, ra[0], diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--b-set", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra --set for B only (repeatable), e.g. sim.router_processes=per_router with --a and "
                         "--b the same binary")
    ap.add_argument("--packet-ids-as-labels", action="store_true",
                    help="ignore the ids in 'packet N' of report strings (undrained VCs, deadlock report): they "
                         "follow the order in which packets created in one cycle were numbered")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    configs = [c for c in CONFIGS if args.only in c[0]]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, code, diffs in pool.map(lambda c: check(args, *c, tmp), configs):
            print(f"{'same' if not diffs else 'DIFFERENT':9} {name} (exit {code})")
            for d in diffs[:10]:
                print("    " + d)
            bad += bool(diffs)
    print(f"{len(configs) - bad} of {len(configs)} configurations identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
