"""The response-table meta-agent of [ToG20] (docs/papers.md §4.1; notes in docs/rules.md §9.2).

Offline, a :class:`~meta.table.ResponseTable` I(R, H) gives the **Generalist** (argmax of the
intra-population score, [ToG20] eqs. 1–2) and, for every niche (m, n) of the MAP-Elites grid,
the **specialised response** = the response with the best score when paired with the elite of
(m, n) ([ToG20] eq. 3); all of them form the response table (:func:`niche_responses`).

Online, the agent counts the partner's moves (per partner id, **cumulatively over all games
with that partner**, as [ToG20] stored its estimates per partner across games): hint
opportunities, hints, plays and the attributes the partner knew about its played cards
(docs/rules.md §5, §9.1 bookkeeping). The estimate (ĉ, ι̂) = (hints / opportunities,
Σ attributes / (2 · plays)) is binned on the grid (docs/rules.md §7.1: bin(v) = ⌊v · d⌋, clipped to
d − 1) to give the **estimated niche**. At the start of each game and at each of its own turns
the agent plays

* the Generalist while fewer than ``threshold`` partner moves have been observed (the
  confidence threshold, in observed partner turns), or while the estimate is undefined (no
  hint opportunity or no play observed yet — our guard: the reference binned NaN to 0);
* otherwise the specialised response of the estimated niche. If no elite of H lies in that
  niche, the reference fell back to its generalist (``empty_niche="generalist"``, the
  default); ``empty_niche="nearest"`` uses the nearest niche with an elite instead.

Variants (:data:`RESPONSE_VARIANTS`, [ToG20]): ``"adaptive"`` (threshold 0 in the paper; any
``threshold`` can be given), ``"generalist"`` (threshold ∞: always the Generalist) and
``"oracle"`` (the true niche is given: the specialised response of the partner's own cell).
In distribution (E = H, one elite per niche) the Oracle and the Generalist play exactly as the
Bayesian agent's Oracle and Generalist of :mod:`meta.bayes`.

Usage (the evaluator tells the agent who the partner is)::

    agent = ResponseMetaAgent(table, responses, hypothesis_cells, dims=(5, 5))
    agent.start_episode("e7")
    for game in range(10):
        agent.start_game("e7")               # oracle: agent.start_game("e7", true_niche=(2, 3))
        agent.reset(seed)
        ...  agent.act(view) on each of its turns ...
        agent.end_game(final_view)

Inspect :meth:`ResponseMetaAgent.record`: the estimated niche, the observed counters (overall
and per response in use) and a history of game starts, response switches and game ends.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.policy import Policy
from hanabi_env.game import PlayerView
from hanabi_env.validate import (
    check_choice,
    check_int_sequence,
    check_optional_int,
    check_seed,
    check_str,
)
from meta.bayes import PartnerTracker, Window, _check_responses, _number_or_nan
from meta.table import ResponseTable

__all__ = [
    "EMPTY_NICHE",
    "RESPONSE_VARIANTS",
    "NicheRecord",
    "ResponseMetaAgent",
    "niche_of",
    "niche_responses",
    "parse_cell_id",
]

RESPONSE_VARIANTS = ("adaptive", "generalist", "oracle")
"""Variants of the response-table meta-agent ([ToG20], docs/papers.md §4.1)."""

EMPTY_NICHE = ("generalist", "nearest")
"""What to play when the estimated niche holds no elite of H."""

_CELL_RE = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*$")


def parse_cell_id(cell_id: str) -> tuple[int, ...]:
    """Grid index of a cell id such as ``"[1,3]"`` or ``"runB[1,3]"`` (trailing ``[i,j]``).

    Ids of population elites are their cell names (docs/rules.md §9.1); a prefix (e.g. the name of
    the run) is allowed.

    Raises:
        TypeError: ``cell_id`` is not a str.
        ValueError: No trailing ``[i,j,...]`` of non-negative ints.
    """
    m = _CELL_RE.search(check_str("cell_id", cell_id, empty=True))
    if m is None:
        raise ValueError(f"cell_id={cell_id!r} does not end with a cell index like '[i,j]'")
    return tuple(int(x) for x in m.group(1).split(","))


def niche_of(comm: float, ipp: float, dims: Sequence[int] = (5, 5)) -> tuple[int, int] | None:
    """The grid niche of (communicativeness, IPP) (docs/rules.md §7.1 binning).

    Args:
        comm: Communicativeness in [0, 1] (NaN if undefined).
        ipp: IPP in [0, 1] (NaN if undefined).
        dims: ``(d1, d2)`` cells per dimension (5×5 in [Bayes21], 20×20 in [ToG20]).

    Returns:
        ``(i, j)`` with i = min(⌊comm · d1⌋, d1 − 1) (and likewise j), or None when either
        value is NaN (our guard; the reference's integer cast sent NaN to bin 0).

    Raises:
        TypeError, ValueError: ``comm``/``ipp`` not numbers, or ``dims`` not two ints >= 1.
    """
    comm, ipp = _number_or_nan("comm", comm), _number_or_nan("ipp", ipp)
    d1, d2 = _dims(dims)
    if math.isnan(comm) or math.isnan(ipp):
        return None
    return (min(max(int(comm * d1), 0), d1 - 1), min(max(int(ipp * d2), 0), d2 - 1))


def _dims(dims: object) -> tuple[int, int]:
    """A ``(d1, d2)`` grid: two ints in [1, 1000]."""
    d1, d2 = check_int_sequence(
        "dims", dims, 1, 1000, min_len=2, max_len=2, unique=False, what="cell counts"
    )
    return d1, d2


def niche_responses(
    table: ResponseTable,
    hypothesis_cells: Sequence[Sequence[int]],
    dims: Sequence[int] = (5, 5),
    empty_niche: str = "generalist",
) -> np.ndarray:
    """The [ToG20] response table: the specialised response of every niche (eq. 3).

    For a niche holding hypothesis h, the response is argmax_r score(r, h) (ties → first r in
    pool order). If several hypotheses share a niche (pooled populations), it is the argmax of
    their mean score.

    Args:
        table: I(R, H).
        hypothesis_cells: ``nH`` grid indices ``(i, j)``, the niche of each hypothesis.
        dims: ``(d1, d2)`` grid shape.
        empty_niche: Niches without a hypothesis get the Generalist (``"generalist"``) or the
            response of the nearest niche with one (``"nearest"``: Euclidean distance between
            grid indices, ties → first niche in row-major order).

    Returns:
        ``(d1, d2)`` int64 response indices (rows of ``table``).

    Raises:
        ValueError: Wrong number of cells, a cell outside ``dims``, or a bad ``empty_niche``.
    """
    check_choice("empty_niche", empty_niche, EMPTY_NICHE)
    d1, d2 = _dims(dims)
    if isinstance(hypothesis_cells, (str, bytes)) or not isinstance(hypothesis_cells, Sequence):
        raise TypeError("hypothesis_cells must be a sequence of (i, j) cells")
    cells = [
        check_int_sequence("hypothesis_cells", c, 0, unique=False, what="cell indices")
        for c in hypothesis_cells
    ]
    if len(cells) != table.shape[1]:
        raise ValueError(
            f"hypothesis_cells has {len(cells)} cells for a table of {table.shape[1]} hypotheses"
        )
    for c in cells:
        if len(c) != 2 or not (0 <= c[0] < d1 and 0 <= c[1] < d2):
            raise ValueError(f"hypothesis cell {c} is outside the grid dims=({d1}, {d2})")
    out = np.full((d1, d2), -1, dtype=np.int64)
    for c in dict.fromkeys(cells):
        cols = [j for j, cj in enumerate(cells) if cj == c]
        out[c] = int(np.argmax(table.scores[:, cols].mean(axis=1)))
    filled = np.argwhere(out >= 0)
    for i in range(d1):
        for j in range(d2):
            if out[i, j] >= 0:
                continue
            if empty_niche == "generalist" or not len(filled):
                out[i, j] = table.generalist()
            else:
                d = ((filled - np.array([i, j])) ** 2).sum(axis=1)
                out[i, j] = out[tuple(filled[int(np.argmin(d))])]
    return out


@dataclass
class NicheRecord:
    """What the response-table agent keeps about one partner id.

    Attributes:
        observed: The partner's counters over every move observed since the episode started
            (the estimate is ``observed.communicativeness`` / ``observed.ipp``).
        by_response: Response index → the partner's counters observed while that response was
            in use (for the niche-estimate error of [ToG20]).
        niche: Current estimated niche ``(i, j)`` (None while undefined).
        games: Games started with this partner.
        turns: The agent's own turns with this partner.
        history: Events, dicts with ``event`` = ``"game"`` (``game``, ``response``, ``niche``,
            ``comm``, ``ipp``, ``observed_moves``), ``"switch"`` (the same plus ``turn`` and
            ``response_from``) or ``"end"`` (``game``, ``niche``, ``comm``, ``ipp``,
            ``observed_moves``).
    """

    observed: Window = field(default_factory=Window)
    by_response: dict[int, Window] = field(default_factory=dict)
    niche: tuple[int, int] | None = None
    games: int = 0
    turns: int = 0
    history: list[dict] = field(default_factory=list)


class ResponseMetaAgent(PartnerTracker):
    """The response-table meta-agent of [ToG20] and its variants (docs/papers.md §4.1).

    Args:
        table: The offline table I(R, H) (rows = ``responses``).
        responses: The response policies R in the table's row order (deep-copied).
        hypothesis_cells: ``nH`` grid indices ``(i, j)`` of the hypotheses (default: parsed from
            ``table.hypothesis_ids`` with :func:`parse_cell_id`).
        dims: ``(d1, d2)`` grid over (communicativeness, IPP).
        variant: One of :data:`RESPONSE_VARIANTS`.
        threshold: Confidence threshold: partner moves to observe before leaving the
            Generalist (adaptive variant; 0 in [ToG20]). None = never (the Generalist).
        empty_niche: One of :data:`EMPTY_NICHE` (see :func:`niche_responses`).
        seed: Unused by the decision rule (deterministic); kept for a uniform API.
        name: Display name.

    Raises:
        ValueError: Bad ``variant``, ``threshold``, ``empty_niche``, cells, or ``responses``
            not matching the table.
    """

    def __init__(
        self,
        table: ResponseTable,
        responses: Sequence[Policy],
        hypothesis_cells: Sequence[Sequence[int]] | None = None,
        dims: Sequence[int] = (5, 5),
        variant: str = "adaptive",
        threshold: int | None = 0,
        empty_niche: str = "generalist",
        seed: int = 0,
        name: str | None = None,
    ):
        """See the class docstring."""
        check_choice("variant", variant, RESPONSE_VARIANTS)
        threshold = check_optional_int("threshold", threshold, 0)
        responses = _check_responses(responses, table)
        check_choice("empty_niche", empty_niche, EMPTY_NICHE)
        seed = check_seed("seed", seed)
        if name is not None:
            check_str("name", name)
        if hypothesis_cells is None:
            hypothesis_cells = [parse_cell_id(h) for h in table.hypothesis_ids]
        self.dims = _dims(dims)
        self.table = table
        if isinstance(hypothesis_cells, (str, bytes)) or not isinstance(hypothesis_cells, Sequence):
            raise TypeError("hypothesis_cells must be a sequence of (i, j) cells")
        self.hypothesis_cells = [
            check_int_sequence("hypothesis_cells", c, 0, unique=False, what="cell indices")
            for c in hypothesis_cells
        ]
        self.niche_table = niche_responses(table, self.hypothesis_cells, self.dims, empty_niche)
        self.responses = [copy.deepcopy(p) for p in responses]
        self.variant = variant
        self.threshold = None if threshold is None else int(threshold)
        self.empty_niche = empty_niche
        self.seed = int(seed)
        self.name = name or f"response-{variant}"
        self.generalist = table.generalist()
        self.partners: dict[str, NicheRecord] = {}
        self.partner: str | None = None
        self.response: int = self.generalist
        self.true_niche: tuple[int, int] | None = None
        self._seen = 0
        self._seat: int | None = None
        self._game_seed: int | None = None
        self._in_game = False

    # ---------------------------------------------------------------- partners and games
    def estimate(self, partner_id: str | None = None) -> tuple[float, float]:
        """The partner's observed (communicativeness, IPP) so far (NaN where undefined)."""
        w = self.record(partner_id).observed
        return w.communicativeness, w.ipp

    def start_game(self, partner_id: str, true_niche: Sequence[int] | None = None) -> int:
        """Declare the partner of the next game; call before :meth:`reset`.

        Args:
            partner_id: The partner's id (observations are kept per id).
            true_niche: The partner's true niche ``(i, j)`` (required by the Oracle).

        Returns:
            The response index chosen for the start of the game.

        Raises:
            TypeError: ``partner_id`` not a str, or ``true_niche`` not two ints.
            ValueError: Oracle without ``true_niche``, or a niche outside the grid.
        """
        pid = check_str("partner_id", partner_id)
        if true_niche is not None:
            check_int_sequence("true_niche", true_niche, unique=False, what="cell indices")
        if self._in_game:
            self.end_game(None)
        rec = self.partners.setdefault(pid, NicheRecord())
        self.partner = pid
        if self.variant == "oracle":
            if true_niche is None:
                raise ValueError("the oracle variant needs true_niche=(i, j)")
            tn = tuple(int(x) for x in true_niche)
            if len(tn) != 2 or not all(0 <= x < d for x, d in zip(tn, self.dims, strict=True)):
                raise ValueError(f"true_niche={true_niche} is outside the grid dims={self.dims}")
            self.true_niche = tn
        self.response = self._choose(rec)
        rec.history.append({"event": "game", "game": rec.games, **self._state(rec)})
        self._begin_game(rec)
        return self.response

    def _next_game(self, partner_id: str) -> None:
        self.start_game(partner_id, self.true_niche)

    def end_game(self, view: PlayerView | None = None) -> None:
        """Finish the current game, observing the partner's last moves from ``view``."""
        if not self._in_game:
            return
        rec = self.record()
        if view is not None:
            self._observe(view, rec)
        rec.niche = niche_of(*self.estimate(), self.dims)
        state = self._state(rec)
        state.pop("response")
        rec.history.append({"event": "end", "game": rec.games - 1, **state})
        self._in_game = False

    # ---------------------------------------------------------------- acting
    def act(self, view: PlayerView) -> int:
        """Observe the partner's new moves, re-choose the response, and play its move."""
        if not self._in_game:
            self.reset(None)
        rec = self.record()
        self._observe(view, rec)
        new = self._choose(rec)
        if new != self.response:
            old, self.response = self.response, new
            self.responses[new].reset(self._game_seed)
            rec.history.append(
                {
                    "event": "switch",
                    "game": rec.games - 1,
                    "turn": rec.turns,
                    "response_from": old,
                    **self._state(rec),
                }
            )
        rec.turns += 1
        return int(self.responses[self.response].act(view))

    def _observe(self, view: PlayerView, rec: NicheRecord) -> None:
        for move in self._partner_moves(view):
            rec.observed.observe(move)
            rec.by_response.setdefault(self.response, Window()).observe(move)

    def _choose(self, rec: NicheRecord) -> int:
        rec.niche = niche_of(*self.estimate(), self.dims)
        if self.variant == "generalist":
            return self.generalist
        if self.variant == "oracle":
            return int(self.niche_table[self.true_niche])
        if self.threshold is None or rec.observed.moves < self.threshold or rec.niche is None:
            return self.generalist
        return int(self.niche_table[rec.niche])

    def _state(self, rec: NicheRecord) -> dict:
        comm, ipp = self.estimate()
        return {
            "response": self.response,
            "niche": rec.niche,
            "comm": comm,
            "ipp": ipp,
            "observed_moves": rec.observed.moves,
        }

    def __repr__(self) -> str:
        """Variant, threshold and pool sizes."""
        return (
            f"ResponseMetaAgent({self.name!r}, variant={self.variant!r}, "
            f"threshold={self.threshold}, |R|={self.table.shape[0]}, |H|={self.table.shape[1]})"
        )
