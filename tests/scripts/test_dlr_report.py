#!/usr/bin/env python3
"""scripts/dlr_report.py on a hand-made sweep tree: the table cells are the
mean ± standard error derived by hand, and --draws keeps fault draws 1..N
(or, with 'complete', the draws every point of a sweep has finished)."""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts', 'dlr_report.py')
FIELDS = ['run', 'topology', 'traffic.load', 'faults.random_links', 'faults.random_seed', 'exit_code',
          'accepted_load', 'deadlock']


def write_sweep(folder, rows):
    os.makedirs(folder)
    with open(os.path.join(folder, 'results.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        for i, (faults, seed, accepted, deadlock) in enumerate(rows):
            if accepted is None:  # not finished: no exit code, no results
                w.writerow([i, 'kary-ntree:4,3', '0.7', faults, seed, '', '', ''])
            else:
                w.writerow([i, 'kary-ntree:4,3', '0.7', faults, seed, 0, accepted, 'true' if deadlock else 'false'])


class DlrReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        prefix = os.path.join(self.tmp.name, 'dlr')
        # DDLR, 1 fault: draws 0.5, 0.6, 0.7 -> mean 0.6, sd 0.1, SE 0.1/sqrt(3) = 0.0577;
        # draws 1..2: 0.5, 0.6 -> mean 0.55, sd 0.0707, SE 0.05.
        write_sweep(prefix + '-ddlr', [(0, s, 0.62, False) for s in (1, 2, 3)] +
                    [(1, 1, 0.5, False), (1, 2, 0.6, False), (1, 3, 0.7, False)])
        # ADLR, 1 fault: the third draw deadlocks (accepted 0.1): mean 0.4, deviations
        # 0.2, 0.1, -0.3, sample variance 0.14 / 2 = 0.07, SE sqrt(0.07 / 3) = 0.1528.
        write_sweep(prefix + '-adlr', [(0, s, 0.58, False) for s in (1, 2, 3)] +
                    [(1, 1, 0.6, False), (1, 2, 0.5, False), (1, 3, 0.1, True)])
        write_sweep(prefix + '-ddrc', [(0, s, 0.62, False) for s in (1, 2, 3)] +
                    [(1, s, 0.47, False) for s in (1, 2, 3)])
        self.prefix = prefix

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *extra):
        out = subprocess.run([sys.executable, SCRIPT, self.prefix, *extra], capture_output=True, text=True)
        return out.returncode, out.stdout + out.stderr

    def row(self, text, mech):
        return next(line for line in text.splitlines() if line.startswith(f'| 0.7 | {mech} |'))

    def test_all_draws(self):
        rc, text = self.report()
        self.assertEqual(rc, 0, text)
        self.assertIn('DDLR: runs per point 3', text)
        self.assertEqual(self.row(text, 'DDLR'), '| 0.7 | DDLR | 0.620 ± 0.000 | 0.600 ± 0.058 |')
        self.assertEqual(self.row(text, 'ADLR'), '| 0.7 | ADLR | 0.580 ± 0.000 | 0.400 ± 0.153 (1 dl) |')
        self.assertEqual(self.row(text, 'DDRC'), '| 0.7 | DDRC | 0.620 ± 0.000 | 0.470 ± 0.000 |')

    def test_first_draws_only(self):
        rc, text = self.report('--draws', '2')
        self.assertEqual(rc, 0, text)
        self.assertIn('ADLR: runs per point 2', text)
        self.assertEqual(self.row(text, 'DDLR'), '| 0.7 | DDLR | 0.620 ± 0.000 | 0.550 ± 0.050 |')
        self.assertEqual(self.row(text, 'ADLR'), '| 0.7 | ADLR | 0.580 ± 0.000 | 0.550 ± 0.050 |')

    def test_complete_draws_per_mechanism(self):
        # A grid still running: DDLR's 1-fault point has not finished draw 3
        # (no exit code), so DDLR keeps draws 1..2 at every point (0.55 ± 0.05
        # as above); ADLR and DDRC have finished all 3 draws and keep them.
        prefix = os.path.join(self.tmp.name, 'run')
        write_sweep(prefix + '-ddlr', [(0, s, 0.62, False) for s in (1, 2, 3)] +
                    [(1, 1, 0.5, False), (1, 2, 0.6, False), (1, 3, None, False)])
        write_sweep(prefix + '-adlr', [(0, s, 0.58, False) for s in (1, 2, 3)] +
                    [(1, 1, 0.6, False), (1, 2, 0.5, False), (1, 3, 0.1, True)])
        write_sweep(prefix + '-ddrc', [(0, s, 0.62, False) for s in (1, 2, 3)] +
                    [(1, s, 0.47, False) for s in (1, 2, 3)])
        out = subprocess.run([sys.executable, SCRIPT, prefix, '--draws', 'complete'], capture_output=True, text=True)
        text = out.stdout + out.stderr
        self.assertEqual(out.returncode, 0, text)
        self.assertIn('DDLR: runs per point 2\n', text)
        self.assertIn('ADLR: runs per point 3\n', text)
        self.assertEqual(self.row(text, 'DDLR'), '| 0.7 | DDLR | 0.620 ± 0.000 | 0.550 ± 0.050 |')
        self.assertEqual(self.row(text, 'ADLR'), '| 0.7 | ADLR | 0.580 ± 0.000 | 0.400 ± 0.153 (1 dl) |')

    def test_plot_names_carry_the_load_with_two_decimals(self):
        # The CSV writes the load as 0.7; the docs link ...-0.70.png.
        img = os.path.join(self.tmp.name, 'img')
        os.makedirs(img)
        rc, text = self.report(img)
        self.assertEqual(rc, 0, text)
        self.assertEqual(sorted(os.listdir(img)), ['dlr-throughput-4-ary-3-0.70.png'])

    def test_deadlock_folder_alone_prints_its_table(self):
        # PREFIX-adlr-deadlock with no throughput folders beside it: 4 runs at
        # 10 faults, one deadlocked -> 1 of 4, 0.250; accepted (0.4 + 0.4 + 0.4 + 0.2) / 4 = 0.350.
        # Exact one-sided 95% upper bound for 1 of 4: (1-p)^4 + 4p(1-p)^3 = 0.05
        # at p = 0.7514 (0.2486^4 = 0.00382, 4 x 0.7514 x 0.2486^3 = 0.04618).
        # Two runs at 7 faults, none deadlocked: 1 - 0.05^(1/2) = 0.776.
        prefix = os.path.join(self.tmp.name, 'long', 'dlr')
        runs = ((10, 0.4, False), (10, 0.4, False), (10, 0.4, False), (10, 0.2, True),
                (7, 0.5, False), (7, 0.3, False))
        for i, (faults, accepted, deadlock) in enumerate(runs):
            run = os.path.join(prefix + '-adlr-deadlock', f'run_{i:04d}')
            os.makedirs(run)
            with open(os.path.join(run, 'stats.json'), 'w') as f:
                json.dump({'config': {'faults': {'random_links': faults},
                                      'sim': {'warmup_cycles': 0, 'measure_cycles': 200000}},
                           'deadlock': deadlock, 'accepted_load': accepted}, f)
        out = subprocess.run([sys.executable, SCRIPT, prefix], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('ADLR deadlock, runs of 200,000 cycles', out.stdout)
        self.assertIn('| 10 | 4 | 1 | 0.250 (< 0.75) | 0.350 |', out.stdout)
        self.assertIn('| 7 | 2 | 0 | 0 (< 0.78) | 0.400 |', out.stdout)
        self.assertNotIn('DDLR', out.stdout)

    def test_discards_pair_the_hybrid_with_its_base_over_common_draws(self):
        # ADLR loses 10, 12, 9 at draws 1..3 (and 100 at draw 4, which the
        # hybrid has not finished: not paired); the ADLR hybrid 12, 11, 14.
        # Differences 2, -1, 5: mean 2.0, deviations 0, -3, 3, sample variance
        # 18 / 2 = 9, SE sqrt(9 / 3) = 1.732; 2 draws more, 1 fewer, 0 equal.
        prefix = os.path.join(self.tmp.name, 'loss', 'dlr')
        runs = [(False, 1, 10), (False, 2, 12), (False, 3, 9), (False, 4, 100),
                (True, 1, 12), (True, 2, 11), (True, 3, 14)]
        for i, (hybrid, seed, dropped) in enumerate(runs):
            run = os.path.join(prefix + '-discards', f'run_{i:04d}')
            os.makedirs(run)
            with open(os.path.join(run, 'stats.json'), 'w') as f:
                json.dump({'config': {'routing': 'adlr', 'ddrc': {'enabled': hybrid},
                                      'faults': {'random_seed': seed}},
                           'packets': {'dropped': dropped}, 'accepted_load': 0.5,
                           'dropped_by_reason': {'link_failure': dropped, 'no_route': 0,
                                                 'reroute_discarded': 0}}, f)
        out = subprocess.run([sys.executable, SCRIPT, prefix], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('ADLR + DDRC (hybrid) - ADLR, paired over 3 draws: 2.0 ± 1.7 packets per fault '
                      '(2 draws more, 1 fewer, 0 equal)', out.stdout)
        self.assertNotIn('DDLR + DDRC (hybrid) - DDLR', out.stdout)

    def test_draws_must_be_a_count_or_complete(self):
        rc, text = self.report('--draws', 'all')
        self.assertNotEqual(rc, 0)
        self.assertIn("--draws must be a count of at least 1 or 'complete'", text)

    def test_draws_below_one_is_an_error_that_names_the_option(self):
        rc, text = self.report('--draws', '0')
        self.assertNotEqual(rc, 0)
        self.assertIn('--draws must be at least 1', text)

    def test_missing_sweep_folder_names_it(self):
        out = subprocess.run([sys.executable, SCRIPT, self.prefix + 'x'], capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn(f'no {self.prefix}x-ddlr/results.csv', out.stderr)


if __name__ == '__main__':
    unittest.main()
