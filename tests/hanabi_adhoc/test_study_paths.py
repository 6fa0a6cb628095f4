"""The study's old module paths (hanabi_adhoc.pipeline, .resume, .report) still import, warn
once, and are the new modules of hanabi_adhoc.study (docs/architecture.md §1.1)."""

from __future__ import annotations

import pytest

from tests.helpers import moved_module_warnings, run_python

MOVED = ("pipeline", "resume", "report")


@pytest.mark.parametrize("name", MOVED)
def test_an_old_path_imports_the_new_module_with_one_warning(tmp_path, name):
    caught = moved_module_warnings(f"hanabi_adhoc.{name}", f"hanabi_adhoc.study.{name}", tmp_path)
    moved = [w for w in caught if w[0] == "DeprecationWarning" and f"hanabi_adhoc.{name}" in w[2]]
    assert moved == [
        [
            "DeprecationWarning",
            "<string>",  # the importer's line, not the forward's or importlib's
            f"hanabi_adhoc.{name} moved to hanabi_adhoc.study.{name}; the old path goes in 0.4",
        ]
    ], caught
    code = f"import hanabi_adhoc.{name} as m, hanabi_adhoc as h; assert h.{name} is m"
    proc = run_python(["-c", code], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_a_user_script_on_the_old_path_runs_and_is_told(tmp_path):
    script = tmp_path / "study.py"
    script.write_text(
        "from hanabi_adhoc.pipeline import get_pipeline_config, run_pipeline\n"
        "from hanabi_adhoc.study import pipeline\n"
        "assert run_pipeline is pipeline.run_pipeline\n"
        "print(get_pipeline_config('quick', runs=2).runs)\n"
    )
    proc = run_python([str(script)], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "2"
    # shown by Python's default filters, since the warning points at the user's own script
    assert "study.py:1: DeprecationWarning: hanabi_adhoc.pipeline moved to" in proc.stderr
    assert proc.stderr.count("DeprecationWarning") == 1, proc.stderr


def test_the_new_paths_do_not_warn(tmp_path):
    code = "; ".join(f"import hanabi_adhoc.study.{name}" for name in MOVED)
    proc = run_python(["-W", "error::DeprecationWarning", "-c", code], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
