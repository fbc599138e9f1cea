"""local-pg15-f26: one instance of this project's VM type, profiled on its own and predicted.

Instances of the 2-vCPU VM type differ more than one profile can follow: the one measured on
2026-12-07 woke a busy CPU four times as dearly as the instance local-2core.json's figure came
from (walsim-probe: 22 against 5.7 us) and ran pinned 1-client pgbench about twice as fast as
local-pg15.json's host. scenarios/hardware/local-2core-f26.json is that instance's profile: its OS
figures measured there with walsim-probe, its clock fitted to 1-client tpcb-like with everything
on CPU 0, and its idle wake-up and fdatasync() figures to 1-client runs pinned apart (server on
CPU 1, pgbench on CPU 0; scenarios/reference/local-pg15-f26-pinned.json). Everything else is
predicted and checked here:

- pinned to one CPU over pinned apart, the TPS ratio within 15% of the measured one, synchronous_
  commit on and off (as local-pg15-pinning checks it on local-2core.json). With synchronous_commit
  off the one-CPU run's CPU per transaction is what the clock was fitted to, so that ratio is
  fitted in part; with it on it is a prediction;
- unpinned, 2 to 16 clients with pgbench -j 2 (scenarios/reference/local-pg15-walwriter.json, the
  same instance half an hour earlier): TPS within 15% of the measured median at every client
  count, synchronous_commit on and off (local-pg15's check), and the WAL writer's wake-ups and CPU
  per cycle as local-pg15-walwriter checks them;
- unpinned, the TPS at 2 to 16 clients over the TPS at 1 client, within 15% of the measured ratio
  (scenarios/reference/local-pg15-f26-unpinned-paired.json: each N-client run seconds after a
  1-client run, because this host's speed moves up to twofold within minutes), synchronous_commit
  on and off: how throughput scales, apart from how fast one client runs;
- the same with the server pinned to CPU 1 and pgbench (-j 1) to CPU 0 at 4 and 16 clients (the
  reference's S44): the backends crowd one CPU and every message crosses to the other.
"""

import statistics

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path
from . import local_pg15_pinning as pinning
from . import local_pg15_walwriter as walwriter

ID = "local-pg15-f26"
TITLE = ("One family 26 instance profiled on its own: pinned 1-client layouts, 2-16 clients and the WAL writer, "
         "synchronous_commit on/off, real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-f26-tpcb.json"
PINNED = repo_path("scenarios", "reference", "local-pg15-f26-pinned.json")
UNPINNED_PAIRED = repo_path("scenarios", "reference", "local-pg15-f26-unpinned-paired.json")
PAIRED = {"free": "U44", "split": "S44"}  # layout -> its paired experiment
CROWDED_CLIENTS = (1, 4, 16)
SCALING = "tps_over_1_client"
SCRIPT = "tpcb-like"
SYNC = ("on", "off")
# Layout: (measured experiment, server CPUs, pgbench CPUs); the first is the other's yardstick.
LAYOUTS = {"split": ("F1", "[1]", "[0]"), "shared": ("F2", "[0]", "[0]")}
FREE = {"hardware.os.server_cpus": "[]", "hardware.os.pgbench_cpus": "[]"}
TPS_TOLERANCE = 0.15
RATIO = pinning.RATIO
QUICK_SECONDS = 5
CHART = ("pgbench clients (-c)", True)


def _pinned():
    return reference.LocalRuns(PINNED)


def _config(sync):
    return f"{SCRIPT}_c1_sync{sync}"


def _layout_point(layout, sync):
    _, server, pgbench = LAYOUTS[layout]
    return {"hardware.os.server_cpus": server, "hardware.os.pgbench_cpus": pgbench, "pgbench.clients": 1,
            "settings.synchronous_commit": sync}


def sweep(quick):
    """The two pinned layouts at 1 client and the unpinned points of local-pg15-walwriter, over the
    measured window (10 s in both references) with as many replications as were measured; quick
    mode runs one shorter one."""
    unpinned = walwriter.sweep(quick)
    some = _pinned().runs(LAYOUTS["split"][0], _config(SYNC[0]))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    cases = {name: [f"hardware.os.server_cpus={server}", f"hardware.os.pgbench_cpus={pgbench}", "pgbench.clients=1",
                    "pgbench.jobs=1"]
             for name, (_, server, pgbench) in LAYOUTS.items()}
    cases["split"][2] = "pgbench.clients=" + ",".join(map(str, CROWDED_CLIENTS))
    clients = ",".join(map(str, walwriter._clients()))
    jobs = walwriter._runs().jobs(walwriter.EXPERIMENT)
    cases["free"] = ["hardware.os.server_cpus=[]", "hardware.os.pgbench_cpus=[]", f"pgbench.clients={clients}",
                     f"pgbench.jobs={jobs}"]
    return SweepSpec(vary=["settings.synchronous_commit=" + ",".join(SYNC)], repeat=unpinned.repeat,
                     sets=[f"pgbench.builtin={SCRIPT}", f"pgbench.time={seconds}s"], cases=cases)


def _measured_tps(layout, sync):
    return _pinned().median_tps(f"{LAYOUTS[layout][0]}/{_config(sync)}")


def _ratio_comparisons(sim):
    out = []
    for sync in SYNC:
        base = sim.values(_layout_point("split", sync), "tps")
        other = sim.values(_layout_point("shared", sync), "tps")
        for x, layout in enumerate(LAYOUTS):
            median, lo, hi, n = sim.summary_figures(_layout_point(layout, sync), "tps")
            out.append(Comparison(figure=f"{LAYOUTS[layout][0]}/{_config(sync)} tps ({layout})", metric="tps_pinned",
                                  published=_measured_tps(layout, sync), simulated=median, ci_low=lo, ci_high=hi,
                                  n=n, x=x, series=f"pinned, synchronous_commit={sync}"))
        interval = effects.ratio_interval(other, base) if base and other else None
        out.append(Comparison(figure=f"{_config(sync)} shared over split tps", metric=RATIO,
                              published=_measured_tps("shared", sync) / _measured_tps("split", sync),
                              simulated=statistics.median(other) / statistics.median(base) if base and other else None,
                              ci_low=interval[0] if interval else None, ci_high=interval[1] if interval else None,
                              n=len(other), x=1, series=f"synchronous_commit={sync}"))
    return out


def _layout_clients_point(layout, clients, sync):
    if layout == "free":
        return walwriter._point(clients, sync, FREE)
    return {**_layout_point(layout, sync), "pgbench.clients": clients}


def _scaling_comparisons(sim):
    """TPS at N clients over 1 client in the same layout, simulated (ratio of medians) and measured
    (median of the paired runs' ratios): unpinned, and with the server on CPU 1 and pgbench on 0."""
    pairs = reference.load_json(UNPINNED_PAIRED)["pairs"]
    out = []
    for layout, experiment in PAIRED.items():
        where = "unpinned" if layout == "free" else "server on CPU 1, pgbench on CPU 0"
        clients = walwriter._clients() if layout == "free" else CROWDED_CLIENTS
        for sync in SYNC:
            one = sim.values(_layout_clients_point(layout, 1, sync), "tps")
            for n in clients:
                key = f"{experiment}/{walwriter._config(n, sync)}"
                if n == 1 or key not in pairs:
                    continue
                many = sim.values(_layout_clients_point(layout, n, sync), "tps")
                out.append(Comparison(figure=f"{key} tps over 1 client ({where})", metric=SCALING,
                                      published=pairs[key]["tps_ratio"],
                                      simulated=statistics.median(many) / statistics.median(one) if one and many else None,
                                      n=len(many), x=n, series=f"{where} over 1 client, synchronous_commit={sync}"))
    return out


def compare(sim):
    """The pinned layouts' TPS and ratio, local-pg15-walwriter's figures on the unpinned runs, and
    the unpinned scaling over 1 client."""
    return _ratio_comparisons(sim) + walwriter.compare(sim, FREE) + _scaling_comparisons(sim)


def _tps_check(comparisons):
    rows = [c for c in comparisons if c.metric == "tps" and "_c1_" not in c.figure]
    outside = [c for c in rows if c.relative_error is None or abs(c.relative_error) > TPS_TOLERANCE]
    shown = "; ".join(f"{c.figure.split('/')[1].split(' ')[0]} {c.relative_error:+.1%}" if c.relative_error is not None
                      else f"{c.figure}: no run" for c in rows)
    return Check("unpinned, 2-16 clients: TPS within 15% of the measured median at every client count, "
                 "synchronous_commit on and off", not outside and bool(rows),
                 f"{len(rows) - len(outside)} of {len(rows)} points within 15%: {shown}")


def _scaling_check(comparisons, experiment, name):
    rows = [c for c in comparisons if c.metric == SCALING and c.figure.startswith(experiment + "/")]
    outside = [c for c in rows if c.relative_error is None or abs(c.relative_error) > TPS_TOLERANCE]
    shown = "; ".join(f"{c.figure.split('/')[1].split(' ')[0]} {c.simulated:.2f}x against {c.published:.2f}x"
                      if c.simulated is not None else f"{c.figure}: no run" for c in rows)
    return Check(name, not outside and bool(rows), f"{len(rows) - len(outside)} of {len(rows)} points within 15%: {shown}")


def checks(sim, comparisons):
    return ([pinning._ratio_check(comparisons, "shared", "pinned to one CPU"), _tps_check(comparisons),
             _scaling_check(comparisons, PAIRED["free"],
                            "unpinned, 2-16 clients: TPS over 1 client within 15% of the measured ratio (paired "
                            "runs), synchronous_commit on and off"),
             _scaling_check(comparisons, PAIRED["split"],
                            "server on CPU 1, pgbench on CPU 0, 4 and 16 clients: TPS over 1 client within 15% of "
                            "the measured ratio (paired runs), synchronous_commit on and off")]
            + walwriter.checks(sim, comparisons))
