"""Population analysis: re-evaluation, match-up tables, cross-run diversity (docs/papers.md §3–4).

* :func:`reevaluate` — every elite re-played with more games, all on the same deals (common
  random numbers; [CoG19] re-evaluates with 1,000 games).
* :func:`matchup_table` / :func:`archive_matchups` — every **ordered** pair (row agent in seat 0,
  column agent in seat 1) plays the same ``games`` 2-player deals (docs/rules.md §9.1); the table
  stores the mean score and each seat's communicativeness, IPP and risk aversion (ratio of sums
  over the pair's games, docs/rules.md §5). It is the input of the meta-agents ([ToG20] §4.1,
  [Bayes21] §4.2). :meth:`MatchupTable.intra_population_scores` is [ToG20] eq. 1.
* :func:`cross_run_metrics` — corresponding elites (same cell) of two archives: cross-play
  score, self-play scores, chromosome Hamming distance and the fraction of recorded game states
  on which both pick the same action ([Bayes21], docs/papers.md §3).

**Rulesets** (docs/rules.md §12). Every function takes ``ruleset``: ``"corrected"`` or
``"reference"`` (the rule lists play as the Java reference's chromosome agents, HistogramAgent,
with fixed hand slots). The functions of an archive default to the archive's own:
``ruleset=None`` means ``"reference"`` for an archive with reference binning (one made by
``MapElitesConfig(ruleset="reference")``) and ``"corrected"`` otherwise (the published
populations included: pass ``ruleset="reference"`` to replay them as the papers ran them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.evaluate import check_games, game_seeds, play_games
from agents.faults import policy_move
from agents.policy import ReferenceGameEnd, RuleAgent
from agents.reference import RULESETS
from hanabi_env import engine as E
from hanabi_env import stats
from hanabi_env.config import SCORING_VARIANTS, HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.validate import check_choice, check_int, check_seed, type_error
from qd.archive import Archive
from qd.evaluator import (
    Backend,
    SerialBackend,
    check_solutions,
    derive_seed,
    evaluate_solutions,
)
from qd.io import atomic_write_csv, csv_records
from qd.measures import MEASURES, Measure, get_measure, measures_from_counters

__all__ = [
    "MATCHUP_COLUMNS",
    "MatchupTable",
    "action_agreement",
    "archive_matchups",
    "archive_ruleset",
    "cross_run_metrics",
    "matchup_table",
    "reevaluate",
]

_METRICS = ("communicativeness", "ipp", "risk_aversion")


def _check_archive(name: str, value: object) -> None:
    if not isinstance(value, Archive):
        raise type_error(name, "a qd.Archive", value)


def archive_ruleset(*archives: Archive) -> str:
    """The default ruleset of archives' elites: ``"reference"`` if every one has reference binning.

    An archive made by ``MapElitesConfig(ruleset="reference")`` bins as the reference did
    (``archive.binning == "reference"``, docs/rules.md §12.2): its elites were evaluated as
    reference chromosome agents. Any other archive (the published populations included) gives
    ``"corrected"``.
    """
    for i, a in enumerate(archives):
        _check_archive(f"archives[{i}]", a)
    reference = bool(archives) and all(a.binning == "reference" for a in archives)
    return "reference" if reference else "corrected"


def _ruleset(ruleset: str | None, *archives: Archive) -> str:
    """``ruleset`` checked, or the archives' default (:func:`archive_ruleset`) when None."""
    if ruleset is None:
        return archive_ruleset(*archives)
    return check_choice("ruleset", ruleset, RULESETS)


def _pair_config(players: int, hand_size: int, scoring: str, ruleset: str) -> HanabiConfig:
    """A game configuration; fixed hand slots for reference agents (docs/rules.md §12)."""
    return HanabiConfig.for_game(players, hand_size, scoring, ruleset)


def reevaluate(
    archive: Archive,
    games: int = 1000,
    seed: int = 0,
    players: Sequence[int] = (2,),
    scoring: str = "lenient",
    backend: Backend | None = None,
    measures: Sequence[str | Measure] | None = None,
    ruleset: str | None = None,
) -> Archive:
    """Re-evaluate every elite in mirror self-play on common deals; adds fields in place.

    All elites play the games of seed ``derive_seed(seed, 2)``. Fields added:
    ``reeval_objective`` (mean score, points), ``reeval_sem`` (its standard error) and
    ``reeval_<measure>`` for each of the archive's measures (ratio of sums over all seats).

    Args:
        archive: The archive (modified in place).
        games: Games per elite and player count.
        seed: Seed of the re-evaluation.
        players: Player counts.
        scoring: ``"lenient"`` or ``"strict"``.
        backend: Evaluation backend.
        measures: Measures (default: the archive's measure names, which must be built-ins).
        ruleset: ``"corrected"``, ``"reference"`` or None (default: the archive's,
            :func:`archive_ruleset`).

    Returns:
        ``archive``.
    """
    _check_archive("archive", archive)
    games = check_int("games", games, 1)
    seed = check_seed("seed", seed)
    check_choice("scoring", scoring, SCORING_VARIANTS)
    ruleset = _ruleset(ruleset, archive)
    meas = [get_measure(m) for m in (measures or archive.measure_names)]
    cells = archive.occupied_cells()
    if not len(cells):
        return archive
    crn = derive_seed(seed, 2)
    ev = evaluate_solutions(
        archive.solution[cells], [crn] * len(cells), games, players, scoring, backend, ruleset
    )
    values = measures_from_counters(ev.counters, meas)
    sem_p = stats.sem(ev.scores, axis=2)
    sem = np.sqrt((sem_p**2).sum(axis=1)) / ev.scores.shape[1]
    names = ["reeval_objective", "reeval_sem", *(f"reeval_{m.name}" for m in meas)]
    for name in names:
        archive.add_field(name)
    archive.fields["reeval_objective"][cells] = ev.objective
    archive.fields["reeval_sem"][cells] = sem
    for k, m in enumerate(meas):
        archive.fields[f"reeval_{m.name}"][cells] = values[:, k]
    return archive


MATCHUP_COLUMNS = (
    "seat0_id",
    "seat1_id",
    "games",
    "mean_score",
    "sem_score",
    *(f"seat{s}_{m}" for s in (0, 1) for m in _METRICS),
)
"""Columns of the match-up CSV: ids, games, score (points), then each seat's metrics."""


@dataclass
class MatchupTable:
    """2-player match-ups of every ordered pair of a population.

    Attributes:
        ids: ``n`` agent ids (cell names ``"[i,j]"`` for archives, docs/rules.md §9.1).
        solutions: ``(n, L)`` int64 rule lists (may be empty ``(0, 0)`` when read from CSV).
        games: Games per ordered pair.
        scores: ``(n, n)`` float64 mean score (points) with agent ``i`` in seat 0, ``j`` in seat 1.
        sem: ``(n, n)`` float64 standard error of ``scores``.
        communicativeness: ``(n, n, 2)`` float64 per seat (``[..., 0]`` = seat 0 = agent i).
        ipp: ``(n, n, 2)`` float64 per seat.
        risk_aversion: ``(n, n, 2)`` float64 per seat.
    """

    ids: list[str]
    solutions: np.ndarray
    games: int
    scores: np.ndarray
    sem: np.ndarray
    communicativeness: np.ndarray
    ipp: np.ndarray
    risk_aversion: np.ndarray

    def intra_population_scores(self) -> np.ndarray:
        """[ToG20] eq. 1: each agent's mean score over its match-ups, ``(n,)`` float64.

        The mean over the ``2n − 1`` ordered pairs the agent takes part in (either seat,
        self-play counted once).
        """
        n = len(self.ids)
        total = self.scores.sum(axis=1) + self.scores.sum(axis=0) - np.diag(self.scores)
        return total / (2 * n - 1)

    def population_score(self) -> float:
        """Mean score over all ordered pairs, self-play included ([Bayes21] pairwise score)."""
        return float(self.scores.mean())

    def self_play(self) -> np.ndarray:
        """``(n,)`` diagonal of :attr:`scores` (mirror self-play)."""
        return np.diag(self.scores).copy()

    def generalist(self) -> int:
        """Index of the agent with the best intra-population score ([ToG20] eq. 2)."""
        return int(np.argmax(self.intra_population_scores()))

    def rows(self) -> list[dict]:
        """One dict per ordered pair, keys :data:`MATCHUP_COLUMNS`."""
        out = []
        for i, a in enumerate(self.ids):
            for j, b in enumerate(self.ids):
                row = {
                    "seat0_id": a,
                    "seat1_id": b,
                    "games": self.games,
                    "mean_score": float(self.scores[i, j]),
                    "sem_score": float(self.sem[i, j]),
                }
                for s in (0, 1):
                    for m in _METRICS:
                        row[f"seat{s}_{m}"] = float(getattr(self, m)[i, j, s])
                out.append(row)
        return out

    def to_csv(self, path: str | Path) -> None:
        """Write :meth:`rows` as CSV (NaN as an empty field), atomically.

        The rows go to a temporary file in the same folder, which then replaces ``path``: a
        reader or a killed writer never sees half a table.
        """
        atomic_write_csv(path, MATCHUP_COLUMNS, self.rows())

    @classmethod
    def from_csv(
        cls,
        path: str | Path,
        ids: Sequence[str] | None = None,
        games: int | None = None,
    ) -> MatchupTable:
        """Read a table written by :meth:`to_csv` (``solutions`` is left empty).

        The file is validated whole: every row ends with a newline and has the header's number
        of fields; ``games`` is the same integer >= 1 on every row; scores are finite and >= 0,
        ``sem_score`` empty (NaN) or finite and >= 0, the metrics empty (NaN) or in [0, 1]; the
        ``seat1_id`` values are the ``seat0_id`` values and every ordered pair appears exactly
        once. The file is written whole (atomically), so an incomplete one is refused too.

        A file cut exactly after its first row is itself a valid 1 × 1 table: a caller that
        resumes from the file must pass the ``ids`` (and ``games``) it expects.

        Args:
            path: The file.
            ids: The agent ids expected, in order (None = accept the file's).
            games: The games per pair expected (None = accept the file's).

        Raises:
            ValueError: One line naming the file, what is wrong and what to do.
        """
        fix = "delete it to recompute the match-ups"
        rows, lines = _matchup_rows(path, fix)
        ids = _matchup_ids(path, rows, ids, fix)
        n = len(ids)

        def f(x: str, line: int, name: str) -> float:
            return _matchup_value(path, fix, x, line, name)

        pos = {a: i for i, a in enumerate(ids)}
        games_field = rows[0]["games"]
        _check_games_field(path, games_field, lines[0], games, fix)
        t = cls(
            ids,
            np.zeros((0, 0), np.int64),
            int(games_field),
            np.zeros((n, n)),
            np.zeros((n, n)),
            np.zeros((n, n, 2)),
            np.zeros((n, n, 2)),
            np.zeros((n, n, 2)),
        )
        seen: dict[tuple[int, int], int] = {}
        for r, line in zip(rows, lines, strict=True):
            if r["games"] != games_field:
                raise ValueError(
                    f"{path}: line {line}: games={r['games']!r}, but {games_field!r} on line "
                    f"{lines[0]}; {fix}"
                )
            if r["seat1_id"] not in pos:
                raise ValueError(
                    f"{path}: line {line}: seat1_id {r['seat1_id']!r} is not a seat0_id; {fix}"
                )
            i, j = pos[r["seat0_id"]], pos[r["seat1_id"]]
            if (i, j) in seen:
                raise ValueError(
                    f"{path}: line {line} repeats the pair ({r['seat0_id']!r}, "
                    f"{r['seat1_id']!r}) of line {seen[i, j]}; {fix}"
                )
            seen[i, j] = line
            t.scores[i, j] = f(r["mean_score"], line, "mean_score")
            t.sem[i, j] = f(r["sem_score"], line, "sem_score")
            for s in (0, 1):
                for m in _METRICS:
                    getattr(t, m)[i, j, s] = f(r[f"seat{s}_{m}"], line, f"seat{s}_{m}")
        return t


def _matchup_ids(
    path: str | Path, rows: list[dict], ids: Sequence[str] | None, fix: str
) -> list[str]:
    """The agent ids of a match-up file's rows (its ``seat0_id`` values, in order), checked.

    Raises:
        ValueError: The ids are not the ``ids`` expected, or the rows are not one per ordered
            pair of them.
    """
    found = list(dict.fromkeys(r["seat0_id"] for r in rows))
    if ids is not None and found != [str(i) for i in ids]:
        raise ValueError(
            f"{path}: the table is of {len(found)} agents {_short(found)}, not of the "
            f"{len(ids)} expected {_short([str(i) for i in ids])}; {fix}"
        )
    n = len(found)
    if len(rows) != n * n:
        raise ValueError(f"{path}: {len(rows)} rows for {n} ids (need {n * n}); {fix}")
    return found


def _matchup_value(path: str | Path, fix: str, x: str, line: int, name: str) -> float:
    """Field ``name`` of a match-up file's ``line``: a score (finite, >= 0) or a metric in [0, 1].

    Empty is NaN, except for ``mean_score``.

    Raises:
        ValueError: The field is not a number in its range.
    """
    if x == "" and name != "mean_score":
        return math.nan
    try:
        v = float(x)
    except ValueError:
        v = math.nan
    hi = math.inf if name in ("mean_score", "sem_score") else 1.0
    if not (math.isfinite(v) and 0 <= v <= hi):
        raise ValueError(f"{path}: line {line}: {name}={x!r} is not valid; {fix}")
    return v


def _short(ids: list[str]) -> str:
    return str(ids) if len(ids) <= 4 else f"[{ids[0]!r}, {ids[1]!r}, ..., {ids[-1]!r}]"


def matchup_table(
    solutions: Sequence[Sequence[int]] | np.ndarray,
    ids: Sequence[str] | None = None,
    games: int = 400,
    seed: int = 0,
    scoring: str = "lenient",
    backend: Backend | None = None,
    max_games_per_call: int = 200_000,
    ruleset: str = "corrected",
) -> MatchupTable:
    """Play every ordered pair of ``solutions`` for ``games`` 2-player games.

    Every pair plays the same deals and per-seat agent seeds (``game_seeds(derive_seed(seed,
    3), games, 2)``, docs/rules.md §9.1).

    Args:
        solutions: ``n`` rule lists (equal lengths).
        ids: Agent ids (default ``"0"``, ``"1"``, …).
        games: Games per ordered pair, >= 1 (400 in [Bayes21]).
        seed: Seed.
        scoring: ``"lenient"`` or ``"strict"``.
        backend: Evaluation backend.
        max_games_per_call: Games per backend call (memory bound).
        ruleset: ``"corrected"`` (default) or ``"reference"``: every agent plays as a Java
            reference chromosome agent (HistogramAgent), with fixed hand slots.

    Returns:
        A :class:`MatchupTable` (``n × n`` pairs).

    Raises:
        ValueError: ``games < 1``, ``ids`` of the wrong length or an unknown ``ruleset``.
    """
    games = check_int("games", games, 1)
    seed = check_seed("seed", seed)
    check_choice("scoring", scoring, SCORING_VARIANTS)
    check_choice("ruleset", ruleset, RULESETS)
    max_games_per_call = check_int("max_games_per_call", max_games_per_call, 1)
    sol = check_solutions("solutions", solutions)
    check_games("games", games)
    n = len(sol)
    if ids is not None and (isinstance(ids, str) or not all(isinstance(i, str) for i in ids)):
        raise TypeError("ids must be a sequence of str")
    ids = [str(i) for i in range(n)] if ids is None else list(ids)
    if len(ids) != n:
        raise ValueError(f"ids has {len(ids)} entries for {n} solutions")
    backend = backend or SerialBackend()
    cfg = _pair_config(2, 5, scoring, ruleset)
    _, deals, agent_seeds = game_seeds(derive_seed(seed, 3), games, 2, random_seat=False)
    scores = np.zeros((n, n))
    sem = np.zeros((n, n))
    metrics = {m: np.zeros((n, n, 2)) for m in _METRICS}
    measures = [MEASURES[m] for m in _METRICS]
    pairs = [(i, j) for i in range(n) for j in range(n)]
    per_call = max(1, int(max_games_per_call) // games)
    rules = list(sol)
    for start in range(0, len(pairs), per_call):
        block = pairs[start : start + per_call]
        seat_agents = np.repeat(np.array(block, dtype=np.int64), games, axis=0)
        sc, cn, _ = backend.play(
            cfg,
            rules,
            seat_agents,
            np.tile(deals, len(block)),
            np.tile(agent_seeds, (len(block), 1)),
            ruleset=ruleset,
        )
        sc = sc.reshape(len(block), games).astype(np.float64)
        sums = cn.reshape(len(block), games, 2, E.N_COUNTERS).sum(axis=1)  # (pairs, seat, C)
        for k, (i, j) in enumerate(block):
            scores[i, j] = sc[k].mean()
            sem[i, j] = stats.sem(sc[k])
            values = measures_from_counters(sums[k], measures)  # (seat, metric)
            for m_idx, m in enumerate(_METRICS):
                metrics[m][i, j] = values[:, m_idx]
    return MatchupTable(ids, sol, int(games), scores, sem, **metrics)


def archive_matchups(
    archive: Archive,
    games: int = 400,
    seed: int = 0,
    ruleset: str | None = None,
    **kwargs,
) -> MatchupTable:
    """:func:`matchup_table` over an archive's elites (cell order; ids ``"[i,j]"``).

    ``ruleset=None`` (default) takes the archive's (:func:`archive_ruleset`: reference for an
    archive with reference binning, else corrected); other keywords go to :func:`matchup_table`.
    """
    _check_archive("archive", archive)
    ruleset = _ruleset(ruleset, archive)
    cells = archive.occupied_cells()
    ids = [archive.cell_name(int(c)) for c in cells]
    return matchup_table(archive.solution[cells], ids, games, seed, ruleset=ruleset, **kwargs)


def action_agreement(
    rules_a: Sequence[int],
    rules_b: Sequence[int],
    games: int = 10,
    seed: int = 0,
    players: int = 2,
    scoring: str = "lenient",
    ruleset: str = "corrected",
) -> dict:
    """How often two agents pick the same action on recorded game states ([Bayes21]).

    The states are those of ``games`` mirror self-play games of A and as many of B (same deals).
    At every state of A's games, B (reset with that seat's agent seed) is asked for its action
    and compared with the recorded one; likewise A on B's games.

    Args:
        rules_a: Rule list of agent A.
        rules_b: Rule list of agent B.
        games: Recorded games per agent.
        seed: Seed of the recorded games.
        players: Player count.
        scoring: ``"lenient"`` or ``"strict"``.
        ruleset: ``"corrected"`` (default) or ``"reference"`` (both agents are Java reference
            chromosome agents, fixed hand slots). A reference agent may end a game early
            (docs/rules.md §12.2): a recorded game then stops there, and an asked agent that
            would end the game at a recorded state counts as a different action.

    Returns:
        Dict with ``states`` (decisions compared), ``same`` (identical actions), ``fraction``
        (``same / states``) and ``mean_legal`` (mean number of legal actions at those states).
    """
    games = check_int("games", games, 1)
    seed = check_seed("seed", seed)
    players = check_int("players", players, 2, 5)
    check_choice("ruleset", ruleset, RULESETS)
    cfg = _pair_config(players, 5 if players <= 3 else 4, scoring, ruleset)
    _, deals, agent_seeds = game_seeds(derive_seed(seed, 4), games, players, random_seat=False)
    game = HanabiGame(cfg)
    same = states = legal = 0
    for recorder, other in ((rules_a, rules_b), (rules_b, rules_a)):
        batch = play_games(
            [RuleAgent(recorder, ruleset=ruleset)],
            np.zeros((games, players), np.int64),
            deals,
            agent_seeds,
            cfg,
            workers=1,
            record_actions=True,
        )
        assert batch.actions is not None  # record_actions=True
        asked = [RuleAgent(other, ruleset=ruleset) for _ in range(players)]
        for g in range(games):
            game.reset(int(deals[g]))
            for p in range(players):
                asked[p].reset(int(agent_seeds[g, p]))
            for action in batch.actions[g]:
                if action < 0:
                    break
                seat = game.current_player
                legal += int(game.legal_mask().sum())
                view = game.view(seat)
                try:
                    chosen = policy_move(asked[seat], view, view.legal_mask(), game=g,
                                         move=view.n_moves)  # fmt: skip
                except ReferenceGameEnd:  # the asked agent would have ended the game here
                    chosen = -1
                same += int(chosen == int(action))
                states += 1
                game.step(int(action))
    return {
        "states": states,
        "same": same,
        "fraction": same / states if states else math.nan,
        "mean_legal": legal / states if states else math.nan,
    }


def cross_run_metrics(
    a: Archive,
    b: Archive,
    games: int = 100,
    seed: int = 0,
    action_games: int = 10,
    scoring: str = "lenient",
    backend: Backend | None = None,
    ruleset: str | None = None,
) -> tuple[list[dict], dict]:
    """Compare corresponding elites (same cell) of two runs ([Bayes21], docs/papers.md §3).

    For each cell occupied in both archives: the self-play score of each elite and the
    cross-play score (mean of both seat orders), all on the same ``games`` 2-player deals; the
    chromosome Hamming distance; and :func:`action_agreement` over ``action_games`` recorded
    games per agent (0 skips it).

    Args:
        a: First archive.
        b: Second archive (same ``dims``).
        games: 2-player games per self-play and per seat order of the cross-play.
        seed: Seed.
        action_games: Recorded games per agent for the action agreement (0 = skip).
        scoring: ``"lenient"`` or ``"strict"``.
        backend: Evaluation backend.
        ruleset: ``"corrected"``, ``"reference"`` or None (default: reference when both
            archives have reference binning, else corrected; :func:`archive_ruleset`).

    Returns:
        ``(rows, summary)``: one dict per common cell (``cell``, ``name``, ``self_a``,
        ``self_b``, ``cross``, ``hamming``, ``same_action``, ``mean_legal``) and the means over
        cells (plus ``cells``, the number of common cells).

    Raises:
        ValueError: The archives have different grids.
    """
    _check_archive("a", a)
    _check_archive("b", b)
    games = check_int("games", games, 1)
    seed = check_seed("seed", seed)
    action_games = check_int("action_games", action_games, 0)
    check_choice("scoring", scoring, SCORING_VARIANTS)
    ruleset = _ruleset(ruleset, a, b)
    if a.dims != b.dims or a.solution_dim != b.solution_dim:
        raise ValueError(f"archives differ in dims/solution_dim: {a.dims} vs {b.dims}")
    backend = backend or SerialBackend()
    cells = np.flatnonzero(a.occupied & b.occupied)
    n = len(cells)
    rows: list[dict] = []
    if n == 0:
        return rows, {"cells": 0}
    crn = derive_seed(seed, 5)
    sa, sb = a.solution[cells], b.solution[cells]
    self_ev = evaluate_solutions(
        np.concatenate([sa, sb]), [crn] * (2 * n), games, (2,), scoring, backend, ruleset
    )
    cross = _cross_play(sa, sb, games, crn, scoring, backend, ruleset)
    for k, cell in enumerate(cells):
        agree = (
            action_agreement(sa[k], sb[k], action_games, seed, 2, scoring, ruleset)
            if action_games
            else {"fraction": math.nan, "mean_legal": math.nan}
        )
        rows.append(
            {
                "cell": int(cell),
                "name": a.cell_name(int(cell)),
                "self_a": float(self_ev.objective[k]),
                "self_b": float(self_ev.objective[n + k]),
                "cross": float(cross[k]),
                "hamming": int((sa[k] != sb[k]).sum()),
                "same_action": agree["fraction"],
                "mean_legal": agree["mean_legal"],
            }
        )
    keys = ("self_a", "self_b", "cross", "hamming", "same_action", "mean_legal")
    summary = {"cells": n, **{k: float(np.mean([r[k] for r in rows])) for k in keys}}
    return rows, summary


def _cross_play(
    sa: np.ndarray,
    sb: np.ndarray,
    games: int,
    crn: int,
    scoring: str,
    backend: Backend,
    ruleset: str,
) -> np.ndarray:
    """``(n,)`` cross-play score of ``sa[k]`` with ``sb[k]``: both seat orders, same deals.

    Args:
        sa: ``(n, L)`` chromosomes of the first run's elites.
        sb: ``(n, L)`` chromosomes of the corresponding elites of the second run.
        games: 2-player games per seat order, on the deals of ``crn``.
        crn: The common-random-numbers seed of :func:`cross_run_metrics`.
        scoring: ``"lenient"`` or ``"strict"``.
        backend: Evaluation backend.
        ruleset: ``"corrected"`` or ``"reference"``.
    """
    n = len(sa)
    cfg = _pair_config(2, 5, scoring, ruleset)
    _, deals, agent_seeds = game_seeds(crn, games, 2, random_seat=False)
    rules = list(sa) + list(sb)
    seat_agents = np.concatenate(
        [np.repeat([[i, n + i], [n + i, i]], games, axis=0) for i in range(n)]
    )
    sc, _, _ = backend.play(
        cfg,
        rules,
        seat_agents,
        np.tile(deals, 2 * n),
        np.tile(agent_seeds, (2 * n, 1)),
        ruleset=ruleset,
    )
    return sc.reshape(n, 2 * games).mean(axis=1)


def _matchup_rows(path: str | Path, fix: str) -> tuple[list[dict[str, str]], list[int]]:
    """The rows of a match-up CSV as dicts, and their line numbers (validated whole).

    Raises:
        ValueError: An incomplete last row, missing columns, a row with the wrong number of
            fields, or no rows.
    """
    data = Path(path).read_bytes()
    records, complete = csv_records(data, path, fix)
    if complete != len(data):
        raise ValueError(
            f"{path}: the last row is incomplete ({len(data) - complete} bytes without a "
            f"final newline, a killed write?); {fix}"
        )
    if not records or set(MATCHUP_COLUMNS) - set(records[0][0]):
        raise ValueError(f"{path}: not a match-up table (columns {MATCHUP_COLUMNS}); {fix}")
    header = records[0][0]
    rows, lines = [], []
    for fields, line in records[1:]:
        if len(fields) != len(header):
            raise ValueError(
                f"{path}: line {line} has {len(fields)} fields, not {len(header)}; {fix}"
            )
        rows.append(dict(zip(header, fields, strict=True)))
        lines.append(line)
    if not rows:
        raise ValueError(f"{path}: empty match-up table; {fix}")
    return rows, lines


def _check_games_field(path, games_field: str, line: int, expected: int | None, fix: str) -> None:
    """The ``games`` column: an int >= 1, equal to ``expected`` when one is given."""
    try:
        ok = int(games_field) >= 1
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{path}: line {line}: games={games_field!r} is not valid; {fix}")
    if expected is not None and int(games_field) != int(expected):
        raise ValueError(
            f"{path}: made with games={games_field}, not the {expected} expected; {fix}"
        )
