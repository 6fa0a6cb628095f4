"""Build the benchmark's suite files: partners, deals, self-play and best-response scores.

docs/benchmark.md §2–3. Writes every shipped suite, ``pool``, ``published``, ``own``, ``dev``,
``test``, ``rl``, ``strong`` and ``neural`` (version ``--version``), into
``hanabi_adhoc/benchmark/data/``, with the one command::

    python3 tools/benchmark_suites.py --upstream /path/to/Hanabi-Map-Elites --workers 2

where ``--upstream`` is a clone of the public repository ``rocanaan/Hanabi-Map-Elites`` holding
the commits of :data:`UPSTREAM` (runs 2 and 3 of the published populations are read from it
with ``git show``; run 1 ships in ``qd/data/``). The project's own populations are the three
``--config paper`` MAP-Elites runs of ``docs/results/pipeline-paper/populations/``. The shipped
version 1 files were made so, suite family by suite family (:data:`ERAS`): ``pool``,
``published``, ``own``, ``dev``, ``test`` first, then ``rl``, ``strong`` and ``neural`` with::

    python3 tools/benchmark_suites.py --only rl --workers 2
    python3 tools/benchmark_suites.py --only strong --workers 2
    python3 tools/benchmark_suites.py --only neural --workers 2

which read the other groups' partners from the shipped suite files of ``--version`` instead of
the upstream clone (the same candidates in the same order as a full build) and write only
``rl.v<version>.json``, ``strong.v<version>.json`` or ``neural.v<version>.json``. Every result
is deterministic: the same files for any ``--workers``.

The ``rl`` group holds the five PPO partners of version 1 (:data:`RL_V1`), whatever else is
shipped. The ``neural`` groups are computed from the shipped files (:func:`neural_groups`): every
network of ``agents/data/rl_partners/`` (``agents.rl.partner_specs(clones=True)``: the PPO
partners and the behaviour clones), one group ``neural-<P>p`` per game size P that some network
plays (its JSON's ``game.players``), so rerunning ``--only neural`` after a network is added
rebuilds the suite with no change to this script (as a new version of the file: ``--version``).

**Best known response** of a partner e at a game size (docs/benchmark.md §3): the candidates
are every distinct agent of the groups of e's era and the eras before it (:data:`ERAS`: 925 for
``pool``/``published``/``own``, those and the 5 RL partners for ``rl``, those and the 5
reference bots for ``strong``, those and every other shipped network for ``neural``), rule
agents played in e's group's ruleset. A candidate that refuses the game size (its
``check_game`` raises ``ValueError``, the clear error of every entry point: a network trained
at another number of players) is left out at that size, and the group's
``best_response.refused_by_players`` counts them; a partner that refuses one of its group's
sizes is an error. Stage 0 (``strong`` only, :data:`PRESCREEN`: its partners, the bots, play
in the Python game loop in mixed games) plays every candidate once with e, and keeps the best
24. Stage 1 (screening) plays every
(kept) candidate with e on ``--screen-deals`` deals of their own seed, in every seat; stage 2
replays the ``--finalists`` best candidates on the group's own deals (every seat) and keeps the
best mean: ``br`` and ``br_agent``. The pairs whose games need the Python loop (a bot among the
candidates of ``neural``) play apart from the compiled ones (:func:`_play_pairs`), so ``neural``
screens every candidate without a stage 0. Choosing on other deals than those that measure keeps the
maximum's upward bias small. The meta-agent is not a candidate (it is not a partner of any
suite; it plays 2 players with an episode's memory).

Self-play: every partner plays the group's deals in every seat (mirror); its mean score and its
communicativeness and IPP (ratio of sums over all seats, docs/rules.md §5) are stored.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.batch import BatchPolicy  # noqa: E402
from agents.bots import BOTS  # noqa: E402
from agents.evaluate import game_seeds, play_games  # noqa: E402
from agents.policy import RuleAgent  # noqa: E402
from agents.registry import make_policy  # noqa: E402
from agents.rulebase import TEST_POOL  # noqa: E402
from hanabi_adhoc.benchmark.protocol import deal_schedule, game_config  # noqa: E402
from hanabi_adhoc.benchmark.suites import FORMAT, Group, Partner, group_hash  # noqa: E402
from hanabi_env.metrics import metric_ratios  # noqa: E402
from hanabi_env.seeding import derive_seed  # noqa: E402
from qd.io import load_archive_source, load_population  # noqa: E402

SEED = 2030
"""Master seed of every group's deals (docs/benchmark.md §3)."""

SPARTA = "59cba1781e411042f8237f53e49054d095eff337"  # branch sparta: the 5x5 JSON exports
UPSTREAM = {
    ("5x5", 2): (SPARTA, "starter/5by5final3/2iteration999999.json"),
    ("5x5", 3): (SPARTA, "starter/5by5final3/3iteration999999.json"),
    ("20x20", 2): ("8e55f9ec5ca7df33f3d5264a27365e94023844f1", "starter/2P2"),
    ("20x20", 3): ("8e55f9ec5ca7df33f3d5264a27365e94023844f1", "starter/2P3"),
}  # fmt: skip
"""Runs 2 and 3 of the published populations: (commit, path) in rocanaan/Hanabi-Map-Elites."""

OWN = ROOT / "docs" / "results" / "pipeline-paper" / "populations"

PROTOCOL = {  # group kind -> episodes, games per episode
    "pool": (10, 10),
    "5x5": (5, 10),
    "20x20": (2, 10),
    "own": (5, 10),
    "rl": (10, 10),
    "strong": (5, 10),
    "neural": (10, 10),
}

ERAS = (("pool", "published-", "own-"), ("rl",), ("strong",), ("neural-",))
"""The groups known when each suite family was built, in order: the best-response candidates of
a group are the partners of its era's groups and of every earlier era's (so a full build gives
the shipped version 1 files: 925 candidates for ``pool``, ``published``, ``own``, 930 for
``rl``, 935 for ``strong``, and for ``neural`` those and the shipped networks not in ``rl``:
936 with the behaviour clone ``rl:clone-hgroup-l1``)."""

RL_V1 = ("ppo-piers", "ppo-pool", "ppo-sp1", "ppo-sp2", "ppo-vdb")
"""The partners of the ``rl`` group (``rl:NAME``): the five PPO partners of ``rl.v1.json``,
fixed whatever else ships in ``agents/data/rl_partners/`` (the ``neural`` groups hold every
shipped network)."""

PRESCREEN = {"strong": (1, 24)}
"""Group kind (:func:`group_kind`) -> (deals, kept): a first screening before stage 1, for
partners whose games are slow (the reference bots play in the Python game loop in mixed games).
Each candidate plays ``deals`` deals of their own seed (``derive_seed(seed, 3, players)``), deal k
with the candidate in seat k mod players; the ``kept`` best go on to stage 1."""

CHUNK = 250
"""Games per task of the calls that may hold Python policies (a reference bot), so that
``--workers`` processes share them; the results do not depend on it."""


def _upstream_archive(clone: Path, grid: str, run: int, tmp: Path):
    commit, path = UPSTREAM[(grid, run)]
    text = subprocess.run(
        ["git", "-C", str(clone), "show", f"{commit}:{path}"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    out = tmp / f"{grid}_run{run}{'.json' if path.endswith('.json') else '.txt'}"
    out.write_text(text)
    return load_population(out), f"rocanaan/Hanabi-Map-Elites@{commit[:10]}:{path}"


def _chromosome(genes) -> str:
    return ",".join(str(int(g)) for g in genes)


def _population_group(name, label, archive, ruleset, kind, source) -> dict:
    episodes, games = PROTOCOL[kind]
    partners = []
    for c in archive.occupied_cells():
        i, j = (int(x) for x in archive.int_to_grid_index(np.array([c]))[0])
        partners.append({"id": f"[{i},{j}]", "spec": _chromosome(archive.solution[c]),
                         "cell": [i, j]})  # fmt: skip
    return {
        "name": name, "label": label, "players": [2], "ruleset": ruleset,
        "scoring": "lenient", "seed": SEED, "episodes": episodes, "games": games,
        "grid": [int(d) for d in archive.dims], "source": source, "partners": partners,
    }  # fmt: skip


def group_kind(name: str) -> str:
    """The kind of the group named ``name`` (:data:`PROTOCOL`, :data:`PRESCREEN`).

    ``"neural"`` for every ``neural-<P>p`` group, else the name itself.
    """
    return "neural" if name.startswith("neural-") else name


def rl_group() -> dict:
    """The group of the five RL partners of ``rl.v1.json`` (:data:`RL_V1`; 2 players, no grid)."""
    episodes, games = PROTOCOL["rl"]
    return {
        "name": "rl", "label": "the shipped RL partners (MaskablePPO, docs/rl_partners.md)",
        "players": [2], "ruleset": "corrected", "scoring": "lenient", "seed": SEED,
        "episodes": episodes, "games": games, "grid": None, "source": "agents/data/rl_partners",
        "partners": [{"id": f"rl:{n}", "spec": f"rl:{n}", "cell": None} for n in RL_V1],
    }  # fmt: skip


def neural_players() -> dict[int, list[str]]:
    """Game size → the specs of the shipped networks that play it, in ``partner_specs`` order.

    Every ``rl:NAME`` of ``agents.rl.partner_specs(clones=True)``, at the ``game.players`` of
    its JSON config (:func:`agents.rl.partner_config`).
    """
    from agents.rl import partner_config, partner_specs

    out: dict[int, list[str]] = {}
    for spec in partner_specs(clones=True):
        players = int(partner_config(spec.removeprefix("rl:"))["game"]["players"])
        out.setdefault(players, []).append(spec)
    return dict(sorted(out.items()))


def neural_groups() -> list[dict]:
    """The ``neural`` suite's groups: ``neural-<P>p`` per game size P of :func:`neural_players`.

    Corrected ruleset (HLE's hand order, the networks' game), lenient scoring, no grid.
    """
    episodes, games = PROTOCOL["neural"]
    return [{
        "name": f"neural-{p}p", "label": f"the shipped networks that play {p} players "
        "(agents/data/rl_partners: MaskablePPO partners and behaviour clones)",
        "players": [p], "ruleset": "corrected", "scoring": "lenient", "seed": SEED,
        "episodes": episodes, "games": games, "grid": None, "source": "agents/data/rl_partners",
        "partners": [{"id": spec, "spec": spec, "cell": None} for spec in specs],
    } for p, specs in neural_players().items()]  # fmt: skip


def strong_group() -> dict:
    """The group of the five reference bots (docs/bots.md) at 2–5 players, corrected ruleset.

    The bots play by their own rules (the Quux ruleset, docs/rules.md §15): HLE's hand order,
    the rulebook's hand sizes and lenient scoring, which is what a ``corrected`` group is.
    """
    episodes, games = PROTOCOL["strong"]
    return {
        "name": "strong", "label": "the reference bots (Quuxplusone/Hanabi, docs/bots.md)",
        "players": [2, 3, 4, 5], "ruleset": "corrected", "scoring": "lenient", "seed": SEED,
        "episodes": episodes, "games": games, "grid": None, "source": "agents.bots.BOTS",
        "partners": [{"id": BOT_IDS[key], "spec": key, "cell": None} for key in BOTS],
    }  # fmt: skip


BOT_IDS = {"simplebot": "SimpleBot", "valuebot": "ValueBot", "holmesbot": "HolmesBot",
           "smartbot": "SmartBot", "infobot": "InfoBot"}  # fmt: skip


def shipped_groups(version: int) -> list[dict]:
    """The shipped ``pool``, ``published``, ``own`` groups, then ``rl``, ``strong``, ``neural``.

    Their partners are those :func:`source_groups` reads from the upstream clone, in the same
    order, so the best-response candidates of a partial build (``--only``) are a full build's.
    Each file is read at the highest shipped version up to ``version`` (``--only neural
    --version 2`` reads ``pool.v1.json`` while there is no ``pool.v2.json``).

    Raises:
        FileNotFoundError: No shipped version of a file up to ``version``.
    """
    data = ROOT / "hanabi_adhoc" / "benchmark" / "data"
    groups = []
    for name in ("pool", "published", "own"):
        paths = [data / f"{name}.v{v}.json" for v in range(version, 0, -1)]
        path = next((q for q in paths if q.is_file()), None)
        if path is None:
            raise FileNotFoundError(f"no shipped {name}.v1..v{version}.json in {data}")
        groups += json.loads(path.read_text())["groups"]
    return [*groups, rl_group(), strong_group(), *neural_groups()]


def era(name: str) -> int:
    """The index in :data:`ERAS` of the group named ``name``."""
    for k, prefixes in enumerate(ERAS):
        if any(name == p or (p.endswith("-") and name.startswith(p)) for p in prefixes):
            return k
    raise ValueError(f"group {name!r} belongs to no era of ERAS")


def candidates_for(group: dict, groups: list[dict]) -> list[str]:
    """The best-response candidates of ``group``, in the groups' order.

    The distinct partner specs of its era and of every earlier one (:data:`ERAS`).
    """
    k = era(group["name"])
    return list(dict.fromkeys(p["spec"] for g in groups if era(g["name"]) <= k
                              for p in g["partners"]))  # fmt: skip


def source_groups(clone: Path, tmp: Path) -> list[dict]:
    """Every group's document without its measured fields (partners, protocol, source)."""
    episodes, games = PROTOCOL["pool"]
    groups = [{
        "name": "pool", "label": "test pool ([CIG18] mixed protocol)", "players": [2, 3, 4, 5],
        "ruleset": "corrected", "scoring": "lenient", "seed": SEED, "episodes": episodes,
        "games": games, "grid": None, "source": "agents.rulebase.TEST_POOL",
        "partners": [{"id": n, "spec": n, "cell": None} for n in TEST_POOL],
    }]  # fmt: skip
    for grid in ("5x5", "20x20"):
        for run in (1, 2, 3):
            if run == 1:
                archive = load_population(grid)
                src = f"qd/data/{Path(archive.metadata['path']).name}"
            else:
                archive, src = _upstream_archive(clone, grid, run, tmp)
            label = f"published {grid.replace('x', '×')} population, run {run}"
            groups.append(_population_group(f"published-{grid}-run{run}", label, archive,
                                            "reference", grid, src))  # fmt: skip
    for run in (0, 1, 2):
        archive = load_archive_source(OWN / f"run{run}")
        src = f"docs/results/pipeline-paper/populations/run{run}"
        label = f"this project's paper population, run {run}"
        groups.append(_population_group(f"own-run{run}", label, archive, "corrected", "own", src))
    return [*groups, rl_group(), strong_group(), *neural_groups()]


def _as_group(doc: dict) -> Group:
    return Group(
        name=doc["name"], label=doc["label"], players=tuple(doc["players"]),
        ruleset=doc["ruleset"], scoring=doc["scoring"], seed=doc["seed"],
        episodes=doc["episodes"], games=doc["games"],
        partners=tuple(Partner(p["id"], p["spec"]) for p in doc["partners"]),
        grid=None, source="", hash="",
    )  # fmt: skip


def _deals(group: Group, players: int):
    """The group's own deals and seat seeds at ``players``."""
    s = deal_schedule(group, players)
    return s["deal"], s["seeds"]


def _compiled(policy) -> bool:
    """Whether ``policy`` plays in a compiled path (a rule agent or a batch policy)."""
    return isinstance(policy, (RuleAgent, BatchPolicy))


def _play_pairs(cands, partners, pairs, group, players, deals, seeds, workers, bar):
    """Mean score of each (candidate c, partner e) pair in ``pairs``, over deals and seats.

    The pairs of compiled policies (rule agents, networks) play in one call, the pairs with a
    policy of the Python game loop (a reference bot) in another, so that one bot among the
    candidates does not send every game to the Python loop; each game's score depends on its
    seats and seeds only (:func:`agents.evaluate.play_games`), so the split changes no result.
    """
    cfg = game_config(group, players, [*cands, *partners])
    fast = [k for k, (c, e) in enumerate(pairs) if _compiled(cands[c]) and _compiled(partners[e])]
    slow = sorted(set(range(len(pairs))) - set(fast))
    means = np.empty(len(pairs))
    for ks, size in ((fast, 2000), (slow, CHUNK)):
        if ks:
            some = [pairs[k] for k in ks]
            means[ks] = _play_some(cands, partners, some, players, (deals, seeds, cfg), workers,
                                   bar, size)  # fmt: skip
    return means


def _play_some(cands, partners, pairs, players, game, workers, bar, chunk):
    """:func:`_play_pairs` of pairs that play in one call: only the policies they use."""
    deals, seeds, cfg = game
    used = list(dict.fromkeys(x for c, e in pairs for x in (c, len(cands) + e)))
    where = {x: k for k, x in enumerate(used)}
    everyone = [*cands, *partners]
    policies = [everyone[x] for x in used]
    d = len(deals)
    rows = []
    for c, e in pairs:
        for s in range(players):
            block = np.full((d, players), where[len(cands) + e], dtype=np.int64)
            block[:, s] = where[c]
            rows.append(block)
    seat_agents = np.concatenate(rows)
    reps = len(rows)
    batch = play_games(policies, seat_agents, np.tile(deals, reps), np.tile(seeds, (reps, 1)),
                       cfg, workers=workers, chunk_size=chunk, progress=bar.update)  # fmt: skip
    return batch.scores.reshape(len(pairs), players * d).mean(axis=1)


def refusal(policy, config) -> str | None:
    """Why ``policy`` refuses a game of ``config`` (its ``check_game``'s ``ValueError``), or None.

    The clear error path of every entry point (docs/benchmark.md §1): a shipped RL partner
    refuses 3–5 players, a reference bot fixed hand slots.
    """
    check = getattr(policy, "check_game", None)
    if not callable(check):
        return None
    try:
        check(config)
    except ValueError as err:
        return str(err)
    return None


def _prescreen(cands, partners, group, players, args, bar, kind) -> dict[int, list[int]]:
    """Partner e -> the candidates kept by the first screening (:data:`PRESCREEN`), or all."""
    every = list(range(len(cands)))
    if kind not in PRESCREEN:
        return dict.fromkeys(range(len(partners)), every)
    deals_n, kept = PRESCREEN[kind]
    pdeals, pseeds = game_seeds(derive_seed(group.seed, 3, players), deals_n, players,
                                False)[1:]  # fmt: skip
    policies = [*cands, *partners]
    rows = len(cands) * deals_n
    seat_agents = np.empty((len(partners) * rows, players), dtype=np.int64)
    for e in range(len(partners)):
        block = np.full((rows, players), len(cands) + e, dtype=np.int64)
        for k in range(deals_n):
            block[k::deals_n, k % players] = every
        seat_agents[e * rows : (e + 1) * rows] = block
    reps = len(partners) * len(cands)
    batch = play_games(policies, seat_agents, np.tile(pdeals, reps), np.tile(pseeds, (reps, 1)),
                       game_config(group, players, policies), workers=args.workers,
                       chunk_size=CHUNK, progress=bar.update)  # fmt: skip
    means = batch.scores.reshape(len(partners), len(cands), deals_n).mean(axis=2)
    tops = np.argsort(-means, axis=1, kind="stable")[:, :kept]
    return {e: sorted(int(c) for c in tops[e]) for e in range(len(partners))}


def measure_group(doc: dict, cand_specs: list[str], args, bar) -> None:
    """Fill a group's ``self_play``, ``measures``, ``br`` and ``br_agent`` (in place).

    A candidate that refuses a game size (:func:`refusal`) is left out at that size; a partner
    that refuses one of its group's sizes is an error.

    Raises:
        ValueError: A partner refuses one of its group's game sizes (the message names it).
    """
    group = _as_group(doc)
    kind_ = group_kind(group.name) if group_kind(group.name) in PRESCREEN else ""
    cands = [make_policy(s, 0, ruleset=group.ruleset) for s in cand_specs]
    partners = [make_policy(p.spec, 0, ruleset=group.ruleset) for p in group.partners]
    for pd in doc["partners"]:
        for key in ("self_play", "measures", "br", "br_agent"):
            pd[key] = {}
    refused = {}
    for players in group.players:
        deals, seeds = _deals(group, players)
        cfg = game_config(group, players, partners)
        for e, pd in enumerate(doc["partners"]):  # self-play on the group's deals
            if why := refusal(partners[e], cfg):
                raise ValueError(f"group {group.name}: partner {pd['id']} ({pd['spec']}) refuses "
                                 f"{players} players: {why}")  # fmt: skip
            batch = play_games([partners[e]], np.zeros((len(deals), players), np.int64), deals,
                               seeds, cfg, workers=args.workers)  # fmt: skip
            m = metric_ratios(batch.counters.sum(axis=(0, 1)))
            pd["self_play"][str(players)] = round(float(batch.scores.mean()), 4)
            pd["measures"][str(players)] = [round(float(m["communicativeness"]), 4),
                                            round(float(m["ipp"]), 4)]  # fmt: skip
        ok = [c for c in range(len(cands)) if refusal(cands[c], cfg) is None]
        if len(ok) < len(cands):
            refused[str(players)] = len(cands) - len(ok)
        best = _best_responses(group, players, [cands[c] for c in ok], partners, (deals, seeds),
                               args, bar, kind_)  # fmt: skip
        for pd, (score, c) in zip(doc["partners"], best, strict=True):
            pd["br"][str(players)] = score
            pd["br_agent"][str(players)] = cand_specs[ok[c]]
    doc["best_response"] = {
        "candidates": len(cand_specs), "screen_deals": args.screen_deals,
        "screen_seed": f"derive_seed({group.seed}, 2, players)", "finalists": args.finalists,
        "tool": "tools/benchmark_suites.py",
    }  # fmt: skip
    if kind_:
        doc["best_response"]["prescreen"] = {
            "deals": PRESCREEN[kind_][0], "kept": PRESCREEN[kind_][1],
            "seed": f"derive_seed({group.seed}, 3, players)", "seats": "deal k: seat k mod players",
        }  # fmt: skip
    if refused:
        doc["best_response"]["refused_by_players"] = refused


def _best_responses(group, players, cands, partners, own, args, bar, kind):
    """Per partner: ``(br, candidate index)`` at ``players`` among ``cands`` (who play it)."""
    deals, seeds = own
    kept = _prescreen(cands, partners, group, players, args, bar, kind)
    sdeals, sseeds = game_seeds(derive_seed(group.seed, 2, players), args.screen_deals,
                                players, False)[1:]  # fmt: skip
    width = max(len(v) for v in kept.values())
    step = max(1, args.chunk // width)
    out = []
    for lo in range(0, len(partners), step):
        es = range(lo, min(len(partners), lo + step))
        pairs = [(c, e) for e in es for c in kept[e]]
        means = _play_pairs(cands, partners, pairs, group, players, sdeals, sseeds,
                            args.workers, bar).reshape(len(es), width)  # fmt: skip
        order = np.argsort(-means, axis=1, kind="stable")[:, : args.finalists]
        tops = [[kept[e][int(i)] for i in order[k]] for k, e in enumerate(es)]
        finals = [(c, e) for k, e in enumerate(es) for c in tops[k]]
        final = _play_pairs(cands, partners, finals, group, players, deals, seeds,
                            args.workers, bar).reshape(len(es), -1)  # fmt: skip
        for k in range(len(es)):
            best = int(np.argmax(final[k]))
            out.append((round(float(final[k, best]), 4), tops[k][best]))
    return out


SUITES = {
    "pool": ("The [CIG18] test pool at 2–5 players (corrected ruleset): the seven baselines.",
             ["pool"]),
    "published": ("Every elite of the published 5×5 and 20×20 MAP-Elites populations of "
                  "[CoG19]/[ToG20]/[Bayes21], runs 1–3, in the reference ruleset (the papers' "
                  "Java semantics), 2 players.", [f"published-{g}-run{r}" for g in ("5x5", "20x20")
                                                   for r in (1, 2, 3)]),
    "own": ("The three populations of this project's `pipeline --config paper` (5×5, "
            "corrected ruleset), 2 players.", ["own-run0", "own-run1", "own-run2"]),
    "dev": ("Tuning split: what agents are commonly trained or tuned with: the test pool, run 1 "
            "of each published population (the meta-agent's pool is the 5×5 run 1) and this "
            "project's run 0.", ["pool", "published-5x5-run1", "published-20x20-run1",
                                 "own-run0"]),
    "test": ("Reporting split, disjoint from dev: runs 2 and 3 of each published population and "
             "this project's runs 1 and 2 (independent MAP-Elites runs no agent of the project "
             "was tuned on).", ["published-5x5-run2", "published-5x5-run3",
                                "published-20x20-run2", "published-20x20-run3", "own-run1",
                                "own-run2"]),
    "rl": ("The RL partners shipped with the package (MaskablePPO trained in self-play, with "
           "Piers, with VanDenBergh and with a pool of rule agents; docs/rl_partners.md), "
           "2 players.", ["rl"]),
    "strong": ("The five reference bots (SimpleBot, ValueBot, HolmesBot, SmartBot, InfoBot; "
               "Quuxplusone/Hanabi as this project's agents, docs/bots.md) at 2–5 players, "
               "corrected ruleset (their own game: HLE's hand order, lenient scoring); best "
               "responses over every agent of the other suites and the bots.", ["strong"]),
    "neural": ("Every network shipped with the package (agents/data/rl_partners/: the MaskablePPO "
               "partners of docs/rl_partners.md and the behaviour clones of "
               "docs/human_proxies.md), one group per game size they play, corrected ruleset "
               "(HLE's hand order, the networks' own game); best responses over every agent of "
               "the other suites, the bots and the networks.", []),
}  # fmt: skip
"""Suite name -> (description, its groups' names); ``neural``'s groups are
:func:`neural_groups`' (:func:`suite_table`)."""


def suite_table() -> dict[str, tuple[str, list[str]]]:
    """:data:`SUITES` with the ``neural`` suite's groups read from the shipped networks."""
    desc = SUITES["neural"][0]
    return {**SUITES, "neural": (desc, [g["name"] for g in neural_groups()])}


def _games(g: dict, n_cands: int, args) -> int:
    """About how many games measuring group ``g`` plays (for the progress bar)."""
    pre = PRESCREEN.get(group_kind(g["name"]))
    screened = n_cands if pre is None else pre[1]
    out = 0
    for p in g["players"]:
        per = screened * args.screen_deals * p + args.finalists * g["episodes"] * g["games"] * p
        out += len(g["partners"]) * (per + (0 if pre is None else n_cands * pre[0]))
    return out


def main(argv=None) -> int:
    """Build the suites (see the module docstring); the command line's entry point."""
    from tqdm.auto import tqdm

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream", help="clone of rocanaan/Hanabi-Map-Elites (a full build)")
    ap.add_argument(
        "--only",
        default="",
        help="only these suites (comma-separated), their "
        "candidates read from the shipped files of --version (no --upstream)",
    )
    ap.add_argument("--out", default=str(ROOT / "hanabi_adhoc" / "benchmark" / "data"))
    ap.add_argument("--version", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--screen-deals", type=int, default=10)
    ap.add_argument("--finalists", type=int, default=4)
    ap.add_argument("--chunk", type=int, default=8000, help="pairs per screening call")
    ap.add_argument("--groups", default="", help="only these groups (comma-separated; a check)")
    args = ap.parse_args(argv)
    import tempfile

    only = [n for n in args.only.split(",") if n]
    if any(n not in SUITES for n in only):
        ap.error(f"--only: unknown suite in {args.only!r}; allowed: {', '.join(SUITES)}")
    if only:
        groups = shipped_groups(args.version)
    elif args.upstream:
        with tempfile.TemporaryDirectory() as tmp:
            groups = source_groups(Path(args.upstream), Path(tmp))
    else:
        ap.error("--upstream CLONE is needed for a full build (or --only SUITES)")
    cands = {g["name"]: candidates_for(g, groups) for g in groups}
    table = suite_table()
    if args.groups or only:
        keep = set(args.groups.split(",")) if args.groups else set()
        keep |= {m for n in only for m in table[n][1]}
        groups = [g for g in groups if g["name"] in keep]
    total = sum(_games(g, len(cands[g["name"]]), args) for g in groups)
    print(f"{len(groups)} groups, {max(len(c) for c in cands.values())} candidates, "
          f"~{total:,} games", flush=True)  # fmt: skip
    with tqdm(total=total, unit="game", mininterval=10) as bar:
        for g in groups:
            bar.set_description(g["name"])
            measure_group(g, cands[g["name"]], args, bar)
    by_name = {g["name"]: g for g in groups}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, (desc, members) in table.items():
        if not all(m in by_name for m in members) or (only and name not in only):
            continue
        doc = {"format": FORMAT, "name": name, "version": args.version, "description": desc,
               "groups": [by_name[m] for m in members]}  # fmt: skip
        path = out / f"{name}.v{args.version}.json"
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(
            f"wrote {path} ({path.stat().st_size:,} bytes); groups "
            + ", ".join(f"{g['name']} {group_hash(g)[:12]}" for g in doc["groups"])
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
