"""The reproduction experiments, one module each.

A module describes one experiment with these names:

  ID        the experiment's id, e.g. "local-pg15" (scripts/reproduce --only ID)
  TITLE     one line saying what it reproduces
  SCENARIO  the scenario file, relative to the repository
  sweep(quick) -> model.SweepSpec
            what to vary, how many replications, fixed overrides (durations); quick mode must
            keep the experiment within a couple of minutes on a 2-core machine
  compare(sim) -> [model.Comparison]
            pairs simulated figures (sim: sweep.SweepResult) with the published ones, read from
            scenarios/reference/ through the reference module, never written in the code
  checks(sim, comparisons) -> [model.Check]
            the published effects, each passed or not with a detail string
  PLOTS     optional: [(metric, x_key)] charts drawn by `walsim plot` from the sweep
  CHART     optional: (x label, log x?) for the simulated-against-published chart of each
            compared metric whose comparisons carry x and series
"""

import importlib
import pkgutil

REQUIRED = ("ID", "TITLE", "SCENARIO", "sweep", "compare", "checks")


def all_experiments():
    """{id: module} of every experiment module in this package, in id order."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        missing = [name for name in REQUIRED if not hasattr(module, name)]
        if missing:
            raise AttributeError(f"experiment module {info.name} lacks {', '.join(missing)}")
        found[module.ID] = module
    return dict(sorted(found.items()))
