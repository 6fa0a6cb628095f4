"""Every public argument is checked: a table of bad inputs and the exact error each one gets.

Issue "Nothing silently wrong", item 3: one validation layer (:mod:`hanabi_env.validate`) shared
by the env, :class:`hanabi_env.HanabiGame`, the agents, qd and meta. A wrong type raises
``TypeError`` (a bool is not an int, a float is not an int, nothing is coerced), a value out of
range raises ``ValueError``; both name the parameter. Each row of :data:`CASES` is one bad call,
the exception type it must raise (exactly that type, not a subclass) and a regex its message
must match. The checks fire before any game is played, so the table runs in seconds. A few good
inputs (numpy integers and bools, ints for floats) prove the checks do not over-reject.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import hanabi_env
from agents import RuleAgent, evaluate, game_seeds, make, play, play_games, rule_ids
from hanabi_adhoc.study.pipeline import PipelineConfig, run_pipeline
from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env.records import from_hanablive
from hanabi_env.vector import HanabiVectorEnv
from meta import (
    BayesianMetaAgent,
    ResponseMetaAgent,
    bayes_update,
    evaluate_meta,
    niche_of,
    niche_responses,
    parse_cell_id,
    self_play_measures,
    table_niche_mae,
)
from meta.table import ResponseTable, build_table
from qd import (
    GAConfig,
    MapElitesConfig,
    SituationalAgent,
    evaluate_situational,
    evolve_situational,
    get_config,
    population_fitness,
    run_ga,
    run_map_elites,
)
from qd.analysis import matchup_table
from qd.evaluator import evaluate_solutions
from qd.io import load_archive_source

T, V, R = TypeError, ValueError, RuntimeError
NAN, INF = float("nan"), float("inf")

CASES: list[tuple[str, Callable[[], object], type[Exception], str]] = []


def case(desc: str, call: Callable[[], object], exc: type[Exception], name: str, rx=None) -> None:
    """Add a row; the default regex is the project's message format for ``name``."""
    if rx is None:
        n = re.escape(name)
        rx = rf"\b{n} must be" if exc is T else rf"\b{n}=.* is (out of range|not allowed)"
    CASES.append((desc, call, exc, rx))


# ------------------------------------------------------------------------------------------
# helpers (cheap objects; no game is played by a bad call)
# ------------------------------------------------------------------------------------------


def game(reset: bool = True, **kw) -> HanabiGame:
    g = HanabiGame(**kw)
    if reset:
        g.reset(3)
    return g


def raw(reset: bool = True, **kw) -> hanabi_env.raw_env:
    e = hanabi_env.raw_env(**kw)
    if reset:
        e.reset(seed=1)
    return e


def wrapped(reset: bool = False) -> object:
    e = hanabi_env.env()
    if reset:
        e.reset(seed=1)
    return e


def deck() -> list[int]:
    g = game()
    return sorted(g._ordered_deck().tolist())


def table(n_r: int = 2, n_h: int = 2) -> ResponseTable:
    ids = ["[0,0]", "[1,1]", "[2,2]"]
    z = np.zeros((n_r, n_h))
    return ResponseTable(
        ids[:n_r],
        ids[:n_h],
        1,
        0,
        "lenient",
        z + 10,
        z,
        z + 0.5,
        z + 0.5,
        z,
        np.zeros((n_r, n_h, 4)),
    )


def responses(n: int = 2) -> list:
    return [make("piers"), make("iggi"), make("outer")][:n]


def bayes(**kw) -> BayesianMetaAgent:
    return BayesianMetaAgent(table(), responses(), **kw)


def resp(**kw) -> ResponseMetaAgent:
    return ResponseMetaAgent(table(), responses(), **kw)


def meta_eval(**kw):
    args = {"table": table(), "responses": responses(), "partners": responses(), "games": 1}
    args.update(kw)
    return evaluate_meta(**args)


def play_games_call(**kw):
    cfg = HanabiConfig()
    args = {
        "policies": [make("piers")],
        "seat_agents": np.zeros((2, 2), np.int64),
        "deal_seeds": np.array([1, 2]),
        "agent_seeds": np.ones((2, 2), np.int64),
        "config": cfg,
        "workers": 1,
    }
    args.update(kw)
    return play_games(**args)


# ------------------------------------------------------------------------------------------
# 1. the configuration, through every constructor that takes it
# ------------------------------------------------------------------------------------------

INT_TYPE = [1.5, 2.0, True, "3", None, np.float64(3.0), [3]]
CONFIG_BAD = {
    "colors": [*INT_TYPE, 1, 6, -3],
    "ranks": [*INT_TYPE, 1, 6],
    "players": [*INT_TYPE, 1, 6, 0, 2**70],
    "hand_size": [4.0, False, "5", 1, 6],
    "max_information_tokens": [8.0, True, "8", None, -1, 101, 10**9],
    "max_life_tokens": [3.0, True, "3", 0, -2, 101, 10**12],
    "observation_type": [1, None, "full", "Minimal"],
    "random_start_player": [1, 0, "yes", None, 1.0],
    "scoring": [0, None, "harsh"],
    "hand_order": [1, "slots"],
}
CONSTRUCTORS = {
    "HanabiConfig": HanabiConfig,
    "HanabiGame": HanabiGame,
    "raw_env": hanabi_env.raw_env,
    "env": hanabi_env.env,
}
for ctor_name, ctor in CONSTRUCTORS.items():
    for field, values in CONFIG_BAD.items():
        for v in values:
            kind = (
                V
                if type(v)
                is (str if field in ("observation_type", "scoring", "hand_order") else int)
                else T
            )
            if field == "random_start_player":
                kind = T
            case(
                f"{ctor_name}({field}={v!r})", lambda c=ctor, f=field, v=v: c(**{f: v}), kind, field
            )
    case(f"{ctor_name}(colors=2, players=3)", lambda c=ctor: c(colors=2, players=3), V, "players")
    case(
        f"{ctor_name}(ranks=2, colors=2, hand_size=5)",
        lambda c=ctor: c(colors=2, ranks=2, hand_size=5),
        V,
        "hand_size",
    )
    case(f"{ctor_name}(nonsense=1)", lambda c=ctor: c(nonsense=1), T, "nonsense", r"nonsense")

for ctor_name in ("raw_env", "env"):
    ctor = CONSTRUCTORS[ctor_name]
    case(f"{ctor_name}(render_mode=1)", lambda c=ctor: c(render_mode=1), T, "render_mode")
    case(f"{ctor_name}(render_mode='rgb')", lambda c=ctor: c(render_mode="rgb"), V, "render_mode")

case("HanabiGame(config='x')", lambda: HanabiGame("x"), T, "config")
case(
    "HanabiGame(config, players=2)",
    lambda: HanabiGame(HanabiConfig(), players=2),
    T,
    "",
    r"either config",
)

# ------------------------------------------------------------------------------------------
# 2. HanabiGame methods
# ------------------------------------------------------------------------------------------

for v, kind in [(1.5, T), (True, T), ("1", T), (None, T), (np.float64(1), T), (-1, V), (2**62, V)]:
    case(f"HanabiGame.reset({v!r})", lambda v=v: game().reset(v), kind, "seed")
for v, kind in [(1.5, T), (True, T), ("0", T), (2, V), (-1, V)]:
    case(
        f"HanabiGame.reset(0, start_player={v!r})",
        lambda v=v: game().reset(0, start_player=v),
        kind,
        "start_player",
    )
    case(
        f"HanabiGame.reset_with_deck(deck, start_player={v!r})",
        lambda v=v: game().reset_with_deck(deck(), v),
        kind,
        "start_player",
    )
case("reset_with_deck('abc')", lambda: game().reset_with_deck("abc"), T, "deck")
case("reset_with_deck(5)", lambda: game().reset_with_deck(5), T, "deck")
case("reset_with_deck(None)", lambda: game().reset_with_deck(None), T, "deck")
case(
    "reset_with_deck(floats)",
    lambda: game().reset_with_deck([float(c) for c in deck()]),
    T,
    "deck",
    r"deck must be .*dtype float",
)
case(
    "reset_with_deck(bools)",
    lambda: game().reset_with_deck([True] * 50),
    T,
    "deck",
    r"deck must be .*dtype bool",
)
case(
    "reset_with_deck(ragged)",
    lambda: game().reset_with_deck([[1, 2], [3]]),
    T,
    "deck",
    r"deck must be",
)
case(
    "reset_with_deck(short)",
    lambda: game().reset_with_deck(deck()[:-1]),
    V,
    "deck",
    r"deck must be a permutation",
)
case(
    "reset_with_deck(wrong ids)",
    lambda: game().reset_with_deck(list(range(50))),
    V,
    "deck",
    r"deck must be a permutation",
)
case(
    "reset_with_deck(2-d)",
    lambda: game().reset_with_deck(np.array(deck()).reshape(5, 10)),
    V,
    "deck",
    r"deck must be a permutation",
)
for v, kind in [(1.5, T), (True, T), ("0", T), (None, T), (np.float32(5), T)]:
    case(f"HanabiGame.step({v!r})", lambda v=v: game().step(v), kind, "action")
case("HanabiGame.step(999)", lambda: game().step(999), V, "action", r"action 999 .* illegal")
case("HanabiGame.step(-1)", lambda: game().step(-1), V, "action", r"action -1 .* illegal")
for meth in ("view", "observation", "metrics"):
    for v, kind in [(2, V), (-1, V), (1.0, T), (True, T), ("0", T), (None, T)]:
        case(f"HanabiGame.{meth}({v!r})", lambda m=meth, v=v: getattr(game(), m)(v), kind, "seat")
case("HanabiGame.view(0, seer=1)", lambda: game().view(0, seer=1), T, "seer")
case("HanabiGame.view(0, seer='yes')", lambda: game().view(0, seer="yes"), T, "seer")
case("HanabiGame.render(seat=3)", lambda: game().render(seat=3), V, "seat")
case("HanabiGame.render(seat=1.5)", lambda: game().render(seat=1.5), T, "seat")
case("HanabiGame.action_to_string(1.5)", lambda: game().action_to_string(1.5), T, "action")
case(
    "HanabiGame.action_to_string(0, seat=9)", lambda: game().action_to_string(0, seat=9), V, "seat"
)
for v, kind in [(1.5, T), (True, T), ("0", T), (None, T)]:
    case(f"HanabiGame.try_step({v!r})", lambda v=v: game().try_step(v), kind, "action")
for v, kind in [(np.zeros(3, np.int8), V), (np.zeros(20, np.int64), V), ([0] * 20, T)]:
    label = f"HanabiGame.try_step(0, mask_out={type(v).__name__} {np.shape(v)})"
    case(label, lambda v=v: game().try_step(0, mask_out=v), kind, "mask_out")
    label = label.replace("try_step(0, mask_out", "legal_mask(out")
    case(label, lambda v=v: game().legal_mask(out=v), kind, "out")
for v, kind in [("full", V), (3, T)]:
    label = f"HanabiGame.observation(0, {v!r})"
    case(label, lambda v=v: game().observation(0, v), kind, "observation_type")
case("PlayerView.encode('full')", lambda: game().view(0).encode("full"), V, "observation_type")
case("PlayerView.encode(3)", lambda: game().view(0).encode(3), T, "observation_type")
for meth, args in [
    ("view", (0,)),
    ("metrics", (0,)),
    ("step", (0,)),
    ("legal_mask", ()),
    ("try_step", (0,)),
    ("observation", (0,)),
    ("render", ()),
]:
    case(
        f"HanabiGame.{meth} before reset",
        lambda m=meth, a=args: getattr(game(False), m)(*a),
        R,
        "",
        r"call reset",
    )

# ------------------------------------------------------------------------------------------
# 3. the AEC env
# ------------------------------------------------------------------------------------------

for meth, args in [
    ("state", ()),
    ("observe", ("player_0",)),
    ("view", ("player_0",)),
    ("step", (0,)),
]:
    case(
        f"raw_env.{meth} before reset",
        lambda m=meth, a=args: getattr(raw(False), m)(*a),
        R,
        "",
        r"call reset\(\) before",
    )
case(
    "raw_env(render_mode='ansi').render before reset",
    lambda: raw(False, render_mode="ansi").render(),
    R,
    "",
    r"call reset\(\) before",
)
for meth, args in [
    ("state", ()),
    ("observe", ("player_0",)),
    ("step", (0,)),
    ("render", ()),
    ("agent_iter", ()),
]:
    case(
        f"env().{meth} before reset",
        lambda m=meth, a=args: getattr(wrapped(), m)(*a),
        R,
        "",
        r"call reset\(\) before",
    )
for v, kind in [(1.5, T), (True, T), ("1", T), ([1], T), (-1, V), (2**62, V)]:
    case(f"raw_env.reset(seed={v!r})", lambda v=v: raw(False).reset(seed=v), kind, "seed")
    case(f"env().reset(seed={v!r})", lambda v=v: wrapped().reset(seed=v), kind, "seed")
case("raw_env.reset(options='x')", lambda: raw(False).reset(options="x"), T, "options")
case("raw_env.reset(options=[1])", lambda: raw(False).reset(options=[1]), T, "options")
for v, kind in [(1.5, T), (True, T), ("3", T), (-1, V), (2**62, V)]:
    case(
        f"raw_env.reset(options={{'deal_seed': {v!r}}})",
        lambda v=v: raw(False).reset(options={"deal_seed": v}),
        kind,
        "options['deal_seed']",
    )
for v, kind in [(1.5, T), (True, T), ("1", T), (2, V), (-1, V)]:
    case(
        f"raw_env.reset(options={{'start_player': {v!r}}})",
        lambda v=v: raw(False).reset(options={"start_player": v}),
        kind,
        "start_player",
    )
case("raw_env.reset(deck='x')", lambda: raw(False).reset(options={"deck": "x"}), T, "deck")
case(
    "raw_env.reset(deck=floats)",
    lambda: raw(False).reset(options={"deck": [0.5] * 50}),
    T,
    "deck",
    r"deck must be",
)
case(
    "raw_env.reset(deck=range(50))",
    lambda: raw(False).reset(options={"deck": list(range(50))}),
    V,
    "deck",
    r"deck must be a permutation",
)
case(
    "raw_env.reset(deck and deal_seed)",
    lambda: raw(False).reset(options={"deck": deck(), "deal_seed": 3}),
    V,
    "options",
    r"options=.*is not allowed; allowed: either 'deck' or 'deal_seed'",
)
for v, kind in [("player_9", V), ("", V), (0, T), (None, T)]:
    case(f"raw_env.observe({v!r})", lambda v=v: raw().observe(v), kind, "agent")
    case(f"raw_env.view({v!r})", lambda v=v: raw().view(v), kind, "agent")
    case(
        f"raw_env.observation_space({v!r})",
        lambda v=v: raw(False).observation_space(v),
        kind,
        "agent",
    )
    case(f"raw_env.action_space({v!r})", lambda v=v: raw(False).action_space(v), kind, "agent")
case("raw_env.view('player_0', seer=1)", lambda: raw().view("player_0", seer=1), T, "seer")
for v in (1.5, True, "3", None, np.float64(2)):
    case(f"raw_env.step({v!r})", lambda v=v: raw().step(v), T, "action")
    case(f"env().step({v!r})", lambda v=v: wrapped(True).step(v), T, "action")
case("raw_env.step(999)", lambda: raw().step(999), V, "action", r"action 999 is illegal")

# ------------------------------------------------------------------------------------------
# 4. agents
# ------------------------------------------------------------------------------------------

SEED_BAD = [(1.5, T), (True, T), ("0", T), (None, T), (-1, V), (2**62, V)]
for v, kind in [(5, T), (None, T), (["piers"], T), ("hal9000", V), ("", V)]:
    rx = r"unknown agent" if v == "hal9000" else None
    case(f"make({v!r})", lambda v=v: make(v), kind, "name", rx)
for v, kind in SEED_BAD:
    case(f"make('piers', seed={v!r})", lambda v=v: make("piers", seed=v), kind, "seed")
    case(f"RuleAgent([8], seed={v!r})", lambda v=v: RuleAgent([8], seed=v), kind, "seed")
for v, kind in [(1.5, T), (True, T), ("0", T), (-1, V), (2**62, V)]:
    case(f"RuleAgent.reset({v!r})", lambda v=v: RuleAgent([8]).reset(v), kind, "seed")
case("RuleAgent('piers')", lambda: RuleAgent("piers"), T, "rules")
case("RuleAgent(5)", lambda: RuleAgent(5), T, "rules")
case("RuleAgent(None)", lambda: RuleAgent(None), T, "rules")
case("RuleAgent([1.5])", lambda: RuleAgent([1.5]), T, "rules")
case("RuleAgent([True])", lambda: RuleAgent([True]), T, "rules")
case("RuleAgent([None])", lambda: RuleAgent([None]), T, "rules")
case("RuleAgent([-1])", lambda: RuleAgent([-1]), V, "rule", r"rule index -1 is out of range")
case("RuleAgent([999])", lambda: RuleAgent([999]), V, "rule", r"rule index 999 is out of range")
case("RuleAgent(['nope'])", lambda: RuleAgent(["nope"]), V, "rule", r"unknown rule name 'nope'")
case("RuleAgent([])", lambda: RuleAgent([]), V, "rules", r"rules must contain at least one")
case("RuleAgent([8], name=5)", lambda: RuleAgent([8], name=5), T, "name")
case("RuleAgent([8], name='')", lambda: RuleAgent([8], name=""), V, "name")
case("rule_ids('abc')", lambda: rule_ids("abc"), T, "rules")

P2 = ["piers", "piers"]
for v, kind in [(0, V), (-3, V), (1.5, T), (True, T), ("3", T), (None, T)]:
    case(f"play(games={v!r})", lambda v=v: play(P2, games=v), kind, "games")
for v, kind in SEED_BAD:
    case(f"play(seed={v!r})", lambda v=v: play(P2, seed=v), kind, "seed")
for v, kind in [(0, V), (-1, V), (1.5, T), (True, T), ("2", T)]:
    case(f"play(workers={v!r})", lambda v=v: play(P2, workers=v), kind, "workers")
case("play(['piers'])", lambda: play(["piers"]), V, "policies", r"policies must have 2 to 5")
case("play(6 policies)", lambda: play(["piers"] * 6), V, "policies", r"policies must have 2 to 5")
case("play('piers')", lambda: play("piers"), T, "policies")
case("play(['piers', 5])", lambda: play(["piers", 5]), T, "policies")
case("play(['piers', 'hal'])", lambda: play(["piers", "hal"]), V, "agent", r"unknown agent 'hal'")
case("play(scoring='x')", lambda: play(P2, scoring="x"), V, "scoring")
case("play(hand_order=1)", lambda: play(P2, hand_order=1), T, "hand_order")
case("play(hand_size=1.5)", lambda: play(P2, hand_size=1.5), T, "hand_size")
case("play(max_life_tokens=1000)", lambda: play(P2, max_life_tokens=1000), V, "max_life_tokens")
case(
    "play(players=3)", lambda: play(P2, players=3), T, "players", r"players is given by the number"
)

EV_BAD = {
    "mode": [("duel", V), (1, T), (None, T)],
    "players": [
        ([2, 2], V),
        ((3, 2, 3), V),
        ((1, 2), V),
        ((6,), V),
        ((), V),
        ((2.0,), T),
        ("23", T),
        (2, T),
        ((True,), T),
        (None, T),
    ],
    "games": [(0, V), (-1, V), (1.5, T), (True, T), ("10", T)],
    "scoring": [("soft", V), (None, T)],
    "seed": SEED_BAD,
    "workers": [(0, V), (2.5, T), (False, T)],
    "hand_order": [("x", V), (1, T)],
    "no_rule": [("x", V), (None, T)],
    "progress": [(1, T), ("yes", T)],
    "hand_size": [("5", T), (1.5, T), (9, V), (True, T)],
}
for field, rows in EV_BAD.items():
    for v, kind in rows:
        case(
            f"evaluate({field}={v!r})",
            lambda f=field, v=v: evaluate("piers", **{f: v}),
            kind,
            field,
        )
case(
    "evaluate(players=[2, 2]) names the repeat",
    lambda: evaluate("piers", players=[2, 2]),
    V,
    "players",
    r"players=\(2, 2\) is not allowed; allowed: distinct player counts \(repeated: 2\)",
)
case("evaluate(5)", lambda: evaluate(5), T, "agent")
case("evaluate('hal')", lambda: evaluate("hal"), V, "agent", r"unknown agent 'hal'")
case(
    "evaluate(mixed, pool=['hal'])",
    lambda: evaluate("piers", "mixed", pool=["hal"]),
    V,
    "agent",
    r"unknown agent 'hal'",
)
case("evaluate(mixed, pool='piers')", lambda: evaluate("piers", "mixed", pool="piers"), T, "pool")
case("evaluate(mixed, pool=[])", lambda: evaluate("piers", "mixed", pool=[]), V, "pool")
case("evaluate(mixed, pool=[1])", lambda: evaluate("piers", "mixed", pool=[1]), T, "pool")

PG_BAD = [
    ("seat_agents", np.zeros((2, 2)), T, r"seat_agents must be an integer array"),
    ("seat_agents", np.full((2, 2), 1), V, r"seat_agents holds 1, out of range"),
    ("seat_agents", np.full((2, 2), -1), V, r"seat_agents holds -1, out of range"),
    ("seat_agents", np.zeros((2, 3), np.int64), V, r"seat_agents and agent_seeds must have shape"),
    ("deal_seeds", np.array([1.0, 2.0]), T, r"deal_seeds must be an integer array"),
    ("deal_seeds", np.array([-1, 2]), V, r"deal_seeds holds -1, out of range"),
    ("deal_seeds", 7, V, r"deal_seeds must have 1 dimension"),
    ("agent_seeds", np.ones((2, 2)) * 0.5, T, r"agent_seeds must be an integer array"),
    ("agent_seeds", np.ones((3, 2), np.int64), V, r"seat_agents and agent_seeds must have shape"),
    ("agent_seeds", [["a", "b"], ["c", "d"]], T, r"agent_seeds must be an integer array"),
    ("config", "x", T, None),
    ("config", {"players": 2}, T, None),
    ("workers", 0, V, None),
    ("workers", 1.0, T, None),
    ("chunk_size", 0, V, None),
    ("chunk_size", 1.5, T, None),
    ("no_rule", "x", V, None),
    ("record_actions", 1, T, None),
    ("progress", 5, T, None),
    ("policies", [], V, None),
    ("policies", ["piers"], T, None),
    ("policies", make("piers"), T, None),
]
for field, v, kind, rx in PG_BAD:
    case(
        f"play_games({field}={v!r:.30})",
        lambda f=field, v=v: play_games_call(**{f: v}),
        kind,
        field,
        rx,
    )
for args, kind, name in [
    ((-1, 5, 2, False), V, "seed"),
    ((1.5, 5, 2, False), T, "seed"),
    ((0, 1.5, 2, False), T, "n_games"),
    ((0, -1, 2, False), V, "n_games"),
    ((0, 5, 6, False), V, "n_players"),
    ((0, 5, True, False), T, "n_players"),
    ((0, 5, 2, 1), T, "random_seat"),
]:
    case(f"game_seeds{args}", lambda a=args: game_seeds(*a), kind, name)

# ------------------------------------------------------------------------------------------
# 5. qd
# ------------------------------------------------------------------------------------------

ME_BAD = {
    "candidates": [(0, V), (1.5, T), (True, T), ("10", T)],
    "random_candidates": [(0, V), (5000, V), (2.5, T)],
    "games": [(0, V), (2.5, T), (False, T)],
    "reeval_games": [(-1, V), (1.0, T)],
    "dims": [((0, 5), V), ("55", T), ((5.0, 5), T), ((2000, 5), V), ((), V), (5, T)],
    "measures": [(("ipp",), V), ("ab", T), ((1, 2), T)],
    "players": [((2, 2), V), ((1,), V), ((2.5,), T), ((), V), ((2, 6), V)],
    "crossover_rate": [(1.5, V), (NAN, V), (INF, V), ("0.5", T), (True, T), (-0.1, V)],
    "mutation_rate": [(NAN, V), (-INF, V), (2, V), ([0.1], T)],
    "n_genes": [(0, V), (106, V), (15.0, T)],
    "scoring": [("x", V), (1, T)],
    "batch_size": [(0, V), (1.5, T)],
    "seed": [(-1, V), (2**62, V), (1.5, T), (True, T), ("0", T)],
    "checkpoint_every": [(0, V), (1.5, T)],
    "name": [(5, T), ("", V)],
}
for field, rows in ME_BAD.items():
    for v, kind in rows:
        case(f"get_config({field}={v!r})", lambda f=field, v=v: get_config(**{f: v}), kind, field)
        case(
            f"MapElitesConfig({field}={v!r})",
            lambda f=field, v=v: MapElitesConfig(**{f: v}),
            kind,
            field,
        )
case(
    "MapElitesConfig(dims=(1000, 1000, 2))",
    lambda: MapElitesConfig(
        dims=(1000, 1000, 2), measures=("communicativeness", "ipp", "risk_aversion")
    ),
    V,
    "dims",
)
case(
    "MapElitesConfig(mutation_rate=None)",
    lambda: MapElitesConfig(mutation_rate=None),
    T,
    "mutation_rate",
)
case("get_config('nope')", lambda: get_config("nope"), V, "name")
case("get_config(5)", lambda: get_config(5), T, "name")
case("get_config(bogus=1)", lambda: get_config(bogus=1), T, "bogus", r"bogus")
case("MapElitesConfig.from_dict('x')", lambda: MapElitesConfig.from_dict("x"), T, "d")
case(
    "MapElitesConfig.from_dict({'foo': 1})",
    lambda: MapElitesConfig.from_dict({"foo": 1}),
    V,
    "foo",
    r"unknown MapElitesConfig fields: \['foo'\]",
)


def rme(**kw):
    args = {
        "config": get_config(candidates=10, random_candidates=10),
        "out_dir": "/nonexistent-parent/x",
    }
    args.update(kw)
    return run_map_elites(**args)


for field, v, kind in [
    ("config", "quick", T),
    ("out_dir", 5, T),
    ("out_dir", None, T),
    ("out_dir", "", V),
    ("out_dir", "/proc/version/sub", V),
    ("resume", 1, T),
    ("workers", 0, V),
    ("workers", 1.5, T),
    ("scheduler_address", 5, T),
    ("dask", "no", T),
    ("progress", 1, T),
    ("measures", "ab", T),
    ("backend", "serial", T),
    ("stop_after", 0, V),
    ("stop_after", 1.5, T),
]:
    case(
        f"run_map_elites({field}={v!r})",
        lambda f=field, v=v: rme(
            **({"out_dir": "/tmp/x-never-made"} if f != "out_dir" else {}), **{f: v}
        ),
        kind,
        field,
    )

GA_BAD = {
    "population": [(1, V), (1.5, T), (10**7, V), (True, T)],
    "generations": [(0, V), (True, T)],
    "n_rules": [(1, V), (106, V), (50.0, T)],
    "n_genes": [(1, V), (60, V), (2.5, T)],
    "elitism": [(-1, V), (30, V)],
    "tournament": [(0, V), (21, V)],
    "crossover_rate": [(2, V), (NAN, V)],
    "mutation_rate": [(-1, V), ("x", T)],
    "mode": [("solo", V), (3, T)],
    "players": [((2, 2), V), ((7,), V), ("2", T)],
    "games": [(0, V), (1.5, T)],
    "final_top": [(0, V), (21, V)],
    "final_games": [(0, V)],
    "scoring": [("x", V)],
    "seed": [(-1, V), (0.5, T)],
    "pool": [(("hal",), V), ("piers", T), ((5,), T)],
    "name": [(None, T)],
}
for field, rows in GA_BAD.items():
    for v, kind in rows:
        case(f"GAConfig({field}={v!r})", lambda f=field, v=v: GAConfig(**{f: v}), kind, field)

CHROMS = [[8, 13, 27], [2, 8, 38]]
for field, v, kind in [
    ("mode", "x", V),
    ("players", [2, 2], V),
    ("players", (1,), V),
    ("games", 0, V),
    ("games", 2.0, T),
    ("seed", -1, V),
    ("scoring", "x", V),
    ("backend", "x", T),
]:
    case(
        f"population_fitness({field}={v!r})",
        lambda f=field, v=v: population_fitness(CHROMS, **{f: v}),
        kind,
        field,
    )
case(
    "population_fitness(float chromosomes)",
    lambda: population_fitness([[1.5, 2.0]]),
    T,
    "chromosomes",
    r"chromosomes must be",
)
case(
    "population_fitness(mixed, pool=['hal'])",
    lambda: population_fitness(CHROMS, "mixed", pool=["hal"]),
    V,
    "pool",
)
case(
    "population_fitness(mixed, pool=[])",
    lambda: population_fitness(CHROMS, "mixed", pool=[]),
    V,
    "pool",
)
GA_SMALL = GAConfig(population=4, elitism=1, final_top=1, tournament=2, games=1)
case("run_ga('quick')", lambda: run_ga("quick"), T, "config")
case("run_ga(progress=1)", lambda: run_ga(GA_SMALL, progress=1), T, "progress")
case("run_ga(backend='x')", lambda: run_ga(GA_SMALL, backend="x"), T, "backend")
case(
    "run_ga(initial wrong shape)",
    lambda: run_ga(GA_SMALL, initial=np.zeros((3, 50), np.int64)),
    V,
    "initial",
    r"initial has shape",
)
case(
    "run_ga(initial floats)",
    lambda: run_ga(GA_SMALL, initial=np.zeros((4, 50))),
    T,
    "initial",
    r"initial must be",
)
SIT = {2: [8, 13], (3, 4, 5): [2, 8]}
case("SituationalAgent([1])", lambda: SituationalAgent([1]), T, "groups")
case(
    "SituationalAgent({7: ...})",
    lambda: SituationalAgent({7: [1, 2]}),
    V,
    "groups",
    r"groups: player count 7",
)
case("SituationalAgent({2.5: ...})", lambda: SituationalAgent({2.5: [1]}), T, "groups")
case("SituationalAgent({(2, 2.5): ...})", lambda: SituationalAgent({(2, 2.5): [1]}), T, "groups")
case(
    "SituationalAgent({2: .., (2, 3): ..})",
    lambda: SituationalAgent({2: [1], (2, 3): [2]}),
    V,
    "groups",
    r"repeated",
)
case("SituationalAgent(seed=-1)", lambda: SituationalAgent(SIT, seed=-1), V, "seed")
case("SituationalAgent(name=5)", lambda: SituationalAgent(SIT, name=5), T, "name")
for field, v, kind, rx in [
    ("players", [2, 2], V, None),
    ("players", (2, 6), V, None),
    ("games", 0, V, None),
    ("games", 1.5, T, None),
    ("seed", -1, V, None),
    ("mode", "x", V, None),
    ("workers", 0, V, None),
    ("scoring", "x", V, None),
]:
    case(
        f"evaluate_situational({field}={v!r})",
        lambda f=field, v=v: evaluate_situational(SituationalAgent(SIT), **{f: v}),
        kind,
        field,
        rx,
    )
case(
    "evaluate_situational(no chromosome)",
    lambda: evaluate_situational(SituationalAgent({2: [8]}), players=(3,)),
    V,
    "players",
    r"players=3 has no chromosome",
)
case("evaluate_situational('x')", lambda: evaluate_situational("x"), T, "agent")
case("evolve_situational('x')", lambda: evolve_situational("x"), T, "config")
case(
    "evolve_situational(groups repeat)",
    lambda: evolve_situational(GA_SMALL, ((2,), (2, 3))),
    V,
    "groups",
    r"repeated: 2",
)
case("evolve_situational(groups='23')", lambda: evolve_situational(GA_SMALL, "23"), T, "groups")
case(
    "evolve_situational(groups=((7,),))", lambda: evolve_situational(GA_SMALL, ((7,),)), V, "groups"
)
case(
    "evolve_situational(progress=1)",
    lambda: evolve_situational(GA_SMALL, progress=1),
    T,
    "progress",
)

# ------------------------------------------------------------------------------------------
# 6. meta
# ------------------------------------------------------------------------------------------

for field, v, kind, rx in [
    ("variant", "x", V, None),
    ("variant", 1, T, None),
    ("sigma", 0, V, None),
    ("sigma", -1, V, None),
    ("sigma", NAN, V, None),
    ("sigma", INF, V, None),
    ("sigma", "0.1", T, None),
    ("sigma", True, T, None),
    ("games_threshold", 0, V, None),
    ("games_threshold", 1.5, T, None),
    ("games_threshold", True, T, None),
    ("turns_threshold", 0, V, None),
    ("turns_threshold", "1", T, None),
    ("seed", -1, V, None),
    ("seed", 1.5, T, None),
    ("name", 5, T, None),
]:
    case(f"BayesianMetaAgent({field}={v!r})", lambda f=field, v=v: bayes(**{f: v}), kind, field, rx)
case("BayesianMetaAgent(table='x')", lambda: BayesianMetaAgent("x", responses()), T, "table")
case(
    "BayesianMetaAgent(1 response)",
    lambda: BayesianMetaAgent(table(), responses(1)),
    V,
    "responses",
    r"responses has 1 policies",
)
case("BayesianMetaAgent(responses='ab')", lambda: BayesianMetaAgent(table(), "ab"), T, "responses")
case(
    "BayesianMetaAgent(responses=[1, 2])",
    lambda: BayesianMetaAgent(table(), [1, 2]),
    T,
    "responses",
)
case("BayesianMetaAgent.start_game(5)", lambda: bayes().start_game(5), T, "partner_id")
case(
    "oracle start_game(true_type=5)",
    lambda: bayes(variant="oracle").start_game("p", true_type=5),
    V,
    "true_type",
)
case(
    "oracle start_game(true_type=1.5)",
    lambda: bayes(variant="oracle").start_game("p", true_type=1.5),
    T,
    "true_type",
)
case(
    "oracle start_game(true_type=True)",
    lambda: bayes(variant="oracle").start_game("p", true_type=True),
    T,
    "true_type",
)
case("BayesianMetaAgent.reset(-1)", lambda: bayes().reset(-1), V, "seed")
case("BayesianMetaAgent.reset(1.5)", lambda: bayes().reset(1.5), T, "seed")
case(
    "bayes_update(sigma=0)",
    lambda: bayes_update([0.5, 0.5], 0.1, 0.1, [0, 0], [0, 0], sigma=0),
    V,
    "sigma",
)
case(
    "bayes_update(comm='x')", lambda: bayes_update([0.5, 0.5], "x", 0.1, [0, 0], [0, 0]), T, "comm"
)

for field, v, kind, rx in [
    ("variant", "x", V, None),
    ("threshold", -1, V, None),
    ("threshold", 1.5, T, None),
    ("dims", (5,), V, None),
    ("dims", (0, 5), V, None),
    ("dims", (5.0, 5), T, None),
    ("dims", "55", T, None),
    ("empty_niche", "x", V, None),
    ("empty_niche", None, T, None),
    ("seed", -1, V, None),
    ("name", 5, T, None),
    ("hypothesis_cells", [(0, 0), (9, 9)], V, r"hypothesis cell \(9, 9\) is outside the grid"),
    ("hypothesis_cells", [(0.5, 0), (1, 1)], T, None),
]:
    case(f"ResponseMetaAgent({field}={v!r})", lambda f=field, v=v: resp(**{f: v}), kind, field, rx)
case(
    "ResponseMetaAgent(1 response)",
    lambda: ResponseMetaAgent(table(), responses(1)),
    V,
    "responses",
    r"responses has 1 policies",
)
case("ResponseMetaAgent(table='x')", lambda: ResponseMetaAgent("x", responses()), T, "table")
case(
    "oracle start_game(true_niche=(9, 0))",
    lambda: resp(variant="oracle").start_game("p", true_niche=(9, 0)),
    V,
    "true_niche",
    r"true_niche=\(9, 0\) is outside",
)
case(
    "oracle start_game(true_niche=(0.5, 0))",
    lambda: resp(variant="oracle").start_game("p", true_niche=(0.5, 0)),
    T,
    "true_niche",
)
case("ResponseMetaAgent.start_game(None)", lambda: resp().start_game(None), T, "partner_id")
case("ResponseMetaAgent.reset(-1)", lambda: resp().reset(-1), V, "seed")
case("niche_of(comm='x')", lambda: niche_of("x", 0.5), T, "comm")
case("niche_of(dims=(5,))", lambda: niche_of(0.5, 0.5, (5,)), V, "dims")
case("niche_of(dims=(0, 5))", lambda: niche_of(0.5, 0.5, (0, 5)), V, "dims")
case("parse_cell_id(5)", lambda: parse_cell_id(5), T, "cell_id")
case(
    "parse_cell_id('abc')",
    lambda: parse_cell_id("abc"),
    V,
    "cell_id",
    r"cell_id='abc' does not end",
)
case(
    "niche_responses(empty_niche='x')",
    lambda: niche_responses(table(), [(0, 0), (1, 1)], empty_niche="x"),
    V,
    "empty_niche",
)
case(
    "niche_responses(dims=(5, 5, 5))",
    lambda: niche_responses(table(), [(0, 0), (1, 1)], (5, 5, 5)),
    V,
    "dims",
)

for field, v, kind, rx in [
    ("variants", ["nope"], V, None),
    ("variants", "adaptive", T, None),
    ("variants", ["adaptive", "adaptive"], V, r"variants=.* each variant once"),
    ("variants", [], V, None),
    ("episodes", 0, V, None),
    ("episodes", 1.5, T, None),
    ("games", 0, V, None),
    ("games", True, T, None),
    ("seed", -1, V, None),
    ("seed", "1", T, None),
    ("scoring", "x", V, None),
    ("sigma", 0, V, None),
    ("sigma", NAN, V, None),
    ("games_threshold", 0, V, None),
    ("turns_threshold", 2.5, T, None),
    ("workers", 0, V, None),
    ("workers", None, T, None),
    ("progress", 1, T, None),
    ("niche_dims", (5,), V, None),
    ("niche_dims", (5, 0), V, None),
    ("response_threshold", -1, V, None),
    ("empty_niche", "x", V, None),
    ("table", "x", T, None),
    ("oracle_table", "x", T, None),
    ("partners", [], V, None),
    ("partners", [1], T, None),
    ("partners", "piers", T, None),
    ("responses", responses(1), V, r"responses has 1 policies"),
]:
    case(f"evaluate_meta({field}={v!r})", lambda f=field, v=v: meta_eval(**{f: v}), kind, field, rx)
for field, v, kind in [
    ("partners", [], V),
    ("partners", ["piers"], T),
    ("games", 0, V),
    ("games", 1.5, T),
    ("seed", -1, V),
    ("scoring", "x", V),
    ("workers", 0, V),
]:
    args = {"partners": responses(), "games": 1, field: v}
    case(f"self_play_measures({field}={v!r})", lambda a=args: self_play_measures(**a), kind, field)
case("table_niche_mae(table='x')", lambda: table_niche_mae("x", np.zeros((2, 2))), T, "table")
case(
    "table_niche_mae(dims=(5,))",
    lambda: table_niche_mae(table(), np.zeros((2, 2)), dims=(5,)),
    V,
    "dims",
)
case(
    "table_niche_mae(exclude_self=1)",
    lambda: table_niche_mae(table(), np.zeros((2, 2)), exclude_self=1),
    T,
    "exclude_self",
)


# ------------------------------------------------------------------------------------------
# 7. the study, sizes beyond memory, values no run can make (issue "One folder, one writer")
# ------------------------------------------------------------------------------------------

for field, v, kind in [
    ("runs", 1.5, T),
    ("runs", True, T),
    ("runs", 0, V),
    ("seed", "0", T),
    ("seed", None, T),
    ("seed", 2**64, V),
    ("seed", -1, V),
    ("episodes", 2.0, T),
    ("candidates", 0, V),
    ("variants", ("adaptive", "adaptive"), V),
    ("variants", (), V),
    ("variants", "adaptive", T),
    ("scoring", 1, T),
]:
    case(
        f"PipelineConfig({field}={v!r})", lambda f=field, v=v: PipelineConfig(**{f: v}), kind, field
    )
for v, kind in [(-3, V), (0, V), (1.5, T), (True, T)]:
    case(f"run_pipeline(workers={v!r})", lambda v=v: run_pipeline(workers=v), kind, "workers")
case("run_pipeline(quiet=1)", lambda: run_pipeline(quiet=1), T, "quiet")
case("MapElitesConfig(measures=('nope', 'ipp'))",
     lambda: MapElitesConfig(measures=("nope", "ipp")), V, "measures")  # fmt: skip
case("GAConfig(pool=())", lambda: GAConfig(pool=()), V, "pool")
case("make('piers ')", lambda: make("piers "), V, "name", r"unknown agent 'piers '")
for attr in ("score", "is_terminal", "current_player", "n_moves", "fireworks_total"):
    case(f"HanabiGame().{attr} before reset", lambda a=attr: getattr(game(False), a), R, attr,
         r"call reset\(seed\) before")  # fmt: skip
for gene in (999, -1):
    genes = np.full((2, 5), 3)
    genes[1, 2] = gene
    rx = rf"chromosomes\[1\]\[2\]={gene} is out of range"
    case(f"population_fitness(gene {gene})", lambda g=genes: population_fitness(g, games=1), V,
         "chromosomes", rx)  # fmt: skip
    rx = rf"solutions\[1\]\[2\]={gene} is out of range"
    case(f"matchup_table(gene {gene})", lambda g=genes: matchup_table(g, games=1), V,
         "solutions", rx)  # fmt: skip
    case(f"evaluate_solutions(gene {gene})", lambda g=genes: evaluate_solutions(g, [0, 1], 1),
         V, "solutions", rx)  # fmt: skip


def nan_table() -> ResponseTable:
    t = table()
    t.scores[:] = NAN
    return t


NAN_RX = r"table\.scores\[0, 0\]=nan is out of range"
case("BayesianMetaAgent(all-NaN table)", lambda: BayesianMetaAgent(nan_table(), responses()),
     V, "table", NAN_RX)  # fmt: skip
case("ResponseMetaAgent(all-NaN table)", lambda: ResponseMetaAgent(nan_table(), responses()),
     V, "table", NAN_RX)  # fmt: skip
case("evaluate_meta(all-NaN table)", lambda: meta_eval(table=nan_table()), V, "table", NAN_RX)
case("BayesianMetaAgent(score 92.3)", lambda: BayesianMetaAgent(
    ResponseTable(**{**table().__dict__, "scores": np.full((2, 2), 92.3)}), responses()),
    V, "table", r"table\.scores\[0, 0\]=92\.3 is out of range")  # fmt: skip
HUGE = 10**12
case("evaluate(games=10**12)", lambda: evaluate("piers", games=HUGE), V, "games", r"allowed: <=")
case("build_table(games=10**12)", lambda: build_table(responses(), responses(), HUGE), V, "games")
case("matchup_table(games=10**12)", lambda: matchup_table(np.ones((2, 3), int), games=HUGE), V,
     "games")  # fmt: skip
case("population_fitness(games=10**12)",
     lambda: population_fitness(np.ones((2, 3), int), games=HUGE), V, "games")  # fmt: skip
case("game_seeds(0, 10**12, 2)", lambda: game_seeds(0, HUGE, 2, False), V, "n_games")
case("evaluate_meta(episodes=10**12)", lambda: meta_eval(episodes=HUGE), V, "episodes")
case("self_play_measures(games=10**12)", lambda: self_play_measures(responses(), HUGE), V,
     "games")  # fmt: skip


class _Huge:
    """A sequence of 10**8 cards that must never be read (only its length)."""

    def __len__(self) -> int:
        return 10**8

    def __iter__(self):
        raise AssertionError("the deck was converted before its length was checked")

    __getitem__ = __iter__


case("reset_with_deck(10**8 cards)", lambda: game().reset_with_deck(_Huge()), V, "deck",
     r"deck must be a permutation .* got 100000000 cards")  # fmt: skip
if Path("/dev/zero").exists():
    case("load_archive_source('/dev/zero')", lambda: load_archive_source("/dev/zero"), V,
         "SOURCE", r"/dev/zero is not a regular file")  # fmt: skip


# ------------------------------------------------------------------------------------------
# 8. the vector env and hanab.live records (issue 41, item 8)
# ------------------------------------------------------------------------------------------


def venv(reset: bool = True, **kw) -> HanabiVectorEnv:
    e = HanabiVectorEnv(2, **kw)
    if reset:
        e.reset(seed=0)
    return e


for v, kind in [(0, V), (-1, V), (True, T), (2.0, T), ("2", T)]:
    case(f"HanabiVectorEnv({v!r})", lambda v=v: HanabiVectorEnv(v), kind, "num_envs")
case("HanabiVectorEnv(2**20)", lambda: HanabiVectorEnv(2**20), V, "num_envs",
     r"num_envs=1,048,576 is out of range: .* GiB .*; allowed: <= 262,144")  # fmt: skip
case("HanabiVectorEnv(2**62)", lambda: HanabiVectorEnv(2**62), V, "num_envs",
     r"num_envs=4,611,686,018,427,387,904 is out of range")  # fmt: skip
for kw, kind, name in [
    ({"threads": 0}, V, "threads"),
    ({"threads": 65}, V, "threads"),
    ({"illegal_reward": NAN}, V, "illegal_reward"),
    ({"illegal_reward": "-1"}, T, "illegal_reward"),
    ({"copy": 1}, T, "copy"),
    ({"all_observations": "yes"}, T, "all_observations"),
    ({"autoreset_mode": None}, T, "autoreset_mode"),
]:
    case(f"HanabiVectorEnv(2, {kw!r})", lambda kw=kw: HanabiVectorEnv(2, **kw), kind, name)
case("HanabiVectorEnv.reset(options=['reset_mask'])",
     lambda: venv(False).reset(options=["reset_mask"]), T, "options")  # fmt: skip
case("HanabiVectorEnv.reset(options={'mask': ...})",
     lambda: venv(False).reset(options={"mask": None}), V, "options",
     r"options \['mask'\] are not allowed; allowed: reset_mask, deal_seeds")  # fmt: skip
for a in (-1, 20, 2**40):
    case(f"HanabiVectorEnv.step([{a}, 0])", lambda a=a: venv().step(np.array([a, 0])), V,
         "actions[0]", rf"actions\[0\]={a} is out of range; allowed: \[0, 19\]")  # fmt: skip


def record(**options) -> dict:
    r = hanabi_env.records.to_hanablive(game())
    r["options"].update(options)
    return r


for opt, v in [("oneExtraCard", "false"), ("oneLessCard", "true"), ("deckPlays", 0),
               ("timed", 1), ("cardCycle", "no")]:  # fmt: skip
    case(f"from_hanablive(options {opt}={v!r})",
         lambda opt=opt, v=v: from_hanablive(record(**{opt: v})), V, opt,
         rf"options\['{opt}'\]={v!r} is not allowed; allowed: true or false")  # fmt: skip
for opt, v in [("timeBase", "60"), ("timePerTurn", True), ("timePerTurn", 1.5)]:
    case(f"from_hanablive(options {opt}={v!r})",
         lambda opt=opt, v=v: from_hanablive(record(**{opt: v})), V, opt,
         rf"options\['{opt}'\]={v!r} is not allowed; allowed: an int")  # fmt: skip
case("from_hanablive(startingPlayer=True)", lambda: from_hanablive(record(startingPlayer=True)),
     V, "startingPlayer", r"options\['startingPlayer'\]=True is not a seat")  # fmt: skip
case("from_hanablive(options='')", lambda: from_hanablive(dict(record(), options="")), V,
     "options", r"record\['options'\] must be an object")  # fmt: skip


# ------------------------------------------------------------------------------------------
# the tests
# ------------------------------------------------------------------------------------------


def test_the_table_is_large_and_unique():
    assert len(CASES) >= 300
    descs = [c[0] for c in CASES]
    assert len(set(descs)) == len(descs), [d for d in descs if descs.count(d) > 1]


@pytest.mark.parametrize(("desc", "call", "exc", "rx"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_the_exact_error(desc, call, exc, rx):
    with pytest.raises(exc) as info:
        call()
    assert type(info.value) is exc, f"{desc}: {type(info.value).__name__}: {info.value}"
    assert re.search(rx, str(info.value)), f"{desc}: {info.value!s} does not match {rx!r}"


# ------------------------------------------------------------------------------------------
# good inputs: numpy integers are ints, ints are floats, numpy bools are bools
# ------------------------------------------------------------------------------------------


def test_numpy_integers_and_bools_are_accepted_and_stored_plain():
    c = HanabiConfig(
        colors=np.int64(5),
        players=np.int32(3),
        hand_size=np.uint8(5),
        max_information_tokens=np.int16(100),
        max_life_tokens=np.int64(1),
        random_start_player=np.bool_(True),
    )
    assert type(c.players) is int
    assert type(c.random_start_player) is bool
    assert c == HanabiConfig(
        players=3, max_information_tokens=100, max_life_tokens=1, random_start_player=True
    )


def test_game_accepts_numpy_integers():
    g = HanabiGame(players=3)
    g.reset(np.int64(7), start_player=np.int32(2))
    assert g.current_player == 2
    g.view(np.int64(1), seer=np.bool_(False))
    g.metrics(np.uint8(0))
    g.step(np.int64(g.legal_actions()[0]))
    g.reset_with_deck(np.asarray(deck(), dtype=np.int16), np.int64(1))
    assert g.action_to_string(np.int64(0), seat=np.int64(1))


def test_env_accepts_numpy_integers_and_a_bad_reset_changes_nothing():
    e = hanabi_env.raw_env(players=np.int64(2))
    e.reset(seed=np.int64(3), options={"deal_seed": np.int64(5), "start_player": np.int64(1)})
    assert e.agent_selection == "player_1"
    e.step(np.int64(e.legal_moves[0]))
    before = e.state().copy(), e._np_random.bit_generator.state
    for bad in ({"deal_seed": -1}, {"start_player": 2}, {"deck": [0] * 50}):
        with pytest.raises(ValueError, match=r"deal_seed|start_player|deck"):
            e.reset(options=bad)
    assert np.array_equal(e.state(), before[0])
    assert e._np_random.bit_generator.state == before[1]
    e.reset(options={"deck": deck(), "deal_seed": None, "start_player": None})
    w = hanabi_env.env()
    w.reset(seed=np.uint32(2))
    w.step(np.int64(w.unwrapped.legal_moves[0]))


def test_qd_and_meta_accept_numpy_integers_and_int_rates():
    cfg = MapElitesConfig(
        players=np.array([2, 3]),
        dims=[np.int64(5), np.int64(4)],
        seed=np.uint64(3),
        crossover_rate=1,
        mutation_rate=np.float32(0.25),
        candidates=np.int64(10),
        random_candidates=np.int64(10),
    )
    assert cfg.players == (2, 3)
    assert cfg.dims == (5, 4)
    assert type(cfg.seed) is int
    assert type(cfg.crossover_rate) is float
    assert cfg.as_dict()["crossover_rate"] == 1.0
    assert MapElitesConfig.from_dict(cfg.as_dict()) == cfg
    g = GAConfig(population=np.int64(6), players=[np.int64(2)], n_genes=None, crossover_rate=0)
    assert g.population == 6
    assert g.players == (2,)
    assert RuleAgent([np.int64(8), "X1"], seed=np.int64(1)).chromosome == (8, 105)
    assert make("piers", seed=np.int64(2)).name == "Piers"
    agent = bayes(sigma=1, games_threshold=np.int64(2), seed=np.int64(4))
    assert agent.sigma == 1.0
    assert agent.start_game("p") == agent.response
    assert niche_of(np.float64(0.5), math.nan) is None
    assert niche_of(1, 0, np.array([5, 5])) == (
        4,
        0,
    )
    assert len(game_seeds(np.int64(1), np.int64(3), np.int64(2), np.bool_(True))[0]) == 3


def test_evaluate_accepts_numpy_sizes_and_counts_each_size_once():
    r = evaluate("piers", players=np.array([2, 3]), games=np.int64(2), seed=np.int64(1), workers=1)
    assert r.players == (2, 3)
    assert len(r.rows) == 2
    batch = play(["piers", "iggi"], games=np.int64(2), seed=np.uint8(3), workers=np.int64(1))
    assert batch.scores.shape == (2,)


def test_env_refuses_an_out_of_range_action_naming_the_range():
    """``env()`` raised a bare ``AssertionError`` (PettingZoo's bounds wrapper); now a
    ``ValueError`` naming the range, still an ``AssertionError`` for hanabi_v5 code; no change."""
    e = wrapped(True)
    n = e.action_space(e.agent_selection).n
    before = e.unwrapped.game.n_moves
    for action in (n, 999, -1):
        with pytest.raises(
            ValueError, match=rf"action={action} is out of range; allowed: \[0, {n - 1}\]"
        ) as info:
            e.step(action)
        assert isinstance(info.value, AssertionError)
        assert e.unwrapped.game.n_moves == before
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert e.unwrapped.game.n_moves == before + 1
