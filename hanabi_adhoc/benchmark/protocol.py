"""The benchmark protocol: one agent, one suite → the flat table of per-game results.

docs/benchmark.md §3. For every group of the suite, every game size the agent can play, every
partner and every seat, the agent plays the group's deals (``episodes × games``, the same for
every partner and every agent: duplicate deals) in that seat, with copies of the partner in
every other seat ([CIG18]'s mixed protocol, seats rotated instead of drawn). It also plays the
same deals in self-play (every seat the agent), for its own behaviour.

Games are played by :func:`agents.evaluate.play_games` (the compiled kernel when every policy is
a rule agent, otherwise the Python loop, in worker processes; batched neural play lands there
too). Agents that keep state between the games of an episode (:func:`is_episodic`: they define
``start_episode``, ``start_game`` or ``end_game``, like the Bayesian meta-agent of
:mod:`meta.bayes`) play their episodes in order, as :func:`meta.evaluate.evaluate_meta`'s
Python path plays them: a fresh copy of the agent per episode, ``start_episode(partner_id)``,
then per game ``start_game(partner_id)``, ``reset(seed)``, the game
(:func:`agents.policy.play_out`) and ``end_game(final view)``. For the Bayesian meta-agent in
seat 0 of 2-player games with rule-agent partners, the episodes are those of
:func:`meta.evaluate.evaluate_meta` (its compiled path; :mod:`hanabi_adhoc.benchmark.meta_fast`)
with identical results.

Work is split into :class:`Unit` s (a group, a game size and up to :data:`UNIT_PARTNERS`
partners, or the agent's self-play), the pieces a report folder saves as they finish; per-game
results depend on the seeds only, never on the split or the number of workers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.backend import Backend, ProcessBackend, SerialBackend
from agents.evaluate import picklable, play_games  # the rule play_games uses
from agents.faults import AgentFault
from agents.policy import Policy, play_out
from agents.reference import hand_order_for
from agents.registry import make_policy
from hanabi_adhoc.benchmark.results import Results
from hanabi_adhoc.benchmark.suites import Group, episode_deals
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.workers import one_thread_worker

__all__ = [
    "UNIT_PARTNERS",
    "Unit",
    "agent_players",
    "deal_schedule",
    "fixed_slots_refused",
    "game_config",
    "is_episodic",
    "partner_policies",
    "plan",
    "play_unit",
]

UNIT_PARTNERS = 64
"""Partners per unit of work (what a killed run loses at most)."""

HOOKS = ("start_episode", "start_game", "end_game")
"""Methods that make a policy episodic (it remembers across the games of an episode)."""


@dataclass(frozen=True)
class Unit:
    """A piece of the protocol: one group at one game size, some partners or self-play.

    Attributes:
        group: The group.
        players: The game size.
        partners: Indices of the group's partners; empty for the agent's self-play.
    """

    group: Group
    players: int
    partners: tuple[int, ...]

    @property
    def key(self) -> str:
        """A file-name-safe key, unique per content (it holds the group's hash)."""
        who = "self" if not self.partners else f"{self.partners[0]}-{self.partners[-1]}"
        return f"{self.group.name}.p{self.players}.{who}.{self.group.hash[:12]}"

    def games(self, deals: int | None = None) -> int:
        """Games the unit plays (``deals`` per partner and seat, default the group's)."""
        d = self.group.deals if deals is None else min(deals, self.group.deals)
        return d if not self.partners else d * self.players * len(self.partners)


def plan(groups: Sequence[Group], players: Sequence[int], chunk: int = UNIT_PARTNERS) -> list[Unit]:
    """The units of ``groups`` at the game sizes in ``players`` (self-play unit first).

    Args:
        groups: The groups (each played once, even if listed twice).
        players: The game sizes the agent plays; a group's other sizes are left out.
        chunk: Partners per unit.

    Returns:
        The units, in a fixed order.
    """
    out: list[Unit] = []
    seen: set[str] = set()
    for g in groups:
        if g.hash in seen:
            continue
        seen.add(g.hash)
        for p in g.players:
            if p not in players:
                continue
            out.append(Unit(g, p, ()))
            n = len(g.partners)
            out.extend(Unit(g, p, tuple(range(i, min(n, i + chunk)))) for i in range(0, n, chunk))
    return out


def deal_schedule(group: Group, players: int, deals: int | None = None) -> dict[str, np.ndarray]:
    """The deals of a group at one game size, in episode order.

    Args:
        group: The group.
        players: The game size.
        deals: Keep only the first ``deals`` (None: all ``episodes × games``).

    Returns:
        ``deal`` ``(D,)`` int64 deal seeds, ``seeds`` ``(D, players)`` int64 seat seeds,
        ``episode`` and ``game`` ``(D,)`` int64.
    """
    parts = [episode_deals(group, players, j) for j in range(group.episodes)]
    out = {
        "deal": np.concatenate([d for d, _ in parts]),
        "seeds": np.concatenate([s for _, s in parts]),
        "episode": np.repeat(np.arange(group.episodes, dtype=np.int64), group.games),
        "game": np.tile(np.arange(group.games, dtype=np.int64), group.episodes),
    }
    if deals is not None:
        out = {k: v[:deals] for k, v in out.items()}
    return out


def is_episodic(agent: Policy) -> bool:
    """Whether ``agent`` keeps state across the games of an episode (a hook of :data:`HOOKS`)."""
    return any(callable(getattr(agent, h, None)) for h in HOOKS)


def partner_policies(
    group: Group, indices: Sequence[int], trust_code: bool = False
) -> list[Policy]:
    """Some partners of a group as policies, in its ruleset (seed 0; reseeded every game).

    ``trust_code`` lets an ``sb3:PATH`` partner of a trusted suite file load
    (:func:`hanabi_adhoc.benchmark.suites.load_suite` checked the rest).
    """
    return [
        make_policy(group.partners[i].spec, 0, ruleset=group.ruleset, trust_model=trust_code)
        for i in indices
    ]


def game_config(
    group: Group, players: int, policies: Sequence[Policy], hand_size: int | None = None
) -> HanabiConfig:
    """The configuration of a group's games: its scoring, the rulebook's hand size unless given.

    The hand order is the Java framework's fixed slots when a reference rule agent plays
    (docs/rules.md §12), else HLE's.
    """
    order = hand_order_for(policies)
    return HanabiConfig.for_game(players, hand_size, group.scoring, hand_order=order)


def agent_players(
    agent: Policy, hand_size: int | None = None, name: str | None = None
) -> dict[int, str | None]:
    """Game sizes the agent can play: size → None, or why not (its refusal).

    An agent may declare ``supported_players`` (a sequence of sizes); a Bayesian meta-agent
    plays 2-player games (its response table's). Otherwise each size is probed
    (:func:`_probe`): a ``ValueError`` of the agent's ``check_game(config)`` refuses that size;
    without ``check_game``, a ``ValueError`` on the first move (e.g. a network trained for
    another observation size) refuses that size only when the agent plays another size: an
    agent that fails its first move at every size is faulty, not refusing (docs/benchmark.md
    §1). An episodic agent is told ``start_episode`` and ``start_game`` first, as in the
    protocol.

    Args:
        agent: The agent.
        hand_size: Cards per hand (None: the rulebook's).
        name: The agent's name in errors (default: its ``name``, or its class name).

    Returns:
        ``{2: None or str, ..., 5: ...}``.

    Raises:
        agents.faults.AgentFault: The agent raised anything but a ``ValueError`` while probed,
            or a ``ValueError`` on its first move at every size (naming the agent).
    """
    name = name or str(getattr(agent, "name", None) or type(agent).__name__)
    declared = getattr(agent, "supported_players", None)
    if declared is None and hasattr(agent, "table") and hasattr(agent, "responses"):
        declared = (2,)  # a meta-agent: its response table was played at 2 players
    if declared is not None:
        return {p: None if p in declared else f"the agent plays {list(declared)} players"
                for p in (2, 3, 4, 5)}  # fmt: skip
    out: dict[int, str | None] = {}
    errors: dict[int, ValueError] = {}
    order = hand_order_for([agent])  # a reference rule agent plays fixed slots everywhere
    for p in (2, 3, 4, 5):
        out[p], err = _probe(agent, HanabiConfig.for_game(p, hand_size, hand_order=order), name)
        if err is not None:
            errors[p] = err
    if errors and all(why is not None for why in out.values()):
        p, err = next(iter(errors.items()))
        raise AgentFault(
            name,
            f"raised {type(err).__name__}: {err} on its first move at every game size (at "
            f"{p} players, ...): a fault of the agent, not a refusal of the games (an agent "
            "refuses a game size with check_game(config) raising ValueError)",
        ) from err
    return out


def fixed_slots_refused(
    agent: Policy, hand_size: int | None = None, name: str | None = None
) -> str | None:
    """Why ``agent`` refuses the Java framework's fixed hand slots, or None if it plays them.

    The groups of the ``reference`` ruleset play with fixed hand slots (docs/rules.md §12). A
    network never refuses them: the game loops show a batch policy every hand in age order, as
    it was trained (:mod:`agents.hand_order`). An agent that cannot play them says so in its
    ``check_game`` (InfoBot does). Probed as :func:`agent_players` does, in a 2-player game (a
    first-move ``ValueError`` refuses).

    Raises:
        agents.faults.AgentFault: As :func:`agent_players`.
    """
    name = name or str(getattr(agent, "name", None) or type(agent).__name__)
    cfg = HanabiConfig.for_game(2, hand_size, ruleset="reference")
    why, _ = _probe(agent, cfg, name)
    return why


def _probe(agent: Policy, config: HanabiConfig, name: str) -> tuple[str | None, ValueError | None]:
    """Ask a copy of ``agent`` for the first move in ``config``: ``(refusal, first-move error)``.

    The refusal is the text of ``check_game``'s ``ValueError``, or of a ``ValueError`` on the
    first move (then returned too, so that the caller can tell a fault at every size).

    Raises:
        agents.faults.AgentFault: The agent raised anything else (an ``AgentFault`` as it is).
    """
    game = HanabiGame(config)
    game.reset(0)
    probe = copy.deepcopy(agent)
    where = f"probed with a {config.players}-player game"
    try:
        check = getattr(probe, "check_game", None)
        if callable(check):
            try:
                check(config)
            except ValueError as err:
                if isinstance(err, AgentFault):
                    raise
                return str(err), None
        for hook in ("start_episode", "start_game"):  # as before a game of the protocol
            _call(probe, hook, "probe")
        probe.reset(0)
        probe.act(game.view(0))
    except AgentFault:
        raise
    except ValueError as err:
        return str(err), err
    except Exception as err:
        raise AgentFault(name, f"raised {type(err).__name__}: {err} ({where})") from err
    return None, None


def _columns(unit: Unit, sched: dict[str, np.ndarray], scores, ac, pc) -> Results:
    d, p = len(sched["deal"]), unit.players
    if unit.partners:
        n_e = len(unit.partners)
        partner = np.repeat(np.asarray(unit.partners, dtype=np.int64), p * d)
        seat = np.tile(np.repeat(np.arange(p, dtype=np.int64), d), n_e)
        reps = n_e * p
    else:
        partner = np.full(d, -1, dtype=np.int64)
        seat = np.zeros(d, dtype=np.int64)
        reps = 1
    cols = {
        "partner": partner,
        "players": np.full(len(partner), p, dtype=np.int64),
        "seat": seat,
        "episode": np.tile(sched["episode"], reps),
        "game": np.tile(sched["game"], reps),
        "score": np.asarray(scores, dtype=np.int64),
    }
    return Results.of_games(unit.group.name, cols, ac, pc)


def _seatings(n_partners: int, players: int, d: int) -> np.ndarray:
    """``(n_partners · players · d, players)`` policy indices: partner-major, then seat, deal."""
    if n_partners == 0:
        return np.zeros((d, players), dtype=np.int64)
    rows = []
    for e in range(n_partners):
        for s in range(players):
            block = np.full((d, players), e + 1, dtype=np.int64)
            block[:, s] = 0
            rows.append(block)
    return np.concatenate(rows)


def play_unit(
    agent: Policy,
    unit: Unit,
    *,
    hand_size: int | None = None,
    deals: int | None = None,
    workers: int | None = 1,
    progress: Callable[[int], None] | None = None,
    partners: Sequence[Policy] | None = None,
    trust_code: bool = False,
) -> Results:
    """Play one unit of the protocol (see the module docstring).

    Args:
        agent: The agent.
        unit: The unit.
        hand_size: Cards per hand (None: the rulebook's, 5 at 2–3 players, 4 at 4–5).
        deals: Play only the first ``deals`` deals of each partner and seat (None: all).
        workers: Local workers (None = all cores); results do not depend on it.
        progress: Called with the number of games finished, as they finish.
        partners: The unit's partner policies (default: built from their specs).
        trust_code: Build partners whose loading runs code (a trusted suite file's).

    Returns:
        The unit's :class:`~hanabi_adhoc.benchmark.results.Results`.
    """
    sched = deal_schedule(unit.group, unit.players, deals)
    mates = (
        partners
        if partners is not None
        else partner_policies(unit.group, unit.partners, trust_code)
    )
    cfg = game_config(unit.group, unit.players, [agent, *mates], hand_size)
    if is_episodic(agent):
        from hanabi_adhoc.benchmark.meta_fast import play_fast_seat0

        parts = play_fast_seat0(agent, unit, cfg, sched, mates, workers, progress, _episodic)
        return episodic_results(unit, sched, parts)
    d, p = len(sched["deal"]), unit.players
    seat_agents = _seatings(len(mates), p, d)
    reps = len(seat_agents) // d
    batch = play_games(
        [agent, *mates],
        seat_agents,
        np.tile(sched["deal"], reps),
        np.tile(sched["seeds"], (reps, 1)),
        cfg,
        workers=workers,
        progress=progress,
    )
    mine = (seat_agents == 0)[..., None]
    ac = (batch.counters * mine).sum(axis=1)
    pc = batch.counters.sum(axis=1) - ac
    return _columns(unit, sched, batch.scores, ac, pc)


def _episodic(
    agent: Policy,
    unit: Unit,
    cfg: HanabiConfig,
    sched: dict[str, np.ndarray],
    mates: Sequence[Policy],
    seats: Sequence[int],
    workers: int | None,
    progress: Callable[[int], None] | None,
) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Episodes of an episodic agent in the given seats: ``{e * players + s: arrays}``.

    Each task (a partner and a seat) returns ``(scores (D,), agent counters (D, 8), partner
    counters (D, 8))``; tasks run on worker processes when the policies pickle.
    """
    p = unit.players
    ids = [unit.group.partners[i].id for i in unit.partners] or ["self"]
    tasks = []
    for e in range(max(1, len(mates))):
        mate = mates[e] if mates else None
        for s in seats:
            tasks.append((agent, mate, cfg, s, sched, f"{unit.group.name}/{ids[e]}"))
    keys = [e * p + s for e in range(max(1, len(mates))) for s in seats]
    backend: Backend = SerialBackend()
    n = workers or 1
    if n > 1 and len(tasks) > 1 and picklable([agent, *mates]):
        backend = ProcessBackend(
            min(n, len(tasks)), compile_first=False, initializer=one_thread_worker
        )
    out = {}
    with backend:
        for key, res in zip(keys, backend.imap(_episodes_task, tasks), strict=True):
            out[key] = res
            if progress is not None:
                progress(len(sched["deal"]))
    return out


def _call(pol: Policy, hook: str, *args) -> None:
    fn = getattr(pol, hook, None)
    if callable(fn):
        fn(*args)


def _episodes_task(
    agent: Policy,
    mate: Policy | None,
    cfg: HanabiConfig,
    seat: int,
    sched: dict[str, np.ndarray],
    pid: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The episodes of one (partner, seat), in order (module-level: a process task).

    ``mate`` None is self-play: every seat is a copy of the agent, each with its hooks.
    """
    game = HanabiGame(cfg)
    d, p = len(sched["deal"]), cfg.players
    scores = np.zeros(d, dtype=np.int64)
    ac = np.zeros((d, E.N_COUNTERS))
    pc = np.zeros((d, E.N_COUNTERS))
    # one copy per seat for the whole task when the agent forgets a partner on
    # start_episode (its generator runs on, as in meta.evaluate); else a fresh copy per episode
    keeps = callable(getattr(agent, "start_episode", None))
    mine = list(range(p)) if mate is None else [seat]
    pols: list[Policy] = []
    for r in range(d):
        if r == 0 or sched["episode"][r] != sched["episode"][r - 1]:
            if r == 0 or not keeps:
                pols = [
                    copy.deepcopy(agent if mate is None or q == seat else mate) for q in range(p)
                ]
            for q in mine:
                _call(pols[q], "start_episode", pid)
        for q in mine:
            _call(pols[q], "start_game", pid)
        game.reset(int(sched["deal"][r]))
        for q, pol in enumerate(pols):
            pol.reset(int(sched["seeds"][r, q]))
        play_out(game, pols)
        for q in mine:
            _call(pols[q], "end_game", game.view(q))
        scores[r] = game.score
        counters = np.asarray(game.state.counters, dtype=np.float64)
        ac[r] = counters[mine].sum(axis=0)
        pc[r] = counters.sum(axis=0) - ac[r]
    return scores, ac, pc


def episodic_results(unit: Unit, sched: dict[str, np.ndarray], parts: dict[int, tuple]) -> Results:
    """A unit's :class:`Results` from per-(partner, seat) episode arrays (:func:`_episodic`)."""
    p = unit.players
    keys = sorted(parts) if unit.partners else [0]
    scores = np.concatenate([parts[k][0] for k in keys])
    ac = np.concatenate([parts[k][1] for k in keys])
    pc = np.concatenate([parts[k][2] for k in keys])
    assert len(keys) == (len(unit.partners) * p if unit.partners else 1)
    return _columns(unit, sched, scores, ac, pc)
