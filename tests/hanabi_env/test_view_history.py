"""What a PlayerView tells a bot about the game so far (docs/tutorials/bring-your-own-bot.md).

Each API is checked against an oracle kept here from the engine's state while the game is
played (the deck, the hands before each move): the moves since a seat's last turn, the card
each move drew and who may see it, the hints each card received (positive and negative), the
discard pile and the fireworks in order, and move uids turned back into moves. One test
proves that the viewer's own cards, drawn ones included, stay hidden: two deals that differ
only in them give identical views.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.human import describe_action as human_describe_action
from hanabi_env import engine as E
from hanabi_env.game import HanabiGame, Hint, describe_move

CASES = [(2, 0, "shift"), (2, 7, "shift"), (3, 5, "shift"), (4, 2, "shift"), (5, 11, "shift"),
         (2, 4, "fixed"), (3, 9, "fixed")]  # fmt: skip


def play_recorded(players: int, seed: int, choose=None, order: str = "shift"):
    """Play a random game; per move: the mover, the hands before it and the deck position."""
    game = HanabiGame(players=players, hand_order=order)
    game.reset(seed)
    rng = np.random.default_rng(seed)
    records = []
    while not game.is_terminal:
        s = game.state
        before = {
            "actor": game.current_player,
            "uids": s.public.uids.copy(),
            "hand_len": s.public.hand_len.copy(),
            "deck_pos": int(s.scal[E.S_DECK_POS]),
        }
        legal = game.legal_actions()
        action = int(rng.choice(legal)) if choose is None else choose(game, legal, rng)
        game.step(action)
        before["deck_pos_after"] = int(s.scal[E.S_DECK_POS])
        records.append(before)
    return game, records


def hand_of(rec: dict, p: int) -> list[int]:
    return [int(u) for u in rec["uids"][p, : rec["hand_len"][p]]]


# --- moves, moves_since_last_turn, moves_from ----------------------------------------------


@pytest.mark.parametrize(("players", "seed", "order"), CASES)
def test_moves_since_last_turn_are_every_move_after_the_seats_last_one(players, seed, order):
    game = HanabiGame(players=players, hand_order=order)
    game.reset(seed)
    rng = np.random.default_rng(seed)
    actors: list[int] = []
    first = game.view(game.current_player)
    assert first.moves == []  # the game's first turn
    assert first.moves_since_last_turn == []
    while not game.is_terminal:
        for seat in range(players):
            view = game.view(seat)
            assert [m.actor for m in view.moves] == actors
            own = [i for i, a in enumerate(actors) if a == seat]
            start = own[-1] + 1 if own else 0
            since = view.moves_since_last_turn
            assert [m.index for m in since] == list(range(start, len(actors)))
            assert all(m.actor != seat for m in since)
            assert since == view.moves[start:] == view.moves_from(start)
            assert view.moves_from(len(actors) + 3) == []
        actors.append(game.current_player)
        game.step(int(rng.choice(game.legal_actions())))
    with pytest.raises(ValueError, match="start"):
        game.view(0).moves_from(-1)


# --- the card each move drew ---------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed", "order"), CASES)
def test_each_move_says_which_card_was_drawn_and_shows_it_where_it_is_public(players, seed, order):
    game, records = play_recorded(players, seed, order=order)
    deck = game.state.deck
    for seat in range(players):
        view = game.view(seat)
        held = {int(u) for u in view.card_uids[seat] if u >= 0}
        for move, rec in zip(view.moves, records, strict=True):
            drew = rec["deck_pos_after"] > rec["deck_pos"]
            assert move.drawn_uid == (rec["deck_pos"] if drew else -1)
            if not drew:
                assert (move.drawn_card, move.drawn_color, move.drawn_rank) == (-1, -1, -1)
                continue
            assert move.kind in ("play", "discard")
            hidden = move.actor == seat and move.drawn_uid in held
            card = -1 if hidden else int(deck[move.drawn_uid])
            assert move.drawn_card == card
            assert move.drawn_color == (card // game.config.ranks if card >= 0 else -1)
            assert move.drawn_rank == (card % game.config.ranks if card >= 0 else -1)


def test_the_viewers_own_draws_stay_hidden():
    """Two deals that differ only in the viewer's hand (its drawn cards included) look alike."""
    players, seat = 3, 1

    def no_hint_to_seat(game, legal, rng):  # hints to ``seat`` would reveal its cards
        ok = [a for a in legal if game.view(game.current_player).move_of(int(a)).target != seat]
        return int(rng.choice(ok))

    for seed in range(40):
        game, _ = play_recorded(players, seed, no_hint_to_seat)
        hand = [int(u) for u in game.state.public.uids[seat, : game.state.public.hand_len[seat]]]
        drawn_held = [u for u in hand if u >= players * game.config.hand_size]
        cards = [int(game.state.deck[u]) for u in hand]
        if drawn_held and len(set(cards)) > 1:
            break
    else:  # pragma: no cover - the seeds above give such a game
        pytest.fail("no game where the seat holds a drawn card and two different cards")
    deck = game.state.deck.copy()
    other = deck.copy()
    other[hand] = np.roll(deck[hand], 1)  # the viewer's cards, permuted among themselves
    assert not np.array_equal(deck, other)
    replay = HanabiGame(players=players)
    replay.reset_with_deck(other)
    for m in game.view(0).moves:
        replay.step(m.action)
    a, b = game.view(seat), replay.view(seat)
    for x, y in zip(a.raw, b.raw, strict=True):
        np.testing.assert_array_equal(x, y)
    assert a.moves == b.moves
    assert a.discard_pile() == b.discard_pile()
    assert a.played_cards() == b.played_cards()
    for u in hand:
        assert a.card_hints(uid=u) == b.card_hints(uid=u)
    own_draws = [m for m in a.moves if m.actor == seat and m.drawn_uid in hand]
    assert own_draws
    assert all(m.drawn_card == -1 for m in own_draws)
    # the seer view does show them: the test would notice a leak
    seer = [m for m in game.view(seat, seer=True).moves if m.drawn_uid in drawn_held]
    assert [m.drawn_card for m in seer] == [int(deck[m.drawn_uid]) for m in seer]


# --- the hints each card received ----------------------------------------------------------


def hints_oracle(game: HanabiGame, records: list[dict]) -> dict[int, list[Hint]]:
    """uid -> hints, from the hands before each reveal (all cards of the target's hand)."""
    out: dict[int, list[Hint]] = {}
    for move, rec in zip(game.view(0).moves, records, strict=True):
        if move.kind not in ("reveal_color", "reveal_rank"):
            continue
        for u in hand_of(rec, move.target):
            card = int(game.state.deck[u])
            if move.kind == "reveal_color":
                hit = card // game.config.ranks == move.color
            else:
                hit = card % game.config.ranks == move.rank
            hint = Hint(
                move.index,
                move.actor,
                move.target,
                move.kind,
                move.color if move.kind == "reveal_color" else -1,
                move.rank if move.kind == "reveal_rank" else -1,
                hit,
            )
            out.setdefault(u, []).append(hint)
    return out


@pytest.mark.parametrize(("players", "seed", "order"), CASES)
def test_card_hints_list_every_hint_a_card_received_in_order(players, seed, order):
    game, records = play_recorded(players, seed, order=order)
    oracle = hints_oracle(game, records)
    dealt = int(game.state.scal[E.S_DECK_POS])
    assert any(h.positive for hs in oracle.values() for h in hs)
    for seat in range(players):
        view = game.view(seat)
        for u in range(dealt):
            expected = oracle.get(u, [])
            assert view.card_hints(uid=u) == expected
            assert view.card_hints(uid=u, negative=False) == [h for h in expected if h.positive]
        for p in range(players):
            for k in range(int(view.hand_lengths[p])):
                assert view.card_hints(p, k) == oracle.get(int(view.card_uids[p, k]), [])
                hinted = [h for h in view.card_hints(p, k) if h.positive]
                colours = {h.color for h in hinted if h.kind == "reveal_color"}
                assert colours <= {int(view.hinted_color[p, k])}  # agrees with the view's


def test_card_hints_refuse_bad_arguments():
    game, _ = play_recorded(2, 3)
    view = game.view(0)
    dealt = int(game.state.scal[E.S_DECK_POS])
    for kwargs, error in [
        ({}, ValueError),
        ({"player": 0}, ValueError),
        ({"player": 0, "slot": 0, "uid": 0}, ValueError),
        ({"player": 9, "slot": 0}, ValueError),
        ({"player": 0, "slot": 99}, ValueError),
        ({"uid": -1}, ValueError),
        ({"uid": game.config.n_cards}, ValueError),
        ({"uid": 1.0}, TypeError),
        ({"uid": 0, "negative": 1}, TypeError),
    ]:
        with pytest.raises(error):
            view.card_hints(**kwargs)
    if dealt < game.config.n_cards:
        with pytest.raises(ValueError, match="still in the deck"):
            view.card_hints(uid=dealt)


# --- the discard pile and the fireworks, in order ------------------------------------------


@pytest.mark.parametrize(("players", "seed", "order"), CASES)
def test_discard_pile_and_played_cards_are_in_order(players, seed, order):
    game, _ = play_recorded(players, seed, order=order)
    view = game.view(players - 1)
    pile, played = view.discard_pile(), view.played_cards()
    assert [m.index for m in pile] == sorted(m.index for m in pile)
    assert all(m.kind == "discard" or (m.kind == "play" and not m.scored) for m in pile)
    counts = Counter(m.card for m in pile)
    assert [counts.get(c, 0) for c in range(len(view.discard_counts))] == (
        view.discard_counts.tolist()
    )
    assert all(m.scored and m.kind == "play" for m in played)
    for c in range(view.n_colors):  # each firework built 1, 2, 3, ... in order
        assert [m.rank for m in played if m.color == c] == list(range(int(view.fireworks[c])))
    left = {m.uid for m in view.moves if m.kind in ("play", "discard")}
    assert left == {m.uid for m in pile} | {m.uid for m in played}


# --- move uids and moves -------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10**6), st.integers(0, 30), st.data())
def test_move_of_inverts_action_uid_for_every_uid(players, seed, steps, data):
    game = HanabiGame(players=players)
    game.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_terminal:
            break
        game.step(int(rng.choice(game.legal_actions())))
    seat = data.draw(st.integers(0, players - 1))
    view = game.view(seat)
    legal = set(game.legal_actions().tolist()) if game.current_player == seat else set()
    assert set(view.legal_actions().tolist()) == (set() if game.is_terminal else legal)
    for action in range(game.n_actions):
        spec = view.move_of(action)
        assert view.action_uid(**dataclasses.asdict(spec)) == action
        _, slot, target, color, rank = E.decode_action(game.state.cfg, seat, action)
        assert (spec.slot, spec.target, spec.color, spec.rank) == (slot, target, color, rank)
        assert spec.target != seat
        text = view.describe_action(action)
        assert text == describe_move(game.state.cfg, seat, action)
        assert text == human_describe_action(view, action)
        if spec.kind in ("play", "discard"):
            assert text == f"{spec.kind} slot {spec.slot}"
        else:
            assert text.endswith(f"to player_{spec.target}")


def test_move_of_and_describe_action_refuse_uids_outside_the_table():
    game = HanabiGame(players=2)
    game.reset(0)
    view = game.view(0)
    for method in (view.move_of, view.describe_action):
        with pytest.raises(ValueError, match="action"):
            method(game.n_actions)
        with pytest.raises(ValueError, match="action"):
            method(-1)
        with pytest.raises(TypeError, match="action"):
            method("3")
