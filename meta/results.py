"""Results of a meta-agent evaluation: :class:`MetaEvaluation` and its statistics and files.

:func:`meta.evaluate.evaluate_meta` plays the protocol and returns a :class:`MetaEvaluation`;
this module holds what is computed from it and how it is saved:

* per-variant mean ± s.e.m. of the episode scores, per partner and over the pool
  (:meth:`MetaEvaluation.summary`, [Bayes21] Table IV rows);
* Welch's t-tests (``scipy.stats.ttest_ind(equal_var=False)``) on the episode scores for
  every pair of variants, [Bayes21]'s Table IV pairs (:data:`TTESTS`) first
  (:func:`variant_pairs`);
* the partner's behaviour observed under each response and the niche-estimate error of [ToG20]
  (:meth:`MetaEvaluation.observed_measures`, :meth:`MetaEvaluation.niche_mae`; docs/papers.md
  §4.1);
* the files: a JSON document (:meth:`MetaEvaluation.to_json`), one CSV row per game
  (:meth:`MetaEvaluation.to_csv`) and one per observed (partner, response)
  (:meth:`MetaEvaluation.observed_to_csv`), and :meth:`MetaEvaluation.load` to read the first
  two back.

Every name here is also importable from :mod:`meta.evaluate` and :mod:`meta`.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hanabi_env.jsonable import json_ready
from hanabi_env.metrics import ratio
from hanabi_env.outputs import ResultFileError, atomic_path, atomic_write_json
from hanabi_env.stats import nanmean, sem
from meta.response import niche_of

__all__ = ["COUNTER_NAMES", "TTESTS", "VARIANT_ORDER", "MetaEvaluation", "variant_pairs"]

MAX_SCORE = 25
"""The highest score of one game of the 2-player evaluations (5 colours x 5 ranks)."""


def _dims(value) -> tuple[int, int]:
    """A niche grid ``(d1, d2)`` read from a file."""
    d1, d2 = (int(d) for d in value)
    return d1, d2


def _count(value: object) -> int:
    """A count of episodes or games read from a file: an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{value!r} is not a count >= 1")
    return value


TTESTS = (
    ("adaptive", "generalist"),
    ("oracle", "adaptive"),
    ("response-adaptive", "generalist"),
    ("adaptive", "response-adaptive"),
)
"""[Bayes21]'s headline pairs; :meth:`MetaEvaluation.ttests` compares every pair, these first."""

VARIANT_ORDER = (
    "oracle",
    "response-oracle",
    "adaptive",
    "response-adaptive",
    "generalist",
    "response-generalist",
    "random",
)
"""Orientation of a t-test pair ``(a, b)`` outside :data:`TTESTS`: ``a`` comes first here.

Informed variants before uninformed ones, so a mean difference ``a − b`` is expected positive.
"""


def variant_pairs(variants: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of ``variants``, oriented and ordered for Welch's t-tests.

    The :data:`TTESTS` pairs present come first, in that order; then every other pair
    ``(a, b)`` with ``a`` before ``b`` in :data:`VARIANT_ORDER` (variants not in it last, in the
    given order), sorted by that order.
    """
    rank = {v: i for i, v in enumerate(VARIANT_ORDER)}
    order = sorted(dict.fromkeys(variants), key=lambda v: rank.get(v, len(rank)))
    head = [(a, b) for a, b in TTESTS if a in order and b in order]
    rest = [
        (a, b)
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if (a, b) not in head and (b, a) not in head
    ]
    return head + rest


COUNTER_NAMES = ("hint_opportunities", "hints", "plays", "known_attrs")
"""Columns of :attr:`MetaEvaluation.partner_counters` (the partner's moves; docs/rules.md §5)."""


def _array(x) -> np.ndarray:
    """float64 array from nested lists with None for NaN."""
    return np.array(x, dtype=np.float64)  # numpy turns None into NaN


def _isnan(x) -> bool:
    return isinstance(x, (float, np.floating)) and math.isnan(x)


@dataclass
class MetaEvaluation:
    """Result of :func:`meta.evaluate.evaluate_meta`.

    Attributes:
        variants: Variants evaluated.
        partner_ids: Ids of the evaluation pool E.
        hypothesis_ids: Ids of H (belief columns).
        response_ids: Ids of R (response indices).
        episodes: Episodes per partner (k).
        games: Games per episode (g).
        seed: Master seed.
        scores: variant → ``(nE, k, g)`` int64 game scores.
        responses: variant → ``(nE, k, g)`` int64 response index in use at the end of each game.
        beliefs: variant → ``(nE, g, nH)`` belief at the end of each game of episode 0 (the
            belief in force during that game; NaN for the response-table variants, which hold
            none).
        partner_counters: variant → ``(nE, nR, 4)`` int64 sums over all episodes of the
            partner's counters (:data:`COUNTER_NAMES`) observed while each response was in use.
        niches: variant → ``(nE, k, g, 2)`` int64 niche estimated by a response-table variant
            at the end of each game (-1 while undefined); response-table variants only.
        self_play: ``(nE, 2)`` float64 self-play (communicativeness, IPP) of each partner, the
            reference of :meth:`niche_mae` (None if not given).
        niche_dims: Grid ``(d1, d2)`` of the niches.
    """

    variants: list[str]
    partner_ids: list[str]
    hypothesis_ids: list[str]
    response_ids: list[str]
    episodes: int
    games: int
    seed: int
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    responses: dict[str, np.ndarray] = field(default_factory=dict)
    beliefs: dict[str, np.ndarray] = field(default_factory=dict)
    partner_counters: dict[str, np.ndarray] = field(default_factory=dict)
    niches: dict[str, np.ndarray] = field(default_factory=dict)
    self_play: np.ndarray | None = None
    niche_dims: tuple[int, int] = (5, 5)

    def episode_scores(self, variant: str) -> np.ndarray:
        """``(nE, k)`` mean score of each episode."""
        return self.scores[variant].mean(axis=2)

    def summary(self) -> dict[str, dict]:
        """Per-variant mean ± s.e.m. of the episode scores ([Bayes21] Table IV rows).

        Returns:
            variant → ``mean``, ``sem`` (over all episodes of all partners), ``n_episodes``
            and ``per_partner`` {id: (mean, sem)}.
        """
        out = {}
        for v in self.variants:
            ep = self.episode_scores(v)
            out[v] = {
                "mean": float(ep.mean()),
                "sem": sem(ep),
                "n_episodes": int(ep.size),
                "per_partner": {
                    pid: (float(ep[e].mean()), sem(ep[e])) for e, pid in enumerate(self.partner_ids)
                },
            }
        return out

    def ttests(self) -> dict[str, dict]:
        """Welch's t-tests on the episode scores for every pair of evaluated variants.

        Pairs and their orientation come from :func:`variant_pairs`: [Bayes21]'s
        :data:`TTESTS` first, then every other pair.

        Returns:
            ``{"adaptive_vs_generalist": {"t", "p", "mean_diff"}, ...}``; ``mean_diff`` is
            ``a − b`` in points for the key ``"a_vs_b"`` (NaN when undefined).
        """
        from scipy import stats

        out = {}
        for a, b in variant_pairs([v for v in self.variants if v in self.scores]):
            xa, xb = self.episode_scores(a).ravel(), self.episode_scores(b).ravel()
            with np.errstate(invalid="ignore", divide="ignore"):
                res = stats.ttest_ind(xa, xb, equal_var=False)
            out[f"{a}_vs_{b}"] = {
                "t": float(res.statistic),
                "p": float(res.pvalue),
                "mean_diff": float(xa.mean() - xb.mean()),
            }
        return out

    def observed_measures(self, variant: str, by_response: bool = True) -> np.ndarray:
        """The partner's behaviour observed by ``variant`` (ratios of sums, docs/rules.md §5).

        Args:
            variant: An evaluated variant.
            by_response: Per response in use (``(nE, nR, 2)``) or pooled over responses
                (``(nE, 2)``).

        Returns:
            float64 (communicativeness, IPP), NaN where a denominator is 0 (e.g. a response
            never used).

        Raises:
            KeyError: ``variant`` was not evaluated (or has no counters).
        """
        c = self.partner_counters[variant].astype(np.float64)
        if not by_response:
            c = c.sum(axis=1)
        comm = ratio(c[..., 1], c[..., 0])
        ipp = ratio(c[..., 3], c[..., 2], 2.0)
        return np.stack([comm, ipp], axis=-1)

    def niche_mae(self, self_play: np.ndarray | None = None) -> dict[str, dict]:
        """Mean absolute error of the niche estimates, as [ToG20] reported (docs/papers.md §4.1).

        For every variant, the partner's (communicativeness, IPP) observed while the meta-agent
        played each response is compared with the partner's self-play measures.

        Args:
            self_play: ``(nE, 2)`` self-play (communicativeness, IPP) of the partners (default:
                :attr:`self_play`).

        Returns:
            variant → ``comm``, ``ipp`` (MAE over the (partner, response) pairs that occurred,
            each pair weighted equally; NaN terms left out), ``n_pairs``, ``comm_pooled``,
            ``ipp_pooled`` (MAE over partners of the behaviour pooled over all responses) and
            ``niche_accuracy`` (fraction of pairs whose observed behaviour falls in the
            partner's self-play niche on :attr:`niche_dims`). Empty if no reference is known.

        Raises:
            ValueError: ``self_play`` is not ``(nE, 2)``.
        """
        ref = self.self_play if self_play is None else np.asarray(self_play, dtype=np.float64)
        if ref is None:
            return {}
        ref = np.asarray(ref, dtype=np.float64)
        if ref.shape != (len(self.partner_ids), 2):
            raise ValueError(
                f"self_play must have shape ({len(self.partner_ids)}, 2), got {ref.shape}"
            )
        out = {}
        for v in self.variants:
            if v not in self.partner_counters:
                continue
            obs = self.observed_measures(v)  # (nE, nR, 2)
            used = self.partner_counters[v].sum(axis=2) > 0
            err = np.abs(obs - ref[:, None, :])
            pooled = np.abs(self.observed_measures(v, by_response=False) - ref)
            hits = [
                niche_of(obs[e, r, 0], obs[e, r, 1], self.niche_dims)
                == niche_of(ref[e, 0], ref[e, 1], self.niche_dims)
                for e, r in zip(*np.nonzero(used), strict=True)
            ]
            out[v] = {
                "comm": nanmean(err[..., 0][used]),
                "ipp": nanmean(err[..., 1][used]),
                "n_pairs": int(used.sum()),
                "comm_pooled": nanmean(pooled[:, 0]),
                "ipp_pooled": nanmean(pooled[:, 1]),
                "niche_accuracy": float(np.mean(hits)) if hits else math.nan,
            }
        return out

    def to_dict(self) -> dict:
        """JSON-serialisable results (NaN → None).

        Summary, t-tests, niche MAE, observed partner counters and first-episode beliefs.
        """
        return json_ready(
            {
                "variants": self.variants,
                "partner_ids": self.partner_ids,
                "hypothesis_ids": self.hypothesis_ids,
                "response_ids": self.response_ids,
                "episodes": self.episodes,
                "games": self.games,
                "seed": self.seed,
                "summary": self.summary(),
                "ttests": self.ttests(),
                "niche_mae": self.niche_mae(),
                "niche_dims": list(self.niche_dims),
                "self_play": self.self_play,
                "counter_names": list(COUNTER_NAMES),
                "partner_counters": dict(self.partner_counters),
                "niches": dict(self.niches),
                "beliefs_episode0": dict(self.beliefs),
            }
        )

    @classmethod
    def load(cls, json_path: str | Path, games_csv: str | Path) -> MetaEvaluation:
        """Rebuild an evaluation from :meth:`to_json` and :meth:`to_csv` files.

        Scores and responses come from the CSV; beliefs (episode 0), partner counters,
        niches and self-play measures from the JSON (absent ones stay empty). Both files are
        checked whole: the JSON must be an evaluation document, and every CSV row must name a
        known variant, partner and response, an episode and game in range, and a score in
        ``[0, 25]``, with every (variant, partner, episode, game) exactly once.

        Raises:
            ResultFileError: (a ``ValueError``) A file that is missing, damaged (truncated, not
                JSON/CSV) or inconsistent; one line naming it and what to do.
        """
        fix = "delete the evaluation's files to recompute them"
        try:
            doc = json.loads(Path(json_path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ResultFileError(
                f"{json_path}: not a readable evaluation ({exc}); {fix}"
            ) from None
        try:
            ev = cls(
                [str(v) for v in doc["variants"]],
                [str(p) for p in doc["partner_ids"]],
                [str(h) for h in doc["hypothesis_ids"]],
                [str(r) for r in doc["response_ids"]],
                _count(doc["episodes"]),
                _count(doc["games"]),
                int(doc["seed"]),
                niche_dims=_dims(doc.get("niche_dims") or (5, 5)),
            )
            if doc.get("self_play") is not None:
                ev.self_play = _array(doc["self_play"])
            for v, b in (doc.get("beliefs_episode0") or {}).items():
                ev.beliefs[v] = _array(b)
            for v, c in (doc.get("partner_counters") or {}).items():
                ev.partner_counters[v] = np.asarray(c, dtype=np.int64)
            for v, n in (doc.get("niches") or {}).items():
                ev.niches[v] = np.asarray(n, dtype=np.int64)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ResultFileError(
                f"{json_path}: not an evaluation document ({type(exc).__name__}: {exc}); {fix}"
            ) from None
        ev._read_games(Path(games_csv), fix)
        return ev

    def _read_games(self, path: Path, fix: str) -> None:
        """Fill ``scores`` and ``responses`` from a :meth:`to_csv` file (checked whole)."""
        shape = (len(self.partner_ids), self.episodes, self.games)
        e_pos = {p: i for i, p in enumerate(self.partner_ids)}
        r_pos = {r: i for i, r in enumerate(self.response_ids)}
        seen = {v: np.zeros(shape, dtype=bool) for v in self.variants}
        for v in self.variants:
            self.scores[v] = np.zeros(shape, dtype=np.int64)
            self.responses[v] = np.zeros(shape, dtype=np.int64)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ResultFileError(f"{path}: cannot be read ({exc.strerror}); {fix}") from None
        if data and not data.endswith(b"\n"):
            raise ResultFileError(f"{path}: the last row is incomplete (a truncated file); {fix}")
        try:
            rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))
        except (UnicodeDecodeError, csv.Error) as exc:
            raise ResultFileError(f"{path}: not a CSV file ({exc}); {fix}") from None
        for line, row in enumerate(rows, start=2):
            try:
                v = row["variant"]
                idx = (e_pos[row["partner_id"]], int(row["episode"]), int(row["game"]))
                score, response = int(row["score"]), r_pos[row["response_id"]]
                if v not in seen:
                    raise KeyError(v)
            except (KeyError, TypeError, ValueError) as exc:
                raise ResultFileError(
                    f"{path}: line {line} is not a game of this evaluation (unknown or bad "
                    f"{exc}); {fix}"
                ) from None
            if not (0 <= idx[1] < self.episodes and 0 <= idx[2] < self.games):
                raise ResultFileError(
                    f"{path}: line {line}: episode {idx[1]}, game {idx[2]} is out of range "
                    f"(episodes={self.episodes}, games={self.games}); {fix}"
                )
            if not 0 <= score <= MAX_SCORE:
                raise ResultFileError(
                    f"{path}: line {line}: score={score} is out of range; allowed: [0, "
                    f"{MAX_SCORE}]; {fix}"
                )
            if seen[v][idx]:
                raise ResultFileError(f"{path}: line {line} repeats a game; {fix}")
            self.scores[v][idx] = score
            self.responses[v][idx] = response
            seen[v][idx] = True
        missing = [v for v in self.variants if not seen[v].all()]
        if missing:
            raise ResultFileError(f"{path}: games missing for variants {missing}; {fix}")

    def observed_to_csv(self, path: str | Path) -> None:
        """Write the observed partner behaviour, one row per (variant, partner, response used).

        Columns: ``variant, partner_id, response_id``, the :data:`COUNTER_NAMES` sums,
        ``communicativeness, ipp`` (observed) and ``self_play_communicativeness,
        self_play_ipp`` (empty when unknown).
        """
        with atomic_path(path) as tmp, open(tmp, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(
                [
                    "variant",
                    "partner_id",
                    "response_id",
                    *COUNTER_NAMES,
                    "communicativeness",
                    "ipp",
                    "self_play_communicativeness",
                    "self_play_ipp",
                ]
            )
            for v in self.variants:
                if v not in self.partner_counters:
                    continue
                cnt, obs = self.partner_counters[v], self.observed_measures(v)
                for e, pid in enumerate(self.partner_ids):
                    sp = [math.nan] * 2 if self.self_play is None else list(self.self_play[e])
                    for r, rid in enumerate(self.response_ids):
                        if cnt[e, r].sum() == 0:
                            continue
                        row = [v, pid, rid, *(int(x) for x in cnt[e, r]), *obs[e, r], *sp]
                        w.writerow(["" if _isnan(x) else x for x in row])

    def to_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON, atomically (:mod:`hanabi_env.outputs`).

        Raises:
            OutputWriteError: The file could not be written (it is named).
        """
        atomic_write_json(path, self.to_dict())

    def to_csv(self, path: str | Path) -> None:
        """Write one row per game: ``variant, partner_id, episode, game, score, response_id``.

        Atomically (:mod:`hanabi_env.outputs`).

        Raises:
            OutputWriteError: The file could not be written (it is named).
        """
        with atomic_path(path) as tmp, open(tmp, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["variant", "partner_id", "episode", "game", "score", "response_id"])
            for v in self.variants:
                sc, rs = self.scores[v], self.responses[v]
                for e, pid in enumerate(self.partner_ids):
                    for j in range(self.episodes):
                        for g in range(self.games):
                            w.writerow(
                                [v, pid, j, g, int(sc[e, j, g]), self.response_ids[rs[e, j, g]]]
                            )
