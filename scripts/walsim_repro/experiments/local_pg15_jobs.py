"""local-pg15-jobs: what pgbench's -j does on 2 CPUs, one pgbench thread against two.

The reference is scenarios/reference/local-pg15-jobs.json: pgbench tpcb-like at scale 8 with
-j 1 and -j 2 at 2, 4 and 8 clients, synchronous_commit on and off, runs interleaved, on a 2-vCPU
VM of this project's type (scripts/measure_pgbench.py --jobs 1,2). With one thread, pgbench
serves its clients one reply at a time from one CPU, and every message between it and a backend
on the other CPU wakes a process across CPUs; with two, each thread and its backends can share a
CPU. How much that changes TPS depends on where the kernel runs woken processes, which is what
the local profiles' run queues model (hardware.os.run_queues).

What is checked is the effect, TPS with -j 2 over TPS with -j 1 at each client count and
synchronous_commit setting, within 15% of the measured ratio, since that VM ran a different CPU
generation from the one local-pg15-tpcb.json was calibrated on (AMD family 26 against 25; the
same as local-pg15-wal-io's). TPS at every point is shown beside the measurement for the record.
"""

import statistics

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-jobs"
TITLE = ("pgbench -j 1 against -j 2: tpcb-like at 2, 4, 8 clients, synchronous_commit on/off, real "
         "PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-jobs.json")
EXPERIMENT = "J1"
SCRIPT = "tpcb-like"
SYNC = ("on", "off")
JOBS = (1, 2)
TOLERANCE = 0.15
QUICK_SECONDS = 5
SPEEDUP = "jobs_speedup"
CHART = ("pgbench clients (-c)", True)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _clients():
    """The measured client counts, in order."""
    return sorted({r["clients"] for r in _runs().data["runs"] if r["experiment"] == EXPERIMENT})


def _config(clients, sync, jobs):
    return f"{SCRIPT}_c{clients}_sync{sync}_j{jobs}"


def _point(clients, sync, jobs):
    return {"pgbench.clients": clients, "settings.synchronous_commit": sync, "pgbench.jobs": jobs}


def sweep(quick):
    """Every measured point over the measured window with as many replications as were measured;
    quick mode runs one replication of a shorter window."""
    ref = _runs()
    some = ref.runs(EXPERIMENT, _config(_clients()[0], SYNC[0], JOBS[0]))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    return SweepSpec(vary=["pgbench.clients=" + ",".join(map(str, _clients())),
                           "pgbench.jobs=" + ",".join(map(str, JOBS)),
                           "settings.synchronous_commit=" + ",".join(SYNC)],
                     repeat=1 if quick else len(some),
                     sets=[f"pgbench.builtin={SCRIPT}", f"pgbench.time={seconds}s"])


def _measured_tps(clients, sync, jobs):
    return _runs().median_tps(f"{EXPERIMENT}/{_config(clients, sync, jobs)}")


def _speedup(sim, clients, sync):
    """(simulated median ratio, its 95% interval or None) of TPS with -j 2 over -j 1."""
    one, two = (sim.values(_point(clients, sync, j), "tps") for j in JOBS)
    if not one or not two:
        return None, None
    return statistics.median(two) / statistics.median(one), effects.ratio_interval(two, one)


def compare(sim):
    """TPS at every point, and the speed-up -j 2 gives at each client count."""
    out = []
    for sync in SYNC:
        for clients in _clients():
            for jobs in JOBS:
                median, lo, hi, n = sim.summary_figures(_point(clients, sync, jobs), "tps")
                out.append(Comparison(figure=f"{EXPERIMENT}/{_config(clients, sync, jobs)} tps", metric="tps",
                                      published=_measured_tps(clients, sync, jobs), simulated=median, ci_low=lo,
                                      ci_high=hi, n=n, x=clients, series=f"-j {jobs}, synchronous_commit={sync}"))
            ratio, interval = _speedup(sim, clients, sync)
            measured = _measured_tps(clients, sync, JOBS[1]) / _measured_tps(clients, sync, JOBS[0])
            out.append(Comparison(figure=f"{EXPERIMENT}/{SCRIPT}_c{clients}_sync{sync} -j 2 over -j 1 tps",
                                  metric=SPEEDUP, published=measured, simulated=ratio,
                                  ci_low=interval[0] if interval else None, ci_high=interval[1] if interval else None,
                                  n=len(sim.values(_point(clients, sync, JOBS[0]), "tps")), x=clients,
                                  series=f"synchronous_commit={sync}"))
    return out


def _speedup_check(comparisons):
    rows = [c for c in comparisons if c.metric == SPEEDUP]
    parts = []
    for c in rows:
        label = c.figure.split("/")[1].split(" -j")[0]
        if c.simulated is None:
            parts.append(f"{label}: no run")
            continue
        ok = abs(c.relative_error) <= TOLERANCE
        parts.append(f"{label} {c.simulated:.2f}x against {c.published:.2f}x{'' if ok else ' (outside)'}")
    passed = all(c.simulated is not None and abs(c.relative_error) <= TOLERANCE for c in rows)
    text, settled = effects.within_tolerance(rows, TOLERANCE)
    return Check("pgbench -j 2 over -j 1: TPS ratio within 15% of the measured ratio at every client count, "
                 "synchronous_commit on and off", passed, "; ".join(parts) + text, settled)


def checks(sim, comparisons):
    return [_speedup_check(comparisons)]
