#!/usr/bin/env python3
"""Immunet with the Verilated Reconfiguration Module in the loop (issue 51,
item 3): runs each configuration twice, with the C++ emergency logic
(`immunet.rtl: cpp`) and with rtl_ref's Verilog through Verilator
(`immunet.rtl: verilated`), and checks that stats.json agree bit for bit
apart from timing and identity fields (scripts/check_golden.py) and the
`rtl` key itself.

Configurations: a single link fault and five link faults (one of them during
the first emergency) on a 4x4 and an 8x8 torus, with section 6's handle time
(100 cycles) and ACK window (10), the parameters the Verilated models are
compiled with.

Usage: rtl_in_the_loop.py FTSIM_BINARY [OUTDIR]
Exit 0 when all agree, 1 with the differences, 77 when the binary was built
without Verilator (ctest counts that as skipped).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from check_golden import behaviour  # noqa: E402
from same_behaviour import exact_differences  # noqa: E402

EXP = os.path.join(ROOT, "experiments", "immunet-8x8-link-fault.yaml")
T44 = ["topology=torus:4x4", "sim.warmup_cycles=1000", "sim.measure_cycles=20000", "traffic.load=0.3",
       "immunet.control_packet_cycles=200"]
T88 = ["sim.measure_cycles=40000"]
FIVE44 = ('faults.schedule=[{link: "1,1:x+", at: 3000}, {link: "2,3:y+", at: 3030}, {link: "0,2:x+", at: 8000}, '
          '{link: "3,0:y+", at: 12000}, {link: "2,2:x+", at: 16000}]')
FIVE88 = ('faults.schedule=[{link: "3,3:x+", at: 10000}, {link: "5,1:y+", at: 10040}, {link: "0,6:x+", at: 18000}, '
          '{link: "6,6:y+", at: 26000}, {link: "2,4:x+", at: 34000}]')
CONFIGS = [
    ("torus4x4-one-fault", T44 + ['faults.schedule=[{link: "1,1:x+", at: 3000}]']),
    ("torus4x4-five-faults", T44 + [FIVE44]),
    ("torus8x8-one-fault", T88),
    ("torus8x8-five-faults", T88 + [FIVE88]),
]


def run(binary, out, sets):
    cmd = [binary, "run", EXP, "--out", out, "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stderr


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    binary = argv[1]
    outdir = argv[2] if len(argv) > 2 else tempfile.mkdtemp(prefix="rtl-loop-")
    bad = 0
    for name, sets in CONFIGS:
        res = {}
        for impl in ("cpp", "verilated"):
            out = os.path.join(outdir, f"{name}-{impl}")
            code, err = run(binary, out, sets + [f"immunet.rtl={impl}"])
            if code != 0:
                if impl == "verilated" and "not available in this build" in err:
                    print("skipped: this ftsim was built without Verilator")
                    return 77
                print(f"FAILED   {name} {impl}: exit {code}\n{err}")
                return 1
            with open(os.path.join(out, "stats.json")) as f:
                j = json.load(f)
            if j["config"]["immunet"]["rtl"] != impl:
                print(f"FAILED   {name}: stats.json says rtl = {j['config']['immunet']['rtl']}, asked {impl}")
                return 1
            j["config"]["immunet"]["rtl"] = "-"
            res[impl] = behaviour(j)
        diffs = list(exact_differences(res["cpp"], res["verilated"]))
        rep = res["cpp"].get("reconfiguration", {})
        print(f"{'same' if not diffs else 'DIFFERENT':9} {name} (emergencies {rep.get('emergency_adoptions')}, "
              f"final EPL {rep.get('final_epl')}, adaptive messages {rep.get('adaptive_control_messages')})")
        for d in diffs[:10]:
            print("    " + d)
        bad += bool(diffs)
    print(f"{len(CONFIGS) - bad} of {len(CONFIGS)} configurations identical with the Verilated logic")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
