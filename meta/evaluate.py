"""Evaluation protocol for meta-agents ([Bayes21]; docs/papers.md §4.2, docs/rules.md §9.1).

For every partner e of the evaluation pool E and every variant: ``episodes`` episodes of
``games`` 2-player games, the meta-agent in seat 0 and e in seat 1. The belief is reset between
episodes; within an episode the partner id stays the same. Episode j uses the deals and seat
seeds ``agents.evaluate.game_seeds(derive_seed(seed, 1, j), games, 2)`` for every partner and
every variant (common random numbers: "every partner sees the same 10 deals"). Games are played
in compiled kernels when every response and partner is a plain rule agent (:mod:`meta.compiled`,
lockstep batches of all partners × episodes × variants, one per game index), otherwise through
:class:`hanabi_env.HanabiGame` with the meta-agent as a Python policy; both paths give identical
results (see :func:`evaluate_meta`).

Variants (:data:`ALL_VARIANTS`): the Bayesian agent's :data:`~meta.bayes.VARIANTS`
(``adaptive``, ``generalist``, ``oracle``, ``random``; [Bayes21]) and the response-table agent
of [ToG20] (:mod:`meta.response`) as ``response-adaptive``, ``response-generalist`` and
``response-oracle`` (docs/papers.md §4.1), all under the same protocol and seeds.

Results: a :class:`~meta.results.MetaEvaluation` (:mod:`meta.results`, re-exported here) with
per-game scores, responses and (first episode) beliefs, and the statistics computed from them:
per-variant mean ± s.e.m. of the episode scores (the mean score over an episode's games), per
partner and over the pool, and Welch's t-tests between Adaptive and Generalist and between
Oracle and Adaptive on the episode scores, as in [Bayes21] Table IV.

**Niche-estimate error** ([ToG20], docs/papers.md §4.1: "the partner's measured behaviour depends on
the meta-agent's own behaviour"): every variant records the partner's counters while each
response was in use (:attr:`MetaEvaluation.partner_counters`); :meth:`MetaEvaluation.niche_mae`
compares the communicativeness and IPP observed that way with the partner's self-play measures
(:func:`self_play_measures`, or the archive's measures), and :func:`table_niche_mae` does the
same for every (r, h) pair of an offline table.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.backend import Backend, ProcessBackend, SerialBackend
from agents.evaluate import check_games, game_seeds, play_policies
from agents.policy import Policy, play_out
from agents.reference import hand_order_for
from hanabi_env import engine as E
from hanabi_env import validate
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.metrics import metric_ratios
from hanabi_env.seeding import derive_seed
from hanabi_env.stats import nanmean
from hanabi_env.workers import one_thread_worker
from meta.bayes import VARIANTS, BayesianMetaAgent
from meta.compiled import (
    compiled_variants,
    evaluate_compiled,
    lockstep_agents,
    plain_rule_agents,
)
from meta.protocol import MetaProtocol
from meta.response import (
    ResponseMetaAgent,
    niche_of,
    parse_cell_id,
)
from meta.results import COUNTER_NAMES, TTESTS, VARIANT_ORDER, MetaEvaluation, variant_pairs
from meta.table import ResponseTable, check_table, policy_ids
from meta.variants import ALL_VARIANTS, RESPONSE_VARIANT_NAMES, variant_seed

__all__ = [
    "ALL_VARIANTS",
    "COUNTER_NAMES",
    "RESPONSE_VARIANT_NAMES",
    "TTESTS",
    "VARIANT_ORDER",
    "MetaEvaluation",
    "MetaProtocol",
    "derive_seed",
    "evaluate_meta",
    "self_play_measures",
    "table_niche_mae",
    "variant_pairs",
    "variant_seed",
]


def _make_agent(task: dict, variant: str):
    """The agent of ``variant`` and its ``start_game`` keywords."""
    proto: MetaProtocol = task["protocol"]
    seed = variant_seed(proto.seed, variant, task["e"])
    agent: BayesianMetaAgent | ResponseMetaAgent
    if variant in VARIANTS:
        agent = BayesianMetaAgent(
            task["table"], task["responses"], variant=variant, seed=seed, **proto.bayes_keywords
        )
        return agent, (task["oracle_kw"] if variant == "oracle" else {})
    agent = ResponseMetaAgent(
        task["table"],
        task["responses"],
        task["hypothesis_cells"],
        proto.niche_dims,
        variant=variant.split("-", 1)[1],
        seed=seed,
        **proto.response_keywords,
    )
    return agent, ({"true_niche": task["partner_cell"]} if variant == "response-oracle" else {})


def _harvest(record, counters: np.ndarray) -> None:
    """Add a partner record's per-response counters to ``counters`` ``(nR, 4)``."""
    for r, w in record.by_response.items():
        counters[r] += (w.hint_opportunities, w.hints, w.plays, w.known_attrs)


def _play_partner(task: dict) -> dict:
    """The variants in ``task["only"]``, every episode, against one partner.

    The Python path (a process-pool task): the meta-agent steps :class:`HanabiGame`.
    """
    proto: MetaProtocol = task["protocol"]
    game = HanabiGame(task["cfg"])
    out: dict[str, dict] = {k: {} for k in ("scores", "responses", "beliefs", "counters", "niches")}
    ep_seeds = [
        game_seeds(derive_seed(proto.seed, 1, j), proto.games, 2, random_seat=False)
        for j in range(proto.episodes)
    ]
    for variant in proto.variants:
        if variant not in task["only"]:
            continue
        arrays = _play_variant(task, variant, game, ep_seeds)
        for key, value in arrays.items():
            out[key][variant] = value
    return out


def _play_variant(task: dict, variant: str, game: HanabiGame, ep_seeds: list) -> dict:
    """One variant's episodes against the task's partner: its arrays by result name."""
    proto: MetaProtocol = task["protocol"]
    pid, episodes, games = task["pid"], proto.episodes, proto.games
    nr, nh = task["table"].shape
    agent, okw = _make_agent(task, variant)
    bayes = variant in VARIANTS
    mate = copy.deepcopy(task["partner"])
    scores = np.zeros((episodes, games), dtype=np.int64)
    used = np.zeros((episodes, games), dtype=np.int64)
    beliefs = np.full((games, nh), np.nan)
    niches = np.full((episodes, games, 2), -1, dtype=np.int64)
    counters = np.zeros((nr, len(COUNTER_NAMES)), dtype=np.int64)
    for j in range(episodes):
        _, deals, agent_seeds = ep_seeds[j]
        agent.start_episode(pid)
        for g in range(games):
            agent.start_game(pid, **okw)
            game.reset(int(deals[g]))
            agent.reset(int(agent_seeds[g, 0]))
            mate.reset(int(agent_seeds[g, 1]))
            play_out(game, (agent, mate))
            agent.end_game(game.view(0))
            scores[j, g] = game.score
            used[j, g] = agent.response
            if bayes and j == 0:
                beliefs[g] = agent.belief(pid)
            if not bayes and agent.record(pid).niche is not None:
                niches[j, g] = agent.record(pid).niche
        _harvest(agent.record(pid), counters)
    out = {"scores": scores, "responses": used, "beliefs": beliefs, "counters": counters}
    if not bayes:
        out["niches"] = niches
    return out


@dataclass(frozen=True)
class _Pools:
    """Who an evaluation plays, checked by :func:`evaluate_meta` (its inner functions trust it).

    ``oracle_kw``: each partner's Oracle ``start_game`` keywords; ``h_cells`` / ``p_cells``:
    the niches of H and E for the response-table variants (None when not needed).
    """

    table: ResponseTable
    responses: list
    partners: list
    pids: list[str]
    oracle_kw: list[dict]
    h_cells: list[tuple[int, ...]] | None
    p_cells: list[tuple[int, ...]] | None
    cfg: HanabiConfig


def evaluate_meta(
    table: ResponseTable, responses: Sequence[Policy], partners: Sequence[Policy],
    partner_ids: Sequence[str] | None = None, variants: Sequence[str] = VARIANTS,
    episodes: int = 10, games: int = 10, seed: int = 0, oracle_table: ResponseTable | None = None,
    scoring: str = "lenient", sigma: float = 0.1, games_threshold: int | None = 1,
    turns_threshold: int | None = None, workers: int = 1, progress: bool = False,
    hypothesis_cells: Sequence[Sequence[int]] | None = None,
    partner_cells: Sequence[Sequence[int]] | None = None, niche_dims: Sequence[int] = (5, 5),
    response_threshold: int | None = 0, empty_niche: str = "generalist",
    self_play: np.ndarray | None = None, compiled: bool | None = None,
    backend: Backend | None = None, *, protocol: MetaProtocol | None = None,
) -> MetaEvaluation:  # fmt: skip
    """Evaluate meta-agent variants against a pool E ([Bayes21] protocol, docs/papers.md §4.2).

    Every variant plays the same deals and seat seeds (module docstring). **Two paths, one
    result** (docs/architecture.md §5): compiled kernels (:mod:`meta.compiled`) when every
    response and partner is a plain ``RuleAgent`` or a batch policy, else the Python path
    (:class:`HanabiGame`, one process per partner); both give identical scores, responses,
    beliefs, partner counters and niches (tests/meta/test_meta_compiled.py). The settings are
    one :class:`MetaProtocol` (``protocol``), or its fields as keywords (both kept, no warning).

    Args:
        table: The offline table I(R, H).
        responses: The response policies R (the table's rows, in order).
        partners: The evaluation pool E (seat 1).
        partner_ids: Unique ids of E (default: names; an id of H is that hypothesis).
        variants: :attr:`MetaProtocol.variants` (subset of :data:`ALL_VARIANTS`).
        episodes: :attr:`MetaProtocol.episodes`, k >= 1 (200 in [Bayes21]).
        games: :attr:`MetaProtocol.games`, games per episode, g >= 1 (10 in [Bayes21]).
        seed: :attr:`MetaProtocol.seed`, the master seed.
        oracle_table: I(R, E) for an Oracle whose partners are not in H.
        scoring: :attr:`MetaProtocol.scoring`, ``"lenient"`` or ``"strict"``.
        sigma: :attr:`MetaProtocol.sigma`, the likelihood standard deviation σ.
        games_threshold: :attr:`MetaProtocol.games_threshold` (update schedule in games).
        turns_threshold: :attr:`MetaProtocol.turns_threshold` (in the agent's turns).
        workers: :attr:`MetaProtocol.workers`; results do not depend on it.
        progress: :attr:`MetaProtocol.progress`, show a tqdm bar.
        hypothesis_cells: ``nH`` niches ``(i, j)`` of H (default: parsed from its ids).
        partner_cells: ``nE`` niches of E for ``response-oracle`` (default: from the ids).
        niche_dims: :attr:`MetaProtocol.niche_dims`, the grid ``(d1, d2)``.
        response_threshold: :attr:`MetaProtocol.response_threshold` (``response-adaptive``).
        empty_niche: :attr:`MetaProtocol.empty_niche` (:data:`~meta.response.EMPTY_NICHE`).
        self_play: ``(nE, 2)`` self-play (communicativeness, IPP) of E, for
            :meth:`MetaEvaluation.niche_mae` (:func:`self_play_measures`).
        compiled: :attr:`MetaProtocol.compiled` (None: choose; False: Python; True: require).
        backend: A :class:`agents.backend.Backend` (left open) for the compiled path's chunks;
            None = ``workers`` local threads. Results do not depend on it.
        protocol: The settings in one object (then leave their keywords at the defaults).

    Returns:
        A :class:`MetaEvaluation`.

    Raises:
        TypeError, ValueError: A bad setting (:class:`MetaProtocol`), pool or table, an Oracle
            partner neither in H nor in ``oracle_table``, ids without cells, a ``self_play`` of
            the wrong shape, or ``compiled=True`` where it cannot apply; before any game.
    """
    given = validate.settings_keywords("protocol", MetaProtocol, protocol, locals())
    proto = MetaProtocol(**given) if protocol is None else protocol
    _check_pools(table, oracle_table, responses, partners, backend)
    check_games("episodes", proto.episodes, times=proto.games * len(partners) * len(proto.variants))
    pids = policy_ids(partners, partner_ids)
    oracle_kw = _oracle_keywords(table, pids, oracle_table, "oracle" in proto.variants)
    h_cells, p_cells = _tog_cells(proto, table, pids, hypothesis_cells, partner_cells)
    self_play = _check_self_play(self_play, len(pids))
    order = hand_order_for([*responses, *partners])
    cfg = HanabiConfig(players=2, hand_size=5, scoring=proto.scoring, hand_order=order)
    pools = _Pools(table, list(responses), list(partners), pids, oracle_kw, h_cells, p_cells, cfg)
    fast = _compiled_share(proto, responses, partners)
    slow = [v for v in proto.variants if v not in fast]
    merged: dict[str, dict[str, np.ndarray]] = {}
    if fast:
        merged.update(_run_compiled(proto, pools, fast, backend))
    if slow:
        merged.update(_run_python(proto, pools, slow))
    return _evaluation(proto, pools, merged, self_play)


def _tog_cells(proto: MetaProtocol, table, pids, hypothesis_cells, partner_cells) -> tuple:
    """The niches of H and E that the response-table variants need (None where not)."""
    tog = [v for v in proto.variants if v in RESPONSE_VARIANT_NAMES]
    h_cells = p_cells = None
    if tog:
        h_cells = _cells(hypothesis_cells, table.hypothesis_ids, "hypothesis_cells")
        if "response-oracle" in tog:
            p_cells = _cells(partner_cells, pids, "partner_cells")
    return h_cells, p_cells


def _check_self_play(self_play, n: int) -> np.ndarray | None:
    """``self_play`` as an ``(n, 2)`` float64 array, or None (ValueError naming it)."""
    if self_play is None:
        return None
    out = np.asarray(self_play, dtype=np.float64)
    if out.shape != (n, 2):
        raise ValueError(f"self_play must have shape ({n}, 2), got {out.shape}")
    return out


def _compiled_share(proto: MetaProtocol, responses, partners) -> list[str]:
    """The variants :func:`evaluate_meta` plays on the compiled path (``compiled`` checked).

    Raises:
        ValueError: ``compiled=True`` and some variant cannot be compiled.
    """
    if proto.compiled is False:
        return []
    variants = list(proto.variants)
    rules = lockstep_agents(responses) and lockstep_agents(partners)
    batched = not (plain_rule_agents(responses) and plain_rule_agents(partners))
    fast = compiled_variants(variants, proto.turns_threshold, batched) if rules else []
    if proto.compiled and fast != variants:
        why = (
            "turns_threshold is set, or response-adaptive with a batch policy"
            if rules
            else "a policy is neither a plain RuleAgent nor a batch policy"
        )
        raise ValueError(f"compiled=True is not possible: {why}; pass compiled=None")
    return fast


def _run_python(
    proto: MetaProtocol, pools: _Pools, slow: list[str]
) -> dict[str, dict[str, np.ndarray]]:
    """The Python path of :func:`evaluate_meta`: variant → its arrays, one task per partner."""
    common = {
        "protocol": proto,
        "table": pools.table,
        "responses": pools.responses,
        "cfg": pools.cfg,
        "hypothesis_cells": pools.h_cells,
        "only": slow,
    }
    tasks = [
        {
            **common,
            "e": e,
            "pid": pid,
            "partner": pools.partners[e],
            "oracle_kw": pools.oracle_kw[e],
            "partner_cell": None if pools.p_cells is None else pools.p_cells[e],
        }
        for e, pid in enumerate(pools.pids)
    ]
    results = _run_tasks(tasks, proto.workers, proto.progress)
    return {
        v: {
            key: np.stack([r[key][v] for r in results])
            for key in ("scores", "responses", "beliefs", "counters", "niches")
            if v in results[0][key]
        }
        for v in slow
    }


def _evaluation(proto: MetaProtocol, pools: _Pools, merged: dict, self_play) -> MetaEvaluation:
    """The :class:`MetaEvaluation` of both paths' arrays ``merged`` (variant → arrays)."""
    table, variants = pools.table, list(proto.variants)
    res = MetaEvaluation(
        variants,
        pools.pids,
        list(table.hypothesis_ids),
        list(table.response_ids),
        proto.episodes,
        proto.games,
        proto.seed,
        self_play=self_play,
        niche_dims=(proto.niche_dims[0], proto.niche_dims[1]),
    )
    for v in variants:
        res.scores[v] = merged[v]["scores"]
        res.responses[v] = merged[v]["responses"]
        res.beliefs[v] = merged[v]["beliefs"]
        res.partner_counters[v] = merged[v]["counters"]
        if v in RESPONSE_VARIANT_NAMES:
            res.niches[v] = merged[v]["niches"]
    return res


def _check_pools(table, oracle_table, responses, partners, backend) -> None:
    """Types of the tables, pools and backend; one response per table row."""
    if backend is not None and not isinstance(backend, Backend):
        raise validate.type_error("backend", "an agents.backend.Backend or None", backend)
    _check_table("table", table)
    if oracle_table is not None:
        _check_table("oracle_table", oracle_table)
    _check_policy_list("responses", responses)
    _check_policy_list("partners", partners)
    if len(responses) != table.shape[0]:
        raise ValueError(
            f"responses has {len(responses)} policies for a table of {table.shape[0]} rows"
        )


def _run_compiled(
    proto: MetaProtocol, pools: _Pools, fast: list[str], backend: Backend | None
) -> dict[str, dict[str, np.ndarray]]:
    """The ``fast`` variants through :func:`meta.compiled.evaluate_compiled`."""
    bar = None
    if proto.progress:
        from tqdm.auto import tqdm

        total = len(fast) * len(pools.pids) * proto.episodes * proto.games
        bar = tqdm(total=total, desc="meta evaluation (compiled)", unit="game")
    try:
        return evaluate_compiled(
            table=pools.table,
            responses=pools.responses,
            partners=pools.partners,
            pids=pools.pids,
            variants=fast,
            protocol=proto,
            cfg=pools.cfg,
            hypothesis_cells=pools.h_cells,
            oracle_kw=pools.oracle_kw,
            partner_cells=pools.p_cells,
            progress=None if bar is None else bar.update,
            backend=backend,
        )
    finally:
        if bar is not None:
            bar.close()


def _check_table(name: str, table: object) -> None:
    check_table(name, table)


def _check_policy_list(name: str, policies: object) -> None:
    """A non-empty sequence of :class:`~agents.policy.Policy` (TypeError/ValueError naming it)."""
    if isinstance(policies, (str, bytes)) or not isinstance(policies, Sequence):
        raise validate.type_error(name, "a sequence of policies", policies)
    if not policies:
        raise ValueError(f"{name}=[] is not allowed; allowed: at least one policy")
    for p in policies:
        if not isinstance(p, Policy):
            raise TypeError(f"{name} must be a sequence of policies, got an element {p!r:.60}")


def _oracle_keywords(
    table: ResponseTable, pids: list[str], oracle_table: ResponseTable | None, needed: bool
) -> list[dict]:
    """``start_game`` keywords of the Bayesian Oracle for each partner."""
    h_pos = {h: j for j, h in enumerate(table.hypothesis_ids)}
    out: list[dict] = []
    for pid in pids:
        if pid in h_pos:
            out.append({"true_type": h_pos[pid]})
        elif oracle_table is not None and pid in oracle_table.hypothesis_ids:
            if oracle_table.response_ids != table.response_ids:
                raise ValueError("oracle_table must have the same responses as table")
            col = oracle_table.hypothesis_ids.index(pid)
            out.append({"true_scores": oracle_table.scores[:, col]})
        elif needed:
            raise ValueError(
                f"partner {pid!r} is not in H; pass oracle_table (I(R, E)) for the oracle"
            )
        else:
            out.append({})
    return out


def _cells(cells, ids: Sequence[str], label: str) -> list[tuple[int, ...]]:
    """Explicit cells, or cells parsed from ids (ValueError naming ``label``)."""
    if cells is not None:
        out = [tuple(int(x) for x in c) for c in cells]
        if len(out) != len(ids):
            raise ValueError(f"{label} has {len(out)} cells for {len(ids)} policies")
        return out
    try:
        return [parse_cell_id(i) for i in ids]
    except ValueError as exc:
        raise ValueError(
            f"the response-table variants need {label} (ids are not cell names: {exc})"
        ) from exc


def _run_tasks(tasks: list[dict], workers: int, progress: bool) -> list[dict]:
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), desc="meta evaluation", unit="partner")
    # Python game loops hold the GIL: worker processes (they die with this process)
    parallel = int(workers) > 1 and len(tasks) > 1
    backend = (
        ProcessBackend(int(workers), compile_first=False, initializer=one_thread_worker)
        if parallel
        else SerialBackend()
    )
    results = []
    try:
        with backend:
            for r in backend.imap(_play_partner, [(t,) for t in tasks]):
                results.append(r)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return results


def self_play_measures(
    partners: Sequence[Policy],
    games: int = 200,
    seed: int = 0,
    scoring: str = "lenient",
    workers: int | None = 1,
    backend: Backend | None = None,
) -> np.ndarray:
    """Self-play (communicativeness, IPP) of each policy: 2-player mirror games, both seats.

    The reference of the niche-estimate error ([ToG20], docs/papers.md §4.1): what MAP-Elites
    measured (mirror mode, all seats count, ratio of sums; docs/rules.md §5, §7.1). Every policy
    plays the deals ``agents.evaluate.game_seeds(seed, games, 2)``.

    Args:
        partners: The policies.
        games: Games per policy, >= 1.
        seed: Master seed of the deals.
        scoring: ``"lenient"`` or ``"strict"``.
        workers: Local workers (threads for rule agents, processes for other policies, as
            :func:`agents.evaluate.play_games`); results do not depend on it.
        backend: An :class:`agents.backend.Backend` for rule agents (left open), e.g. a Dask
            cluster's; None = ``workers`` local threads. Results do not depend on it.

    Returns:
        ``(n, 2)`` float64, NaN where undefined.

    Raises:
        TypeError: An argument of the wrong type.
        ValueError: Empty pool, ``games`` < 1, a bad ``seed``, ``scoring`` or ``workers``.
    """
    _check_policy_list("partners", partners)
    games = validate.check_int("games", games, 1)
    seed = validate.check_seed("seed", seed)
    validate.check_choice("scoring", scoring, ("lenient", "strict"))
    validate.check_optional_int("workers", workers, 1)
    n = len(partners)
    check_games("games", games, times=n)
    _, deals, agent_seeds = game_seeds(int(seed), games, 2, random_seat=False)
    seats = np.repeat(np.arange(n, dtype=np.int64), games)[:, None].repeat(2, axis=1)
    if backend is not None and not isinstance(backend, Backend):
        raise validate.type_error("backend", "an agents.backend.Backend or None", backend)
    _, counters = play_policies(
        list(partners),
        seats,
        np.tile(deals, n),
        np.tile(agent_seeds, (n, 1)),
        HanabiConfig(players=2, hand_size=5, scoring=scoring, hand_order=hand_order_for(partners)),
        workers,
        backend,
    )
    sums = counters.reshape(n, games, 2, E.N_COUNTERS).sum(axis=(1, 2))
    m = metric_ratios(sums)
    return np.stack([m["communicativeness"], m["ipp"]], axis=1)


def table_niche_mae(
    table: ResponseTable,
    self_play: np.ndarray,
    dims: Sequence[int] | None = (5, 5),
    exclude_self: bool = True,
) -> dict:
    """Niche-estimate error over every (r, h) pair of a table ([ToG20], docs/papers.md §4.1).

    Compares h's behaviour with response r, (c(r, h), ι(r, h)), with h's self-play behaviour:
    what a meta-agent playing r would estimate, against where h sits in the archive.

    Args:
        table: I(R, H).
        self_play: ``(nH, 2)`` self-play (communicativeness, IPP) of H.
        dims: Grid for ``niche_accuracy`` (None: not computed).
        exclude_self: Leave out pairs with ``response_id == hypothesis_id`` (self-play itself).

    Returns:
        ``comm``, ``ipp`` (mean absolute errors over the pairs, NaN terms left out),
        ``n_pairs`` and ``niche_accuracy`` (fraction of pairs whose behaviour falls in h's
        self-play niche).

    Raises:
        TypeError: ``table`` not a ResponseTable, ``exclude_self`` not a bool.
        ValueError: ``self_play`` is not ``(nH, 2)``, or ``dims`` not two ints >= 1.
    """
    _check_table("table", table)
    exclude_self = validate.check_bool("exclude_self", exclude_self)
    if dims is not None:
        dims = validate.check_int_sequence(
            "dims", dims, 1, 1000, min_len=2, max_len=2, unique=False, what="cell counts"
        )
    ref = np.asarray(self_play, dtype=np.float64)
    if ref.shape != (table.shape[1], 2):
        raise ValueError(f"self_play must have shape ({table.shape[1]}, 2), got {ref.shape}")
    keep = np.ones(table.shape, dtype=bool)
    if exclude_self:
        for i, r in enumerate(table.response_ids):
            for j, h in enumerate(table.hypothesis_ids):
                keep[i, j] = r != h
    ec = np.abs(table.communicativeness - ref[None, :, 0])[keep]
    ei = np.abs(table.ipp - ref[None, :, 1])[keep]
    out = {"comm": nanmean(ec), "ipp": nanmean(ei), "n_pairs": int(keep.sum())}
    if dims is not None:
        hits = [
            niche_of(table.communicativeness[i, j], table.ipp[i, j], dims)
            == niche_of(ref[j, 0], ref[j, 1], dims)
            for i, j in zip(*np.nonzero(keep), strict=True)
        ]
        out["niche_accuracy"] = float(np.mean(hits)) if hits else math.nan
    return out
