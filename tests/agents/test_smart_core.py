"""SmartBot compiled (agents.bots.smart_core, smart_games) against SmartBot in Python.

docs/bots.md §4. The Python bot (``SmartBot(compiled=False)``) is the specification: the
compiled policy (``SmartBot()``, numba kernels per move) and the compiled self-play loop
(:func:`agents.bots.smart_games.play_smartbot_games`) must make its moves, every one, on the
same deals; the loop must also make the recorded C++ games' moves (tests/data/quux).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.bots.smart import SmartBot
from agents.bots.smart_games import play_smartbot_games
from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env.config import rulebook_hand_size
from tests.agents.test_bots import _deck, _oracle

DATA = Path(__file__).resolve().parents[1] / "data" / "quux" / "smartbot.json"
DEALS = 50


def _config(players: int) -> HanabiConfig:
    return HanabiConfig(players=players, hand_size=rulebook_hand_size(players), scoring="lenient")


def _decks(players: int, seeds) -> np.ndarray:
    game = HanabiGame(_config(players))
    rows = []
    for seed in seeds:
        game.reset(seed)
        rows.append(np.asarray(game.state.deck, dtype=np.int64).copy())
    return np.stack(rows)


def _policy_game(bot: SmartBot, players: int, deck: np.ndarray) -> tuple[list[int], int]:
    """One object in every seat, through HanabiGame views: (move uids, lenient score)."""
    game = HanabiGame(_config(players))
    game.reset_with_deck(deck)
    bot.reset()
    moves = []
    while not game.is_terminal:
        move = bot.act(game.view(game.current_player))
        moves.append(int(move))
        game.step(move)
    return moves, int(game.fireworks_total)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_compiled_makes_the_python_bots_moves(players):
    """On 50 deals per size, loop, compiled policy and Python policy make the same moves."""
    decks = _decks(players, range(DEALS))
    scores, actions = play_smartbot_games(_config(players), decks, record=True)
    assert actions is not None
    python, compiled = SmartBot(compiled=False), SmartBot()
    for k in range(DEALS):
        spec, score = _policy_game(python, players, decks[k])
        looped = [int(a) for a in actions[k] if a >= 0]
        assert looped == spec, f"{players}p deal {k}: the loop differs from the Python bot"
        assert int(scores[k]) == score
        fast, fast_score = _policy_game(compiled, players, decks[k])
        assert fast == spec, f"{players}p deal {k}: the compiled policy differs"
        assert fast_score == score


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_loop_makes_the_recorded_cpp_moves(players):
    """The compiled loop replays every recorded C++ SmartBot game move for move and score."""
    games = json.loads(DATA.read_text())["games"][str(players)]
    decks = np.array([_deck(g["deck"]) for g in games], dtype=np.int64)
    scores, actions = play_smartbot_games(_config(players), decks, record=True)
    assert actions is not None
    Q = _oracle()
    for k, g in enumerate(games):
        game = HanabiGame(_config(players))
        game.reset_with_deck(decks[k])
        for a in actions[k]:
            if a < 0:
                break
            game.step(int(a))
        ours = [Q.step_of(m) for m in game.view(0).moves]
        assert ours == [Q.Step.from_list(m) for m in g["moves"]], g["seed"]
        assert game.is_terminal
        assert int(scores[k]) == g["score"]


def test_loop_scores_under_strict_scoring():
    """The loop scores under the configuration's scoring: strict gives 0 after 3 mistakes."""
    decks = _decks(2, range(20))
    lenient, _ = play_smartbot_games(_config(2), decks)
    strict_cfg = HanabiConfig(players=2, hand_size=5, scoring="strict")
    strict, _ = play_smartbot_games(strict_cfg, decks)
    assert lenient.dtype == np.int64
    assert lenient.shape == (20,)
    assert np.all((strict == lenient) | (strict == 0))
    assert 15 < lenient.mean() <= 25


def test_loop_refuses_bad_input():
    """Bad arguments: one error naming the parameter and what is allowed."""
    decks = _decks(2, [0])
    with pytest.raises(ValueError, match="hand_size=4 is not allowed"):
        play_smartbot_games(HanabiConfig(players=2, hand_size=4), decks)
    with pytest.raises(TypeError, match="config"):
        play_smartbot_games("2p", decks)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="decks"):
        play_smartbot_games(_config(2), decks.astype(float))
    with pytest.raises(ValueError, match=r"decks must have shape \(n_games, 50\)"):
        play_smartbot_games(_config(2), decks[:, :40])
    with pytest.raises(TypeError, match="compiled"):
        SmartBot(compiled="yes")  # type: ignore[arg-type]


def test_compiled_policy_refuses_other_games_and_restarts():
    """The compiled policy refuses another game, and a shorter history starts a new game."""
    game = HanabiGame(HanabiConfig(players=2, colors=4))
    game.reset(0)
    with pytest.raises(ValueError, match="colors=4 is not allowed"):
        SmartBot().act(game.view(0))
    bot = SmartBot()
    deck = _decks(3, [7])[0]
    first, score = _policy_game(bot, 3, deck)
    game = HanabiGame(_config(3))
    game.reset_with_deck(deck)  # no reset of the bot: the shorter history says a new game
    again = []
    while not game.is_terminal:
        move = bot.act(game.view(game.current_player))
        again.append(int(move))
        game.step(move)
    assert again == first
    assert game.fireworks_total == score
