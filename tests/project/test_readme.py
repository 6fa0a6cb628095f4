"""The README's Python snippets run, each alone in a fresh interpreter, as a user pastes them."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_snippets_for_every_part():
    code = "\n".join(python_blocks())
    for needle in ("hanabi_env.env(", "make(", "evaluate(", "run_map_elites(", "build_table("):
        assert needle in code, needle


def _blocks_to_run() -> list[tuple[int, str]]:
    blocks = list(enumerate(python_blocks()))
    if importlib.util.find_spec("sb3_contrib") is None:  # core install: no rl extra
        blocks = [(i, b) for i, b in blocks if "agents.sb3" not in b]
    return blocks


@pytest.mark.parametrize(("index", "block"), _blocks_to_run(), ids=lambda x: str(x)[:1])
def test_readme_python_snippet_runs_on_its_own(index, block, tmp_path):
    from tests.project.test_docs import run_block

    proc = run_block(block, tmp_path)
    assert proc.returncode == 0, f"README python block {index}:\n{proc.stderr[-4000:]}"
