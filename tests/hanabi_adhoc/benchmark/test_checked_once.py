"""An agent spec is checked where it enters, not again on every floor (issue 42, item 5).

Following a benchmark unit's agent from its spec down to the policy (``specs.make_agent`` →
``agents.registry.make_policy`` → the baseline or the chromosome's ``RuleAgent``): the spec
passed ``validate.check_str`` four times and its seed ``check_seed`` three times before; the
registry now checks both once, the inner functions trust them, and the ``RuleAgent``
constructor (public: anyone may call it) checks its own arguments.
"""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from hanabi_env import validate

PACKAGES = ("hanabi_env", "agents", "qd", "meta", "hanabi_adhoc")


@pytest.fixture
def counted(monkeypatch):
    """Count the calls of ``check_str`` and ``check_seed`` by every project module."""
    import hanabi_adhoc.specs  # noqa: F401 - imports the path's modules, which bind the checks

    calls: Counter = Counter()
    originals = {"check_str": validate.check_str, "check_seed": validate.check_seed}

    def wrap(kind, fn):
        def counting(name, *args, **kwargs):
            calls[kind] += 1
            return fn(name, *args, **kwargs)

        return counting

    for module in list(sys.modules.values()):
        if module is None or (module.__name__ or "").split(".")[0] not in PACKAGES:
            continue
        for attr, fn in originals.items():
            if getattr(module, attr, None) is fn:
                monkeypatch.setattr(module, attr, wrap(attr, fn))
    return calls


@pytest.mark.parametrize("spec", ["piers", "IGGI", "3,17,4"])
def test_a_spec_is_checked_once_on_its_way_to_a_policy(counted, spec):
    from hanabi_adhoc.specs import make_agent

    policy = make_agent(spec, 7)
    assert policy.name in ("Piers", "IGGI", "chromosome")
    assert counted["check_str"] + counted["check_seed"] > 0  # the counting sees the checks
    # the registry's check of the spec, the RuleAgent's of its name
    assert counted["check_str"] <= 2, counted
    # the registry's check of the seed, the RuleAgent's
    assert counted["check_seed"] <= 2, counted


def test_bad_input_is_still_refused_where_it_enters(counted):
    from hanabi_adhoc.specs import make_agent

    with pytest.raises(TypeError, match="spec"):
        make_agent(3, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        make_agent("piers", -1)
    with pytest.raises(ValueError, match="unknown agent ' piers'"):
        make_agent(" piers", 0)
    with pytest.raises(ValueError, match="ruleset"):
        make_agent("piers", 0, ruleset="newest")
