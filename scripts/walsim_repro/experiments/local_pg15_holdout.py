"""local-pg15-holdout: a second machine, calibrated on one point, predicting three pgbench scripts.

The whole workflow a user follows on a machine of their own, checked against real runs: profile
the machine (walsim-probe, pg_test_fsync: hardware/local-2core-zen3.json), fit its CPU speed to
one run on one CPU (H2 select-only, 1 client), the backend's working set to two one-CPU runs with
8 clients, and its wake-up and fdatasync figures to the 1-client tpcb-like runs
(scripts/calibrate_local.py), then predict tpcb-like at 4 and 16 clients and pgbench's select-only
and simple-update scripts at 1, 4 and 16 clients, with synchronous_commit on and off (select-only
writes no WAL and runs with one setting), and the other one-CPU runs. The measurements are scenarios/reference/local-pg15-holdout.json
(experiment H1): a real PostgreSQL 15 on a 2-vCPU Zen 3 KVM guest, scripts/measure_pgbench.py.

No issue states an acceptance for these points; the checks use the tolerance issue 3 sets for
tpcb-like on the project's machine (TPS within 15% of the measured median) and the same for CPU
per transaction (machine-wide busy CPU from /proc/stat, walsim's cpu_us_per_xact).

Experiment H2 of the same file pins the server and pgbench to one of the two CPUs
(measure_pgbench.py --cpus 0) and runs select-only and simple-update at 1 to 16 clients; the
model runs the same profile with one core. On one CPU no wake-up crosses CPUs and, from two
clients on, none finds an idle CPU, so these points isolate what a transaction costs as more
processes share a CPU. A third check asks for the measured rise of CPU per transaction from 1 to
16 clients there (the 1-client select-only run is the clock's fitting point, the 16-client runs
are predictions).

On the two-CPU runs, pg_stat_wal's write and sync counters are checked as in local-pg15
(wal_counters.py): syncs per transaction with synchronous_commit on from 4 clients (group commit)
within 10%, and the WAL writer's writes and syncs per MiB of WAL with it off within 15%.
"""

import statistics

from .. import effects, reference, wal_counters
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path
from ..report import figure

ID = "local-pg15-holdout"
TITLE = ("a second 2-core machine, fitted on three of its runs (one CPU at 1 and 8 clients, 1-client tpcb-like), "
         "predicting tpcb-like, simple-update and select-only at 1-16 clients on one and two CPUs against real "
         "PostgreSQL 15")
SCENARIO = "scenarios/local-pg15-zen3-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-holdout.json")
# (experiment, CPUs the run may use, clients, [(script, synchronous_commit)]); select-only writes no
# WAL, so it runs with one setting. H2 is the same machine pinned to one CPU.
EXPERIMENTS = [
    ("H1", 2, [1, 4, 16], [("tpcb-like", "on"), ("tpcb-like", "off"), ("select-only", "on"),
                           ("simple-update", "on"), ("simple-update", "off")]),
    ("H2", 1, [1, 2, 4, 8, 16], [("select-only", "off"), ("simple-update", "off")]),
]
# The runs scripts/calibrate_local.py fitted to, as (experiment, script, clients): the CPU clock to
# H2's select-only at 1 client, the backend working set to H2's runs at 8 clients, the wake-up and
# fdatasync figures to H1's tpcb-like at 1 client.
FITTED = {("H1", "tpcb-like", 1), ("H2", "select-only", 1), ("H2", "select-only", 8), ("H2", "simple-update", 8)}
TOLERANCE = 0.15
METRICS = {"tps": None, "cpu_us_per_xact": "busy_cpu_us_per_txn"}
# Full mode: as many replications as the measurement had, each case over its experiment's measured
# window (H1 20 s, H2 10 s), since the share of full-page images in the WAL, and so the WAL
# writer's figures, depend on the time since the checkpoint before the run. Quick mode: one 3 s run.
FULL_REPEAT = 3
QUICK = (1, "3s")
CHART = ("pgbench clients (-c)", True)


def _case(experiment, script, sync):
    return f"{script}-sync-{sync}" if experiment == "H1" else f"one-cpu-{script}-sync-{sync}"


def _config(script, clients, sync):
    """The configuration's name in the reference file."""
    return f"{script}_c{clients}_sync{sync}"


def _case_keys(cpus, clients, script, sync):
    # The profile's machine has one socket: its core count is the number of CPUs.
    return [f"hardware.cpu.cores_per_socket={cpus}", f"pgbench.builtin={script}",
            f"settings.synchronous_commit={sync}", "pgbench.clients=" + ",".join(map(str, clients))]


def _point(cpus, script, clients, sync):
    return {"hardware.cpu.cores_per_socket": cpus, "pgbench.builtin": script, "pgbench.clients": clients,
            "settings.synchronous_commit": sync}


def _points():
    """(experiment, cpus, script, sync, clients) of every measured point."""
    return [(e, cpus, script, sync, c) for e, cpus, clients, cases in EXPERIMENTS for script, sync in cases
            for c in clients]


def _runs():
    return reference.LocalRuns(REFERENCE)


def _duration(experiment):
    """The measured runs' window, e.g. "20s" (the same for every run of an experiment)."""
    windows = {r["duration_s"] for r in _runs().data["runs"] if r["experiment"] == experiment}
    if len(windows) != 1:
        raise ValueError(f"{REFERENCE}: experiment {experiment} has runs of {sorted(windows)} s; expected one window")
    return f"{windows.pop()}s"


def _jobs(experiment):
    """The measured runs' pgbench -j, as a walsim override."""
    return f"pgbench.jobs={_runs().jobs(experiment)}"


def sweep(quick):
    if quick:
        repeat, time = QUICK
        return SweepSpec(vary=[], repeat=repeat, sets=[f"pgbench.time={time}"],
                         cases={_case(e, s, c): _case_keys(cpus, clients, s, c) + [_jobs(e)]
                                for e, cpus, clients, cases in EXPERIMENTS for s, c in cases})
    return SweepSpec(vary=[], repeat=FULL_REPEAT,
                     cases={_case(e, s, c): _case_keys(cpus, clients, s, c) + [_jobs(e), f"pgbench.time={_duration(e)}"]
                            for e, cpus, clients, cases in EXPERIMENTS for s, c in cases})


def _measured(ref, experiment, script, clients, sync, metric):
    config = _config(script, clients, sync)
    if METRICS[metric] is None:
        return ref.median_tps(f"{experiment}/{config}")
    return ref.median_of(experiment, config, lambda r: r["cpu"][METRICS[metric]])


def compare(sim):
    """TPS and CPU per transaction at every point; the fitted points are marked and not checked."""
    ref = _runs()
    out = []
    for experiment, cpus, script, sync, clients in _points():
        fitted = (experiment, script, clients) in FITTED
        point = _point(cpus, script, clients, sync)
        for metric in METRICS:
            median, lo, hi, n = sim.summary_figures(point, metric)
            label = f"{experiment}/{_config(script, clients, sync)} {metric}"
            out.append(Comparison(figure=label + (" (fitted, not checked)" if fitted else ""),
                                  metric=metric + ("_fitted" if fitted else ""),
                                  published=_measured(ref, experiment, script, clients, sync, metric),
                                  simulated=median, ci_low=lo, ci_high=hi, n=n,
                                  x=None if fitted else clients, series=_case(experiment, script, sync)))
        out.extend(_wal_comparisons(sim, ref, experiment, cpus, script, sync, clients))
    return out


def _wal_comparisons(sim, ref, experiment, cpus, script, sync, clients):
    """Group commit and the WAL writer on the two-CPU runs of the scripts that write WAL."""
    if experiment != "H1" or script == "select-only":
        return []
    metrics = wal_counters.metrics_at(sync, clients)
    config = _config(script, clients, sync)
    found = (wal_counters.comparison(sim, _point(cpus, script, clients, sync), ref.runs(experiment, config), m,
                                     f"{experiment}/{config}", clients, _case(experiment, script, sync))
             for m in metrics)
    return [c for c in found if c is not None]


def _within(comparisons, metric, name):
    rows = [c for c in comparisons if c.metric == metric]
    bad = [c for c in rows if c.relative_error is None or abs(c.relative_error) > TOLERANCE]
    detail = f"{len(rows) - len(bad)} of {len(rows)} points within {TOLERANCE:.0%}"
    if bad:
        detail += "; outside: " + ", ".join(
            f"{c.figure.split('/')[1].split()[0]} (simulated {figure(c.simulated)}, measured "
            f"{figure(c.published)}, {'no run' if c.relative_error is None else f'{c.relative_error * 100:+.1f}%'})"
            for c in bad)
    text, settled = effects.within_tolerance(rows, TOLERANCE)
    return Check(name, not bad, detail + text, settled)


def _one_cpu_rise(sim):
    """On one CPU, CPU per transaction must rise from the fewest to the most clients by at least
    half the measured rise, for every script."""
    ref = _runs()
    experiment, cpus, clients, cases = EXPERIMENTS[1]
    lo_c, hi_c = clients[0], clients[-1]
    parts, details = [], []
    for script, sync in cases:
        measured = (_measured(ref, experiment, script, hi_c, sync, "cpu_us_per_xact") /
                    _measured(ref, experiment, script, lo_c, sync, "cpu_us_per_xact"))
        threshold = 1 + (measured - 1) / 2
        hi_v = sim.values(_point(cpus, script, hi_c, sync), "cpu_us_per_xact")
        lo_v = sim.values(_point(cpus, script, lo_c, sync), "cpu_us_per_xact")
        if not hi_v or not lo_v:
            parts.append((False, None))
            details.append(f"{script}: no runs")
            continue
        simulated = statistics.median(hi_v) / statistics.median(lo_v)
        passed = simulated >= threshold
        text, settled = effects.qualify(effects.ratio_interval(hi_v, lo_v), [threshold],
                                        lambda r: f"{(r - 1) * 100:+.1f}%", f"{len(hi_v)} runs each")
        parts.append((passed, settled))
        details.append(f"{script}: simulated {(simulated - 1) * 100:+.1f}%, measured {(measured - 1) * 100:+.1f}% "
                       f"(at least {(threshold - 1) * 100:+.1f}% needed){text}")
    return Check(f"on one CPU, CPU per transaction rises from {lo_c} to {hi_c} clients by at least half the "
                 "measured rise", all(p for p, _ in parts), "; ".join(details), effects.combine(parts))


def checks(sim, comparisons):
    return [
        _within(comparisons, "tps", "TPS within 15% of the measured median at every predicted point"),
        _within(comparisons, "cpu_us_per_xact",
                "CPU per transaction within 15% of the measured median at every predicted point"),
        _one_cpu_rise(sim),
    ] + wal_counters.checks(comparisons, "4 and 16")
