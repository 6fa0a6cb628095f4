"""The reference bots (agents.bots, docs/bots.md) against the C++ programs they re-implement.

Game for game: ``tests/data/quux/<bot>.json`` holds games the C++ bots (Quuxplusone/Hanabi
daef9de) played on this engine's deals, recorded with ``tools/quux_differential.py --record``
(provenance in each file). Our bot, on the same deck, must make every move the C++ bot made and
reach its score. The recorded moves replayed on this engine check that the two engines' rules
agree (docs/rules.md §15). If the C++ build is there (``tools/quux_oracle.py build``), a few
fresh deals are also played live.

SimpleBot, ValueBot and HolmesBot are also compiled (docs/bots.md §4.2): their policies decide
with the kernels of ``agents.bots.rule_bots_core`` and ``agents.bots.rule_bots_games`` plays
whole self-play games in one loop. Both are checked here game for game against the recorded C++
games and against the Python bots (``compiled=False``, the specification) on the same deals,
in self-play and beside a partner of another kind.
"""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np
import pytest

from agents import make
from agents.bots import BOTS, COMPILED_SELF_PLAY, bot_key, make_bot
from agents.bots.holmes import HolmesBot
from agents.bots.rule_bots_games import (
    play_holmesbot_games,
    play_simplebot_games,
    play_valuebot_games,
)
from agents.bots.simple import SimpleBot
from agents.bots.value import ValueBot
from hanabi_env import HanabiConfig, HanabiGame
from tests.agents.helpers import deck as _deck
from tests.agents.helpers import oracle as _oracle
from tests.agents.helpers import recorded as _games
from tests.helpers import ROOT, run_python

RECORDED = ("simplebot", "valuebot", "holmesbot", "smartbot")


def _cases():
    for bot in RECORDED:
        for players in (2, 3, 4, 5):
            yield pytest.param(bot, players, id=f"{bot}-{players}p")


@pytest.mark.parametrize(("bot", "players"), list(_cases()))
def test_recorded_games_move_for_move(bot, players):
    """Our bot makes the C++ bot's moves, every one, on every recorded deal."""
    Q = _oracle()
    data = _games(bot)
    assert data["source"].startswith("Quuxplusone/Hanabi commit daef9de")
    games = data["games"][str(players)]
    assert len(games) >= 10
    for g in games:
        deck = _deck(g["deck"])
        theirs = [Q.Step.from_list(m) for m in g["moves"]]
        ours, score, error = Q.play_ours(lambda: make_bot(bot), players, deck)
        assert error is None, (g["seed"], error)
        i = Q.first_mismatch(ours, theirs)
        assert i is None, (
            f"{bot} {players}p deal {g['seed']}: move {i} is "
            f"{ours[i] if i < len(ours) else None}, the C++ bot's "
            f"{theirs[i] if i < len(theirs) else None}"
        )
        assert score == g["score"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_recorded_moves_are_legal_here(players):
    """The C++ games replay on this engine: same mover, legal, same card, same end and score."""
    Q = _oracle()
    for bot in RECORDED:
        for g in _games(bot)["games"][str(players)][:10]:
            game = Q.replay(players, _deck(g["deck"]), [Q.Step.from_list(m) for m in g["moves"]])
            assert game.fireworks_total == g["score"]


def test_replay_rejects_a_wrong_move():
    """The rules check can fail: a move changed to an illegal one is named."""
    Q = _oracle()
    g = _games("simplebot")["games"]["2"][0]
    moves = [Q.Step.from_list(m) for m in g["moves"]]
    moves[0] = Q.Step(1, "play", 0)  # seat 0 moves first
    with pytest.raises(ValueError, match="seat 0 is to move"):
        Q.replay(2, _deck(g["deck"]), moves)


def test_one_object_plays_every_seat_and_resets():
    """One bot object in every seat plays as one object per seat, game after game."""
    Q = _oracle()
    g = _games("smartbot")["games"]["3"][0]
    shared = make("SmartBot")
    game = HanabiGame(Q.game_config(3))
    for _ in range(2):
        game.reset_with_deck(_deck(g["deck"]))
        shared.reset()
        while not game.is_terminal:
            cur = game.current_player
            game.step(shared.act(game.view(cur)))
        steps = [Q.step_of(m) for m in game.view(0).moves]
        assert steps == [Q.Step.from_list(m) for m in g["moves"]]
    # without reset: a view with a shorter history starts a new game too
    game.reset_with_deck(_deck(g["deck"]))
    while not game.is_terminal:
        game.step(shared.act(game.view(game.current_player)))
    assert game.fireworks_total == g["score"]


def test_live_oracle_if_built():
    """Fresh deals against the C++ programs, when they are built (else skipped, with the reason)."""
    Q = _oracle()
    out = Q.built()
    if out is None:
        pytest.skip(
            f"the C++ bots are not built in {Q.default_build_dir()} (tools/quux_oracle.py build)"
        )
    for bot in RECORDED:
        for players in (2, 3, 4, 5):
            for seed in (5000, 5001):
                report = Q.compare(bot, players, Q.deal(players, seed), out)
                assert report["index"] is None, (bot, players, report)
                assert report["error"] is None, (bot, players, report)


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("smartbot", "SmartBot"),
        ("SmartBot", "SmartBot"),
        ("smart", "SmartBot"),
        ("Simple_Bot", "SimpleBot"),
        ("SIMPLE", "SimpleBot"),
    ],
)
def test_names(spec, name):
    """agents.make resolves the field's names, case-insensitively."""
    assert make(spec).name == name
    assert bot_key(spec) in BOTS


def test_missing_module_is_a_clear_error():
    """A bot of the table whose module is not there (yet) is one ValueError naming it."""
    missing = [k for k in BOTS if importlib.util.find_spec(BOTS[k].partition(":")[0]) is None]
    if not missing:
        pytest.skip("every bot module is installed")
    with pytest.raises(ValueError, match="not available in this version"):
        make(missing[0])
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("cleverbot")


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (HanabiConfig(players=2, colors=4), "colors"),
        (HanabiConfig(players=4, hand_size=5), "hand_size"),
        (HanabiConfig(players=2, max_information_tokens=6), "max_information_tokens"),
        (HanabiConfig(players=2, hand_order="fixed"), "hand_order"),
    ],
)
def test_refuses_other_games(config, field):
    """A game the C++ bots cannot play: one ValueError naming the field, from check_game and act."""
    bot = make("smartbot")
    with pytest.raises(ValueError, match=field):
        bot.check_game(config)
    game = HanabiGame(config)
    game.reset(0)
    with pytest.raises(ValueError, match=f"{field}=.*allowed"):
        bot.act(game.view(0))


def test_cli_evaluate_smartbot():
    """The real command line evaluates a bot by name."""
    done = run_python(
        ["-m", "hanabi_adhoc", "evaluate", "SmartBot", "--games", "4", "--players", "2", "--quiet"],
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "SmartBot: mirror evaluation" in done.stdout
    mean = float(done.stdout.split("overall:")[1].split()[0])
    assert 10 <= mean <= 25


@pytest.mark.parametrize("partner", ["piers", "outer"])
def test_holmesbot_reads_a_hint_in_a_finished_colour(partner):
    # no HolmesBot hints a finished colour, but Piers and Outer do: it said nothing of the
    # value, where it used to raise IndexError (docs/results/bots-crossplay, 21 cells)
    from agents import evaluate, make

    result = evaluate(make("holmesbot"), mode="mixed", players=[2], games=100,
                      pool=[make(partner)], scoring="lenient", seed=0, workers=1)  # fmt: skip
    assert 0 < result.mean <= 25


# --- SimpleBot, ValueBot, HolmesBot compiled (docs/bots.md §4.2) ---
COMPILED = {
    "simplebot": (SimpleBot, play_simplebot_games),
    "valuebot": (ValueBot, play_valuebot_games),
    "holmesbot": (HolmesBot, play_holmesbot_games),
}
DEALS = 40


def _compiled_cases():
    for bot in COMPILED:
        for players in (2, 3, 4, 5):
            yield pytest.param(bot, players, id=f"{bot}-{players}p")


def _replayed(players: int, deck, actions, scoring: str = "lenient") -> HanabiGame:
    """The loop's moves of one game replayed on the engine (each must be legal there)."""
    config = HanabiConfig(players=players, hand_size=5 if players <= 3 else 4, scoring=scoring)
    game = HanabiGame(config)
    game.reset_with_deck(np.asarray(deck, dtype=np.int64))
    for a in actions:
        if a < 0:
            break
        assert not game.is_terminal, "the loop moves after the engine's end of the game"
        game.step(int(a))
    return game


def _policy_moves(policies, players: int, deck, seed: int = 0) -> tuple[list[int], int]:
    """``policies[seat]`` in each seat through HanabiGame: (move uids, lenient score)."""
    game = HanabiGame(_oracle().game_config(players))
    game.reset_with_deck(np.asarray(deck, dtype=np.int64))
    for p in policies:
        p.reset(seed)
    moves = []
    while not game.is_terminal:
        move = int(policies[game.current_player].act(game.view(game.current_player)))
        moves.append(move)
        game.step(move)
    return moves, int(game.fireworks_total)


@pytest.mark.parametrize(("bot", "players"), list(_compiled_cases()))
def test_compiled_loop_makes_the_recorded_cpp_moves(bot, players):
    """The compiled self-play loop replays every recorded C++ game, move for move and score."""
    Q = _oracle()
    games = _games(bot)["games"][str(players)]
    decks = np.array([_deck(g["deck"]) for g in games], dtype=np.int64)
    scores, actions = COMPILED[bot][1](Q.game_config(players), decks, record=True)
    assert actions is not None
    for k, g in enumerate(games):
        game = _replayed(players, decks[k], actions[k])
        assert game.is_terminal, g["seed"]
        ours = [Q.step_of(m) for m in game.view(0).moves]
        assert ours == [Q.Step.from_list(m) for m in g["moves"]], (bot, players, g["seed"])
        assert int(scores[k]) == g["score"] == game.fireworks_total


@pytest.mark.parametrize(("bot", "players"), list(_compiled_cases()))
def test_compiled_makes_the_python_bots_moves(bot, players):
    """On 40 deals, the loop, the compiled policy and the Python bot make the same moves.

    The loop's own table ends every game where the engine does, with the engine's score.
    """
    Q = _oracle()
    cls, loop = COMPILED[bot]
    decks = np.stack([Q.deal(players, seed) for seed in range(DEALS)])
    scores, actions = loop(Q.game_config(players), decks, record=True)
    assert actions is not None
    python = cls(compiled=False)
    compiled = cls()
    for k in range(DEALS):
        spec, score = _policy_moves([python] * players, players, decks[k])
        looped = [int(a) for a in actions[k] if a >= 0]
        assert looped == spec, f"{bot} {players}p deal {k}: the loop differs from the Python bot"
        assert int(scores[k]) == score == _replayed(players, decks[k], actions[k]).score
        fast, fast_score = _policy_moves([compiled] * players, players, decks[k])
        assert fast == spec, f"{bot} {players}p deal {k}: the compiled policy differs"
        assert fast_score == score


@pytest.mark.parametrize("bot", list(COMPILED))
@pytest.mark.parametrize("players", [2, 4])
def test_compiled_policy_in_mixed_games(bot, players):
    """Beside partners of another kind the compiled policy makes the Python bot's moves.

    Piers and Outer hint finished colours and make moves these bots never make (the hints
    these bots read in ways their own games never reach).
    """
    Q = _oracle()
    cls = COMPILED[bot][0]
    for k in range(12):
        deck = Q.deal(players, 100 + k)
        seat = k % players
        runs = []
        for bot_policy in (cls(compiled=False), cls()):
            seats = [make("piers" if k % 2 else "outer") for _ in range(players)]
            seats[seat] = bot_policy
            runs.append(_policy_moves(seats, players, deck, seed=k))
        (spec, score), (got, got_score) = runs
        assert got == spec, f"{bot} {players}p game {k}: the compiled policy differs"
        assert got_score == score


@pytest.mark.parametrize("bot", list(COMPILED))
def test_compiled_loop_strict_scoring(bot):
    """The loop scores under the configuration's scoring, as the engine does."""
    loop = COMPILED[bot][1]
    decks = np.stack([_oracle().deal(2, seed) for seed in range(30)])
    strict_cfg = HanabiConfig(players=2, hand_size=5, scoring="strict")
    strict, actions = loop(strict_cfg, decks, record=True)
    lenient, _ = loop(_oracle().game_config(2), decks)
    assert strict.dtype == np.int64
    assert strict.shape == (30,)
    assert actions is not None
    for k in range(30):
        assert strict[k] == _replayed(2, decks[k], actions[k], "strict").score
    assert np.all((strict == lenient) | (strict == 0))
    assert 10 < lenient.mean() <= 25


def test_compiled_loop_refuses_bad_input():
    """Bad arguments: one error naming the parameter and what is allowed."""
    decks = np.stack([_oracle().deal(2, 0)])
    with pytest.raises(ValueError, match="hand_size=4 is not allowed"):
        play_holmesbot_games(HanabiConfig(players=2, hand_size=4), decks)
    with pytest.raises(TypeError, match="config"):
        play_valuebot_games("2p", decks)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="decks"):
        play_simplebot_games(_oracle().game_config(2), decks.astype(float))
    with pytest.raises(ValueError, match=r"decks must have shape \(n_games, 50\)"):
        play_simplebot_games(_oracle().game_config(2), decks[:, :40])
    with pytest.raises(TypeError, match="compiled"):
        HolmesBot(compiled="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(COMPILED_SELF_PLAY))
def test_compiled_self_play_table(name):
    """Each registered loop plays the bot's own moves (what agents.make builds) at 3 players."""
    assert name in BOTS
    module, _, func = COMPILED_SELF_PLAY[name].partition(":")
    loop = getattr(importlib.import_module(module), func)
    Q = _oracle()
    decks = np.stack([Q.deal(3, seed) for seed in (1, 2)])
    scores, actions = loop(Q.game_config(3), decks, record=True)
    assert scores.shape == (2,)
    assert actions is not None
    for k in range(2):
        bot = make_bot(name)
        spec, score = _policy_moves([bot] * 3, 3, decks[k])
        assert [int(a) for a in actions[k] if a >= 0] == spec
        assert int(scores[k]) == score
