"""Agent specs (agents.registry): every form resolves, every bad form names the spec."""

from __future__ import annotations

import textwrap

import pytest

import agents
from agents.policy import Policy, RuleAgent
from agents.registry import (
    make_policy,
    register_prefix,
    registered_prefixes,
    spec_kind,
    split_options,
)

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


OPTIONS = textwrap.dedent(
    """
    from agents import Policy

    class Leveled(Policy):
        def __init__(self, level=1, mode="safe", ratio=0.5, greedy=False, tag=None, seed=0):
            self.level, self.mode, self.ratio = level, mode, ratio
            self.greedy, self.tag, self.seed = greedy, tag, seed
            self.name = f"leveled-{level}"

        def act(self, view):
            return int(view.legal_actions()[0])

    class Anything(Policy):
        def __init__(self, **options):
            self.options = options

        def act(self, view):
            return int(view.legal_actions()[0])

    def build(depth, *, width=2):
        pol = Leveled(level=depth)
        pol.width = width
        return pol

    INSTANCE = Leveled()
    """
)


@pytest.fixture
def options_file(tmp_path):
    path = tmp_path / "leveled.py"
    path.write_text(OPTIONS)
    return path


def test_spec_options_are_keyword_arguments_read_as_json_scalars(options_file):
    pol = make_policy(
        f"{options_file}:Leveled?level=2&mode=fast&ratio=0.25&greedy=true&tag=null", seed=5
    )
    assert (pol.level, pol.mode, pol.ratio, pol.greedy, pol.tag, pol.seed) == (
        2, "fast", 0.25, True, None, 5,
    )  # fmt: skip
    pol = make_policy(f"{options_file}:Leveled?level=%222%22&mode=a%26b%3Dc&ratio=NaN")
    assert (pol.level, pol.mode, pol.ratio) == ("2", "a&b=c", "NaN")  # quoted: a str
    assert make_policy(f"{options_file}:Leveled?mode=[1,2]").mode == "[1,2]"  # not a scalar
    anything = make_policy(f"{options_file}:Anything?x=1&y=no")
    assert anything.options == {"x": 1, "y": "no", "seed": 0}  # type: ignore[attr-defined]
    fn = make_policy(f"{options_file}:build?depth=3&width=4")
    assert (fn.level, fn.width) == (3, 4)  # type: ignore[attr-defined]
    assert make_policy(f"{options_file}:Leveled").level == 1  # no options: the defaults


def test_module_spec_options(options_file, monkeypatch):
    monkeypatch.syspath_prepend(str(options_file.parent))
    assert make_policy("leveled:Leveled?level=4").level == 4  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("{file}:Leveled?levle=2", r"accepts no option 'levle'; allowed: level, mode, ratio"),
        ("{file}:build?depth=1&height=2", r"no option 'height'; allowed: depth, width"),
        ("{file}:Leveled?seed=3", "seed argument"),
        ("{file}:Leveled?", "no options after"),
        ("{file}:Leveled?level", "not allowed; allowed: key=value"),
        ("{file}:Leveled?2x=1", "not allowed"),
        ("{file}:Leveled?level=1&level=2", "given twice"),
        ("{file}:INSTANCE?level=2", "takes no options"),
        ("piers?level=2", "only in module:Name and file.py:Name"),
        ("3,17,4?x=1", "only in module:Name"),
        ("rl:random?x=1", "only in module:Name"),
    ],
)
def test_bad_spec_options_are_refused_naming_the_spec(options_file, spec, words):
    text = spec.format(file=options_file)
    with pytest.raises(ValueError, match=words) as info:
        make_policy(text)
    assert text in str(info.value)


def test_spec_kind_and_split_options_ignore_the_options():
    assert spec_kind("agents/mine.py:Mine?level=2") == "code"
    assert spec_kind("my_agents:Mine?x=a:b") == "code"
    assert spec_kind("piers?x=1") == "baseline"
    assert spec_kind("3,17,4?x=1") == "chromosome"
    assert spec_kind("rl:partner.json?x=1") == "model_file"  # the path, not the options
    assert spec_kind("rl:random?x=1") == "shipped"
    assert split_options("a.py:B?x=1&y=z") == ("a.py:B", {"x": 1, "y": "z"})
    assert split_options("piers") == ("piers", {})
    with pytest.raises(TypeError, match="spec must be"):
        split_options(3)  # type: ignore[arg-type]


def test_split_prefix_reads_a_prefix_and_nothing_else():
    from agents.registry import split_prefix

    assert split_prefix("rl:clone-smartbot") == ("rl", "clone-smartbot")
    assert split_prefix(" RL : a/b.json ") == ("rl", "a/b.json")
    assert split_prefix("file.py:Bot?x=1") == ("file.py", "Bot?x=1")
    assert split_prefix("IGGI") == (None, "IGGI")
    assert split_prefix("3,17,4") == (None, "3,17,4")
    with pytest.raises(TypeError, match="spec"):
        split_prefix(3)  # type: ignore[arg-type]
