#!/usr/bin/env python3
"""measure_pgbench's --guc axis, and how local-pg15-commit-delay pairs the runs it measured."""

import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import measure_pgbench  # noqa: E402
from walsim_repro.experiments import local_pg15_commit_delay as cd  # noqa: E402


class GucAxis(unittest.TestCase):
    def test_a_setting_and_its_values(self):
        self.assertEqual(measure_pgbench.parse_guc("commit_delay=0,200,1000"), ("commit_delay", ["0", "200", "1000"]))

    def test_malformed_axes_are_refused(self):
        for bad in ("commit_delay", "commit_delay=", "=1,2", "Commit-Delay=1", "commit_delay=1;drop table x"):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                measure_pgbench.parse_guc(bad)

    def test_point_names_end_in_each_setting(self):
        self.assertEqual(measure_pgbench.config_name("tpcb-like", 8, "on", None, {"commit_delay": "200"}),
                         "tpcb-like_c8_syncon_commit_delay200")
        self.assertEqual(measure_pgbench.config_name("tpcb-like", 8, "on", 2, {}), "tpcb-like_c8_syncon_j2")


def run(delay, rep, tps, syncs, txns=1000):
    return {"experiment": "D1", "config": f"tpcb-like_c8_syncon_commit_delay{delay}", "clients": 8, "threads": 2,
            "repetition": rep, "gucs": {"commit_delay": str(delay)}, "tps": tps, "transactions": txns,
            "wal": {"wal_sync": syncs, "wal_write": syncs, "wal_bytes": 1}}


class CommitDelayPairs(unittest.TestCase):
    def setUp(self):
        runs = [run(0, 1, 100, 500), run(1000, 1, 90, 300),  # a fast repetition
                run(0, 2, 50, 500), run(1000, 2, 40, 250),   # a slow one
                run(0, 3, 80, 500), run(1000, 3, 76, 350)]
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"runs": runs}, f)
        self.addCleanup(os.unlink, f.name)
        saved = cd.REFERENCE
        cd.REFERENCE = f.name
        self.addCleanup(setattr, cd, "REFERENCE", saved)

    def test_each_delayed_run_is_compared_with_the_undelayed_run_of_its_repetition(self):
        # Ratios 0.9, 0.8, 0.95: the median is 0.9, where the ratio of the medians would be 0.95.
        self.assertAlmostEqual(cd._measured_ratio(8, 1000, cd._tps), 0.9)
        self.assertAlmostEqual(cd._measured_ratio(8, 1000, cd._syncs), 0.6)
        self.assertEqual(cd._delays(), [0, 1000])
        self.assertEqual(cd._clients(), [8])

    def test_the_delay_can_act_only_with_commit_siblings_others(self):
        self.assertFalse(cd._checked(4))
        self.assertFalse(cd._checked(5))
        self.assertTrue(cd._checked(6))


if __name__ == "__main__":
    unittest.main()
