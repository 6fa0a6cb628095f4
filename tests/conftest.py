"""Shared test fixtures."""

from __future__ import annotations

import numpy as np
import pytest

from meta.table import ResponseTable


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
