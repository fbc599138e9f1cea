#!/usr/bin/env python3
"""Fit a scenario's few calibrated costs to the published figures of ONE point.

A calibration is declared inside the scenario file, under "_calibration":

  "_calibration": {
    "point": ["settings.NUM_XLOGINSERT_LOCKS=8"],            # --set assignments of the point
    "fit": {                                                 # key -> [initial, second guess]
      "costs.client_command": ["5us", "8us"], ...
    },
    "targets": [                                             # one figure per fitted key
      {"metric": "/pgbench/tps",
       "published": "reference/experiments.json#/experiments/3/results/tps/0"}, ...
    ]
  }

A target's "published" names the figure in the reference data (a path relative to the scenario's
directory, then a JSON pointer), so no published number is copied into the scenario.
"scale_to_seconds": N turns a total over the simulated window into a total over N seconds, for
figures the authors summed over their whole run.

The script solves the fitted keys by least squares (Gauss-Newton with a finite-difference
Jacobian) on walsim itself, prints the result, and with --write stores the fitted values in
the scenario ("costs"/"hardware" overrides). Only the declared point is ever simulated: every
other point of the experiment stays a prediction.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from walsim_repro.fitting import gauss_newton_step, line_search, relative_error

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3}


def parse_us(text):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms)", text)
    if not m:
        sys.exit(f"calibrate: {text!r} is not a duration in ns, us or ms")
    return float(m.group(1)) * UNIT[m.group(2)]


def fmt_us(us):
    return f"{us * 1000:.0f}ns" if us < 1 else f"{us:.4g}us"


def pointer(doc, path):
    for part in path.strip("/").split("/"):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


class Walsim:
    def __init__(self, binary, scenario, extra):
        self.binary, self.scenario, self.extra = binary, scenario, extra

    def run(self, sets):
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            cmd = [self.binary, "run", self.scenario, "-q", "--json", out.name]
            for s in self.extra + sets:
                cmd += ["--set", s]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            return json.load(open(out.name))


def gauss_newton(f, x, x2, want, steps=8, tol=0.003):
    """x >= 0 minimising the squared relative errors of f(x) against want."""
    y = f(x)
    for _ in range(steps):
        if max(abs(yi / wi - 1) for yi, wi in zip(y, want)) <= tol:
            break
        jac = []
        for j in range(len(x)):
            xj = x[:]
            xj[j] = x2[j] if x2[j] != x[j] else x[j] * 1.2 + 1e-3
            yj = f(xj)
            jac.append([(yj[i] - y[i]) / (xj[j] - x[j]) / want[i] for i in range(len(y))])
        cand, yc = line_search(f, x, y, gauss_newton_step(jac, y, want), want, 1e-6)
        x2 = x
        if relative_error(yc, want) >= relative_error(y, want):
            break
        x, y = cand, yc
    return x, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--walsim", default=os.environ.get("WALSIM", os.path.join(ROOT, "build", "walsim")))
    ap.add_argument("--set", action="append", default=[], help="extra --set for every trial run")
    ap.add_argument("--write", action="store_true", help="store the fitted values in the scenario file")
    args = ap.parse_args()
    doc = json.load(open(args.scenario))
    cal = doc.get("_calibration")
    if not cal:
        sys.exit(f"calibrate: {args.scenario} has no _calibration section")
    keys = list(cal["fit"])
    if len(cal["targets"]) < len(keys):
        sys.exit("calibrate: fewer targets than fitted keys")
    x0 = [parse_us(cal["fit"][k][0]) for k in keys]
    x1 = [parse_us(cal["fit"][k][1]) for k in keys]
    base = os.path.dirname(os.path.abspath(args.scenario))

    def published(t):
        path, ptr = t["published"].split("#", 1)
        return float(pointer(json.load(open(os.path.join(base, path))), ptr))

    want = [published(t) for t in cal["targets"]]
    walsim = Walsim(args.walsim, args.scenario, args.set + cal["point"])

    def figures(x):
        r = walsim.run([f"{k}={fmt_us(v)}" for k, v in zip(keys, x)])
        scale = lambda t: t.get("scale_to_seconds", 0) / r["pgbench"]["duration_s"] if "scale_to_seconds" in t else 1
        return [float(pointer(r, t["metric"])) * scale(t) for t in cal["targets"]]

    x, y = gauss_newton(figures, x0, x1, want)
    for k, v in zip(keys, x):
        print(f"{k} = {fmt_us(v)}")
    for t, yi, wi in zip(cal["targets"], y, want):
        print(f"{t['metric']}: simulated {yi:.6g}, published {wi:.6g} ({100 * (yi / wi - 1):+.1f}%)")
    if args.write:
        for k, v in zip(keys, x):
            node = doc
            parts = k.split(".")
            for p in parts[:-1]:
                node = node.setdefault(p, {})
            node[parts[-1]] = fmt_us(v)
        json.dump(doc, open(args.scenario, "w"), indent=2)
        open(args.scenario, "a").write("\n")


if __name__ == "__main__":
    main()
