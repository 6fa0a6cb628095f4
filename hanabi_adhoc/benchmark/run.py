"""One call from agents and suites to a report: play what is missing, then report everything.

:func:`run_benchmark` is what ``hanabi-adhoc benchmark`` runs (docs/benchmark.md §1). For each
agent it plays every unit of the protocol (:mod:`hanabi_adhoc.benchmark.protocol`) that its
report folder does not hold yet, saving each as it finishes (``agents/<slug>/games/*.npz``), so
a killed run resumes where it stopped and a finished one re-reports without playing. Results
never depend on ``workers``.

Every saved unit is bound to its agent's identity (:func:`agents.identity.agent_identity`: the
SHA-256 of the agent's source, model or weights files, or of its spec and the toolkit's version):
a rerun after the agent changed plays its units again, with one note naming what changed, and
never mixes old and new games (docs/benchmark.md §1).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agents.backend import Backend, DaskBackend
from agents.faults import AgentFault
from agents.identity import agent_identity, policy_identity, toolkit_identity
from agents.policy import Policy
from agents.reference import RULESETS, hand_order_for
from hanabi_adhoc.benchmark.files import open_folder
from hanabi_adhoc.benchmark.protocol import (
    Unit,
    agent_players,
    fixed_slots_refused,
    is_episodic,
    plan,
    play_unit,
)
from hanabi_adhoc.benchmark.results import Results
from hanabi_adhoc.benchmark.suites import (
    DEFAULT_SUITES,
    SUITES,
    Suite,
    fixed_slots_refusals,
    load_suites,
)
from hanabi_env.outputs import OutputFolder, ResultFileError
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_int,
    check_seed,
    check_str,
    check_workers,
    settings_keywords,
)

__all__ = ["AgentRun", "AgentSpecError", "Benchmark", "BenchmarkSettings", "run_benchmark"]


class AgentSpecError(ValueError):
    """An agent spec that does not build a policy (the message names the spec)."""


@dataclass
class AgentRun:
    """One agent of a benchmark and its results.

    Attributes:
        label: Its name in the report (unique in it).
        spec: The spec it was built from, or None for a policy object.
        policy: The policy.
        slug: Its folder name under ``agents/`` (label and a hash of its options).
        options: What its games depend on: seed, ruleset, hand size, deals, players.
        players: Game size → None, or why the agent does not play it.
        episodic: Whether it keeps state across the games of an episode.
        results: Its per-game table (every unit played or loaded).
        seconds: Time spent playing in this call (loaded units cost nothing).
        replies: Reply counts of a text agent (:class:`agents.text.ReplyStats`), else None.
        identity: What its results are bound to (:func:`agents.identity.agent_identity`).
    """

    label: str
    spec: str | None
    policy: Policy
    slug: str
    options: dict
    players: dict[int, str | None]
    episodic: bool
    results: Results = field(default_factory=Results)
    seconds: float = 0.0
    replies: dict | None = None
    identity: dict = field(default_factory=dict)


@dataclass
class Benchmark:
    """What :func:`run_benchmark` returns: the agents with their results and the suites.

    Attributes:
        runs: One :class:`AgentRun` per agent, in the order given.
        suites: The suites played.
        options: The shared options (hand size, deals, players, workers).
        summary: The report's summary document (set by
            :func:`hanabi_adhoc.benchmark.report.summarise`).
        rows: The per-partner rows of every agent and suite.
    """

    runs: list[AgentRun]
    suites: list[Suite]
    options: dict
    summary: dict = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        """Whether some deals or game sizes of the suites were left out (no leaderboard)."""
        return self.options.get("deals") is not None or self.options.get("players") is not None


def _slug(label: str, spec: str | None, options: dict) -> str:
    """A folder name: the label's end (a class or agent name) and a hash of what it names."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_.")[-40:].strip("_.") or "agent"
    what = json.dumps({"label": label, "spec": spec, "options": options}, sort_keys=True)
    return f"{safe}-{hashlib.sha256(what.encode()).hexdigest()[:10]}"


def _resolve(agent, seed: int, make, labels: set[str]) -> tuple[str, str | None, Policy]:
    if isinstance(agent, Policy):
        label, spec, policy = getattr(agent, "name", type(agent).__name__), None, agent
    elif isinstance(agent, str):
        try:
            policy = make(agent, seed)
        except (ValueError, TypeError, ImportError) as err:
            raise AgentSpecError(str(err)) from None
        label, spec = agent.strip(), agent.strip()
    else:
        raise TypeError(f"agents must hold policies or agent specs (str), got {agent!r:.60}")
    base, k = label, 2
    while label in labels:
        label, k = f"{base} ({k})", k + 1
    labels.add(label)
    return label, spec, policy


def _agent_identity(spec: str | None, policy: Policy) -> dict:
    """The identity an agent's results are bound to (``meta`` is the toolkit's own agent)."""
    from hanabi_adhoc.specs import is_meta

    if spec is None:
        return policy_identity(policy)
    if is_meta(spec):
        return toolkit_identity(spec, "meta")
    try:
        return agent_identity(spec)
    except ValueError as err:
        raise AgentSpecError(str(err)) from None


def _identity(run: AgentRun) -> dict:
    """What an agent's files depend on: recorded with each of them in the folder's manifest."""
    return {
        "label": run.label,
        "spec": run.spec,
        "options": run.options,
        "agent_sha256": run.identity["sha256"],
    }


def _changes(old: dict, new: dict) -> str:
    """What differs between two identities, in words (files by name, else the hash)."""
    was = {f["path"]: f["sha256"] for f in old.get("files") or []}
    now = {f["path"]: f["sha256"] for f in new.get("files") or []}
    changed = [Path(p).name for p in sorted(set(was) | set(now)) if was.get(p) != now.get(p)]
    if changed:
        return "changed: " + ", ".join(changed[:3]) + (" ..." if len(changed) > 3 else "")
    if old.get("version") != new.get("version"):
        return f"toolkit version {old.get('version')} there, {new.get('version')} here"
    return f"identity {str(old.get('sha256'))[:12]} there, {new['sha256'][:12]} here"


def _check_agent(folder: OutputFolder, run: AgentRun) -> None:
    name = f"agents/{run.slug}/agent.json"
    doc = {**_identity(run), "identity": run.identity}
    if folder.verify(name):
        old = folder.load_json(name)
        keys = ("label", "spec", "options")
        if {k: old.get(k) for k in keys} != json.loads(json.dumps({k: doc[k] for k in keys})):
            raise ValueError(
                f"{folder.file(name)} holds another agent ({old.get('label')!r}, "
                f"{old.get('options')}); use another output folder"
            )
        if old.get("agent_sha256") == doc["agent_sha256"]:
            return
        folder.say(
            f"note: agent {run.label!r} changed since its games in {folder.path} were played "
            f"({_changes(old.get('identity') or {}, run.identity)}): its games are played again"
        )
    folder.write_json(name, doc, stage="agent", config=doc, seed=run.options["seed"])


def _saved(folder: OutputFolder | None, name: str, config: dict) -> bool:
    """Whether unit file ``name`` is saved for this agent (verified; another identity: not)."""
    if folder is None:
        return False
    entry = folder.entry(name)
    if (
        entry is not None
        and (entry.get("config") or {}).get("agent_sha256") != config["agent_sha256"]
    ):
        return False  # played by the agent before it changed: played again, replaced
    return folder.verify(name, config=config)


def _play_run(
    run: AgentRun,
    units: list[Unit],
    folder: OutputFolder | None,
    opts: dict,
    bar,
    backend: Backend | None = None,
) -> None:
    parts: list[Results | None] = [None] * len(units)
    who = _identity(run)
    todo = []
    for i, unit in enumerate(units):
        name = f"agents/{run.slug}/games/{unit.key}.npz"
        if folder is not None and _saved(folder, name, {**who, "unit": unit.key}):
            parts[i] = Results.from_bytes(folder.file(name).read_bytes())
            if bar is not None:
                bar.update(unit.games(opts["deals"]))
        else:
            todo.append(i)
    played = _played(run, [units[i] for i in todo], opts, bar, backend)
    for i in todo:
        unit = units[i]
        t0 = time.perf_counter()
        try:
            res = next(played)
        except (AgentFault, ResultFileError, OSError):
            raise
        except Exception as err:  # the agent's own code raised while playing
            raise AgentFault(
                run.label, f"raised {type(err).__name__}: {err} (playing unit {unit.key})"
            ) from err
        run.seconds += time.perf_counter() - t0
        if folder is not None:
            folder.write_bytes(
                f"agents/{run.slug}/games/{unit.key}.npz",
                res.to_bytes(),
                stage="games",
                config={**who, "unit": unit.key},
                seed=who["options"]["seed"],
            )
        parts[i] = res
    run.results = Results.concat([r for r in parts if r is not None])
    stats = getattr(run.policy, "reply_stats", None)
    if stats is not None:
        run.replies = stats.as_dict()


def _played(
    run: AgentRun, units: list[Unit], opts: dict, bar, backend: Backend | None
) -> Iterator[Results]:
    """The units' results, in order: played here, or one Dask task per unit on ``backend``.

    A unit's games depend on its seeds only, so a unit played on a Dask worker (one worker
    thread, :func:`_unit_task`) gives the bytes it gives here. An agent that counts its replies
    (a text agent) plays here: its counts live in its object.
    """
    stats = getattr(run.policy, "reply_stats", None)
    keys = ("hand_size", "deals", "trust_code")
    if backend is not None and stats is None and units:
        blob = _policy_bytes(run.policy)
        tasks = [(blob, u, *(opts[k] for k in keys)) for u in units]
        for unit, raw in zip(units, backend.imap(_unit_task, tasks), strict=True):
            if bar is not None:
                bar.update(unit.games(opts["deals"]))
            yield Results.from_bytes(raw)
        return
    for unit in units:
        yield play_unit(
            run.policy,
            unit,
            hand_size=opts["hand_size"],
            deals=opts["deals"],
            workers=1 if stats is not None else opts["workers"],
            progress=None if bar is None else bar.update,
            trust_code=opts["trust_code"],
        )


def _unit_task(
    blob: bytes, unit: Unit, hand_size: int | None, deals: int | None, trust_code: bool
) -> bytes:
    """One unit played on a Dask worker (its one thread): the unit's table as bytes."""
    import cloudpickle

    agent = cloudpickle.loads(blob)
    res = play_unit(agent, unit, hand_size=hand_size, deals=deals, workers=1, trust_code=trust_code)
    return res.to_bytes()


def _policy_bytes(policy: Policy) -> bytes:
    """The policy pickled for a Dask worker, with the code of classes loaded from files.

    A ``file.py:Name`` class lives in a module that :func:`agents.registry.make_policy` loaded
    by path (``hanabi_adhoc_user_*``), which a worker cannot import (and a worker that cannot
    read a task leaves the cluster): cloudpickle sends such modules' code by value.
    """
    import cloudpickle

    for name, module in list(sys.modules.items()):
        if name.startswith("hanabi_adhoc_user_") and module is not None:
            cloudpickle.register_pickle_by_value(module)
    return cloudpickle.dumps(policy)


def _open_backend(scheduler_address: str | None):
    """A Dask backend on the scheduler at ``scheduler_address``, or a null context."""
    if scheduler_address is None:
        return contextlib.nullcontext(None)
    try:
        return DaskBackend(scheduler_address)
    except (OSError, TimeoutError) as err:
        raise ValueError(
            f"scheduler_address={scheduler_address!r}: cannot connect to a Dask scheduler "
            f"there ({type(err).__name__}: {err}); allowed: the address of a running scheduler"
        ) from None


@dataclass(frozen=True)
class BenchmarkSettings:
    """How :func:`run_benchmark` plays and reports; every field checked once, when it is made.

    Attributes:
        seed: Seed of the agents built from specs (the deals are the suites'), in
            ``[0, 2**62)``.
        ruleset: Ruleset of the rule agents built from specs (and of the meta-agent's pool):
            ``"corrected"`` or ``"reference"``.
        trust_model: Allow specs whose loading runs code from a file (``sb3:PATH``).
        trust_code: Allow suite files of your own to name partners whose building runs code
            or reads a model file (docs/benchmark.md §2).
        hand_size: Cards per hand in [2, 5], or None (the rulebook's: 5 at 2–3 players, 4 at
            4–5; the best-response scores were measured so).
        deals: Play only the first ``deals`` (>= 1) deals per partner and seat (a partial run),
            or None.
        players: Game sizes to play (a sorted tuple of distinct sizes in [2, 5]), or None
            (every size of every suite).
        workers: Local workers, >= 1 or None (all cores); results do not depend on it.
        progress: Show progress bars.
        train_games: Games per response-table pair of a ``meta`` agent, >= 1.
        leaderboard: The leaderboard CSV (None: ``OUT/leaderboard.csv``).
        wait: When another process writes the output folder, wait for it instead of refusing.
        scheduler_address: A Dask scheduler (``tcp://host:8786``) whose workers play the units,
            or None (docs/benchmark.md §1).

    Raises:
        TypeError: A field of the wrong type (the message names it).
        ValueError: A field out of range (the message names it and what is allowed).
    """

    seed: int = 0
    ruleset: str = "corrected"
    trust_model: bool = False
    trust_code: bool = False
    hand_size: int | None = None
    deals: int | None = None
    players: Sequence[int] | None = None
    workers: int | None = None
    progress: bool = True
    train_games: int = 20
    leaderboard: str | Path | None = None
    wait: bool = False
    scheduler_address: str | None = None

    def __post_init__(self) -> None:
        """Check every field (in this order) and store it in its plain type."""
        address, size, deals = self.scheduler_address, self.hand_size, self.deals
        checked: dict[str, object] = {
            "seed": check_seed("seed", self.seed),
            "trust_model": check_bool("trust_model", self.trust_model),
            "trust_code": check_bool("trust_code", self.trust_code),
            "workers": check_workers("workers", self.workers),
            "progress": check_bool("progress", self.progress),
            "scheduler_address": None
            if address is None
            else check_str("scheduler_address", address),
            "hand_size": None if size is None else check_int("hand_size", size, 2, 5),
            "deals": None if deals is None else check_int("deals", deals, 1),
        }
        if self.players is not None:
            checked["players"] = tuple(
                sorted({check_int("players", p, 2, 5) for p in self.players})
            )
        checked["ruleset"] = check_choice("ruleset", self.ruleset, RULESETS)
        checked["train_games"] = check_int("train_games", self.train_games, 1)
        checked["wait"] = check_bool("wait", self.wait)
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    def options(self) -> dict:
        """The shared options of a :class:`Benchmark` (hand size, deals, players, workers)."""
        return {
            "hand_size": self.hand_size,
            "deals": self.deals,
            "players": self.players,
            "workers": self.workers,
            "trust_code": self.trust_code,
        }


def run_benchmark(
    agents: Sequence[Policy | str], suites: Sequence[str | Path] = DEFAULT_SUITES,
    out: str | Path | None = None, *, seed: int = 0, ruleset: str = "corrected",
    trust_model: bool = False, trust_code: bool = False, hand_size: int | None = None,
    deals: int | None = None, players: Sequence[int] | None = None, workers: int | None = None,
    progress: bool = True, train_games: int = 20, leaderboard: str | Path | None = None,
    wait: bool = False, scheduler_address: str | None = None,
    settings: BenchmarkSettings | None = None,
) -> Benchmark:  # fmt: skip
    """Benchmark agents against suites of partners (docs/benchmark.md).

    Settings are checked once (:class:`BenchmarkSettings`), every agent spec once on its way to
    a policy (:func:`hanabi_adhoc.specs.make_agent`); the protocol trusts them.

    Args:
        agents: Policies, or agent specs (:func:`hanabi_adhoc.specs.make_agent`: baselines,
            chromosomes, ``meta``, ``sb3:PATH``, ``module:Class``, ``file.py:Class``, ...).
            Every agent plays the same deals.
        suites: Suite names (``pool``, ``published``, ``own``, ``dev``, ``test``, ``rl``,
            ``strong``, ``NAME@V``), a benchmark version (``v1``, ``v2``), or suite files.
            Default: version 2 (pool, published, own, strong; docs/benchmark.md §2).
        out: Report folder (created; rerun with the same folder to resume, and to replay the
            units of an agent that changed since); None: nothing is written or resumed. A
            folder with files but no manifest, or files the toolkit did not write, is refused.
        seed: :attr:`BenchmarkSettings.seed`.
        ruleset: :attr:`BenchmarkSettings.ruleset`.
        trust_model: :attr:`BenchmarkSettings.trust_model`.
        trust_code: :attr:`BenchmarkSettings.trust_code`.
        hand_size: :attr:`BenchmarkSettings.hand_size` (other sizes: no normalised score).
        deals: :attr:`BenchmarkSettings.deals` (the report is partial, off the leaderboard).
        players: :attr:`BenchmarkSettings.players` (None: every size; partial otherwise).
        workers: :attr:`BenchmarkSettings.workers`.
        progress: :attr:`BenchmarkSettings.progress`.
        train_games: :attr:`BenchmarkSettings.train_games`.
        leaderboard: :attr:`BenchmarkSettings.leaderboard`.
        wait: :attr:`BenchmarkSettings.wait`.
        scheduler_address: :attr:`BenchmarkSettings.scheduler_address` (same bytes).
        settings: The settings in one object; else ``seed`` … ``scheduler_address`` build one.

    Returns:
        A :class:`Benchmark` (``summary`` and ``rows`` filled); with ``out``, the report files
        are written there (:func:`hanabi_adhoc.benchmark.report.write_report`).

    Raises:
        AgentSpecError: An agent spec that does not build a policy.
        agents.faults.AgentFault: An agent raised while probed or playing.
        ImportError: ``scheduler_address`` without ``dask[distributed]`` installed.
        TypeError, ValueError: A bad setting, no scheduler at ``scheduler_address``, an unknown
            suite, code partners without ``trust_code``, a bad ``leaderboard`` file, or an
            output folder that holds another agent under the same name.
        FolderBusyError: Another process writes ``out`` (without ``wait``).
        ResultFileError: A saved file of ``out`` was changed or swapped in, or ``out`` holds
            files the toolkit did not write or no manifest (the message says what to do).
    """
    from hanabi_adhoc.benchmark.report import check_leaderboard, summarise, write_report

    given = settings_keywords("settings", BenchmarkSettings, settings, locals())
    cfg = BenchmarkSettings(**given) if settings is None else settings
    if isinstance(agents, (str, Policy)):
        agents = [agents]
    if not agents:
        raise ValueError("agents=[] is not allowed; allowed: at least one policy or spec")
    loaded = load_suites(list(suites), trust_code=cfg.trust_code)
    groups = [g for s in loaded for g in s.groups]
    if cfg.leaderboard is not None:
        check_leaderboard(Path(cfg.leaderboard).expanduser())
    bench = Benchmark(_agent_runs(agents, cfg, loaded), loaded, cfg.options())
    if out is None:
        with _open_backend(cfg.scheduler_address) as backend:
            _play_all(bench, groups, None, cfg.progress, backend)
        summarise(bench)
        return bench
    with open_folder(Path(out).expanduser(), wait=cfg.wait) as folder:
        for run in bench.runs:
            _check_agent(folder, run)
        with _open_backend(cfg.scheduler_address) as backend:
            _play_all(bench, groups, folder, cfg.progress, backend)
        summarise(bench)
        write_report(bench, folder, cfg.leaderboard)
    return bench


def _agent_runs(agents: Sequence, cfg: BenchmarkSettings, loaded: list) -> list[AgentRun]:
    """Each agent built (a spec, once) and probed: its :class:`AgentRun`, before any game."""
    from hanabi_adhoc.specs import is_meta, make_agent

    def make(spec: str, s: int) -> Policy:
        return make_agent(
            spec,
            s,
            ruleset=cfg.ruleset,
            trust_model=cfg.trust_model,
            train_games=cfg.train_games,
            progress=cfg.progress,
            workers=cfg.workers,
        )

    labels: set[str] = set()
    runs = []
    for a in agents:
        label, spec, policy = _resolve(a, cfg.seed, make, labels)
        options = {
            "seed": cfg.seed,
            "ruleset": cfg.ruleset,
            "hand_size": cfg.hand_size,
            "deals": cfg.deals,
            "train_games": cfg.train_games if is_meta(spec) else None,
        }
        identity = _agent_identity(spec, policy)
        ok = agent_players(policy, cfg.hand_size, label)
        _check_playable(label, policy, ok, cfg.players, loaded, cfg.hand_size)
        slug = _slug(label, spec, options)
        runs.append(
            AgentRun(label, spec, policy, slug, options, ok, is_episodic(policy), identity=identity)
        )
    return runs


def _check_playable(
    label: str,
    policy: Policy,
    ok: dict,
    sizes: Sequence[int] | None,
    loaded: list,
    hand_size: int | None,
) -> None:
    """Refuse, before any game, an agent that plays none of the suites' games or hand orders.

    Raises:
        ValueError: It plays no asked game size of any group, refuses the fixed hand slots of
            the reference-ruleset groups, or plays fixed slots that a suite's partners refuse.
    """
    groups = [g for s in loaded for g in s.groups]
    fixed = [s.name for s in loaded if any(g.ruleset == "reference" for g in s.groups)]
    playable = [p for p, why in ok.items() if why is None and (sizes is None or p in sizes)]
    if not plan(groups, playable):
        refused = [(p, why) for p, why in ok.items() if why]
        reason = f"at {refused[0][0]} players: {refused[0][1]}" if refused else "no size asked"
        raise ValueError(f"agent {label!r} plays none of the suites' games ({reason})")
    if 2 in playable and fixed and (why := fixed_slots_refused(policy, hand_size, label)):
        free = [
            s.name
            for s in load_suites(list(SUITES))
            if all(g.ruleset != "reference" for g in s.groups)
        ]
        raise ValueError(
            f"agent {label!r} refuses the fixed hand slots that the reference-ruleset "
            f"partners of suite(s) {', '.join(fixed)} play with (docs/benchmark.md §2): "
            f"{why}; choose suites without them (--suite {','.join(free)})"
        )
    if hand_order_for([policy]) == "fixed" and (no := fixed_slots_refusals(groups)):
        names = [s.key for s in loaded if any(g.name in no for g in s.groups)]
        raise ValueError(
            f"agent {label!r} plays with the Java framework's fixed hand slots (ruleset "
            f"'reference', docs/rules.md §12), which the partners of suite(s) "
            f"{', '.join(names)} refuse ({next(iter(no.values()))}); leave them out (e.g. "
            "--suite v1, docs/benchmark.md §2)"
        )


def _play_all(
    bench: Benchmark,
    groups,
    folder: OutputFolder | None,
    progress: bool,
    backend: Backend | None = None,
) -> None:
    sizes, deals = bench.options["players"], bench.options["deals"]
    for run in bench.runs:
        allowed = [
            p for p, why in run.players.items() if why is None and (sizes is None or p in sizes)
        ]
        units = plan(groups, allowed)
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(
                total=sum(u.games(deals) for u in units), desc=f"benchmark {run.label}", unit="game"
            )
        try:
            _play_run(run, units, folder, bench.options, bar, backend)
        finally:
            if bar is not None:
                bar.close()
