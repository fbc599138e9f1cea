#!/usr/bin/env python3
"""Fit the few free parameters of this machine's profile to its 1-client pgbench runs.

The reference runs (scenarios/reference/local-pg15.json, experiment E1) give, for tpcb-like at
scale 8 with one client, four figures per machine that walsim's parameters map onto directly:

  synchronous_commit=off  CPU per transaction        -> hardware.os.idle_wakeup_cpu
                          latency                    -> hardware.os.idle_wakeup
                          backend active time        -> the scale of the backend costs (costs/pg15.json)
  synchronous_commit=on   CPU per transaction        -> hardware.os.fdatasync_cpu
                          latency                    -> hardware.wal_device.flush_latency

With one client every round trip wakes a process on an idle CPU, so these figures pin down the
cost of such a wake-up, and the extra of a synchronous commit pins down fdatasync(). Runs with 2 to
16 clients are not used: they are what the profile must predict.

With --clock-from, the machine's CPU speed (hardware.cpu.clock) is fitted first, to the CPU per
transaction of one run made on one CPU (measure_pgbench.py --cpus 0): there no wake-up finds an
idle CPU, so that figure is the work of a transaction at this machine's speed plus its context
switches (the profile's, from walsim-probe), whatever the wake-up figures fitted next. With one
client only pgbench and one backend share the CPU, so no backend's cache is crowded out either.

With --working-set-from (one-CPU runs with many clients, after --clock-from), the backend's
working set (costs.backend_working_set: in the scenario's own costs block if it sets one, else in the
shared cost table) is fitted next, by least squares
on those runs' CPU per transaction: with many backends on one CPU each of them refills its share
of the core's cache whenever it runs (the profile's cpu.cache, from walsim-probe), and still no
wake-up finds an idle CPU. It needs the profile's cpu.cache.

With --fit-refill as well, the cache's refill rate (cpu.cache.refill_per_kB) is fitted with the
working set, given one-CPU runs at two or more client counts: walsim-probe's rate is that of a
chase refilled from the shared cache of a quiet machine, while a backend's data may have left that
cache too, and the growth between the client counts tells the two apart (a large set refilled
cheaply is crowded out early, by the first few other backends; a small one refilled dearly
steadily, one backend at a time).

With --fit-set, the 1-client runs are simulated with those overrides: the layout they were
measured in, e.g. hardware.os.server_cpus=[1] and hardware.os.pgbench_cpus=[0] for runs pinned apart
with measure_pgbench.py --cpus 1 --pgbench-cpus 0, where every message between pgbench and the
backend wakes the other, idle, CPU whatever the kernel would have chosen.

Each parameter is solved in turn by the secant method on walsim itself. The script prints the
fitted values (and, with --write, stores them in the profile and the cost table).
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

from walsim_repro.fitting import gauss_newton_step, line_search, relative_error

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "scenarios", "local-pg15-tpcb.json")
PROFILE = os.path.join(ROOT, "scenarios", "hardware", "local-2core.json")
COSTS = os.path.join(ROOT, "scenarios", "costs", "pg15.json")
REFERENCE = os.path.join(ROOT, "scenarios", "reference", "local-pg15.json")

# Backend code-path costs scaled together; pgbench's and the WAL writer's are not backend work.
NOT_BACKEND = {"spinlock_section", "xlog_insert_lock_scan", "walwriter_loop", "client_command",
               "client_transaction", "xlog_copy_per_kB", "backend_working_set"}


def measured(sync, reference=REFERENCE, experiment="E1"):
    """Medians over the experiment's repetitions of the 1-client tpcb-like run with
    synchronous_commit=sync."""
    ref = json.load(open(reference))
    runs = [r for r in ref["runs"]
            if r["experiment"] == experiment and r["clients"] == 1 and r["synchronous_commit"] == sync
            and r.get("script", "tpcb-like") == "tpcb-like"]
    if not runs:
        sys.exit(f"calibrate_local: {reference} has no 1-client tpcb-like runs of {experiment} "
                 f"with synchronous_commit={sync}")
    median = lambda f: statistics.median(f(r) for r in runs)
    return {
        "latency_us": median(lambda r: r["latency_ms_avg"] * 1000),
        "cpu_us": median(lambda r: r["cpu"]["busy_cpu_us_per_txn"]),
        # Time per transaction that a CPU sat idle with the backend blocked on I/O.
        "iowait_us": median(lambda r: r["cpu"]["iowait_frac"] * ref["hardware"]["cpus"] / r["tps"] * 1e6),
        "active_us": median(lambda r: r["wait_event_shares"]["mean_active_backends"]
                            * r["latency_ms_avg"] * 1000) if "wait_event_shares" in runs[0] else None,
    }


def duration_us(text):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms)", text)
    return float(m.group(1)) * {"ns": 1e-3, "us": 1.0, "ms": 1e3}[m.group(2)]


def bandwidth_bytes_per_us(text):
    m = re.fullmatch(r"([0-9.]+)(kB|MB|GB)/s", text)
    return float(m.group(1)) * {"kB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}[m.group(2)] / 1e6


def fmt_us(us):
    return f"{us * 1000:.0f}ns" if us < 1 else f"{us:.3g}us"


class Walsim:
    def __init__(self, binary, seconds, scenario=SCENARIO):
        self.binary = binary
        self.seconds = seconds
        self.scenario = scenario

    def run(self, sync, sets):
        """Simulated latency, CPU and active time per transaction (microseconds)."""
        sets = dict(sets)
        clients = sets.pop("pgbench.clients", 1)
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            cmd = [self.binary, "run", self.scenario, "-c", str(clients), "-T", f"{self.seconds}s", "-q",
                   "--set", f"settings.synchronous_commit={sync}", "--json", out.name]
            for key, value in sets.items():
                cmd += ["--set", f"{key}={value}"]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            r = json.load(open(out.name))
        txns = r["pgbench"]["transactions"]
        return {
            "latency_us": r["pgbench"]["latency_ms"]["average"] * 1000,
            "cpu_us": r["cpu"]["busy_cpu_us_per_txn"],
            "active_us": r["mean_active_backends"] * r["pgbench"]["duration_s"] / txns * 1e6,
        }


def secant(f, x0, x1, target, tol=0.005, steps=8):
    """x with f(x) = target, for f increasing in x."""
    y0, y1 = f(x0), f(x1)
    for _ in range(steps):
        if abs(y1 - target) <= tol * target or y1 == y0:
            break
        x0, y0, x1 = x1, y1, x1 + (target - y1) * (x1 - x0) / (y1 - y0)
        x1 = max(x1, 0.0)
        y1 = f(x1)
    return x1


def gauss_newton(f, x, want, tol=0.002, steps=8, h=2.0):
    """x >= 0 minimising the sum of squared relative errors of f(x) against want: Gauss-Newton
    with a finite-difference Jacobian, halving steps that do not reduce the error."""
    y = f(x)
    for _ in range(steps):
        jac = []  # jac[j][i] = d(y_i / want_i) / d x_j
        for j in range(len(x)):
            xj = x[:]
            xj[j] += h
            yj = f(xj)
            jac.append([(yj[i] - y[i]) / h / want[i] for i in range(len(y))])
        cand, yc = line_search(f, x, y, gauss_newton_step(jac, y, want), want, 0.0)
        improved = relative_error(y, want) - relative_error(yc, want)
        x, y = (cand, yc) if improved > 0 else (x, y)
        if improved < tol * tol:
            break
    return x


def scaled_costs(base, scale):
    return {f"costs.{k}": fmt_us(duration_us(v) * scale)
            for k, v in base.items() if not k.startswith("_") and k not in NOT_BACKEND}


def one_cpu_run(reference, name):
    """(script, clients, synchronous_commit, median CPU per transaction) of the runs of a
    configuration such as "H2/select-only_c1_syncoff"."""
    experiment, _, config = name.partition("/")
    runs = [r for r in json.load(open(reference))["runs"]
            if r["experiment"] == experiment and r["config"] == config]
    if not runs:
        sys.exit(f"calibrate_local: {reference} has no runs of {name}")
    r = runs[0]
    return (r["script"], r["clients"], r["synchronous_commit"],
            statistics.median(x["cpu"]["busy_cpu_us_per_txn"] for x in runs))


def fit_clock(walsim, reference, name, profile_path):
    """The clock (GHz) at which the simulated CPU per transaction of the one-CPU run matches."""
    script, clients, sync, want = one_cpu_run(reference, name)
    point = {"pgbench.builtin": script, "pgbench.clients": clients, "hardware.cpu.cores_per_socket": 1}
    ghz0 = float(re.fullmatch(r"([0-9.]+)GHz", json.load(open(profile_path))["cpu"]["clock"]).group(1))
    # CPU per transaction falls as the clock rises: solve for its reciprocal, which rises.
    per_us = lambda ghz: 1.0 / walsim.run(sync, {**point, "hardware.cpu.clock": f"{ghz:.4f}GHz"})["cpu_us"]
    return secant(per_us, ghz0, ghz0 * 0.8, 1.0 / want), want


def golden_section(error, lo, hi, width):
    """(x, error(x)) near the minimum of a unimodal error on [lo, hi], to within width."""
    ratio = (5 ** 0.5 - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    ea, eb = error(a), error(b)
    while hi - lo > width:
        if ea < eb:
            hi, b, eb = b, a, ea
            a = hi - ratio * (hi - lo)
            ea = error(a)
        else:
            lo, a, ea = a, b, eb
            b = lo + ratio * (hi - lo)
            eb = error(b)
    return (a, ea) if ea < eb else (b, eb)


def fit_working_set(walsim, reference, names, sets):
    """The backend working set (kB) that best matches the one-CPU runs' CPU per transaction
    (least squares on relative errors; golden-section search, the error being unimodal in it),
    and the error there."""
    runs = [one_cpu_run(reference, name) for name in names]

    def error(kb):
        total = 0.0
        for script, clients, sync, want in runs:
            point = {**sets, "pgbench.builtin": script, "pgbench.clients": clients,
                     "hardware.cpu.cores_per_socket": 1, "costs.backend_working_set": f"{kb:.1f}kB"}
            total += (walsim.run(sync, point)["cpu_us"] / want - 1) ** 2
        return total

    return golden_section(error, 0.0, 1024.0, 4)


def fit_refill(walsim, reference, names, sets):
    """The refill rate (ns per kB) and working set (kB) that together best match the one-CPU runs:
    the working set is fitted at each trial rate, and the rate searched on a log scale. With
    runs at two client counts, the rate sets how the cost grows between them (a small set
    refilled dearly grows evenly with the backends crowding it out; a large one cheaply, early)."""
    best = {}

    def error(log_ns):
        ns = math.exp(log_ns)
        kb, err = fit_working_set(walsim, reference, names, {**sets, "hardware.cpu.cache.refill_per_kB": f"{ns:.1f}ns"})
        best[log_ns] = (ns, kb, err)
        return err

    log_ns, _ = golden_section(error, math.log(50.0), math.log(3000.0), 0.1)
    ns, kb, _ = best[log_ns]
    return ns, kb


def fit(walsim, keep_costs, reference, experiment, profile_path, clock_from=None, working_set_from=None,
        fit_sets=None, fit_refill_too=False):
    off, on = measured("off", reference, experiment), measured("on", reference, experiment)
    base = json.load(open(COSTS))
    sets = {}
    clock = None
    if clock_from:
        clock, _ = fit_clock(walsim, reference, clock_from, profile_path)
        sets["hardware.cpu.clock"] = f"{clock:.4f}GHz"
    working_set = refill = None
    if working_set_from:
        if "cache" not in json.load(open(profile_path))["cpu"]:
            sys.exit(f"calibrate_local: {profile_path} has no cpu.cache: measure it with walsim-probe")
        names = working_set_from.split(",")
        if fit_refill_too:
            refill, working_set = fit_refill(walsim, reference, names, sets)
            sets["hardware.cpu.cache.refill_per_kB"] = f"{refill:.1f}ns"
        else:
            working_set, _ = fit_working_set(walsim, reference, names, sets)
        sets["costs.backend_working_set"] = f"{working_set:.1f}kB"

    sets.update(fit_sets or {})

    # 1. The backend's active time does not depend on wake-up costs: fit the cost scale first.
    # The cost table is shared by every scenario: --keep-costs refits this machine's figures only.
    scale = 1.0
    if not keep_costs:
        if off["active_us"] is None:
            sys.exit(f"calibrate_local: {reference} has no wait-event samples to fit the cost "
                     "scale to: use --keep-costs")
        quiet = {"hardware.os.idle_wakeup": "0", "hardware.os.idle_wakeup_cpu": "0"}
        active = lambda s: walsim.run("off", {**quiet, **scaled_costs(base, s)})["active_us"]
        scale = secant(active, 1.0, 0.8, off["active_us"])
        sets.update(scaled_costs(base, scale))

    # 2. With one client, the CPU is idle while fdatasync() waits for the device: iowait per
    # transaction is the device's share of a flush, the rest of the write's latency and transfer
    # being known from the profile.
    profile = json.load(open(profile_path))
    device = profile["wal_device"]
    write_us = duration_us(device["write_latency"]) + 8192 / bandwidth_bytes_per_us(device["bandwidth"])
    flush = max(0.0, on["iowait_us"] - write_us)
    sets["hardware.wal_device.flush_latency"] = fmt_us(flush)

    # 3. The wake-up onto an idle CPU (its CPU cost and its delay) and fdatasync()'s CPU part
    # shape the four latency and CPU figures: fit them by least squares.
    keys = ["hardware.os.idle_wakeup_cpu", "hardware.os.idle_wakeup", "hardware.os.fdatasync_cpu"]
    goals = [("off", "latency_us"), ("off", "cpu_us"), ("on", "latency_us"), ("on", "cpu_us")]
    want = [{"off": off, "on": on}[sync][key] for sync, key in goals]

    def figures(x):
        trial = {**sets, **{k: fmt_us(v) for k, v in zip(keys, x)}}
        runs = {sync: walsim.run(sync, trial) for sync in ("off", "on")}
        return [runs[sync][key] for sync, key in goals]

    x = gauss_newton(figures, [15.0, 10.0, 40.0], want)
    sets.update({k: fmt_us(v) for k, v in zip(keys, x)})
    wake_cpu, wake_delay, sync_cpu = x

    fitted = {"scale": scale, "idle_wakeup_cpu": wake_cpu, "idle_wakeup": wake_delay,
              "fdatasync_cpu": sync_cpu, "flush_latency": flush}
    if clock is not None:
        fitted["clock_GHz"] = clock
    if working_set is not None:
        fitted["backend_working_set_kB"] = working_set
    if refill is not None:
        fitted["refill_ns_per_kB"] = refill
    check = {"off": walsim.run("off", sets), "on": walsim.run("on", sets)}
    return fitted, check, {"off": off, "on": on}, base


def write(fitted, base, keep_costs, profile_path, scenario_path=SCENARIO):
    if not keep_costs:
        write_costs(fitted, base)
    profile = json.load(open(profile_path))
    profile["os"]["idle_wakeup_cpu"] = fmt_us(fitted["idle_wakeup_cpu"])
    profile["os"]["idle_wakeup"] = fmt_us(fitted["idle_wakeup"])
    profile["os"]["fdatasync_cpu"] = fmt_us(fitted["fdatasync_cpu"])
    profile["wal_device"]["flush_latency"] = fmt_us(fitted["flush_latency"])
    if "clock_GHz" in fitted:
        profile["cpu"]["clock"] = f"{fitted['clock_GHz']:.3g}GHz"
    if "refill_ns_per_kB" in fitted:
        profile["cpu"]["cache"]["refill_per_kB"] = f"{fitted['refill_ns_per_kB']:.0f}ns"
    if "backend_working_set_kB" in fitted:
        # Where the scenario takes it from: its own costs block if it sets one, else the shared table.
        scenario = json.load(open(scenario_path))
        own = "backend_working_set" in scenario.get("costs", {})
        path = scenario_path if own else COSTS
        doc = json.load(open(path))
        (doc["costs"] if own else doc)["backend_working_set"] = f"{fitted['backend_working_set_kB']:.0f}kB"
        with open(path, "w") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")
    with open(profile_path, "w") as f:
        json.dump(profile, f, indent=2)
        f.write("\n")


def write_costs(fitted, base):
    costs = json.load(open(COSTS))
    for key, value in base.items():
        if not key.startswith("_") and key not in NOT_BACKEND:
            costs[key] = fmt_us(duration_us(value) * fitted["scale"])
    json.dump(costs, open(COSTS, "w"), indent=2)
    open(COSTS, "a").write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--walsim", default=os.environ.get("WALSIM", os.path.join(ROOT, "build", "walsim")))
    ap.add_argument("--seconds", type=float, default=10, help="simulated seconds per trial run")
    ap.add_argument("--write", action="store_true", help="store the fitted values in the profile and costs")
    ap.add_argument("--keep-costs", action="store_true",
                    help="keep the shared cost table as it is: fit the machine's OS and device figures only")
    ap.add_argument("--reference", default=REFERENCE, help="the measured runs (local-pg15.json's form)")
    ap.add_argument("--experiment", default="E1", help="which of the reference's experiments to fit to")
    ap.add_argument("--scenario", default=SCENARIO, help="the scenario to simulate the 1-client runs with")
    ap.add_argument("--profile", default=PROFILE,
                    help="the hardware profile the scenario uses, whose figures are fitted (and written)")
    ap.add_argument("--clock-from", metavar="EXPERIMENT/CONFIG",
                    help="fit the CPU clock first, to the CPU per transaction of this one-CPU run "
                         "(e.g. H2/select-only_c1_syncoff), simulated on one core")
    ap.add_argument("--working-set-from", metavar="EXPERIMENT/CONFIG,...",
                    help="then fit the backend working set to these one-CPU runs with many clients "
                         "(e.g. H2/select-only_c16_syncoff,H2/simple-update_c16_syncoff)")
    ap.add_argument("--fit-refill", action="store_true",
                    help="with --working-set-from, fit the cache's refill rate (cpu.cache.refill_per_kB) "
                         "together with the working set; give runs at two or more client counts")
    ap.add_argument("--fit-set", action="append", default=[], metavar="KEY=VALUE",
                    help="an override for the fitted 1-client runs, e.g. the pinning they were measured "
                         "with (repeatable)")
    args = ap.parse_args()
    fit_sets = {}
    for item in args.fit_set:
        key, sep, value = item.partition("=")
        if not sep or not key:
            ap.error(f"--fit-set: expected KEY=VALUE, got {item!r}")
        fit_sets[key] = value
    if args.fit_refill and not args.working_set_from:
        sys.exit("calibrate_local: --fit-refill needs --working-set-from (runs at two or more client counts)")
    if args.working_set_from and not args.clock_from:
        sys.exit("calibrate_local: --working-set-from needs --clock-from (the clock is fitted first)")
    if not os.access(args.walsim, os.X_OK):
        sys.exit(f"calibrate_local: no walsim binary at {args.walsim} (use --walsim)")
    fitted, check, target, base = fit(Walsim(args.walsim, args.seconds, args.scenario), args.keep_costs,
                                      args.reference, args.experiment, args.profile, args.clock_from,
                                      args.working_set_from, fit_sets, args.fit_refill)
    print("fitted:", json.dumps({k: round(v, 4) for k, v in fitted.items()}))
    for sync in ("off", "on"):
        for key in ("latency_us", "cpu_us", "active_us"):
            sim, ref = check[sync][key], target[sync][key]
            if ref is None:
                continue
            print(f"synchronous_commit={sync:3} {key:10} simulated {sim:8.1f} measured {ref:8.1f} "
                  f"({100 * (sim / ref - 1):+.1f}%)")
    if args.write:
        write(fitted, base, args.keep_costs, args.profile, args.scenario)


if __name__ == "__main__":
    main()
