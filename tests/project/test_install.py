"""The bare package (``pip install .``, no extra) runs every command that needs no extra.

Marked ``install``: it makes a real fresh virtual environment (no system site-packages) and
installs the package from a copy of the repository's files, as a user does; pip's cache makes
the install take a minute or less, and the compiled kernels come from this session's cache (it
is keyed on the kernel sources, not on where they are installed). Without a package index it
skips and says why. Then, in that environment and outside the clone:

* ``demo``, ``play`` of two agents, ``evaluate``, ``meta-table`` and the README's agents
  example run;
* the commands that need an extra stop before any work with one ``error:`` line naming it
  (``pipeline``: qd; ``train-sb3``: rl, with the CPU-torch note; ``serve``: web).
"""

from __future__ import annotations

import os
import re
import subprocess
import venv
from pathlib import Path

import pytest

from tests.project.test_self_contained import copy_source_tree

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.install
OFFLINE = re.compile(
    r"No matching distribution|Could not find a version|connection|Network is unreachable|"
    r"Temporary failure in name resolution|No route to host",
    re.I,
)


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """A fresh virtual environment with ``pip install .`` of the repository's files."""
    tmp = tmp_path_factory.mktemp("bare")
    src = copy_source_tree(tmp / "src")
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(src)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0 and OFFLINE.search(proc.stderr):
        pytest.skip(f"no package index reachable: {proc.stderr.strip()[-200:]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    work = tmp / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    return env_dir, work, env


def _run(bare, *argv: str, timeout: int = 900) -> subprocess.CompletedProcess:
    env_dir, work, env = bare
    return subprocess.run(
        [str(env_dir / "bin" / argv[0]), *argv[1:]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


EXTRA_MODULES = ("matplotlib", "ribs", "torch", "flask", "pytest")


def test_the_bare_install_has_no_extra(bare):
    code = f"import importlib.util as u; print([m for m in {EXTRA_MODULES} if u.find_spec(m)])"
    proc = _run(bare, "python", "-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    proc = _run(bare, "python", "-c", "import hanabi_env, sys; print(hanabi_env.__file__)")
    assert str(ROOT) not in proc.stdout, "the fresh environment must not see the clone"


@pytest.mark.parametrize(
    ("argv", "expect"),
    [
        (["demo", "--games", "2"], "mean score over 2 games"),
        (["play", "piers", "iggi", "--games", "1"], "game 0: score"),
        (["evaluate", "piers", "--games", "2", "--players", "2", "--quiet"], "overall:"),
        (
            [
                "meta-table",
                "--responses",
                "baselines:piers,iggi",
                "--train-games",
                "1",
                "--out",
                "t.csv",
            ],
            "Generalist",
        ),
    ],
    ids=lambda x: x[0] if isinstance(x, list) else None,
)
def test_commands_without_an_extra_run(bare, argv, expect):
    proc = _run(bare, "hanabi-adhoc", *argv)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert expect in proc.stdout, proc.stdout[-2000:]
    assert "Traceback" not in proc.stderr


def test_the_readme_agents_example_runs(bare):
    readme = (ROOT / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "evaluate(" in b]
    proc = _run(bare, "python", "-c", block)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["pipeline", "--runs", "1"], "pip install '.[qd]'"),
        (["train-sb3", "--steps", "1"], "CPU build of torch first"),
        (["serve", "--port", "0"], "[web]"),
    ],
    ids=lambda x: x[0] if isinstance(x, list) else None,
)
def test_commands_that_need_an_extra_name_it(bare, argv, needle):
    proc = _run(bare, "hanabi-adhoc", *argv, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: "), lines
    assert needle in lines[0]
