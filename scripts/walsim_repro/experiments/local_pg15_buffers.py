"""local-pg15-buffers: pgbench tables four times larger than shared_buffers, against real PostgreSQL 15.

The reference is scenarios/reference/local-pg15-buffers.json: pgbench tpcb-like at scale 50
(about 750 MB of tables and primary keys) with shared_buffers 128MB, 4 clients, synchronous_commit
off, 30-second runs each right after a CHECKPOINT, on a 2-vCPU VM of this project's type. What
is compared is the buffer manager's traffic per transaction, which nothing in walsim was fitted
to: pages read into shared_buffers (pg_statio_user_tables' heap and index reads) and dirty pages
written out ahead of or by the clock sweep (pg_stat_bgwriter's buffers_backend plus
buffers_clean, against walsim's backend and background-writer writes: the split between them
follows the writer's 100 pages per 200 ms, so it depends on the TPS, which is not compared). The scenario is the
shipped local-pg15 one with those settings: a checkpoint at the start of the window, so that
every page starts clean, as after the CHECKPOINT.

TPS is not compared: that VM ran a different CPU generation from the one local-pg15-tpcb.json
was calibrated on (AMD family 26 against 25), and it ran pgbench at scale 8 about 1.7 times
slower than local-pg15.json records; the reference file keeps its TPS for the record.
"""

import statistics

from .. import effects, reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path
from ..report import figure

ID = "local-pg15-buffers"
TITLE = ("pgbench tpcb-like at scale 50 with shared_buffers 128MB, 4 clients, synchronous_commit off: "
         "pages read into and written out of shared_buffers per transaction, real PostgreSQL 15 on 2 cores")
SCENARIO = "scenarios/local-pg15-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-buffers.json")
TOLERANCE = 0.15
METRICS = {"buffer_reads_per_xact": "reads", "buffer_writes_per_xact": "writes"}
# The simulated figure of each metric, from one results.csv row: writes count both writers.
SIMULATED = {
    "buffer_reads_per_xact": lambda r: _num(r, "buffer_reads_per_xact"),
    "buffer_writes_per_xact": lambda r: _num(r, "buffer_writes_per_xact") + _num(r, "buffer_bgwriter_writes_per_xact"),
}


def _num(row, column):
    value = row.get(column)
    return float(value) if value not in (None, "") else 0.0


def _reference():
    return reference.load_json(REFERENCE)


def _measured(counter):
    """Median over the runs of the counter per transaction."""
    runs = _reference()["runs"]
    per_txn = {
        "reads": lambda r: (r["heap_blks_read"] + r["idx_blks_read"]) / r["transactions"],
        "writes": lambda r: (r["buffers_backend"] + r["buffers_clean"]) / r["transactions"],
    }[counter]
    return statistics.median(per_txn(r) for r in runs)


# Heap pages holding the rows of pgbench_branches and pgbench_tellers in the scale 50 database the
# reference was measured on, counted there on 2026-12-05 after its runs (the reference does not
# record them): the scenario's own layout is its scale 8 database's.
HEAP_PAGES = {"pgbench_branches": 4, "pgbench_tellers": 15}


def _setup():
    """The measured setup as walsim overrides, read from the reference file."""
    s = _reference()["setup"]
    return [f"pgbench.heap_pages.{table}={pages}" for table, pages in HEAP_PAGES.items()] + [
            f"pgbench.scale={s['scale']}", f"pgbench.clients={s['clients']}", f"pgbench.jobs={s['jobs']}",
            f"settings.shared_buffers={s['shared_buffers']}",
            f"settings.synchronous_commit={s['synchronous_commit']}", f"pgbench.time={s['duration_s']}s",
            "run.checkpoint_at_start=true"]


def sweep(quick):
    """The measured point; three replications in full mode, one in quick mode."""
    sets = _setup()
    clients = next(s for s in sets if s.startswith("pgbench.clients="))
    sets.remove(clients)
    return SweepSpec(vary=[clients], repeat=1 if quick else 3, sets=sets)


def compare(sim):
    point = {"pgbench.clients": _reference()["setup"]["clients"]}
    out = []
    for metric, counter in METRICS.items():
        values = [SIMULATED[metric](r) for r in sim.runs_at(point)]
        median, lo, hi = effects.median_interval(values)
        n = len(values)
        out.append(Comparison(figure=f"{counter} per transaction", metric=metric, published=_measured(counter),
                              simulated=median, ci_low=lo, ci_high=hi, n=n))
    return out


def _within(comparisons, metric, name):
    rows = [c for c in comparisons if c.metric == metric]
    bad = [c for c in rows if c.relative_error is None or abs(c.relative_error) > TOLERANCE]
    c = rows[0]
    error = "no run" if c.relative_error is None else f"{c.relative_error * 100:+.1f}%"
    detail = f"simulated {figure(c.simulated)}, measured {figure(c.published)} ({error})"
    text, settled = effects.within_tolerance(rows, TOLERANCE)
    return Check(name, not bad, detail + text, settled)


def checks(sim, comparisons):
    return [
        _within(comparisons, "buffer_reads_per_xact",
                "pages read into shared_buffers per transaction within 15% of the measured median"),
        _within(comparisons, "buffer_writes_per_xact",
                "dirty pages written out per transaction within 15% of the measured median"),
    ]
