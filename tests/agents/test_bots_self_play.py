"""One reference bot in every seat plays in its compiled loop (agents.bots.self_play).

docs/bots.md §4. ``agents.evaluate.play_games`` (so ``evaluate("smartbot")`` and ``hanabi-adhoc
evaluate smartbot``) plays a batch whose every seat holds one bot of
``agents.bots.COMPILED_SELF_PLAY`` in that bot's compiled loop. The same batch through the
per-move Python loop (a subclass of the bot, which the dispatch leaves alone) must give the
same scores, moves and behaviour counters on the same deal seeds.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.bots import BOTS, COMPILED_SELF_PLAY, make_bot
from agents.bots.infobot import InfoBot
from agents.bots.self_play import compiled_self_play
from agents.bots.smart import SmartBot
from agents.evaluate import evaluate, play_games
from hanabi_env import HanabiConfig
from hanabi_env.config import rulebook_hand_size
from tests.helpers import run_python


class PySmartBot(SmartBot):
    """SmartBot as a subclass: the dispatch leaves it to the per-move Python loop."""


class PyInfoBot(InfoBot):
    """InfoBot as a subclass: the dispatch leaves it to the per-move Python loop."""


PYTHON_TWIN = {"smartbot": PySmartBot, "infobot": PyInfoBot}


def _config(players: int, **kw) -> HanabiConfig:
    return HanabiConfig(players=players, hand_size=rulebook_hand_size(players), **kw)


def test_table_names_bots_and_loadable_loops():
    """Every entry of the table is a bot and names a function that exists."""
    import importlib

    assert {"smartbot", "infobot"} <= set(COMPILED_SELF_PLAY)
    for key, spec in COMPILED_SELF_PLAY.items():
        assert key in BOTS
        module, _, name = spec.partition(":")
        assert callable(getattr(importlib.import_module(module), name))


def test_dispatch_only_for_one_bot_class_in_a_game_it_plays():
    """The compiled loop is chosen for one exact bot class, seat 0 first, a game it accepts."""
    cfg = _config(3)
    assert compiled_self_play([SmartBot(), SmartBot()], cfg) == "smartbot"
    assert compiled_self_play([make_bot("infobot")], cfg) == "infobot"
    assert compiled_self_play([PySmartBot()], cfg) is None  # a subclass may decide otherwise
    assert compiled_self_play([SmartBot(), InfoBot()], cfg) is None
    assert compiled_self_play([SmartBot()], _config(3, random_start_player=True)) is None
    assert compiled_self_play([SmartBot()], HanabiConfig(players=2, hand_size=4)) is None


@pytest.mark.parametrize(
    ("bot", "players"), [("smartbot", 2), ("smartbot", 5), ("infobot", 3), ("infobot", 4)]
)
def test_compiled_batch_equals_python_loop(bot, players):
    """Scores, moves, counters and move uids equal the per-move Python loop's, game for game."""
    cfg = _config(players, scoring="strict")
    n = 12
    deals = np.arange(500, 500 + n, dtype=np.int64)
    seats = np.zeros((n, players), dtype=np.int64)
    seeds = np.arange(n * players, dtype=np.int64).reshape(n, players)
    fast = play_games([make_bot(bot)], seats, deals, seeds, cfg, record_actions=True, chunk_size=5)
    slow = play_games([PYTHON_TWIN[bot]()], seats, deals, seeds, cfg, record_actions=True)
    assert fast.actions is not None
    assert slow.actions is not None
    np.testing.assert_array_equal(fast.actions, slow.actions)
    np.testing.assert_array_equal(fast.scores, slow.scores)
    np.testing.assert_array_equal(fast.counters, slow.counters)
    assert fast.moves == slow.moves > 0
    assert fast.scores.max() > 0


def test_progress_is_called_per_chunk():
    """``progress`` hears of every game, chunk by chunk, as on the other paths."""
    seen: list[int] = []
    cfg = _config(2)
    n = 7
    play_games(
        [SmartBot()],
        np.zeros((n, 2), dtype=np.int64),
        np.arange(n, dtype=np.int64),
        np.zeros((n, 2), dtype=np.int64),
        cfg,
        chunk_size=3,
        progress=seen.append,
    )
    assert seen == [3, 3, 1]


def test_cli_evaluate_smartbot_equals_the_python_loop(tmp_path):
    """``hanabi-adhoc evaluate smartbot`` reports what the Python loop plays on the same seeds."""
    out = tmp_path / "eval.json"
    args = ["-m", "hanabi_adhoc", "evaluate", "smartbot", "--players", "2,4", "--games", "8"]
    proc = run_python([*args, "--json", str(out), "--quiet", "--workers", "1"], tmp_path, 600)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(out.read_text())
    want = evaluate(PySmartBot(), players=(2, 4), games=8, workers=1).to_dict()
    assert [(r["players"], r["mean"], r["sem"]) for r in got["rows"]] == [
        (r["players"], r["mean"], r["sem"]) for r in want["rows"]
    ]
    assert got["metrics"] == want["metrics"]
