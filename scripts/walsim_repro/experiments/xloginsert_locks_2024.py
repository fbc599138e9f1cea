"""xloginsert-locks-2024: sweeping NUM_XLOGINSERT_LOCKS at 64 clients (pgsql-hackers, 2024-01).

The thread ran pgbench tpcb-like for 300 s per lock count and reported TPS and two totals summed
over backends: the time spent acquiring a WAL insertion lock and the time spent in
WaitXLogInsertionsToFinish. walsim simulates a shorter window; its totals are scaled to the
published run length (read from the published pgbench command line) before they are compared.
The scenario calibrates pgbench's per-command CPU on the locks = 8 point only (see its
_calibration section); everything else is predicted. The checks are issue 3's acceptance.
"""

import re

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec
from ..report import figure

ID = "xloginsert-locks-2024"
TITLE = "NUM_XLOGINSERT_LOCKS 8-128, pgbench tpcb-like, scale 100, 64 clients, synchronous_commit on"
SCENARIO = "scenarios/xloginsert-locks-2024.json"
KEY = "settings.NUM_XLOGINSERT_LOCKS"
CHART = ("NUM_XLOGINSERT_LOCKS", True)
PLOTS = [("latency_avg_ms", KEY)]
# published series name -> results.csv column
TOTALS = {"wal_insert_lock_acquire_time_ms": "insert_lock_acquire_ms",
          "wal_wait_for_insert_to_finish_time_ms": "wait_for_insertions_ms"}
TPS_TOLERANCE = 0.10
TPS_SPREAD = 0.08
ACQUIRE_FALL = 2.0
WAIT_RISE = 1.5
TOTALS_FACTOR = 2.0
QUICK_TIME, FULL_TIME = 3, 10  # simulated seconds per run


def _published():
    return reference.published_experiment(ID)


def _run_seconds():
    """The published run length, from its pgbench command line (--time=300)."""
    match = re.search(r"--time[= ](\d+)", _published()["setup"]["run"])
    if not match:
        raise RuntimeError(f"{ID}: no --time in the published pgbench command line")
    return float(match.group(1))


def sweep(quick):
    locks = _published()["results"]["locks"]
    return SweepSpec(vary=[f"{KEY}=" + ",".join(map(str, locks))], repeat=1 if quick else 3,
                     sets=[f"pgbench.time={QUICK_TIME if quick else FULL_TIME}s"])


def _window_seconds(sim, point):
    """The simulated measurement window of a point: transactions / tps of its runs."""
    tx, tps = sim.median(point, "transactions"), sim.median(point, "tps")
    return tx / tps if tx and tps else None


def compare(sim):
    """TPS and the two totals (scaled to the published run length) at every lock count."""
    pub = _published()["results"]
    run_s = _run_seconds()
    out = []
    for i, locks in enumerate(pub["locks"]):
        point = {KEY: locks}
        median, lo, hi, n = sim.summary_figures(point, "tps")
        out.append(Comparison(figure=f"locks={locks} tps", metric="tps", published=pub["tps"][i], simulated=median,
                              ci_low=lo, ci_high=hi, n=n, x=locks, series="TPS"))
        window = _window_seconds(sim, point)
        for name, column in TOTALS.items():
            median, lo, hi, n = sim.summary_figures(point, column)
            scale = run_s / window if window else None
            scaled = [None if v is None or scale is None else v * scale for v in (median, lo, hi)]
            out.append(Comparison(figure=f"locks={locks} {name}", metric=name, published=pub[name][i],
                                  simulated=scaled[0], ci_low=scaled[1], ci_high=scaled[2], n=n, x=locks,
                                  series=name))
    return out


def _by_locks(comparisons, metric):
    return {int(c.x): c for c in comparisons if c.metric == metric}


def _tps_checks(comparisons):
    rows = _by_locks(comparisons, "tps")
    bad = [c for c in rows.values() if c.relative_error is None or abs(c.relative_error) > TPS_TOLERANCE]
    errors = ", ".join(f"{x}: {c.relative_error * 100:+.1f}%" if c.relative_error is not None else f"{x}: no run"
                       for x, c in sorted(rows.items()))
    text, settled = effects.within_tolerance([c for _, c in sorted(rows.items())], TPS_TOLERANCE)
    within = Check(f"TPS within {TPS_TOLERANCE:.0%} of the published TPS at every lock count", not bad,
                   f"relative errors by lock count: {errors}{text}", settled)
    values = [c.simulated for c in rows.values() if c.simulated is not None]
    spread = (max(values) - min(values)) / min(values) if len(values) == len(rows) and min(values) > 0 else None
    varies = Check(f"TPS varies by less than {TPS_SPREAD:.0%} across the sweep",
                   spread is not None and spread < TPS_SPREAD,
                   f"simulated (max - min) / min = {'n/a' if spread is None else f'{spread:.1%}'}")
    return [within, varies]


def _ratio_check(sim, comparisons, metric, a, b, need, verb):
    rows = _by_locks(comparisons, metric)
    sa, sb = rows[a].simulated, rows[b].simulated
    ratio = sa / sb if sa and sb else None
    if verb == "rises":
        ratio = sb / sa if sa and sb else None
    pub = rows[b].published / rows[a].published if verb == "rises" else rows[a].published / rows[b].published
    name = f"{metric} {verb} at least {need:g}x from {a} to {b} locks"
    first, second = (effects.rates(sim, {KEY: locks}, TOTALS[metric]) for locks in (a, b))
    bigger, smaller = (second, first) if verb == "rises" else (first, second)
    text, settled = effects.qualify(effects.ratio_interval(bigger, smaller), [need], lambda r: f"{r:.2f}x",
                                    f"{len(first)} and {len(second)} runs")
    detail = (f"simulated {figure(sa)} -> {figure(sb)} ms ({'n/a' if ratio is None else f'{ratio:.2f}x'}){text}, "
              f"published {figure(rows[a].published)} -> {figure(rows[b].published)} ms ({pub:.2f}x)")
    return Check(name, ratio is not None and ratio >= need, detail, settled)


def _factor_check(comparisons):
    rows = [c for c in comparisons if c.metric in TOTALS]
    bad = [c for c in rows if not c.simulated or not (1 / TOTALS_FACTOR <= c.simulated / c.published <= TOTALS_FACTOR)]
    detail = f"{len(rows) - len(bad)} of {len(rows)} within a factor of {TOTALS_FACTOR:g}"
    if bad:
        detail += "; outside: " + ", ".join(
            f"{c.figure} (simulated {figure(c.simulated)}, published {figure(c.published)})" for c in bad)
    return Check(f"both totals within a factor of {TOTALS_FACTOR:g} of the published ms at every lock count",
                 not bad, detail)


def checks(sim, comparisons):
    """Issue 3's acceptance for the 2024 sweep."""
    return _tps_checks(comparisons) + [
        _ratio_check(sim, comparisons, "wal_insert_lock_acquire_time_ms", 8, 64, ACQUIRE_FALL, "falls"),
        _ratio_check(sim, comparisons, "wal_wait_for_insert_to_finish_time_ms", 8, 128, WAIT_RISE, "rises"),
        _factor_check(comparisons),
    ]
