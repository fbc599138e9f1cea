"""Where things are: the repository, the walsim binary and the results folder."""

import os
import shutil

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def repo_path(*parts):
    """A path inside the repository."""
    return os.path.join(REPO, *parts)


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_walsim(option):
    """The walsim binary: --walsim, else $WALSIM, else build/walsim, else walsim on PATH.

    A binary named by --walsim or $WALSIM must exist: no silent fallback to another one.
    Raises FileNotFoundError saying what was tried.
    """
    for name, chosen in (("--walsim", option), ("$WALSIM", os.environ.get("WALSIM"))):
        if chosen:
            if not _executable(chosen):
                raise FileNotFoundError(f"no walsim binary at {chosen} (given by {name})")
            return os.path.abspath(chosen)
    built = repo_path("build", "walsim")
    if _executable(built):
        return built
    on_path = shutil.which("walsim")
    if on_path:
        return on_path
    raise FileNotFoundError(f"no walsim binary ({built} does not exist and there is no walsim on PATH); "
                            "build it, or give --walsim PATH or $WALSIM")


def default_results(quick):
    """results/ for the full run (committed); results/quick/ for --quick, so a quick run never
    overwrites the committed report."""
    return repo_path("results", "quick") if quick else repo_path("results")
