"""local-pg15-walwriter-settings: the WAL writer's flush rule under its two settings, on 2 CPUs.

The reference is scenarios/reference/local-pg15-walwriter-settings.json: pgbench tpcb-like at
scale 8, 4 and 16 clients (-j 2), synchronous_commit off, with wal_writer_delay 10, 200 and
1000 ms and wal_writer_flush_after 0 and 128 blocks (1 MB, the default), runs interleaved, on a
2-vCPU VM of the type hardware/local-2core-f26.json profiles (scripts/measure_pgbench.py
--guc wal_writer_delay=10,200,1000 --guc wal_writer_flush_after=0,128).

With synchronous_commit off no backend flushes: each commit sets the WAL writer's latch while a
completed page is unflushed (XLogSetAsyncXactLSN), and each cycle of the writer
(XLogBackgroundFlush, PostgreSQL 15) writes the completed pages but flushes them only if
wal_writer_flush_after is 0, or wal_writer_delay has passed since its last flush, or
wal_writer_flush_after blocks are unflushed; then it sleeps on its latch for wal_writer_delay.
So the settings move the writes and syncs per MiB of WAL by an order of magnitude, and they come
out of that rule, the commits' pace and the writer's own speed; nothing here is fitted.

Checked: WAL writes and syncs per MiB of WAL (pg_stat_wal, cluster-wide on both sides) within 15%
of the measured median at every point, as local-pg15 checks them at the default settings. Per MiB
takes out a TPS error at the same point where the rule counts bytes (wal_writer_flush_after) but
not where it counts time (wal_writer_delay): there a TPS error shows up in full. TPS at every
point is shown beside the measurement for the record.
"""

from .. import reference, wal_counters
from ..model import Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-walwriter-settings"
TITLE = ("wal_writer_delay 10, 200, 1000 ms and wal_writer_flush_after 0 or 1 MB: WAL writes and syncs per MiB, "
         "tpcb-like at 4 and 16 clients, synchronous_commit off, real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-f26-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-walwriter-settings.json")
EXPERIMENT = "V1"
SCRIPT = "tpcb-like"
SYNC = "off"
BLOCK_KB = 8  # wal_writer_flush_after counts XLOG_BLCKSZ blocks
CHART = ("pgbench clients (-c)", True)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _ours():
    return [r for r in _runs().data["runs"] if r["experiment"] == EXPERIMENT]


def _clients():
    return sorted({r["clients"] for r in _ours()})


def _values(guc):
    return sorted({int(r["gucs"][guc]) for r in _ours()})


def _config(clients, delay_ms, after_blocks):
    return f"{SCRIPT}_c{clients}_sync{SYNC}_wal_writer_delay{delay_ms}_wal_writer_flush_after{after_blocks}"


def _delay(ms):
    return f"{ms}ms"


def _after(blocks):
    return f"{blocks * BLOCK_KB}kB"


def _point(clients, delay_ms, after_blocks):
    return {"pgbench.clients": clients, "settings.wal_writer_delay": _delay(delay_ms),
            "settings.wal_writer_flush_after": _after(after_blocks)}


def _points():
    return [(c, d, a) for d in _values("wal_writer_delay") for a in _values("wal_writer_flush_after")
            for c in _clients()]


def sweep(quick):
    """Every measured point over the measured window with as many replications as were measured;
    quick mode runs one. Not a shorter window: each run starts after a CHECKPOINT, so full-page
    images make up more of the WAL early in a run, and the per-MiB rates depend on the window."""
    ref = _runs()
    some = ref.runs(EXPERIMENT, _config(*_points()[0]))
    seconds = some[0]["duration_s"]
    return SweepSpec(vary=["pgbench.clients=" + ",".join(map(str, _clients())),
                           "settings.wal_writer_delay=" + ",".join(_delay(d) for d in _values("wal_writer_delay")),
                           "settings.wal_writer_flush_after=" + ",".join(
                               _after(a) for a in _values("wal_writer_flush_after"))],
                     repeat=1 if quick else len(some),
                     sets=[f"pgbench.builtin={SCRIPT}", f"pgbench.jobs={ref.jobs(EXPERIMENT)}",
                           f"settings.synchronous_commit={SYNC}", f"pgbench.time={seconds}s"])


def compare(sim):
    """TPS, and the WAL writer's writes and syncs per MiB, at every point."""
    out = []
    for clients, delay, after in _points():
        point, name = _point(clients, delay, after), _config(clients, delay, after)
        series = f"wal_writer_delay={delay}ms, wal_writer_flush_after={after}"
        median, lo, hi, n = sim.summary_figures(point, "tps")
        runs = _runs().runs(EXPERIMENT, name)
        out.append(Comparison(figure=f"{EXPERIMENT}/{name} tps", metric="tps",
                              published=_runs().median_of(EXPERIMENT, name, lambda r: r["tps"]), simulated=median,
                              ci_low=lo, ci_high=hi, n=n, x=clients, series=series))
        for metric in wal_counters.WAL_WRITER_METRICS:
            c = wal_counters.comparison(sim, point, runs, metric, f"{EXPERIMENT}/{name}", clients, series)
            if c is not None:
                out.append(c)
    return out


def checks(sim, comparisons):
    return [wal_counters.within(comparisons, wal_counters.WAL_WRITER_METRICS, wal_counters.WAL_WRITER_TOLERANCE,
                                "WAL writer: writes and syncs per MiB of WAL within 15% of the measured median at "
                                "every wal_writer_delay, wal_writer_flush_after and client count")]
