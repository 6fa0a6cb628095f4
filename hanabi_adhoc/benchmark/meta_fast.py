"""Episodic agents in the protocol, with the meta-agent evaluation's compiled path for seat 0.

docs/benchmark.md §3. An episodic agent (:func:`hanabi_adhoc.benchmark.protocol.is_episodic`)
plays its episodes in order on the Python path of the protocol. When it is a Bayesian meta-agent
(:class:`meta.bayes.BayesianMetaAgent`, variant ``adaptive`` or ``generalist``, no mid-game
update) in seat 0 of 2-player games with plain rule-agent partners, its episodes are exactly
those of [Bayes21]'s protocol: :func:`meta.evaluate.evaluate_meta` plays them in compiled
lockstep batches, on the same deals and seat seeds (the group's episode ``j`` is the meta
protocol's episode ``j`` with ``seed`` = the group's seed). The evaluation returns the response
the agent played in each game; each game is then one game of two rule agents on a known deal,
replayed by :func:`agents.evaluate.play_games` for its behaviour counters (and its score, which
must equal the evaluation's). Seat 1 and every other case take the Python path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.evaluate import play_games
from agents.policy import Policy
from agents.reference import hand_order_for
from hanabi_env.config import HanabiConfig

__all__ = ["fast_seat0", "play_fast_seat0"]

FAST_VARIANTS = ("adaptive", "generalist")
"""Variants whose seat-0 games the compiled meta path plays (Random-Response draws from a
generator the meta evaluation seeds per partner, so it stays on the Python path)."""


def fast_seat0(
    agent: Policy, players: int, cfg: HanabiConfig, sched, mates, episode_games: int
) -> bool:
    """Whether the compiled meta path plays the agent's seat-0 episodes (see the module doc).

    Only whole episodes (``episode_games`` games each) are the meta protocol's: the seat seeds
    of a game depend on the episode's length (:func:`agents.evaluate.game_seeds` draws every
    deal seed of an episode, then its seat seeds), so a schedule cut inside an episode
    (``--deals``) takes the Python path.
    """
    from meta.bayes import BayesianMetaAgent
    from meta.compiled import plain_rule_agents

    if not (isinstance(agent, BayesianMetaAgent) and mates and players == 2):
        return False
    d, g = len(sched["deal"]), int(sched["game"].max()) + 1 if len(sched["game"]) else 0
    return (
        agent.variant in FAST_VARIANTS
        and agent.turns_threshold is None
        and plain_rule_agents(agent.responses)
        and plain_rule_agents(mates)
        and cfg.hand_size == 5
        and cfg.hand_order == hand_order_for([*agent.responses, *mates])
        and g == episode_games
        and d % g == 0
    )


def _seat0(agent, unit, cfg: HanabiConfig, sched, mates, workers, progress) -> dict[int, tuple]:
    """Seat-0 episodes of every partner through :func:`meta.evaluate.evaluate_meta`."""
    from meta.evaluate import evaluate_meta

    games = int(sched["game"].max()) + 1
    episodes = len(sched["deal"]) // games
    ids = [unit.group.partners[i].id for i in unit.partners]
    res = evaluate_meta(
        agent.table,
        agent.responses,
        list(mates),
        ids,
        variants=[agent.variant],
        episodes=episodes,
        games=games,
        seed=unit.group.seed,
        scoring=cfg.scoring,
        sigma=agent.sigma,
        games_threshold=agent.games_threshold,
        turns_threshold=None,
        workers=workers or 1,
        compiled=True,
    )
    scores = res.scores[agent.variant].reshape(len(mates), -1)
    used = res.responses[agent.variant].reshape(len(mates), -1)
    d, nr = len(sched["deal"]), len(agent.responses)
    seat_agents = np.stack([used.ravel(), np.repeat(nr + np.arange(len(mates)), d)], axis=1)
    batch = play_games(
        [*agent.responses, *mates],
        seat_agents,
        np.tile(sched["deal"], len(mates)),
        np.tile(sched["seeds"], (len(mates), 1)),
        cfg,
        workers=workers,
    )
    if not np.array_equal(batch.scores, scores.ravel()):  # pragma: no cover - a bug
        raise RuntimeError("the replayed meta-agent games differ from the meta evaluation")
    out = {}
    for e in range(len(mates)):
        rows = slice(e * d, (e + 1) * d)
        c = batch.counters[rows]
        out[e * 2] = (scores[e], c[:, 0], c[:, 1])
        if progress is not None:
            progress(d)
    return out


def play_fast_seat0(
    agent: Policy,
    unit,
    cfg: HanabiConfig,
    sched: dict[str, np.ndarray],
    mates: Sequence[Policy],
    workers: int | None,
    progress: Callable[[int], None] | None,
    episodic: Callable[..., dict[int, tuple]],
):
    """The unit of an episodic agent: the compiled meta path where it applies, else ``episodic``.

    Returns:
        Per-(partner, seat) episode arrays, for
        :func:`hanabi_adhoc.benchmark.protocol.episodic_results`.
    """
    seats = list(range(unit.players)) if mates else [0]
    parts: dict[int, tuple] = {}
    if fast_seat0(agent, unit.players, cfg, sched, mates, unit.group.games):
        parts.update(_seat0(agent, unit, cfg, sched, mates, workers, progress))
        seats = seats[1:]
    if seats:
        parts.update(episodic(agent, unit, cfg, sched, mates, seats, workers, progress))
    return parts
