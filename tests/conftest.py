"""Shared test fixtures, and the numba warm-up paid once per session."""

from __future__ import annotations

import numpy as np
import pytest

from meta.table import ResponseTable

_WARM_UP: dict[str, float] = {}


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile (or load) every kernel before the first test (:mod:`hanabi_adhoc.warmup`).

    The compile cost (minutes on a cold cache) is then charged here, once, and reported in the
    terminal summary, instead of to whichever test happens to run first.
    """
    from hanabi_adhoc.warmup import warm_up

    _WARM_UP.update(warm_up())


def pytest_terminal_summary(terminalreporter):
    """One line: what the session's numba warm-up cost."""
    if _WARM_UP:
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in _WARM_UP.items())
        terminalreporter.write_line(
            f"numba warm-up: {sum(_WARM_UP.values()):.1f} s ({steps}; hanabi_adhoc.warmup)"
        )


@pytest.fixture
def manual_table():
    """Factory of a hand-written :class:`ResponseTable` (scores ``(nR, nH)``; comm/IPP 0.5)."""

    def make(scores, comm=None, ipp=None, ids=None) -> ResponseTable:
        scores = np.asarray(scores, dtype=float)
        nr, nh = scores.shape
        comm = np.full((nr, nh), 0.5) if comm is None else np.asarray(comm, dtype=float)
        ipp = np.full((nr, nh), 0.5) if ipp is None else np.asarray(ipp, dtype=float)
        return ResponseTable(
            [f"r{i}" for i in range(nr)],
            ids or [f"h{j}" for j in range(nh)],
            10,
            0,
            "lenient",
            scores,
            np.zeros((nr, nh)),
            comm,
            ipp,
            np.full((nr, nh), np.nan),
            np.zeros((nr, nh, 4)),
        )

    return make
