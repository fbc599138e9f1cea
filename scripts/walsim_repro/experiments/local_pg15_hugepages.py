"""local-pg15-hugepages: the CPU per transaction with shared memory in 2 MB pages and in 4 kB ones.

The reference is scenarios/reference/local-pg15-f26-onecpu-paired.json: select-only,
synchronous_commit off, the server and pgbench all on CPU 0, on the instance
hardware/local-2core-f26.json profiles, each run seconds after a 1-client run: experiment P44H
with huge_pages on (the server restarted with vm.nr_hugepages 700), P44 and P44S with 4 kB pages
(huge_pages' default 'try' finds none reserved), minutes apart. What is compared is each pair's
ratio of CPU per transaction, N clients over 1 client, because this host's speed moves up to
twofold within minutes.

The profile's translation refault (cpu.translation) was fitted to the 16-client difference
between the page sizes in an earlier series (local-pg15-f26-onecpu.json, HP1, NP1 and HP2), so the
16-client ratio with 4 kB pages is shown, not checked. The checks are what follows from the rest:
with huge pages the ratio at 4 and at 16 clients (the growth left to the data the backends share
the core's cache with, and to their few 2 MB translations), and with 4 kB pages at 4 clients, each
within 10% of the measured median ratio.
"""

import statistics

from .. import reference
from ..model import Check, Comparison, SweepSpec
from ..paths import repo_path

ID = "local-pg15-hugepages"
TITLE = "CPU per transaction with shared memory in 2 MB or 4 kB pages, 1-16 clients on one CPU, real PostgreSQL 15"
SCENARIO = "scenarios/local-pg15-f26-tpcb.json"
REFERENCE = repo_path("scenarios", "reference", "local-pg15-f26-onecpu-paired.json")
EXPERIMENTS = {"on": ("P44H",), "off": ("P44", "P44S")}
CLIENTS = (1, 4, 16)
CHECKED = {"on": (4, 16), "off": (4,)}
RATIO = "cpu_over_1_client"
TOLERANCE = 0.10
QUICK_SECONDS = 3
CHART = ("pgbench clients (-c), all on CPU 0", True)


def _config(clients):
    return f"select-only_c{clients}_syncoff"


def _point(pages, clients):
    return {"settings.huge_pages": pages, "pgbench.clients": clients}


def _runs():
    return reference.LocalRuns(REFERENCE)


def sweep(quick):
    """Both page sizes at every client count over the measured window, with as many replications
    as were measured; quick mode runs one replication of a shorter window."""
    some = _runs().runs(EXPERIMENTS["on"][0], _config(CLIENTS[1]))
    seconds = QUICK_SECONDS if quick else some[0]["duration_s"]
    return SweepSpec(vary=["settings.huge_pages=on,off", "pgbench.clients=" + ",".join(map(str, CLIENTS))],
                     repeat=1 if quick else len(some),
                     sets=["pgbench.builtin=select-only", "pgbench.protocol=prepared", "hardware.os.server_cpus=[0]",
                           "hardware.os.pgbench_cpus=[0]", "pgbench.jobs=1", "settings.synchronous_commit=off",
                           f"pgbench.time={seconds}s"])


def _measured_ratio(pages, clients):
    return statistics.median(_runs().paired_ratios(EXPERIMENTS[pages], _config(clients)))


def _simulated_cpu(sim, pages, clients):
    values = sim.values(_point(pages, clients), "cpu_us_per_xact")
    return statistics.median(values) if values else None


def compare(sim):
    """Each page size's CPU per transaction at 4 and 16 clients over 1 client."""
    out = []
    for pages in ("on", "off"):
        one = _simulated_cpu(sim, pages, 1)
        label = "2 MB pages" if pages == "on" else "4 kB pages"
        for n in CLIENTS[1:]:
            cpu = _simulated_cpu(sim, pages, n)
            out.append(Comparison(figure=f"huge_pages={pages}/{_config(n)} CPU over 1 client", metric=RATIO,
                                  published=_measured_ratio(pages, n), simulated=cpu / one if cpu and one else None,
                                  n=len(sim.values(_point(pages, n), "cpu_us_per_xact")), x=n,
                                  series=f"{label}, over 1 client"))
    return out


def _ratio_check(comparisons):
    parts, passed = [], True
    for pages, counts in CHECKED.items():
        for n in counts:
            c = next(c for c in comparisons if c.metric == RATIO and c.figure.startswith(f"huge_pages={pages}/")
                     and c.x == n)
            label = f"huge_pages {pages}, {n} clients"
            if c.simulated is None or c.published is None:
                parts.append(f"{label}: no run")
                passed = False
                continue
            ok = abs(c.simulated / c.published - 1) <= TOLERANCE
            passed = passed and ok
            parts.append(f"{label} {c.simulated:.2f}x against {c.published:.2f}x{'' if ok else ' (outside)'}")
    return Check("one CPU, select-only: CPU per transaction over 1 client within 10% of the measured ratio, with "
                 "huge pages at 4 and 16 clients and with 4 kB pages at 4", passed, "; ".join(parts))


def checks(sim, comparisons):
    return [_ratio_check(comparisons)]
