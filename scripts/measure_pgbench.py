#!/usr/bin/env python3
"""Measure a real PostgreSQL with pgbench, in the form of scenarios/reference/local-pg15.json.

Runs every (script, clients, synchronous_commit) point of the cross product, repetitions
interleaved so that a slow minute of a shared host spreads over all points, with a CHECKPOINT
and a pg_stat_wal reset before each run, and records TPS, WAL counters, and the whole machine's
CPU time and context switches (/proc/stat) per transaction. Run it as a role that may ALTER
SYSTEM, against a database that `pgbench -i` initialised; never from the test suite.

  scripts/measure_pgbench.py --db bench --scripts select-only,simple-update \
      --clients 1,4,16 --sync on,off --time 20 --reps 3 --out holdout.json

With --processes, the server's long-lived processes (the WAL writer, checkpointer, background
writer, and the kernel's threads) also get their voluntary and involuntary context switches and CPU
time per transaction over the run (per task from /proc, as scripts/measure_switches.py reads them;
backends and pgbench start and end inside the run, so that script's window measures those).

With --cpus, the server (the postmaster, so every backend it starts, and its helpers) and pgbench
are pinned to those CPUs for the whole measurement: on one CPU every transaction is served by
context switches among the processes, which measures what those switches cost.

With --paired-with N, every other point runs right after a run of the same script and commit mode
at N clients, and the output's "pairs" gives each point's CPU per transaction and TPS over its
partner's, median over the repetitions. A shared host's speed can move twofold within minutes;
a ratio of two runs seconds apart cancels most of that, where a ratio of medians does not.

With --guc NAME=V1,V2,... (repeatable), each value of a server setting is one more axis of the
cross product, set with ALTER SYSTEM and a reload before each run and reset at the end; a point's
name then ends in _NAMEVALUE (e.g. tpcb-like_c8_syncon_commit_delay1000), and its runs record the
values in "gucs". Only settings a reload applies (pg_settings.context sighup, superuser or user)
are accepted.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_switches  # noqa: E402  (its per-task reader)


def psql(db, sql):
    out = subprocess.run(["psql", "-X", "-At", "-d", db, "-c", sql], check=True,
                         capture_output=True, text=True)
    return out.stdout.strip()


def proc_stat():
    """Busy and total CPU jiffies, steal, and context switches, machine-wide."""
    with open("/proc/stat") as f:
        lines = f.read().splitlines()
    cpu = [int(x) for x in lines[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = cpu[:8]
    ctxt = next(int(l.split()[1]) for l in lines if l.startswith("ctxt "))
    busy = user + nice + system + irq + softirq
    return {"busy": busy, "total": busy + idle + iowait + steal, "iowait": iowait, "steal": steal,
            "ctxt": ctxt}


def cpu_model():
    """The first CPU's model name, family and model, from /proc/cpuinfo."""
    info = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
    return f"{info.get('model name', '?')} (family {info.get('cpu family', '?')}, model {info.get('model', '?')})"


def set_sync(db, mode):
    psql(db, f"ALTER SYSTEM SET synchronous_commit = '{mode}'")
    psql(db, "SELECT pg_reload_conf()")
    time.sleep(0.5)
    got = psql(db, "SHOW synchronous_commit")
    if got != mode:
        sys.exit(f"measure_pgbench: synchronous_commit is {got}, expected {mode}")


def parse_guc(arg):
    """NAME=V1,V2,... -> (NAME, [V1, V2, ...])."""
    name, sep, values = arg.partition("=")
    if not sep or not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or not values:
        raise ValueError(f"--guc: expected NAME=V1,V2,..., got {arg!r}")
    vals = values.split(",")
    if any(not re.fullmatch(r"[A-Za-z0-9_.]+", v) for v in vals):
        raise ValueError(f"--guc {name}: values must be plain words or numbers, got {values!r}")
    return name, vals


def check_reloadable(db, name):
    context = psql(db, f"SELECT context FROM pg_settings WHERE name = '{name}'")
    if context not in ("sighup", "superuser", "user"):
        sys.exit(f"measure_pgbench: --guc {name}: " +
                 ("no such setting" if not context else f"a {context} setting needs a restart, not a reload"))


def set_gucs(db, gucs):
    if not gucs:
        return
    for name, value in gucs.items():
        psql(db, f"ALTER SYSTEM SET {name} = '{value}'")
    psql(db, "SELECT pg_reload_conf()")
    time.sleep(0.5)
    for name, value in gucs.items():
        got = psql(db, f"SELECT setting FROM pg_settings WHERE name = '{name}'")
        if got != value:
            sys.exit(f"measure_pgbench: {name} is {got}, expected {value}")


def reset_gucs(db, names):
    for name in names:
        psql(db, f"ALTER SYSTEM RESET {name}")
    if names:
        psql(db, "SELECT pg_reload_conf()")


def server_pids(db):
    """The postmaster and every process it has started (postmaster.pid names the first)."""
    datadir = psql(db, "SHOW data_directory")
    with open(os.path.join(datadir, "postmaster.pid")) as f:
        postmaster = f.readline().strip()
    children = subprocess.run(["pgrep", "-P", postmaster], capture_output=True, text=True).stdout.split()
    return [postmaster] + children


def pin_server(db, cpus):
    for pid in server_pids(db):
        subprocess.run(["taskset", "-a", "-p", "-c", cpus, pid], check=True, capture_output=True)


def threads_for(clients, jobs):
    """pgbench's -j as it runs: never more threads than clients."""
    return min(jobs, clients)


def pgbench(db, script, clients, jobs, seconds, cpus=None, perf_out=None):
    """Runs pgbench; with perf_out, under `perf stat -a` counting CPU migrations machine-wide
    (the kernel keeps no such counter in /proc without CONFIG_SCHEDSTATS)."""
    cmd = (["taskset", "-c", cpus] if cpus else []) + ["pgbench", "-n", "-M", "prepared", "-b", script, "-c", str(clients),
                                                        "-j", str(threads_for(clients, jobs)), "-T", str(seconds), db]
    perf = ["perf", "stat", "-a", "-x", ",", "-e", "cpu-migrations", "-o", perf_out, "--"] if perf_out else []
    out = subprocess.run(perf + cmd, check=True, capture_output=True, text=True).stdout
    tps = float(re.search(r"^tps = ([0-9.]+)", out, re.M).group(1))
    lat = float(re.search(r"^latency average = ([0-9.]+) ms", out, re.M).group(1))
    txns = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
    return " ".join(cmd), tps, lat, txns


def perf_migrations(path):
    """The cpu-migrations count of a `perf stat -x ,` output file."""
    with open(path) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) > 2 and fields[2] == "cpu-migrations":
                return int(fields[0])
    sys.exit(f"measure_pgbench: no cpu-migrations count in {path}")


def heap_pages(db):
    """Heap pages holding the rows of the small tables (walsim's pgbench.heap_pages): earlier runs'
    non-HOT updates spread them, and the HOT chains an UPDATE walks grow with fewer rows per page."""
    return {t: int(psql(db, f"SELECT count(DISTINCT (ctid::text::point)[0]) FROM {t}"))
            for t in ("pgbench_branches", "pgbench_tellers")}


def long_lived(before, after, txns, hz):
    """Switches and CPU per transaction, by kind, of the tasks alive through the whole run; kinds
    with less than 0.01 switches and 1 us of CPU per transaction are left out."""
    by_kind = {}
    for tid, (kind, vol, invol, ticks) in after.items():
        if tid not in before or before[tid][0] != kind:
            continue
        _, vol0, invol0, ticks0 = before[tid]
        k = by_kind.setdefault(kind, [0, 0, 0])
        k[0] += vol - vol0
        k[1] += invol - invol0
        k[2] += ticks - ticks0
    return {kind: {"voluntary": round(v / txns, 4), "involuntary": round(iv / txns, 4),
                   "cpu_us": round(ticks / hz / txns * 1e6, 2)}
            for kind, (v, iv, ticks) in sorted(by_kind.items())
            if v + iv >= 0.01 * txns or ticks / hz / txns * 1e6 >= 1}


def config_name(script, clients, sync, jobs=None, gucs=None):
    """A point's name; with several -j measured, the threads it ran (e.g. tpcb-like_c2_syncoff_j2),
    then each --guc setting's value (e.g. _commit_delay1000)."""
    return (f"{script}_c{clients}_sync{sync}" + (f"_j{jobs}" if jobs is not None else "") +
            "".join(f"_{k}{v}" for k, v in (gucs or {}).items()))


def one_run(db, script, clients, jobs, sync, seconds, hz, cpus, name, migrations=False, processes=False,
            gucs=None):
    set_sync(db, sync)
    set_gucs(db, gucs)
    pages = heap_pages(db)
    psql(db, "CHECKPOINT")
    psql(db, "SELECT pg_stat_reset_shared('wal')")
    before = proc_stat()
    tasks_before = measure_switches.tasks() if processes else None
    perf_out = f"/tmp/measure_pgbench.{os.getpid()}.perf" if migrations else None
    cmd, tps, lat, txns = pgbench(db, script, clients, jobs, seconds, cpus, perf_out)
    tasks_after = measure_switches.tasks() if processes else None
    after = proc_stat()
    wal = dict(zip(["wal_records", "wal_fpi", "wal_bytes", "wal_write", "wal_sync"],
                   (int(x) for x in psql(db, "SELECT wal_records, wal_fpi, wal_bytes, wal_write, "
                                             "wal_sync FROM pg_stat_wal").split("|"))))
    # Milliseconds inside write() and fdatasync() (wall time), 0 unless track_wal_io_timing is on.
    wal.update(zip(["wal_write_time", "wal_sync_time"],
                   (float(x) for x in psql(db, "SELECT wal_write_time, wal_sync_time FROM pg_stat_wal").split("|"))))
    d = {k: after[k] - before[k] for k in after}
    cpu = {
        "busy_cores_avg": round(d["busy"] / hz / seconds, 3),
        "busy_cpu_us_per_txn": round(d["busy"] / hz * 1e6 / txns, 2),
        "iowait_frac": round(d["iowait"] / d["total"], 4),
        "steal_frac": round(d["steal"] / d["total"], 4),
        "context_switches_per_txn": round(d["ctxt"] / txns, 2),
    }
    if perf_out:
        cpu["migrations_per_txn"] = round(perf_migrations(perf_out) / txns, 4)
        os.remove(perf_out)
    result = {
        "config": name,
        "command": cmd,
        "script": script,
        "clients": clients,
        "threads": threads_for(clients, jobs),
        "duration_s": seconds,
        "synchronous_commit": sync,
        **({"gucs": dict(gucs)} if gucs else {}),
        "tps": tps,
        "latency_ms_avg": lat,
        "transactions": txns,
        "wal": wal,
        "heap_pages_at_start": pages,
        "cpu": cpu,
    }
    if processes:
        result["long_lived_processes"] = long_lived(tasks_before, tasks_after, txns, hz)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="bench")
    ap.add_argument("--scripts", default="select-only,simple-update,tpcb-like")
    ap.add_argument("--clients", default="1,4,16")
    ap.add_argument("--sync", default="on,off",
                    help="synchronous_commit values; select-only runs with the first only")
    ap.add_argument("--jobs", default="1",
                    help="pgbench -j: worker threads, cut to the clients as pgbench does; a list "
                         "(e.g. 1,2) measures each, and names each point with the threads it ran")
    ap.add_argument("--time", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--experiment", default="E1", help="the runs' experiment label")
    ap.add_argument("--cpus", help="pin the server and pgbench to these CPUs (taskset list, e.g. 0)")
    ap.add_argument("--pgbench-cpus", help="pin pgbench to these CPUs instead (with --cpus for the server: "
                                           "e.g. --cpus 1 --pgbench-cpus 0 keeps the two apart)")
    ap.add_argument("--migrations", action="store_true",
                    help="also count CPU migrations machine-wide with perf stat (cpu.migrations_per_txn)")
    ap.add_argument("--processes", action="store_true",
                    help="also record the switches and CPU per transaction of the server's long-lived "
                         "processes and the kernel's threads (long_lived_processes)")
    ap.add_argument("--paired-with", type=int, metavar="CLIENTS",
                    help="run each point right after a run at this many clients, and report the "
                         "ratios of the two (pairs)")
    ap.add_argument("--guc", action="append", default=[], metavar="NAME=V1,V2",
                    help="a server setting's values as one more axis of the cross product (repeatable); "
                         "set with ALTER SYSTEM and a reload, reset at the end")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        guc_axes = [parse_guc(g) for g in a.guc]
    except ValueError as e:
        ap.error(str(e))
    for name, _ in guc_axes:
        check_reloadable(a.db, name)
    try:
        jobs = [int(j) for j in a.jobs.split(",")]
    except ValueError:
        ap.error(f"--jobs: expected a list of integers, got {a.jobs!r}")
    if min(jobs) < 1:
        ap.error("--jobs must be at least 1")
    # Unpinned, the server may still carry an earlier run's pinning: give it every CPU back.
    pin_server(a.db, a.cpus or f"0-{os.cpu_count() - 1}")
    hz = 100  # USER_HZ, the unit of /proc/stat on Linux
    syncs = a.sync.split(",")
    guc_points = [{}]
    for name, values in guc_axes:
        guc_points = [{**g, name: v} for g in guc_points for v in values]
    points = []  # (script, clients, threads, sync, gucs, name): each distinct -j a client count runs
    for script in a.scripts.split(","):
        for c in (int(x) for x in a.clients.split(",")):
            for s in (syncs[:1] if script == "select-only" else syncs):
                for t in sorted({threads_for(c, j) for j in jobs}):
                    for g in guc_points:
                        points.append((script, c, t, s, g,
                                       config_name(script, c, s, t if len(jobs) > 1 else None, g)))
    if a.paired_with is not None and a.paired_with < 1:
        ap.error("--paired-with must be at least 1")
    runs = []
    pairs = {}  # point name -> [(cpu ratio, tps ratio)], one per repetition

    def measure(script, c, t, s, name, rep, gucs=None):
        r = one_run(a.db, script, c, t, s, a.time, hz, a.pgbench_cpus or a.cpus, name, a.migrations, a.processes,
                    gucs)
        r["experiment"] = a.experiment
        r["repetition"] = rep
        runs.append(r)
        print(f"{r['config']} rep {rep}: {r['tps']:.0f} tps, "
              f"{r['cpu']['busy_cpu_us_per_txn']} us CPU/txn", file=sys.stderr)
        return r

    for rep in range(1, a.reps + 1):
        for script, c, t, s, g, name in points:
            if a.paired_with is None or c == a.paired_with:
                measure(script, c, t, s, name, rep, g)
                continue
            bt = threads_for(a.paired_with, t)
            base = measure(script, a.paired_with, bt, s, config_name(script, a.paired_with, s, None, g), rep, g)
            base["pair_of"] = name
            r = measure(script, c, t, s, name, rep, g)
            pairs.setdefault(name, []).append(
                (r["cpu"]["busy_cpu_us_per_txn"] / base["cpu"]["busy_cpu_us_per_txn"], r["tps"] / base["tps"]))
    reset_gucs(a.db, [name for name, _ in guc_axes])
    medians = {}
    for *_, name in points:
        medians[f"{a.experiment}/{name}"] = statistics.median(r["tps"] for r in runs if r["config"] == name)
    doc = {
        "postgresql": psql(a.db, "SELECT version()"),
        "host": platform.platform(),
        "hardware": {"cpus": os.cpu_count(), "cpu": cpu_model()},
        "method": f"pgbench -n -M prepared -j {a.jobs} (at most one per client), -T {a.time}, {a.reps} repetitions interleaved; "
                  "CHECKPOINT and pg_stat_wal reset before each run; CPU and context switches "
                  "from /proc/stat over the pgbench run, machine-wide" +
                  ("; CPU migrations from perf stat -a -e cpu-migrations around it" if a.migrations else "") +
                  "".join(f"; {name} set to each of {', '.join(values)} (ALTER SYSTEM and a reload before each run)"
                          for name, values in guc_axes) +
                  ("; per-task switches and CPU of the long-lived processes from /proc/PID/task/TID "
                   "status and stat around it" if a.processes else "") +
                  ". Measured by "
                  "scripts/measure_pgbench.py" + (f" --cpus {a.cpus}: the server pinned to CPUs {a.cpus}"
                                                  if a.cpus else "") +
                  (f", pgbench to CPUs {a.pgbench_cpus or a.cpus}" if a.cpus or a.pgbench_cpus else "") +
                  (f"; each point right after a run at {a.paired_with} client{'' if a.paired_with == 1 else 's'} "
                   "(pairs: ratios of the two)"
                   if a.paired_with is not None else "") + ".",
        "settings": dict(x.split("|") for x in psql(
            a.db, "SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers', "
                  "'max_wal_size', 'checkpoint_timeout', 'wal_buffers', 'autovacuum', "
                  "'full_page_writes', 'fsync', 'track_wal_io_timing', 'wal_writer_delay', "
                  "'wal_writer_flush_after', 'commit_delay', 'commit_siblings') ORDER BY name").splitlines()),
        "medians_tps": medians,
        "runs": runs,
    }
    if pairs:
        doc["pairs"] = {
            f"{a.experiment}/{name}": {
                "over_clients": a.paired_with,
                "cpu_us_per_txn_ratio": round(statistics.median(x[0] for x in v), 4),
                "tps_ratio": round(statistics.median(x[1] for x in v), 4),
                "cpu_us_per_txn_ratios": [round(x[0], 4) for x in v],
            } for name, v in pairs.items()}
    with open(a.out + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
