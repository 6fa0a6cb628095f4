"""The shared modules' old private paths (``hanabi_env._engine`` ...) still import, warn once,
and are the public modules (``hanabi_env.engine`` ...) themselves (docs/architecture.md §1)."""

from __future__ import annotations

import pytest

from tests.hanabi_env.helpers import SHARED_MODULES
from tests.helpers import moved_module_warnings, run_python


@pytest.mark.parametrize("name", SHARED_MODULES)
def test_an_old_path_imports_the_public_module_with_one_warning(tmp_path, name):
    caught = moved_module_warnings(f"hanabi_env._{name}", f"hanabi_env.{name}", tmp_path)
    assert caught == [
        [
            "DeprecationWarning",
            "<string>",  # the importer's line, not the forward's or importlib's
            f"hanabi_env._{name} moved to hanabi_env.{name}; the old path goes in 0.4",
        ]
    ]


def test_the_project_imports_no_old_path(tmp_path):
    code = (
        "import hanabi_env, agents, qd, meta, hanabi_adhoc, hanabi_adhoc.cli.main, "
        "hanabi_adhoc.web.app, hanabi_adhoc.benchmark, hanabi_adhoc.study.pipeline; "
        "import agents.bots, agents.lockstep, meta.compiled"
    )
    proc = run_python(["-W", "error::DeprecationWarning", "-c", code], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
