#!/usr/bin/env python3
"""scripts/dqr_summary.py on a hand-written analyze dqr document."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
import dqr_summary  # noqa: E402


class DqrSummary(unittest.TestCase):
    DOC = {
        "topology": "mesh:4x4", "initial": "dor", "runs": 10, "fault_kind": "switch", "fallback": "updn",
        "variants": [
            {"variant": "lr-path", "single_faults": {"switches": 16, "succeeded": 4, "failed": []},
             "points": [{"faults": 1, "success_probability": 0.4, "full_reroutes": 6, "runs_routed": 10,
                         "flows_lost": 30.0, "entries_changed": 12.5, "stretch_mean": 1.1},
                        {"faults": 2, "success_probability": 0.1, "full_reroutes": 3, "runs_routed": 9,
                         "flows_lost": 28.0, "entries_changed": 10.0, "stretch_mean": 1.2}]},
        ],
    }

    def test_one_row_per_point_with_the_single_fault_count(self):
        rows = dqr_summary.rows_of(self.DOC)
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[0]["single_total"], 16)
        self.assertEqual(rows[1]["single_succeeded"], 4)
        self.assertEqual(rows[1]["runs_routed"], 9)
        self.assertEqual(rows[0]["endpoints"], "hca")  # older files without the field

    def test_fault_filter_and_old_link_files(self):
        doc = dict(self.DOC)
        del doc["fault_kind"], doc["fallback"]
        doc["variants"] = [{"variant": "e2e-path", "single_faults": {"links": 24, "succeeded": 24, "failed": []},
                            "points": [{"faults": 1, "success_probability": 1.0},
                                       {"faults": 2, "success_probability": 0.5}]}]
        rows = dqr_summary.rows_of(doc, {2})
        self.assertEqual([r["faults"] for r in rows], [2])
        self.assertEqual(rows[0]["fault_kind"], "link")
        self.assertEqual(rows[0]["full_reroutes"], "")
        self.assertEqual(rows[0]["single_total"], 24)


if __name__ == "__main__":
    unittest.main()
