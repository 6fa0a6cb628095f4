"""Agent specs (agents.registry): every form resolves, every bad form names the spec."""

from __future__ import annotations

import textwrap

import pytest

import agents
from agents.policy import Policy, RuleAgent
from agents.registry import make_policy, register_prefix, registered_prefixes

MINE = textwrap.dedent(
    """
    from agents import Policy

    class Mine(Policy):
        name = "mine"

        def __init__(self, seed=0):
            self.seed = seed

        def act(self, view):
            return int(view.legal_actions()[-1])

    def factory():
        return Mine(seed=99)

    NOT_A_POLICY = 3
    """
)


@pytest.fixture
def mine(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(MINE)
    return path


def test_baseline_and_chromosome_specs():
    assert isinstance(agents.make("piers"), RuleAgent)
    chromo = agents.make("3, 17,4", seed=2)
    assert isinstance(chromo, RuleAgent)
    assert chromo.chromosome == (3, 17, 4)
    ref = agents.make("3,17,4", ruleset="reference")
    assert ref.ruleset == "reference"  # type: ignore[attr-defined]


def test_file_class_gets_the_seed_and_plays(mine):
    pol = make_policy(f"{mine}:Mine", seed=7)
    assert isinstance(pol, Policy)
    assert pol.seed == 7  # type: ignore[attr-defined]
    batch = agents.play([pol, "piers"], games=2, seed=1)
    assert batch.scores.shape == (2,)


def test_factory_without_seed_and_module_spec(mine, monkeypatch):
    assert make_policy(f"{mine}:factory").seed == 99  # type: ignore[attr-defined]
    monkeypatch.syspath_prepend(str(mine.parent))
    assert type(make_policy("mine:Mine")).__name__ == "Mine"


@pytest.mark.parametrize(
    ("spec", "error", "words"),
    [
        ("nosuchmodule_xyz:X", ValueError, "no module named"),
        ("{file}:Nope", ValueError, "has no attribute"),
        ("{file}:NOT_A_POLICY", TypeError, "Policy subclass"),
        ("json:loads", TypeError, "callable"),
        ("missing_file.py:X", ValueError, "no Python file"),
        ("agents:", ValueError, "names no object"),
        ("1,2,x", ValueError, "not a chromosome"),
        ("nobody", ValueError, "unknown agent"),
        ("sb3:model.zip", ValueError, "trust"),
        ("", ValueError, "not allowed"),
    ],
)
def test_bad_specs_are_refused_naming_them(mine, spec, error, words):
    with pytest.raises(error, match=words):
        make_policy(spec.format(file=mine))


def test_prefix_registration_rules():
    assert "sb3" in registered_prefixes()
    with pytest.raises(ValueError, match="already registered"):
        register_prefix("sb3", "x.y:z", "x")
    with pytest.raises(ValueError, match="not allowed"):
        register_prefix("Bad Prefix", "x.y:z", "x")
    with pytest.raises(ValueError, match="not allowed"):
        register_prefix("ok", "not a loader", "x")
    with pytest.raises(TypeError, match="spec must be"):
        make_policy(3)  # type: ignore[arg-type]
