"""Release hygiene: one version everywhere, a changelog entry for it, moved names still work."""

from __future__ import annotations

import importlib
import re
import sys
import warnings
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]

MOVED = [  # (old module, name, new module): moved in 0.1.0, kept with a warning until 0.3.0
    ("agents.evaluate", "play_rule_table", "agents.rule_games"),
    ("agents.evaluate", "kernel_scratch", "agents.rule_games"),
    ("agents.evaluate", "play_rule_games_kernel", "agents.rule_games"),
    ("agents.backend", "play_policies", "agents.evaluate"),
    ("qd.ga", "SituationalAgent", "qd.situational"),
    ("qd.ga", "evaluate_situational", "qd.situational"),
    ("qd.ga", "evolve_situational", "qd.situational"),
]


def _version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_one_version_everywhere():
    import hanabi_env

    version = _version()
    assert hanabi_env.__version__ == version
    assert f'version: "{version}"' in (ROOT / "CITATION.cff").read_text()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    first = re.search(r"^## \[?(\d+\.\d+\.\d+)", changelog, flags=re.M)
    assert first is not None
    assert first.group(1) == version, "the newest changelog entry is this version"


def test_changelog_lists_what_is_deprecated():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    for old, name, _ in MOVED:
        assert f"{old}.{name}" in changelog, name


@pytest.mark.parametrize(("old", "name", "new"), MOVED)
def test_moved_names_work_with_a_deprecation_warning(old, name, new):
    module = sys.modules.get(old) or importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new}\.{name}"):
        obj = getattr(module, name)
    assert obj is getattr(importlib.import_module(new), name)


def test_from_import_of_a_moved_name_warns(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from qd.ga import SituationalAgent  # noqa: F401
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_unknown_names_still_raise_attribute_error():
    import qd.ga

    with pytest.raises(AttributeError, match="no_such_name"):
        qd.ga.no_such_name  # noqa: B018


def test_load_pool_from_meta():
    from meta import load_pool

    pool, ids = load_pool("baselines:piers,iggi")
    assert ids == ["piers", "iggi"] or len(pool) == 2
