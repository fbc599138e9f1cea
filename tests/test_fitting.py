#!/usr/bin/env python3
"""The numerics the calibration scripts share (scripts/walsim_repro/fitting.py), and that both
scripts still load with them."""

import importlib.util
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from walsim_repro import fitting  # noqa: E402


class SolveLinear(unittest.TestCase):
    def test_needs_a_row_swap(self):
        x = fitting.solve_linear([[0.0, 2.0], [3.0, 1.0]], [4.0, 5.0])
        self.assertAlmostEqual(x[0], 1.0)
        self.assertAlmostEqual(x[1], 2.0)

    def test_singular_is_refused(self):
        with self.assertRaises(ZeroDivisionError):
            fitting.solve_linear([[1.0, 2.0], [2.0, 4.0]], [1.0, 2.0])


class GaussNewton(unittest.TestCase):
    def test_a_linear_model_is_fitted_in_one_step(self):
        want = [10.0, 20.0]
        f = lambda x: [2 * x[0] + x[1], x[0] + 3 * x[1]]  # noqa: E731
        x = [1.0, 1.0]
        # d(y_i / want_i) / d x_j, exact for a linear model.
        jac = [[2 / 10, 1 / 20], [1 / 10, 3 / 20]]
        cand, yc = fitting.line_search(f, x, f(x), fitting.gauss_newton_step(jac, f(x), want), want, 0.0)
        self.assertLess(fitting.relative_error(yc, want), 1e-20)
        self.assertAlmostEqual(cand[0], 2.0)
        self.assertAlmostEqual(cand[1], 6.0)

    def test_a_step_that_only_worsens_is_halved_down_to_a_sixteenth(self):
        want = [1.0]
        f = lambda x: [x[0] ** 2]  # noqa: E731
        cand, _ = fitting.line_search(f, [1.5], f([1.5]), [3.0], want, 0.0)
        self.assertAlmostEqual(cand[0], 1.5 + 3.0 / 16)

    def test_no_value_falls_below_the_floor(self):
        want = [1.0]
        f = lambda x: [x[0] ** 2]  # noqa: E731
        cand, _ = fitting.line_search(f, [2.0], f([2.0]), [-3.0], want, 0.25)
        self.assertEqual(cand, [0.25])


class Scripts(unittest.TestCase):
    def test_both_calibration_scripts_load(self):
        for name in ("calibrate", "calibrate_local"):
            spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts", name + ".py"))
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self.assertTrue(callable(module.gauss_newton))


class FitSets(unittest.TestCase):
    """calibrate_local.py --fit-set: the fitted 1-client runs are simulated as they were measured
    (e.g. pinned apart), the clock's one-CPU run is not."""

    def test_fit_sets_reach_the_fitted_runs_only(self):
        spec = importlib.util.spec_from_file_location("calibrate_local",
                                                      os.path.join(ROOT, "scripts", "calibrate_local.py"))
        cal = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cal)
        seen = []

        class FakeWalsim:
            def run(self, sync, sets):
                seen.append(dict(sets))
                us = lambda key, default: cal.duration_us(sets[key]) if key in sets else default  # noqa: E731
                ghz = float(sets.get("hardware.cpu.clock", "3GHz").rstrip("GHz"))
                work = 900.0 / ghz
                wake, delay, sync_cpu = (us("hardware.os.idle_wakeup_cpu", 10.0), us("hardware.os.idle_wakeup", 10.0),
                                         us("hardware.os.fdatasync_cpu", 50.0))
                flush = sync_cpu if sync == "on" else 0.0
                return {"latency_us": work + 4 * delay + 2 * wake + 2 * flush,
                        "cpu_us": work + 8 * wake + flush, "active_us": work}

        reference = os.path.join(ROOT, "scenarios", "reference", "local-pg15-f26-pinned.json")
        profile = os.path.join(ROOT, "scenarios", "hardware", "local-2core-f26.json")
        pinned = {"hardware.os.server_cpus": "[1]", "hardware.os.pgbench_cpus": "[0]"}
        cal.fit(FakeWalsim(), True, reference, "F1", profile, clock_from="F2/tpcb-like_c1_syncoff", fit_sets=pinned)
        clock_runs = [s for s in seen if s.get("hardware.cpu.cores_per_socket") == 1]
        fitted_runs = [s for s in seen if "hardware.os.idle_wakeup_cpu" in s]
        self.assertTrue(clock_runs and fitted_runs)
        for s in clock_runs:
            self.assertNotIn("hardware.os.server_cpus", s)
        for s in fitted_runs:
            self.assertEqual({k: s.get(k) for k in pinned}, pinned)


    def test_a_working_set_the_scenario_sets_is_written_there(self):
        import json
        import shutil
        import tempfile
        spec = importlib.util.spec_from_file_location("calibrate_local",
                                                      os.path.join(ROOT, "scripts", "calibrate_local.py"))
        cal = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cal)
        with tempfile.TemporaryDirectory() as tmp:
            profile = shutil.copy(os.path.join(ROOT, "scenarios", "hardware", "local-2core-f26.json"), tmp)
            scenario = shutil.copy(os.path.join(ROOT, "scenarios", "local-pg15-f26-tpcb.json"), tmp)
            shared = open(cal.COSTS).read()
            fitted = {"idle_wakeup_cpu": 11.0, "idle_wakeup": 1.0, "fdatasync_cpu": 80.0, "flush_latency": 100.0,
                      "backend_working_set_kB": 123.4}
            cal.write(fitted, {}, True, profile, scenario)
            self.assertEqual(json.load(open(scenario))["costs"]["backend_working_set"], "123kB")
            self.assertEqual(json.load(open(profile))["os"]["idle_wakeup_cpu"], "11us")
            self.assertEqual(open(cal.COSTS).read(), shared)


class FitRefill(unittest.TestCase):
    """calibrate_local.py --fit-refill: a working set and a refill rate are told apart by how the
    CPU per transaction grows between two client counts on one CPU."""

    def test_the_rate_and_set_a_fake_simulator_used_are_found_again(self):
        import json
        import tempfile
        spec = importlib.util.spec_from_file_location("calibrate_local",
                                                      os.path.join(ROOT, "scripts", "calibrate_local.py"))
        cal = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cal)
        true_kb, true_ns, cache_kb = 120.0, 500.0, 1024.0

        def cpu_us(kb, ns, clients):
            # Each backend refills what the others' sets pushed out (random replacement).
            import math
            return 40.0 + kb * ns / 1000.0 * -math.expm1(-(clients - 1) * kb / cache_kb)

        class FakeWalsim:
            def run(self, sync, sets):
                kb = float(sets["costs.backend_working_set"].rstrip("kB"))
                ns = float(sets["hardware.cpu.cache.refill_per_kB"].rstrip("ns"))
                return {"cpu_us": cpu_us(kb, ns, sets["pgbench.clients"])}

        runs = []
        for clients in (4, 16):
            runs.append({"experiment": "X", "config": f"select-only_c{clients}_syncoff", "script": "select-only",
                         "clients": clients, "synchronous_commit": "off",
                         "cpu": {"busy_cpu_us_per_txn": cpu_us(true_kb, true_ns, clients)}})
        with tempfile.NamedTemporaryFile("w", suffix=".json") as ref:
            json.dump({"runs": runs}, ref)
            ref.flush()
            ns, kb = cal.fit_refill(FakeWalsim(), ref.name, ["X/select-only_c4_syncoff", "X/select-only_c16_syncoff"],
                                    {})
        self.assertAlmostEqual(ns / true_ns, 1.0, delta=0.08)
        self.assertAlmostEqual(kb / true_kb, 1.0, delta=0.08)


if __name__ == "__main__":
    unittest.main()
