"""The compiled-kernel cache: complete staleness key, read-only caches, unwritable HOME."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hanabi_env import _jit

ROOT = Path(__file__).resolve().parents[1]

# A small kernel path: dealing a game compiles the engine's reset kernels only.
SCRIPT = """
import warnings
warnings.simplefilter("always")
from hanabi_env.game import HanabiGame
from hanabi_env import _engine as E
g = HanabiGame(players=2)
g.reset(3)
print("deck", int(g.state.deck[0]), "hits", sum(E.reset_state.stats.cache_hits.values()))
"""


def run(env_extra: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in _CACHE_VARS}
    env.update(env_extra, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


_CACHE_VARS = ("HANABI_ADHOC_CACHE", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "NUMBA_DISABLE_JIT")


def test_every_kernel_module_is_in_the_staleness_key():
    """A module defining kernels that is missing from KERNEL_SOURCES could keep stale code."""
    listed = set(_jit.KERNEL_SOURCES)
    for pkg in ("hanabi_env", "agents", "qd", "meta"):
        for path in (ROOT / pkg).rglob("*.py"):
            text = path.read_text()
            if re.search(r"^\s*@(njit|_kernel)\b", text, flags=re.M):
                rel = path.relative_to(ROOT).as_posix()
                assert rel in listed, f"{rel} defines kernels but is not in KERNEL_SOURCES"
    for rel in listed:
        assert (ROOT / rel).is_file(), rel


def test_unwritable_home_compiles_in_memory_with_one_warning(tmp_path):
    # a HOME under a regular file can never be created, not even by root
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    proc = run({"HOME": str(blocker / "home")}, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("deck")
    warnings = [ln for ln in proc.stderr.splitlines() if "cannot write compiled kernels" in ln]
    assert len(warnings) == 1, proc.stderr


def test_a_prebuilt_cache_loads_without_writing(tmp_path):
    cache = tmp_path / "cache"
    first = run({"HANABI_ADHOC_CACHE": str(cache)}, tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    files = sorted(p for p in cache.rglob("*") if p.is_file())
    assert files, "the first run wrote the cache"
    stamp = {p: p.stat().st_mtime_ns for p in files}
    frozen = (
        shutil.which("chattr")
        and subprocess.run(["chattr", "-R", "+i", str(cache)], capture_output=True).returncode == 0
    )
    try:
        second = run({"HANABI_ADHOC_CACHE": str(cache)}, tmp_path)
    finally:
        if frozen:
            subprocess.run(["chattr", "-R", "-i", str(cache)], check=False)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "cannot write compiled kernels" not in second.stderr
    assert int(second.stdout.split("hits")[1]) >= 1, "the kernel came from the cache"
    assert second.stdout.split("hits")[0] == first.stdout.split("hits")[0]
    assert {p: p.stat().st_mtime_ns for p in files} == stamp
    assert sorted(p for p in cache.rglob("*") if p.is_file()) == files


def test_the_cache_root_follows_the_documented_precedence(monkeypatch):
    for var in _CACHE_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", "/h")
    assert _jit.cache_root().parent == Path("/h/.cache/hanabi-adhoc/numba")
    monkeypatch.setenv("XDG_CACHE_HOME", "/x")
    assert _jit.cache_root().parent == Path("/x/hanabi-adhoc/numba")
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/n")
    assert _jit.cache_root().parent == Path("/n/hanabi-adhoc")
    monkeypatch.setenv("HANABI_ADHOC_CACHE", "/a")
    assert _jit.cache_root().parent == Path("/a")


@pytest.mark.parametrize("bad", [("sig",), (1, 2)])
def test_njit_refuses_positional_signatures(bad):
    with pytest.raises(TypeError, match="keywords"):
        _jit.njit(*bad)
