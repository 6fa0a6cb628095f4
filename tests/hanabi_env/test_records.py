"""hanab.live records (hanabi_env.records): the format, the end rule, the way back.

Every record is played on an independent model of hanab.live's server (tests/hanabi_env/
hanablive.py): it must accept every action and end exactly where the record ends.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env import engine as E
from hanabi_env.records import (
    HANABLIVE_HAND_SIZE,
    SUIT_NAMES,
    SUIT_OF_COLOR,
    check_hanablive_config,
    from_hanablive,
    hanablive_end,
    to_hanablive,
)
from tests.hanabi_env.hanablive import Refused, replay


def _playable(game: HanabiGame, card: int) -> bool:
    n_ranks = game.config.ranks
    return card >= 0 and game.state.public.fireworks[card // n_ranks] == card % n_ranks


def _seer(game: HanabiGame, rng: np.random.Generator, lazy: bool) -> int:
    """A policy that sees every card: play what is playable, hint it, discard the oldest.

    ``lazy``: once the deck is empty, hint rather than play (hands go dead on hanab.live).
    """
    seat, view = game.current_player, game.view(game.current_player)
    legal = set(game.legal_actions().tolist())
    hand = [int(E.card_of(game.state, seat, k)) for k in range(int(view.hand_lengths[seat]))]
    empty = view.deck_size == 0
    hints = [a for a in legal if a >= 2 * game.config.hand_size]
    if lazy and empty and hints:
        return int(rng.choice(hints))
    for k, card in enumerate(hand):
        if _playable(game, card):
            return view.action_uid("play", slot=k)
    if hints and rng.random() < 0.5:
        return int(rng.choice(hints))
    discard = view.action_uid("discard", slot=0)
    return discard if discard in legal else int(rng.choice(sorted(legal)))


def _play(game: HanabiGame, policy: str, seed: int) -> HanabiGame:
    rng = np.random.default_rng(seed)
    while not game.is_terminal:
        if policy == "random":
            action = int(rng.choice(game.legal_actions()))
        else:
            action = _seer(game, rng, lazy=policy == "lazy")
        game.step(action)
    return game


def _games(players: int, policy: str, n: int, hand_size: int | None = None):
    size = HANABLIVE_HAND_SIZE[players] if hand_size is None else hand_size
    for seed in range(n):
        game = HanabiGame(HanabiConfig(players=players, hand_size=size))
        game.reset(seed)
        yield _play(game, policy, seed)


def _check_on_server(game: HanabiGame) -> dict:
    """The record of ``game``, checked against the model of hanab.live's server."""
    record = json.loads(json.dumps(to_hanablive(game)))  # JSON values only
    info = record["hanabi_adhoc"]
    server = replay(record)  # raises Refused for an action hanab.live refuses
    assert len(record["actions"]) == info["moves"] == game.n_moves - info["truncated"]
    if info["ended"]:
        assert server.ended_after == len(record["actions"]), (server.end, info)
        assert server.end == info["end_reason"]
        assert server.score == info["hanablive_score"]
    else:
        assert not server.end
    assert info["engine_moves"] == game.n_moves
    assert info["engine_score"] == game.score
    return record


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_records_replay_on_hanablive_and_end_where_it_ends(players):
    reasons = set()
    for policy, n in (("random", 4), ("seer", 12), ("lazy", 24)):
        for game in _games(players, policy, n):
            record = _check_on_server(game)
            reasons.add(record["hanabi_adhoc"]["end_reason"])
            hand = HANABLIVE_HAND_SIZE[players]
            assert record["options"] == {"variant": "No Variant"}  # the rulebook's hand size
            assert game.config.hand_size == hand
    # every way hanab.live ends a game was met (so the comparison above covered it)
    assert {"strikeout", "final_round", "max_score", "no_playable_card"} <= reasons


@pytest.mark.parametrize("players", [4, 5])
def test_four_and_five_player_records_deal_four_card_hands(players):
    game = HanabiGame(HanabiConfig(players=players, hand_size=4))
    game.reset(0)
    record = to_hanablive(game)
    assert record["options"] == {"variant": "No Variant"}  # no oneExtraCard: 4 cards
    assert record["hanabi_adhoc"]["hand_size"] == 4
    server = replay(record)  # hanab.live's deal of this deck
    assert server.hand_size == 4
    # the same cards in the same hands: each player a full hand before the next, player 0 first
    engine_hands = [game.state.public.uids[p, :4].tolist() for p in range(players)]
    assert server.hands == engine_hands == [list(range(4 * p, 4 * p + 4)) for p in range(players)]
    played = _play(game, "seer", 0)
    assert len(to_hanablive(played)["actions"]) == replay(to_hanablive(played)).ended_after


def test_a_record_ends_where_hanablive_ends_and_the_engine_plays_on():
    # games that hanab.live ends before the engine's rule does: the record is cut there
    games = [g for p in (2, 3, 4, 5) for g in _games(p, "seer", 12)]
    cut = [g for g in games if hanablive_end(g).moves < g.n_moves]
    assert cut, "no game ended early on hanab.live; the test covers nothing"
    for game in cut:
        end = hanablive_end(game)
        record = _check_on_server(game)
        assert record["hanabi_adhoc"]["truncated"] == game.n_moves - end.moves > 0
        assert end.reason in ("max_score", "no_playable_card")
        # the engine scored nothing after hanab.live's end
        assert end.score == int(game.state.public.fireworks.sum())


def test_other_hand_sizes_are_hanablive_options():
    cases = ((4, 5, "oneExtraCard"), (2, 4, "oneLessCard"), (5, 3, "oneLessCard"))
    for players, size, option in cases:
        game = next(_games(players, "seer", 1, hand_size=size))
        record = _check_on_server(game)
        assert record["options"] == {"variant": "No Variant", option: True}
        assert replay(record).hand_size == size


def test_a_record_replays_on_the_engine_move_for_move():
    for players in (2, 3, 4, 5):
        for game in _games(players, "random", 3):
            record = to_hanablive(game)
            again = from_hanablive(json.loads(json.dumps(record)))
            n = record["hanabi_adhoc"]["moves"]
            assert again.n_moves == n
            assert np.array_equal(again.state.public.hist[:n], game.state.public.hist[:n])
            assert np.array_equal(again.state.deck, game.state.deck)


def test_start_player_and_names_are_recorded():
    game = HanabiGame(HanabiConfig(players=3))
    game.reset(4, start_player=2)
    _play(game, "seer", 0)
    record = to_hanablive(game, players=["you", "Piers", "IGGI"], extra={"seed": 4})
    assert record["players"] == ["you", "Piers", "IGGI"]
    assert record["options"]["startingPlayer"] == 2
    assert record["hanabi_adhoc"]["seed"] == 4
    assert replay(record).ended_after == len(record["actions"])
    again = from_hanablive(record)
    assert again.state.public.hist[0, E.H_ACTOR] == 2


def test_cards_and_clues_use_hanablives_suits():
    game = HanabiGame(HanabiConfig(players=2))
    game.reset(0)
    record = to_hanablive(game)
    white = [i for i, c in enumerate(game.state.deck) if c // 5 == 3]
    assert {record["deck"][i]["suitIndex"] for i in white} == {SUIT_NAMES.index("Purple")}
    assert SUIT_OF_COLOR[0] == SUIT_NAMES.index("Red")
    assert SUIT_OF_COLOR[4] == SUIT_NAMES.index("Blue")
    card = int(game.state.deck[game.config.hand_size])  # player 1's first card
    view = game.view(0)
    game.step(view.action_uid("reveal_color", target=1, color=card // 5))
    game.step(game.view(1).action_uid("reveal_rank", target=0, rank=int(game.state.deck[0]) % 5))
    actions = to_hanablive(game)["actions"]
    assert actions[0] == {"type": 2, "target": 1, "value": SUIT_OF_COLOR[card // 5]}
    assert actions[1] == {"type": 3, "target": 0, "value": int(game.state.deck[0]) % 5 + 1}


def test_hanablive_end_is_none_while_the_game_goes_on():
    game = HanabiGame(HanabiConfig(players=2))
    game.reset(0)
    assert hanablive_end(game) is None
    record = to_hanablive(game)
    assert record["actions"] == []
    assert not record["hanabi_adhoc"]["ended"]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"colors": 4, "players": 2}, "colors"),
        ({"ranks": 4}, "ranks"),
        ({"max_information_tokens": 7}, "max_information_tokens"),
        ({"max_life_tokens": 4}, "max_life_tokens"),
        ({"players": 4, "hand_size": 2}, "hand_size"),
    ],
)
def test_configurations_hanablive_cannot_play_are_refused(kwargs, name):
    with pytest.raises(ValueError, match=name):
        check_hanablive_config(HanabiConfig(**kwargs))


def test_bad_arguments_are_refused_with_their_name():
    game = HanabiGame(HanabiConfig(players=2))
    with pytest.raises(ValueError, match="dealt"):
        to_hanablive(game)
    game.reset(0)
    with pytest.raises(TypeError, match="game"):
        to_hanablive("game")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="players"):
        to_hanablive(game, players=["a", "a"])
    with pytest.raises(ValueError, match="extra"):
        to_hanablive(game, extra={"moves": 1})
    with pytest.raises(TypeError, match="record"):
        from_hanablive([])  # type: ignore[arg-type]


def test_records_hanablive_would_refuse_are_refused():
    game = next(_games(2, "random", 1))
    good = to_hanablive(game)
    bad_card = json.loads(json.dumps(good))
    play = next(i for i, a in enumerate(bad_card["actions"]) if a["type"] == 0)
    bad_card["actions"][play]["target"] = 49  # the bottom card is in no hand yet
    with pytest.raises(ValueError, match=rf"action {play}.*not in seat"):
        from_hanablive(bad_card)
    with pytest.raises(Refused):
        replay(bad_card)
    discard_at_eight = json.loads(json.dumps(good))
    discard_at_eight["actions"] = [{"type": 1, "target": 0}]
    with pytest.raises(ValueError, match=r"action 0.*fewer than 8 clue tokens"):
        from_hanablive(discard_at_eight)
    with pytest.raises(Refused):
        replay(discard_at_eight)
    other_variant = dict(good, options={"variant": "6 Suits"})
    with pytest.raises(ValueError, match="variant"):
        from_hanablive(other_variant)
    short_deck = dict(good, deck=good["deck"][:-1])
    with pytest.raises(ValueError, match="deck"):
        from_hanablive(short_deck)


def test_a_game_ended_by_the_players_stops_the_replay():
    game = next(_games(3, "random", 1))
    record = to_hanablive(game)
    record["actions"] = [*record["actions"][:4], {"type": 4, "target": 1, "value": 4}]
    assert from_hanablive(record).n_moves == 4


@pytest.mark.parametrize("value", ["false", "true", "False", 0, 1, 1.0, [], {}])
@pytest.mark.parametrize("option", ["oneExtraCard", "oneLessCard", "deckPlays", "timed"])
def test_boolean_options_must_be_json_bools(option, value):
    """hanab.live's boolean options are JSON bools (Go refuses anything else): "false" is
    refused naming the option, never read as true (it used to add a card to every hand)."""
    game = next(_games(2, "random", 1))
    record = json.loads(json.dumps(to_hanablive(game)))
    record["options"][option] = value
    with pytest.raises(ValueError, match=rf"options\['{option}'\]=.*allowed: true or false"):
        from_hanablive(record)


def test_boolean_options_read_true_false_and_null():
    game = next(_games(4, "random", 1, hand_size=5))
    record = json.loads(json.dumps(to_hanablive(game)))
    assert record["options"]["oneExtraCard"] is True
    assert from_hanablive(record).config.hand_size == 5
    for off in (False, None):
        record["options"].update(oneExtraCard=off, oneLessCard=None, timed=False)
        replayed = from_hanablive(dict(record, actions=[]))
        assert replayed.config.hand_size == 4  # the rulebook's size at 4 players
    replayed = from_hanablive(dict(record, actions=[], options=None))
    assert replayed.config.hand_size == 4
    null_start = dict(record, actions=[], options={"variant": None, "startingPlayer": None})
    assert from_hanablive(null_start).current_player == 0
