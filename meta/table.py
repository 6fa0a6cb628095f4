"""Offline training of the meta-agents: the response × hypothesis match-up table I(r, h).

For pools R (responses) and H (hypotheses) of any policies, every ordered pair (r, h) plays
``games`` 2-player games with r in seat 0 and h in seat 1 ([Bayes21], docs/papers.md §4.2;
docs/rules.md §9.1). **Every pair plays the same deal sequence and the same per-seat agent
seeds** (common random numbers, docs/rules.md §6). Rule agents run in the compiled kernel
through :func:`agents.evaluate.play_games`; other policies step :class:`hanabi_env.HanabiGame`.

The table stores, per pair, the mean score and its s.e.m., and the behaviour displayed by h on
its seat: communicativeness and IPP as ratios of sums over the games (docs/rules.md §5), plus
the raw counter sums so that the ratios can be recomputed.

CSV schema (one row per pair, columns :data:`TABLE_COLUMNS`; NaN written as an empty field):

====================  ==============================================================
``response_id``       id of r (seat 0)
``hypothesis_id``     id of h (seat 1)
``games``             games played by the pair
``seed``              master seed of the deal sequence (equal for every pair)
``scoring``           ``lenient`` or ``strict``
``mean_score``        mean final score (points)
``sem_score``         standard error of ``mean_score`` (NaN with one game)
``h_communicativeness``  Σ hints_given / Σ hint_opportunities over h's seat
``h_ipp``             Σ sum_known_attrs / (2 Σ plays) over h's seat
``h_risk_aversion``   Σ sum_p_playable / Σ plays over h's seat
``h_hint_opportunities``, ``h_hints_given``, ``h_plays``, ``h_sum_known_attrs``: the sums
====================  ==============================================================

A file is resumable: :func:`build_table` with ``path`` skips the pairs already in the file
(checking that their ``games``, ``seed`` and ``scoring`` match) and appends each new pair as
soon as it is played. A file is read whole and validated first: every row must be complete (end
with a newline), have the header's number of fields and valid values (integer ``games``/``seed``
and counter sums, known ``scoring``, finite scores, ratios in [0, 1] that agree with the sums
when their denominator is non-zero), and no pair may appear twice. A killed write leaves an
incomplete last line: :func:`build_table` drops it (one warning says what was dropped) and
appends from the clean line boundary; anything else wrong raises :class:`TableFileError` naming
the file, and :meth:`ResponseTable.from_csv` (which never modifies the file) also refuses an
incomplete last line. :meth:`ResponseTable.to_csv` writes atomically.
"""

from __future__ import annotations

import csv
import math
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from agents.backend import Backend
from agents.evaluate import check_games, game_seeds, play_policies
from agents.policy import Policy, RuleAgent
from agents.reference import hand_order_for
from hanabi_env import engine as E
from hanabi_env import stats
from hanabi_env.config import HanabiConfig
from hanabi_env.metrics import metric_ratios
from hanabi_env.outputs import ResultFileError, file_lock, write_error
from hanabi_env.validate import (
    check_callable,
    check_choice,
    check_int,
    check_seed,
    check_workers,
    settings_keywords,
    type_error,
)
from qd.io import atomic_write_csv, csv_records

__all__ = [
    "TABLE_COLUMNS",
    "ResponseTable",
    "TableFileError",
    "TableProtocol",
    "build_table",
    "check_table",
    "policy_ids",
    "read_table_rows",
]

TABLE_COLUMNS = (
    "response_id",
    "hypothesis_id",
    "games",
    "seed",
    "scoring",
    "mean_score",
    "sem_score",
    "h_communicativeness",
    "h_ipp",
    "h_risk_aversion",
    "h_hint_opportunities",
    "h_hints_given",
    "h_plays",
    "h_sum_known_attrs",
)
"""Columns of the table CSV (see the module docstring)."""

_SUMS = {
    "h_hint_opportunities": E.C_HINT_OPPORTUNITIES,
    "h_hints_given": E.C_HINTS_GIVEN,
    "h_plays": E.C_PLAYS,
    "h_sum_known_attrs": E.C_SUM_KNOWN_ATTRS,
}


class TableFileError(ResultFileError):
    """A response-table file is incomplete or corrupt (the message names the file and the fix).

    A ``ValueError`` (:class:`hanabi_env.outputs.ResultFileError`).
    """


MAX_SCORE = HanabiConfig().max_score
"""The highest score of the 2-player game the tables are played in (25 points)."""


def check_table(name: str, table: object) -> ResponseTable:
    """``table`` if it is a :class:`ResponseTable` whose entries a meta-agent can use.

    Scores must be finite and within ``[0, MAX_SCORE]`` (a NaN score would make every argmax
    pick the first response), the arrays of the table's shape, and its ratios in ``[0, 1]`` or
    NaN.

    Raises:
        TypeError: Not a ResponseTable.
        ValueError: Missing (NaN) or impossible scores, wrong shapes, or ratios out of range;
            the message names ``name`` and the first bad entry.
    """
    if not isinstance(table, ResponseTable):
        raise type_error(name, "a meta.table.ResponseTable", table)
    shape = (len(table.response_ids), len(table.hypothesis_ids))
    for field in ("scores", "sem", "communicativeness", "ipp", "risk_aversion"):
        arr = getattr(table, field)
        if not isinstance(arr, np.ndarray) or arr.shape != shape:
            raise ValueError(f"{name}.{field} must be a {shape} array, got {np.shape(arr)}")
    bad = np.argwhere(~np.isfinite(table.scores) | (table.scores < 0) | (table.scores > MAX_SCORE))
    if len(bad):
        i, j = (int(x) for x in bad[0])
        raise ValueError(
            f"{name}.scores[{i}, {j}]={float(table.scores[i, j])!r} is out of range; allowed: "
            f"finite scores in [0, {MAX_SCORE}] (pair {table.response_ids[i]!r}, "
            f"{table.hypothesis_ids[j]!r})"
        )
    for field in ("communicativeness", "ipp", "risk_aversion"):
        arr = getattr(table, field)
        bad = np.argwhere((arr < 0) | (arr > 1))
        if len(bad):
            i, j = (int(x) for x in bad[0])
            raise ValueError(
                f"{name}.{field}[{i}, {j}]={float(arr[i, j])!r} is out of range; allowed: [0, 1] "
                "or NaN"
            )
    return table


def policy_ids(policies: Sequence[Policy], ids: Sequence[str] | None = None) -> list[str]:
    """Unique ids for a pool: ``ids`` if given, else the policies' names.

    Raises:
        ValueError: ``ids`` has the wrong length, or the ids are not unique (pass ``ids``).
    """
    if ids is not None and (
        isinstance(ids, (str, bytes)) or not all(isinstance(i, str) for i in ids)
    ):
        raise type_error("ids", "a sequence of str", ids)
    out = [str(p.name) for p in policies] if ids is None else list(ids)
    if len(out) != len(policies):
        raise ValueError(f"ids has {len(out)} entries for {len(policies)} policies")
    if len(set(out)) != len(out):
        raise ValueError(f"ids must be unique, got {out} (pass explicit ids)")
    return out


@dataclass
class ResponseTable:
    """The offline table I(r, h) of [Bayes21] (docs/papers.md §4.2, docs/rules.md §9.1).

    Attributes:
        response_ids: ``nR`` ids of the responses (rows, pool order).
        hypothesis_ids: ``nH`` ids of the hypotheses (columns, pool order).
        games: Games per pair.
        seed: Master seed of the deal sequence.
        scoring: ``"lenient"`` or ``"strict"``.
        scores: ``(nR, nH)`` mean score with r in seat 0 and h in seat 1.
        sem: ``(nR, nH)`` standard error of ``scores``.
        communicativeness: ``(nR, nH)`` h's communicativeness in the pair (ratio of sums).
        ipp: ``(nR, nH)`` h's IPP in the pair (ratio of sums).
        risk_aversion: ``(nR, nH)`` h's risk aversion in the pair (ratio of sums).
        sums: ``(nR, nH, 4)`` h's counter sums, columns ``hint_opportunities, hints_given,
            plays, sum_known_attrs``.
    """

    response_ids: list[str]
    hypothesis_ids: list[str]
    games: int
    seed: int
    scoring: str
    scores: np.ndarray
    sem: np.ndarray
    communicativeness: np.ndarray
    ipp: np.ndarray
    risk_aversion: np.ndarray
    sums: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        """``(nR, nH)``."""
        return self.scores.shape

    def generalist(self) -> int:
        """Index of Generalist(R, H) = argmax_r Σ_h score(r, h) ([Bayes21]; ties → first r)."""
        return int(np.argmax(self.scores.sum(axis=1)))

    def oracle(self, h: int) -> int:
        """Index of Oracle(R, h) = argmax_r score(r, h) ([Bayes21]; ties → first r)."""
        return int(np.argmax(self.scores[:, int(h)]))

    def best_response(self, belief: np.ndarray) -> int:
        """[Bayes21] eq. 7: argmax_r Σ_h score(r, h) · B(h) (ties → first r in pool order)."""
        return int(np.argmax(self.scores @ np.asarray(belief, dtype=np.float64)))

    def rows(self) -> list[dict]:
        """One dict per pair (row-major), keys :data:`TABLE_COLUMNS`."""
        out = []
        for i, r in enumerate(self.response_ids):
            for j, h in enumerate(self.hypothesis_ids):
                out.append(self._row(i, j, r, h))
        return out

    def _row(self, i: int, j: int, r: str, h: str) -> dict:
        row = {
            "response_id": r,
            "hypothesis_id": h,
            "games": self.games,
            "seed": self.seed,
            "scoring": self.scoring,
            "mean_score": float(self.scores[i, j]),
            "sem_score": float(self.sem[i, j]),
            "h_communicativeness": float(self.communicativeness[i, j]),
            "h_ipp": float(self.ipp[i, j]),
            "h_risk_aversion": float(self.risk_aversion[i, j]),
        }
        for k, name in enumerate(_SUMS):
            row[name] = float(self.sums[i, j, k])
        return row

    def to_csv(self, path: str | Path) -> None:
        """Write the table as CSV (schema in the module docstring), atomically.

        The rows go to a temporary file in the same folder, which then replaces ``path``: a
        reader or a killed writer never sees half a table.
        """
        atomic_write_csv(path, TABLE_COLUMNS, (_clean(row) for row in self.rows()))

    @classmethod
    def from_csv(
        cls,
        path: str | Path,
        response_ids: Sequence[str] | None = None,
        hypothesis_ids: Sequence[str] | None = None,
    ) -> ResponseTable:
        """Read a table CSV.

        Args:
            path: The file.
            response_ids: Row order (default: order of first appearance in the file).
            hypothesis_ids: Column order (default: order of first appearance in the file).

        Raises:
            TableFileError: (a ``ValueError``) An incomplete last row (a killed write: resume
                the build to repair it), missing columns, a malformed or invalid row, a
                repeated or missing pair, or mixed ``games``/``seed``/``scoring``.
        """
        rows, tail = read_table_rows(path, exact_header=False)
        if tail:
            raise TableFileError(
                f"{path}: the last row is incomplete ({len(tail)} bytes without a final "
                "newline, a killed write?); resume the build (build_table with this path, or "
                "rerun the same command) to drop it and complete the table"
            )
        if not rows:
            raise TableFileError(f"{path}: empty table (no rows after the header)")
        r_ids = list(response_ids or dict.fromkeys(r["response_id"] for r in rows))
        h_ids = list(hypothesis_ids or dict.fromkeys(r["hypothesis_id"] for r in rows))
        by_pair = {(r["response_id"], r["hypothesis_id"]): r for r in rows}
        meta = {(r["games"], r["seed"], r["scoring"]) for r in rows}
        if len(meta) != 1:
            raise TableFileError(
                f"{path}: rows mix (games, seed, scoring) settings: {sorted(meta)}"
            )
        games, seed, scoring = next(iter(meta))
        t = _empty(r_ids, h_ids, int(games), int(seed), scoring)
        for i, r in enumerate(r_ids):
            for j, h in enumerate(h_ids):
                if (r, h) not in by_pair:
                    raise TableFileError(f"{path}: missing pair ({r!r}, {h!r})")
                _fill(t, i, j, by_pair[r, h])
        return t


def _clean(row: dict) -> dict:
    return {k: ("" if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


def _f(x: str) -> float:
    return math.nan if x == "" else float(x)


_FIX = "delete the file (or its bad lines) to recompute the table"


def _number(path, line: int, name: str, text: str, kind: str) -> float:
    """Parse one field of kind ``int``, ``count``, ``score``, ``sem`` or ``ratio``.

    ``count`` is integral and >= 0, ``score`` finite and >= 0, ``sem`` empty (NaN) or finite and
    >= 0, ``ratio`` empty (NaN) or in [0, 1].
    """
    if text == "" and kind in ("sem", "ratio"):
        return math.nan
    x: float | None
    try:
        x = int(text) if kind == "int" else float(text)
    except ValueError:
        x = None
    if x is None or not math.isfinite(x):
        ok = False
    elif kind == "count":
        ok = x >= 0 and x == int(x)
    elif kind in ("score", "sem"):
        ok = x >= 0
    elif kind == "ratio":
        ok = 0 <= x <= 1
    else:
        ok = True
    if x is None or not ok:
        raise TableFileError(f"{path}: line {line}: {name}={text!r} is not a valid {kind}; {_FIX}")
    return x


_KINDS = {
    "games": "int",
    "seed": "int",
    "mean_score": "score",
    "sem_score": "sem",
    "h_communicativeness": "ratio",
    "h_ipp": "ratio",
    "h_risk_aversion": "ratio",
    **dict.fromkeys(_SUMS, "count"),
}


def _check_row(path, line: int, row: dict) -> None:
    """Validate one row's values and the agreement of its ratios with its sums."""
    v = {name: _number(path, line, name, row[name], kind) for name, kind in _KINDS.items()}
    if v["games"] < 1:
        raise TableFileError(f"{path}: line {line}: games={row['games']!r} is not >= 1; {_FIX}")
    if row["scoring"] not in ("lenient", "strict"):
        raise TableFileError(f"{path}: line {line}: scoring={row['scoring']!r} is unknown; {_FIX}")
    for ratio, num, den, factor in (
        ("h_communicativeness", "h_hints_given", "h_hint_opportunities", 1.0),
        ("h_ipp", "h_sum_known_attrs", "h_plays", 2.0),
    ):
        if v[den] > 0 and not math.isclose(v[ratio], v[num] / (factor * v[den]), rel_tol=1e-9):
            raise TableFileError(
                f"{path}: line {line}: {ratio}={row[ratio]!r} disagrees with "
                f"{num}/{den} = {row[num]}/{row[den]}; {_FIX}"
            )


def read_table_rows(path: str | Path, exact_header: bool) -> tuple[list[dict], bytes]:
    """Read and validate a table file whole: ``(rows, incomplete tail bytes)``.

    Used by :meth:`ResponseTable.load`, the resumed :func:`build_table` and ``hanabi-adhoc
    meta-table``'s check of an ``--out`` file.

    ``exact_header`` demands the columns of :data:`TABLE_COLUMNS` in order (a file rows are
    appended to); otherwise extra or reordered columns are allowed. A file without a complete
    header line has no rows; its tail is returned only when it is the start of our header.

    Raises:
        TableFileError: Anything but an incomplete tail is wrong (see the module docstring).
    """
    data = Path(path).read_bytes()
    records, complete = csv_records(data, path, _FIX, TableFileError)
    tail = data[complete:]
    if not records:
        header_line = (",".join(TABLE_COLUMNS) + "\r\n").encode()
        if not header_line.startswith(tail):
            raise TableFileError(f"{path}: not a response table (no header line); {_FIX}")
        return [], tail
    (header, _), records = records[0], records[1:]
    if exact_header and header != list(TABLE_COLUMNS):
        raise TableFileError(
            f"{path}: columns {header} are not {list(TABLE_COLUMNS)}, so rows cannot be "
            f"appended; {_FIX}"
        )
    missing = set(TABLE_COLUMNS) - set(header)
    if missing:
        raise TableFileError(f"{path}: not a response table (missing columns {sorted(missing)})")
    rows: list[dict] = []
    seen: dict[tuple[str, str], int] = {}
    for fields, line in records:
        if len(fields) != len(header):
            raise TableFileError(
                f"{path}: line {line} has {len(fields)} fields, not {len(header)}; {_FIX}"
            )
        row = dict(zip(header, fields, strict=True))
        _check_row(path, line, row)
        pair = (row["response_id"], row["hypothesis_id"])
        if pair in seen:
            raise TableFileError(
                f"{path}: line {line} repeats the pair {pair} of line {seen[pair]}; {_FIX}"
            )
        seen[pair] = line
        rows.append(row)
    return rows, tail


def _empty(r_ids: list[str], h_ids: list[str], games: int, seed: int, scoring: str):
    nr, nh = len(r_ids), len(h_ids)
    nan = np.full((nr, nh), math.nan)
    return ResponseTable(
        list(r_ids),
        list(h_ids),
        games,
        seed,
        scoring,
        nan.copy(),
        nan.copy(),
        nan.copy(),
        nan.copy(),
        nan.copy(),
        np.zeros((nr, nh, len(_SUMS))),
    )


def _fill(t: ResponseTable, i: int, j: int, row: dict) -> None:
    t.scores[i, j] = _f(row["mean_score"])
    t.sem[i, j] = _f(row["sem_score"])
    t.communicativeness[i, j] = _f(row["h_communicativeness"])
    t.ipp[i, j] = _f(row["h_ipp"])
    t.risk_aversion[i, j] = _f(row["h_risk_aversion"])
    for k, name in enumerate(_SUMS):
        t.sums[i, j, k] = _f(row[name])


def _pair_values(scores: np.ndarray, counters: np.ndarray) -> dict:
    """Table entries of one pair from its games' scores and h's-seat counters ``(games, C)``."""
    sc = scores.astype(np.float64)
    s = counters.sum(axis=0)
    return {
        "mean_score": float(sc.mean()),
        "sem_score": stats.sem(sc),
        **{f"h_{k}": float(v) for k, v in metric_ratios(s).items()},
        **{name: float(s[c]) for name, c in _SUMS.items()},
    }


@dataclass(frozen=True)
class TableProtocol:
    """How :func:`build_table` plays its pairs; every field checked once, when it is made.

    Attributes:
        games: Games per pair, >= 1 (400 in [Bayes21]; memory-checked).
        seed: Master seed of the deal sequence, in ``[0, 2**62)``.
        scoring: ``"lenient"`` (the papers) or ``"strict"``.
        workers: Processes for rule-agent games, >= 1 or None (all cores); results do not
            depend on it.
        max_games_per_call: Games per evaluator call for rule agents (a memory bound), >= 1.
        progress: Called with the number of games finished after each call, or None.

    Raises:
        TypeError: A field of the wrong type (the message names it).
        ValueError: A field out of range (the message names it and what is allowed).
    """

    games: int = 400
    seed: int = 0
    scoring: str = "lenient"
    workers: int | None = 1
    max_games_per_call: int = 50_000
    progress: Callable[[int], None] | None = None

    def __post_init__(self) -> None:
        """Check every field (in this order) and store it in its plain type."""
        checked = {
            "games": check_int("games", self.games, 1),
            "seed": check_seed("seed", self.seed),
            "scoring": check_choice("scoring", self.scoring, ("lenient", "strict")),
            "workers": check_workers("workers", self.workers),
            "max_games_per_call": check_int("max_games_per_call", self.max_games_per_call, 1),
            "progress": check_callable("progress", self.progress, allow_none=True),
        }
        for key, value in checked.items():
            object.__setattr__(self, key, value)


def build_table(
    responses: Sequence[Policy],
    hypotheses: Sequence[Policy],
    games: int = 400,
    seed: int = 0,
    response_ids: Sequence[str] | None = None,
    hypothesis_ids: Sequence[str] | None = None,
    scoring: str = "lenient",
    path: str | Path | None = None,
    workers: int | None = 1,
    max_games_per_call: int = 50_000,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
    *,
    protocol: TableProtocol | None = None,
) -> ResponseTable:
    """Play every (r, h) pair and return I(r, h) ([Bayes21], docs/rules.md §9.1).

    Every pair plays the deals and agent seeds ``agents.evaluate.game_seeds(seed, games, 2)``
    (common random numbers). When every policy is a :class:`~agents.policy.RuleAgent`, several
    pairs share one compiled-kernel call; results do not depend on the batching or on
    ``workers``. The settings are one :class:`TableProtocol` (``protocol``) or its fields as
    keywords (both kept, no warning; pass one or the other).

    Args:
        responses: Pool R (seat 0).
        hypotheses: Pool H (seat 1).
        games: :attr:`TableProtocol.games`, games per pair.
        seed: :attr:`TableProtocol.seed`, the master seed of the deal sequence.
        response_ids: Ids of R (default: the policies' names; must be unique).
        hypothesis_ids: Ids of H (default: the policies' names; must be unique).
        scoring: :attr:`TableProtocol.scoring`, ``"lenient"`` or ``"strict"``.
        path: CSV file to resume from and append to (created if absent), locked
            (:func:`hanabi_env.outputs.file_lock`) while the table is built.
        workers: :attr:`TableProtocol.workers` (None = all cores).
        max_games_per_call: :attr:`TableProtocol.max_games_per_call`.
        progress: :attr:`TableProtocol.progress`, a callable or None.
        backend: An :class:`agents.backend.Backend` (left open) for the rule-agent games, e.g.
            a Dask cluster's; None = ``workers`` local processes. Results do not depend on it.
        protocol: The settings in one object (then leave their keywords at the defaults).

    Returns:
        The full ``(nR, nH)`` :class:`ResponseTable`.

    Raises:
        TypeError, ValueError: Empty pools, a bad setting (:class:`TableProtocol`) or bad ids.
        TableFileError: (a ``ValueError``) ``path`` is corrupt (anything but an incomplete last
            line, which is dropped with a warning), or its rows were made with other
            ``games``/``seed``/``scoring`` or name ids that are not in the pools.
        FolderBusyError: Another process is writing ``path`` (its lock, ``.NAME.lock``).
        OutputWriteError: ``path`` cannot be written (e.g. a full disk); it is named.
    """
    for name, pool in (("responses", responses), ("hypotheses", hypotheses)):
        if isinstance(pool, (str, bytes)) or not isinstance(pool, Sequence):
            raise type_error(name, "a sequence of policies", pool)
    if not responses or not hypotheses:
        raise ValueError("responses and hypotheses must be non-empty pools")
    given = settings_keywords("protocol", TableProtocol, protocol, locals())
    proto = TableProtocol(**given) if protocol is None else protocol
    if backend is not None and not isinstance(backend, Backend):
        raise type_error("backend", "an agents.backend.Backend or None", backend)
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise type_error("path", "a str or os.PathLike path or None", path)
    r_ids = policy_ids(responses, response_ids)
    h_ids = policy_ids(hypotheses, hypothesis_ids)
    check_games("games", proto.games)
    table = _empty(r_ids, h_ids, proto.games, proto.seed, proto.scoring)
    if path is None:
        return _play_pairs(table, responses, hypotheses, None, set(), proto, backend)
    return _build_file(Path(path), table, responses, hypotheses, proto, backend)


def _build_file(path: Path, table, responses, hypotheses, proto: TableProtocol, backend):
    """:func:`build_table` with a file: resume from it, append each new pair, under its lock."""
    with file_lock(path):  # one writer per table file, whoever writes it
        done = _resume(path, table, table.response_ids, table.hypothesis_ids)
        new_file = not path.exists() or path.stat().st_size == 0
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as exc:
            raise write_error(path, exc) from None
        with os.fdopen(fd, "a", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(TABLE_COLUMNS))
            if new_file:
                writer.writeheader()
            out = (fh, writer, path)
            return _play_pairs(table, responses, hypotheses, out, done, proto, backend)


def _play_pairs(
    table: ResponseTable,
    responses: Sequence[Policy],
    hypotheses: Sequence[Policy],
    out: tuple[TextIO, csv.DictWriter, Path] | None,
    done: set[tuple[int, int]],
    proto: TableProtocol,
    backend: Backend | None,
) -> ResponseTable:
    """Play the pairs of ``table`` not in ``done``; append each row to ``out`` when given."""
    workers, max_games_per_call, progress = proto.workers, proto.max_games_per_call, proto.progress
    r_ids, h_ids = table.response_ids, table.hypothesis_ids
    games, seed, scoring = table.games, table.seed, table.scoring
    cfg = HanabiConfig(
        players=2,
        hand_size=5,
        scoring=scoring,
        hand_order=hand_order_for([*responses, *hypotheses]),
    )
    _, deals, agent_seeds = game_seeds(seed, games, 2, random_seat=False)
    todo = [(i, j) for i in range(len(r_ids)) for j in range(len(h_ids)) if (i, j) not in done]
    all_rules = all(isinstance(p, RuleAgent) for p in (*responses, *hypotheses))
    per_call = max(1, int(max_games_per_call) // games) if all_rules else 1
    pool = [*responses, *hypotheses]
    nr = len(responses)
    for start in range(0, len(todo), per_call):
        block = todo[start : start + per_call]
        if all_rules:
            policies = pool
            seat_agents = np.repeat(
                np.array([(i, nr + j) for i, j in block], dtype=np.int64), games, axis=0
            )
        else:
            i, j = block[0]
            policies = [responses[i], hypotheses[j]]
            seat_agents = np.tile(np.array([0, 1], dtype=np.int64), (games, 1))
        block_deals = np.tile(deals, len(block))
        block_seeds = np.tile(agent_seeds, (len(block), 1))
        scores, counters = play_policies(
            policies, seat_agents, block_deals, block_seeds, cfg, workers, backend
        )
        sc = scores.reshape(len(block), games)
        cn = counters.reshape(len(block), games, 2, E.N_COUNTERS)
        rows = []
        for k, (i, j) in enumerate(block):
            row = {
                "response_id": r_ids[i],
                "hypothesis_id": h_ids[j],
                "games": games,
                "seed": seed,
                "scoring": scoring,
                **_pair_values(sc[k], cn[k, :, 1]),
            }
            _fill(table, i, j, {k2: _fmt(v) for k2, v in row.items()})
            rows.append(_clean(row))
        if out is not None:
            _append(out, rows)
        if progress is not None:
            progress(len(block) * games)
    return table


def _append(out: tuple[TextIO, csv.DictWriter, Path], rows: list[dict]) -> None:
    """Append ``rows`` to the table file and flush them to disk.

    Raises:
        OutputWriteError: The disk is full (or another write error); it names the file.
    """
    fh, writer, path = out
    try:
        writer.writerows(rows)
        fh.flush()
        os.fsync(fh.fileno())
    except OSError as exc:
        raise write_error(path, exc) from None


def _resume(path: Path, table: ResponseTable, r_ids, h_ids) -> set[tuple[int, int]]:
    """Fill ``table`` from the rows already in ``path``; the ``(i, j)`` pairs they hold.

    A torn last line (a killed append) is dropped with a warning.

    Raises:
        TableFileError: A corrupt file, or rows made with other ``games``/``seed``/``scoring``.
    """
    done: set[tuple[int, int]] = set()
    if not path.exists() or path.stat().st_size == 0:
        return done
    games, seed, scoring = table.games, table.seed, table.scoring
    r_pos = {r: i for i, r in enumerate(r_ids)}
    h_pos = {h: j for j, h in enumerate(h_ids)}
    rows, tail = read_table_rows(path, exact_header=True)
    for row in rows:
        if (int(row["games"]), int(row["seed"]), row["scoring"]) != (games, seed, scoring):
            raise TableFileError(
                f"{path}: row {row['response_id']!r}/{row['hypothesis_id']!r} was made with "
                f"games={row['games']}, seed={row['seed']}, scoring={row['scoring']}; "
                f"asked for games={games}, seed={seed}, scoring={scoring} (use another "
                "path, or the file's settings to resume it)"
            )
        i, j = r_pos.get(row["response_id"]), h_pos.get(row["hypothesis_id"])
        if i is None or j is None:
            who = "response" if i is None else "hypothesis"
            unknown = row["response_id"] if i is None else row["hypothesis_id"]
            raise TableFileError(
                f"{path}: row {row['response_id']!r}/{row['hypothesis_id']!r} names a {who} "
                f"({unknown!r}) that is not in the pools: the table was made with other pools; "
                "use another path, or the same pools to resume it"
            )
        _fill(table, i, j, row)
        done.add((i, j))
    if tail:  # a killed append: drop the torn line, append from the clean boundary
        keep = path.stat().st_size - len(tail)
        with open(path, "r+b") as torn:
            torn.truncate(keep)
        warnings.warn(
            f"{path}: dropped an incomplete last line ({len(tail)} bytes without a newline: "
            f"{tail[:40]!r}{'...' if len(tail) > 40 else ''}), kept the {len(rows)} complete "
            "rows; resuming from there",
            stacklevel=3,
        )
    return done


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)
