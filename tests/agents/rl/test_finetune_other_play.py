"""Other-Play's colour permutations (agents.rl.other_play): a permuted seat's observation and
moves are those of the game dealt with the colours relabelled and played with the same moves."""

from __future__ import annotations

import numpy as np
import pytest

from agents.rl.other_play import (
    action_maps,
    colour_permutations,
    observation_index,
    permute_deck,
)
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame


def _deck(config: HanabiConfig, rng: np.random.Generator) -> np.ndarray:
    copies = [3] + [2] * (config.ranks - 2) + [1]
    cards = [c * config.ranks + r for c in range(config.colors) for r in range(config.ranks)
             for _ in range(copies[r])]  # fmt: skip
    return rng.permutation(np.array(cards, dtype=np.int64))


@pytest.mark.parametrize(
    ("players", "observation_type"),
    [(2, "card_knowledge"), (3, "card_knowledge"), (2, "minimal"), (4, "card_knowledge")],
)
def test_permuted_seat_sees_the_relabelled_game(players, observation_type):
    config = HanabiConfig.for_game(players, scoring="lenient")
    rng = np.random.default_rng(players)
    perms = colour_permutations(config.colors)
    checked = 0
    for trial in range(6):
        perm = perms[rng.integers(1, len(perms))]  # never the identity
        index = observation_index(config, perm, observation_type)
        to_real, to_shown = action_maps(config, perm)
        deck = _deck(config, rng)
        real, twin = HanabiGame(config), HanabiGame(config)
        real.reset_with_deck(deck)
        twin.reset_with_deck(permute_deck(deck, config, perm))
        while not real.is_terminal:
            for seat in range(players):
                shown = real.observation(seat, observation_type)[index]
                np.testing.assert_array_equal(shown, twin.observation(seat, observation_type))
            mask = real.legal_mask()
            np.testing.assert_array_equal(mask[to_real], twin.legal_mask())
            action = int(rng.choice(np.flatnonzero(mask)))
            real.step(action)
            twin.step(int(to_shown[action]))
            checked += 1
        assert real.score == twin.score, trial
    assert checked > 50  # every observation of every seat compared at each of these moves


def test_maps_are_permutations_and_move_only_colour_reveals():
    config = HanabiConfig(players=3, scoring="lenient")
    perm = [1, 2, 0, 4, 3]
    to_real, to_shown = action_maps(config, perm)
    assert sorted(to_real.tolist()) == list(range(len(to_real)))
    np.testing.assert_array_equal(to_real[to_shown], np.arange(len(to_real)))
    h, c = config.hand_size, config.colors
    moved = np.flatnonzero(to_real != np.arange(len(to_real)))
    assert set(moved.tolist()) <= set(range(2 * h, 2 * h + 2 * c))
    assert to_real[2 * h + 1] == 2 * h  # reveal colour 0 is shown as colour 1
    index = observation_index(config, perm)
    assert sorted(index.tolist()) == list(range(len(index)))
    identity = observation_index(config, range(5))
    np.testing.assert_array_equal(identity, np.arange(len(identity)))


@pytest.mark.parametrize(
    "perm", [[0, 1, 2, 3], [0, 0, 1, 2, 3], [0, 1, 2, 3, 5], [0.0, 1, 2, 3, 4]]
)
def test_bad_permutation_is_refused(perm):
    config = HanabiConfig(players=2)
    with pytest.raises(ValueError, match="perm="):
        action_maps(config, perm)
    with pytest.raises(ValueError, match="perm="):
        observation_index(config, perm)
