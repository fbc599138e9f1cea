"""Running `walsim sweep` and reading the folder it writes."""

import csv
import json
import os
import shutil
import statistics
import subprocess

WAIT_PREFIX = "wait."
SAMPLED_PREFIX = "sampled."


class SweepError(RuntimeError):
    """walsim sweep failed; the message says how."""


def _read_csv(path):
    """The rows of a CSV file with a header, as dicts."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _number(text):
    """A CSV cell as a float; None for an empty cell."""
    return float(text) if text not in ("", None) else None


class SweepResult:
    """A finished sweep folder: results.csv (one row per run), summary.csv, manifest.json."""

    def __init__(self, folder):
        self.folder = folder
        self.rows = _read_csv(os.path.join(folder, "results.csv"))
        self.summary = _read_csv(os.path.join(folder, "summary.csv"))
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            self.manifest = json.load(f)

    @property
    def walsim_version(self):
        """The walsim that ran the sweep."""
        return self.manifest.get("walsim", "")

    @staticmethod
    def _matches(row, point):
        """True when the row has the point's value for every key."""
        return all(row.get(k) == str(v) for k, v in point.items())

    def runs_at(self, point):
        """The results.csv rows of a point, given as {"pgbench.clients": 4, ...}."""
        return [r for r in self.rows if self._matches(r, point)]

    def summary_at(self, point):
        """The summary.csv row of a point, or None."""
        found = [r for r in self.summary if self._matches(r, point)]
        return found[0] if found else None

    def values(self, point, metric):
        """The metric over the point's finished replications."""
        return [v for v in (_number(r.get(metric)) for r in self.runs_at(point)) if v is not None]

    def median(self, point, metric):
        """Median of the metric over the point's replications, or None."""
        values = self.values(point, metric)
        return statistics.median(values) if values else None

    def summary_figures(self, point, metric):
        """(median, ci_low, ci_high, n) of summary.csv for a metric it summarises."""
        row = self.summary_at(point) or {}
        return (_number(row.get(metric + "_median")), _number(row.get(metric + "_ci_low")),
                _number(row.get(metric + "_ci_high")), int(row.get("n") or 0))

    def median_wait_shares(self, point, prefix=WAIT_PREFIX):
        """Median share of active time of every wait event over the point's replications (a run
        that never showed an event counts 0 for it); with prefix SAMPLED_PREFIX, the share of the
        active backends' reads of a pg_stat_activity sampler instead."""
        rows = self.runs_at(point)
        if not rows:
            return {}
        events = [c[len(prefix):] for c in rows[0] if c.startswith(prefix)]
        return {e: statistics.median(_number(r[prefix + e]) or 0.0 for r in rows) for e in events}


class CasesResult(SweepResult):
    """The sweeps of a SweepSpec's cases (one folder each under folder), read as one: every
    case's runs and summary rows together. The cases must vary the same keys."""

    def __init__(self, folder, parts):  # the parts are read already: no folder of its own to read
        self.folder = folder
        self.parts = parts
        self.rows = [r for p in parts for r in p.rows]
        self.summary = [r for p in parts for r in p.summary]
        self.manifest = parts[0].manifest if parts else {}


def _case_spec(spec, sets):
    """The plain SweepSpec of one case: its KEY=VALUEs become one-value axes."""
    return type(spec)(vary=list(sets) + list(spec.vary), repeat=spec.repeat, sets=list(spec.sets))


def run_cases(walsim, scenario, spec, folder, jobs=None, fresh=True, quiet=False):
    """Runs each case of spec.cases as its own sweep in folder/NAME; returns a CasesResult."""
    if fresh and os.path.isdir(folder):
        # Case sweeps, or one plain sweep of the same experiment from before it had cases.
        if not _is_sweep_folder(folder) and any(not _is_sweep_folder(os.path.join(folder, d))
                                                for d in os.listdir(folder)):
            raise SweepError(f"{folder} holds something other than case sweeps; not deleting it")
        shutil.rmtree(folder)
    parts = [run_sweep(walsim, scenario, _case_spec(spec, sets), os.path.join(folder, name), jobs, fresh, quiet)
             for name, sets in spec.cases.items()]
    return CasesResult(folder, parts)


def _is_sweep_folder(folder):
    """True when folder holds a walsim sweep (its manifest)."""
    return os.path.isfile(os.path.join(folder, "manifest.json"))


def run_sweep(walsim, scenario, spec, folder, jobs=None, fresh=True, quiet=False):
    """Runs the sweep into folder and returns its SweepResult.

    fresh: start from an empty folder (the default), so that the report reflects this walsim
    and this scenario; otherwise resume what the folder holds.
    """
    if getattr(spec, "cases", None):
        return run_cases(walsim, scenario, spec, folder, jobs, fresh, quiet)
    if fresh and os.path.isdir(folder):
        if not _is_sweep_folder(folder) and os.listdir(folder):
            raise SweepError(f"{folder} exists and is not a sweep folder; not deleting it")
        shutil.rmtree(folder)
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    cmd = [walsim, "sweep", scenario, "--repeat", str(spec.repeat), "--out", folder]
    for v in spec.vary:
        cmd += ["--vary", v]
    for s in spec.sets:
        cmd += ["--set", s]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    if quiet:
        cmd.append("--quiet")
    status = subprocess.run(cmd, check=False).returncode
    if status == 130:
        raise KeyboardInterrupt
    if status != 0:
        raise SweepError(f"walsim sweep exited with status {status}: " + " ".join(cmd))
    return SweepResult(folder)
