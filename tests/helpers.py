"""Helpers shared by tests of every package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agents.policy import Policy

ROOT = Path(__file__).resolve().parents[1]


def run_python(
    args: list[str], cwd, timeout: float, env: dict | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """``python ARGS`` in a fresh interpreter, its output captured as text.

    ``env`` defaults to this environment plus ``PYTHONPATH`` = the checkout and the Agg
    matplotlib backend.
    """
    if env is None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    where = {"cwd": cwd, "env": env, "input": stdin, "timeout": timeout}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, **where)


_MOVED_SCRIPT = """
import importlib, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import {old} as old
    import {old} as again
new = importlib.import_module("{new}")
assert old is new is again, (old, new)
for w in caught:
    print(w.category.__name__, w.filename.rsplit("/", 1)[-1], str(w.message), sep="|")
"""


def moved_module_warnings(old: str, new: str, cwd) -> list[list[str]]:
    """Import the moved module ``old`` twice in a fresh interpreter; check it is ``new``.

    Returns every warning raised, as ``[category, file, message]`` (the file is the importer's:
    ``<string>`` when the warning points at the importing line).
    """
    proc = run_python(["-c", _MOVED_SCRIPT.format(old=old, new=new)], cwd, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [line.split("|") for line in proc.stdout.splitlines()]


class Wrapped(Policy):
    """A Python (non-RuleAgent) policy delegating to a rule agent: forces the generic path.

    It plays exactly as ``inner``, through the Python game loop instead of the compiled one;
    module-level, so that worker processes can unpickle it.
    """

    def __init__(self, inner):
        self.inner = inner
        self.name = "py-" + inner.name

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, view):
        return self.inner.act(view)
