#!/usr/bin/env python3
"""Context switches and CPU time per transaction of a real PostgreSQL, by kind of process.

Runs pgbench against a database that `pgbench -i` initialised and, over a window inside the run
(after the connections are up, before they close), reads every task's voluntary and involuntary
context switches (/proc/PID/task/TID/status) and CPU time (/proc/PID/task/TID/stat), the
machine-wide ctxt and CPU time (/proc/stat), and the committed transactions
(pg_stat_database.xact_commit). Tasks are grouped as walsim groups its simulated processes:
"backend" (client backends), "pgbench", the PostgreSQL auxiliaries by name ("walwriter",
"checkpointer", ...), kernel threads by name with digits folded ("kworker/N:NH-kblockd").
Compare with walsim's cpu.switches_per_txn_by_process (`walsim run --json`). Needs a role that
may ALTER SYSTEM (for --sync); never part of the test suite.

  scripts/measure_switches.py --db bench --clients 8 --sync on --time 20
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time


def psql(db, *sql):
    args = ["psql", "-XAtq", "-d", db]
    for s in sql:
        args += ["-c", s]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def kind_of(comm, cmdline):
    """walsim's process kind for a task: the first word of its simulated name."""
    if comm == "postgres":
        parts = cmdline.split(": ")
        if len(parts) < 3:
            return "postmaster"
        # "postgres: 15/main: ROLE DB [local] STATE" for a client backend, else "... walwriter"
        return "backend" if "[" in parts[2] else (parts[2].split() or ["?"])[0]
    return re.sub(r"\d+", "N", comm)


def tasks():
    """Per task: (kind, voluntary switches, involuntary switches, CPU ticks)."""
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline").read().replace("\0", " ").strip()
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                status = open(f"/proc/{pid}/task/{tid}/status").read()
                stat = open(f"/proc/{pid}/task/{tid}/stat").read()
            except OSError:
                continue
            comm = re.search(r"^Name:\s+(\S+)", status, re.M).group(1)
            vol = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
            invol = int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
            fields = stat.rsplit(")", 1)[1].split()
            out[tid] = (kind_of(comm, cmdline), vol, invol, int(fields[11]) + int(fields[12]))
    return out


def machine():
    """Busy CPU ticks (user, nice, system, irq, softirq) and context switches, machine-wide."""
    lines = open("/proc/stat").read().splitlines()
    cpu = [int(x) for x in lines[0].split()[1:]]
    ctxt = next(int(l.split()[1]) for l in lines if l.startswith("ctxt "))
    return sum(cpu[:3]) + cpu[5] + cpu[6], ctxt


def commits(db):
    return int(psql(db, f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{db}'"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="bench")
    ap.add_argument("--script", default="tpcb-like", help="pgbench built-in script")
    ap.add_argument("--protocol", default="prepared", help="pgbench -M")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--sync", choices=["on", "off"], help="set synchronous_commit first")
    ap.add_argument("--time", type=int, default=20, help="seconds measured (pgbench runs 4 more)")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()

    if a.sync:
        psql(a.db, f"ALTER SYSTEM SET synchronous_commit = '{a.sync}'", "SELECT pg_reload_conf()")
    psql(a.db, "CHECKPOINT")
    bench = subprocess.Popen(["pgbench", "-n", "-M", a.protocol, "-b", a.script, "-c", str(a.clients),
                              "-j", "1", "-T", str(a.time + 4), a.db],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(2)
    n0, before, (busy0, ctxt0), t0 = commits(a.db), tasks(), machine(), time.time()
    time.sleep(a.time)
    after, (busy1, ctxt1), t1, n1 = tasks(), machine(), time.time(), commits(a.db)
    if bench.wait() != 0:
        sys.exit(f"measure_switches.py: pgbench failed: {bench.stderr.read().strip()}")
    n = n1 - n0 - 1  # the first commits() query's own transaction
    if n <= 0:
        sys.exit("measure_switches.py: no transaction committed in the window")

    hz = os.sysconf("SC_CLK_TCK")
    by_kind = collections.defaultdict(lambda: [0, 0, 0])
    for tid, (kind, vol, invol, ticks) in after.items():
        _, vol0, invol0, ticks0 = before.get(tid, (kind, 0, 0, 0))
        k = by_kind[kind]
        k[0] += vol - vol0
        k[1] += invol - invol0
        k[2] += ticks - ticks0
    result = {
        "script": a.script, "clients": a.clients, "synchronous_commit": a.sync or psql(a.db, "SHOW synchronous_commit"),
        "seconds": round(t1 - t0, 3), "transactions": n, "tps": n / (t1 - t0),
        "context_switches_per_txn": (ctxt1 - ctxt0) / n,
        "busy_cpu_us_per_txn": (busy1 - busy0) / hz / n * 1e6,
        "by_process": {kind: {"voluntary": v / n, "involuntary": iv / n, "cpu_us": ticks / hz / n * 1e6}
                       for kind, (v, iv, ticks) in sorted(by_kind.items())
                       if v + iv >= 0.01 * n or ticks / hz / n * 1e6 >= 1},
    }
    print(f"{a.script} c={a.clients} synchronous_commit={result['synchronous_commit']}: {result['tps']:.0f} tps, "
          f"{result['context_switches_per_txn']:.1f} switches and {result['busy_cpu_us_per_txn']:.0f} us of CPU "
          "per transaction (machine-wide)")
    for kind, f in sorted(result["by_process"].items(), key=lambda kv: -(kv[1]["voluntary"] + kv[1]["involuntary"])):
        print(f"  {kind:28s} voluntary {f['voluntary']:6.2f}  involuntary {f['involuntary']:6.2f}  "
              f"CPU {f['cpu_us']:7.1f} us")
    if a.json:
        with open(a.json + ".tmp", "w") as out:
            json.dump(result, out, indent=1)
        os.replace(a.json + ".tmp", a.json)


if __name__ == "__main__":
    main()
