#!/usr/bin/env python3
"""Group commit and WAL-writer figures from pg_stat_wal counters, real and simulated alike."""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from walsim_repro import wal_counters  # noqa: E402


class FakeSweep:
    """The part of SweepResult the module reads: results.csv rows (strings) of a point."""

    def __init__(self, rows):
        self.rows = rows

    def runs_at(self, point):
        return [r for r in self.rows if all(r.get(k) == str(v) for k, v in point.items())]


def real_run(write, sync, mib, transactions):
    return {"wal": {"wal_write": write, "wal_sync": sync, "wal_bytes": mib * wal_counters.MIB},
            "transactions": transactions}


def sim_row(clients, write, sync, mib, transactions):
    return {"pgbench.clients": str(clients), "wal_write": str(write), "wal_sync": str(sync),
            "wal_bytes": str(mib * wal_counters.MIB), "transactions": str(transactions)}


class Measured(unittest.TestCase):
    def test_medians_of_per_run_ratios(self):
        runs = [real_run(1000, 700, 10, 1000), real_run(1300, 900, 10, 1000), real_run(1100, 800, 20, 1000)]
        self.assertAlmostEqual(wal_counters.measured(runs, wal_counters.SYNC_PER_XACT), 0.8)
        # 100, 130 and 55 writes per MiB: the median is a run's own ratio, not a ratio of medians
        self.assertAlmostEqual(wal_counters.measured(runs, wal_counters.WRITE_PER_MIB), 100.0)
        self.assertAlmostEqual(wal_counters.measured(runs, wal_counters.SYNC_PER_MIB), 70.0)

    def test_a_run_without_wal_has_no_figure(self):
        runs = [real_run(0, 0, 0, 1000)]
        self.assertIsNone(wal_counters.measured(runs, wal_counters.WRITE_PER_MIB))


class Simulated(unittest.TestCase):
    def test_median_and_interval_of_the_mean(self):
        sweep = FakeSweep([sim_row(4, 100, 9, 1, 10), sim_row(4, 100, 10, 1, 10), sim_row(4, 100, 11, 1, 10),
                           sim_row(8, 100, 50, 1, 10)])
        median, lo, hi, n = wal_counters.simulated(sweep, {"pgbench.clients": 4}, wal_counters.SYNC_PER_XACT)
        self.assertEqual(n, 3)
        self.assertAlmostEqual(median, 1.0)
        # mean 1.0, sample standard deviation 0.1, t(2) = 4.303: 1.0 +- 4.303 * 0.1 / sqrt(3)
        self.assertAlmostEqual(lo, 1.0 - 4.303 * 0.1 / 3 ** 0.5)
        self.assertAlmostEqual(hi, 1.0 + 4.303 * 0.1 / 3 ** 0.5)

    def test_one_run_has_no_interval_and_broken_rows_are_skipped(self):
        bad = sim_row(4, 100, 10, 1, 10)
        bad["wal_sync"] = ""
        sweep = FakeSweep([sim_row(4, 100, 10, 1, 10), bad])
        self.assertEqual(wal_counters.simulated(sweep, {"pgbench.clients": 4}, wal_counters.WRITE_PER_MIB),
                         (100.0, None, None, 1))
        self.assertEqual(wal_counters.simulated(sweep, {"pgbench.clients": 2}, wal_counters.WRITE_PER_MIB),
                         (None, None, None, 0))


class Within(unittest.TestCase):
    def comparisons(self, simulated_syncs):
        sweep = FakeSweep([sim_row(4, 100, simulated_syncs, 1, 100)])
        runs = [real_run(100, 50, 1, 100)]
        return [wal_counters.comparison(sweep, {"pgbench.clients": 4}, runs, wal_counters.SYNC_PER_XACT, "c4", 4, "on")]

    def test_passes_inside_the_tolerance_and_fails_outside(self):
        self.assertTrue(wal_counters.within(self.comparisons(54), (wal_counters.SYNC_PER_XACT,), 0.10, "gc").passed)
        failed = wal_counters.within(self.comparisons(56), (wal_counters.SYNC_PER_XACT,), 0.10, "gc")
        self.assertFalse(failed.passed)
        self.assertIn("c4 wal_sync_per_xact (+12.0%)", failed.detail)

    def test_a_point_without_runs_fails(self):
        sweep = FakeSweep([])
        c = wal_counters.comparison(sweep, {"pgbench.clients": 4}, [real_run(100, 50, 1, 100)],
                                    wal_counters.SYNC_PER_XACT, "c4", 4, "on")
        self.assertFalse(wal_counters.within([c], (wal_counters.SYNC_PER_XACT,), 0.10, "gc").passed)

    def test_no_comparisons_is_a_failure_not_a_pass(self):
        self.assertFalse(wal_counters.within([], (wal_counters.SYNC_PER_XACT,), 0.10, "gc").passed)


if __name__ == "__main__":
    unittest.main()
