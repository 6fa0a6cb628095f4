"""HanabiConfig's two sets of bounds (hanabi_v5's and HLE's) and HLE's small presets.

The engine itself is compared with OpenSpiel on the presets in test_vs_openspiel.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import hanabi_env
from hanabi_env.config import HLE_PRESETS, HanabiConfig, hle_preset


def test_default_bounds_are_hanabi_v5s():
    assert HanabiConfig().bounds == "hanabi_v5"
    with pytest.raises(ValueError, match=r"colors=1 .*bounds='hle'"):
        HanabiConfig(colors=1)
    with pytest.raises(ValueError, match=r"players=3 .*bounds='hle'"):
        HanabiConfig(colors=2, players=3)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"colors": 0}, "colors"),
        ({"colors": 6}, "colors"),
        ({"ranks": 1}, "ranks"),
        ({"players": 6}, "players"),
        ({"hand_size": 1}, "hand_size"),
        ({"colors": 1, "ranks": 2, "players": 5, "hand_size": 2}, "hand_size"),  # 4 cards
    ],
)
def test_hle_bounds_still_refuse_what_hle_refuses(kwargs, name):
    with pytest.raises(ValueError, match=name):
        HanabiConfig(**kwargs, bounds="hle")


def test_bounds_is_checked():
    with pytest.raises(ValueError, match="bounds='v4' is not allowed; allowed: hanabi_v5, hle"):
        HanabiConfig(bounds="v4")
    with pytest.raises(TypeError, match="bounds"):
        HanabiConfig(bounds=1)


def test_hle_presets_are_hles_values():
    # HLE's rl_env.make (docs/bad.md §2): 2-card hands, 3 information tokens, 1 life token
    small = hle_preset("Hanabi-Small")
    assert (small.colors, small.ranks, small.players, small.hand_size) == (2, 5, 2, 2)
    assert (small.max_information_tokens, small.max_life_tokens) == (3, 1)
    assert small.observation_type == "card_knowledge"
    very_small = hle_preset("Hanabi-Very-Small", players=3, scoring="lenient")
    assert (very_small.colors, very_small.players, very_small.scoring) == (1, 3, "lenient")
    assert very_small.n_cards == 10
    assert set(HLE_PRESETS) == {"Hanabi-Small", "Hanabi-Very-Small"}
    with pytest.raises(ValueError, match="name='Hanabi-Tiny' is not allowed"):
        hle_preset("Hanabi-Tiny")


def test_one_colour_game_plays_to_the_end():
    game = hanabi_env.HanabiGame(hle_preset("Hanabi-Very-Small"))
    rng = np.random.default_rng(0)
    for seed in range(20):
        game.reset(seed=seed)
        while not game.is_terminal:
            legal = game.legal_actions()
            assert legal.size > 0
            assert legal.max() < game.n_actions == 2 * 2 + 1 + 5
            game.step(int(rng.choice(legal)))
        assert 0 <= game.score <= 5


def test_drop_in_env_keeps_hanabi_v5s_bounds():
    with pytest.raises(ValueError, match="colors"):
        hanabi_env.raw_env(colors=1)
    with pytest.raises(TypeError):
        hanabi_env.raw_env(bounds="hle")  # not one of hanabi_v5's arguments
