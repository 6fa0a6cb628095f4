"""The reference bots (agents.bots, docs/bots.md) against the C++ programs they re-implement.

Game for game: ``tests/data/quux/<bot>.json`` holds games the C++ bots (Quuxplusone/Hanabi
daef9de) played on this engine's deals, recorded with ``tools/quux_differential.py --record``
(provenance in each file). Our bot, on the same deck, must make every move the C++ bot made and
reach its score. The recorded moves replayed on this engine check that the two engines' rules
agree (docs/rules.md §15). If the C++ build is there (``tools/quux_oracle.py build``), a few
fresh deals are also played live.
"""

from __future__ import annotations

import importlib.util

import pytest

from agents import make
from agents.bots import BOTS, bot_key, make_bot
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
