#!/usr/bin/env python3
"""scripts/paired_speed.py: its statistics by hand, and whole runs with
stand-in binaries of known speed (ftsim mode and bench mode)."""
import json
import math
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "paired_speed.py")
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import paired_speed  # noqa: E402


def stand_in(directory, name, body):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class PairedSpeed(unittest.TestCase):
    def test_summary_by_hand(self):
        # Ratios 2/1, 3/3, 4/2 = 2, 1, 2: mean 5/3, sample SD sqrt(1/3), SE 1/3, median 2.
        s = paired_speed.summary([2.0, 3.0, 4.0], [1.0, 3.0, 2.0])
        self.assertEqual(s["pairs"], 3)
        self.assertAlmostEqual(s["ratio_mean"], 5.0 / 3.0)
        self.assertAlmostEqual(s["ratio_se"], math.sqrt(1.0 / 3.0) / math.sqrt(3.0))
        self.assertEqual(s["ratio_median"], 2.0)
        self.assertEqual(s["a_median"], 3.0)
        self.assertEqual(s["b_median"], 2.0)

    def test_ftsim_mode_reads_simulation_seconds(self):
        # A writes 3.0 s, B 1.5 s into OUT/stats.json (the argument after --out): B is 2x.
        with tempfile.TemporaryDirectory() as d:
            body = 'while [ $# -gt 1 ]; do [ "$1" = --out ] && out=$2; shift; done\n' \
                   'mkdir -p "$out"; echo \'{"simulation_seconds": %s}\' > "$out/stats.json"\n'
            a = stand_in(d, "a", body % "3.0")
            b = stand_in(d, "b", body % "1.5")
            r = subprocess.run([sys.executable, SCRIPT, "--a", a, "--b", b, "--pairs", "3", "--json", "--", "run", "x.yaml"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            s = json.loads(r.stdout)
            self.assertEqual(s["pairs"], 3)
            self.assertAlmostEqual(s["ratio_mean"], 2.0)
            self.assertAlmostEqual(s["ratio_se"], 0.0)
            self.assertAlmostEqual(s["a_median"], 3.0)

    def test_bench_mode_and_failures(self):
        with tempfile.TemporaryDirectory() as d:
            a = stand_in(d, "a", 'echo "mesh:8x8 load 0.1    2.000 M node-cycles/s  accepted 0.1"\n')
            b = stand_in(d, "b", 'echo "mesh:8x8 load 0.1    4.000 M node-cycles/s  accepted 0.1"\n')
            r = subprocess.run([sys.executable, SCRIPT, "--a", a, "--b", b, "--pairs", "2", "--bench", "--json", "--",
                                "mesh:8x8", "0.1"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertAlmostEqual(json.loads(r.stdout)["ratio_mean"], 2.0)  # B twice the node-cycles per second
            bad = stand_in(d, "bad", "echo broken >&2; exit 3\n")
            r = subprocess.run([sys.executable, SCRIPT, "--a", a, "--b", bad, "--pairs", "2", "--bench", "--", "x"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertIn("exited 3", r.stderr)
            r = subprocess.run([sys.executable, SCRIPT, "--a", a, "--b", b, "--pairs", "1", "--bench", "--", "x"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertIn("--pairs 1: allowed 2..1000", r.stderr)


if __name__ == "__main__":
    unittest.main()
