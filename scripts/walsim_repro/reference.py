"""The published and measured figures, read from scenarios/reference/ (never copied into code)."""

import json
import statistics

from .paths import repo_path

EXPERIMENTS = repo_path("scenarios", "reference", "experiments.json")
LOCAL_PG15 = repo_path("scenarios", "reference", "local-pg15.json")


def load_json(path):
    """A JSON file, with a clear error naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise RuntimeError(f"cannot read {path}: {e}") from e


def published_experiment(experiment_id):
    """The entry of experiments.json with this id (the threads' setups and figures)."""
    for entry in load_json(EXPERIMENTS)["experiments"]:
        if entry.get("id") == experiment_id:
            return entry
    raise KeyError(f"{EXPERIMENTS} has no experiment {experiment_id!r}")


class LocalRuns:
    """The real PostgreSQL 15 pgbench runs of local-pg15.json."""

    def __init__(self, path=LOCAL_PG15):
        self.path = path
        self.data = load_json(path)

    def median_tps(self, key):
        """The published median TPS for a key such as "E1/tpcb_c4_syncoff"."""
        try:
            return self.data["medians_tps"][key]
        except KeyError as e:
            raise KeyError(f"{self.path}: medians_tps has no {key!r}") from e

    def runs(self, experiment, config):
        """The repetitions of one configuration, e.g. ("E1", "tpcb_c4_syncoff")."""
        runs = [r for r in self.data["runs"] if r["experiment"] == experiment and r["config"] == config]
        if not runs:
            raise KeyError(f"{self.path}: no runs of {experiment}/{config}")
        return runs

    def jobs(self, experiment):
        """pgbench's -j for an experiment's runs, as walsim's pgbench.jobs: the one thread count J
        for which every run used min(J, clients) threads, as pgbench cuts -j to the clients."""
        runs = [r for r in self.data["runs"] if r["experiment"] == experiment]
        if not runs:
            raise KeyError(f"{self.path}: no runs of {experiment}")
        jobs = max(r["threads"] for r in runs)
        odd = [r["config"] for r in runs if r["threads"] != min(jobs, r["clients"])]
        if odd:
            raise ValueError(f"{self.path}: {experiment}'s runs used different pgbench -j ({', '.join(sorted(set(odd)))})")
        return jobs

    def median_per_transaction(self, experiment, config, counter):
        """Median over repetitions of pg_stat_wal's counter divided by the transactions."""
        return statistics.median(r["wal"][counter] / r["transactions"] for r in self.runs(experiment, config))

    def paired_ratios(self, experiments, config):
        """The CPU per transaction of each repetition of config over the run just before it (a
        measure_pgbench.py --paired-with series), pooled over the experiments."""
        ratios = [x for e in experiments for x in self.data.get("pairs", {}).get(f"{e}/{config}", {})
                  .get("cpu_us_per_txn_ratios", [])]
        if not ratios:
            raise KeyError(f"{self.path}: no pairs of {config} in {', '.join(experiments)}")
        return ratios

    def median_of(self, experiment, config, value):
        """Median over repetitions of value(run)."""
        return statistics.median(value(r) for r in self.runs(experiment, config))

    def median_wait_shares(self, experiment, config):
        """Median over repetitions of each wait event's share of active time (0 where a run
        did not see the event)."""
        runs = self.runs(experiment, config)
        shares = [r["wait_event_shares"]["active_wait_event_shares"] for r in runs]
        events = sorted({e for s in shares for e in s})
        return {e: statistics.median(s.get(e, 0.0) for s in shares) for e in events}
