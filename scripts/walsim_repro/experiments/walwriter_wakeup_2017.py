"""walwriter-wakeup-2017: WAL-writer wake-ups on asynchronous commit and the hint-bit page-LSN
rule ("Re: subscription worker signalling wal writer too much", pgsql-hackers, 2017-08).

pgbench -c16 -j16 -M prepared -b tpcb-func at scale 8 with synchronous_commit off, on 8 CPUs,
six variants: the wake-up policy (an asynchronous commit wakes the WAL writer as
XLogSetAsyncXactLSN does from 4de82f7d7c50a8 on, or only a hibernating one) crossed with the hint-bit rule (flushed; flushed or page LSN, db76b1efbbab24),
then the 2016 WAL-writer rework (7975c5e0a) against the 2017 patch. The published variants are
not a cross product (the rework also changes what a writer cycle flushes), so each is a case of
its own (CASES); which policy each label stands for is documented in the scenario's
_assumptions.

Which reading of the published table this reproduces. As printed, the table gives the
cfafd8beadcd6f variant (wake-ups) far less throughput than cfafd8beadcd6f_nowake; the prose around
it says the test shows the importance of waking the WAL writer so that hint bits can be set, and
that the db76b1efbbab24 figures do not differ significantly from cfafd8beadcd6f. Both statements
hold only with the two cfafd8beadcd6f labels swapped (the reference file's "interpretation").
walsim's mechanisms give the swapped, prose-consistent reading, for this reason: under the
flushed rule a hint bit on a tuple of an asynchronously committed transaction can be set only
once the commit record is flushed. Without wake-ups the WAL writer flushes once per
wal_writer_delay (200 ms), so for up to 200 ms after each commit every reader of the hot
pgbench_branches/tellers versions that transaction wrote finds them unhinted, asks the CLOG
(under CLogControlLock) and is refused the hint, again and again; with wake-ups the writer
flushes each WAL page as it completes (and, with it, every commit so far), so the bits get set
within a page's worth of commits. Nothing in the model makes waking the writer cost anything
like the as-printed loss: a wake-up is a signal, and the write-and-fdatasync cycle it drives comes
once per completed page, a few thousand times a second here. So the comparisons and checks use
the swapped figures
(interpretation.tps_if_labels_swapped); the as-printed figures of the two swapped labels are
shown beside them (metric tps_as_printed), unchecked.

Calibration: hardware.cpu.clock only, fitted on db76b1efbbab24_nowake (a point the label swap
does not touch); see the scenario's _calibration. Every other figure is a prediction. The checks
are issue 4's acceptance for this experiment.
"""

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec

ID = "walwriter-wakeup-2017"
TITLE = "WAL-writer wake-up policy x hint-bit rule, 2016 rework vs 2017 patch: pgbench tpcb-func, 16 clients, 8 CPUs"
SCENARIO = "scenarios/walwriter-wakeup-2017.json"
CHART = ("variant (1-6: the published table's order)", False)

WAKE, FLUSH, HINT = "policies.walwriter_wakeup", "policies.walwriter_flush", "policies.hint_bits"
# published label -> the policies it stands for (the scenario's _assumptions say why).
CASES = {
    "cfafd8beadcd6f": {WAKE: "unflushed_page", FLUSH: "all_written", HINT: "flushed"},
    "cfafd8beadcd6f_nowake": {WAKE: "hibernating", FLUSH: "all_written", HINT: "flushed"},
    "db76b1efbbab24": {WAKE: "unflushed_page", FLUSH: "all_written", HINT: "flushed_or_page_lsn"},
    "db76b1efbbab24_nowake": {WAKE: "hibernating", FLUSH: "all_written", HINT: "flushed_or_page_lsn"},
    "7975c5e0a": {WAKE: "unflushed_page", FLUSH: "delay_or_flush_after", HINT: "flushed_or_page_lsn"},
    "7975c5e0a_patched": {WAKE: "unwritten_page", FLUSH: "delay_or_flush_after", HINT: "flushed_or_page_lsn"},
}
WAKE_GAIN_MIN = 0.20  # without the page-LSN rule, waking beats not waking by at least this
PAGE_LSN_WITHIN = 0.03  # with it, wake and nowake within this of each other
REWORK_LOSS = (0.05, 0.15)  # 7975c5e0a's loss against the 2017 patch
TPS_TOLERANCE = 0.15
# Replications and measured simulated time per run (after the scenario's 2s warm-up). The full
# run replicates each variant 14 times, as the thread ran each 14 times and reported medians: the
# three effects sit near their thresholds and three replications' 95% intervals spanned every
# one of them. Quick mode (CTest) keeps three of the full run's windows; one 3 s window had passed
# all three effects where longer runs failed them.
FULL = (14, "6s")
QUICK = (3, "6s")


def _published():
    return reference.published_experiment(ID)


def published_tps():
    """The published TPS per label under the prose-consistent reading: the table's figures with
    the two labels the reference file's interpretation swaps replaced by their swapped values."""
    pub = _published()
    tps = dict(pub["results_tps"])
    tps.update(pub["interpretation"]["tps_if_labels_swapped"])
    return tps


def sweep(quick):
    """One case per published variant, each with its own policies."""
    missing = set(_published()["results_tps"]) - set(CASES)
    if missing:
        raise KeyError(f"{ID}: no policies for the published variant(s) {', '.join(sorted(missing))}")
    repeat, time = QUICK if quick else FULL
    return SweepSpec(vary=[], repeat=repeat, sets=[f"pgbench.time={time}"],
                     cases={name: [f"{k}={v}" for k, v in policies.items()] for name, policies in CASES.items()})


def compare(sim):
    """TPS of every variant against the prose-consistent reading; the as-printed figures of the
    swapped labels beside them."""
    pub = _published()
    swapped = published_tps()
    out = []
    for x, name in enumerate(pub["results_tps"], start=1):
        median, lo, hi, n = sim.summary_figures(CASES[name], "tps")
        out.append(Comparison(figure=f"{name} tps", metric="tps", published=swapped[name], simulated=median,
                              ci_low=lo, ci_high=hi, n=n, x=x, series="TPS (prose-consistent reading)"))
    for name in pub["interpretation"]["tps_if_labels_swapped"]:
        median, lo, hi, n = sim.summary_figures(CASES[name], "tps")
        out.append(Comparison(figure=f"{name} tps, labels as printed (not checked)", metric="tps_as_printed",
                              published=pub["results_tps"][name], simulated=median, ci_low=lo, ci_high=hi, n=n))
    return out


def _tps_rows(comparisons):
    """{label: its TPS comparison}."""
    return {c.figure[:-len(" tps")]: c for c in comparisons if c.metric == "tps"}


def _ratio(rows, a, b, which):
    va, vb = getattr(rows[a], which), getattr(rows[b], which)
    return va / vb if va and vb else None


def _pct(r):
    return "n/a" if r is None else f"{(r - 1) * 100:+.1f}%"


def _interval(sim, a, b, thresholds, show=_pct):
    """The 95% interval of TPS(a) / TPS(b) over the replications, as (detail text, settled)."""
    va, vb = sim.values(CASES[a], "tps"), sim.values(CASES[b], "tps")
    return effects.qualify(effects.ratio_interval(va, vb), thresholds, show, f"{len(va)} and {len(vb)} runs")


def _loss(r):
    return "n/a" if r is None else f"{1 - r:.1%}"


def checks(sim, comparisons):
    """Issue 4's acceptance for the 2017 experiment, on the prose-consistent reading."""
    rows = _tps_rows(comparisons)
    out = []
    r = _ratio(rows, "cfafd8beadcd6f", "cfafd8beadcd6f_nowake", "simulated")
    p = _ratio(rows, "cfafd8beadcd6f", "cfafd8beadcd6f_nowake", "published")
    text, settled = _interval(sim, "cfafd8beadcd6f", "cfafd8beadcd6f_nowake", [1 + WAKE_GAIN_MIN])
    out.append(Check(f"without the page-LSN rule, waking beats not waking by at least {WAKE_GAIN_MIN:.0%}",
                     r is not None and r - 1 >= WAKE_GAIN_MIN,
                     f"cfafd8beadcd6f / cfafd8beadcd6f_nowake: simulated {_pct(r)}{text}, published {_pct(p)}",
                     settled))
    r = _ratio(rows, "db76b1efbbab24", "db76b1efbbab24_nowake", "simulated")
    p = _ratio(rows, "db76b1efbbab24", "db76b1efbbab24_nowake", "published")
    text, settled = _interval(sim, "db76b1efbbab24", "db76b1efbbab24_nowake",
                              [1 - PAGE_LSN_WITHIN, 1 + PAGE_LSN_WITHIN])
    out.append(Check(f"with the page-LSN rule, wake and nowake within {PAGE_LSN_WITHIN:.0%}",
                     r is not None and abs(r - 1) <= PAGE_LSN_WITHIN,
                     f"db76b1efbbab24 / db76b1efbbab24_nowake: simulated {_pct(r)}{text}, published {_pct(p)}",
                     settled))
    r = _ratio(rows, "7975c5e0a", "7975c5e0a_patched", "simulated")
    p = _ratio(rows, "7975c5e0a", "7975c5e0a_patched", "published")
    lo, hi = REWORK_LOSS
    # The interval is of the ratio; as a loss its ends swap.
    text, settled = _interval(sim, "7975c5e0a_patched", "7975c5e0a", [1 / (1 - hi), 1 / (1 - lo)],
                              show=lambda q: _loss(1 / q))
    out.append(Check(f"the 2016 rework (7975c5e0a) loses {lo:.0%} to {hi:.0%} against the 2017 patch",
                     r is not None and lo <= 1 - r <= hi,
                     f"1 - 7975c5e0a / 7975c5e0a_patched: simulated {_loss(r)}{text}, published {_loss(p)}",
                     settled))
    bad = [c for c in rows.values() if c.relative_error is None or abs(c.relative_error) > TPS_TOLERANCE]
    errors = ", ".join(f"{name}: {'no run' if c.relative_error is None else f'{c.relative_error * 100:+.1f}%'}"
                       for name, c in rows.items())
    text, settled = effects.within_tolerance(list(rows.values()), TPS_TOLERANCE)
    out.append(Check(f"TPS within {TPS_TOLERANCE:.0%} of the published TPS for every variant (prose-consistent "
                     "reading)", not bad, f"relative errors: {errors}{text}", settled))
    return out
