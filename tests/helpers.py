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
