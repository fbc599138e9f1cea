"""local-pg15-walwriter: how often the WAL writer wakes, and what a cycle of it costs, on 2 CPUs.

The reference is scenarios/reference/local-pg15-walwriter.json: pgbench tpcb-like at scale 8,
1 to 16 clients (-j 2, cut to the clients), synchronous_commit on and off, on a 2-vCPU VM of this
project's type, with the WAL writer's context switches and CPU time read from /proc around each
run (scripts/measure_pgbench.py --processes). With synchronous_commit off every commit calls
XLogSetAsyncXactLSN, which in PostgreSQL 15 (as in 9.2 to 16) sets the writer's latch while a
completed WAL page is not yet flushed; a commit that finds the latch already set costs nothing
more, so how often the writer wakes per transaction comes from that rule, the writer's cycle
(WalWriterMain, XLogBackgroundFlush) and the commits' pace. That is the mechanism the
walwriter-wakeup-2017 experiment turns on, measured here on a real server rather than inferred
from TPS.

Two figures are checked with synchronous_commit off, at every client count:
- the writer's voluntary context switches per transaction (it sleeps once per cycle, plus once or
  twice per fdatasync(), about 11 times a second), within 15% of the measured median: the wake-up
  rule and the cycle's length;
- its CPU time per voluntary switch, which is what a cycle costs, within 30%: a cost, not fitted
  anywhere, that the local profile builds from its context switch, wake-up and per-call costs.
The measurement ran on a newer CPU generation (AMD family 26) than local-pg15-tpcb.json's fitted
costs came from (family 25), as local-pg15-pinning's did; the wake-ups per transaction also depend
on the commits' pace, so they carry some of the TPS error at each point.
With synchronous_commit on the writer wakes only on its timer (wal_writer_delay) and runs too
little for /proc's 10 ms ticks to price its cycle; its switches, and TPS at every point, are shown
beside the measurement for the record.
"""

import statistics

from .. import reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-walwriter"
TITLE = ("WAL writer wake-ups and CPU per cycle: tpcb-like at 1-16 clients, synchronous_commit on/off, "
         "real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-walwriter.json")
EXPERIMENT = "W1"
SCRIPT = "tpcb-like"
SYNC = ("on", "off")
CHECKED_SYNC = "off"
WAKEUPS_TOLERANCE = 0.15
CYCLE_TOLERANCE = 0.30
QUICK_SECONDS = 5
WAKEUPS = "walwriter_voluntary_switches_per_xact"
CPU = "walwriter_cpu_us_per_xact"
CYCLE = "walwriter_cpu_us_per_cycle"  # derived: CPU over voluntary switches, run by run
CHART = ("pgbench clients (-c)", True)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _clients():
    return sorted({r["clients"] for r in _runs().data["runs"] if r["experiment"] == EXPERIMENT})


def _config(clients, sync):
    return f"{SCRIPT}_c{clients}_sync{sync}"


def _point(clients, sync, extra=None):
    return {"pgbench.clients": clients, "settings.synchronous_commit": sync, **(extra or {})}


def sweep(quick):
    """Every measured point over the measured window with as many replications as were measured;
    quick mode runs one shorter replication."""
    ref = _runs()
    some = ref.runs(EXPERIMENT, _config(_clients()[0], SYNC[0]))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    return SweepSpec(vary=["pgbench.clients=" + ",".join(map(str, _clients())),
                           "settings.synchronous_commit=" + ",".join(SYNC)],
                     repeat=1 if quick else len(some),
                     sets=[f"pgbench.builtin={SCRIPT}", f"pgbench.jobs={ref.jobs(EXPERIMENT)}",
                           f"pgbench.time={seconds}s"])


def _walwriter(run):
    """The measured WAL writer's figures of one run ({} when /proc counted too little of it)."""
    return run.get("long_lived_processes", {}).get("walwriter", {})


def _measured_wakeups(run):
    return _walwriter(run).get("voluntary", 0.0)


def _measured_cycle(run):
    w = _walwriter(run)
    return w["cpu_us"] / w["voluntary"] if w.get("voluntary") else None


def _measured(clients, sync, value):
    values = [v for v in (value(r) for r in _runs().runs(EXPERIMENT, _config(clients, sync))) if v is not None]
    return statistics.median(values) if values else None


def _simulated_cycles(sim, point):
    """CPU per voluntary switch of each simulated run, and their median."""
    cycles = [float(r[CPU]) / float(r[WAKEUPS]) for r in sim.runs_at(point)
              if r.get(CPU) not in (None, "") and r.get(WAKEUPS) not in (None, "") and float(r[WAKEUPS]) > 0]
    return (statistics.median(cycles) if cycles else None), len(cycles)


def compare(sim, extra=None):
    """Wake-ups, CPU per cycle and TPS at every measured point; extra picks the runs of a sweep
    that holds other cases too (local-pg15-f26)."""
    out = []
    for sync in SYNC:
        series = f"synchronous_commit={sync}"
        for clients in _clients():
            point, name = _point(clients, sync, extra), _config(clients, sync)
            values = sim.values(point, WAKEUPS)
            out.append(Comparison(figure=f"{EXPERIMENT}/{name} walwriter switches per xact", metric=WAKEUPS,
                                  published=_measured(clients, sync, _measured_wakeups),
                                  simulated=statistics.median(values) if values else None, n=len(values),
                                  x=clients, series=series))
            # With synchronous_commit on the writer runs 1-10 of /proc's 10 ms ticks in a run: too few.
            cycle = _measured(clients, sync, _measured_cycle) if sync == CHECKED_SYNC else None
            if cycle is not None:
                median, n = _simulated_cycles(sim, point)
                out.append(Comparison(figure=f"{EXPERIMENT}/{name} walwriter CPU us per cycle", metric=CYCLE,
                                      published=cycle, simulated=median, n=n, x=clients, series=series))
            median, lo, hi, n = sim.summary_figures(point, "tps")
            out.append(Comparison(figure=f"{EXPERIMENT}/{name} tps", metric="tps",
                                  published=_runs().median_of(EXPERIMENT, name, lambda r: r["tps"]),
                                  simulated=median, ci_low=lo, ci_high=hi, n=n, x=clients, series=series))
    return out


def _within(comparisons, metric, tolerance, what):
    rows = [c for c in comparisons if c.metric == metric and f"sync{CHECKED_SYNC} " in c.figure]
    outside = [c for c in rows if c.relative_error is None or abs(c.relative_error) > tolerance]
    shown = "; ".join(f"{c.x:g} clients {c.simulated if c.simulated is not None else float('nan'):.2f} against "
                      f"{c.published:.2f}" for c in rows)
    detail = f"{len(rows) - len(outside)} of {len(rows)} client counts within {tolerance:.0%}: {shown}"
    return Check(f"WAL writer's {what} with synchronous_commit {CHECKED_SYNC} within {tolerance:.0%} of the measured "
                 "median at every client count", not outside and bool(rows), detail)


def checks(sim, comparisons):
    return [_within(comparisons, WAKEUPS, WAKEUPS_TOLERANCE, "voluntary context switches per transaction"),
            _within(comparisons, CYCLE, CYCLE_TOLERANCE, "CPU per voluntary switch (per cycle)")]
