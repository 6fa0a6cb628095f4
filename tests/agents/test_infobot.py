"""InfoBot (agents.bots.infobot, docs/bots_infobot.md) against the C++ InfoBot it re-implements.

Game for game: ``tests/data/quux/infobot/games.json`` holds games the C++ InfoBot (Quuxplusone/
Hanabi daef9de) played on this engine's deals, recorded with
``tools/quux_infobot_differential.py --record`` (provenance in the file). Our bot, on the same
deck, must make every move the C++ bot made and reach its score, both as a policy in a Python
game loop and in the compiled self-play loop. When the C++ build is there
(``tools/quux_oracle.py build``), a few fresh deals are also played live.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import make
from agents.bots.infobot import InfoBot, check_infobot_game
from agents.bots.infobot_games import infobot_config, play_infobot_games
from agents.policy import play_out
from hanabi_env import HanabiConfig, HanabiGame
from tests.agents.helpers import deck as _deck
from tests.agents.helpers import oracle as _oracle
from tests.agents.helpers import recorded, recorded_path
from tests.helpers import ROOT, run_python

DATA = recorded_path("infobot")
TOOL = ROOT / "tools" / "quux_infobot_differential.py"


def _data() -> dict:
    return recorded("infobot")


def _steps(game: HanabiGame) -> list:
    Q = _oracle()
    return [Q.step_of(m) for m in game.view(0).moves]


def _mismatch_text(players, g, ours, theirs, i):
    return (
        f"InfoBot {players}p deal {g['seed']}: move {i} is "
        f"{ours[i] if i < len(ours) else None}, the C++ bot's "
        f"{theirs[i] if i < len(theirs) else None}"
    )


def test_recorded_data_has_provenance():
    """The recorded games name the oracle's commit, the command and cover every size."""
    data = _data()
    assert data["source"].startswith("Quuxplusone/Hanabi commit daef9de")
    assert "quux_infobot_differential.py" in data["command"]
    assert data["bot"] == "infobot"
    for players in (2, 3, 4, 5):
        assert len(data["games"][str(players)]) >= 10


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_recorded_games_move_for_move_policy(players):
    """The policy in a Python game loop makes the C++ bot's moves on every recorded deal."""
    Q = _oracle()
    for g in _data()["games"][str(players)]:
        theirs = [Q.Step.from_list(m) for m in g["moves"]]
        ours, score, error = Q.play_ours(InfoBot, players, _deck(g["deck"]))
        assert error is None, (g["seed"], error)
        i = Q.first_mismatch(ours, theirs)
        assert i is None, _mismatch_text(players, g, ours, theirs, i)
        assert score == g["score"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_recorded_games_move_for_move_compiled(players):
    """The compiled self-play loop makes the same moves and reaches the same scores."""
    Q = _oracle()
    games = _data()["games"][str(players)]
    decks = np.asarray([_deck(g["deck"]) for g in games])
    scores, actions = play_infobot_games(infobot_config(players), decks, record=True)
    assert actions is not None
    game = HanabiGame(infobot_config(players))
    for g, deck, row, score in zip(games, decks, actions, scores, strict=True):
        game.reset_with_deck(deck)
        for uid in row[row >= 0]:
            game.step(int(uid))
        assert game.is_terminal
        ours, theirs = _steps(game), [Q.Step.from_list(m) for m in g["moves"]]
        i = Q.first_mismatch(ours, theirs)
        assert i is None, _mismatch_text(players, g, ours, theirs, i)
        assert score == g["score"] == game.fireworks_total


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_recorded_moves_are_legal_here(players):
    """The C++ games replay on this engine: same mover, legal, same card, same end and score."""
    Q = _oracle()
    for g in _data()["games"][str(players)]:
        moves = [Q.Step.from_list(m) for m in g["moves"]]
        game = Q.replay(players, _deck(g["deck"]), moves)
        assert game.fireworks_total == g["score"]


def test_a_changed_move_is_caught():
    """The comparison can fail: one recorded move changed is reported at its index."""
    Q = _oracle()
    g = _data()["games"]["3"][0]
    theirs = [Q.Step.from_list(m) for m in g["moves"]]
    k = next(i for i, s in enumerate(theirs) if s.kind == "reveal_rank")
    s = theirs[k]
    theirs[k] = Q.Step(s.actor, s.kind, s.slot, s.target, s.color, (s.rank + 1) % 5)
    ours, _, _ = Q.play_ours(InfoBot, 3, _deck(g["deck"]))
    assert Q.first_mismatch(ours, theirs) == k


def test_differential_tool_on_recorded_data():
    """The differential tool, run as a user runs it, checks both paths against the data."""
    done = run_python(
        [str(TOOL), "--recorded", str(DATA), "--ours", "both", "--players", "2", "4"],
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 2 ")]
    assert len(rows) == 1
    assert "| 0 |" in rows[0]  # no mismatching deck


def test_differential_tool_refuses_bad_arguments():
    """Bad arguments: one error line naming the option, exit status 2."""
    done = run_python([str(TOOL), "--players", "6", "--decks", "3"], cwd=ROOT, timeout=120)
    assert done.returncode == 2
    assert "--players must be among 2 3 4 5" in done.stderr


def _advanced(players: int, deck: list[int], moves: int) -> HanabiGame:
    """A game on ``deck`` after ``moves`` moves of InfoBots."""
    game = HanabiGame(infobot_config(players))
    game.reset_with_deck(deck)
    seats = [InfoBot() for _ in range(players)]
    for _ in range(moves):
        game.step(seats[game.current_player].act(game.view(game.current_player)))
    return game


def test_one_object_plays_every_seat_and_resets():
    """One InfoBot object in every seat plays as one object per seat, game after game."""
    Q = _oracle()
    g = _data()["games"]["3"][0]
    theirs = [Q.Step.from_list(m) for m in g["moves"]]
    shared = InfoBot()
    game = HanabiGame(infobot_config(3))
    for _ in range(2):  # reset() between games
        game.reset_with_deck(_deck(g["deck"]))
        shared.reset()
        play_out(game, [shared] * 3)
        assert _steps(game) == theirs
    # without reset: a view with a shorter history starts a new game too
    game.reset_with_deck(_deck(g["deck"]))
    play_out(game, [shared] * 3)
    assert _steps(game) == theirs


def test_views_of_another_game_are_refused():
    """A longer history that does not continue the one seen (another game) is refused."""
    games = _data()["games"]["3"]
    shared = InfoBot()
    a = _advanced(3, _deck(games[0]["deck"]), 3)
    shared.act(a.view(0))
    b = _advanced(3, _deck(games[1]["deck"]), 12)
    view = b.view(0)
    with pytest.raises(ValueError, match="does not follow from the moves InfoBot has seen"):
        shared.act(view)


def test_plays_with_other_partners():
    """With rule-agent partners InfoBot still makes a legal move on every turn, to the end."""
    for players in (2, 3, 4, 5):
        game = HanabiGame(infobot_config(players))
        for seed in range(3):
            game.reset(seed)
            seats = [InfoBot() if p % 2 == 0 else make("piers", seed=seed) for p in range(players)]
            for s in seats:
                s.reset()
            play_out(game, seats)
            assert game.is_terminal


def test_make_builds_infobot():
    """agents.make resolves the name to this policy."""
    bot = make("infobot")
    assert isinstance(bot, InfoBot)
    assert bot.name == "infobot"


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"players": 2, "colors": 4}, "colors=4"),
        ({"players": 3, "hand_order": "fixed"}, "hand_order='fixed'"),
        ({"players": 2, "max_information_tokens": 6}, "max_information_tokens=6"),
        ({"players": 2, "max_life_tokens": 1}, "max_life_tokens=1"),
    ],
)
def test_refuses_a_game_it_cannot_play(kwargs, needle):
    """A game InfoBot cannot play: one ValueError naming the setting, from check_game and act."""
    config = HanabiConfig(**kwargs)
    with pytest.raises(ValueError, match="InfoBot cannot play this game") as err:
        check_infobot_game(config)
    assert needle in str(err.value)
    bot = InfoBot()
    with pytest.raises(ValueError, match="InfoBot cannot play this game"):
        bot.check_game(config)
    game = HanabiGame(config)
    game.reset(0)
    with pytest.raises(ValueError, match=needle.replace("(", r"\(")):
        bot.act(game.view(0))


def test_bad_arguments():
    """Bad arguments name the parameter."""
    with pytest.raises(TypeError, match="view"):
        InfoBot().act("not a view")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="config"):
        check_infobot_game("2p")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="decks must have shape"):
        play_infobot_games(infobot_config(2), np.zeros((2, 7), dtype=np.int64))
    with pytest.raises(ValueError, match="players"):
        infobot_config(6)
    game = HanabiGame(infobot_config(2))
    game.reset(0)
    with pytest.raises(ValueError, match="not on turn"):
        InfoBot().act(game.view(1))


def test_deterministic_and_scores_like_the_reference():
    """Self-play on 200 deals per size: deterministic, and near the C++ bot's published means.

    The published means (src/README.md of the reference: 20.00 / 24.26 / 24.86 / 24.89) are
    over other deals, so this allows 4 standard errors.
    """
    Q = _oracle()
    published = {2: 20.00, 3: 24.26, 4: 24.86, 5: 24.89}
    for players, mean in published.items():
        decks = np.stack([Q.deal(players, 10_000 + s) for s in range(200)])
        a, _ = play_infobot_games(infobot_config(players), decks)
        b, _ = play_infobot_games(infobot_config(players), decks)
        assert np.array_equal(a, b)
        sem = a.std(ddof=1) / np.sqrt(a.size)
        assert abs(a.mean() - mean) <= 4 * sem + 0.05, (players, a.mean(), mean, sem)


def test_live_oracle_if_built():
    """Fresh deals against the C++ program, when it is built (else skipped, with the reason)."""
    Q = _oracle()
    out = Q.built()
    if out is None:
        pytest.skip(
            f"the C++ bots are not built in {Q.default_build_dir()} (tools/quux_oracle.py build)"
        )
    for players in (2, 3, 4, 5):
        for seed in (5000, 5001):
            deck = Q.deal(players, seed)
            oracle = Q.run_oracle("infobot", players, deck, out)
            ours, score, error = Q.play_ours(InfoBot, players, deck)
            assert error is None
            assert Q.first_mismatch(ours, oracle.steps) is None, (players, seed)
            assert score == oracle.score
