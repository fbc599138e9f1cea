"""local-pg15-pinning: one client's pgbench and backend on one CPU, on two, or where the kernel puts them.

The reference is scenarios/reference/local-pg15-pinning.json: pgbench tpcb-like at scale 8 with
one client, synchronous_commit on and off, on a 2-vCPU VM of this project's type, in three
layouts set with taskset (scripts/measure_pgbench.py --cpus, --pgbench-cpus): the server on CPU 1
and pgbench on CPU 0 ("split"), everything on CPU 0 ("shared"), and no pinning ("free"). Pinned,
the layout is the same in every run, so what the three give against one another measures what a
message between pgbench and its backend costs across CPUs against on one CPU: the wake-up of an
idle CPU against a context switch, which are what the local profiles' 1-client figures are fitted
with (hardware.os.idle_wakeup, idle_wakeup_cpu, context_switch). Unpinned, the kernel chose: in
some runs of this VM type it keeps the two on one CPU, in others apart (README, *How often a
process changes CPU*).

What is checked is each layout's TPS over the split layout's, within 15% of the measured ratio,
synchronous_commit on and off, since that VM ran a different CPU generation from the one
local-pg15-tpcb.json was calibrated on (AMD family 26 against 25). TPS at every point is shown
beside the measurement for the record. walsim pins as taskset does (hardware.os.server_cpus,
hardware.os.pgbench_cpus).
"""

import statistics

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-pinning"
TITLE = ("1-client tpcb-like with the server and pgbench pinned apart, pinned to one CPU, or unpinned, "
         "synchronous_commit on/off, real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-pinning.json")
SCRIPT = "tpcb-like"
SYNC = ("on", "off")
# Layout: (measured experiment, server CPUs, pgbench CPUs); the first is the others' yardstick.
LAYOUTS = {"split": ("P1", "[1]", "[0]"), "shared": ("P2", "[0]", "[0]"), "free": ("P3", "[]", "[]")}
BASE = "split"
TOLERANCE = 0.15
QUICK_SECONDS = 5
RATIO = "tps_over_split"
CHART = ("layout (0 split, 1 shared, 2 free)", False)


def _runs():
    return reference.LocalRuns(REFERENCE)


def _config(sync):
    return f"{SCRIPT}_c1_sync{sync}"


def _point(layout, sync):
    _, server, pgbench = LAYOUTS[layout]
    return {"hardware.os.server_cpus": server, "hardware.os.pgbench_cpus": pgbench,
            "settings.synchronous_commit": sync}


def sweep(quick):
    """Each layout as a case, over the measured window with as many replications as were measured;
    quick mode runs one replication of a shorter window."""
    some = _runs().runs(LAYOUTS[BASE][0], _config(SYNC[0]))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    cases = {name: [f"hardware.os.server_cpus={server}", f"hardware.os.pgbench_cpus={pgbench}"]
             for name, (_, server, pgbench) in LAYOUTS.items()}
    return SweepSpec(vary=["settings.synchronous_commit=" + ",".join(SYNC)], repeat=1 if quick else len(some),
                     sets=[f"pgbench.builtin={SCRIPT}", "pgbench.clients=1", "pgbench.jobs=1",
                           f"pgbench.time={seconds}s"], cases=cases)


def _measured_tps(layout, sync):
    return _runs().median_tps(f"{LAYOUTS[layout][0]}/{_config(sync)}")


def _ratio(sim, layout, sync):
    """(simulated median ratio, its 95% interval or None) of the layout's TPS over the split one's."""
    base = sim.values(_point(BASE, sync), "tps")
    other = sim.values(_point(layout, sync), "tps")
    if not base or not other:
        return None, None
    return statistics.median(other) / statistics.median(base), effects.ratio_interval(other, base)


def compare(sim):
    """TPS in every layout, and each layout's over the split one's."""
    out = []
    for sync in SYNC:
        for x, layout in enumerate(LAYOUTS):
            median, lo, hi, n = sim.summary_figures(_point(layout, sync), "tps")
            out.append(Comparison(figure=f"{LAYOUTS[layout][0]}/{_config(sync)} tps ({layout})", metric="tps",
                                  published=_measured_tps(layout, sync), simulated=median, ci_low=lo, ci_high=hi,
                                  n=n, x=x, series=f"synchronous_commit={sync}"))
            if layout == BASE:
                continue
            ratio, interval = _ratio(sim, layout, sync)
            out.append(Comparison(figure=f"{_config(sync)} {layout} over {BASE} tps", metric=RATIO,
                                  published=_measured_tps(layout, sync) / _measured_tps(BASE, sync), simulated=ratio,
                                  ci_low=interval[0] if interval else None, ci_high=interval[1] if interval else None,
                                  n=len(sim.values(_point(layout, sync), "tps")), x=x,
                                  series=f"synchronous_commit={sync}"))
    return out


def _ratio_check(comparisons, layout, what):
    rows = [c for c in comparisons if c.metric == RATIO and f" {layout} over " in c.figure]
    parts = []
    for c in rows:
        label = c.figure.split(" ")[0]
        if c.simulated is None:
            parts.append(f"{label}: no run")
            continue
        ok = abs(c.relative_error) <= TOLERANCE
        parts.append(f"{label} {c.simulated:.2f}x against {c.published:.2f}x{'' if ok else ' (outside)'}")
    passed = bool(rows) and all(c.simulated is not None and abs(c.relative_error) <= TOLERANCE for c in rows)
    text, settled = effects.within_tolerance(rows, TOLERANCE)
    return Check(f"1 client, {what} over pinned apart: TPS ratio within 15% of the measured ratio, "
                 "synchronous_commit on and off", passed, "; ".join(parts) + text, settled)


def checks(sim, comparisons):
    return [_ratio_check(comparisons, "shared", "pinned to one CPU"),
            _ratio_check(comparisons, "free", "unpinned")]
