"""The lockstep player: a pool of rule agents and batch policies plays many games at once.

All games of a chunk advance together (a :class:`hanabi_env.batch.Batch`). One step:

1. a kernel (:func:`advance_rules`) plays every game forward while its seat to move is a rule
   agent (the compiled rules, as :func:`agents.rule_games.play_rule_games_kernel` plays them),
   and reports which policy each unfinished game now waits for;
2. for each batch policy (:class:`agents.batch.BatchPolicy`), every game waiting for it is
   observed in one kernel call (observations, legal masks, one draw per decision from the
   seat's generator) and decided in **one** :meth:`~agents.batch.BatchPolicy.act_batch` call;
3. their moves are applied in one kernel call;

until every game is over. Python runs once per step and batch policy, never per game. In a
game with fixed hand slots a batch policy sees every hand in age order and its play or discard
slot is mapped back to the game's (:mod:`agents.hand_order`, :func:`agents.batch.shows_age_order`),
as on the per-game path.

Results equal the per-game path (:func:`agents.policy.play_out` with each policy's ``act``) on
the same seeds, by construction: deals and seat seeds are per game (never per batch), every
seat draws from its own generator (rule agents and batch policies alike), and a batch policy's
``act`` draws from the same stream as the lockstep player (tests check it). So results do not
depend on the chunk size either.

Source: the design of the batched paths (docs/architecture.md §3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents import hand_order as HO
from agents import rules as R
from agents.batch import (
    BatchPolicy,
    check_policy_observations,
    policy_observation_type,
    shows_age_order,
)
from agents.faults import (
    DEFAULT_MOVE_TIME_LIMIT,
    agent_label,
    call_policy,
    check_move_time_limit,
    check_moves,
)
from agents.policy import Policy, RuleAgent
from agents.rule_games import apply_rule_choice, rule_table
from agents.rules import reference as RR
from hanabi_env import batch as B
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import PlayerView
from hanabi_env.jit import njit
from hanabi_env.rng import rng_next, rng_seed

__all__ = ["CHUNK", "advance_rules", "lockstep_playable", "play_lockstep"]

CHUNK = 2048
"""Games per lockstep batch (bounds memory: about 10 KB per game)."""


def lockstep_playable(policies: Sequence[Policy]) -> bool:
    """Whether the lockstep player plays this pool: rule agents and batch policies only.

    At least one batch policy: an all-rule pool plays in the rule-game kernel.
    """
    kinds = [isinstance(p, (RuleAgent, BatchPolicy)) for p in policies]
    return all(kinds) and any(isinstance(p, BatchPolicy) for p in policies)


@njit(_nrt=False, nogil=True)
def seed_seats(rngs, agent_seeds):
    """Seed every game's seat generators: ``rngs[g, p]`` from ``agent_seeds[g, p]``."""
    for g in range(agent_seeds.shape[0]):
        for p in range(agent_seeds.shape[1]):
            rng_seed(rngs[g, p], agent_seeds[g, p])


@njit(_nrt=False, nogil=True)
def advance_rules(
    b,
    games,
    mask,
    tab,
    rngs,
    table,
    lens,
    modes,
    is_rule,
    seat_agents,
    out_actions,
    waiting_out,
):
    """Play games ``games`` forward while a rule agent is to move; report who moves next.

    Args:
        b: The :class:`~hanabi_env.batch.Batch`.
        games: ``(k,)`` int64 game indices.
        mask: ``(n_actions,)`` int8 scratch.
        tab: The rules' scratch table (:func:`agents.rules.scratch_shape`).
        rngs: ``(n_games, players, 4)`` int64 seat generators.
        table: ``(n_policies, max_rules)`` int64 rule ids (:func:`agents.rule_games.rule_table`
            of every policy; rows of batch policies are never read).
        lens: ``(n_policies,)`` int64 rule-list lengths.
        modes: ``(n_policies,)`` int64 agent modes (``agents.rules.reference.MODE_*``).
        is_rule: ``(n_policies,)`` int64, 1 for rule agents.
        seat_agents: ``(n_games, players)`` int64 policy index per seat.
        out_actions: ``(n_games, max_moves)`` int16 move record, or a ``(0, 0)`` array.
        waiting_out: ``(k,)`` int64: the policy index the game now waits for, -1 if over.

    Returns:
        The number of moves played.
    """
    moves = 0
    record = out_actions.shape[0] == seat_agents.shape[0]
    for j in range(games.shape[0]):
        g = games[j]
        s = B.game_at(b, g)
        v = V.live_view(s)
        while not s.scal[E.S_DONE]:
            cur = s.scal[E.S_CUR]
            agent = seat_agents[g, cur]
            if is_rule[agent] == 0:
                break
            V.refresh_live_view(s, cur)
            action = RR.choose_by_mode(
                table[agent], lens[agent], v, rngs[g, cur], mask, tab, modes[agent]
            )
            if not apply_rule_choice(s, action, record, out_actions, g):
                break
            moves += 1
        waiting_out[j] = -1 if s.scal[E.S_DONE] else seat_agents[g, s.scal[E.S_CUR]]
    return moves


@njit(_nrt=False, nogil=True)
def _seats_and_draws(b, games, rngs, seats_out, draws_out):
    """The seat to move of each game and one uniform draw from that seat's generator."""
    for j in range(games.shape[0]):
        g = games[j]
        seat = b.scal[g, E.S_CUR]
        seats_out[j] = seat
        draws_out[j] = rng_next(rngs[g, seat]) / 4294967296.0


def play_lockstep(
    policies: Sequence[Policy],
    seat_agents: np.ndarray,
    deal_seeds: np.ndarray,
    agent_seeds: np.ndarray,
    config: HanabiConfig,
    record_actions: bool = False,
    chunk: int = CHUNK,
    progress: Callable[[int], None] | None = None,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray | None]:
    """Play games of rule agents and batch policies in lockstep batches (module docstring).

    Arguments as :func:`agents.evaluate.play_games` (checked there); ``chunk`` games play
    together (results do not depend on it).

    A batch policy's fault ends the run (docs/reliability.md §9): an exception in
    ``act_batch``, an answer that is not a ``(B,)`` array of integer move ids each legal for its
    game (a float or bool dtype, another shape, ``None``, an id out of range or illegal; nothing
    is rounded), or a call of ``B`` decisions slower than ``B * move_time_limit`` seconds
    (default :data:`~agents.faults.DEFAULT_MOVE_TIME_LIMIT`, 10 s per move; None or 0: no
    limit) raises :class:`~agents.faults.AgentFault` naming the policy, the game (its index in
    ``deal_seeds``) and the move. A batch policy that asks for an observation a policy may not
    take (``"seer"``) is refused before any game.

    Returns:
        ``(scores, counters, moves, actions)``: ``(n,)`` int64 points, ``(n, players,
        N_COUNTERS)`` float64 counters, the number of moves, and ``(n, max_moves)`` int16 move
        uids (-1 padded) when ``record_actions``, else None.

    Raises:
        TypeError: A policy that is neither a rule agent nor a batch policy.
        ValueError: A batch policy that asks for a hidden-card observation
            (:func:`agents.batch.policy_observation_type`), or a bad ``move_time_limit``.
        AgentFault: A batch policy's fault (above).
    """
    if not all(isinstance(p, (RuleAgent, BatchPolicy)) for p in policies):
        raise TypeError("play_lockstep plays rule agents and batch policies only")
    limit = check_move_time_limit("move_time_limit", move_time_limit)
    check_policy_observations(policies, config)
    n = len(deal_seeds)
    scores = np.zeros(n, dtype=np.int64)
    counters = np.zeros((n, config.players, E.N_COUNTERS), dtype=np.float64)
    max_moves = E.max_moves_of(
        config.players, config.colors, config.ranks, config.max_information_tokens
    )
    actions = np.full((n, max_moves), -1, dtype=np.int16) if record_actions else None
    player = _Player(policies, config, limit)
    moves = 0
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        rec = actions[lo:hi] if actions is not None else np.zeros((0, 0), dtype=np.int16)
        sc, cn, mv = player.play(
            seat_agents[lo:hi], deal_seeds[lo:hi], agent_seeds[lo:hi], rec, offset=lo
        )
        scores[lo:hi], counters[lo:hi] = sc, cn
        moves += mv
        if progress is not None:
            progress(hi - lo)
    return scores, counters, moves, actions


class _Player:
    """The tables and scratch of one pool, reused by every chunk."""

    def __init__(self, policies: Sequence[Policy], config: HanabiConfig, limit: float | None):
        self.policies = list(policies)
        self.names = [agent_label(p) for p in policies]
        self.config = config
        self.limit = limit
        self.offset = 0  # the chunk's first game in the run (a fault names the run's game)
        rule_lists = [
            p.rules if isinstance(p, RuleAgent) else np.zeros(1, np.int64) for p in policies
        ]
        modes = [p.mode if isinstance(p, RuleAgent) else RR.MODE_FALLBACK for p in policies]
        self.table, self.lens, self.modes = rule_table(rule_lists, modes)
        self.is_rule = np.array([isinstance(p, RuleAgent) for p in policies], dtype=np.int64)
        one = E.new_state(config)
        self.cfg = one.cfg
        self.mask = np.zeros(int(one.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
        self.tab = np.zeros(R.scratch_shape(one.cfg), dtype=np.int64)
        self.batched = [k for k, p in enumerate(policies) if isinstance(p, BatchPolicy)]
        self.by_age = [shows_age_order(p, one.cfg) for p in policies]
        self._view_buf: V.View | None = None

    def play(
        self, seat_agents, deals, agent_seeds, rec, offset: int = 0
    ) -> tuple[np.ndarray, np.ndarray, int]:
        n = len(deals)
        self.offset = offset
        b = B.new_batch(self.config, n)
        all_games = np.arange(n, dtype=np.int64)
        B.reset_games(b, all_games, np.ascontiguousarray(deals, dtype=np.int64), False)
        rngs = np.zeros((n, self.config.players, 4), dtype=np.int64)
        seed_seats(rngs, np.ascontiguousarray(agent_seeds, dtype=np.int64))
        for k in self.batched:
            pol = self.policies[k]
            if isinstance(pol, BatchPolicy) and pol.needs_views:
                pol.start_games(np.array(agent_seeds, dtype=np.int64))
        seat_agents = np.ascontiguousarray(seat_agents, dtype=np.int64)
        live = all_games
        waiting = np.zeros(n, dtype=np.int64)
        moves = 0
        while len(live):
            moves += advance_rules(
                b, live, self.mask, self.tab, rngs, self.table, self.lens, self.modes,
                self.is_rule, seat_agents, rec, waiting[: len(live)],
            )  # fmt: skip
            who = waiting[: len(live)]
            for k in self.batched:
                games = live[who == k]
                if len(games):
                    moves += self._decide(k, b, games, rngs, rec)
            live = live[who >= 0]
        return b.scores(), b.counters.copy(), moves

    def _view(self, b: B.Batch, g: int, seat: int) -> PlayerView:
        """The :class:`~hanabi_env.PlayerView` of ``seat`` in game ``g`` (a copy)."""
        s = E.state_over(b.cfg, b.scal[g], b.deck[g], b.counters[g], b.rng[g], b.packed[g])
        if self._view_buf is None:
            self._view_buf = V.new_view(s)
        V.fill_view(s, seat, self._view_buf, False)
        return PlayerView(self._view_buf)

    def _decide(self, k: int, b: B.Batch, games: np.ndarray, rngs, rec) -> int:
        """One ``act_batch`` call for every game in ``games`` (all waiting for policy ``k``)."""
        pol = self.policies[k]
        assert isinstance(pol, BatchPolicy)
        obs_type = V.OBSERVATION_TYPES[policy_observation_type(pol, self.cfg)]
        m = len(games)
        obs = np.zeros((m, V.observation_size(self.cfg, obs_type)), dtype=pol.observation_dtype)
        mask = np.zeros((m, len(self.mask)), dtype=np.int8)
        seats = np.zeros(m, dtype=np.int64)
        draws = np.zeros(m, dtype=np.float64)
        _seats_and_draws(b, games, rngs, seats, draws)
        B.observe_games(b, games, seats, obs_type, obs, mask)
        if self.by_age[k]:  # a fixed-slot game shown in age order (agents.hand_order)
            obs, mask, order = HO.show_by_age(
                obs, mask, self.cfg, seats, HO.hands_of_batch(b, games)
            )
        run_games = games + self.offset  # each decision's game in the run, for a fault
        move_ids = b.scal[games, E.S_N_MOVES].astype(np.int64)
        where = {"game": int(run_games[0]), "move": int(move_ids[0]), "moves": m}
        name = self.names[k]
        if pol.needs_views:
            views = [self._view(b, int(g), int(p)) for g, p in zip(games, seats, strict=True)]
            act_views: Any = pol.act_batch  # its signature adds views= and games=
            answer = call_policy(
                name, act_views, obs, mask, seats, draws, views=views, games=games,
                limit=self.limit, **where,
            )  # fmt: skip
        else:
            answer = call_policy(
                name, pol.act_batch, obs, mask, seats, draws, limit=self.limit, **where
            )
        acts = check_moves(name, answer, mask, run_games, move_ids)
        if self.by_age[k]:
            acts = HO.moves_to_game(acts, order, int(self.cfg[E.CFG_HAND]))
        if len(rec):
            rec[games, move_ids] = acts
        bad = B.apply_actions(b, games, acts, np.zeros(m, dtype=np.float64))
        if bad >= 0:  # pragma: no cover - check_moves found every illegal move
            raise RuntimeError(f"the engine refused move {int(acts[bad])} that the mask allowed")
        return m
