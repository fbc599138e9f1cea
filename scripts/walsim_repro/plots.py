"""Charts: the sweep's own (`walsim plot`) and simulated-against-published (gnuplot directly)."""

import os
import shutil
import subprocess
import sys


def walsim_plot(walsim, folder, metric, x):
    """`walsim plot`: the PNG it wrote, or None (with the reason on stderr)."""
    done = subprocess.run([walsim, "plot", folder, "--metric", metric, "--x", x], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return None
    pngs = [line for line in done.stdout.splitlines() if line.endswith(".png")]
    return pngs[0] if pngs else None


def _quote(text):
    """A gnuplot single-quoted string."""
    return "'" + text.replace("'", "''") + "'"


def _data(comparisons, series):
    """Two blocks per series: simulated (x median lo hi) and published (x value)."""
    blocks = []
    for s in series:
        points = sorted((c for c in comparisons if c.series == s and c.x is not None), key=lambda c: c.x)
        sim = [f"{c.x:g} {c.simulated:g} {c.ci_low if c.ci_low is not None else c.simulated:g} "
               f"{c.ci_high if c.ci_high is not None else c.simulated:g}" for c in points if c.simulated is not None]
        pub = [f"{c.x:g} {c.published:g}" for c in points]
        blocks.append(f"# simulated {s}\n" + "\n".join(sim or ["# none"]))
        blocks.append(f"# published {s}\n" + "\n".join(pub or ["# none"]))
    return "\n\n\n".join(blocks) + "\n"


def _script(series, data, png, svg, title, xlabel, ylabel, logx):
    """The gnuplot script: PNG (pngcairo, else png), then SVG when this gnuplot has it."""
    plot = []
    for i, s in enumerate(series):
        plot.append(f"{_quote(data)} index {2 * i} using 1:2:3:4 with yerrorlines lw 2 pt 7 lc {i + 1} "
                    f"title {_quote('simulated ' + s)}")
        plot.append(f"{_quote(data)} index {2 * i + 1} using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 "
                    f"lc {i + 1} title {_quote('published ' + s)}")
    plot_cmd = "plot " + ", \\\n     ".join(plot) + "\n"
    return (f"set title {_quote(title)}\nset xlabel {_quote(xlabel)}\nset ylabel {_quote(ylabel)}\n"
            "set grid\nset key top left box opaque\nset yrange [0:*]\n"
            "set offsets graph 0.05, graph 0.05, graph 0.1, 0\n"
            + ("set logscale x 2\n" if logx else "") +
            "terms = ' ' . GPVAL_TERMINALS . ' '\n"
            "if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced }"
            " else { set terminal png size 1000,600 noenhanced }\n"
            f"set output {_quote(png)}\n{plot_cmd}unset output\n"
            "if (strstrt(terms, ' svg ') > 0) {\n"
            "  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced\n"
            f"  set output {_quote(svg)}\n  {plot_cmd}  unset output\n}}\n")


def published_chart(comparisons, base, title, xlabel, ylabel, logx=False):
    """Simulated medians (with 95% CIs) and published figures against x, one colour per series.

    Writes base.dat, base.gp, base.png and base.svg; returns the PNG path, or None when
    gnuplot is missing or fails (the report then says so).
    """
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        sys.stderr.write("reproduce: gnuplot is not on PATH (Debian: gnuplot-nox); no chart for " + title + "\n")
        return None
    series = sorted({c.series for c in comparisons if c.x is not None})
    if not series:
        return None
    os.makedirs(os.path.dirname(base), exist_ok=True)
    data, script = base + ".dat", base + ".gp"
    with open(data, "w", encoding="utf-8") as f:
        f.write(_data(comparisons, series))
    with open(script, "w", encoding="utf-8") as f:
        # Names relative to the script's folder, so that results/ can be moved and replotted.
        name = os.path.basename(base)
        f.write(_script(series, name + ".dat", name + ".png", name + ".svg", title, xlabel, ylabel, logx))
    done = subprocess.run([gnuplot, os.path.basename(script)], capture_output=True, text=True, check=False,
                          cwd=os.path.dirname(os.path.abspath(script)))
    if done.returncode != 0:
        sys.stderr.write(f"reproduce: gnuplot {script} failed:\n{done.stderr}")
        return None
    return base + ".png"
