"""One spec module (issue 42): every spec string becomes an agent or a seat in hanabi_adhoc.specs.

Its help texts come from the registry (baselines, bots, prefixes), "is this the meta-agent?" is
one function, and the names that moved out of ``hanabi_adhoc.cli.main`` and ``agents.policy``
keep working for one release with a ``DeprecationWarning``.
"""

from __future__ import annotations

import importlib
import warnings

import pytest

from agents.bots import BOTS
from agents.registry import registered_prefixes
from agents.rulebase import BASELINES
from hanabi_adhoc import specs


@pytest.mark.parametrize(
    ("spec", "meta"),
    [
        ("meta", True),
        (" META ", True),
        ("meta:generalist", True),
        ("Meta:Foo", True),  # the meta-agent, with a variant meta_agent refuses
        ("metafoo", False),
        ("metabot.py:Bot", False),
        ("piers", False),
        ("", False),
        (None, False),
        (3, False),
    ],
)
def test_is_meta_is_the_one_test(spec, meta):
    assert specs.is_meta(spec) is meta
    if isinstance(spec, str):
        assert (specs.seat_kind(spec) == "meta") is meta


@pytest.mark.parametrize(
    ("spec", "kind"),
    [("human", "human"), (" Human ", "human"), ("sb3:m.zip", "sb3"), ("piers", "agent"),
     ("3,17,4", "agent"), ("rl:ppo-sp1", "agent"), ("meta:random", "meta")],
)  # fmt: skip
def test_seat_kind(spec, kind):
    assert specs.seat_kind(spec) == kind
    assert kind in specs.SEAT_KINDS


def test_help_texts_list_every_baseline_bot_and_prefix_of_the_registry():
    bots = [target.rpartition(":")[2] for target in BOTS.values()]
    assert {"SimpleBot", "ValueBot", "HolmesBot", "SmartBot", "InfoBot"} <= set(bots)
    forms = [summary.split()[0] for summary in registered_prefixes().values()]
    assert {"sb3:PATH", "rl:NAME", "bad:NAME"} <= set(forms)
    for text in (
        specs.SEAT_HELP,
        specs.SEAT_FORMS,
        specs.agent_help(True),
        specs.agent_help(False),
    ):
        for name in [*BASELINES, *bots]:
            assert name in text, (name, text)
        for form in forms:
            assert form in text, (form, text)
    for variant in specs.META_VARIANTS:
        assert f"meta:{variant}" in specs.SEAT_FORMS
        assert variant in specs.SEAT_HELP
    assert "meta" not in specs.agent_help(False)


def test_a_plain_agent_is_not_the_meta_agent():
    assert specs.make_plain_agent("piers", 0).name == "Piers"
    with pytest.raises(ValueError, match="meta-agent is a seat of play"):
        specs.make_plain_agent("meta:random", 0)
    with pytest.raises(ValueError, match="an empty name is not allowed"):
        specs.make_plain_agent("  ", 0)


def test_parse_seat_names_the_seat_forms_for_an_unknown_seat():
    assert specs.parse_seat("iggi", 3).name == "IGGI"
    assert type(specs.parse_seat("human", 0)).__name__ == "HumanPolicy"
    with pytest.raises(ValueError, match="allowed seats: human, meta") as err:
        specs.parse_seat("nobody", 0)
    assert "SmartBot" in str(err.value)
    with pytest.raises(ValueError, match="meta variant 'foo' is not allowed"):
        specs.parse_seat("meta:foo", 0)
    assert specs.check_meta_variant("generalist") == "generalist"


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("hanabi_adhoc.cli.main", "parse_seat", "hanabi_adhoc.specs:parse_seat"),
        ("hanabi_adhoc.cli.main", "_seat_kind", "hanabi_adhoc.specs:seat_kind"),
        ("hanabi_adhoc.cli.main", "SEAT_HELP", "hanabi_adhoc.specs:SEAT_HELP"),
        ("hanabi_adhoc.cli.main", "META_VARIANTS", "hanabi_adhoc.specs:META_VARIANTS"),
        ("hanabi_adhoc.cli.main", "game_settings", "hanabi_adhoc.settings:game_settings"),
        ("hanabi_adhoc.cli.main", "hand_size_words", "hanabi_adhoc.settings:hand_size_words"),
        ("agents.policy", "make", "agents.registry:make"),
    ],
)
def test_moved_names_still_import_with_a_deprecation_warning(old, name, new):
    module, _, attr = new.partition(":")
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {module}\.{attr}"):
        got = getattr(importlib.import_module(old), name)
    assert got is getattr(importlib.import_module(module), attr)


def test_names_kept_where_they_were_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        import agents
        from agents.faults import ReferenceGameEnd
        from agents.policy import ReferenceGameEnd as from_policy
        from meta.evaluate import ALL_VARIANTS, variant_seed
        from meta.variants import ALL_VARIANTS as all_variants
        from meta.variants import variant_seed as seed_of

    assert from_policy is ReferenceGameEnd
    assert agents.make("piers").name == "Piers"
    assert (ALL_VARIANTS, variant_seed) == (all_variants, seed_of)
