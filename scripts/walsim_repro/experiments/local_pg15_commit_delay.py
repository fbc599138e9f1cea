"""local-pg15-commit-delay: what commit_delay does to group commit on 2 CPUs.

The reference is scenarios/reference/local-pg15-commit-delay.json: pgbench tpcb-like at scale 8,
4, 8 and 16 clients (-j 2), synchronous_commit on, with commit_delay 0, 200 and 1000 us and the
default commit_siblings (5), runs interleaved, on a 2-vCPU VM of the type
hardware/local-2core-f26.json profiles (scripts/measure_pgbench.py --guc commit_delay=0,200,1000).

In PostgreSQL 15's XLogFlush a backend that is to flush WAL first sleeps commit_delay
microseconds when at least commit_siblings other backends are in a transaction and not waiting
on a lock (MinimumActiveBackends), so that the commits that arrive meanwhile share its flush; the
ones queued on WALWriteLock (LWLockAcquireOrWait) find their WAL flushed when it is released.
The figures that come out of that are how many commits one flush serves (WAL syncs per
transaction) and what the sleep costs or gains in TPS. Neither is fitted anywhere: the scenario's
profile was fitted to 1-client pinned runs of the same VM type.

Checked against each delay's run over the delay-0 run at the same client count (and, for the
measurement, the same repetition), because the host's speed moves more than the effects from one
series to the next:
- the WAL syncs per transaction ratio within 15% of the measured ratio at every client count: the
  group-commit effect at 8 and 16 clients, and none at 4, where no backend has commit_siblings
  others in a transaction, so the delay never runs (MinimumActiveBackends does not count the
  flusher itself);
- the TPS ratio within 10% of the measured ratio at 8 and 16 clients (at 4 the measured ratios
  are noise: 0.79-1.39 between repetitions).
TPS and syncs per transaction at every point are shown beside the measurement for the record.
"""

import statistics

from .. import effects, reference, wal_counters
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-commit-delay"
TITLE = ("commit_delay 0, 200 and 1000 us (commit_siblings 5): tpcb-like at 4, 8, 16 clients, synchronous_commit "
         "on, real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-f26-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-commit-delay.json")
EXPERIMENT = "D1"
SCRIPT = "tpcb-like"
SYNC = "on"
SIBLINGS = 5  # commit_siblings as measured (the default)
TPS_TOLERANCE = 0.10
SYNC_TOLERANCE = 0.15
QUICK_SECONDS = 5
TPS_RATIO = "commit_delay_tps_ratio"
SYNC_RATIO = "commit_delay_sync_per_xact_ratio"
CHART = ("pgbench clients (-c)", True)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _ours():
    return [r for r in _runs().data["runs"] if r["experiment"] == EXPERIMENT]


def _clients():
    return sorted({r["clients"] for r in _ours()})


def _delays():
    """The measured commit_delay values in microseconds, in order (0 first)."""
    return sorted({int(r["gucs"]["commit_delay"]) for r in _ours()})


def _config(clients, delay):
    return f"{SCRIPT}_c{clients}_sync{SYNC}_commit_delay{delay}"


def _setting(delay):
    return f"{delay}us"


def _point(clients, delay):
    return {"pgbench.clients": clients, "settings.commit_delay": _setting(delay)}


def _checked(clients):
    """Whether the delay can run at this client count: commit_siblings others in a transaction."""
    return clients - 1 >= SIBLINGS


def sweep(quick):
    """Every measured point over the measured window with as many replications as were measured;
    quick mode runs one shorter replication."""
    ref = _runs()
    some = ref.runs(EXPERIMENT, _config(_clients()[0], _delays()[0]))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    return SweepSpec(vary=["pgbench.clients=" + ",".join(map(str, _clients())),
                           "settings.commit_delay=" + ",".join(_setting(d) for d in _delays())],
                     repeat=1 if quick else len(some),
                     sets=[f"pgbench.builtin={SCRIPT}", f"pgbench.jobs={ref.jobs(EXPERIMENT)}",
                           f"settings.synchronous_commit={SYNC}", f"settings.commit_siblings={SIBLINGS}",
                           f"pgbench.time={seconds}s"])


def _measured_ratio(clients, delay, value):
    """Median over repetitions of value(run at delay) / value(run at 0) within each repetition: the
    runs of one repetition came minutes apart at most, the repetitions up to a quarter hour."""
    base = {r["repetition"]: value(r) for r in _runs().runs(EXPERIMENT, _config(clients, 0))}
    ratios = [value(r) / base[r["repetition"]] for r in _runs().runs(EXPERIMENT, _config(clients, delay))
              if base.get(r["repetition"])]
    return statistics.median(ratios) if ratios else None


def _tps(run):
    return run["tps"]


def _syncs(run):
    return wal_counters.METRICS[wal_counters.SYNC_PER_XACT](run["wal"], run["transactions"])


def _simulated_syncs(sim, point):
    out = []
    for row in sim.runs_at(point):
        try:
            out.append(float(row["wal_sync"]) / float(row["transactions"]))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
    return out


def _ratio_comparison(clients, delay, metric, what, measured, delayed, base):
    interval = effects.ratio_interval(delayed, base)
    simulated = statistics.median(delayed) / statistics.median(base) if delayed and base else None
    return Comparison(figure=f"{EXPERIMENT}/{SCRIPT}_c{clients}_sync{SYNC} commit_delay {delay} over 0 {what}",
                      metric=metric, published=measured, simulated=simulated,
                      ci_low=interval[0] if interval else None, ci_high=interval[1] if interval else None,
                      n=min(len(delayed), len(base)), x=clients, series=f"commit_delay={delay} us")


def compare(sim):
    """TPS and syncs per transaction at every point, and each delay's effect on both."""
    out = []
    for delay in _delays():
        for clients in _clients():
            point, name = _point(clients, delay), _config(clients, delay)
            series = f"commit_delay={delay} us"
            median, lo, hi, n = sim.summary_figures(point, "tps")
            out.append(Comparison(figure=f"{EXPERIMENT}/{name} tps", metric="tps",
                                  published=_runs().median_of(EXPERIMENT, name, _tps), simulated=median,
                                  ci_low=lo, ci_high=hi, n=n, x=clients, series=series))
            c = wal_counters.comparison(sim, point, _runs().runs(EXPERIMENT, name), wal_counters.SYNC_PER_XACT,
                                        f"{EXPERIMENT}/{name}", clients, series)
            if c is not None:
                out.append(c)
    for delay in _delays()[1:]:
        for clients in _clients():
            base, delayed = _point(clients, 0), _point(clients, delay)
            out.append(_ratio_comparison(clients, delay, TPS_RATIO, "tps", _measured_ratio(clients, delay, _tps),
                                         sim.values(delayed, "tps"), sim.values(base, "tps")))
            out.append(_ratio_comparison(clients, delay, SYNC_RATIO, "syncs per xact",
                                         _measured_ratio(clients, delay, _syncs), _simulated_syncs(sim, delayed),
                                         _simulated_syncs(sim, base)))
    return out


def _ratio_check(comparisons, metric, tolerance, what, every_count):
    rows = [c for c in comparisons if c.metric == metric and (every_count or _checked(int(c.x)))]
    parts = []
    for c in rows:
        label = f"{c.x:g} clients, {c.series}"
        if c.simulated is None or c.published is None:
            parts.append(f"{label}: no run")
            continue
        ok = abs(c.relative_error) <= tolerance
        parts.append(f"{label} {c.simulated:.2f}x against {c.published:.2f}x{'' if ok else ' (outside)'}")
    passed = bool(rows) and all(c.relative_error is not None and abs(c.relative_error) <= tolerance for c in rows)
    text, settled = effects.within_tolerance(rows, tolerance)
    clients = ", ".join(f"{x:g}" for x in sorted({c.x for c in rows}))
    return Check(f"commit_delay over none: {what} ratio within {tolerance:.0%} of the measured ratio at {clients} "
                 "clients, every delay", passed, "; ".join(parts) + text, settled)


def checks(sim, comparisons):
    return [_ratio_check(comparisons, SYNC_RATIO, SYNC_TOLERANCE, "WAL syncs per transaction", True),
            _ratio_check(comparisons, TPS_RATIO, TPS_TOLERANCE, "TPS", False)]
