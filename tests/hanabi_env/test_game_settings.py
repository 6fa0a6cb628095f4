"""One constructor for a game's settings, one description of them (docs/how-to/game-settings.md).

``HanabiConfig.for_game`` is where "no hand size means the rulebook's" and "the reference
ruleset means fixed hand slots" are written; ``describe_settings`` is the one line every report
and record states. The entry points (web sessions, the benchmark, MAP-Elites) build their games
through it.
"""

from __future__ import annotations

import pytest

from hanabi_env.config import (
    HanabiConfig,
    describe_settings,
    game_hand_size,
    hand_order_of,
    hand_size_words,
    rulebook_hand_size,
)


@pytest.mark.parametrize(("players", "hand"), [(2, 5), (3, 5), (4, 4), (5, 4)])
def test_no_hand_size_is_the_rulebooks(players, hand):
    cfg = HanabiConfig.for_game(players)
    assert (cfg.players, cfg.hand_size, cfg.scoring, cfg.hand_order) == (
        players,
        hand,
        "strict",
        "shift",
    )
    assert game_hand_size(players) == rulebook_hand_size(players) == hand
    assert HanabiConfig.for_game(players, 3).hand_size == game_hand_size(players, 3) == 3


def test_the_reference_ruleset_plays_fixed_slots_unless_told():
    assert HanabiConfig.for_game(2, ruleset="reference").hand_order == "fixed"
    assert HanabiConfig.for_game(2, ruleset="corrected").hand_order == "shift"
    assert HanabiConfig.for_game(2, ruleset=None).hand_order == "shift"
    assert HanabiConfig.for_game(2, ruleset="reference", hand_order="shift").hand_order == "shift"
    assert [hand_order_of(r) for r in ("reference", "corrected", None)] == [
        "fixed",
        "shift",
        "shift",
    ]
    cfg = HanabiConfig.for_game(3, 4, "lenient", "reference", observation_type="minimal")
    assert cfg == HanabiConfig(
        players=3, hand_size=4, scoring="lenient", hand_order="fixed", observation_type="minimal"
    )


def test_bad_settings_name_the_parameter():
    with pytest.raises(ValueError, match="players=6 is out of range"):
        HanabiConfig.for_game(6)
    with pytest.raises(TypeError, match="players"):
        HanabiConfig.for_game("2")
    with pytest.raises(ValueError, match="hand_size=9 is out of range"):
        HanabiConfig.for_game(2, 9)
    with pytest.raises(ValueError, match="scoring"):
        HanabiConfig.for_game(2, scoring="kind")


def test_one_description_of_the_settings():
    assert hand_size_words({2: 5}) == "hand size 5 (the rulebook's)"
    assert hand_size_words({4: 5}) == "hand size 5 (not the rulebook's)"
    assert hand_size_words({2: 5, 4: 4}) == "hand sizes 5 at 2p, 4 at 4p (the rulebook's)"
    cfg = HanabiConfig.for_game(4, scoring="lenient", ruleset="reference")
    line = describe_settings(cfg.players, cfg.hand_size, cfg.scoring, "reference")
    assert line == "4 players, hand size 4 (the rulebook's), lenient scoring, reference ruleset"
    assert describe_settings(2, 3, "strict", None) == (
        "2 players, hand size 3 (not the rulebook's), strict scoring"
    )


def test_the_entry_points_build_their_games_through_it():
    from agents.registry import make
    from hanabi_adhoc.benchmark.protocol import fixed_slots_refused
    from hanabi_adhoc.web.session import Settings
    from qd.evaluator import _config

    for ruleset in ("corrected", "reference"):
        for players in (2, 4):
            want = HanabiConfig.for_game(players, scoring="lenient", ruleset=ruleset)
            assert _config(players, "lenient", ruleset) == want
            partners = ("piers",) * (players - 1)
            settings = Settings(partners=partners, scoring="lenient", ruleset=ruleset)
            assert settings.config() == want
    assert fixed_slots_refused(make("piers")) is None
