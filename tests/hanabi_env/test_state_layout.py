"""The state's public arrays (``State.public``) are views of one packed view (``State.packed``).

``public_views`` (NumPy, from Python), ``pack_view``/``expand_view`` (compiled) and
``pub_offsets`` must agree on one layout: the live view the rule-game loop hands to the rules
(``refresh_live_view``) must be, array for array, the view ``fill_view`` writes for the same
seat.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.game import HanabiGame


@st.composite
def games(draw):
    """A game of a drawn configuration, advanced by a drawn number of random legal moves."""
    colors = draw(st.integers(2, 5))
    ranks = draw(st.integers(2, 5))
    players = draw(st.integers(2, colors))
    hand_size = draw(st.integers(2, min(5, E.n_cards_of(colors, ranks) // players)))
    game = HanabiGame(
        colors=colors,
        ranks=ranks,
        players=players,
        hand_size=hand_size,
        hand_order=draw(st.sampled_from(["shift", "fixed"])),
    )
    game.reset(draw(st.integers(0, 2**31 - 1)))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    for _ in range(draw(st.integers(0, 80))):
        if game.is_terminal:
            break
        game.step(int(rng.choice(game.legal_actions())))
    return game


def _parts(public) -> dict[str, np.ndarray]:
    return {name: getattr(public, name) for name in E.View._fields}


@settings(max_examples=60, deadline=None)
@given(game=games())
def test_public_fields_tile_the_packed_buffer(game):
    public = game.state.public
    packed = game.state.packed
    assert packed.dtype == np.int32
    assert packed.ndim == 1
    parts = _parts(public)
    assert sum(a.size for a in parts.values()) == packed.size  # no gap, no overlap
    for name, a in parts.items():
        assert a.dtype == np.int32, name
        assert np.shares_memory(a, packed), name
    starts = sorted(
        (a.__array_interface__["data"][0] - packed.__array_interface__["data"][0], a.size)
        for a in parts.values()
    )
    assert starts == [
        (E.pub_offsets(game.state.cfg)[i] * 4, size) for i, (_, size) in enumerate(starts)
    ]


@settings(max_examples=60, deadline=None)
@given(game=games(), seat_draw=st.integers(0, 4))
def test_live_view_is_the_filled_view(game, seat_draw):
    s = game.state
    seat = seat_draw % game.config.players
    view = V.new_view(s)
    V.fill_view(s, seat, view, False)
    V.refresh_live_view(s, seat)
    assert np.array_equal(s.packed, V.pack_view(view))
    for name in E.View._fields:
        assert np.array_equal(getattr(s.public, name), getattr(view, name)), name
    own = s.public.cards[seat]
    assert np.all(own == -1)  # the viewer's own cards are never in its view
    # the compiled expansion reads the same layout: legality from the live view alone
    mask = np.zeros(game.n_actions, dtype=np.int8)
    V.view_legal_mask(s.packed, mask)
    if seat == game.current_player:
        assert np.array_equal(mask, game.legal_mask())


COPIES = {
    "copy_state": E.copy_state,
    "deepcopy": copy.deepcopy,
    "pickle": lambda s: pickle.loads(pickle.dumps(s)),
}


@settings(max_examples=30, deadline=None)
@given(game=games(), how=st.sampled_from(sorted(COPIES)))
def test_copies_copy_every_array_and_keep_public_over_packed(game, how):
    s = game.state
    c = COPIES[how](s)
    for name in ("cfg", "scal", "deck", "counters", "rng"):
        assert np.array_equal(getattr(c, name), getattr(s, name))
        assert not np.shares_memory(getattr(c, name), getattr(s, name))
    assert np.array_equal(c.packed, s.packed)
    assert not np.shares_memory(c.packed, s.packed)
    for name, a in _parts(c.public).items():
        assert np.shares_memory(a, c.packed), name
        assert np.array_equal(a, getattr(s.public, name)), name
    c.public.hand_len[0] += 1  # a write to the copy reaches its own buffer only
    assert c.packed.sum() == s.packed.sum() + 1


@pytest.mark.parametrize(("players", "other"), [(2, 3), (3, 2)])
def test_fill_view_refuses_a_buffer_shaped_for_another_game(players, other):
    s = HanabiGame(players=players).state
    wrong = V.new_view(HanabiGame(players=other).state)
    before = [a.copy() for a in wrong]
    with pytest.raises(ValueError, match="not shaped for this state"):
        V.fill_view(s, 0, wrong, False)
    assert all(np.array_equal(a, b) for a, b in zip(before, wrong, strict=True))


def test_a_copied_state_plays_on_its_own():
    game = HanabiGame(players=3)
    game.reset(7)
    for how in sorted(COPIES):
        c = COPIES[how](game.state)
        before = game.state.packed.copy()
        action = int(np.flatnonzero(game.legal_mask())[0])
        mask = np.zeros(game.n_actions, dtype=np.int8)
        assert E.step_checked(c, action, mask)[0]
        assert c.scal[E.S_N_MOVES] == 1  # the copy moved ...
        assert c.public.hist[0, E.H_ACTION] == action  # ... through its public views
        assert np.array_equal(game.state.packed, before)  # the original did not
        assert game.n_moves == 0
