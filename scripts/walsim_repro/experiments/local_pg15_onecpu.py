"""local-pg15-onecpu: how the CPU per transaction grows as backends crowd one CPU.

The reference is scenarios/reference/local-pg15-f26-onecpu.json: pgbench select-only and
tpcb-like, synchronous_commit off, 1 to 16 clients, the server and pgbench all pinned to CPU 0,
on the instance hardware/local-2core-f26.json profiles. On one CPU no wake-up finds an idle CPU,
and every backend that runs finds in the core's cache what the others left there: the real CPU
per transaction grew 2.0 times (select-only) and 2.5 times (tpcb-like) from 1 to 16 clients,
steadily rather than all at once (select-only: a quarter of the growth by 4 clients, half by 8).

The host ran slower that hour than when the profile was fitted, so the absolute figures are shown
for the record only. What is checked is the shape: the growth from 1 client to N clients as a
share of the growth from 1 to 16, within 0.1 of the measured share at 2, 3, 4, 6 and 8 clients,
for both scripts. The profile's refill rate is walsim-probe's and its working set is fitted to the
16-client runs of local-pg15-f26-pinned.json (F4); every share here is a prediction.
"""

import statistics

from .. import reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-onecpu"
TITLE = "CPU per transaction as backends crowd one CPU, 1-16 clients, real PostgreSQL 15 on one of 2 cores"
SCENARIO = "scenarios/local-pg15-f26-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-f26-onecpu.json")
EXPERIMENT = "C42"
SCRIPTS = ("select-only", "tpcb-like")
CLIENTS = (1, 2, 3, 4, 6, 8, 16)
SHARE = "growth_share"
TOLERANCE = 0.1
QUICK_SECONDS = 3
CHART = ("pgbench clients (-c), all on CPU 0", True)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _config(script, clients):
    return f"{script}_c{clients}_syncoff"


def _point(script, clients):
    return {"pgbench.builtin": script, "pgbench.clients": clients}


def sweep(quick):
    """Every script and client count, pinned to CPU 0, over the measured window with as many
    replications as were measured; quick mode runs one replication of a shorter window."""
    some = _runs().runs(EXPERIMENT, _config(SCRIPTS[0], 1))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    return SweepSpec(vary=["pgbench.builtin=" + ",".join(SCRIPTS), "pgbench.clients=" + ",".join(map(str, CLIENTS))],
                     repeat=1 if quick else len(some),
                     sets=["hardware.os.server_cpus=[0]", "hardware.os.pgbench_cpus=[0]", "pgbench.jobs=1",
                           "settings.synchronous_commit=off", f"pgbench.time={seconds}s"])


def _measured_cpu(script, clients):
    return _runs().median_of(EXPERIMENT, _config(script, clients), lambda r: r["cpu"]["busy_cpu_us_per_txn"])


def _simulated_cpu(sim, script, clients):
    values = sim.values(_point(script, clients), "cpu_us_per_xact")
    return statistics.median(values) if values else None


def _share(cpu, clients):
    """The growth from 1 client to `clients` over the growth from 1 to 16, from {clients: CPU}."""
    if any(cpu.get(n) is None for n in (1, clients, CLIENTS[-1])) or cpu[CLIENTS[-1]] == cpu[1]:
        return None
    return (cpu[clients] - cpu[1]) / (cpu[CLIENTS[-1]] - cpu[1])


def compare(sim):
    """The CPU per transaction at every point, and each client count's share of the growth."""
    out = []
    for script in SCRIPTS:
        measured = {n: _measured_cpu(script, n) for n in CLIENTS}
        simulated = {n: _simulated_cpu(sim, script, n) for n in CLIENTS}
        for n in CLIENTS:
            median, lo, hi, count = sim.summary_figures(_point(script, n), "cpu_us_per_xact")
            out.append(Comparison(figure=f"{EXPERIMENT}/{_config(script, n)} CPU us per xact", metric="cpu_us_per_xact",
                                  published=measured[n], simulated=median, ci_low=lo, ci_high=hi, n=count, x=n,
                                  series=f"{script}, CPU per transaction"))
        for n in CLIENTS[1:-1]:
            out.append(Comparison(figure=f"{EXPERIMENT}/{_config(script, n)} share of the growth to 16 clients",
                                  metric=SHARE, published=_share(measured, n), simulated=_share(simulated, n),
                                  ci_low=None, ci_high=None, n=len(sim.values(_point(script, n), "cpu_us_per_xact")),
                                  x=n, series=f"{script}, growth share"))
    return out


def _share_check(comparisons):
    rows = [c for c in comparisons if c.metric == SHARE]
    parts, passed = [], bool(rows)
    for c in rows:
        label = c.figure.split("/")[1].split(" ")[0].replace("_syncoff", "")
        if c.simulated is None or c.published is None:
            parts.append(f"{label}: no run")
            passed = False
            continue
        ok = abs(c.simulated - c.published) <= TOLERANCE
        passed = passed and ok
        parts.append(f"{label} {c.simulated:.2f} against {c.published:.2f}{'' if ok else ' (outside)'}")
    return Check("one CPU: the CPU per transaction's growth from 1 client, as a share of its growth to 16 clients, "
                 "within 0.1 of the measured share at 2-8 clients, select-only and tpcb-like", passed, "; ".join(parts))


def checks(sim, comparisons):
    return [_share_check(comparisons)]
