"""The text view for language-model agents: prompt, reply parser, TextPolicy and its counts."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from agents import play
from agents.human import describe_action, numbered_moves
from agents.text import ReplyStats, TextPolicy, describe_game, parse_reply
from hanabi_env.game import HanabiGame


@pytest.fixture
def view():
    game = HanabiGame(players=2)
    game.reset(3)
    return game.view(0)


def test_prompt_holds_the_board_and_every_legal_move_in_words(view):
    text = describe_game(view)
    legal = view.legal_actions()
    for i, uid in enumerate(numbered_moves(view, legal)):
        assert f"[{i}] {describe_action(view, uid)}" in text
    assert "player_1: 0:" in text  # the partner's cards are shown
    assert "you     : 0:??" in text  # its own are hidden


def test_numbers_and_words_read_back_to_the_same_move(view):
    legal = view.legal_actions()
    menu = numbered_moves(view, legal)
    for i, uid in enumerate(menu):
        words = describe_action(view, int(uid))
        assert parse_reply(f"[{i}]", view).action == uid
        assert parse_reply(f"I will {words.upper()}.", view).action == uid
    assert parse_reply(" 2 ", view).action == menu[2]


def test_the_last_mention_wins(view):
    menu = numbered_moves(view, view.legal_actions())
    assert parse_reply("maybe [1]? no: [4]", view).action == menu[4]
    assert parse_reply("play slot 0, or rather [6]", view).action == menu[6]


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("", "unparsable"),
        ("no idea", "unparsable"),
        ("[99]", "illegal"),
        ("discard slot 0", "illegal"),
        ("reveal B to player_1", "illegal"),
    ],
)
def test_bad_replies_are_unparsable_or_illegal(view, reply, status):
    # 8 hint tokens: discarding is illegal; player_1 holds no blue card in this deal
    assert "B" not in describe_game(view).split("player_1:")[1].split("\n")[0]
    read = parse_reply(reply, view)
    assert (read.action, read.status) == (None, status)
    assert read.reason


def test_text_policy_counts_replies_retries_and_falls_back(view):
    replies = iter(["gibberish", "[99]", "[0]", "nonsense", "more nonsense"])
    agent = TextPolicy(lambda prompt: next(replies), retries=1)
    first = agent.act(view)  # gibberish, then [99]: both refused, a random legal move
    assert first in view.legal_actions()
    assert agent.reply_stats.as_dict() == {
        "replies": 2,
        "unparsable": 1,
        "illegal": 1,
        "fallbacks": 1,
    }
    assert agent.act(view) == numbered_moves(view, view.legal_actions())[0]
    assert agent.reply_stats.replies == 3


def test_retry_prompt_says_why(view):
    prompts = []

    def model(prompt):
        prompts.append(prompt)
        return "[0]" if len(prompts) > 1 else "[42]"

    TextPolicy(model).act(view)
    assert "refused (illegal: there is no move [42]" in prompts[1]


def test_copies_share_the_counts_and_a_game_counts_every_reply():
    stats = ReplyStats()
    assert copy.deepcopy(stats) is stats
    rng = np.random.default_rng(0)
    agent = TextPolicy(lambda p: f"[{rng.integers(0, 3)}]", name="t")
    batch = play([agent, "piers"], games=2, seed=1, workers=1)
    assert agent.reply_stats.replies > 0
    assert agent.reply_stats.unparsable == agent.reply_stats.fallbacks == 0
    assert batch.scores.shape == (2,)


def test_a_model_must_return_text(view):
    with pytest.raises(TypeError, match="must return a str"):
        TextPolicy(lambda p: 3).act(view)
    with pytest.raises(TypeError, match="model"):
        TextPolicy("not callable")
