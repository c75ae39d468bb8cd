#!/usr/bin/env python3
"""scripts/sweep_summary.py against a hand computation."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
import sweep_summary  # noqa: E402


class SweepSummary(unittest.TestCase):
    def test_groups_and_standard_error_by_hand(self):
        rows = [
            {'f': '1', 'x': '1.0', 'exit_code': '0', 'status': 'ok', 'deadlock': 'false'},
            {'f': '1', 'x': '3.0', 'exit_code': '0', 'status': 'ok', 'deadlock': 'true'},
            {'f': '2', 'x': '5.0', 'exit_code': '0', 'status': 'deadlock', 'deadlock': 'true'},
            {'f': '2', 'x': '', 'exit_code': '', 'status': '', 'deadlock': ''},  # unfinished: skipped
        ]
        s = sweep_summary.summarise(rows, ['f'], ['x'])
        self.assertEqual(list(s), [('1',), ('2',)])
        # mean 2, sample sd sqrt(2), se sqrt(2)/sqrt(2) = 1
        self.assertAlmostEqual(s[('1',)]['x'][0], 2.0)
        self.assertAlmostEqual(s[('1',)]['x'][1], 1.0)
        self.assertEqual(s[('1',)]['deadlocked'], 1)
        self.assertEqual(s[('2',)]['runs'], 1)
        self.assertEqual(s[('2',)]['not_ok'], 1)
        self.assertEqual(s[('2',)]['x'], (5.0, 0.0))

    def test_mean_se_of_four(self):
        m, se = sweep_summary.mean_se([2.0, 4.0, 4.0, 6.0])
        self.assertAlmostEqual(m, 4.0)
        self.assertAlmostEqual(se, math.sqrt(8.0 / 3.0 / 4.0))


if __name__ == '__main__':
    unittest.main()
