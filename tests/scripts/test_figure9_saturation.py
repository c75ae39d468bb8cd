#!/usr/bin/env python3
"""Figure 9 as saturation throughput (issue 48): scripts/inodes_saturation_report.py
on a hand-made grid (means, standard errors and complete draws derived by
hand below), and the guard on the committed results: no mechanism's mean
saturation throughput at n > 0 faults may exceed its fault-free value by
more than two standard errors (a fault removes capacity, it never adds it)."""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "inodes_saturation_report.py")
CSV = os.path.join(ROOT, "docs", "reproduction", "data", "figure9-saturation.csv")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import inodes_saturation_report as rep  # noqa: E402


def point(folder, faults, draw, thr, knee=0.9):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"f{faults:02d}-d{draw:02d}.json"), "w") as f:
        json.dump({"saturation_throughput": thr, "knee": {"load": knee},
                   "peak": {"accepted_payload_flits_per_cycle": thr + 1}}, f)


class SaturationReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        # 5vc/I+D: fault-free 490; 1 fault, draws 1..3: 480, 486, 483 ->
        # mean 483, sd 3, SE 3 / sqrt(3) = 1.732; 2 faults: draws 1, 2 only
        # (draw 3 not finished), so only draws 1 and 2 are complete: the
        # 1-fault cell uses 480 and 486 -> mean 483, sd 4.243, SE 3.
        a = os.path.join(d, "5vc-I+D")
        point(a, 0, 1, 490.0)
        for draw, v in ((1, 480.0), (2, 486.0), (3, 483.0)):
            point(a, 1, draw, v)
        for draw, v in ((1, 470.0), (2, 472.0)):
            point(a, 2, draw, v)
        # 4vc/Ix2: gains 10 flits/cycle with a spread of 1 (SE 0.5): flagged.
        b = os.path.join(d, "4vc-Ix2")
        point(b, 0, 1, 360.0)
        for draw, v in ((1, 369.0), (2, 371.0)):
            point(b, 1, draw, v)
        # bgl/duato: 1 fault is 2 above fault-free with SE 1.5: within 2 SE.
        c = os.path.join(d, "bgl-duato")
        point(c, 0, 1, 400.0)
        for draw, v in ((1, 400.5), (2, 403.5)):
            point(c, 1, draw, v)
        self.rows = rep.cells(rep.load(d))
        self.by = {(r["series"], r["faults"]): r for r in self.rows}

    def tearDown(self):
        self.tmp.cleanup()

    def test_means_and_standard_errors_over_complete_draws(self):
        r = self.by[("5vc/I+D", 1)]
        self.assertEqual(r["draws"], 2)
        self.assertAlmostEqual(r["mean"], 483.0)
        self.assertAlmostEqual(r["se"], math.sqrt(18) / math.sqrt(2))  # sd of (480, 486) = sqrt(18)
        self.assertAlmostEqual(self.by[("5vc/I+D", 2)]["mean"], 471.0)
        free = self.by[("5vc/I+D", 0)]
        self.assertEqual((free["draws"], free["mean"], free["se"]), (1, 490.0, 0.0))
        self.assertAlmostEqual(r["peak_mean"], 484.0)

    def test_a_gain_beyond_two_standard_errors_is_flagged_and_only_that(self):
        bad = rep.gains(self.rows)
        self.assertEqual([(s, n) for s, n, *_ in bad], [("4vc/Ix2", 1)])

    def test_the_command_exits_1_on_a_gain_and_writes_the_csv(self):
        out = os.path.join(self.tmp.name, "f9.csv")
        p = subprocess.run([sys.executable, SCRIPT, self.tmp.name, "--csv", out], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("GAIN FROM FAULTS: 4vc/Ix2 at 1 faults", p.stdout)
        with open(out) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 7)

    def test_rewriting_the_points_csv_keeps_every_field(self):
        # The report rewrites --points-csv with the old rows and the new JSON
        # points; a row read back from it must come out unchanged, probes
        # included (an earlier version dropped them on every rewrite).
        path = os.path.join(self.tmp.name, "points.csv")
        with open(path, "w", newline="") as f:
            f.write("series,faults,draw,saturation_throughput,peak,knee_load,probes\n")
            f.write("4vc/D+M,1,1,359.7733,404.8213,0.7159,9\n")
        for _ in range(2):
            rep.write_points_csv(rep.load(os.path.join(self.tmp.name, "none"), path), path)
        with open(path) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 1)
        self.assertEqual([rows[0][k] for k in rep.POINT_FIELDS],
                         ["4vc/D+M", "1", "1", "359.7733", "404.8213", "0.7159", "9"])


class CommittedFigure9(unittest.TestCase):
    def test_no_mechanism_gains_throughput_from_faults(self):
        self.assertTrue(os.path.exists(CSV), f"{CSV} missing: run scripts/inodes_saturation_report.py --csv")
        with open(CSV) as f:
            rows = [{"series": r["series"], "faults": int(r["faults"]), "mean": float(r["mean"]),
                     "se": float(r["se"])} for r in csv.DictReader(f)]
        self.assertGreater(len(rows), 0)
        self.assertEqual(rep.gains(rows), [])


if __name__ == "__main__":
    unittest.main()
