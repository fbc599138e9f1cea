"""scripts/reproduce: run the experiments, write results/ and REPORT.md."""

import argparse
import json
import os
import sys

from . import plots, report
from .experiments import all_experiments
from .model import ExperimentResult
from .paths import default_results, find_walsim, repo_path
from .sweep import SweepError, run_sweep

USAGE_ERROR = 2


def parse_args(argv, known):
    """The command line; --only must name known experiments."""
    p = argparse.ArgumentParser(prog="scripts/reproduce", description=(
        "Runs walsim's reproduction experiments (scripts/walsim_repro/experiments/) with walsim sweep, "
        "compares simulated and published figures and writes RESULTS/<experiment>.csv, RESULTS/REPORT.md "
        "and the charts. Experiments: " + ", ".join(known) + "."))
    p.add_argument("--quick", action="store_true",
                   help="fewer replications (a few minutes in all); results go to results/quick/ by default")
    p.add_argument("--only", action="append", metavar="EXPERIMENT_ID",
                   help="run this experiment only (repeatable, or several separated by commas)")
    p.add_argument("--check", action="store_true", help="exit with status 1 when a check fails")
    p.add_argument("--known-gaps", metavar="FILE", help=(
        "a JSON file {experiment id: {check name: why it fails}} of checks the model is known not to meet "
        "yet; with --check they are expected to fail, and passing one is an error (remove it from the file). "
        "A check that fails in one mode only (the full run's longer windows settle a figure that the quick "
        "run's do not) takes {\"full\": why} or {\"quick\": why} instead of a plain reason"))
    p.add_argument("--walsim", help="the walsim binary (default: $WALSIM, else build/walsim, else PATH)")
    p.add_argument("--results", help="the output folder (default: results/, or results/quick/ with --quick)")
    p.add_argument("--jobs", type=int, help="worker processes per sweep (default: one per processor)")
    p.add_argument("--resume", action="store_true",
                   help="keep the sweeps already in RESULTS/sweeps/ (default: run them afresh)")
    p.add_argument("--list", action="store_true", help="list the experiments and exit")
    args = p.parse_args(argv)
    if args.only:
        args.only = [e for item in args.only for e in item.split(",") if e]
    for exp_id in args.only or []:
        if exp_id not in known:
            p.error(f"unknown experiment {exp_id!r} (known: {', '.join(known)})")
    if args.jobs is not None and args.jobs < 1:
        p.error("--jobs must be at least 1")
    return args


def charts(module, result, sim, walsim, results_dir):
    """The simulated-against-published chart of each compared metric, then the module's PLOTS."""
    paths = []
    x_label, log_x = getattr(module, "CHART", ("x", False))
    for metric in dict.fromkeys(c.metric for c in result.comparisons if c.x is not None):
        png = plots.published_chart([c for c in result.comparisons if c.metric == metric],
                                    os.path.join(results_dir, "plots", f"{module.ID}-{metric}"),
                                    f"{module.ID}: {metric}, simulated (median, 95% CI) and published",
                                    x_label, metric, log_x)
        if png:
            paths.append(png)
    # A sweep of cases is one sweep folder per case: each gets its own chart.
    folders = [part.folder for part in getattr(sim, "parts", [sim])]
    for metric, x in getattr(module, "PLOTS", []):
        for folder in folders:
            png = plots.walsim_plot(walsim, folder, metric, x)
            if png:
                paths.append(png)
    return [os.path.relpath(p, results_dir) for p in paths]


def run_experiment(module, args, walsim, results_dir):
    """Sweeps, compares, checks and plots one experiment; never raises for a failed sweep."""
    spec = module.sweep(args.quick)
    result = ExperimentResult(id=module.ID, title=module.TITLE, scenario=module.SCENARIO, spec=spec)
    print(f"reproduce: {module.ID}: {module.TITLE}", file=sys.stderr)
    try:
        sim = run_sweep(walsim, repo_path(module.SCENARIO), spec, os.path.join(results_dir, "sweeps", module.ID),
                        jobs=args.jobs, fresh=not args.resume)
    except SweepError as e:
        result.error = str(e)
        return result
    result.walsim_version = sim.walsim_version
    result.comparisons = module.compare(sim)
    result.checks = module.checks(sim, result.comparisons)
    result.plots = charts(module, result, sim, walsim, results_dir)
    return result


def main(argv=None):
    """Exit status: 0 done (with --check: and every check passed), 1 a check or an experiment
    failed, 2 bad usage."""
    experiments = all_experiments()
    args = parse_args(sys.argv[1:] if argv is None else argv, list(experiments))
    if args.list:
        for exp_id, module in experiments.items():
            print(f"{exp_id}\t{module.TITLE}")
        return 0
    try:
        walsim = find_walsim(args.walsim)
    except FileNotFoundError as e:
        print(f"reproduce: {e}", file=sys.stderr)
        return USAGE_ERROR
    results_dir = os.path.abspath(args.results or default_results(args.quick))
    mode = "quick" if args.quick else "full"
    try:
        gaps = load_known_gaps(args.known_gaps, mode)
    except (OSError, ValueError) as e:
        print(f"reproduce: {args.known_gaps}: {e}", file=sys.stderr)
        return USAGE_ERROR
    failed, surprises = [], []
    for exp_id in args.only or list(experiments):
        result = run_experiment(experiments[exp_id], args, walsim, results_dir)
        report.save_experiment(result, results_dir, mode)
        expected = gaps.get(exp_id, {})
        for c in result.checks:
            if c.name in expected:
                verdict = "FAIL (known gap)" if not c.passed else "PASS, but listed as a known gap"
                if c.passed:
                    surprises.append(f"{exp_id}: {c.name}")
            else:
                verdict = "PASS" if c.passed else "FAIL"
                if not c.passed:
                    failed.append(f"{exp_id}: {c.name}")
            if c.settled is False:
                verdict += " (not settled by these runs)"
            print(f"reproduce: {exp_id}: {verdict}: {c.name}", file=sys.stderr)
        for name in expected:
            if name not in {c.name for c in result.checks} and not result.error:
                surprises.append(f"{exp_id}: known gap {name!r} names no check")
        if result.error:
            print(f"reproduce: {exp_id}: could not run: {result.error}", file=sys.stderr)
    report.write_report(results_dir, list(experiments))
    print(f"reproduce: wrote {os.path.join(results_dir, 'REPORT.md')}", file=sys.stderr)
    errors = [e for e in args.only or list(experiments)
              if report.load_experiment(os.path.join(results_dir, e + ".json"))[0].error]
    for s in surprises:
        print(f"reproduce: {s}: update {args.known_gaps}", file=sys.stderr)
    return 1 if errors or (args.check and (failed or surprises)) else 0


def load_known_gaps(path, mode):
    """{experiment id: {check name: reason}} of the checks expected to fail in `mode` ("quick" or
    "full"), from FILE, or nothing without one. A reason given as a string holds in both modes; one
    given as {"full": reason} and/or {"quick": reason}, in the modes named only."""
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    shape = ("expected {experiment id: {check name: reason}}, a reason being a string or "
             "{\"quick\": string, \"full\": string} with either key (keys starting with _ are comments)")
    if not isinstance(data, dict):
        raise ValueError(shape)
    gaps = {}
    for exp_id, checks in data.items():
        if exp_id.startswith("_"):
            continue
        if not isinstance(checks, dict):
            raise ValueError(f"{exp_id}: {shape}")
        gaps[exp_id] = {}
        for name, reason in checks.items():
            if isinstance(reason, dict):
                modes_ok = reason and not set(reason) - {"quick", "full"}
                if not modes_ok or not all(isinstance(r, str) for r in reason.values()):
                    raise ValueError(f"{exp_id}: {name}: {shape}")
                if mode in reason:
                    gaps[exp_id][name] = reason[mode]
            elif isinstance(reason, str):
                gaps[exp_id][name] = reason
            else:
                raise ValueError(f"{exp_id}: {name}: {shape}")
    return gaps
