"""An agent spec is checked where it enters, not again on every floor (issue 42, item 5).

Following one benchmark unit (``run_benchmark`` → ``specs.make_agent`` →
``agents.registry.make_policy`` → the policy; the identity; ``protocol.play_unit`` →
``agents.evaluate.play_games``), measured on ``hanabi-adhoc benchmark IGGI --suite pool``
(docs/architecture.md §6, "The path of one benchmark unit"):

* before: the agent's spec passed ``validate.check_str`` 3 times (``make_policy``, then
  ``spec_kind`` and ``toolkit_identity`` for its identity) and its seed ``check_seed`` 3 times
  (``run_benchmark``, ``make_policy``, the ``RuleAgent`` constructor);
* after: the settings are checked once, in ``BenchmarkSettings``; ``make_policy`` checks the
  spec and leaves a rule agent's seed to its constructor (public: anyone may call it, so it
  checks its own arguments): the seed is checked twice, the spec once on its way to the policy
  and twice more by ``agents.identity`` (``agent_identity`` asks ``spec_kind``, then
  ``toolkit_identity``; that module is not this change's);
* no call climbs back up a floor on the way (no callback of a higher package is called).

The validators are wrapped where every project module looks them up (its own name for them).
"""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from hanabi_env import validate
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite

PACKAGES = ("hanabi_env", "agents", "qd", "meta", "hanabi_adhoc")
FLOORS = {p: i for i, p in enumerate(PACKAGES)}


def _floor(module: str | None) -> int | None:
    return FLOORS.get((module or "").split(".")[0])


@pytest.fixture
def counted(monkeypatch):
    """``(validator, value, calling function)`` → calls, for every project module's checks."""
    import hanabi_adhoc.benchmark.run
    import hanabi_adhoc.specs  # noqa: F401

    calls: Counter = Counter()
    originals = {"check_str": validate.check_str, "check_seed": validate.check_seed}

    def wrap(kind, fn):
        def counting(name, value, *args, **kwargs):
            frame = sys._getframe(1)
            caller = f"{frame.f_globals.get('__name__')}.{frame.f_code.co_name}"
            calls[kind, repr(value), caller] += 1
            return fn(name, value, *args, **kwargs)

        return counting

    for module in list(sys.modules.values()):
        if module is None or _floor(getattr(module, "__name__", None)) is None:
            continue
        for attr, fn in originals.items():
            if getattr(module, attr, None) is fn:
                monkeypatch.setattr(module, attr, wrap(attr, fn))
    return calls


def _of(calls: Counter, kind: str, value: object) -> dict[str, int]:
    """Calls of validator ``kind`` with ``value``, by calling function (``module.name``)."""
    out: Counter = Counter()
    for (k, v, caller), n in calls.items():
        if k == kind and v == repr(value):
            out[caller] += n
    return dict(out)


@pytest.mark.parametrize("spec", ["piers", "IGGI", "3,17,4"])
def test_a_spec_is_checked_once_on_its_way_to_a_policy(counted, spec):
    from hanabi_adhoc.specs import make_agent

    policy = make_agent(spec, 7)
    assert policy.name in ("Piers", "IGGI", "chromosome")
    checks = _of(counted, "check_str", spec)
    assert checks.pop("agents.registry.make_policy") == 1
    assert (
        checks.pop("agents.policy.__init__", 0) <= 1
    )  # the RuleAgent's name ("IGGI" from the table)
    assert checks == {}, checks
    assert _of(counted, "check_seed", 7) == {"agents.policy.__init__": 1}  # the RuleAgent's


def test_one_benchmark_unit_checks_its_agent_once_where_it_enters(counted, tmp_path):
    from hanabi_adhoc.benchmark.run import run_benchmark

    suite = tiny_suite(tmp_path / "tiny.json")  # partners Piers, IGGI and three chromosomes
    climbs: Counter = Counter()

    def profile(frame, event, arg):
        if event == "call" and frame.f_back is not None:
            here, there = (
                _floor(frame.f_globals.get("__name__")),
                _floor(frame.f_back.f_globals.get("__name__")),
            )
            if here is not None and there is not None and here > there:
                climbs[frame.f_back.f_code.co_name, frame.f_code.co_name] += 1

    sys.setprofile(profile)
    try:
        bench = run_benchmark(
            ["Outer"], [str(suite)], seed=5, players=[2], deals=2, workers=1, progress=False
        )
    finally:
        sys.setprofile(None)
    assert len(bench.runs[0].results["score"]) > 0  # the units were played
    assert sum(counted.values()) > 0  # the counting sees the checks
    spec = _of(counted, "check_str", "Outer")
    assert spec.pop("agents.registry.make_policy") == 1  # the spec on its way to the policy
    # its identity (agents.identity.agent_identity: not this change's module) checks it again
    assert spec.pop("agents.registry.spec_kind", 0) <= 1
    assert "agents.identity.toolkit_identity" not in spec  # agent_identity checked it already
    assert spec.pop("agents.policy.__init__", 0) <= 1  # the RuleAgent's name, from the table
    assert spec == {}, spec
    seed = _of(counted, "check_seed", 5)
    # where it enters (the settings), and the RuleAgent constructor's own (public)
    assert seed == {"hanabi_adhoc.benchmark.run.__post_init__": 1, "agents.policy.__init__": 1}
    assert not climbs, climbs  # no call back up a floor


def test_bad_input_is_still_refused_where_it_enters(counted):
    from hanabi_adhoc.specs import make_agent

    with pytest.raises(TypeError, match="spec"):
        make_agent(3, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        make_agent("piers", -1)
    with pytest.raises(ValueError, match="seed"):
        make_agent("3,17,4", 2**62)
    with pytest.raises(TypeError, match="seed"):
        make_agent("smartbot", 1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown agent ' piers'"):
        make_agent(" piers", 0)
    with pytest.raises(ValueError, match="ruleset"):
        make_agent("piers", 0, ruleset="newest")


def test_bad_benchmark_settings_are_refused_before_anything_is_built(counted):
    from hanabi_adhoc.benchmark.run import run_benchmark

    with pytest.raises(ValueError, match="seed"):
        run_benchmark(["Outer"], ["pool"], seed=-1, progress=False)
    with pytest.raises(TypeError, match="trust_model"):
        run_benchmark(["Outer"], ["pool"], trust_model="yes", progress=False)  # type: ignore[arg-type]
    assert not _of(counted, "check_str", "Outer")  # refused before the agent was built
