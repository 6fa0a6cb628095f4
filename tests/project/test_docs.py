"""The documentation site: it builds in strict mode, its links resolve, its code runs.

* The site (``mkdocs.yml``: MkDocs, Material, mkdocstrings; the ``docs`` extra) builds with
  ``--strict``: any warning fails, a broken link or anchor between pages included, and a
  docstring the API reference cannot parse.
* Every fenced code block of the README, the changelog and ``docs/`` names its language. A
  ``python`` block runs here, alone in a fresh interpreter in a scratch folder, as a reader
  pastes it; a ``bash`` block holds only ``hanabi-adhoc`` commands, which
  tests/hanabi_adhoc/test_cli_docs.py runs at small scale. A block preceded by
  ``<!-- no-run: REASON -->`` is not run, and says why (installs, servers, hours of compute).
  Other languages (``text``, ``json``) are output or data, not code.
* The README's and the changelog's relative links point at files of the repository.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
NO_RUN = re.compile(r"<!--\s*no-run:\s*(\S[^>]*?)\s*-->")


def pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]


def code_blocks(path: Path) -> list[tuple[int, str, str, str | None]]:
    """``(line, language, code, no-run reason)`` of every fenced block of a Markdown file."""
    lines = path.read_text().splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        before = next((ln for ln in reversed(lines[:i]) if ln.strip()), "")
        reason = NO_RUN.search(before)
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        code = "\n".join(ln[len(indent) :] for ln in lines[i + 1 : end])
        blocks.append((i + 1, lang, code + "\n", reason.group(1) if reason else None))
        i = end + 1
    return blocks


def _name(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


PYTHON = [
    pytest.param(code, id=_name(p, line))
    for p in pages()
    if p.name != "README.md" or p.parent != ROOT  # the README's run in test_readme.py
    for line, lang, code, reason in code_blocks(p)
    if lang == "python" and reason is None
]


def test_every_block_names_its_language_and_bash_blocks_hold_commands():
    problems = []
    for path in pages():
        for line, lang, code, reason in code_blocks(path):
            where = _name(path, line)
            if not lang:
                problems.append(f"{where}: a code block without a language (text, python, ...)")
            if lang == "bash" and reason is None:
                for cmd in code.replace("\\\n", " ").splitlines():  # continued lines joined
                    cmd = re.sub(r"(^|\s)#.*$", "", cmd).strip()
                    parts = [p.strip() for p in cmd.split("&&") if p.strip()]
                    runs = [p for p in parts if not p.startswith("hanabi-adhoc ")]
                    if runs and path.name == "README.md" and path.parent == ROOT:
                        continue  # the Quickstart: CI runs it as written (.ci/run)
                    if runs:
                        problems.append(f"{where}: {runs[0]!r} is not run by the tests; mark "
                                        "the block <!-- no-run: REASON -->")  # fmt: skip
    assert not problems, "\n".join(problems)


def test_no_run_markers_say_why():
    for path in pages():
        for line, _, _, reason in code_blocks(path):
            if reason is not None:
                assert len(reason) > 10, f"{_name(path, line)}: say why the block is not run"


IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w., ]+))", re.M)


def _missing_modules(code: str) -> list[str]:
    """Top-level modules a block imports that are not installed (an optional library)."""
    names = set()
    for frm, imp in IMPORT.findall(code):
        for name in [frm] if frm else [n.split(" as ")[0] for n in imp.split(",")]:
            names.add(name.strip().split(".")[0])
    return sorted(n for n in names if n and importlib.util.find_spec(n) is None)


@pytest.mark.parametrize("code", PYTHON)
def test_docs_python_block_runs_on_its_own(code, tmp_path):
    if "agents.sb3" in code and importlib.util.find_spec("sb3_contrib") is None:
        pytest.skip("needs the rl extra (torch, sb3-contrib)")
    missing = _missing_modules(code)
    if missing:  # a page about an optional library (docs/marl.md) shows how to use it
        pytest.skip(f"needs {', '.join(missing)}, not installed here")
    proc = run_block(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]


def run_block(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """A code block run alone in a fresh interpreter, in a scratch folder, as a reader would."""
    script = tmp_path / "block.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


@pytest.mark.parametrize("name", ["README.md", "CHANGELOG.md"])
def test_relative_links_of_the_top_level_files_resolve(name):
    text = (ROOT / name).read_text()
    missing = [
        target
        for target, _ in LINK.findall(text)
        if "://" not in target and not (ROOT / target).exists()
    ]
    assert not missing, f"{name} links to files that do not exist: {missing}"


def test_site_builds_in_strict_mode(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"the docs extra is not installed ({module}): pip install '.[docs]'")
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    assert "WARNING" not in log, log[-4000:]
    # every page of the nav was written, the API reference included
    for page in ("index.html", "getting-started.html", "reference/agents.html", "changelog.html"):
        assert (site / page).is_file(), page
    api = (site / "reference" / "agents.html").read_text()
    assert "make_policy" in api  # generated from agents.registry's docstrings
    assert "0.2.0" in (site / "changelog.html").read_text()
