"""The code base is ruff-clean under the configuration in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_clean():
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    probe = subprocess.run([*cmd, "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.fail("ruff is a test dependency; install the package with .[test]")
    result = subprocess.run([*cmd, "check", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
