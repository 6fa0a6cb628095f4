"""Compiled kernel of the meta-agent evaluation: games of the [ToG20] response-table agent.

:func:`play_response_games_kernel` plays 2-player games of rule agents in which seat 0 is the
response-table meta-agent of :mod:`meta.response` (``response-adaptive``): it re-chooses its
response at the start of the game and at each of its turns from the partner's counters observed
so far (the episode's earlier games plus this game's partner moves), exactly as
:meth:`meta.response.ResponseMetaAgent.act` does, and a switch re-seeds the seat's generator
with the game's seat-0 seed (what ``responses[new].reset(game_seed)`` does in Python).

Everything else of the meta-agent evaluation (the Bayesian variants and the response-table
variants whose response is fixed for a game) runs through the rule-game kernel of
:mod:`agents.rule_games`; :mod:`meta.compiled` drives both.

This file defines kernels: ``hanabi_env.jit.kernel_sources()`` finds it (it imports the
``hanabi_env.jit`` decorators), so a change here gives a fresh kernel cache.
"""

from __future__ import annotations

from agents.rules import reference as RR
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import njit
from hanabi_env.rng import rng_seed

__all__ = ["N_OBSERVED", "play_response_games_kernel", "response_choice"]

N_OBSERVED = 5
"""Columns of the kernel's observed-counter rows: hint opportunities, hints, plays, Σ known
attributes, moves (the partner's; :class:`meta.bayes.Window`)."""


@njit(inline="always")
def response_choice(opps, hints, plays, known, moves, threshold, niche_table, generalist):
    """The response :meth:`meta.response.ResponseMetaAgent._choose` picks (adaptive variant).

    Args:
        opps: The partner's observed hint opportunities (int).
        hints: Its observed hints (int).
        plays: Its observed plays (int).
        known: Σ attributes it knew about its played cards (int).
        moves: Its observed moves (int).
        threshold: Confidence threshold in observed partner moves; < 0 means never (None).
        niche_table: ``(d1, d2)`` int64 response of each niche.
        generalist: The Generalist's response index.

    Returns:
        The Generalist while fewer than ``threshold`` moves were observed or the estimate is
        undefined (no hint opportunity or no play), else the response of the estimated niche
        (bin(v) = min(max(int(v · d), 0), d − 1), as :func:`meta.response.niche_of`).
    """
    if threshold < 0 or moves < threshold or opps == 0 or plays == 0:
        return generalist
    d1 = niche_table.shape[0]
    d2 = niche_table.shape[1]
    comm = hints / opps
    ipp = known / (2 * plays)
    i = min(max(int(comm * d1), 0), d1 - 1)
    j = min(max(int(ipp * d2), 0), d2 - 1)
    return niche_table[i, j]


@njit(_nrt=False, nogil=True)
def play_response_games_kernel(
    s,
    mask,
    tab,
    rngs,
    rule_table,
    rule_lens,
    agent_modes,
    partner_agents,
    deal_seeds,
    agent_seeds,
    observed,
    niche_table,
    threshold,
    generalist,
    out_scores,
    out_counters,
    out_responses,
    out_credit,
):
    """Play games with the [ToG20] response-table agent in seat 0 and a rule agent in seat 1.

    Seat 0 plays rows ``0 .. nR-1`` of ``rule_table`` (the responses, in the table's order);
    before each of its moves it takes :func:`response_choice` of ``observed[g]`` plus the
    partner's counters of this game so far, and on a change of response re-seeds its generator
    with ``agent_seeds[g, 0]``. Each partner move is credited to the response that made seat
    0's previous move (:attr:`meta.response.NicheRecord.by_response`).

    Args:
        s: A 2-player :class:`hanabi_env.engine.State` (its scoring variant is used).
        mask: ``(n_actions,)`` int8 scratch.
        tab: ``(agents.rules.TAB_ROWS, W)`` int64 scratch (:func:`agents.rules.scratch_shape`).
        rngs: ``(2, 4)`` int64 scratch for the seats' generators.
        rule_table: ``(n_agents, max_rules)`` int64 rule ids (:func:`agents.rule_games.rule_table`).
        rule_lens: ``(n_agents,)`` int64 rule-list lengths.
        agent_modes: ``(n_agents,)`` int64 agent modes (``agents.rules.reference.MODE_*``).
        partner_agents: ``(n_games,)`` int64 row of ``rule_table`` in seat 1.
        deal_seeds: ``(n_games,)`` int64 deal seeds.
        agent_seeds: ``(n_games, 2)`` int64 per-seat seeds.
        observed: ``(n_games, N_OBSERVED)`` int64 the partner's counters observed before the
            game (the episode's earlier games).
        niche_table: ``(d1, d2)`` int64 response of each niche
            (:func:`meta.response.niche_responses`).
        threshold: int, observed partner moves before leaving the Generalist (< 0: never).
        generalist: int, the Generalist's response index.
        out_scores: ``(n_games,)`` int64 final scores (written).
        out_counters: ``(n_games, N_COUNTERS)`` float64 the partner's counters (written).
        out_responses: ``(n_games,)`` int64 the response in use at the end (written).
        out_credit: ``(n_games, nR, 4)`` int64, zeroed by the caller: the partner's hint
            opportunities, hints, plays and Σ known attributes credited to each response.

    Returns:
        Total number of moves played.
    """
    v = V.live_view(s)
    moves = 0
    for g in range(deal_seeds.shape[0]):
        E.reset_state(s, deal_seeds[g], False)
        for p in range(2):
            rng_seed(rngs[p], agent_seeds[g, p])
        base = observed[g]
        resp = response_choice(
            base[0], base[1], base[2], base[3], base[4], threshold, niche_table, generalist
        )
        c = s.counters[1]
        while not s.scal[E.S_DONE]:
            cur = s.scal[E.S_CUR]
            if cur == 0:
                new = response_choice(
                    base[0] + int(c[E.C_HINT_OPPORTUNITIES]),
                    base[1] + int(c[E.C_HINTS_GIVEN]),
                    base[2] + int(c[E.C_PLAYS]),
                    base[3] + int(c[E.C_SUM_KNOWN_ATTRS]),
                    base[4] + int(c[E.C_TURNS]),
                    threshold,
                    niche_table,
                    generalist,
                )
                if new != resp:
                    resp = new
                    rng_seed(rngs[0], agent_seeds[g, 0])
                agent = resp
            else:
                agent = partner_agents[g]
            o0 = c[E.C_HINT_OPPORTUNITIES]
            o1 = c[E.C_HINTS_GIVEN]
            o2 = c[E.C_PLAYS]
            o3 = c[E.C_SUM_KNOWN_ATTRS]
            V.refresh_live_view(s, cur)
            action = RR.choose_by_mode(
                rule_table[agent], rule_lens[agent], v, rngs[cur], mask, tab, agent_modes[agent]
            )
            if action < 0:  # a reference agent ended the game here (docs/rules.md §12.2)
                RR.count_final_turn(s, action)
                s.scal[E.S_DONE] = 1
                break
            E.apply_move(s, action)
            moves += 1
            if cur == 1:
                out_credit[g, resp, 0] += int(c[E.C_HINT_OPPORTUNITIES] - o0)
                out_credit[g, resp, 1] += int(c[E.C_HINTS_GIVEN] - o1)
                out_credit[g, resp, 2] += int(c[E.C_PLAYS] - o2)
                out_credit[g, resp, 3] += int(c[E.C_SUM_KNOWN_ATTRS] - o3)
        out_scores[g] = E.score(s)
        out_responses[g] = resp
        for i in range(s.counters.shape[1]):
            out_counters[g, i] = s.counters[1, i]
    return moves
