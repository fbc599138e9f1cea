#!/usr/bin/env python3
"""Reading the real pgbench runs a local reproduction compares against (reference.LocalRuns)."""

import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from walsim_repro import reference  # noqa: E402


def run(experiment, clients, threads):
    return {"experiment": experiment, "config": f"tpcb_c{clients}", "clients": clients, "threads": threads}


class Jobs(unittest.TestCase):
    def local_runs(self, runs):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"runs": runs}, f)
        self.addCleanup(os.unlink, f.name)
        return reference.LocalRuns(f.name)

    def test_threads_cut_to_the_clients_give_one_jobs_value(self):
        ref = self.local_runs([run("E1", 1, 1), run("E1", 2, 2), run("E1", 16, 2), run("E2", 16, 1)])
        self.assertEqual(ref.jobs("E1"), 2)
        self.assertEqual(ref.jobs("E2"), 1)

    def test_runs_with_different_jobs_are_refused(self):
        ref = self.local_runs([run("E1", 4, 2), run("E1", 8, 1)])
        with self.assertRaisesRegex(ValueError, "E1's runs used different pgbench -j .*tpcb_c8"):
            ref.jobs("E1")

    def test_an_experiment_without_runs_is_refused(self):
        with self.assertRaisesRegex(KeyError, "no runs of E9"):
            self.local_runs([run("E1", 1, 1)]).jobs("E9")

    def test_the_shipped_references(self):
        # local-pg15.json's E1 ran pgbench -j 2; the hold-out and the WAL I/O runs -j 1.
        self.assertEqual(reference.LocalRuns().jobs("E1"), 2)
        for name, experiments in (("local-pg15-holdout.json", ("H1", "H2")), ("local-pg15-wal-io.json", ("W1",))):
            ref = reference.LocalRuns(os.path.join(ROOT, "scenarios", "reference", name))
            for experiment in experiments:
                self.assertEqual(ref.jobs(experiment), 1)


class MigrationsTolerance(unittest.TestCase):
    """local-pg15-migrations compares sizes: within a factor of 3, or 0.05 per transaction near zero."""

    def within(self, simulated, published):
        from walsim_repro.experiments import local_pg15_migrations as m
        from walsim_repro.model import Comparison
        return m._within(Comparison(figure="M1/x", metric=m.MIGRATIONS, published=published, simulated=simulated))

    def test_a_factor_of_three_either_way_passes(self):
        self.assertTrue(self.within(2.9, 1.0))
        self.assertTrue(self.within(0.34, 1.0))

    def test_more_than_a_factor_of_three_fails(self):
        self.assertFalse(self.within(3.2, 1.0))
        self.assertFalse(self.within(0.3, 1.0))

    def test_near_zero_an_absolute_margin_applies(self):
        self.assertTrue(self.within(0.0, 0.01))
        self.assertTrue(self.within(0.06, 0.01))
        self.assertFalse(self.within(0.2, 0.01))

    def test_a_missing_simulation_fails(self):
        self.assertFalse(self.within(None, 0.01))


if __name__ == "__main__":
    unittest.main()
