#!/usr/bin/env python3
"""scripts/plot_cost.py on hand-made cost and stats.json documents."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "plot_cost.py")
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import plot_cost  # noqa: E402


def cost(routers, by_mechanism):
    return {"routers": routers, "blocks": [], "storage_bits": {"total": sum(by_mechanism.values()),
                                                              "by_mechanism": by_mechanism}}


class PlotCost(unittest.TestCase):
    def test_bits_per_router_and_both_plots(self):
        # 4 routers, 4,000 router bits and 800 table bits in all: 1,000 and 200 per router.
        self.assertEqual(plot_cost.per_router(cost(4, {"router": 4000, "lft": 800})), {"router": 1000, "lft": 200})
        with tempfile.TemporaryDirectory() as d:
            a = os.path.join(d, "a.json")
            b = os.path.join(d, "b.json")
            energy = {"total_pj": 400.0, "dynamic_pj": {"total": 100.0}, "pj_per_delivered_flit": 40.0}
            with open(a, "w") as f:
                json.dump({"hardware_cost": cost(4, {"router": 4000, "lft": 800}), "energy": energy}, f)
            with open(b, "w") as f:
                json.dump({"hardware_cost": cost(2, {"router": 3000}), "energy": energy}, f)
            r = subprocess.run([sys.executable, SCRIPT, f"A={a}", f"B={b}", "--out", os.path.join(d, "p")],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("| A | 1000 | 200 |", r.stdout)
            self.assertIn("| B | 1500 | 0 |", r.stdout)
            # energy: 40 pJ per flit, a quarter of it dynamic
            self.assertIn("| A | 10.0 | 30.0 |", r.stdout)
            self.assertTrue(os.path.getsize(os.path.join(d, "p-storage.png")) > 1000)
            self.assertTrue(os.path.getsize(os.path.join(d, "p-energy.png")) > 1000)
            bad = subprocess.run([sys.executable, SCRIPT, "nolabel", "--out", os.path.join(d, "q")],
                                 capture_output=True, text=True)
            self.assertNotEqual(bad.returncode, 0)


if __name__ == "__main__":
    unittest.main()
