"""Hand order for networks (agents.hand_order): fixed-slot games shown in age order.

The property: a game played with the Java framework's fixed slots and the same game played in
HLE's order (same deal; the same cards played, discarded and hinted) give identical age-ordered
observations, for every seat, observation type and move.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.hand_order import age_order, move_to_game, moves_to_game, observe_by_age, show_by_age
from hanabi_env import HanabiGame
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig

OBS_TYPES = ("minimal", "card_knowledge", "seer")


def _pair(players: int, hand: int, seed: int) -> tuple[HanabiGame, HanabiGame]:
    games = []
    for order in ("shift", "fixed"):
        g = HanabiGame(HanabiConfig(players=players, hand_size=hand, hand_order=order))
        g.reset(seed)
        games.append(g)
    return games[0], games[1]


def _check_same_observations(hle: HanabiGame, fixed: HanabiGame) -> None:
    for seat in range(hle.config.players):
        for name in OBS_TYPES:
            seer = name == "seer"
            want = hle.view(seat, seer=seer).encode(name)
            got = observe_by_age(fixed.view(seat, seer=seer), name)
            np.testing.assert_array_equal(got, want, err_msg=f"seat {seat}, {name}")


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 5),
    small_hand=st.booleans(),
    seed=st.integers(0, 2**31),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=120),
)
def test_fixed_slots_in_age_order_are_the_hle_game_move_by_move(players, small_hand, seed, picks):
    hand = 4 if players >= 4 or small_hand else 5
    hle, fixed = _pair(players, hand, seed)
    for pick in picks:
        _check_same_observations(hle, fixed)
        if hle.is_terminal:
            break
        cur = hle.current_player
        # the legal masks agree once the fixed game's is shown in age order
        view = fixed.view(cur)
        obs = view.encode("minimal")[None]
        _, mask, order = show_by_age(
            obs, fixed.legal_mask()[None], view.raw.cfg, np.array([cur]), _hands(view)
        )
        np.testing.assert_array_equal(mask[0], hle.legal_mask())
        legal = np.flatnonzero(hle.legal_mask())
        move = int(legal[pick % len(legal)])
        game_move = move_to_game(view, move)
        assert game_move == int(moves_to_game(np.array([move]), order, hand)[0])
        n = hle.n_moves
        hle.step(move)
        fixed.step(game_move)
        # the same card left the hand (or the same hint was given)
        for field in (E.H_KIND, E.H_CARD, E.H_UID, E.H_TARGET, E.H_COLOR, E.H_RANK):
            assert hle.state.public.hist[n, field] == fixed.state.public.hist[n, field]
        assert hle.score == fixed.score
    else:
        _check_same_observations(hle, fixed)


def _hands(view):
    from agents.hand_order import hands_of_view

    return hands_of_view(view)


def test_the_slots_differ_without_the_adapter():
    """The property is not vacuous: the raw fixed-slot observation differs from HLE's."""
    hle, fixed = _pair(2, 5, 7)
    differ = 0
    rng = np.random.default_rng(0)
    while not hle.is_terminal:
        differ += int(not np.array_equal(hle.observation(0), fixed.observation(0)))
        cur = hle.current_player
        legal = np.flatnonzero(hle.legal_mask())
        move = int(rng.choice(legal))
        hle.step(move)
        fixed.step(move_to_game(fixed.view(cur), move))
    assert differ > 0


def test_age_order_keeps_empty_slots_last():
    uids = np.array([[7, 3, 12, -1, -1], [0, 1, 2, 3, 4]])
    np.testing.assert_array_equal(age_order(uids), [[1, 0, 2, 3, 4], [0, 1, 2, 3, 4]])


def test_hle_order_games_are_shown_as_they_are():
    g = HanabiGame(HanabiConfig(players=3))
    g.reset(5)
    g.step(int(np.flatnonzero(g.legal_mask())[3]))
    v = g.view(1)
    np.testing.assert_array_equal(observe_by_age(v), v.encode("card_knowledge"))
    assert move_to_game(v, 2) == 2


def test_bad_inputs_name_what_is_allowed():
    _, fixed = _pair(2, 5, 1)
    view = fixed.view(0)
    with pytest.raises(ValueError, match="move=99 is out of range"):
        move_to_game(view, 99)
    with pytest.raises(ValueError, match="obs has shape"):
        show_by_age(np.zeros((1, 10)), np.zeros((1, 20)), view.raw.cfg, np.array([0]),
                    _hands(view))  # fmt: skip
