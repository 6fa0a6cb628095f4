"""The compiled rule-game loop: whole games of rule agents in one kernel, no Python per move.

* :func:`play_rule_games_kernel` plays a chunk of games, engine and rules together
  (docs/architecture.md §3); it releases the GIL, so threads run chunks in parallel.
* :func:`rule_table` packs rule lists into the kernel's table; :func:`kernel_scratch` allocates
  the state and scratch arrays every compiled game loop takes.
* :func:`play_rule_chunk` and :func:`play_rule_table` are the Python entries: one chunk of
  games from prepared tables. :mod:`agents.backend` spreads chunks over threads, processes or
  Dask; :func:`agents.evaluate.play_games` and :mod:`meta` reach the kernel through them.

Seeds and protocols live in :mod:`agents.evaluate`; this module only plays what it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents import rules as R
from agents.rules import reference as RR
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.jit import njit
from hanabi_env.rng import rng_seed

__all__ = [
    "apply_rule_choice",
    "kernel_scratch",
    "play_rule_chunk",
    "play_rule_games_kernel",
    "play_rule_table",
    "rule_table",
]


@njit(inline="always")
def apply_rule_choice(s, action, record, out_actions, g):
    """Play a rule agent's ``action`` in game state ``s``; False when the rules end the game.

    A negative ``action`` is the strict era's or the reference ruleset's end of the game
    (:func:`agents.rules.reference.count_final_turn` counts it, the game is marked done);
    otherwise the move is recorded in ``out_actions[g]`` when ``record`` and applied.
    """
    if action < 0:  # the strict era or the reference ended the game here
        RR.count_final_turn(s, action)
        s.scal[E.S_DONE] = 1
        return False
    if record:
        out_actions[g, s.scal[E.S_N_MOVES]] = action
    E.apply_move(s, action)
    return True


@njit(_nrt=False, nogil=True)
def play_rule_games_kernel(
    s,
    mask,
    tab,
    rngs,
    rule_table,
    rule_lens,
    seat_agents,
    deal_seeds,
    agent_seeds,
    out_scores,
    out_counters,
    out_actions,
    agent_modes,
    stop_group,
    stop_need,
    stop_left,
):
    """Play ``len(deal_seeds)`` games of rule agents entirely in compiled code.

    Args:
        s: A :class:`hanabi_env.engine.State` for the configuration (its scoring variant is used).
        mask: ``(n_actions,)`` int8 scratch.
        tab: ``(agents.rules.TAB_ROWS, W)`` int64 scratch table of the rules
            (:func:`agents.rules.scratch_shape`).
        rngs: ``(n_players, 4)`` int64 scratch for the seats' generators.
        rule_table: ``(n_agents, max_rules)`` int64 rule ids per agent.
        rule_lens: ``(n_agents,)`` int64 rule-list lengths.
        seat_agents: ``(n_games, n_players)`` int64, which agent sits in each seat.
        deal_seeds: ``(n_games,)`` int64 deal seeds.
        agent_seeds: ``(n_games, n_players)`` int64 per-seat agent seeds.
        out_scores: ``(n_games,)`` int64 final scores (written).
        out_counters: ``(n_games, n_players, N_COUNTERS)`` float64 counters (written).
        out_actions: ``(n_games, max_moves)`` int16 move uids, -1 padded, written when it has
            ``n_games`` rows (pass a ``(0, 0)`` array not to record).
        agent_modes: ``(n_agents,)`` int64, how each agent's rule list becomes a move
            (:mod:`agents.rules.reference`): ``MODE_FALLBACK`` (corrected rules, random legal
            fallback), ``MODE_END_GAME`` (corrected rules; a turn on which no rule fires ends
            the game at the current score, the reference's strict era, docs/rules.md §2.9),
            ``MODE_HISTOGRAM`` or ``MODE_PRODUCTION`` (reference rules and wrappers, docs/rules.md
            §12.2: the game may end early as it did in the reference).
        stop_group: ``(n_games,)`` int64 group of each game, to stop a group's games early
            (pass a ``(0,)`` array to play every game). A group's games are consecutive; the
            kernel adds up their scores and skips the group's remaining games (score -1,
            counters 0) once the answer to "does the group total reach ``stop_need``?" is
            certain: the total already reaches it (scores are never negative), or it cannot
            even with ``stop_left`` more points.
        stop_need: ``(n_groups,)`` int64 total each group must reach (points).
        stop_left: ``(n_games,)`` int64 the most points a group can still score from game
            ``g`` on (``g`` included).

    Returns:
        Total number of moves played.
    """
    n_players = s.cfg[E.CFG_PLAYERS]
    # Releases the GIL (``nogil``): threads may play chunks in parallel (qd.ThreadBackend).
    # Compiled without reference counting (``_nrt=False``, like the rule kernels): the view's
    # arrays go to the rules on every decision. So nothing here allocates; the view is the
    # state's packed public buffer, whose view area holds the acting seat's scalars and cards.
    v = V.live_view(s)
    moves = 0
    record = out_actions.shape[0] == deal_seeds.shape[0]
    stopping = stop_group.shape[0] == deal_seeds.shape[0]
    group = -1
    total = 0
    for g in range(deal_seeds.shape[0]):
        if stopping:
            if stop_group[g] != group:
                group = stop_group[g]
                total = 0
            need = stop_need[group]
            if total >= need or total + stop_left[g] < need:
                out_scores[g] = -1  # the group's answer is already certain
                continue
        E.reset_state(s, deal_seeds[g], False)
        for p in range(n_players):
            rng_seed(rngs[p], agent_seeds[g, p])
        while not s.scal[E.S_DONE]:
            cur = s.scal[E.S_CUR]
            V.refresh_live_view(s, cur)
            agent = seat_agents[g, cur]
            action = RR.choose_by_mode(
                rule_table[agent], rule_lens[agent], v, rngs[cur], mask, tab, agent_modes[agent]
            )
            if not apply_rule_choice(s, action, record, out_actions, g):
                break
            moves += 1
        out_scores[g] = E.score(s)
        total += out_scores[g]
        for p in range(n_players):
            for i in range(s.counters.shape[1]):
                out_counters[g, p, i] = s.counters[p, i]
    return moves


def rule_table(
    rule_lists: Sequence[np.ndarray], modes: Sequence[int] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's rule table, rule-list lengths and agent modes.

    Returns ``(n, L)`` int64 compiled rule ids (padded), ``(n,)`` lengths and ``(n,)`` int64
    agent modes (``agents.rules.reference.MODE_*``; default ``MODE_FALLBACK``, corrected rules).

    ``rule_lists`` are compiled rule ids (e.g. ``RuleAgent.rules``), not checked here.
    """
    # A repeated rule never fires at its later places: it sees the same view as at its first
    # place, where it did not fire, and a rule that does not fire draws nothing. The kernel
    # therefore gets each list without its repeats (same games, fewer rule calls).
    lists = [list(dict.fromkeys(np.asarray(r).tolist())) for r in rule_lists]
    table = np.zeros((len(lists), max(len(r) for r in lists)), dtype=np.int64)
    lens = np.zeros(len(lists), dtype=np.int64)
    for i, rules in enumerate(lists):
        table[i, : len(rules)] = rules
        lens[i] = len(rules)
    if modes is None:
        mode_arr = np.full(len(lists), RR.MODE_FALLBACK, dtype=np.int64)
    else:
        mode_arr = np.asarray(modes, dtype=np.int64).reshape(len(lists))
    return table, lens, mode_arr


_NO_STOP = (np.zeros(0, np.int64),) * 3


def kernel_scratch(cfg: HanabiConfig) -> tuple[E.State, np.ndarray, np.ndarray, np.ndarray]:
    """A fresh state of ``cfg`` and the scratch arrays every compiled game loop takes.

    Returns:
        The (un-dealt) state, the ``(n_actions,)`` int8 legal mask, the rules' ``(TAB_ROWS, W)``
        int64 scratch table (:func:`agents.rules.scratch_shape`) and the ``(players, 4)`` int64
        generator states of the seats: the first four arguments of
        :func:`play_rule_games_kernel` and :func:`meta._kernels.play_response_games_kernel`.
    """
    s = E.new_state(cfg)
    mask = np.zeros(int(s.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
    tab = np.zeros(R.scratch_shape(s.cfg), dtype=np.int64)
    rngs = np.zeros((cfg.players, 4), dtype=np.int64)
    return s, mask, tab, rngs


def play_rule_chunk(
    cfg: HanabiConfig,
    table: np.ndarray,
    lens: np.ndarray,
    modes: np.ndarray,
    seat_agents: np.ndarray,
    deals: np.ndarray,
    agent_seeds: np.ndarray,
    record: bool,
    stop: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """One chunk of rule-agent games in the compiled kernel, in this thread (no checks).

    A backend task (module-level, so picklable): :func:`play_rule_table` with ``record``
    (the move uids of every game) and without argument defaults.

    Returns:
        ``(scores, counters, moves, actions)`` as in :class:`agents.evaluate.GameBatch`;
        ``actions`` is ``(n_games, max_moves)`` int16 if ``record``, else ``(0, 0)``.
    """
    s, mask, tab, rngs = kernel_scratch(cfg)
    scores = np.zeros(len(deals), dtype=np.int64)
    counters = np.zeros((len(deals), cfg.players, E.N_COUNTERS), dtype=np.float64)
    shape = (len(deals), int(s.cfg[E.CFG_MAX_MOVES])) if record else (0, 0)
    actions = np.full(shape, -1, dtype=np.int16)
    moves = play_rule_games_kernel(
        s,
        mask,
        tab,
        rngs,
        table,
        lens,
        seat_agents,
        deals,
        agent_seeds,
        scores,
        counters,
        actions,
        modes,
        *(_NO_STOP if stop is None else stop),
    )
    return scores, counters, int(moves), actions


def play_rule_table(
    config: HanabiConfig,
    table: np.ndarray,
    lens: np.ndarray,
    modes: np.ndarray,
    seat_agents: np.ndarray,
    deal_seeds: np.ndarray,
    agent_seeds: np.ndarray,
    stop: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Play rule-agent games in this thread from a prepared :func:`rule_table` (no checks).

    The lowest-overhead entry to the compiled evaluator, for callers that play many small
    batches (the MAP-Elites backends). Arguments as :func:`agents.evaluate.play_games`, with
    ``table, lens`` and ``modes`` (:func:`rule_table`) indexed by ``seat_agents``; int64
    C-contiguous arrays. The kernel releases the GIL.

    ``stop = (group, need, left)`` stops groups of games early, once it is certain whether
    each group's total score reaches ``need`` (see :func:`play_rule_games_kernel`); skipped
    games score -1 with zero counters. The MAP-Elites incumbent replays use it.

    Returns:
        ``(scores, counters, moves)`` as in :class:`agents.evaluate.GameBatch`.
    """
    scores, counters, moves, _ = play_rule_chunk(
        config, table, lens, modes, seat_agents, deal_seeds, agent_seeds, False, stop
    )
    return scores, counters, moves
