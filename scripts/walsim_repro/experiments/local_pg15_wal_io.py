"""local-pg15-wal-io: how long a commit's WAL write() and fdatasync() take as clients are added.

The reference is scenarios/reference/local-pg15-wal-io.json: pgbench tpcb-like at scale 8 with
synchronous_commit on, 1 to 16 clients, on a 2-vCPU VM of this project's type, with
track_wal_io_timing on, so that pg_stat_wal holds the wall time spent in write() and fdatasync()
on WAL (wal_write_time, wal_sync_time). The flusher holds WALWriteLock through both, so how
these stretch with load sets how long each group-commit cycle lasts, and so TPS with
synchronous_commit on.

What is checked is the stretch, each point's time per call over the 1-client one, since that VM
ran a different CPU generation from the one local-pg15-tpcb.json was calibrated on (AMD family 26
against 25, about 1.7 times slower at pgbench; TPS is not compared). The tolerance, 25% of the
measured ratio, is wide because each ratio divides two medians of three runs. The time per call
at every point is shown beside the measurement for the record.
"""

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-wal-io"
TITLE = ("WAL write() and fdatasync() wall time per call, pgbench tpcb-like with synchronous_commit on at 1-16 "
         "clients, real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-wal-io.json")
EXPERIMENT = "W1"
SCRIPT = "tpcb-like"
CHECKED_CLIENTS = (4, 8, 16)
TOLERANCE = 0.25
# metric -> (the call it times, its time counter, its call counter), pg_stat_wal's names; walsim's
# time columns carry a _ms suffix.
CALLS = {
    "wal_write_us_per_call": ("write()", "wal_write_time", "wal_write"),
    "wal_sync_us_per_call": ("fdatasync()", "wal_sync_time", "wal_sync"),
}
CHART = ("pgbench clients (-c)", True)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _clients():
    """The measured client counts, in order."""
    return sorted({r["clients"] for r in _runs().data["runs"] if r["experiment"] == EXPERIMENT})


def _config(clients):
    return f"{SCRIPT}_c{clients}_syncon"


def sweep(quick):
    """The measured points over the measured window, with the measured pgbench threads; three
    replications in full mode, one in quick mode."""
    window = _runs().runs(EXPERIMENT, _config(_clients()[0]))[0]["duration_s"]
    return SweepSpec(vary=["pgbench.clients=" + ",".join(map(str, _clients()))], repeat=1 if quick else 3,
                     sets=[f"pgbench.builtin={SCRIPT}", "settings.synchronous_commit=on", f"pgbench.time={window}s",
                           f"pgbench.jobs={_runs().jobs(EXPERIMENT)}"])


def _measured(clients, metric):
    _, time, calls = CALLS[metric]
    return _runs().median_of(EXPERIMENT, _config(clients), lambda r: r["wal"][time] * 1000 / r["wal"][calls])


def _simulated(sim, clients, metric):
    _, time, calls = CALLS[metric]
    values = []
    for row in sim.runs_at({"pgbench.clients": clients}):
        try:
            values.append(float(row[time + "_ms"]) * 1000 / float(row[calls]))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
    median, lo, hi = effects.median_interval(values)
    return median, lo, hi, len(values)


def compare(sim):
    """Microseconds per call at every point."""
    out = []
    for metric, (call, _, _) in CALLS.items():
        for clients in _clients():
            median, lo, hi, n = _simulated(sim, clients, metric)
            out.append(Comparison(figure=f"{EXPERIMENT}/{_config(clients)} {call} us per call", metric=metric,
                                  published=_measured(clients, metric), simulated=median, ci_low=lo, ci_high=hi,
                                  n=n, x=clients, series=call))
    return out


def _stretch_check(comparisons):
    """Each checked point's time per call over the 1-client one, against the measured ratio."""
    by_point = {(c.metric, c.x): c for c in comparisons}
    first = _clients()[0]
    details, passed = [], True
    for metric, (call, _, _) in CALLS.items():
        base = by_point[(metric, first)]
        parts = []
        for clients in CHECKED_CLIENTS:
            c = by_point[(metric, clients)]
            if c.simulated is None or base.simulated is None:
                passed = False
                parts.append(f"{clients} clients: no run")
                continue
            simulated, measured = c.simulated / base.simulated, c.published / base.published
            ok = abs(simulated / measured - 1) <= TOLERANCE
            passed &= ok
            parts.append(f"{clients} clients {simulated:.2f}x against {measured:.2f}x{'' if ok else ' (outside)'}")
        details.append(f"{call}: " + ", ".join(parts))
    return Check(f"write() and fdatasync() stretch with clients as measured: time per call at "
                 f"{', '.join(map(str, CHECKED_CLIENTS))} clients over 1 client within 25% of the measured ratio",
                 passed, "; ".join(details))


def checks(sim, comparisons):
    return [_stretch_check(comparisons)]
