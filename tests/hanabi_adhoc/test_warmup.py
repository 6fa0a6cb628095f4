"""A first run that talks: the compilation is announced once, with an estimate and a line per
step, and recorded in the kernel cache so that later runs say nothing.

The steps are replaced by instant stand-ins (no compilation here); the real steps run in the
session's warm-up fixture (tests/conftest.py).
"""

from __future__ import annotations

import json

import pytest

from hanabi_adhoc import warmup


@pytest.fixture
def fake_steps(monkeypatch, tmp_path):
    calls: list[str] = []
    steps = tuple((name, (lambda n=name: calls.append(n))) for name, _ in warmup.STEPS)
    monkeypatch.setattr(warmup, "STEPS", steps)
    monkeypatch.setenv("HANABI_ADHOC_CACHE", str(tmp_path / "cache"))
    return calls


def test_first_run_announces_then_later_runs_are_silent(fake_steps):
    lines: list[str] = []
    spent = warmup.ensure_compiled(("env", "rule games"), say=lines.append)
    assert fake_steps == ["env", "rule games"]
    assert spent >= 0.0
    assert lines[0].startswith("compiling kernels (once for this version, about ")
    estimate = warmup.ESTIMATE_S["env"] + warmup.ESTIMATE_S["rule games"]
    assert f"about {warmup._minutes(estimate)} on an idle machine" in lines[0]
    assert lines[1].startswith("  [1/2] env: ")
    assert lines[2].startswith("  [2/2] rule games: ")
    # recorded in the cache folder (keyed on the kernel sources): silent from now on
    from hanabi_env.jit import cache_root

    marker = json.loads((cache_root() / warmup.MARKER).read_text())
    assert set(marker["steps"]) == {"env", "rule games"}
    lines.clear()
    assert warmup.ensure_compiled(("rule games",), say=lines.append) == 0.0
    assert lines == []
    # a step not compiled yet is announced alone
    warmup.ensure_compiled(("rule games", "meta"), say=lines.append)
    assert fake_steps[-1] == "meta"
    assert lines[1].startswith("  [1/1] meta: ")


def test_announcements_go_to_stderr(fake_steps, capsys):
    warmup.ensure_compiled(("env",))
    out, err = capsys.readouterr()
    assert out == ""
    assert "compiling kernels" in err


def test_warm_up_records_every_step(fake_steps):
    warmup.warm_up()
    assert set(warmup.compiled_steps()) == {name for name, _ in warmup.STEPS}
    assert warmup.ensure_compiled(say=lambda line: pytest.fail(line)) == 0.0


def test_an_unreadable_marker_means_not_compiled(fake_steps):
    from hanabi_env.jit import cache_root

    (cache_root()).mkdir(parents=True)
    (cache_root() / warmup.MARKER).write_text("{not json")
    assert warmup.compiled_steps() == {}


def test_unknown_step_is_refused(fake_steps):
    with pytest.raises(ValueError, match="'nope' is not a warm-up step"):
        warmup.ensure_compiled(("nope",))
