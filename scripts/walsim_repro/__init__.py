"""walsim's reproduction report: experiments that compare simulated and published figures.

Standard library only. The parts:
  cli          the scripts/reproduce command line
  paths        the repository, the walsim binary, the results folder
  reference    the published and measured figures under scenarios/reference/
  sweep        running `walsim sweep` and reading its results.csv and summary.csv
  model        what an experiment returns: comparisons and checks
  report       results/<experiment>.csv and results/REPORT.md
  plots        simulated-against-published charts through gnuplot
  experiments  one module per experiment
  fitting      the numerics scripts/calibrate.py and calibrate_local.py share
"""
