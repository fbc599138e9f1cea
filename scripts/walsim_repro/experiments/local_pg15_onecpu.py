"""local-pg15-onecpu: how the CPU per transaction grows as backends crowd one CPU.

The reference is scenarios/reference/local-pg15-f26-onecpu-paired.json: pgbench select-only and
tpcb-like, synchronous_commit off, 2 to 16 clients, the server and pgbench all pinned to CPU 0,
on the instance hardware/local-2core-f26.json profiles, each run seconds after a 1-client run of
the same script. On one CPU no wake-up finds an idle CPU, and every backend that runs finds in the
core's cache and translations what the others left there: the real CPU per transaction grew 2.5
times (select-only) and 2.2 times (tpcb-like) from 1 to 16 clients.

This host's speed moves up to twofold within minutes, so what is compared is each pair's ratio,
not absolute figures: the growth from 1 client to N clients as a share of the growth from 1 to 16
(median pair ratios), within 0.1 of the measured share at 2, 3, 4, 6 and 8 clients, for both
scripts. The profile's refill rate is walsim-probe's, its translation refault is fitted to
local-pg15-hugepages' 16-client difference and its working set to the 16-client runs of
local-pg15-f26-pinned.json (F4); every share here is a prediction. The earlier series
(local-pg15-f26-onecpu.json, C42) took its 1-client medians from runs minutes away from the others
and is kept for the record only.
"""

import statistics

from .. import reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-onecpu"
TITLE = "CPU per transaction as backends crowd one CPU, 1-16 clients, real PostgreSQL 15 on one of 2 cores"
SCENARIO = "scenarios/local-pg15-f26-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-f26-onecpu-paired.json")
EXPERIMENTS = ("P44", "P44S")  # 4 kB pages; P44S adds select-only pairs at 2-5 clients
SCRIPTS = ("select-only", "tpcb-like")
CLIENTS = (1, 2, 3, 4, 6, 8, 16)
SHARE = "growth_share"
RATIO = "cpu_over_1_client"
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
    some = _runs().runs(EXPERIMENTS[0], _config(SCRIPTS[0], 2))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    return SweepSpec(vary=["pgbench.builtin=" + ",".join(SCRIPTS), "pgbench.clients=" + ",".join(map(str, CLIENTS))],
                     repeat=1 if quick else len(some),
                     sets=["hardware.os.server_cpus=[0]", "hardware.os.pgbench_cpus=[0]", "pgbench.jobs=1",
                           "settings.synchronous_commit=off", f"pgbench.time={seconds}s"])


def _measured_ratio(script, clients):
    """The median over the pairs of the CPU per transaction at `clients` over 1 client."""
    return 1.0 if clients == 1 else statistics.median(_runs().paired_ratios(EXPERIMENTS, _config(script, clients)))


def _simulated_cpu(sim, script, clients):
    values = sim.values(_point(script, clients), "cpu_us_per_xact")
    return statistics.median(values) if values else None


def _share(ratio, clients):
    """The growth from 1 client to `clients` over the growth from 1 to 16, from {clients: CPU over 1 client}."""
    if any(ratio.get(n) is None for n in (clients, CLIENTS[-1])) or ratio[CLIENTS[-1]] == 1:
        return None
    return (ratio[clients] - 1) / (ratio[CLIENTS[-1]] - 1)


def _over_1(cpu):
    return {n: (v / cpu[1] if v is not None and cpu.get(1) else None) for n, v in cpu.items()}


def compare(sim):
    """Each client count's CPU per transaction over 1 client, and its share of the growth."""
    out = []
    for script in SCRIPTS:
        measured = {n: _measured_ratio(script, n) for n in CLIENTS}
        simulated = _over_1({n: _simulated_cpu(sim, script, n) for n in CLIENTS})
        for n in CLIENTS[1:]:
            out.append(Comparison(figure=f"{_config(script, n)} CPU per xact over 1 client", metric=RATIO,
                                  published=measured[n], simulated=simulated[n], ci_low=None, ci_high=None,
                                  n=len(sim.values(_point(script, n), "cpu_us_per_xact")), x=n,
                                  series=f"{script}, over 1 client"))
        for n in CLIENTS[1:-1]:
            out.append(Comparison(figure=f"{_config(script, n)} share of the growth to 16 clients",
                                  metric=SHARE, published=_share(measured, n), simulated=_share(simulated, n),
                                  ci_low=None, ci_high=None, n=len(sim.values(_point(script, n), "cpu_us_per_xact")),
                                  x=n, series=f"{script}, growth share"))
    return out


def _share_check(comparisons):
    rows = [c for c in comparisons if c.metric == SHARE]
    parts, passed = [], bool(rows)
    for c in rows:
        label = c.figure.split(" ")[0].replace("_syncoff", "")
        if c.simulated is None or c.published is None:
            parts.append(f"{label}: no run")
            passed = False
            continue
        ok = abs(c.simulated - c.published) <= TOLERANCE
        passed = passed and ok
        parts.append(f"{label} {c.simulated:.2f} against {c.published:.2f}{'' if ok else ' (outside)'}")
    return Check("one CPU: the CPU per transaction's growth from 1 client, as a share of its growth to 16 clients, "
                 "within 0.1 of the measured share at 2-8 clients (paired runs), select-only and tpcb-like", passed, "; ".join(parts))


def checks(sim, comparisons):
    return [_share_check(comparisons)]
