"""WAL writes and syncs against the pg_stat_wal counters of real runs: group commit and the WAL writer.

With synchronous_commit on every commit flushes, so the syncs per transaction say how many commits
one flush serves: the group commit that XLogFlush's wait on WALWriteLock gives. With it off no
backend flushes; the WAL writer writes the completed pages each time it is woken and syncs after
wal_writer_delay or wal_writer_flush_after (XLogBackgroundFlush, PostgreSQL 15). Those writes and
syncs are counted per MiB of WAL, which takes out the throughput error the model may have at the
same point (a TPS gap would otherwise show up as a gap in the WAL writer's rates). No scenario fits
either figure.

Both sides count cluster-wide: pg_stat_wal includes the WAL writer's writes, as walsim's
pg_stat_wal does.
"""

import math
import statistics

from . import effects
from .model import Check, Comparison
from .report import figure

MIB = 1 << 20
SYNC_PER_XACT = "wal_sync_per_xact"
WRITE_PER_MIB = "wal_write_per_MiB"
SYNC_PER_MIB = "wal_sync_per_MiB"
WAL_WRITER_METRICS = (WRITE_PER_MIB, SYNC_PER_MIB)
# Issue 3's tolerance for the other WAL figures; the WAL writer's counts are small (a 30 s run
# syncs about 250 times), so 15% there.
GROUP_COMMIT_TOLERANCE = 0.10
WAL_WRITER_TOLERANCE = 0.15


def _per_transaction(counter):
    return lambda wal, transactions: wal[counter] / transactions


def _per_mib(counter):
    return lambda wal, transactions: wal[counter] * MIB / wal["wal_bytes"]


# metric -> (value from pg_stat_wal-named counters and the transaction count)
METRICS = {
    SYNC_PER_XACT: _per_transaction("wal_sync"),
    WRITE_PER_MIB: _per_mib("wal_write"),
    SYNC_PER_MIB: _per_mib("wal_sync"),
}


def measured(runs, metric):
    """Median over real runs (each with a "wal" object and "transactions") of the metric, or None
    when a run wrote no WAL."""
    values = []
    for r in runs:
        try:
            values.append(METRICS[metric](r["wal"], r["transactions"]))
        except ZeroDivisionError:
            return None
    return statistics.median(values)


def simulated(sim, point, metric):
    """(median, ci_low, ci_high, n) of the metric over the point's runs (results.csv rows); the
    95% interval is that of the mean, None with fewer than two runs."""
    values = []
    for row in sim.runs_at(point):
        try:
            wal = {k: float(row[k]) for k in ("wal_write", "wal_sync", "wal_bytes")}
            values.append(METRICS[metric](wal, float(row["transactions"])))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
    median, lo, hi = effects.median_interval(values)
    return median, lo, hi, len(values)


def comparison(sim, point, runs, metric, label, x, series):
    """One Comparison of the metric at a point, or None when the real runs wrote no WAL."""
    published = measured(runs, metric)
    if published is None:
        return None
    median, lo, hi, n = simulated(sim, point, metric)
    return Comparison(figure=f"{label} {metric}", metric=metric, published=published, simulated=median,
                      ci_low=lo, ci_high=hi, n=n, x=x, series=series)


def within(comparisons, metrics, tolerance, name):
    """A check that every comparison of the metrics lies within tolerance of the measured median."""
    rows = [c for c in comparisons if c.metric in metrics]
    if not rows:
        return Check(name, False, "no comparisons")
    bad = [c for c in rows if c.relative_error is None or abs(c.relative_error) > tolerance]
    worst = max(rows, key=lambda c: abs(c.relative_error) if c.relative_error is not None else math.inf)
    detail = (f"{len(rows) - len(bad)} of {len(rows)} within {tolerance:.0%}; worst {worst.figure}: simulated "
              f"{figure(worst.simulated)}, measured {figure(worst.published)}")
    if bad:
        detail += "; outside: " + ", ".join(
            f"{c.figure} ({'no run' if c.relative_error is None else f'{c.relative_error * 100:+.1f}%'})" for c in bad)
    text, settled = effects.within_tolerance(rows, tolerance)
    return Check(name, not bad, detail + text, settled)


def metrics_at(sync, clients):
    """What is compared at a point: syncs per transaction with synchronous_commit on (not at 1
    client, which syncs once per commit by construction), the WAL writer's figures with it off."""
    if sync == "on":
        return () if clients == 1 else (SYNC_PER_XACT,)
    return WAL_WRITER_METRICS


def checks(comparisons, group_commit_clients):
    """The group commit and WAL-writer checks over an experiment's comparisons."""
    return [
        within(comparisons, (SYNC_PER_XACT,), GROUP_COMMIT_TOLERANCE,
               "group commit: WAL syncs per transaction with synchronous_commit on within 10% of the measured "
               f"median at {group_commit_clients} clients"),
        within(comparisons, WAL_WRITER_METRICS, WAL_WRITER_TOLERANCE,
               "WAL writer: writes and syncs per MiB of WAL with synchronous_commit off within 15% of the measured "
               "median at every client count"),
    ]
