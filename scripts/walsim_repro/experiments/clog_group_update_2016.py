"""clog-group-update-2016: CLOG group status update at 1-256 clients (pgsql-hackers, 2016-02).

The thread ran pgbench TPC-B-like on HEAD and with the group-update patch (one leader sets the
CLOG status of every backend queued on CLogControlLock) and reported TPS at 1, 64, 128 and 256
clients. walsim runs both variants (policies.clog_group_update false / true) at those client
counts; the scenario calibrates one cost on one point (see its _calibration section), and
everything else is predicted. The checks are issue 4's acceptance for this experiment. Beside
TPS, the CLogControlLock blk count and the wait-event shares are kept (results.csv) to tell
whether CLogControlLock is what limits the model at high client counts. Full mode simulates 5 s
windows (the published runs were tens of minutes) with 5 replications, because at 256 clients
without group update the model's TPS varies several-fold from seed to seed.
"""

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec

ID = "clog-group-update-2016"
TITLE = "CLOG group status update on/off, pgbench tpcb-like at 1, 64, 128, 256 clients"
SCENARIO = "scenarios/clog-group-update-2016.json"
CLIENTS = "pgbench.clients"
POLICY = "policies.clog_group_update"
CHART = ("clients", True)
PLOTS = [("CLogControlLock_blk", CLIENTS), ("latency_avg_ms", CLIENTS)]
# published series -> policy value
SERIES = {"tps_head_481725c0": "false", "tps_group_update": "true"}
LABEL = {"false": "HEAD", "true": "group update"}

# Issue 4's tolerances.
SAME_AT = (1, 64)          # the two variants within SAME_TOLERANCE of each other here
SAME_TOLERANCE = 0.03
GAIN_AT = (128, 256)       # group update ahead by GAIN_RANGE here
GAIN_RANGE = (0.05, 0.18)
TPS_TOLERANCE = 0.15
QUICK_TIME, FULL_TIME = 1, 5  # simulated seconds per run (after the scenario's 1 s warm-up)
QUICK_REPEAT, FULL_REPEAT = 1, 5  # 256 clients without group update varies much from seed to seed


def _published():
    return reference.published_experiment(ID)


def sweep(quick):
    clients = _published()["results"]["clients"]
    return SweepSpec(vary=[f"{POLICY}=false,true", f"{CLIENTS}=" + ",".join(map(str, clients))],
                     repeat=QUICK_REPEAT if quick else FULL_REPEAT,
                     sets=[f"pgbench.time={QUICK_TIME if quick else FULL_TIME}s"])


def compare(sim):
    """TPS of both variants at every client count."""
    pub = _published()["results"]
    out = []
    for series, policy in SERIES.items():
        for i, clients in enumerate(pub["clients"]):
            point = {POLICY: policy, CLIENTS: clients}
            median, lo, hi, n = sim.summary_figures(point, "tps")
            out.append(Comparison(figure=f"{LABEL[policy]} c={clients} tps", metric="tps", published=pub[series][i],
                                  simulated=median, ci_low=lo, ci_high=hi, n=n, x=clients, series=LABEL[policy]))
    return out


def _tps(comparisons, policy, clients, which):
    for c in comparisons:
        if c.metric == "tps" and c.series == LABEL[policy] and int(c.x) == clients:
            return c.simulated if which == "sim" else c.published
    return None


def _gain(comparisons, clients, which):
    head, group = _tps(comparisons, "false", clients, which), _tps(comparisons, "true", clients, which)
    return (group - head) / head if head and group else None


def _pct(v):
    return "n/a" if v is None else f"{v * 100:+.1f}%"


def _gain_interval(sim, clients, thresholds):
    """(detail text, settled) of the 95% interval of group update's gain at one client count."""
    head = sim.values({POLICY: "false", CLIENTS: clients}, "tps")
    group = sim.values({POLICY: "true", CLIENTS: clients}, "tps")
    interval = effects.ratio_interval(group, head)
    return effects.qualify(interval, [1 + t for t in thresholds], lambda r: _pct(r - 1),
                           f"{len(group)} and {len(head)} runs")


def _gains(sim, comparisons, at, thresholds):
    """(all gains, detail, settled) of group update against HEAD at the client counts `at`."""
    gains, parts, verdicts = {}, [], []
    for c in at:
        gains[c] = _gain(comparisons, c, "sim")
        text, settled = _gain_interval(sim, c, thresholds)
        lo, hi = thresholds
        verdicts.append((gains[c] is not None and lo <= gains[c] <= hi, settled))
        parts.append(f"{c} clients: group vs HEAD {_pct(gains[c])}{text} "
                     f"(published {_pct(_gain(comparisons, c, 'pub'))})")
    return gains, "; ".join(parts), effects.combine(verdicts)


def _same_check(sim, comparisons):
    gains, detail, settled = _gains(sim, comparisons, SAME_AT, (-SAME_TOLERANCE, SAME_TOLERANCE))
    ok = all(g is not None and abs(g) <= SAME_TOLERANCE for g in gains.values())
    return Check(f"TPS of the two variants within {SAME_TOLERANCE:.0%} of each other at "
                 f"{' and '.join(map(str, SAME_AT))} clients", ok, detail, settled)


def _gain_check(sim, comparisons):
    lo, hi = GAIN_RANGE
    gains, detail, settled = _gains(sim, comparisons, GAIN_AT, GAIN_RANGE)
    ok = all(g is not None and lo <= g <= hi for g in gains.values())
    return Check(f"group update ahead by {lo:.0%} to {hi:.0%} at {' and '.join(map(str, GAIN_AT))} clients", ok,
                 detail, settled)


def _head_falls_check(sim, comparisons):
    a, b = GAIN_AT
    ta, tb = _tps(comparisons, "false", a, "sim"), _tps(comparisons, "false", b, "sim")
    pa, pb = _tps(comparisons, "false", a, "pub"), _tps(comparisons, "false", b, "pub")
    ok = ta is not None and tb is not None and tb < ta
    va, vb = (sim.values({POLICY: "false", CLIENTS: c}, "tps") for c in (a, b))
    text, settled = effects.qualify(effects.ratio_interval(vb, va), [1.0], lambda r: f"{r:.3f}x",
                                    f"{len(vb)} and {len(va)} runs")
    return Check(f"without group update, TPS at {b} clients below TPS at {a} clients", ok,
                 f"simulated {ta or 0:.0f} -> {tb or 0:.0f}{text}, published {pa:.0f} -> {pb:.0f}", settled)


def _within_check(comparisons):
    rows = [c for c in comparisons if c.metric == "tps"]
    bad = [c for c in rows if c.relative_error is None or abs(c.relative_error) > TPS_TOLERANCE]
    errors = ", ".join(f"{c.series} {int(c.x)}: {_pct(c.relative_error)}" for c in rows)
    text, settled = effects.within_tolerance(rows, TPS_TOLERANCE)
    return Check(f"TPS within {TPS_TOLERANCE:.0%} of the published TPS at every point", not bad,
                 f"relative errors: {errors}{text}", settled)


def checks(sim, comparisons):
    """Issue 4's acceptance for the 2016 group-update runs."""
    return [_same_check(sim, comparisons), _gain_check(sim, comparisons), _head_falls_check(sim, comparisons),
            _within_check(comparisons)]
