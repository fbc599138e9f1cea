"""hint-bit-io-2011: the first scans of a freshly loaded table ("Re: limiting hint bit I/O",
pgsql-hackers, January-February 2011).

`create table s as select g, random()::text||... from generate_series(1,1000000) g; checkpoint;`
then `select sum(1) from s` over and over. The first scan sets a hint bit on every tuple, so every
page it reads is dirtied and, as the bulk-read ring comes round, written back. The thread's
patch writes pages dirtied only by hint bits at a bounded rate, so scans get faster run by run
until all hint bits are on disk. Before the January 2011 fsync-queue compaction commit, the
first scan also made the backend fsync the table itself.

The sweep crosses the hint-bit I/O policy, fsync queue compaction and a VACUUM before the scans;
each run is one series of as many scans as the published patched series has. The figures per
scan come from the runs' JSON (passes[]); the published ones from experiments.json. The
acceptance criteria are those of issue 5: unpatched, first scan >= 1.5x the steady state; patched,
first scan within 1.1-1.45x, times falling run by run until hint-bit writes stop, within 5 runs
of the published run; steady state within 20% of the published; VACUUM first: no first-scan
penalty. The "before compaction" case is compared but not checked.
"""

import json
import os
import re
import statistics

from .. import reference
from ..model import Check, Comparison, SweepSpec
from ..report import figure

ID = "hint-bit-io-2011"
TITLE = "first scans of a freshly loaded table: hint-bit I/O unlimited or limited, fsync queue compaction (2011)"
SCENARIO = "scenarios/hint-bit-io-2011.json"
CHART = ("run (scan number)", False)

UNPATCHED = "unpatched (after compaction)"
PATCHED = "hint-bit I/O limited (patch)"
BEFORE = "unpatched, before fsync queue compaction"
VACUUM = "VACUUM before the scans"
# Each case: its sweep point (results.csv values) and its published figures in results_ms.
CASES = {
    UNPATCHED: ({"policies.hint_bit_io": "unlimited", "policies.fsync_queue_compaction": "true",
                 "scan.vacuum_first": "false"}, "unpatched_after_compaction"),
    PATCHED: ({"policies.hint_bit_io": "limited", "policies.fsync_queue_compaction": "true",
               "scan.vacuum_first": "false"}, "patched_series"),
    BEFORE: ({"policies.hint_bit_io": "unlimited", "policies.fsync_queue_compaction": "false",
              "scan.vacuum_first": "false"}, "before_fsync_queue_compaction"),
    VACUUM: ({"policies.hint_bit_io": "unlimited", "policies.fsync_queue_compaction": "true",
              "scan.vacuum_first": "true"}, None),
}
FIRST_MIN_UNPATCHED = 1.5
FIRST_RANGE_PATCHED = (1.1, 1.45)
STOP_RUN_TOLERANCE = 5
STEADY_TOLERANCE = 0.20
VACUUM_FIRST_MAX = 1.05


def _published():
    return reference.published_experiment(ID)


def _results():
    return _published()["results_ms"]


def _published_stop_run():
    """'from run N on no further data is flushed', as the findings state it."""
    for finding in _published()["findings"]:
        m = re.search(r"from run ([0-9]+) on", finding)
        if m:
            return int(m.group(1))
    raise KeyError(f"{reference.EXPERIMENTS}: no 'from run N on' in the findings of {ID}")


def sweep(quick):
    """One run per case: the model is deterministic, replications would repeat it exactly."""
    scans = len(_results()["patched_series"])
    return SweepSpec(vary=["policies.hint_bit_io=unlimited,limited", "policies.fsync_queue_compaction=true,false",
                           "scan.vacuum_first=false,true"], repeat=1, sets=[f"scan.scans={scans}"])


def _scans(sim, case):
    """The scans of the case's run (its passes of kind "scan"), or [] when it did not run."""
    rows = sim.runs_at(CASES[case][0])
    if not rows:
        return []
    with open(os.path.join(sim.folder, "runs", rows[0]["run_id"] + ".json"), encoding="utf-8") as f:
        return [p for p in json.load(f)["passes"] if p["kind"] == "scan"]


def _times(sim, case):
    return [p["time_ms"] for p in _scans(sim, case)]


def _stop_run(scans):
    """The first scan from which on no scan writes a page dirtied only by hint bits."""
    stop = None
    for p in reversed(scans):
        if p["hint_bits"]["hint_writes"] > 0:
            break
        stop = p["run"]
    return stop


def _steady(times, first_steady_run=2):
    """Median scan time from first_steady_run on."""
    tail = times[first_steady_run - 1:]
    return statistics.median(tail) if tail else None


def _published_steady(case):
    """The published steady state: the mean of the reported subsequent runs, or, for the
    patched series, the median of its runs from the one where writes stop."""
    published = _results()[CASES[case][1]]
    if isinstance(published, dict):
        return statistics.mean(published["subsequent"])
    return statistics.median(published[_published_stop_run() - 1:])


def _series(sim, case, metric):
    """Per-run comparisons; where the thread gives a range for the later runs, its middle."""
    published = _results()[CASES[case][1]]
    out = []
    for run, sim_ms in enumerate(_times(sim, case), start=1):
        if isinstance(published, list):
            if run > len(published):
                break
            pub, what = published[run - 1], f"run {run}"
        elif run == 1:
            pub, what = published["first"], "run 1"
        else:
            lo, hi = min(published["subsequent"]), max(published["subsequent"])
            pub, what = (lo + hi) / 2, f"run {run} (published: later runs {figure(lo)}-{figure(hi)} ms)"
        out.append(Comparison(figure=f"{case}, {what}", metric=metric, published=pub, simulated=sim_ms, n=1,
                              x=run, series=case))
    return out


def compare(sim):
    """Scan times run by run (before compaction on a chart of its own: its first scan is off the
    others' scale), first-to-steady ratios, steady states and the run where hint-bit writes stop."""
    out = _series(sim, UNPATCHED, "scan_time_ms") + _series(sim, PATCHED, "scan_time_ms")
    out += _series(sim, BEFORE, "scan_time_before_compaction_ms")
    for case in (UNPATCHED, PATCHED, BEFORE):
        times = _times(sim, case)
        if not times:
            continue
        first_steady = _stop_run(_scans(sim, case)) if case == PATCHED else 2
        steady = _steady(times, first_steady or len(times))
        pub_steady = _published_steady(case)
        published = _results()[CASES[case][1]]
        pub_first = published[0] if isinstance(published, list) else published["first"]
        out.append(Comparison(figure=f"{case}: steady-state scan", metric="steady_ms", published=pub_steady,
                              simulated=steady, n=1))
        out.append(Comparison(figure=f"{case}: first scan / steady state", metric="first_over_steady",
                              published=pub_first / pub_steady, simulated=times[0] / steady, n=1))
    patched = _scans(sim, PATCHED)
    if patched:
        stop = _stop_run(patched)
        out.append(Comparison(figure=f"{PATCHED}: first run without hint-bit writes", metric="writes_stop_run",
                              published=_published_stop_run(), simulated=stop, n=1))
    return out


def _ratio_check(name, times, first_steady, lo, hi):
    if not times:
        return Check(name, False, "the case did not run")
    steady = _steady(times, first_steady)
    ratio = times[0] / steady
    ok = (lo is None or ratio >= lo) and (hi is None or ratio <= hi)
    return Check(name, ok, f"first {figure(times[0])} ms, steady {figure(steady)} ms: {ratio:.2f}x")


def checks(sim, comparisons):
    """Issue 5's acceptance criteria."""
    out = []
    unpatched, patched_scans = _times(sim, UNPATCHED), _scans(sim, PATCHED)
    patched = [p["time_ms"] for p in patched_scans]
    stop = _stop_run(patched_scans) if patched_scans else None
    out.append(_ratio_check(f"unpatched: first scan at least {FIRST_MIN_UNPATCHED}x the steady state", unpatched, 2,
                            FIRST_MIN_UNPATCHED, None))
    lo, hi = FIRST_RANGE_PATCHED
    out.append(_ratio_check(f"patched: first scan {lo}-{hi}x the steady state", patched, stop or len(patched), lo, hi))
    if stop and stop > 1:
        falling = all(patched[i] < patched[i - 1] for i in range(1, stop))
        out.append(Check("patched: scan times fall with each run until hint-bit writes stop", falling,
                         "runs 1-%d: %s ms" % (stop, ", ".join(figure(t) for t in patched[:stop]))))
    else:
        out.append(Check("patched: scan times fall with each run until hint-bit writes stop", False,
                         "hint-bit writes never stop" if stop is None else "no hint-bit writes at all"))
    pub_stop = _published_stop_run()
    out.append(Check(f"patched: hint-bit writes stop within {STOP_RUN_TOLERANCE} runs of the published run",
                     stop is not None and abs(stop - pub_stop) <= STOP_RUN_TOLERANCE,
                     f"simulated run {stop}, published run {pub_stop}"))
    for c in comparisons:
        if c.metric == "steady_ms" and not c.figure.startswith(BEFORE):
            ok = c.relative_error is not None and abs(c.relative_error) <= STEADY_TOLERANCE
            out.append(Check(f"{c.figure} within {STEADY_TOLERANCE:.0%} of the published", ok,
                             f"simulated {figure(c.simulated)} ms, published {figure(c.published)} ms"))
    out.append(_ratio_check(f"VACUUM first: no first-scan penalty (at most {VACUUM_FIRST_MAX}x)", _times(sim, VACUUM),
                            2, None, VACUUM_FIRST_MAX))
    return out
