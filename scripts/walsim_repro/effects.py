"""How sure a check's verdict is: 95% intervals of the simulated effects the checks compare.

A check compares an effect (one variant's mean over another's) with a published threshold, on a
few replications. When the effect's interval spans the threshold, the same model with other seeds
could give the other verdict: the report says so, so that a reader does not take a PASS or FAIL
by a hair for a property of the model. The verdict itself stays the point estimate the issue's
acceptance names; the interval only qualifies it.
"""

import math
import statistics

# Student's t, two-sided 95% (the 0.975 quantile), by degrees of freedom.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    """The 0.975 quantile of Student's t with df degrees of freedom (df >= 1). A fractional df
    (Welch's) is rounded down, which widens the interval a little rather than narrowing it."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    whole = int(math.floor(df))
    if whole <= len(_T975):
        return _T975[whole - 1]
    return 1.960 + 2.4 / whole  # within 0.002 of the exact quantile from 31 on


def median_interval(values):
    """(median, low, high) of replications' values: the 95% interval of their mean, or None for
    both bounds with fewer than two values; (None, None, None) with none."""
    if not values:
        return None, None, None
    median = statistics.median(values)
    if len(values) < 2:
        return median, None, None
    half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    mean = statistics.fmean(values)
    return median, mean - half, mean + half


def ratio_interval(a, b):
    """95% interval of mean(a) / mean(b) from two independent samples (replications with distinct
    seeds), or None when either has fewer than two values or a mean that is not positive.

    On the log scale, where a ratio of means is nearly normal for the few per-cent spreads of
    replicated runs: log mean(a) - log mean(b), its standard error by the delta method, and Welch's
    degrees of freedom, since the two variants' spreads differ (a variant that waits for the WAL
    writer varies far more than one that does not)."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    if ma <= 0 or mb <= 0:
        return None
    ua = statistics.variance(a) / (len(a) * ma * ma)  # squared relative standard error of mean(a)
    ub = statistics.variance(b) / (len(b) * mb * mb)
    ratio = ma / mb
    se2 = ua + ub
    if se2 == 0:
        return ratio, ratio
    df = se2 * se2 / (ua * ua / (len(a) - 1) + ub * ub / (len(b) - 1))
    half = t975(df) * math.sqrt(se2)
    return ratio * math.exp(-half), ratio * math.exp(half)


def qualify(interval, thresholds, show, runs):
    """(text, settled) for a check's detail: the interval as `show` formats an effect, and whether
    it clears every threshold. settled is None when there is no interval (one replication)."""
    if interval is None:
        return "", None
    lo, hi = interval
    spanned = [t for t in thresholds if lo <= t <= hi]
    text = f" (95% interval {show(lo)} to {show(hi)} over {runs}"
    if spanned:
        return text + f"; it spans the threshold {', '.join(show(t) for t in spanned)}: these runs do not " \
                      "settle the verdict)", False
    return text + ")", True


def combine(parts):
    """The settled flag of a check that needs every part to pass, from its parts' (passed, settled):
    one settled failure settles the FAIL whatever the rest; otherwise any unsettled part leaves it
    open, and parts without an interval leave it unknown (None)."""
    if any(not passed and settled for passed, settled in parts):
        return True
    if any(settled is False for _, settled in parts):
        return False
    return True if parts and all(settled for _, settled in parts) else None


def within_tolerance(comparisons, tolerance):
    """(text, settled) for a check that every comparison's simulated median lies within tolerance
    of its published figure. A point is unsettled when the 95% interval of its simulated mean
    reaches across published * (1 +- tolerance); the text names those points. settled as combine()
    gives it over the points, None when no point has an interval."""
    parts, open_ = [], []
    for c in comparisons:
        if c.ci_low is None or c.ci_high is None or not c.published or c.relative_error is None:
            parts.append((c.relative_error is not None and abs(c.relative_error) <= tolerance, None))
            continue
        crosses = any(c.ci_low <= c.published * (1 + s * tolerance) <= c.ci_high for s in (-1, 1))
        parts.append((abs(c.relative_error) <= tolerance, not crosses))
        if crosses:
            open_.append(c)
    if not open_:
        return "", combine(parts)
    names = ", ".join(f"{c.figure} ({c.ci_low:.6g} to {c.ci_high:.6g})" for c in open_)
    return (f"; the 95% interval of the simulated mean reaches across a {tolerance:.0%} bound at {names}"), \
        combine(parts)


def rates(sim, point, column):
    """A counter per simulated second of each of the point's runs (its window being transactions /
    tps), for effects between points whose windows may differ."""
    out = []
    for row in sim.runs_at(point):
        try:
            value, tx, tps = float(row[column]), float(row["transactions"]), float(row["tps"])
        except (KeyError, TypeError, ValueError):
            continue
        if tx > 0 and tps > 0:
            out.append(value * tps / tx)
    return out
