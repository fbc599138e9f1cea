"""local-pg15: pgbench tpcb-like at scale 8 on this 2-core machine against real PostgreSQL 15.

The reference is experiment E1 of scenarios/reference/local-pg15.json: 1 to 16 clients with
synchronous_commit on and off, three 30-second repetitions each. The scenario's costs are
calibrated on the 1-client runs; the other points are predictions. The acceptance criteria are
those of issue 3: TPS within 15% of the measured median at every point, WAL records and bytes
per transaction within 10%, and the top two wait events at 8 and 16 clients as measured.

CLOG lookups: pg_stat_slru's Xact page hits per transaction (a commit's status update, plus
each visibility check that found no hint bit and was not served by the single-entry fetch cache)
are compared at every point within the 10% issue 3 sets for the per-transaction WAL figures; with
synchronous_commit off, SetHintBits refuses a hint while the commit is unflushed, so the real
server looks up the CLOG more often, and a second check asks for that direction at every client
count.

Two more checks compare pg_stat_wal's write and sync counters (wal_counters.py), which issue 3
asks walsim to report but states no acceptance for: group commit, as syncs per transaction with
synchronous_commit on at 2-16 clients (1 client syncs once per commit by construction), within
the 10% issue 3 sets for the other WAL figures; and the WAL writer with it off, as writes and
syncs per MiB of WAL at every client count, within 15% (a 30 s run syncs only about 250 times).

Wait events: the measured shares (active_wait_event_shares) are what a client sampling
pg_stat_activity every ~20 ms on the same two CPUs read. Such a client reads only once it has a
CPU, so on a busy machine it sees fewer backends running than there are on average. The points
compared (8 and 16 clients) therefore run with walsim's sampler (run.activity_sampling, psql's
\watch every 20 ms, with the CPU such a query costs), and the shares compared are what it read
(results.csv's sampled.* columns). The other points run without it: at 1 client the simulated
sampler's bursts of CPU change how pgbench and its backend share the CPUs far more than the real
sampler's did (tests/known_gaps.json), which would distort the fitted 1-client point; at 8 and
16 clients both CPUs are busy anyway, and the sampler costs them about 2% of their throughput, as
the real one did. The measured "CPU(NULL)", an active backend with no wait event, is walsim's
"CPU". The top two are those with the largest median share over the repetitions (simulated: over
the replications), compared as a pair, in either order.
"""

from .. import effects, reference, wal_counters
from ..model import Check, Comparison, SweepSpec
from ..report import figure
from ..sweep import SAMPLED_PREFIX

ID = "local-pg15"
TITLE = "pgbench tpcb-like, scale 8, 1-16 clients, synchronous_commit on/off, real PostgreSQL 15 on 2 cores"
SCENARIO = "scenarios/local-pg15-tpcb.json"
EXPERIMENT = "E1"
CLIENTS = [1, 2, 4, 8, 16]
SYNC = ["on", "off"]
WAIT_CLIENTS = [8, 16]
SAMPLING = "20ms"  # the reference's sampler: pg_stat_activity every ~20 ms
TPS_TOLERANCE = 0.15
WAL_TOLERANCE = 0.10
MEASURED_CPU = "CPU(NULL)"
PLOTS = [("latency_avg_ms", "pgbench.clients")]
CHART = ("pgbench clients (-c)", True)
WAL_METRICS = {"wal_records_per_xact": "wal_records", "wal_bytes_per_xact": "wal_bytes"}
CLOG_METRIC = "slru_xact_blks_hit_per_xact"
CLOG_TOLERANCE = 0.10


def _config(clients, sync):
    """The configuration's name in local-pg15.json."""
    return f"tpcb_c{clients}_sync{sync}"


def _point(clients, sync):
    """The sweep point, as results.csv columns."""
    return {"pgbench.clients": clients, "settings.synchronous_commit": sync}


def _runs():
    """The measured runs."""
    return reference.LocalRuns()


def sweep(quick):
    """The measured duration (the FPI share of the WAL depends on it) and pgbench threads (-j 2, one
    per client at 1 client) and, in full mode, as many replications as the measurement had; quick
    mode runs one."""
    some_runs = _runs().runs(EXPERIMENT, _config(CLIENTS[0], SYNC[0]))
    duration = some_runs[0]["duration_s"]
    unsampled = [c for c in CLIENTS if c not in WAIT_CLIENTS]
    cases = {"unsampled": ["pgbench.clients=" + ",".join(map(str, unsampled)), "run.activity_sampling.interval=0"],
             "sampled": ["pgbench.clients=" + ",".join(map(str, WAIT_CLIENTS)),
                         f"run.activity_sampling.interval={SAMPLING}"]}
    return SweepSpec(vary=["settings.synchronous_commit=" + ",".join(SYNC)],
                     repeat=1 if quick else len(some_runs),
                     sets=[f"pgbench.time={duration}s", f"pgbench.jobs={_runs().jobs(EXPERIMENT)}"], cases=cases)


def _simulated(sim, point, metric):
    """(median, ci_low, ci_high, n): summary.csv's figures, or, for a metric it does not summarise
    (the CLOG's), the same from the point's runs."""
    if metric != CLOG_METRIC:
        return sim.summary_figures(point, metric)
    values = sim.values(point, metric)
    return (*effects.median_interval(values), len(values))


def compare(sim):
    """TPS (the reference's medians), WAL records and bytes and CLOG page hits per transaction (the
    median over the repetitions) at every point, and the WAL counters' figures."""
    ref = _runs()
    out = []
    for sync in SYNC:
        for clients in CLIENTS:
            config, point = _config(clients, sync), _point(clients, sync)
            series = f"synchronous_commit={sync}"
            published = {"tps": ref.median_tps(f"{EXPERIMENT}/{config}")}
            for metric, counter in WAL_METRICS.items():
                published[metric] = ref.median_per_transaction(EXPERIMENT, config, counter)
            published[CLOG_METRIC] = ref.median_of(EXPERIMENT, config,
                                                   lambda r: r["slru"]["Xact"]["blks_hit"] / r["transactions"])
            for metric, value in published.items():
                median, lo, hi, n = _simulated(sim, point, metric)
                out.append(Comparison(figure=f"{EXPERIMENT}/{config} {metric}", metric=metric, published=value,
                                      simulated=median, ci_low=lo, ci_high=hi, n=n, x=clients, series=series))
            for metric in wal_counters.metrics_at(sync, clients):
                c = wal_counters.comparison(sim, point, ref.runs(EXPERIMENT, config), metric,
                                            f"{EXPERIMENT}/{config}", clients, series)
                if c is not None:
                    out.append(c)
    return out


def _within(comparisons, metric, tolerance, name):
    """One check: every comparison of a metric within a relative tolerance."""
    rows = [c for c in comparisons if c.metric == metric]
    bad = [c for c in rows if c.relative_error is None or abs(c.relative_error) > tolerance]
    worst = max(rows, key=lambda c: abs(c.relative_error) if c.relative_error is not None else float("inf"))
    detail = (f"{len(rows) - len(bad)} of {len(rows)} points within {tolerance:.0%}; worst "
              f"{worst.figure}: simulated {figure(worst.simulated)}, published {figure(worst.published)}")
    if bad:
        detail += "; outside: " + ", ".join(_short(c) for c in bad)
    text, settled = effects.within_tolerance(rows, tolerance)
    return Check(name, not bad, detail + text, settled)


def _short(comparison):
    """The configuration and its relative error, e.g. "tpcb_c4_syncon (+43.1%)"."""
    config = comparison.figure.split("/")[1].split()[0]
    error = comparison.relative_error
    return f"{config} ({'no run' if error is None else f'{error * 100:+.1f}%'})"


def _top_two(shares):
    """The two events with the largest shares (ties by name)."""
    ranked = sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:2]


def _describe_top(top):
    """Names and shares, e.g. "A 37% + B 30%"."""
    return " + ".join(f"{e} {v:.0%}" for e, v in top) or "none"


def _wait_check(sim):
    """One check over the points of WAIT_CLIENTS, both synchronous_commit settings."""
    ref = _runs()
    details, passed = [], True
    for sync in SYNC:
        for clients in WAIT_CLIENTS:
            measured = {("CPU" if e == MEASURED_CPU else e): v
                        for e, v in ref.median_wait_shares(EXPERIMENT, _config(clients, sync)).items()}
            simulated = sim.median_wait_shares(_point(clients, sync), SAMPLED_PREFIX)
            m2, s2 = _top_two(measured), _top_two(simulated)
            same = {e for e, _ in m2} == {e for e, _ in s2} and len(s2) == 2
            passed &= same
            active = sim.median(_point(clients, sync), "sampled_active_backends")
            measured_active = ref.median_of(EXPERIMENT, _config(clients, sync),
                                            lambda r: r["wait_event_shares"]["mean_active_backends"])
            details.append(f"c{clients} sync {sync}: {'match' if same else 'MISMATCH'}, simulated "
                           f"{_describe_top(s2)}, measured {_describe_top(m2)} (active backends "
                           f"{figure(active)}, measured {figure(measured_active)})")
    return Check("top two wait events at 8 and 16 clients match the measured top two (as a pg_stat_activity "
                 "sampler read them)", passed, "; ".join(details))


def _clog_direction(comparisons):
    """With synchronous_commit off, more CLOG page hits per transaction than with it on, at every
    client count, in the simulation as in the measurement."""
    rows = {(c.series, c.x): c for c in comparisons if c.metric == CLOG_METRIC}
    parts, passed = [], True
    for clients in CLIENTS:
        off, on = rows[("synchronous_commit=off", clients)], rows[("synchronous_commit=on", clients)]
        if off.simulated is None or on.simulated is None:
            passed = False
            parts.append(f"c{clients}: no run")
            continue
        simulated, measured = off.simulated / on.simulated, off.published / on.published
        passed &= simulated > 1
        parts.append(f"c{clients} {simulated:.2f}x (measured {measured:.2f}x)")
    return Check("CLOG lookups: more pg_stat_slru Xact page hits per transaction with synchronous_commit off than on "
                 "at every client count (SetHintBits waits for the flush)", passed, "off over on: " + ", ".join(parts))


def checks(sim, comparisons):
    """Issue 3's acceptance criteria for this machine."""
    return [
        _within(comparisons, "tps", TPS_TOLERANCE, "TPS within 15% of the measured median at every point"),
        _within(comparisons, "wal_records_per_xact", WAL_TOLERANCE,
                "WAL records per transaction within 10% of the measured median at every point"),
        _within(comparisons, "wal_bytes_per_xact", WAL_TOLERANCE,
                "WAL bytes per transaction within 10% of the measured median at every point"),
        _wait_check(sim),
        _within(comparisons, CLOG_METRIC, CLOG_TOLERANCE,
                "CLOG lookups: pg_stat_slru Xact page hits per transaction within 10% of the measured median at every "
                "point"),
        _clog_direction(comparisons),
    ] + wal_counters.checks(comparisons, "2-16")
