#!/usr/bin/env python3
"""The intervals that say whether a reproduction check's verdict is settled by its replications."""

import math
import os
import random
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from walsim_repro import effects  # noqa: E402
from walsim_repro.model import Check, Comparison  # noqa: E402
from walsim_repro.report import _check_count  # noqa: E402


class StudentT(unittest.TestCase):
    def test_table_values_and_fractional_degrees(self):
        self.assertAlmostEqual(effects.t975(2), 4.303)
        self.assertAlmostEqual(effects.t975(2.9), 4.303)  # rounded down: the wider interval
        self.assertAlmostEqual(effects.t975(30), 2.042)
        self.assertAlmostEqual(effects.t975(60), 2.000, delta=0.002)
        self.assertAlmostEqual(effects.t975(1000), 1.962, delta=0.002)
        with self.assertRaises(ValueError):
            effects.t975(0.5)


class MedianInterval(unittest.TestCase):
    def test_median_and_the_mean_interval(self):
        self.assertEqual(effects.median_interval([]), (None, None, None))
        self.assertEqual(effects.median_interval([5.0]), (5.0, None, None))
        median, lo, hi = effects.median_interval([90.0, 100.0, 140.0])
        self.assertEqual(median, 100.0)  # the median, while the interval is around the mean, 110
        half = 4.303 * math.sqrt(700.0) / math.sqrt(3)
        self.assertAlmostEqual(lo, 110.0 - half)
        self.assertAlmostEqual(hi, 110.0 + half)


class RatioInterval(unittest.TestCase):
    def test_needs_two_replications_and_positive_means(self):
        self.assertIsNone(effects.ratio_interval([1.0], [1.0, 2.0]))
        self.assertIsNone(effects.ratio_interval([1.0, 2.0], [0.0, 0.0]))

    def test_identical_runs_give_a_point(self):
        self.assertEqual(effects.ratio_interval([3.0, 3.0], [2.0, 2.0]), (1.5, 1.5))

    def test_worked_example(self):
        # mean 100 with sample variance 100 over 3 runs, against a constant 100: relative standard
        # error sqrt(100 / 3) / 100, all of it from a, so Welch's df is a's own 2 (t = 4.303).
        lo, hi = effects.ratio_interval([110.0, 100.0, 90.0], [100.0, 100.0, 100.0])
        half = 4.303 * math.sqrt(100 / 3) / 100
        self.assertAlmostEqual(lo, math.exp(-half), places=9)
        self.assertAlmostEqual(hi, math.exp(half), places=9)

    def test_covers_the_true_ratio_about_95_percent_of_the_time(self):
        rng = random.Random(7)
        trials, covered = 2000, 0
        for _ in range(trials):
            a = [rng.gauss(120.0, 6.0) for _ in range(4)]
            b = [rng.gauss(100.0, 2.0) for _ in range(3)]
            lo, hi = effects.ratio_interval(a, b)
            covered += lo <= 1.2 <= hi
        self.assertGreater(covered / trials, 0.92)
        self.assertLess(covered / trials, 0.99)


class Verdicts(unittest.TestCase):
    def test_an_interval_across_the_threshold_leaves_the_verdict_open(self):
        text, settled = effects.qualify((1.1, 1.3), [1.2], lambda r: f"{r:.2f}", "3 and 3 runs")
        self.assertFalse(settled)
        self.assertIn("1.10 to 1.30 over 3 and 3 runs", text)
        self.assertIn("spans the threshold 1.20", text)

    def test_an_interval_clear_of_every_threshold_settles_it(self):
        text, settled = effects.qualify((1.05, 1.08), [0.97, 1.03], str, "2 and 2 runs")
        self.assertTrue(settled)
        self.assertNotIn("spans", text)

    def test_no_interval_no_verdict_on_it(self):
        self.assertEqual(effects.qualify(None, [1.0], str, "1 run"), ("", None))

    def test_a_settled_failure_settles_an_all_points_check(self):
        self.assertTrue(effects.combine([(False, True), (True, False)]))
        self.assertFalse(effects.combine([(True, True), (False, False)]))
        self.assertTrue(effects.combine([(True, True), (True, True)]))
        self.assertIsNone(effects.combine([(True, None), (True, True)]))


def comparison(published, median, lo, hi):
    return Comparison(figure=f"p{published}", metric="tps", published=published, simulated=median, ci_low=lo,
                      ci_high=hi, n=3)


class WithinTolerance(unittest.TestCase):
    def test_a_point_whose_interval_reaches_a_bound_is_named(self):
        text, settled = effects.within_tolerance([comparison(100, 112, 105, 118), comparison(100, 101, 99, 103)],
                                                 0.15)
        self.assertFalse(settled)
        self.assertIn("p100 (105 to 118)", text)

    def test_points_clear_of_the_bounds_settle_it(self):
        self.assertEqual(effects.within_tolerance([comparison(100, 101, 99, 103)], 0.15), ("", True))
        self.assertEqual(effects.within_tolerance([comparison(100, 130, 125, 135), comparison(100, 112, 105, 118)],
                                                  0.15)[1], True)  # one clear miss settles the FAIL

    def test_without_intervals_it_says_nothing(self):
        self.assertEqual(effects.within_tolerance([comparison(100, 101, None, None)], 0.15), ("", None))


class Report(unittest.TestCase):
    def test_the_check_count_says_how_many_verdicts_are_open(self):
        checks = [Check("a", True, "", True), Check("b", False, "", False), Check("c", False, "")]
        self.assertEqual(_check_count(checks), "1 of 3 pass (1 not settled by the replications: the 95% "
                                               "interval of the effect spans the threshold)")
        self.assertEqual(_check_count(checks[:1]), "1 of 1 pass")


if __name__ == "__main__":
    unittest.main()
