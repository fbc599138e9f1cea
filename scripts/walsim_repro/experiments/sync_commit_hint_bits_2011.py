"""sync-commit-hint-bits-2011: SetHintBits' flush test with synchronous_commit off (pgsql-hackers, 2011-11).

The thread ran pgbench tpcb-like at 32 clients for 300 s with synchronous_commit off, as 9.2devel
had it ("flushed": no committed hint while the commit record is unflushed) and with the test
removed ("always"), and reported CLogControlLock's LWLOCK_STATS counters summed over the run on
permanent tables, and the TPS of the two rules on unlogged tables. walsim simulates a shorter
window; its counters are scaled to the published run length (300 s, the reference's "5min") for
the side-by-side figures. The checks are issue 4's acceptance, on ratios that do not depend on the
window: shacq and blk ratios (flushed over always), the exacq ratio (always over flushed: about
one exclusive acquisition per commit, so the throughput gain), and unlogged TPS within 3%.
"""

import statistics

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec
from ..report import figure

ID = "sync-commit-hint-bits-2011"
TITLE = "SetHintBits' flush test vs none, synchronous_commit off, tpcb-like scale 100, 32 clients"
SCENARIO = "scenarios/sync-commit-hint-bits-2011.json"
RULE = "policies.hint_bits"
UNLOGGED = "pgbench.unlogged_tables"
PUBLISHED_RULE = {"unpatched": "flushed", "patched": "always"}
X = {"flushed": 0, "always": 1}  # where each rule goes on the charts
CHART = ("hint-bit rule: 0 = flushed (9.2devel as released), 1 = always (flush test removed)", False)
COUNTERS = ("shacq", "exacq", "blk")
RUN_SECONDS = 300.0  # the thread's "5min" LWLOCK_STATS window and pgbench -T 300
SHACQ_RATIO_MIN = 4.0
BLK_RATIO_MIN = 1.8
EXACQ_RATIO = (1.15, 1.45)
UNLOGGED_SPREAD = 0.03
QUICK = dict(time="2s", warmup="1s", repeat=1)
FULL = dict(time="10s", warmup="2s", repeat=3)


def _published():
    return reference.published_experiment(ID)


def sweep(quick):
    mode = QUICK if quick else FULL
    return SweepSpec(vary=[f"{RULE}=flushed,always", f"{UNLOGGED}=false,true"], repeat=mode["repeat"],
                     sets=[f"pgbench.time={mode['time']}", f"run.warmup={mode['warmup']}"])


def _point(rule, unlogged):
    return {RULE: rule, UNLOGGED: "true" if unlogged else "false"}


def _window_seconds(sim, point):
    """The simulated measurement window of a point: transactions / tps of its runs."""
    tx, tps = sim.median(point, "transactions"), sim.median(point, "tps")
    return tx / tps if tx and tps else None


def _scaled(sim, point, column):
    """The median of a counter over the point's runs, scaled to the published run length."""
    window, value = _window_seconds(sim, point), sim.median(point, column)
    return None if window is None or value is None else value * RUN_SECONDS / window


def compare(sim):
    """CLogControlLock's counters over 300 s on permanent tables, their ratios, and unlogged TPS."""
    pub = _published()
    stats = pub["results"]["permanent_tables_lwlock_stats_CLogControlLock_5min"]
    out = []
    for case, rule in PUBLISHED_RULE.items():
        point = _point(rule, False)
        for counter in COUNTERS:
            out.append(Comparison(figure=f"permanent {rule} CLogControlLock {counter} (300 s)",
                                  metric=f"CLogControlLock_{counter}", published=stats[case][counter],
                                  simulated=_scaled(sim, point, f"CLogControlLock_{counter}"),
                                  n=len(sim.runs_at(point)), x=X[rule], series="permanent tables"))
        # exacq is about one per commit: the thread's implied TPS.
        median, lo, hi, n = sim.summary_figures(point, "tps")
        out.append(Comparison(figure=f"permanent {rule} tps (published: exacq / 300 s)", metric="tps",
                              published=stats[case]["exacq"] / RUN_SECONDS, simulated=median, ci_low=lo,
                              ci_high=hi, n=n, x=X[rule], series="permanent tables"))
    derived = pub["derived"]
    for name, key, num, den in (
            ("shacq ratio flushed / always", "shacq_ratio_unpatched_over_patched", "flushed", "always"),
            ("blk ratio flushed / always", "blk_ratio_unpatched_over_patched", "flushed", "always"),
            ("exacq ratio always / flushed", "exacq_ratio_patched_over_unpatched", "always", "flushed")):
        counter = name.split()[0]
        a = sim.median(_point(num, False), f"CLogControlLock_{counter}")
        b = sim.median(_point(den, False), f"CLogControlLock_{counter}")
        wa, wb = _window_seconds(sim, _point(num, False)), _window_seconds(sim, _point(den, False))
        ratio = (a / wa) / (b / wb) if a and b and wa and wb else None
        out.append(Comparison(figure=f"permanent {name}", metric=f"{counter}_ratio", published=derived[key],
                              simulated=ratio, series="ratios"))
    unlogged = pub["results"]["unlogged_tables_tps"]
    for case, rule in PUBLISHED_RULE.items():
        median, lo, hi, n = sim.summary_figures(_point(rule, True), "tps")
        out.append(Comparison(figure=f"unlogged {rule} tps (median of the 3 published runs)", metric="tps",
                              published=statistics.median(unlogged[case]), simulated=median, ci_low=lo,
                              ci_high=hi, n=n, x=X[rule], series="unlogged tables"))
    return out


def _find(comparisons, metric):
    return next((c for c in comparisons if c.metric == metric), None)


def _fmt(value):
    return "n/a" if value is None else f"{value:.3g}"


def _ratio_interval(sim, counter, num, den, thresholds):
    """(detail text, settled) of the 95% interval of a CLogControlLock counter's rate under rule
    num over its rate under rule den, on permanent tables."""
    a = effects.rates(sim, _point(num, False), f"CLogControlLock_{counter}")
    b = effects.rates(sim, _point(den, False), f"CLogControlLock_{counter}")
    return effects.qualify(effects.ratio_interval(a, b), thresholds, _fmt, f"{len(a)} and {len(b)} runs")


def checks(sim, comparisons):
    """Issue 4's acceptance for the 2011 experiment."""
    shacq, blk, exacq = (_find(comparisons, f"{c}_ratio") for c in ("shacq", "blk", "exacq"))
    out = []
    for row, counter, num, den, thresholds, name, ok in (
            (shacq, "shacq", "flushed", "always", [SHACQ_RATIO_MIN],
             f"permanent tables: CLogControlLock shacq ratio (flushed / always) at least {SHACQ_RATIO_MIN:g}",
             lambda r: r >= SHACQ_RATIO_MIN),
            (blk, "blk", "flushed", "always", [BLK_RATIO_MIN],
             f"permanent tables: CLogControlLock blk ratio (flushed / always) at least {BLK_RATIO_MIN:g}",
             lambda r: r >= BLK_RATIO_MIN),
            (exacq, "exacq", "always", "flushed", list(EXACQ_RATIO),
             f"permanent tables: throughput gain (exacq ratio always / flushed) between "
             f"{EXACQ_RATIO[0]:g} and {EXACQ_RATIO[1]:g}",
             lambda r: EXACQ_RATIO[0] <= r <= EXACQ_RATIO[1])):
        text, settled = _ratio_interval(sim, counter, num, den, thresholds)
        out.append(Check(name, row.simulated is not None and ok(row.simulated),
                         f"simulated {_fmt(row.simulated)}{text}, published {_fmt(row.published)}", settled))
    tps = {rule: sim.median(_point(rule, True), "tps") for rule in PUBLISHED_RULE.values()}
    spread = (abs(tps["always"] - tps["flushed"]) / tps["flushed"]
              if tps["always"] and tps["flushed"] else None)
    a, b = (sim.values(_point(rule, True), "tps") for rule in ("always", "flushed"))
    text, settled = effects.qualify(effects.ratio_interval(a, b), [1 - UNLOGGED_SPREAD, 1 + UNLOGGED_SPREAD],
                                    lambda r: f"{(r - 1) * 100:+.1f}%", f"{len(a)} and {len(b)} runs of always "
                                    "and flushed")
    out.append(Check(f"unlogged tables: the two rules' TPS within {UNLOGGED_SPREAD:.0%} of each other",
                     spread is not None and spread <= UNLOGGED_SPREAD,
                     f"simulated flushed {figure(tps['flushed'])}, always {figure(tps['always'])} tps "
                     f"({'n/a' if spread is None else f'{spread:.1%}'} apart){text}",
                     settled))
    return out
