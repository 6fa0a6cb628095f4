"""Playing and evaluating policies: the fast compiled evaluator and mirror/mixed protocols.

* :func:`play_games` plays games with one policy per seat and returns per-game scores and
  per-seat behaviour counters. When every policy is a :class:`~agents.policy.RuleAgent`, whole
  games run inside one compiled kernel (:func:`agents.rule_games.play_rule_games_kernel`);
  otherwise the generic path steps :class:`hanabi_env.HanabiGame` and asks each policy for its
  move. :func:`play_policies` does the same on a given backend (:mod:`agents.backend`).
* :func:`evaluate` implements [CIG18]'s **mirror** and **mixed** evaluation (docs/papers.md §2,
  docs/rules.md §6) over game sizes, with common random numbers, strict or lenient scoring, results
  as mean ± s.e.m. per game size and overall, and the evaluated agent's communicativeness and
  IPP (ratio of sums over its seats, docs/rules.md §5).

Seeds (docs/rules.md §6): everything derives from one ``seed``. Per game: (mixed only) the
candidate's seat, the deal seed, then one agent seed per seat, all drawn up front in the parent
process, so results do not depend on the number of workers. Games are split into chunks that
run on all local cores by default: threads for rule agents, processes for other policies.
"""

from __future__ import annotations

import copy
import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.backend import Backend, ProcessBackend, SerialBackend, ThreadBackend, default_workers
from agents.batch import check_policy_observations
from agents.bots.self_play import compiled_self_play, play_compiled_self_play
from agents.faults import DEFAULT_MOVE_TIME_LIMIT, check_move_time_limit
from agents.lockstep import CHUNK as LOCKSTEP_CHUNK
from agents.lockstep import lockstep_playable, play_lockstep
from agents.policy import Policy, RuleAgent, play_out
from agents.reference import CIG18_POOL, RULESETS, check_preset
from agents.registry import make, make_policy
from agents.rule_games import play_rule_chunk, rule_table
from agents.rulebase import TEST_POOL
from agents.rules import reference as RR
from hanabi_env import engine as E
from hanabi_env.config import (
    HAND_ORDERS,
    SCORING_VARIANTS,
    HanabiConfig,
    game_hand_size,
    hand_order_of,
    rulebook_hand_size,
)
from hanabi_env.deprecation import moved_to
from hanabi_env.jsonable import json_ready
from hanabi_env.metrics import metric_ratios
from hanabi_env.seeding import SEED_LIMIT
from hanabi_env.stats import sem
from hanabi_env.validate import (
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_int_sequence,
    check_memory,
    check_seed,
    check_workers,
    is_int,
    settings_keywords,
    type_error,
)
from hanabi_env.workers import one_thread_worker

__all__ = [
    "GAME_BYTES",
    "EvaluationProtocol",
    "EvaluationResult",
    "GameBatch",
    "check_games",
    "evaluate",
    "game_seeds",
    "hle_hand_size",
    "picklable",
    "play",
    "play_games",
    "play_policies",
]


GAME_BYTES = 1024
"""An upper bound of the bytes one game of a batch takes: its deal and seat seeds, score, moves
and per-seat counters (``int64``), with the copies a batch makes."""


def check_games(name: str, games: int, times: int = 1) -> int:
    """Refuse ``games`` (x ``times`` per batch) whose arrays could not fit in memory.

    Raises:
        ValueError: More games than :data:`GAME_BYTES` each lets this machine hold; the message
            names ``name`` and the largest value allowed (checked before any allocation).
    """
    return check_memory(name, games, GAME_BYTES, "games' seeds and results", times=times)


def hle_hand_size(players: int) -> int:
    """Hand size of the papers and HLE's default: 5 for 2–3 players, 4 for 4–5.

    The rulebook's sizes, :func:`hanabi_env.config.rulebook_hand_size` (this name stays for
    the callers that use it).
    """
    return rulebook_hand_size(players)


# --------------------------------------------------------------------------------------------
# batches of games
# --------------------------------------------------------------------------------------------


@dataclass
class GameBatch:
    """Results of a batch of games.

    Attributes:
        scores: ``(n_games,)`` int64 final scores (points, 0–25 for the standard deck).
        counters: ``(n_games, n_players, N_COUNTERS)`` float64 behaviour counters per seat
            (columns :data:`hanabi_env.engine.COUNTER_NAMES`).
        seat_agents: ``(n_games, n_players)`` int64 index of the policy in each seat.
        moves: Total moves played.
        actions: ``(n_games, max_moves)`` int16 move uids (-1 padded) if recorded, else None.
    """

    scores: np.ndarray
    counters: np.ndarray
    seat_agents: np.ndarray
    moves: int = 0
    actions: np.ndarray | None = None

    def seat_metrics(self) -> dict[str, np.ndarray]:
        """Per-game, per-seat metrics: ``(n_games, n_players)`` float64 arrays.

        Keys ``communicativeness``, ``ipp``, ``risk_aversion`` (NaN where undefined, docs/rules.md
        §5) and ``plays``, ``hints_given``.
        """
        c = self.counters
        return {
            **metric_ratios(c),
            "plays": c[..., E.C_PLAYS].copy(),
            "hints_given": c[..., E.C_HINTS_GIVEN].copy(),
        }

    def metrics(self, agent: int | None = None) -> dict:
        """Aggregated metrics over the seats of ``agent`` (all seats if None), ratio of sums."""
        c = self.counters
        if agent is not None:
            c = c[self.seat_agents == agent]
        else:
            c = c.reshape(-1, c.shape[-1])
        return _metrics_of_sums(c.sum(axis=0))


def _metrics_of_sums(sums: np.ndarray) -> dict:
    ratios = {k: float(v) for k, v in metric_ratios(sums).items()}
    return {**ratios, "counters": {name: float(sums[i]) for i, name in enumerate(E.COUNTER_NAMES)}}


def game_seeds(seed: int, n_games: int, n_players: int, random_seat: bool) -> tuple:
    """Per-game seeds derived from ``seed`` (docs/rules.md §6), identical for any worker count.

    Returns:
        ``(seats, deal_seeds, agent_seeds)``: ``(n_games,)`` int64 candidate seats (zeros if not
        ``random_seat``), ``(n_games,)`` int64 deal seeds, ``(n_games, n_players)`` int64 seeds.

    Raises:
        TypeError, ValueError: ``seed`` not in ``[0, 2**62)``, ``n_games`` < 0, ``n_players``
            outside [2, 5] or ``random_seat`` not a bool.
    """
    seed = check_seed("seed", seed)
    n_games = check_int("n_games", n_games, 0)
    n_players = check_int("n_players", n_players, 2, 5)
    check_games("n_games", n_games)
    random_seat = check_bool("random_seat", random_seat)
    return _game_seeds(seed, n_games, n_players, random_seat)


def _game_seeds(seed: int, n_games: int, n_players: int, random_seat: bool) -> tuple:
    """:func:`game_seeds` of checked arguments (the callers in this package trust them)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), int(n_players)]))
    seats = rng.integers(0, n_players, n_games) if random_seat else np.zeros(n_games, np.int64)
    deals = rng.integers(0, SEED_LIMIT, n_games, dtype=np.int64)
    agent_seeds = rng.integers(0, SEED_LIMIT, (n_games, n_players), dtype=np.int64)
    return seats.astype(np.int64), deals, agent_seeds


def _rule_table(
    policies: Sequence[RuleAgent], no_rule: str = "fallback"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`rule_table` of rule agents.

    ``no_rule="end_game"`` turns the corrected agents' random fallback into the strict-era end.
    """
    modes = [p.mode for p in policies]
    if no_rule == "end_game":
        modes = [RR.MODE_END_GAME if m == RR.MODE_FALLBACK else m for m in modes]
    return rule_table([p.rules for p in policies], modes)


def _check_reference_config(policies: Sequence[Policy], config: HanabiConfig) -> None:
    """Reference agents need the framework's fixed hand slots (docs/rules.md §12.2)."""
    if not config.fixed_slots and any(
        isinstance(p, RuleAgent) and p.ruleset == "reference" for p in policies
    ):
        raise ValueError(
            "ruleset='reference' agents need the Java framework's fixed hand slots: pass "
            "HanabiConfig(..., hand_order='fixed')"
        )


def _run_policy_games(
    cfg: HanabiConfig,
    policies: Sequence[Policy],
    seat_agents: np.ndarray,
    deals: np.ndarray,
    agent_seeds: np.ndarray,
    first: int = 0,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """Task: one chunk of games of any policies in the Python loop (module-level: picklable).

    ``first`` is the chunk's first game in the run (a fault names the run's game); a policy's
    fault raises :class:`~agents.faults.AgentFault` here, in a worker process too (it pickles
    to the parent unchanged), with the same ``move_time_limit`` as in the parent.
    """
    from hanabi_env.game import HanabiGame

    game = HanabiGame(cfg)
    scores = np.zeros(len(deals), dtype=np.int64)
    counters = np.zeros((len(deals), cfg.players, E.N_COUNTERS), dtype=np.float64)
    actions = np.full((len(deals), int(game.state.cfg[E.CFG_MAX_MOVES])), -1, dtype=np.int16)
    moves = 0
    # one instance per seat, so that a policy sitting in several seats keeps separate state
    per_seat = [[copy.deepcopy(pol) for pol in policies] for _ in range(cfg.players)]
    for g in range(len(deals)):
        game.reset(int(deals[g]))
        seat_policies = [per_seat[p][a] for p, a in enumerate(seat_agents[g])]
        for p, pol in enumerate(seat_policies):
            pol.reset(int(agent_seeds[g, p]))
        moves += play_out(
            game, seat_policies, actions[g], move_time_limit=move_time_limit, game_index=first + g
        )
        scores[g] = game.score
        counters[g] = game.state.counters
    return scores, counters, moves, actions


def picklable(policies: Sequence[Policy]) -> bool:
    """Whether ``policies`` can go to worker processes (pickled); else they play in this one.

    Used by :func:`play_games` and the benchmark's protocol to choose processes or this process
    (results are the same either way).
    """
    try:
        pickle.dumps(list(policies))
    except Exception:  # any pickling failure means: play in this process
        return False
    return True


def play_games(
    policies: Sequence[Policy],
    seat_agents: np.ndarray,
    deal_seeds: np.ndarray,
    agent_seeds: np.ndarray,
    config: HanabiConfig,
    workers: int | None = 1,
    chunk_size: int = 200,
    progress: Callable[[int], None] | None = None,
    record_actions: bool = False,
    no_rule: str = "fallback",
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
) -> GameBatch:
    """Play games with the given seating: compiled batches wherever the pool allows.

    Four paths, with the same results on the same seeds: every policy a rule agent: the
    rule-game kernel (:mod:`agents.rule_games`); one reference bot with a compiled loop
    (:data:`agents.bots.COMPILED_SELF_PLAY`) in every seat: that loop (docs/bots.md §4); rule
    agents and batch policies (:class:`agents.batch.BatchPolicy`): the lockstep player
    (:mod:`agents.lockstep`), one ``act_batch`` call per step for all games waiting for a
    policy; any other policy: the per-game Python loop, each seat's ``act``. Every argument is
    checked here, once; the paths trust them.

    Args:
        policies: The distinct policies; ``seat_agents`` indexes into this list.
        seat_agents: ``(n_games, players)`` int policy index per seat.
        deal_seeds: ``(n_games,)`` deal seeds.
        agent_seeds: ``(n_games, players)`` per-seat policy seeds (each policy is reset with its
            seat's seed before every game, so a policy instance may sit in several seats).
        config: Game configuration (its ``scoring`` is used).
        workers: Parallel workers (None = all cores); results do not depend on it. Rule agents
            play in the compiled kernel on that many threads; other policies are pickled to
            that many worker processes (those that do not pickle run in this process).
        chunk_size: Games per task. Every chunk of non-rule games starts from fresh copies of
            the policies (a policy that remembers across games carries its memory within a
            chunk only); chunks never depend on ``workers``.
        progress: Called with the number of games finished after each chunk.
        record_actions: Keep every game's move list in :attr:`GameBatch.actions`.
        no_rule: What a rule agent does when no rule fires: ``"fallback"`` (a random legal
            move; docs/rules.md §0.3) or ``"end_game"`` (the game ends at the current score,
            the reference's 2018–2020 strict era, docs/rules.md §2.9; rule agents only).
        move_time_limit: Seconds a policy played in Python may take per move (default
            :data:`~agents.faults.DEFAULT_MOVE_TIME_LIMIT`, 10 s; an ``act_batch`` of ``B``
            decisions ``B`` times it); None or 0: no limit. Compiled rule agents are not timed.

    Returns:
        A :class:`GameBatch`.

    Raises:
        TypeError: An argument of the wrong type (e.g. float seeds or seat indices).
        ValueError: Arrays of inconsistent shapes, seat indices outside ``policies``, seeds
            outside ``[0, 2**62)``, a bad ``workers``, ``chunk_size``, ``no_rule`` or
            ``move_time_limit``, or a policy that asks for an observation its seat may not see
            (``observation_type="seer"``; :func:`agents.batch.policy_observation_type`).
        AgentFault: A policy raised, returned anything but a legal move id (never rounded) or
            ran past ``move_time_limit``; it names the policy, the game (its index in
            ``deal_seeds``) and the move (docs/reliability.md §9). Nothing is returned.
    """
    check_choice("no_rule", no_rule, ("fallback", "end_game"))
    limit = check_move_time_limit("move_time_limit", move_time_limit)
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a HanabiConfig", config)
    policies = _check_policies("policies", policies, names=False)
    workers = check_workers("workers", workers)
    chunk_size = check_int("chunk_size", chunk_size, 1)
    check_callable("progress", progress, allow_none=True)
    record_actions = check_bool("record_actions", record_actions)
    seating = _check_seating(len(policies), seat_agents, deal_seeds, agent_seeds, config.players)
    run = _Play(
        default_workers() if workers is None else workers,
        chunk_size, progress, record_actions, no_rule, limit,
    )  # fmt: skip
    _check_reference_config(policies, config)
    check_policy_observations(policies, config)
    return _play_checked(policies, seating, config, run)


@dataclass(frozen=True)
class _Play:
    """How :func:`play_games` plays (its arguments, checked there; ``workers`` resolved)."""

    workers: int
    chunk_size: int = 200
    progress: Callable[[int], None] | None = None
    record_actions: bool = False
    no_rule: str = "fallback"
    limit: float | None = DEFAULT_MOVE_TIME_LIMIT


def _play_checked(
    policies: list, seating: tuple[np.ndarray, np.ndarray, np.ndarray], config, run: _Play
) -> GameBatch:
    """:func:`play_games` on checked arguments: the compiled path the pool allows."""
    seat_agents, n = seating[0], len(seating[1])
    chunks = [slice(i, min(n, i + run.chunk_size)) for i in range(0, n, run.chunk_size)]
    bot = compiled_self_play(policies, config)
    if bot is not None and run.no_rule == "fallback":  # one bot in every seat: its compiled loop
        sc, cn, mv, ac = play_compiled_self_play(
            bot, config, seating[1], run.record_actions, run.chunk_size, run.progress
        )
        return GameBatch(scores=sc, counters=cn, seat_agents=seat_agents, moves=mv, actions=ac)
    rule_agents = all(isinstance(p, RuleAgent) for p in policies)
    if not rule_agents and run.no_rule != "fallback":
        raise ValueError("no_rule='end_game' needs rule agents in every seat")
    if not rule_agents and lockstep_playable(policies):  # rule agents + batch policies
        sc, cn, mv, ac = play_lockstep(
            policies,
            *seating,
            config,
            record_actions=run.record_actions,
            chunk=max(run.chunk_size, LOCKSTEP_CHUNK),
            progress=run.progress,
            move_time_limit=run.limit,
        )
        return GameBatch(scores=sc, counters=cn, seat_agents=seat_agents, moves=mv, actions=ac)
    plan = _chunk_plan(
        policies, seating, config, chunks, run.workers, run.record_actions, run.no_rule, run.limit
    )
    return _play_chunks(*plan, chunks, seat_agents, config, run.record_actions, run.progress)


def _check_seating(
    n_policies: int, seat_agents: object, deal_seeds: object, agent_seeds: object, players: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(seat_agents, deal_seeds, agent_seeds)`` checked (see :func:`play_games`), int64."""
    deals = _int_array("deal_seeds", deal_seeds, 1, 0, SEED_LIMIT - 1)
    n = len(deals)
    seats = _int_array("seat_agents", seat_agents, 2, 0, n_policies - 1)
    seeds = _int_array("agent_seeds", agent_seeds, 2, 0, SEED_LIMIT - 1)
    if seats.shape != (n, players) or seeds.shape != (n, players):
        raise ValueError(
            f"seat_agents and agent_seeds must have shape ({n}, {players}), got "
            f"{seats.shape} and {seeds.shape}"
        )
    return seats, deals, seeds


def _chunk_plan(
    policies: list,
    seating: tuple[np.ndarray, np.ndarray, np.ndarray],
    config: HanabiConfig,
    chunks: list[slice],
    workers: int,
    record_actions: bool,
    no_rule: str,
    limit: float | None,
) -> tuple[Callable[..., tuple], list[tuple], Backend]:
    """The function, tasks (one per chunk) and backend that play ``chunks`` of the games.

    Every policy a rule agent: the compiled kernel, on threads (it releases the GIL); else
    the Python game loop, in processes when the policies pickle.
    """
    seat_agents, deal_seeds, agent_seeds = seating
    backend: Backend = SerialBackend()
    tasks: list[tuple]
    if all(isinstance(p, RuleAgent) for p in policies):
        table, lens, modes = _rule_table(policies, no_rule)
        tasks = [
            (
                config,
                table,
                lens,
                modes,
                seat_agents[c],
                deal_seeds[c],
                agent_seeds[c],
                record_actions,
                None,
            )
            for c in chunks
        ]
        if workers > 1 and len(tasks) > 1:
            backend = ThreadBackend(workers)  # the kernel releases the GIL
        return play_rule_chunk, tasks, backend
    tasks = [
        (config, policies, seat_agents[c], deal_seeds[c], agent_seeds[c], c.start, limit)
        for c in chunks
    ]
    if workers > 1 and len(tasks) > 1 and picklable(policies):
        # Python game loops hold the GIL: processes, each with one BLAS/torch thread
        backend = ProcessBackend(
            min(workers, len(tasks)), compile_first=False, initializer=one_thread_worker
        )
    return _run_policy_games, tasks, backend


def _play_chunks(
    run: Callable[..., tuple],
    tasks: list[tuple],
    backend: Backend,
    chunks: list[slice],
    seat_agents: np.ndarray,
    config: HanabiConfig,
    record_actions: bool,
    progress: Callable[[int], None] | None,
) -> GameBatch:
    """Run ``tasks`` on ``backend`` and gather the chunks' results into one batch."""
    n = chunks[-1].stop if chunks else 0
    scores = np.zeros(n, dtype=np.int64)
    counters = np.zeros((n, config.players, E.N_COUNTERS), dtype=np.float64)
    max_moves = E.max_moves_of(
        config.players, config.colors, config.ranks, config.max_information_tokens
    )
    actions = np.full((n, max_moves), -1, dtype=np.int16) if record_actions else None
    moves = 0
    with backend:
        results = backend.imap(run, tasks)
        for c, (sc, cn, mv, ac) in zip(chunks, results, strict=True):
            scores[c], counters[c] = sc, cn
            if actions is not None:
                actions[c, : ac.shape[1]] = ac
            moves += mv
            if progress is not None:
                progress(c.stop - c.start)
    return GameBatch(
        scores=scores, counters=counters, seat_agents=seat_agents, moves=moves, actions=actions
    )


def play_policies(
    policies: Sequence,
    seat_agents: np.ndarray,
    deal_seeds: np.ndarray,
    agent_seeds: np.ndarray,
    config: HanabiConfig,
    workers: int | None = 1,
    backend: Backend | None = None,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
) -> tuple[np.ndarray, np.ndarray]:
    """Play games of any policies, on ``backend`` when they are all rule agents.

    The same games as :func:`agents.evaluate.play_games` (same seeds, same results); rule
    agents go through ``backend.play`` when a backend is given (e.g. a Dask cluster's), any
    other pool through ``play_games`` on ``workers`` local workers.

    Args:
        policies: The distinct policies; ``seat_agents`` indexes into this list.
        seat_agents: ``(n_games, players)`` int64 policy index per seat.
        deal_seeds: ``(n_games,)`` int64 deal seeds.
        agent_seeds: ``(n_games, players)`` int64 per-seat policy seeds.
        config: Game configuration.
        workers: Local workers of ``play_games`` (threads for rule agents, processes for other
            policies; None = all cores).
        backend: The backend for rule agents (left open), or None.
        move_time_limit: As :func:`play_games` (policies played in Python only).

    Returns:
        ``(scores, counters)``: ``(n_games,)`` int64 points and ``(n_games, players,
        N_COUNTERS)`` float64 behaviour counters.

    Raises:
        TypeError, ValueError, AgentFault: As :func:`agents.evaluate.play_games`.
    """
    if backend is not None and all(isinstance(p, RuleAgent) for p in policies):
        scores, counters, _ = backend.play(
            config,
            [p.rules for p in policies],
            seat_agents,
            deal_seeds,
            agent_seeds,
            modes=[p.mode for p in policies],
        )
        return scores, counters
    batch = play_games(
        policies,
        seat_agents,
        deal_seeds,
        agent_seeds,
        config,
        workers=workers,
        move_time_limit=move_time_limit,
    )
    return batch.scores, batch.counters


def play(
    policies: Sequence[Policy | str],
    games: int = 1,
    seed: int = 0,
    workers: int | None = 1,
    ruleset: str = "corrected",
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    **config,
) -> GameBatch:
    """Play ``games`` games with ``policies[i]`` in seat ``i``; the simplest entry point.

    Args:
        policies: One policy (or baseline name) per seat; the number of players is their count.
        games: Number of games (>= 1); game ``g`` uses seeds derived from ``(seed, g)``.
        seed: Master seed.
        workers: Parallel workers, as in :func:`play_games` (None = all cores); results do
            not depend on it.
        ruleset: Ruleset of the policies given by name: ``"corrected"`` (default) or
            ``"reference"`` (docs/rules.md §12; then ``hand_order`` defaults to ``"fixed"``).
        move_time_limit: Seconds a policy may take per move, as in :func:`play_games`
            (default 10 s; None or 0: no limit).
        **config: Other :class:`hanabi_env.HanabiConfig` fields (``scoring``, ``hand_size``,
            ``hand_order``, ...; default hand size 5 for 2–3 players, 4 for 4–5).

    Returns:
        A :class:`GameBatch`: ``scores`` per game, ``counters`` and :meth:`GameBatch.seat_metrics`
        per game and seat.

    Raises:
        TypeError: A policy that is neither a Policy nor a name, or an argument of the wrong
            type.
        ValueError: Fewer than 2 or more than 5 policies, an unknown name, ``games`` < 1,
            a seed outside ``[0, 2**62)``, ``workers`` < 1, an unknown ``ruleset``, a bad
            configuration field, ``hand_order="shift"`` with a reference agent, or a policy
            that asks for a hidden-card observation (``observation_type="seer"``).
        AgentFault: A policy's fault, as in :func:`play_games`.
    """
    check_choice("ruleset", ruleset, RULESETS)
    policies = _check_policies("policies", policies, names=True)
    if not 2 <= len(policies) <= 5:
        raise ValueError(f"policies must have 2 to 5 entries (one per seat), got {len(policies)}")
    games = check_int("games", games, 1)
    seed = check_seed("seed", seed)
    workers = check_workers("workers", workers)
    if "players" in config:
        raise TypeError("players is given by the number of policies, not as a keyword")
    players = len(policies)
    config.setdefault("hand_size", hle_hand_size(players))
    seated = [make(p, ruleset=ruleset) if isinstance(p, str) else p for p in policies]
    if any(isinstance(p, RuleAgent) and p.ruleset == "reference" for p in seated):
        config.setdefault("hand_order", "fixed")
    cfg = HanabiConfig(players=players, **config)
    _, deals, agent_seeds = game_seeds(seed, games, players, random_seat=False)
    seat_agents = np.tile(np.arange(players, dtype=np.int64), (games, 1))
    return play_games(
        seated,
        seat_agents,
        deals,
        agent_seeds,
        cfg,
        workers=workers,
        move_time_limit=move_time_limit,
    )


# --------------------------------------------------------------------------------------------
# mirror / mixed evaluation
# --------------------------------------------------------------------------------------------


@dataclass
class EvaluationResult:
    """Result of :func:`evaluate`.

    Attributes:
        agent: Name of the evaluated agent.
        mode: ``"mirror"`` or ``"mixed"``.
        scoring: ``"strict"`` or ``"lenient"``.
        players: Game sizes evaluated.
        games: Games per game size (and per pool partner in mixed mode).
        rows: One dict per (partner, players) cell: ``partner`` (``"self"`` in mirror mode),
            ``players``, ``games``, ``mean``, ``sem`` (points), and the evaluated agent's
            ``communicativeness``, ``ipp``, ``risk_aversion`` (NaN where undefined).
        mean: Overall fitness: mean over sizes (mirror), or mean over partners of the mean over
            sizes (mixed) — [CIG18], docs/papers.md §2.
        sem: Standard error of ``mean`` (propagated from the cells, which are independent).
        metrics: The evaluated agent's metrics over all its seats and games (ratio of sums).
        hand_sizes: Cards per hand at each game size played (``{players: hand size}``).
        hand_order: ``"shift"`` or ``"fixed"``, the hand order played.
        ruleset: The ruleset of the agents given by name.
    """

    agent: str
    mode: str
    scoring: str
    players: tuple[int, ...]
    games: int
    rows: list[dict] = field(default_factory=list)
    mean: float = math.nan
    sem: float = math.nan
    metrics: dict = field(default_factory=dict)
    hand_sizes: dict[int, int] = field(default_factory=dict)
    hand_order: str = "shift"
    ruleset: str = "corrected"

    def per_size(self) -> dict[int, tuple[float, float]]:
        """Mean ± s.e.m. per game size (over partners in mixed mode)."""
        out = {}
        for p in self.players:
            cells = [r for r in self.rows if r["players"] == p]
            means = np.array([r["mean"] for r in cells])
            sems = np.array([r["sem"] for r in cells])
            out[p] = (float(means.mean()), float(np.sqrt((sems**2).sum()) / len(cells)))
        return out

    def to_dict(self) -> dict:
        """JSON-serialisable dict (NaN becomes None)."""
        return json_ready(
            {
                "agent": self.agent,
                "mode": self.mode,
                "scoring": self.scoring,
                "players": list(self.players),
                "hand_sizes": {str(k): v for k, v in self.hand_sizes.items()},
                "hand_order": self.hand_order,
                "ruleset": self.ruleset,
                "games": self.games,
                "mean": self.mean,
                "sem": self.sem,
                "per_size": {str(k): list(v) for k, v in self.per_size().items()},
                "metrics": self.metrics,
                "rows": self.rows,
            }
        )


def _check_policies(name: str, policies: object, names: bool) -> list:
    """A non-empty list of policies (and agent names, unbuilt, when ``names``), checked up front."""
    what = "a sequence of policies" + (" or baseline names" if names else "")
    if isinstance(policies, (str, bytes, dict)) or not isinstance(policies, (Sequence, np.ndarray)):
        raise type_error(name, what, policies)
    out = list(policies)
    if not out:
        raise ValueError(f"{name}=[] is not allowed; allowed: at least one policy")
    for p in out:
        if isinstance(p, str) and names:
            continue  # built (and checked) once, by make_policy, where it is resolved
        if not isinstance(p, Policy):
            if name == "agent":
                raise type_error(name, "a Policy or a baseline name", p)
            raise TypeError(f"{name} must be {what}, got an element {type(p).__name__} {p!r:.60}")
    return out


def _int_array(name: str, value: object, ndim: int, lo: int, hi: int) -> np.ndarray:
    """``value`` as a C-contiguous int64 array of ``ndim`` dimensions, entries in [lo, hi]."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nesting
        raise TypeError(f"{name} must be an integer array ({exc})") from None
    if raw.dtype.kind not in "iu" and not (raw.size == 0 and raw.dtype.kind == "f"):
        raise TypeError(f"{name} must be an integer array, got dtype {raw.dtype}")
    if raw.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {raw.shape}")
    if raw.size and (int(raw.min()) < lo or int(raw.max()) > hi):
        bad = raw[(raw < lo) | (raw > hi)].flat[0]
        raise ValueError(f"{name} holds {int(bad)}, out of range; allowed: [{lo}, {hi}]")
    return np.ascontiguousarray(raw, dtype=np.int64)


@dataclass(frozen=True)
class EvaluationProtocol:
    """How :func:`evaluate` plays ([CIG18] mirror or mixed protocol; docs/rules.md §6).

    Every field is checked when the object is made (``__post_init__``, in this order) and
    stored in its plain type; :func:`evaluate`'s inner functions trust them.

    Attributes:
        mode: ``"mirror"`` or ``"mixed"``.
        players: Game sizes, each in 2..5 and once (a tuple).
        games: Games per size (per partner and size in mixed mode), >= 1 (memory-checked).
        scoring: ``"lenient"`` (the papers) or ``"strict"``.
        seed: Master seed, in ``[0, 2**62)``.
        workers: Parallel workers, as in :func:`play_games` (None = all local cores); results
            do not depend on it.
        hand_size: Cards per hand: an int in [2, 5] for every game size, a function of the
            player count, or None for the rulebook's (the default: 5 for 2–3 players, 4 for
            4–5; :func:`hanabi_env.config.game_hand_size`, docs/rules.md §0.1).
        progress: Show a tqdm progress bar.
        no_rule: ``"fallback"`` or ``"end_game"`` (strict-era emulation, :func:`play_games`).
        hand_order: ``"shift"`` (HLE), ``"fixed"`` (the Java framework's fixed slots; the
            only choice when a reference agent plays) or None (fixed for reference agents,
            else shift).
        ruleset: The ruleset of the agents given by name, ``"corrected"`` or ``"reference"``
            (docs/rules.md §12); ``"reference"`` whenever ``preset`` is set.
        preset: ``"cig18"``: [CIG18] Table III's setting (docs/rules.md §12.3; needs mixed
            mode and lenient scoring; the default pool becomes the 2018 pool), or None.
        move_time_limit: Seconds a policy played in Python may take per move (default 10 s;
            None or 0: no limit, stored as None).

    Raises:
        TypeError: A field of the wrong type (the message names it).
        ValueError: A field out of range (the message names it and what is allowed).
    """

    mode: str = "mirror"
    players: Sequence[int] = (2, 3, 4, 5)
    games: int = 100
    scoring: str = "lenient"
    seed: int = 0
    workers: int | None = None
    hand_size: int | Callable[[int], int] | None = hle_hand_size
    progress: bool = False
    no_rule: str = "fallback"
    hand_order: str | None = None
    ruleset: str = "corrected"
    preset: str | None = None
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT

    def __post_init__(self) -> None:
        """Check every field and store it in its plain type."""
        check_choice("mode", self.mode, ("mirror", "mixed"))
        check_choice("ruleset", self.ruleset, RULESETS)
        if self.preset is not None:
            check_preset(self.preset, self.mode, self.scoring)
            object.__setattr__(self, "ruleset", "reference")
        checked = {
            "players": check_int_sequence("players", self.players, 2, 5, what="player counts"),
            "games": check_games("games", check_int("games", self.games, 1)),
            "scoring": check_choice("scoring", self.scoring, SCORING_VARIANTS),
            "seed": check_seed("seed", self.seed),
            "workers": check_workers("workers", self.workers),
            "move_time_limit": check_move_time_limit("move_time_limit", self.move_time_limit),
        }
        _size_function(self.hand_size)
        checked["progress"] = check_bool("progress", self.progress)
        check_choice("no_rule", self.no_rule, ("fallback", "end_game"))
        if self.hand_order is not None:
            check_choice("hand_order", self.hand_order, HAND_ORDERS)
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    def size_of(self, players: int) -> int:
        """Cards per hand at ``players`` players (see :attr:`hand_size`)."""
        return int(_size_function(self.hand_size)(players))


def evaluate(
    agent: Policy | str,
    mode: str = "mirror",
    players: Sequence[int] = (2, 3, 4, 5),
    games: int = 100,
    pool: Sequence[Policy | str] = TEST_POOL,
    scoring: str = "lenient",
    seed: int = 0,
    workers: int | None = None,
    hand_size: int | Callable[[int], int] | None = hle_hand_size,
    progress: bool = False,
    no_rule: str = "fallback",
    hand_order: str | None = None,
    ruleset: str = "corrected",
    preset: str | None = None,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    *,
    protocol: EvaluationProtocol | None = None,
) -> EvaluationResult:
    """Mirror or mixed evaluation of ``agent`` ([CIG18], docs/papers.md §2; docs/rules.md §6).

    Mirror: every seat plays a copy of ``agent`` (separate generators per seat), ``games`` games
    per size. Mixed: for each partner in ``pool`` and each size, ``games`` games where the agent
    sits in a uniformly random seat and every other seat is a copy of the partner. Every
    individual evaluated with the same ``seed`` plays the same deals, seats and seat seeds
    (common random numbers).

    Args:
        agent: A policy or an agent name or spec (:func:`agents.registry.make_policy`).
        mode: :attr:`EvaluationProtocol.mode`, ``"mirror"`` or ``"mixed"``.
        players: :attr:`EvaluationProtocol.players`, game sizes in 2..5.
        games: :attr:`EvaluationProtocol.games`, games per size (and partner), >= 1.
        pool: Partners for mixed mode (policies or names); default the 7-agent test pool (the
            2018 pool with ``preset="cig18"``).
        scoring: :attr:`EvaluationProtocol.scoring`, ``"lenient"`` or ``"strict"``.
        seed: :attr:`EvaluationProtocol.seed`, the master seed.
        workers: :attr:`EvaluationProtocol.workers` (None = all local cores).
        hand_size: :attr:`EvaluationProtocol.hand_size` (int, function, or None).
        progress: :attr:`EvaluationProtocol.progress`, show a tqdm bar.
        no_rule: :attr:`EvaluationProtocol.no_rule`, ``"fallback"`` or ``"end_game"``.
        hand_order: :attr:`EvaluationProtocol.hand_order`, ``"shift"``, ``"fixed"`` or None.
        ruleset: :attr:`EvaluationProtocol.ruleset` of the agents given by name.
        preset: :attr:`EvaluationProtocol.preset`, ``"cig18"`` or None.
        move_time_limit: :attr:`EvaluationProtocol.move_time_limit`, seconds per move.
        protocol: The settings in one :class:`EvaluationProtocol`; the keywords ``mode`` …
            ``move_time_limit`` (not ``pool``) are its fields and build one when it is None
            (both ways are kept, no warning; pass one or the other).

    Returns:
        An :class:`EvaluationResult` (scores in points; metrics in [0, 1]).

    Raises:
        TypeError: An argument of the wrong type, or ``protocol`` with a setting keyword.
        ValueError: A bad setting (:class:`EvaluationProtocol`), ``hand_order="shift"`` with a
            reference agent, an unknown agent name, or an agent that asks for a hidden-card
            observation (``observation_type="seer"``: refused before any game).
        AgentFault: A policy's fault, as in :func:`play_games`; the game is its index in its
            (partner, size) cell.
    """
    given = settings_keywords("protocol", EvaluationProtocol, protocol, locals())
    proto = EvaluationProtocol(**given) if protocol is None else protocol
    if proto.preset is not None and pool is TEST_POOL:
        pool = tuple(CIG18_POOL)
    (agent,) = _check_policies("agent", [agent], names=True)
    pool = _check_policies("pool", pool, names=True) if proto.mode == "mixed" else pool
    agent = _resolve(agent, proto)
    partners = [_resolve(p, proto) for p in pool] if proto.mode == "mixed" else [None]
    reference = any(
        isinstance(p, RuleAgent) and p.ruleset == "reference" for p in [agent, *partners]
    )
    if reference and proto.hand_order == "shift":
        raise ValueError(
            "hand_order='shift' cannot be used with ruleset='reference' agents, which need the "
            "Java framework's fixed hand slots (hand_order='fixed', the default for them)"
        )
    hand_order = proto.hand_order or hand_order_of("reference" if reference else None)
    return _evaluate_cells(agent, partners, proto, hand_order)


def _resolve(agent: Policy | str, proto: EvaluationProtocol) -> Policy:
    """A policy, or the policy a name or spec names (in the protocol's ruleset and preset)."""
    if isinstance(agent, Policy):
        return agent
    return make_policy(agent, ruleset=proto.ruleset, preset=proto.preset)


def _evaluate_cells(
    agent: Policy, partners: list, proto: EvaluationProtocol, hand_order: str
) -> EvaluationResult:
    """Every (partner, game size) cell of :func:`evaluate`, and the overall result."""
    players = tuple(proto.players)
    bar = None
    if proto.progress:
        from tqdm.auto import tqdm

        total = proto.games * len(players) * len(partners)
        bar = tqdm(total=total, desc=f"{agent.name} {proto.mode}", unit="game")
    result = EvaluationResult(
        agent.name,
        proto.mode,
        proto.scoring,
        players,
        int(proto.games),
        hand_sizes={p: proto.size_of(p) for p in players},
        hand_order=hand_order,
        ruleset=proto.ruleset,
    )
    sums = np.zeros(E.N_COUNTERS)
    try:
        for partner in partners:
            for p in players:
                cfg = HanabiConfig(
                    players=p, hand_size=proto.size_of(p), scoring=proto.scoring,
                    hand_order=hand_order,
                )  # fmt: skip
                row, counters = _evaluate_cell(agent, partner, cfg, proto, bar)
                result.rows.append(row)
                sums += counters
    finally:
        if bar is not None:
            bar.close()
    result.mean, result.sem = _overall(result.rows, partners)
    result.metrics = _metrics_of_sums(sums)
    return result


def _size_function(hand_size: object) -> Callable[[int], int]:
    """``evaluate``'s ``hand_size`` as a function of the player count (None: the rulebook's).

    Raises:
        TypeError, ValueError: Not an int in [2, 5], a function or None.
    """
    if hand_size is None:
        return game_hand_size
    if is_int(hand_size):
        fixed_size = check_int("hand_size", hand_size, 2, 5)
        return lambda _players: fixed_size
    if callable(hand_size):
        return hand_size  # type: ignore[return-value]
    raise type_error("hand_size", "an int in [2, 5] or a function of the player count", hand_size)


def _evaluate_cell(
    agent: Policy, partner: Policy | None, cfg: HanabiConfig, proto: EvaluationProtocol, bar
) -> tuple[dict, np.ndarray]:
    """One cell of :func:`evaluate` (a partner at a game size): its row and the agent's counters.

    ``partner`` None: mirror (every seat ``agent``); else ``agent`` in a random seat. The
    protocol was checked by :func:`evaluate`: the seeds and games are played unchecked.
    """
    p, games = cfg.players, proto.games
    seats, deals, agent_seeds = _game_seeds(proto.seed, games, p, proto.mode == "mixed")
    if partner is None:
        policies = [agent]
        seat_agents = np.zeros((games, p), dtype=np.int64)
    else:
        policies = [agent, partner]
        seat_agents = np.ones((games, p), dtype=np.int64)
        seat_agents[np.arange(games), seats] = 0
    _check_reference_config(policies, cfg)
    check_policy_observations(policies, cfg)
    batch = _play_checked(
        policies,
        (seat_agents, deals, agent_seeds),
        cfg,
        _Play(
            workers=default_workers() if proto.workers is None else proto.workers,
            progress=bar.update if bar is not None else None,
            no_rule=proto.no_rule,
            limit=proto.move_time_limit,
        ),
    )
    m = batch.metrics(agent=0)
    row = {
        "partner": "self" if partner is None else partner.name,
        "players": p,
        "hand_size": cfg.hand_size,
        "games": int(games),
        "mean": float(batch.scores.mean()),
        "sem": sem(batch.scores),
        "communicativeness": m["communicativeness"],
        "ipp": m["ipp"],
        "risk_aversion": m["risk_aversion"],
    }
    return row, batch.counters[batch.seat_agents == 0].sum(axis=0)


def _overall(rows: list[dict], partners: Sequence[Policy | None]) -> tuple[float, float]:
    """Mean and s.e.m. over sizes per partner, then over partners (cells are independent)."""
    per_partner = []
    per_partner_var = []
    for partner in partners:
        name = "self" if partner is None else partner.name
        cells = [r for r in rows if r["partner"] == name]
        per_partner.append(np.mean([r["mean"] for r in cells]))
        per_partner_var.append(sum(r["sem"] ** 2 for r in cells) / len(cells) ** 2)
    return float(np.mean(per_partner)), float(np.sqrt(sum(per_partner_var)) / len(per_partner))


# names moved to agents.rule_games in 0.1.0: importable from here until 0.3.0, with a warning
__getattr__ = moved_to(
    __name__,
    "agents.rule_games",
    ("play_rule_table", "kernel_scratch", "play_rule_games_kernel"),
    "0.3.0",
)
