#!/usr/bin/env python3
"""The known-gaps file of scripts/reproduce: which checks are expected to fail in which mode; and
its --only option."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from walsim_repro import cli  # noqa: E402
from walsim_repro.cli import load_known_gaps  # noqa: E402


def gaps_of(data, mode):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(data, f)
    try:
        return load_known_gaps(f.name, mode)
    finally:
        os.unlink(f.name)


class KnownGaps(unittest.TestCase):
    def test_a_plain_reason_holds_in_both_modes(self):
        data = {"_about": "comment", "exp": {"check": "why"}}
        self.assertEqual(gaps_of(data, "quick"), {"exp": {"check": "why"}})
        self.assertEqual(gaps_of(data, "full"), {"exp": {"check": "why"}})

    def test_a_mode_keyed_reason_holds_in_its_modes_only(self):
        data = {"exp": {"a": {"full": "settles in long runs"}, "b": {"quick": "noisy"},
                        "c": {"quick": "q", "full": "f"}}}
        self.assertEqual(gaps_of(data, "full"), {"exp": {"a": "settles in long runs", "c": "f"}})
        self.assertEqual(gaps_of(data, "quick"), {"exp": {"b": "noisy", "c": "q"}})

    def test_malformed_entries_are_rejected_with_the_expected_shape(self):
        for bad in ({"exp": {"check": {"fulll": "typo"}}}, {"exp": {"check": {}}}, {"exp": {"check": 3}},
                    {"exp": ["check"]}, ["exp"], {"exp": {"check": {"full": 1}}}):
            with self.assertRaises(ValueError) as e:
                gaps_of(bad, "full")
            self.assertIn("expected {experiment id: {check name: reason}}", str(e.exception))

    def test_the_shipped_file_loads_in_both_modes(self):
        path = os.path.join(ROOT, "tests", "known_gaps.json")
        for mode in ("quick", "full"):
            gaps = load_known_gaps(path, mode)
            self.assertTrue(gaps)
            self.assertTrue(all(isinstance(r, str) and r for checks in gaps.values() for r in checks.values()))


class OnlyOption(unittest.TestCase):
    def test_commas_and_repeats_name_several_experiments(self):
        args = cli.parse_args(["--only", "a,b", "--only", "c"], ["a", "b", "c", "d"])
        self.assertEqual(args.only, ["a", "b", "c"])

    def test_an_unknown_one_is_a_usage_error(self):
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
            cli.parse_args(["--only", "a,x"], ["a", "b"])
        self.assertEqual(e.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
