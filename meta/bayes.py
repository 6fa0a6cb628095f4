"""The Bayesian meta-agent of [Bayes21] (docs/papers.md §4.2; details in docs/rules.md §9.1).

The agent keeps, per partner id, a belief B over the hypotheses H of a
:class:`~meta.table.ResponseTable`. It observes the partner's moves in an **observation window**
(every partner move since the previous update, including the moves the partner made after the
agent's last turn of a game, seen through :meth:`BayesianMetaAgent.end_game`). At an update it
applies

    B_{i+1}(h) ∝ B_i(h) · φ(ĉ − c(r_i, h)) · φ(ι̂ − ι(r_i, h))

with φ the normal density of standard deviation σ (0.1), ĉ and ι̂ the window's
communicativeness and IPP and r_i the response played during the window (docs/rules.md §9.1). It
then plays the response r* = argmax_r Σ_h score(r, h) · B(h) ([Bayes21] eq. 7).

Usage (the evaluator tells the agent who the partner is)::

    agent = BayesianMetaAgent(table, responses, variant="adaptive", seed=0)
    agent.start_episode("partner-7")          # fresh uniform belief for this partner
    for game in range(10):
        agent.start_game("partner-7")         # then agent.reset(seed) as for any policy
        ...  agent.act(view) on each of its turns ...
        agent.end_game(final_view)            # the partner moves after its last turn

Variants (:data:`VARIANTS`): ``"adaptive"`` (the paper's agent), ``"generalist"`` (never
updates: the best response to the uniform prior), ``"oracle"`` (belief fixed on the true type,
or a fixed response given by its scores), ``"random"`` (Random-Response: a uniformly random r
per game from the agent's seeded generator).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.policy import Policy
from hanabi_env.game import PlayerView
from hanabi_env.validate import (
    check_choice,
    check_float,
    check_optional_int,
    check_seed,
    check_str,
    type_error,
)
from meta.table import ResponseTable, check_table

__all__ = [
    "VARIANTS",
    "BayesianMetaAgent",
    "PartnerRecord",
    "PartnerTracker",
    "Window",
    "bayes_update",
    "bayes_update_batch",
    "log_normal_pdf",
]

VARIANTS = ("adaptive", "generalist", "oracle", "random")
"""Meta-agent variants of [Bayes21] (docs/papers.md §4.2)."""

_HINT_KINDS = ("reveal_color", "reveal_rank")


def log_normal_pdf(x: np.ndarray | float, sigma: float) -> np.ndarray:
    """Log-density log φ(x) of the centred normal density of standard deviation ``sigma``."""
    x = np.asarray(x, dtype=np.float64)
    return -0.5 * (x / sigma) ** 2 - math.log(sigma * math.sqrt(2.0 * math.pi))


def bayes_update(
    belief: np.ndarray,
    comm: float,
    ipp: float,
    mu_comm: np.ndarray,
    mu_ipp: np.ndarray,
    sigma: float = 0.1,
) -> tuple[np.ndarray, bool]:
    """One Bayesian update of docs/rules.md §9.1, in log space, with its guards.

    B'(h) ∝ B(h) · φ(comm − mu_comm[h]) · φ(ipp − mu_ipp[h]).

    Guards (docs/rules.md §9.1): a NaN window statistic (zero denominator) leaves out its factor; if
    both are NaN the belief is returned unchanged. If every posterior weight is zero (all
    log-weights −∞) the belief is returned unchanged. Our choice: a NaN table mean for type h
    (h never showed that behaviour with the response, e.g. never played) while the window
    statistic is defined gives h a zero likelihood.

    Args:
        belief: ``(nH,)`` prior, summing to 1.
        comm: Observed communicativeness of the window (NaN if undefined).
        ipp: Observed IPP of the window (NaN if undefined).
        mu_comm: ``(nH,)`` c(r_i, h), the table's communicativeness of each type with r_i.
        mu_ipp: ``(nH,)`` ι(r_i, h).
        sigma: Standard deviation σ of the Gaussian likelihood (> 0).

    Returns:
        ``(posterior, updated)``; ``updated`` is False when a guard kept the prior.

    Raises:
        TypeError: ``sigma``, ``comm`` or ``ipp`` not a number.
        ValueError: ``sigma`` <= 0 or not finite, or arrays of mismatched shapes.
    """
    sigma = check_float("sigma", sigma, 0.0, lo_open=True)
    comm, ipp = (_number_or_nan(n, x) for n, x in (("comm", comm), ("ipp", ipp)))
    belief = np.asarray(belief, dtype=np.float64)
    mu_comm = np.asarray(mu_comm, dtype=np.float64)
    mu_ipp = np.asarray(mu_ipp, dtype=np.float64)
    if not belief.shape == mu_comm.shape == mu_ipp.shape:
        raise ValueError(
            f"belief, mu_comm and mu_ipp must have equal shapes, got {belief.shape}, "
            f"{mu_comm.shape}, {mu_ipp.shape}"
        )
    factors = [(x, mu) for x, mu in ((comm, mu_comm), (ipp, mu_ipp)) if not math.isnan(x)]
    if not factors:
        return belief.copy(), False
    with np.errstate(divide="ignore"):
        logw = np.log(belief)
    for x, mu in factors:
        ll = log_normal_pdf(x - mu, sigma)
        logw = logw + np.where(np.isnan(mu), -np.inf, ll)
    top = np.max(logw)
    if not np.isfinite(top):
        return belief.copy(), False
    w = np.exp(logw - top)
    return w / w.sum(), True


def bayes_update_batch(
    belief: np.ndarray,
    comm: np.ndarray,
    ipp: np.ndarray,
    mu_comm: np.ndarray,
    mu_ipp: np.ndarray,
    sigma: float = 0.1,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bayes_update` for many beliefs at once, with the same results bit for bit.

    Row ``i`` of the result equals ``bayes_update(belief[i], comm[i], ipp[i], mu_comm[i],
    mu_ipp[i], sigma)``: the same element-wise operations in the same order (a factor whose
    statistic is NaN is left out of its row, not added as zero), the per-row maximum and the
    per-row sum over the last, contiguous axis (numpy's pairwise summation of one row, as for a
    1-D array); the guards keep a row's prior. The compiled meta-agent evaluation
    (:mod:`meta.compiled`) updates every episode of a lockstep batch with it.

    Args:
        belief: ``(n, nH)`` float64 priors, each row summing to 1.
        comm: ``(n,)`` float64 observed communicativeness of each window (NaN if undefined).
        ipp: ``(n,)`` float64 observed IPP of each window (NaN if undefined).
        mu_comm: ``(n, nH)`` float64 c(r_i, h) of each row's response r_i.
        mu_ipp: ``(n, nH)`` float64 ι(r_i, h).
        sigma: Standard deviation σ of the Gaussian likelihood (> 0).

    Returns:
        ``(posterior, updated)``: ``(n, nH)`` float64 (a new C-contiguous array) and ``(n,)``
        bool, False where a guard kept the prior.

    Raises:
        TypeError: ``sigma`` not a number.
        ValueError: ``sigma`` <= 0 or not finite, or arrays of mismatched shapes.
    """
    sigma = check_float("sigma", sigma, 0.0, lo_open=True)
    belief = np.ascontiguousarray(belief, dtype=np.float64)
    comm = np.asarray(comm, dtype=np.float64)
    ipp = np.asarray(ipp, dtype=np.float64)
    mu_comm = np.ascontiguousarray(mu_comm, dtype=np.float64)
    mu_ipp = np.ascontiguousarray(mu_ipp, dtype=np.float64)
    if belief.ndim != 2 or not belief.shape == mu_comm.shape == mu_ipp.shape:
        raise ValueError(
            f"belief, mu_comm and mu_ipp must have equal (n, nH) shapes, got {belief.shape}, "
            f"{mu_comm.shape}, {mu_ipp.shape}"
        )
    if comm.shape != (belief.shape[0],) or ipp.shape != (belief.shape[0],):
        raise ValueError(
            f"comm and ipp must have shape ({belief.shape[0]},), got {comm.shape}, {ipp.shape}"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        logw = np.log(belief)
        for x, mu in ((comm, mu_comm), (ipp, mu_ipp)):
            ll = log_normal_pdf(x[:, None] - mu, sigma)
            term = np.where(np.isnan(mu), -np.inf, ll)
            logw = np.where(np.isnan(x)[:, None], logw, logw + term)
        top = np.max(logw, axis=1)
        updated = ~(np.isnan(comm) & np.isnan(ipp)) & np.isfinite(top)
        w = np.exp(logw - top[:, None])
        post = w / w.sum(axis=1, keepdims=True)
    post[~updated] = belief[~updated]
    return np.ascontiguousarray(post), updated


def _number_or_nan(name: str, value: object) -> float:
    """A real number (NaN allowed: an undefined window statistic)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise type_error(name, "a number (NaN if undefined)", value)
    return float(value)


def _check_responses(responses: object, table: ResponseTable) -> list:
    """``responses``: one policy per row of ``table`` (TypeError/ValueError naming it)."""
    check_table("table", table)
    if isinstance(responses, (str, bytes)) or not isinstance(responses, Sequence):
        raise type_error("responses", "a sequence of policies", responses)
    for p in responses:
        if not isinstance(p, Policy):
            raise TypeError(
                f"responses must be a sequence of policies, got an element {type(p).__name__}"
            )
    if len(responses) != table.shape[0]:
        raise ValueError(
            f"responses has {len(responses)} policies for a table of {table.shape[0]} rows"
        )
    return list(responses)


@dataclass
class Window:
    """The partner's counters over one observation window (docs/rules.md §9.1, §5).

    Attributes:
        hint_opportunities: Partner moves made with at least one information token.
        hints: Partner hints.
        plays: Partner plays.
        known_attrs: Σ attributes (colour + rank, 0–2) the partner knew about its played cards.
        moves: Partner moves observed.
        games: Games with this partner finished during the window.
        turns: The agent's own turns during the window.
    """

    hint_opportunities: int = 0
    hints: int = 0
    plays: int = 0
    known_attrs: int = 0
    moves: int = 0
    games: int = 0
    turns: int = 0

    @property
    def communicativeness(self) -> float:
        """ĉ = hints / hint opportunities (NaN if no opportunity)."""
        return self.hints / self.hint_opportunities if self.hint_opportunities else math.nan

    @property
    def ipp(self) -> float:
        """ι̂ = Σ known attributes / (2 · plays) (NaN if no play)."""
        return self.known_attrs / (2 * self.plays) if self.plays else math.nan

    def observe(self, move) -> None:
        """Add one partner :class:`hanabi_env.Move` (state just before it, as recorded)."""
        self.moves += 1
        if move.information_tokens_before > 0:
            self.hint_opportunities += 1
            if move.kind in _HINT_KINDS:
                self.hints += 1
        if move.kind == "play":
            self.plays += 1
            self.known_attrs += max(0, int(move.known_attributes))

    def as_dict(self) -> dict:
        """Counters and the two statistics."""
        return {
            "hint_opportunities": self.hint_opportunities,
            "hints": self.hints,
            "plays": self.plays,
            "known_attrs": self.known_attrs,
            "moves": self.moves,
            "games": self.games,
            "turns": self.turns,
            "communicativeness": self.communicativeness,
            "ipp": self.ipp,
        }


@dataclass
class PartnerRecord:
    """What the agent keeps about one partner id.

    Attributes:
        belief: ``(nH,)`` current belief B over the hypotheses.
        window: Observations since the last update.
        games: Games started with this partner (in the current episode).
        updates: Updates applied (guards that kept the belief do not count).
        history: Log of events, dicts with ``event`` = ``"game"`` (game start: ``game``,
            ``belief``, ``response``), ``"update"`` (``game``, ``window``, ``response_used``,
            ``prior``, ``posterior``, ``updated``, ``response``).
        by_response: Response index → the partner's counters observed while that response
            was in use (moves seen at a turn are credited to the response that made the
            agent's previous move; used for the niche-estimate error of [ToG20]).
    """

    belief: np.ndarray
    window: Window = field(default_factory=Window)
    games: int = 0
    updates: int = 0
    history: list[dict] = field(default_factory=list)
    by_response: dict[int, Window] = field(default_factory=dict)


class PartnerTracker(Policy):
    """What both meta-agents share: per-partner records and the partner moves of a game.

    Subclasses keep ``self.partners`` (partner id → record, each with a ``games`` count),
    ``self.partner`` (current id), ``self._seen`` (moves of the current game already
    observed), ``self._seat`` (own seat, None until the first observation) and
    ``self._in_game``; :meth:`_begin_game` resets the per-game ones. :meth:`reset` starts the
    next game of the current partner through the subclass's :meth:`_next_game`.
    """

    partners: dict
    partner: str | None
    responses: list[Policy]
    response: int
    _seen: int
    _seat: int | None
    _in_game: bool
    _game_seed: int | None

    def record(self, partner_id: str | None = None):
        """The record of ``partner_id`` (default: the current partner).

        Raises:
            KeyError: Unknown partner.
        """
        return self.partners[self.partner if partner_id is None else str(partner_id)]

    def start_episode(self, partner_id: str) -> None:
        """Forget ``partner_id``: its next game starts a fresh record (a new episode)."""
        self.partners.pop(str(partner_id), None)

    def reset(self, seed: int | None = None) -> None:
        """Prepare the current response policy for a new game (seeded with ``seed``).

        If :meth:`start_game` was not called since the last game, the previous partner
        continues (a new game with the same partner id).

        Raises:
            RuntimeError: No partner was ever declared.
            TypeError, ValueError: ``seed`` is not None or an int in ``[0, 2**62)``.
        """
        seed = check_seed("seed", seed, allow_none=True)
        if not self._in_game:
            if self.partner is None:
                raise RuntimeError("call start_game(partner_id) before the first game")
            self._next_game(self.partner)
        self._game_seed = None if seed is None else int(seed)
        self.responses[self.response].reset(self._game_seed)

    def _next_game(self, partner_id: str) -> None:
        """``start_game`` for another game with ``partner_id``, as declared before."""
        raise NotImplementedError

    def _begin_game(self, rec) -> None:
        """Count a new game with the partner of ``rec`` and clear the per-game state."""
        rec.games += 1
        self._seen = 0
        self._seat = None
        self._in_game = True

    def _partner_moves(self, view: PlayerView) -> list:
        """The partners' moves in ``view`` not observed yet in this game (oldest first)."""
        if self._seat is None:
            self._seat = int(view.seat)
        out = []
        for move in view.moves_since_last_turn:
            if move.index < self._seen:
                continue
            if move.actor != self._seat:
                out.append(move)
            self._seen = move.index + 1
        return out


class BayesianMetaAgent(PartnerTracker):
    """The Bayesian meta-agent and its baselines ([Bayes21]; docs/rules.md §9.1).

    Args:
        table: The offline table I(r, h) (rows = ``responses``, columns = hypotheses H).
        responses: The response policies R, in the table's row order. They are deep-copied;
            the agent plays the chosen one's moves.
        variant: One of :data:`VARIANTS`.
        sigma: Standard deviation σ of the likelihood (0.1 in the paper).
        games_threshold: Update when at least this many games with the partner have finished
            since the last update (1: at the start of every game after the first). None = never.
        turns_threshold: Update when at least this many of the agent's turns have passed since
            the last update. None = never (the paper).
        seed: Seed of the agent's generator (Random-Response draws).
        name: Display name.

    Raises:
        ValueError: Bad ``variant``, ``sigma``, thresholds, or ``responses`` not matching the
            table.
    """

    def __init__(
        self,
        table: ResponseTable,
        responses: Sequence[Policy],
        variant: str = "adaptive",
        sigma: float = 0.1,
        games_threshold: int | None = 1,
        turns_threshold: int | None = None,
        seed: int = 0,
        name: str | None = None,
    ):
        """See the class docstring."""
        check_choice("variant", variant, VARIANTS)
        sigma = check_float("sigma", sigma, 0.0, lo_open=True)
        responses = _check_responses(responses, table)
        games_threshold = check_optional_int("games_threshold", games_threshold, 1)
        turns_threshold = check_optional_int("turns_threshold", turns_threshold, 1)
        seed = check_seed("seed", seed)
        if name is not None:
            check_str("name", name)
        self.table = table
        self.responses = [copy.deepcopy(p) for p in responses]
        self.variant = variant
        self.sigma = float(sigma)
        self.games_threshold = games_threshold
        self.turns_threshold = turns_threshold
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.name = name or f"bayes-{variant}"
        self.partners: dict[str, PartnerRecord] = {}
        self.partner: str | None = None
        self.response: int = table.generalist()
        self._oracle_response: int | None = None
        self._seen = 0  # moves of the current game already observed
        self._seat: int | None = None
        self._game_seed: int | None = None
        self._in_game = False

    # ---------------------------------------------------------------- partners and games
    @property
    def n_hypotheses(self) -> int:
        """Number of hypotheses |H|."""
        return self.table.shape[1]

    def belief(self, partner_id: str | None = None) -> np.ndarray:
        """A copy of the current belief over H for ``partner_id`` (default: current partner)."""
        return self.record(partner_id).belief.copy()

    def start_game(
        self,
        partner_id: str,
        true_type: int | None = None,
        true_scores: Sequence[float] | None = None,
    ) -> int:
        """Declare the partner of the next game; call before :meth:`reset`.

        A first encounter creates a uniform belief (docs/rules.md §9.1). The response is recomputed
        (eq. 7) and logged. Oracle variant: ``true_type`` (index in H) fixes the belief at 1 on
        that type; or ``true_scores`` (``(nR,)`` score(r, e) of each response with the true
        partner, for partners outside H) fixes the response at their argmax.

        Returns:
            The response index chosen for the start of the game.

        Raises:
            TypeError: ``partner_id`` not a str, ``true_type`` not an int.
            ValueError: Oracle without ``true_type``/``true_scores``, or a bad ``true_type``.
        """
        pid = check_str("partner_id", partner_id)
        if true_type is not None:
            true_type = check_optional_int("true_type", true_type, 0, self.n_hypotheses - 1)
        if self._in_game:
            self.end_game(None)
        rec = self.partners.get(pid)
        if rec is None:
            rec = PartnerRecord(np.full(self.n_hypotheses, 1.0 / self.n_hypotheses))
            self.partners[pid] = rec
        self.partner = pid
        self._oracle_response = None
        if self.variant == "oracle":
            if true_type is not None:
                if not 0 <= int(true_type) < self.n_hypotheses:
                    raise ValueError(
                        f"true_type={true_type} is out of range; allowed: "
                        f"[0, {self.n_hypotheses - 1}]"
                    )
                rec.belief = np.zeros(self.n_hypotheses)
                rec.belief[int(true_type)] = 1.0
            elif true_scores is not None:
                ts = np.asarray(true_scores, dtype=np.float64)
                if ts.shape != (self.table.shape[0],):
                    raise ValueError(
                        f"true_scores must have shape ({self.table.shape[0]},), got {ts.shape}"
                    )
                self._oracle_response = int(np.argmax(ts))
            else:
                raise ValueError("the oracle variant needs true_type or true_scores")
        if self.variant == "random":
            self.response = int(self.rng.integers(self.table.shape[0]))
        else:
            self.response = self._choose(rec)
        rec.history.append(
            {
                "event": "game",
                "game": rec.games,
                "belief": rec.belief.copy(),
                "response": self.response,
            }
        )
        self._begin_game(rec)
        return self.response

    def _next_game(self, partner_id: str) -> None:
        self.start_game(partner_id)

    def end_game(self, view: PlayerView | None = None) -> None:
        """Finish the current game: observe the partner's last moves from ``view``.

        Args:
            view: The agent's view of the final state (its move history supplies the partner
                moves made after the agent's last turn), or None.
        """
        if not self._in_game:
            return
        if view is not None:
            self._observe(view)
        self.record().window.games += 1
        self._in_game = False

    # ---------------------------------------------------------------- acting
    def act(self, view: PlayerView) -> int:
        """Observe, maybe update (docs/rules.md §9.1 schedule), and play the response's move."""
        if not self._in_game:
            self.reset(None)
        rec = self.record()
        self._observe(view)
        if self._due(rec):
            self.update()
        rec.window.turns += 1
        return int(self.responses[self.response].act(view))

    def _observe(self, view: PlayerView) -> None:
        rec = self.record()
        for move in self._partner_moves(view):
            rec.window.observe(move)
            rec.by_response.setdefault(self.response, Window()).observe(move)

    def _due(self, rec: PartnerRecord) -> bool:
        if self.variant != "adaptive":
            return False
        w = rec.window
        by_games = self.games_threshold is not None and w.games >= int(self.games_threshold)
        by_turns = self.turns_threshold is not None and w.turns >= int(self.turns_threshold)
        return by_games or by_turns

    def _choose(self, rec: PartnerRecord) -> int:
        if self._oracle_response is not None:
            return self._oracle_response
        return self.table.best_response(rec.belief)

    def update(self) -> bool:
        """Apply the Bayesian update to the current partner's belief; reset the window.

        Uses the window's ĉ and ι̂ and the table row of the response played during the
        window (docs/rules.md §9.1), then recomputes the response (eq. 7). The window resets even
        when a guard keeps the belief.

        Returns:
            Whether the belief changed (False when a guard kept it).
        """
        rec = self.record()
        win = rec.window
        used = self.response
        prior = rec.belief
        post, updated = bayes_update(
            prior,
            win.communicativeness,
            win.ipp,
            self.table.communicativeness[used],
            self.table.ipp[used],
            self.sigma,
        )
        rec.belief = post
        rec.updates += int(updated)
        new = self._choose(rec)
        if new != self.response:
            self.response = new
            pol = self.responses[new]
            pol.reset(None if self._game_seed is None else self._game_seed)
        rec.history.append(
            {
                "event": "update",
                "game": rec.games - 1,
                "window": win.as_dict(),
                "response_used": used,
                "prior": prior.copy(),
                "posterior": post.copy(),
                "updated": updated,
                "response": self.response,
            }
        )
        rec.window = Window()
        return updated

    def __repr__(self) -> str:
        """Variant and pool sizes."""
        return (
            f"BayesianMetaAgent({self.name!r}, variant={self.variant!r}, "
            f"|R|={self.table.shape[0]}, |H|={self.table.shape[1]})"
        )
