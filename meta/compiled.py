"""Compiled meta-agent evaluation: the protocol of :mod:`meta.evaluate` at kernel speed.

When every response and every partner is a plain :class:`agents.policy.RuleAgent`,
:func:`meta.evaluate.evaluate_meta` plays the meta-agent protocol here instead of stepping
:class:`hanabi_env.HanabiGame` from Python. The results are **identical** to the Python path
(same per-game scores, responses, beliefs, partner counters and niches on the same seeds),
because the meta-agents' decisions only depend on quantities the kernels return exactly:

* **Bayesian variants** ([Bayes21], :mod:`meta.bayes`) with ``turns_threshold=None``: seat 0
  moves first, so the update due at a game's start (the agent's first turn, before any partner
  move of that game) fixes the response for the whole game. An episode is therefore ``g``
  sequential games of fixed seatings. All partners × episodes × variants play game ``i`` of
  their episode as one lockstep batch through :func:`agents.rule_games.play_rule_table` (the
  rule-game kernel); between batches the windows (the partner's counters of its seat: hint
  opportunities, hints, plays, Σ known attributes) are summed and the due beliefs are updated
  together by :func:`meta.bayes.bayes_update_batch` (bit-identical to
  :func:`meta.bayes.bayes_update`). The response is eq. 7 on each updated belief
  (:meth:`meta.table.ResponseTable.best_response`, one call per row, so that the argmax sees
  exactly the Python path's numbers). Random-Response draws its responses from the same
  per-partner generators, in the same order.
* **Response-table variants** ([ToG20], :mod:`meta.response`): ``response-generalist``,
  ``response-oracle`` and ``response-adaptive`` with ``response_threshold=None`` keep one
  response and run in the same batches; ``response-adaptive`` with a threshold re-chooses its
  response at each of its turns and runs in :func:`meta._kernels.play_response_games_kernel`,
  which makes the same choice from the same counters and re-seeds the switched-to response with
  the game's seed, as :meth:`meta.response.ResponseMetaAgent.act` does.

A Bayesian ``adaptive`` variant with a ``turns_threshold`` updates its belief in the middle of a
game (a float update inside the game loop, which a kernel could not reproduce bit for bit with
numpy's ``log``/``exp``); it stays on the Python path (:func:`compiled_variants`).

Games are split into chunks of :data:`CHUNK` games, played as the tasks of one backend of the
runner family (:mod:`agents.backend`: local threads by default, or the processes or Dask cluster
the caller passes); per-game results do not depend on the split, so nor on the backend or
``workers``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.backend import Backend, make_backend
from agents.batch import BatchPolicy
from agents.evaluate import game_seeds
from agents.lockstep import play_lockstep
from agents.policy import Policy, RuleAgent
from agents.rule_games import kernel_scratch, play_rule_table, rule_table
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.metrics import ratio
from hanabi_env.seeding import derive_seed
from meta._kernels import N_OBSERVED, play_response_games_kernel
from meta.bayes import VARIANTS, BayesianMetaAgent, bayes_update_batch
from meta.protocol import MetaProtocol
from meta.response import ResponseMetaAgent
from meta.table import ResponseTable
from meta.variants import variant_seed

__all__ = [
    "CHUNK",
    "compiled_variants",
    "evaluate_compiled",
    "lockstep_agents",
    "plain_rule_agents",
]

CHUNK = 512
"""Games per kernel call (a backend task)."""

_WINDOW = (E.C_HINT_OPPORTUNITIES, E.C_HINTS_GIVEN, E.C_PLAYS, E.C_SUM_KNOWN_ATTRS)
_OBSERVED = (*_WINDOW, E.C_TURNS)


def plain_rule_agents(policies: Sequence[Policy]) -> bool:
    """Whether every policy is exactly a :class:`~agents.policy.RuleAgent` (not a subclass).

    A subclass may override :meth:`~agents.policy.RuleAgent.act`, which a kernel would ignore,
    so it takes the Python path.
    """
    return all(type(p) is RuleAgent for p in policies)


def lockstep_agents(policies: Sequence[Policy]) -> bool:
    """Whether every policy is a plain rule agent or a batch policy (:mod:`agents.batch`).

    Such pools play the compiled protocol, the batch policies through the lockstep player
    (:mod:`agents.lockstep`).
    """
    return all(type(p) is RuleAgent or isinstance(p, BatchPolicy) for p in policies)


def compiled_variants(
    variants: Sequence[str], turns_threshold: int | None, batched: bool = False
) -> list[str]:
    """The variants the compiled path plays identically to the Python path.

    Every variant of :data:`meta.evaluate.ALL_VARIANTS`, except ``"adaptive"`` when
    ``turns_threshold`` is not None (its belief update falls in the middle of a game), and,
    when a pool holds a batch policy (``batched``), ``"response-adaptive"`` (its mid-game
    switches run in a rule-only kernel; it takes the Python path then).
    """
    return [
        v
        for v in variants
        if not (v == "adaptive" and turns_threshold is not None)
        and not (batched and v == "response-adaptive")
    ]


def _episode_seeds(seed: int, episodes: int, games: int) -> tuple[np.ndarray, np.ndarray]:
    """``(k, g)`` int64 deal seeds and ``(k, g, 2)`` int64 seat seeds of every episode."""
    per = [game_seeds(derive_seed(seed, 1, j), games, 2, False) for j in range(episodes)]
    return np.stack([p[1] for p in per]), np.stack([p[2] for p in per])


def _niches(obs: np.ndarray, dims: tuple[int, int]) -> np.ndarray:
    """``(n, 2)`` int64 niche of each row of observed counters (-1 where undefined).

    The binning of :func:`meta.response.niche_of`: ``min(max(int(v · d), 0), d − 1)``.
    """
    comm = ratio(obs[:, 1], obs[:, 0])
    ipp = ratio(obs[:, 3], obs[:, 2], 2.0)
    out = np.full((len(obs), 2), -1, dtype=np.int64)
    ok = ~(np.isnan(comm) | np.isnan(ipp))
    for col, (x, d) in enumerate(((comm, dims[0]), (ipp, dims[1]))):
        out[ok, col] = np.clip((x[ok] * d).astype(np.int64), 0, d - 1)
    return out


class _Variant:
    """State of one variant over all (partner, episode) rows: row ``e * k + j``."""

    def __init__(self, name: str, n_partners: int, episodes: int, games: int, nr: int, nh: int):
        self.name = name
        self.rows = n_partners * episodes
        self.scores = np.zeros((self.rows, games), dtype=np.int64)
        self.used = np.zeros((self.rows, games), dtype=np.int64)
        self.beliefs = np.full((n_partners, games, nh), np.nan)
        self.counters = np.zeros((n_partners, nr, 4), dtype=np.int64)
        self.niches: np.ndarray | None = None  # response-table variants: (rows, g, 2)
        self.niche_dims: tuple[int, int] = (0, 0)
        self.observed: np.ndarray | None = None  # response-table: (rows, N_OBSERVED) so far
        self.response = np.zeros(self.rows, dtype=np.int64)  # in use at the next game's start
        self.belief: np.ndarray | None = None  # Bayesian: (rows, nH) current beliefs
        self.window: np.ndarray | None = None  # adaptive: (rows, 4) counters since the update
        self.window_games: np.ndarray | None = None  # adaptive: (rows,) games in the window

    def credit(self, e: np.ndarray, resp: np.ndarray, window: np.ndarray) -> None:
        """Add each row's partner counters to its partner's counters with response ``resp``."""
        flat = self.counters.reshape(-1, 4)
        np.add.at(flat, e * self.counters.shape[1] + resp, window)


def evaluate_compiled(
    *,
    table: ResponseTable,
    responses: Sequence[RuleAgent],
    partners: Sequence[RuleAgent],
    pids: Sequence[str],
    variants: Sequence[str],
    cfg: HanabiConfig,
    oracle_kw: Sequence[dict],
    hypothesis_cells: Sequence[Sequence[int]] | None = None,
    partner_cells: Sequence[Sequence[int]] | None = None,
    protocol: MetaProtocol | None = None,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
    **keywords,
) -> dict[str, dict[str, np.ndarray]]:
    """Play the meta-agent protocol of :func:`meta.evaluate.evaluate_meta` with the kernels.

    The arguments are ``evaluate_meta``'s, checked there (keywords only): this function
    trusts them. The settings come as ``protocol``; the old keywords (``episodes``,
    ``games``, ``seed``, ``kw``: the Bayesian agent's ``sigma``/``games_threshold``/
    ``turns_threshold``, ``niche_dims``, ``response_kw``: ``threshold``/``empty_niche``,
    ``workers``) still build one when it is None (kept for one version, no warning).

    Args:
        table: I(R, H).
        responses: ``nR`` plain rule agents (or batch policies) R, the table's rows in order.
        partners: ``nE`` plain rule agents (or batch policies) E (seat 1); ``pids`` their ids.
        pids: ``nE`` ids of E.
        variants: The variants to play here (:func:`compiled_variants`; ``protocol``'s or some).
        cfg: The 2-player configuration.
        oracle_kw: ``nE`` ``start_game`` keywords of the Bayesian Oracle.
        hypothesis_cells: ``nH`` niches of H (response-table variants).
        partner_cells: ``nE`` true niches of E (``response-oracle``), or None.
        protocol: The evaluation's settings (:class:`meta.protocol.MetaProtocol`): episodes k,
            games g, master seed, the agents' settings, the niche grid and ``workers`` (local
            threads when ``backend`` is None; results do not depend on it).
        progress: Called with the number of games finished after each batch.
        backend: The :class:`agents.backend.Backend` that plays the chunks (left open), e.g.
            a Dask cluster's; None = local threads for this call.
        **keywords: The old keywords, when ``protocol`` is None.

    Returns:
        variant → ``scores`` ``(nE, k, g)`` int64, ``responses`` ``(nE, k, g)`` int64,
        ``beliefs`` ``(nE, g, nH)`` float64 (episode 0; NaN for response-table variants),
        ``counters`` ``(nE, nR, 4)`` int64 and, for response-table variants, ``niches``
        ``(nE, k, g, 2)`` int64 — the arrays of :class:`meta.results.MetaEvaluation`.

    Raises:
        ValueError: What the agents' constructors and ``start_game`` raise on bad settings
            (e.g. a ``response-oracle`` partner cell outside the grid), or a variant that the
            compiled path cannot play.
        TypeError: A response or partner that is neither a plain rule agent nor a batch policy.
    """
    proto = protocol if protocol is not None else _old_keywords(variants, keywords)
    pool, batched = _check_compiled(responses, partners, variants, proto)
    n_e, k = len(partners), proto.episodes
    fixed, switching, bayes = _setup_variants(
        variants, table, responses, pids, oracle_kw, proto,
        (hypothesis_cells, partner_cells), n_e,
    )  # fmt: skip
    plan = _Plan(table, pool, batched, cfg, n_e, k, *_episode_seeds(proto.seed, k, proto.games))
    own = backend is None
    runner = make_backend(max(1, proto.workers)) if backend is None else backend
    try:
        for gi in range(proto.games):
            for name, (st, random_resp) in bayes.items():
                if random_resp is not None:
                    st.response[:] = random_resp[:, gi]
                elif name == "adaptive":
                    _update_due(st, table, proto.sigma, proto.games_threshold)
            results = _play_game_index(plan, gi, fixed, switching, runner)
            _collect_game(gi, results, fixed, switching, (n_e, k, plan.nr), plan.e_row, plan.j_row)
            if progress is not None:
                progress(len(variants) * plan.rows)
    finally:
        if own:
            runner.close()
    return _results([*fixed, *(st for st, _ in switching)], n_e, k, proto.games)


def _check_compiled(responses, partners, variants, proto: MetaProtocol) -> tuple[list, bool]:
    """The pool R + E, and whether it holds batch policies; refuse what cannot run compiled.

    Raises:
        TypeError: A policy that is neither a plain rule agent nor a batch policy.
        ValueError: A variant that cannot run compiled.
    """
    if not (lockstep_agents(responses) and lockstep_agents(partners)):
        raise TypeError(
            "the compiled evaluation needs plain agents.RuleAgent or batch-policy "
            "responses/partners"
        )
    pool = [*responses, *partners]
    batched = not plain_rule_agents(pool)
    ok = compiled_variants(variants, proto.turns_threshold, batched)
    bad = [v for v in variants if v not in ok]
    if bad:
        raise ValueError(f"variants={bad} cannot run compiled (turns_threshold is set)")
    return pool, batched


def _old_keywords(variants: Sequence[str], keywords: dict) -> MetaProtocol:
    """The :class:`MetaProtocol` of :func:`evaluate_compiled`'s old keywords (checked there).

    Raises:
        TypeError: A keyword that is not one of the old ones.
    """
    known = {"episodes", "games", "seed", "kw", "niche_dims", "response_kw", "workers"}
    unknown = sorted(set(keywords) - known)
    if unknown:
        raise TypeError(f"evaluate_compiled() got unexpected keyword(s): {', '.join(unknown)}")
    kw = keywords.get("kw") or {}
    response_kw = keywords.get("response_kw") or {}
    return MetaProtocol(
        variants=tuple(variants),
        **{k: keywords[k] for k in ("episodes", "games", "seed", "niche_dims", "workers")
           if k in keywords},
        **{k: kw[k] for k in ("sigma", "games_threshold", "turns_threshold") if k in kw},
        **({"response_threshold": response_kw["threshold"]} if "threshold" in response_kw else {}),
        **({"empty_niche": response_kw["empty_niche"]} if "empty_niche" in response_kw else {}),
    )  # fmt: skip


class _Plan:
    """What every game index of :func:`evaluate_compiled` plays.

    The pool and its rule table, the rows (partner ``e``, episode ``j``: row ``e * k + j``)
    and every episode's deal and seat seeds.
    """

    def __init__(self, table, pool, batched, cfg, n_e, k, deals, seat_seeds):
        self.pool, self.batched, self.cfg = pool, batched, cfg
        self.nr = table.shape[0]
        self.rows = n_e * k
        self.e_row = np.repeat(np.arange(n_e, dtype=np.int64), k)
        self.j_row = np.tile(np.arange(k, dtype=np.int64), n_e)
        self.deals, self.seat_seeds = deals, seat_seeds
        self.partner_row = self.nr + self.e_row
        self.rules = (
            (None, None, None)
            if batched
            else rule_table(
                [p.rules for p in pool],  # plain rule agents
                [p.mode for p in pool],
            )
        )


def _play_game_index(plan: _Plan, gi: int, fixed, switching, backend: Backend) -> list[tuple]:
    """Game ``gi`` of every row and variant: the chunks' results, in task order."""
    rt, rl, rm = plan.rules
    rows, j_row = plan.rows, plan.j_row
    tasks: list[tuple] = []
    n_fixed = len(fixed) * rows
    seat = d = a = None
    if fixed:
        seat = np.empty((n_fixed, 2), dtype=np.int64)
        seat[:, 0] = np.concatenate([st.response for st in fixed])
        seat[:, 1] = np.tile(plan.partner_row, len(fixed))
        d = np.ascontiguousarray(np.tile(plan.deals[j_row, gi], len(fixed)))
        a = np.ascontiguousarray(np.tile(plan.seat_seeds[j_row, gi], (len(fixed), 1)))
        for lo in range(0, 0 if plan.batched else n_fixed, CHUNK):
            c = slice(lo, min(n_fixed, lo + CHUNK))
            tasks.append(_fixed_task(plan.cfg, rt, rl, rm, seat[c], d[c], a[c]))
    for st, agent in switching:
        sd = np.ascontiguousarray(plan.deals[j_row, gi])
        sa = np.ascontiguousarray(plan.seat_seeds[j_row, gi])
        obs = st.observed
        for lo in range(0, rows, CHUNK):
            c = slice(lo, min(rows, lo + CHUNK))
            tasks.append(
                _switch_task(
                    plan.cfg, rt, rl, rm, plan.partner_row[c], sd[c], sa[c], obs[c], agent, plan.nr
                )
            )
    if plan.batched:  # rule agents and batch policies: the lockstep player, in-process
        return _lockstep_chunks(plan.pool, plan.cfg, seat, d, a) if fixed else []
    return backend.map(_meta_chunk, tasks)


def _results(states: list[_Variant], n_e: int, k: int, games: int) -> dict[str, dict]:
    """Variant name → its result arrays (see :func:`evaluate_compiled`)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for st in states:
        res: dict[str, np.ndarray] = {
            "scores": st.scores.reshape(n_e, k, games),
            "responses": st.used.reshape(n_e, k, games),
            "beliefs": st.beliefs,
            "counters": st.counters,
        }
        if st.niches is not None:
            res["niches"] = st.niches.reshape(n_e, k, games, 2)
        out[st.name] = res
    return out


def _setup_variants(variants, table, responses, pids, oracle_kw, proto: MetaProtocol, cells, n_e):
    """Each variant's state, sorted by the kernel that plays it.

    ``cells`` is ``(hypothesis_cells, partner_cells)``; ``proto`` the evaluation's settings.

    Returns:
        ``(fixed, switching, bayes)``: the variants with one response per game (the rule-game
        kernel), the [ToG20] agents that switch mid-game with their agent, and the Bayesian
        variants by name with Random-Response's pre-drawn responses (None for the others).
    """
    hypothesis_cells, partner_cells = cells
    niche_dims, k, games = proto.niche_dims, proto.episodes, proto.games
    nr, nh = table.shape
    rows = n_e * k
    fixed: list[_Variant] = []
    switching: list[tuple[_Variant, ResponseMetaAgent]] = []
    bayes: dict[str, tuple[_Variant, np.ndarray | None]] = {}
    for name in variants:
        st = _Variant(name, n_e, k, games, nr, nh)
        if name in VARIANTS:
            random_resp = _setup_bayes(st, name, table, responses, pids, oracle_kw, proto)
            bayes[name] = (st, random_resp)
            fixed.append(st)
            continue
        variant = name.split("-", 1)[1]
        agent = ResponseMetaAgent(
            table, responses, hypothesis_cells, niche_dims, variant=variant,
            **proto.response_keywords,
        )  # fmt: skip
        for e, pid in enumerate(pids):  # the Python path's checks and start-of-game choice
            cell = None if partner_cells is None or variant != "oracle" else partner_cells[e]
            first = agent.start_game(pid, **({"true_niche": cell} if cell is not None else {}))
            st.response[e * k : (e + 1) * k] = first
        st.niches = np.full((rows, games, 2), -1, dtype=np.int64)
        st.niche_dims = (niche_dims[0], niche_dims[1])
        st.observed = np.zeros((rows, N_OBSERVED), dtype=np.int64)
        if variant == "adaptive" and agent.threshold is not None:
            switching.append((st, agent))
        else:
            fixed.append(st)
    return fixed, switching, bayes


def _collect_game(gi, results, fixed, switching, sizes, e_row, j_row) -> None:
    """Put game ``gi``'s chunk results (in task order) into the variants' states.

    ``sizes`` is ``(n_e, k, nr)``: partners, episodes per partner, responses.
    """
    n_e, k, nr = sizes
    rows = n_e * k
    n_fixed = len(fixed) * rows
    if fixed:
        f_scores = np.concatenate([r[0] for r in results[: _n_chunks(n_fixed)]])
        f_counters = np.concatenate([r[1] for r in results[: _n_chunks(n_fixed)]])
        for b, st in enumerate(fixed):
            part = slice(b * rows, (b + 1) * rows)
            pc = f_counters[part, 1].astype(np.int64)
            _finish_fixed(st, gi, f_scores[part], pc, e_row, j_row)
        results = results[_n_chunks(n_fixed) :]
    for st, _ in switching:
        mine, results = results[: _n_chunks(rows)], results[_n_chunks(rows) :]
        sc = np.concatenate([r[0] for r in mine])
        pc = np.concatenate([r[1] for r in mine]).astype(np.int64)
        st.used[:, gi] = np.concatenate([r[2] for r in mine])
        credit = np.concatenate([r[3] for r in mine])
        st.scores[:, gi] = sc
        st.counters += credit.reshape(n_e, k, nr, 4).sum(axis=1)
        st.observed += pc[:, list(_OBSERVED)]
        st.niches[:, gi] = _niches(st.observed, st.niche_dims)


def _lockstep_chunks(pool, cfg, seat, deals, seeds) -> list[tuple]:
    """The fixed-response games of one game index through the lockstep player.

    Returns the ``(scores, counters)`` of every :data:`CHUNK` of games, as the backend's
    chunks would (:func:`_collect_game` reads them in that order).
    """
    scores, counters, _, _ = play_lockstep(pool, seat, deals, seeds, cfg)
    return [
        (scores[lo : lo + CHUNK], counters[lo : lo + CHUNK]) for lo in range(0, len(scores), CHUNK)
    ]


def _n_chunks(n: int) -> int:
    return -(-n // CHUNK)


def _meta_chunk(kind: str, *args) -> tuple:
    """Backend task: one chunk of fixed-response or of switching games.

    ``"fixed"``: the rule-game kernel; ``"switch"``: the [ToG20] agent's
    :func:`_run_switching`. Module-level, so that processes and Dask can run it.
    """
    if kind == "fixed":
        return play_rule_table(*args)[:2]
    return _run_switching(*args)


def _setup_bayes(st, name, table, responses, pids, oracle_kw, proto) -> np.ndarray | None:
    """Initial beliefs and responses of a Bayesian variant (through the agent's own code).

    Returns:
        For Random-Response the ``(rows, g)`` responses its generators draw (as the Python
        path: one generator per partner seeded ``variant_seed(seed, name, e)``, one draw per
        game, episodes in order), else None.
    """
    n_e = len(pids)
    k, games = st.rows // n_e, st.scores.shape[1]
    nh = table.shape[1]
    st.belief = np.empty((st.rows, nh))
    random_resp = None
    agent = BayesianMetaAgent(table, responses, variant=name, seed=0, **proto.bayes_keywords)
    if name == "random":
        random_resp = np.empty((st.rows, games), dtype=np.int64)
        for e in range(n_e):
            rng = np.random.default_rng(variant_seed(proto.seed, name, e))
            for j in range(k):
                for g in range(games):
                    random_resp[e * k + j, g] = int(rng.integers(table.shape[0]))
    for e, pid in enumerate(pids):
        first = agent.start_game(pid, **(oracle_kw[e] if name == "oracle" else {}))
        agent.end_game(None)
        st.response[e * k : (e + 1) * k] = first
        st.belief[e * k : (e + 1) * k] = agent.belief(pid)
    if name == "adaptive":
        st.window = np.zeros((st.rows, 4), dtype=np.int64)
        st.window_games = np.zeros(st.rows, dtype=np.int64)
    return random_resp


def _update_due(st, table, sigma, games_threshold) -> None:
    """The Bayesian updates due at the start of this game (first turn, no partner move yet)."""
    if games_threshold is None:
        return
    due = np.nonzero(st.window_games >= int(games_threshold))[0]
    if not due.size:
        return
    win = st.window[due]
    comm = ratio(win[:, 1], win[:, 0])
    ipp = ratio(win[:, 3], win[:, 2], 2.0)
    used = st.response[due]
    post, _ = bayes_update_batch(
        st.belief[due], comm, ipp, table.communicativeness[used], table.ipp[used], sigma
    )
    st.belief[due] = post
    for i, row in enumerate(due):
        st.response[row] = table.best_response(post[i].copy())
    st.window[due] = 0
    st.window_games[due] = 0


def _finish_fixed(st, gi, scores, pc, e_row, j_row) -> None:
    """Record one batch's games of a variant with one response per game.

    ``pc``: ``(rows, N_COUNTERS)`` int64 the partner's counters of each game.
    """
    st.scores[:, gi] = scores
    st.used[:, gi] = st.response
    window = pc[:, list(_WINDOW)]
    st.credit(e_row, st.response, window)
    if st.belief is not None:
        first = j_row == 0
        st.beliefs[e_row[first], gi] = st.belief[first]
        if st.window is not None:
            st.window += window
            st.window_games += 1
    else:
        st.observed += pc[:, list(_OBSERVED)]
        st.niches[:, gi] = _niches(st.observed, st.niche_dims)


def _fixed_task(cfg, rt, rl, rm, seat, deals, seeds) -> tuple:
    seat, deals, seeds = (np.ascontiguousarray(x, dtype=np.int64) for x in (seat, deals, seeds))
    return ("fixed", cfg, rt, rl, rm, seat, deals, seeds)


def _switch_task(cfg, rt, rl, rm, partner, deals, seeds, observed, agent, nr) -> tuple:
    args = [np.ascontiguousarray(x, dtype=np.int64) for x in (partner, deals, seeds, observed)]
    niche_table = np.ascontiguousarray(agent.niche_table, dtype=np.int64)
    threshold = -1 if agent.threshold is None else int(agent.threshold)
    return ("switch", cfg, rt, rl, rm, *args, niche_table, threshold, int(agent.generalist), nr)


def _run_switching(
    cfg, rt, rl, rm, partner, deals, seeds, observed, niche_table, threshold, gen, nr
):
    """One chunk of :func:`~meta._kernels.play_response_games_kernel` (allocates its scratch)."""
    s, mask, tab, rngs = kernel_scratch(cfg)
    n = len(deals)
    scores = np.zeros(n, dtype=np.int64)
    counters = np.zeros((n, E.N_COUNTERS), dtype=np.float64)
    used = np.zeros(n, dtype=np.int64)
    credit = np.zeros((n, nr, 4), dtype=np.int64)
    play_response_games_kernel(
        s, mask, tab, rngs, rt, rl, rm, partner, deals, seeds, observed, niche_table,
        int(threshold), int(gen), scores, counters, used, credit,
    )  # fmt: skip
    return scores, counters, used, credit
