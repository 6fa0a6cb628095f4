"""The benchmark's raw results: one flat table, one row per game (docs/benchmark.md §3).

:func:`hanabi_adhoc.benchmark.protocol.play_unit` returns a :class:`Results`; every number of a
report (:mod:`hanabi_adhoc.benchmark.aggregate`) is computed from it, so a saved table
(``games.npz``) can be re-reported without playing again.

Columns (all of length ``n``):

=====================  ========  ===========================================================
column                 dtype     meaning
=====================  ========  ===========================================================
``group``              int64     index into :attr:`Results.groups` (the group's name)
``partner``            int64     index of the partner in its group; -1 = the agent's self-play
``players``            int64     game size
``seat``               int64     the agent's seat (0 in self-play: every seat is the agent)
``episode``            int64     episode of the deal (docs/benchmark.md §3)
``game``               int64     game index in the episode (0 = first)
``score``              int64     final score (points)
``agent_<counter>``    float64   the agent's behaviour counters in the game (all its seats)
``partner_<counter>``  float64   the partners' counters, summed over their seats
=====================  ========  ===========================================================

``<counter>`` runs over :data:`hanabi_env.metrics.COUNTER_NAMES`; the metrics are ratios of sums
of them (docs/rules.md §5).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from hanabi_env.metrics import COUNTER_NAMES, metric_ratios

__all__ = ["AGENT_COUNTERS", "COLUMNS", "INDEX_COLUMNS", "PARTNER_COUNTERS", "Results"]

INDEX_COLUMNS = ("group", "partner", "players", "seat", "episode", "game", "score")
"""The integer columns."""
AGENT_COUNTERS = tuple(f"agent_{c}" for c in COUNTER_NAMES)
"""The agent's counter columns, in :data:`~hanabi_env.metrics.COUNTER_NAMES` order."""
PARTNER_COUNTERS = tuple(f"partner_{c}" for c in COUNTER_NAMES)
"""The partners' counter columns."""
COLUMNS = (*INDEX_COLUMNS, *AGENT_COUNTERS, *PARTNER_COUNTERS)
"""Every column, in order."""


@dataclass
class Results:
    """Per-game results of one agent (see the module docstring for the columns).

    Attributes:
        groups: Group names; the ``group`` column indexes them.
        data: Column name → ``(n,)`` array.
    """

    groups: list[str] = field(default_factory=list)
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self):
        n = None
        for name in COLUMNS:
            dtype = np.int64 if name in INDEX_COLUMNS else np.float64
            col = np.asarray(self.data.get(name, np.zeros(0)), dtype=dtype)
            if n is not None and len(col) != n:
                raise ValueError(f"column {name} has {len(col)} rows, not {n}")
            n = len(col)
            self.data[name] = col

    def __len__(self) -> int:
        return len(self.data["score"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.data[name]

    @classmethod
    def of_games(
        cls,
        group: str,
        columns: Mapping[str, np.ndarray],
        agent_counters: np.ndarray,
        partner_counters: np.ndarray,
    ) -> Results:
        """Rows of one group from index columns and ``(n, N_COUNTERS)`` counter arrays."""
        data = {k: np.asarray(v) for k, v in columns.items()}
        data["group"] = np.zeros(len(data["score"]), dtype=np.int64)
        for i, name in enumerate(COUNTER_NAMES):
            data[f"agent_{name}"] = agent_counters[:, i]
            data[f"partner_{name}"] = partner_counters[:, i]
        return cls([group], data)

    @classmethod
    def concat(cls, parts: Sequence[Results]) -> Results:
        """One table of several (group indices re-coded; rows in the order given)."""
        names: list[str] = []
        for p in parts:
            names.extend(g for g in p.groups if g not in names)
        data = {}
        for col in COLUMNS:
            arrays = []
            for p in parts:
                x = p.data[col]
                if col == "group":
                    x = np.array([names.index(g) for g in p.groups], dtype=np.int64)[x]
                arrays.append(x)
            data[col] = np.concatenate(arrays) if arrays else np.zeros(0)
        return cls(names, data)

    def select(self, mask: np.ndarray) -> Results:
        """The rows where ``mask`` is True (same group names)."""
        return Results(list(self.groups), {k: v[mask] for k, v in self.data.items()})

    def group_mask(self, name: str) -> np.ndarray:
        """Rows of the group ``name`` (all False if it has none)."""
        if name not in self.groups:
            return np.zeros(len(self), dtype=bool)
        return self.data["group"] == self.groups.index(name)

    def counters(self, who: str = "agent") -> np.ndarray:
        """``(n, N_COUNTERS)`` counters of ``who`` (``"agent"`` or ``"partner"``)."""
        return np.stack([self.data[f"{who}_{c}"] for c in COUNTER_NAMES], axis=1)

    def metrics(self, who: str = "agent") -> dict[str, float]:
        """Communicativeness, IPP and risk aversion of ``who`` over every row (ratio of sums)."""
        m = metric_ratios(self.counters(who).sum(axis=0))
        return {k: float(m[k]) for k in ("communicativeness", "ipp", "risk_aversion")}

    def to_bytes(self) -> bytes:
        """The table as an ``.npz`` file's bytes (no pickle: plain arrays and a str array)."""
        buf = io.BytesIO()
        arrays: dict = {"group_names": np.array(self.groups, dtype=str), **self.data}
        np.savez_compressed(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, raw: bytes) -> Results:
        """The table of :meth:`to_bytes`.

        Raises:
            ValueError: Not such a table (a column missing or of another length).
        """
        try:
            with np.load(io.BytesIO(raw), allow_pickle=False) as f:
                groups = [str(g) for g in f["group_names"]]
                data = {k: f[k] for k in COLUMNS}
        except (KeyError, OSError, ValueError) as err:
            raise ValueError(f"not a benchmark results table ({err})") from None
        return cls(groups, data)
