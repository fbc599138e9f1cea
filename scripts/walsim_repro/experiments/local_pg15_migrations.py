"""local-pg15-migrations: how often the kernel moves a process to another CPU, on 2 CPUs.

The reference is scenarios/reference/local-pg15-migrations.json: pgbench tpcb-like at scale 8,
1 to 16 clients, -j 1 and -j 2, synchronous_commit on and off, on a 2-vCPU VM of this project's
type, with the machine's CPU migrations counted by `perf stat -a -e cpu-migrations` around each
run (scripts/measure_pgbench.py --migrations). Where the scheduler runs a woken process decides
whether a message between pgbench and a backend crosses CPUs, and what an idle CPU is left
doing, so the local profiles' placement (hardware.os.run_queues, hardware.os.wake_placement) is
checked here against what the kernel did rather than only through TPS.

What is checked is the size of the rate: migrations per transaction within a factor of 3 of the
measured median, or within 0.05 of it where the measured rate is near zero (a few hundred a
second would be 0.05 per transaction at these rates). The machine-wide count includes the
kernel's own threads and the measurement's; their part is small (a second of an idle machine
counts about 10). TPS at every point is shown beside the measurement for the record.
"""

import statistics

from .. import reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-migrations"
TITLE = ("CPU migrations per transaction: tpcb-like at 1-16 clients, -j 1 and -j 2, synchronous_commit "
         "on/off, real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-migrations.json")
EXPERIMENT = "M1"
SCRIPT = "tpcb-like"
SYNC = ("on", "off")
JOBS = (1, 2)
FACTOR = 3.0
FLOOR = 0.05
QUICK_SECONDS = 5
MIGRATIONS = "cpu_migrations_per_xact"
CHART = ("pgbench clients (-c)", True)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _points():
    """(clients, threads) of every measured point, in order: -j is cut to the clients."""
    return sorted({(r["clients"], r["threads"]) for r in _runs().data["runs"] if r["experiment"] == EXPERIMENT})


def _config(clients, sync, jobs):
    return f"{SCRIPT}_c{clients}_sync{sync}_j{jobs}"


def _point(clients, sync, jobs):
    return {"pgbench.clients": clients, "settings.synchronous_commit": sync, "pgbench.jobs": jobs}


def sweep(quick):
    """Every measured point (one case per -j, since 1 client runs only -j 1) over the measured
    window with as many replications as were measured; quick mode runs one shorter replication."""
    ref = _runs()
    clients, threads = _points()[0]
    some = ref.runs(EXPERIMENT, _config(clients, SYNC[0], threads))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    cases = {}
    for jobs in JOBS:
        counts = sorted({c for c, t in _points() if t == jobs})
        cases[f"j{jobs}"] = ["pgbench.clients=" + ",".join(map(str, counts)), f"pgbench.jobs={jobs}"]
    return SweepSpec(vary=["settings.synchronous_commit=" + ",".join(SYNC)],
                     repeat=1 if quick else len(some),
                     sets=[f"pgbench.builtin={SCRIPT}", f"pgbench.time={seconds}s"], cases=cases)


def _measured(clients, sync, jobs, value):
    return _runs().median_of(EXPERIMENT, _config(clients, sync, jobs), value)


def compare(sim):
    """Migrations per transaction and TPS at every measured point."""
    out = []
    for sync in SYNC:
        for clients, jobs in _points():
            series = f"-j {jobs}, synchronous_commit={sync}"
            name = _config(clients, sync, jobs)
            median, lo, hi, n = sim.summary_figures(_point(clients, sync, jobs), MIGRATIONS)
            if median is None:  # summary.csv summarises only some metrics: take the runs' median
                values = sim.values(_point(clients, sync, jobs), MIGRATIONS)
                median, n = (statistics.median(values) if values else None), len(values)
            out.append(Comparison(figure=f"{EXPERIMENT}/{name} migrations per xact", metric=MIGRATIONS,
                                  published=_measured(clients, sync, jobs, lambda r: r["cpu"]["migrations_per_txn"]),
                                  simulated=median, ci_low=lo, ci_high=hi, n=n, x=clients, series=series))
            median, lo, hi, n = sim.summary_figures(_point(clients, sync, jobs), "tps")
            out.append(Comparison(figure=f"{EXPERIMENT}/{name} tps", metric="tps",
                                  published=_measured(clients, sync, jobs, lambda r: r["tps"]), simulated=median,
                                  ci_low=lo, ci_high=hi, n=n, x=clients, series=series))
    return out


def _within(c):
    if c.simulated is None:
        return False
    if abs(c.simulated - c.published) <= FLOOR:
        return True
    return c.published > 0 and c.simulated > 0 and max(c.simulated / c.published, c.published / c.simulated) <= FACTOR


def _migrations_check(comparisons):
    rows = [c for c in comparisons if c.metric == MIGRATIONS]
    outside = [c for c in rows if not _within(c)]
    parts = [f"{c.figure.split('/')[1].split(' ')[0]} {c.simulated if c.simulated is not None else float('nan'):.2f} "
             f"against {c.published:.2f}" for c in outside]
    detail = (f"{len(rows) - len(outside)} of {len(rows)} points within a factor of {FACTOR:g} (or {FLOOR:g})"
              + ("; outside: " + "; ".join(parts) if parts else ""))
    return Check(f"CPU migrations per transaction within a factor of {FACTOR:g} of the measured median (or within "
                 f"{FLOOR:g} of it) at every point", not outside and bool(rows), detail)


def checks(sim, comparisons):
    return [_migrations_check(comparisons)]
