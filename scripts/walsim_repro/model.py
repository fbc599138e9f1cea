"""What an experiment produces: simulated figures set beside published ones, and checks."""

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class Comparison:
    """One published figure and its simulated counterpart (the median over replications)."""

    figure: str  # what the figure is, e.g. "E1/tpcb_c4_syncoff tps"
    metric: str  # the results.csv column it is compared with, e.g. "tps"
    published: float
    simulated: Optional[float]  # None when no run of the point finished
    ci_low: Optional[float] = None  # 95% CI of the simulated mean (None with one replication)
    ci_high: Optional[float] = None
    n: int = 0
    x: Optional[float] = None  # where it goes on the experiment's charts
    series: str = ""  # which line of the chart

    @property
    def relative_error(self):
        """(simulated - published) / published, or None."""
        if self.simulated is None or not self.published:
            return None
        return (self.simulated - self.published) / self.published


@dataclass
class Check:
    """A published effect the simulation must reproduce."""

    name: str
    passed: bool
    detail: str
    # Whether the replications settle the verdict: False when the 95% interval of the effect spans
    # a threshold of the check (effects.py), None when the check has no interval.
    settled: Optional[bool] = None


@dataclass
class SweepSpec:
    """What an experiment sweeps: --vary specifications, replications and fixed overrides."""

    vary: list
    repeat: int
    sets: list = field(default_factory=list)  # KEY=VALUE for every run, e.g. "pgbench.time=30s"
    # Published variants that are not a cross product: {case name: [KEY=VALUE, ...]}. Each case is
    # swept on its own (its KEY=VALUEs as one-value --vary axes, so results.csv shows them, crossed
    # with `vary`) into sweeps/ID/NAME, and the cases' rows are read as one sweep.
    cases: dict = field(default_factory=dict)


@dataclass
class ExperimentResult:
    """Everything the report shows about one experiment."""

    id: str
    title: str
    scenario: str
    spec: SweepSpec
    walsim_version: str = ""
    comparisons: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    plots: list = field(default_factory=list)  # image paths (PNG), relative to the results folder
    error: str = ""  # why the experiment could not run, when it could not

    @property
    def passed(self):
        """True when it ran and every check passed."""
        return not self.error and all(c.passed for c in self.checks)
