"""results/<experiment>.csv, results/<experiment>.json and results/REPORT.md."""

import csv
import io
import json
import os
from dataclasses import asdict

from .model import Check, Comparison, ExperimentResult, SweepSpec


def write_text_atomically(path, text):
    """Writes through a temporary file renamed over path: readers never see half a file."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def figure(v):
    """A number with as many decimals as its size deserves."""
    if v is None:
        return "–"
    a = abs(v)
    if a >= 1000:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    if a >= 1 or a == 0:
        return f"{v:.3f}"
    return f"{v:.3g}"


def percent(v):
    """A signed relative error in percent."""
    return "–" if v is None else f"{v * 100:+.1f}%"


def experiment_csv(result):
    """One row per comparison: published, simulated median and CI, relative error."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["figure", "metric", "published", "simulated_median", "simulated_ci_low", "simulated_ci_high", "n",
                "relative_error"])
    for c in result.comparisons:
        w.writerow([c.figure, c.metric, repr(c.published), "" if c.simulated is None else repr(c.simulated),
                    "" if c.ci_low is None else repr(c.ci_low), "" if c.ci_high is None else repr(c.ci_high), c.n,
                    "" if c.relative_error is None else f"{c.relative_error:.6f}"])
    return out.getvalue()


def save_experiment(result, results_dir, mode):
    """Writes <id>.csv (the comparison) and <id>.json (everything REPORT.md shows)."""
    write_text_atomically(os.path.join(results_dir, result.id + ".csv"), experiment_csv(result))
    data = asdict(result)
    data["mode"] = mode
    write_text_atomically(os.path.join(results_dir, result.id + ".json"), json.dumps(data, indent=1) + "\n")


def load_experiment(path):
    """An ExperimentResult saved by save_experiment, with its mode."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    mode = data.pop("mode", "")
    data["spec"] = SweepSpec(**data["spec"])
    data["comparisons"] = [Comparison(**c) for c in data["comparisons"]]
    data["checks"] = [Check(**c) for c in data["checks"]]
    return ExperimentResult(**data), mode


def _section(result, mode):
    lines = [f"## {result.id}: {result.title}", ""]
    sweep = " ".join(f"--vary {v}" for v in result.spec.vary) + f" --repeat {result.spec.repeat}" + "".join(
        f" --set {s}" for s in result.spec.sets)
    lines += [f"Scenario `{result.scenario}`, swept with `walsim sweep {result.scenario} {sweep}` "
              f"({mode} mode, {result.walsim_version or 'walsim version unknown'}).", ""]
    if result.spec.cases:
        lines += ["One sweep per case, each adding its settings as one-value `--vary` axes:", ""]
        lines += [f"- {name}: `" + " ".join(f"--vary {s}" for s in sets) + "`"
                  for name, sets in result.spec.cases.items()]
        lines.append("")
    if result.error:
        return lines + [f"**The experiment could not run:** {result.error}", ""]
    lines += ["| figure | published | simulated (median) | 95% CI of the mean | n | relative error |",
              "|---|---:|---:|---|---:|---:|"]
    for c in result.comparisons:
        ci = f"[{figure(c.ci_low)}, {figure(c.ci_high)}]" if c.ci_low is not None else "–"
        lines.append(f"| {c.figure} | {figure(c.published)} | {figure(c.simulated)} | {ci} | {c.n} | "
                     f"{percent(c.relative_error)} |")
    lines += ["", f"Checks: {_check_count(result.checks)}.", ""]
    for c in result.checks:
        unsettled = " (not settled by these runs)" if c.settled is False else ""
        lines.append(f"- {'PASS' if c.passed else '**FAIL**'}{unsettled}: {c.name}. {c.detail}")
    lines.append("")
    for p in result.plots:
        lines += [f"![{result.id}: {os.path.basename(p)}]({p})", ""]
    return lines


def _check_count(checks):
    """'2 of 4 pass', and how many verdicts the replications leave open."""
    text = f"{sum(c.passed for c in checks)} of {len(checks)} pass"
    unsettled = sum(c.settled is False for c in checks)
    if unsettled:
        text += f" ({unsettled} not settled by the replications: the 95% interval of the effect spans the threshold)"
    return text


def write_report(results_dir, order):
    """REPORT.md from every <id>.json in results_dir, experiments in the given order."""
    sections, table = [], []
    for exp_id in order:
        path = os.path.join(results_dir, exp_id + ".json")
        if not os.path.exists(path):
            continue
        result, mode = load_experiment(path)
        status = "could not run" if result.error else (
            f"{sum(c.passed for c in result.checks)} of {len(result.checks)} checks pass"
            + (f", {n} not settled" if (n := sum(c.settled is False for c in result.checks)) else ""))
        table.append(f"| [{result.id}](#{result.id}) | {result.title} | {status} | {mode} |")
        sections += _section(result, mode)
    text = ["# walsim reproduction report", "",
            "Simulated against published figures, written by `scripts/reproduce` (see README.md, "
            "\"Sweeps and comparisons\"). A simulated figure is the median over the replications of its sweep "
            "point, shown with the 95% confidence interval of the mean when there are two or more replications; "
            "the relative error is (simulated - published) / published. Quick mode runs fewer replications "
            "than the full run this folder is meant to hold. A check that compares two simulated variants "
            "gives the 95% interval of the effect (the ratio of the variants' means, Welch's t on the log "
            "scale); when that interval spans the check's threshold the check is marked \"not settled\": its "
            "verdict could go the other way with other seeds.", "",
            "| experiment | what | checks | mode |", "|---|---|---|---|"] + table + [""] + sections
    write_text_atomically(os.path.join(results_dir, "REPORT.md"), "\n".join(text))
