#!/usr/bin/env python3
"""scripts/inodes_report.py on a hand-made Figure 9 sweep tree: a cell is
the mean over fault draws of each draw's best accepted load over the offered
loads, ± the sample sd or the standard error (derived by hand below); the
odd-count folder merges in; --draws keeps draws 1..N or the draws every
point of a panel has finished."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts', 'inodes_report.py')
FIELDS = ['run', 'routing', 'traffic.load', 'faults.random_links', 'faults.random_seed', 'exit_code', 'status',
          'accepted_flits_per_cycle', 'deadlock']
ROUTING = 'inodes:I+D'


def write_sweep(folder, rows):
    """rows: (faults, seed, load, accepted); accepted None = not run yet."""
    os.makedirs(folder)
    with open(os.path.join(folder, 'results.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        for i, (faults, seed, load, accepted) in enumerate(rows):
            if accepted is None:
                w.writerow([i, ROUTING, load, faults, seed, '', 'not_run', '', ''])
            else:
                w.writerow([i, ROUTING, load, faults, seed, 0, 'ok', accepted, 'false'])


class InodesReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        # 0 faults: draws 1..3 peak at 480 (load 1.0; load 0.7 gives 350).
        # 2 faults: best per draw max(300, 470) = 470, max(460, 300) = 460,
        # max(450, 300) = 450 -> mean 460, sd 10, SE 10 / sqrt(3) = 5.77.
        even = []
        for seed in (1, 2, 3):
            even += [(0, seed, 0.7, 350.0), (0, seed, 1.0, 480.0)]
        even += [(2, 1, 0.7, 300.0), (2, 1, 1.0, 470.0), (2, 2, 0.7, 460.0), (2, 2, 1.0, 300.0),
                 (2, 3, 0.7, 450.0), (2, 3, 1.0, 300.0)]
        write_sweep(os.path.join(self.dir, 'fig-5vc'), even)
        # 1 fault (odd folder): 476, 472, 474 -> mean 474, sd 2, SE 1.15.
        odd = []
        for seed, best in ((1, 476.0), (2, 472.0), (3, 474.0)):
            odd += [(1, seed, 0.7, 340.0), (1, seed, 1.0, best)]
        write_sweep(os.path.join(self.dir, 'fig-5vc-odd'), odd)

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, prefix='fig', *extra):
        out = subprocess.run([sys.executable, SCRIPT, self.dir, prefix, *extra], capture_output=True, text=True)
        return out.returncode, out.stdout + out.stderr

    @staticmethod
    def row(text):
        return next(line for line in text.splitlines() if line.startswith(f'| {ROUTING} |'))

    def test_sample_sd_and_odd_counts_merged(self):
        rc, text = self.report()
        self.assertEqual(rc, 0, text)
        self.assertIn('| routing | 0 | 1 | 2 | last / fault-free |', text)
        # last / fault-free = 460 / 480 = 95.8%
        self.assertEqual(self.row(text), f'| {ROUTING} | 480.0 ± 0.0 | 474.0 ± 2.0 | 460.0 ± 10.0 | 95.8% |')
        self.assertIn('fault draws per point: 3\n', text)
        self.assertNotIn('Exhaustive', text)  # no analyser JSON in DIR: those tables are left out

    def test_standard_error(self):
        rc, text = self.report('fig', '--error', 'se')
        self.assertEqual(rc, 0, text)
        self.assertIn('standard error', text)
        self.assertEqual(self.row(text), f'| {ROUTING} | 480.0 ± 0.0 | 474.0 ± 1.2 | 460.0 ± 5.8 | 95.8% |')

    def test_first_draws_only(self):
        # Draws 1..2: 2 faults 470, 460 -> 465 ± 7.1 (sd); 1 fault 476, 472 -> 474 ± 2.8.
        rc, text = self.report('fig', '--draws', '2')
        self.assertEqual(rc, 0, text)
        self.assertIn('fault draws per point: 2\n', text)
        self.assertEqual(self.row(text), f'| {ROUTING} | 480.0 ± 0.0 | 474.0 ± 2.8 | 465.0 ± 7.1 | 96.9% |')

    def test_complete_draws_of_a_running_grid(self):
        # Draw 3 of the 1-fault point (odd folder) has run at load 0.7 only:
        # the panel keeps draws 1..2 everywhere, as --draws 2.
        odd = os.path.join(self.dir, 'run-5vc-odd')
        rows = []
        for seed, best in ((1, 476.0), (2, 472.0)):
            rows += [(1, seed, 0.7, 340.0), (1, seed, 1.0, best)]
        rows += [(1, 3, 0.7, 340.0), (1, 3, 1.0, None)]
        write_sweep(odd, rows)
        os.symlink(os.path.join(self.dir, 'fig-5vc'), os.path.join(self.dir, 'run-5vc'))
        rc, text = self.report('run', '--draws', 'complete')
        self.assertEqual(rc, 0, text)
        self.assertIn('fault draws per point: 2\n', text)
        self.assertEqual(self.row(text), f'| {ROUTING} | 480.0 ± 0.0 | 474.0 ± 2.8 | 465.0 ± 7.1 | 96.9% |')

    def test_bad_draws_names_the_option(self):
        rc, text = self.report('fig', '--draws', '0')
        self.assertNotEqual(rc, 0)
        self.assertIn('--draws must be at least 1', text)

    def test_missing_sweep_folders_are_named(self):
        rc, text = self.report('nothing')
        self.assertNotEqual(rc, 0)
        self.assertIn('nothing-{5vc,4vc,bgl}/results.csv', text)


if __name__ == '__main__':
    unittest.main()
