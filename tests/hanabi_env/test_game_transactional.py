"""A call that raises leaves the game exactly as it was (Hypothesis stateful test).

Failing ``reset``/``reset_with_deck``/``step``/``view``/``metrics`` calls are interleaved with
legal play; after every failing call the whole engine state (every array of ``State``) must be
byte-identical to the snapshot taken before it, and play must go on as if nothing happened.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from hanabi_env.game import HanabiGame
from tests.hanabi_env.helpers import same, snapshot

BAD_START = [-1, 2, 7, 1.0, 1.5, True, "0", None]
BAD_SEED = [-1, 2**62, 1.0, "3", True, None]


class FailingCallsChangeNothing(RuleBasedStateMachine):
    @initialize(seed=st.integers(0, 1000))
    def deal(self, seed):
        self.game = HanabiGame(players=2, scoring="lenient")
        self.game.reset(seed)
        self.deck = np.array(self.game.state.deck, copy=True)

    def _fails(self, call, *errors):
        before = snapshot(self.game)
        with pytest.raises(errors or (TypeError, ValueError)):
            call()
        assert same(before, snapshot(self.game)), "a failing call changed the game"

    @rule(data=st.data())
    def legal_move(self, data):
        if self.game.is_terminal:
            self.game.reset(int(data.draw(st.integers(0, 1000))))
            return
        legal = self.game.legal_actions().tolist()
        self.game.step(data.draw(st.sampled_from(legal)))

    @rule(bad=st.sampled_from(BAD_START), seed=st.integers(0, 1000))
    def reset_with_a_bad_start_player(self, bad, seed):
        if bad is None:
            return  # None is the valid default
        self._fails(lambda: self.game.reset(seed, start_player=bad))

    @rule(bad=st.sampled_from(BAD_SEED))
    def reset_with_a_bad_seed(self, bad):
        self._fails(lambda: self.game.reset(bad))

    @rule(kind=st.sampled_from(["float", "short", "str", "bool", "dupes", "start"]))
    def reset_with_a_bad_deck(self, kind):
        deck = self.deck.copy()
        bad = {
            "float": deck.astype(float),
            "short": deck[:-1],
            "str": deck.astype(str),
            "bool": deck > 3,
            "dupes": np.zeros_like(deck),
            "start": deck,
        }[kind]
        start = 5 if kind == "start" else 0
        self._fails(lambda: self.game.reset_with_deck(bad, start_player=start))

    @rule(action=st.sampled_from([-1, 10**6, 1.0, True, "0"]))
    def illegal_step(self, action):
        self._fails(lambda: self.game.step(action))

    @rule(seat=st.sampled_from([-1, 2, 1.0, True]))
    def bad_seat(self, seat):
        self._fails(lambda: self.game.view(seat))
        self._fails(lambda: self.game.metrics(seat))


FailingCallsChangeNothing.TestCase.settings = settings(
    max_examples=40, stateful_step_count=30, deadline=None
)
TestFailingCallsChangeNothing = FailingCallsChangeNothing.TestCase


def test_metrics_and_view_refuse_before_reset():
    game = HanabiGame(players=3)
    for call in (lambda: game.metrics(0), lambda: game.view(0), game.legal_mask):
        with pytest.raises(RuntimeError, match="reset"):
            call()


def test_reset_with_deck_plays_the_given_deck_and_reports_float_decks():
    game = HanabiGame(players=2)
    game.reset(3)
    deck = np.array(game.state.deck, copy=True)[::-1].copy()
    game.reset_with_deck(deck.tolist(), start_player=1)
    assert np.array_equal(game.state.deck, deck)
    assert game.current_player == 1
    with pytest.raises(TypeError, match="dtype float"):
        game.reset_with_deck(deck.astype(float))
