"""The README's Python snippets run, in order, in one namespace (the README stays true)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_snippets_for_every_part():
    code = "\n".join(python_blocks())
    for needle in ("hanabi_env.env(", "make(", "evaluate(", "run_map_elites(", "build_table("):
        assert needle in code, needle


def test_readme_python_snippets_run(tmp_path):
    blocks = python_blocks()
    if importlib.util.find_spec("sb3_contrib") is None:  # core install: no rl extra
        blocks = [b for b in blocks if "agents.sb3" not in b]
    script = tmp_path / "readme_snippets.py"
    script.write_text("\n\n".join(f"# --- block {i}\n{b}" for i, b in enumerate(blocks)))
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
