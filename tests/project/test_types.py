"""The packages type-check under the mypy configuration in pyproject.toml ([tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_clean():
    probe = subprocess.run(
        [sys.executable, "-m", "mypy", "--version"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        pytest.fail("mypy is a test dependency; install the package with .[test]")
    # the packages to check, the Python version and the options all come from pyproject.toml
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, (
        "mypy reports errors ([tool.mypy] in pyproject.toml):\n" + result.stdout + result.stderr
    )
