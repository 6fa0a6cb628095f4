"""The compiled-kernel cache: complete staleness key, read-only caches, unwritable HOME."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

from hanabi_env import jit
from tests.hanabi_env.helpers import SHARED_MODULES
from tests.helpers import run_python

ROOT = Path(__file__).resolve().parents[2]

# A small kernel path: dealing a game compiles the engine's reset kernels only.
SCRIPT = """
import warnings
warnings.simplefilter("always")
from hanabi_env.game import HanabiGame
from hanabi_env import engine as E
g = HanabiGame(players=2)
g.reset(3)
print("deck", int(g.state.deck[0]), "hits", sum(E.reset_state.stats.cache_hits.values()))
"""


def run(env_extra: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in _CACHE_VARS}
    env.update(env_extra, PYTHONPATH=str(ROOT))
    return run_python(["-c", SCRIPT], tmp_path, timeout=600, env=env)


RENAMED = frozenset(f"hanabi_env._{m}" for m in SHARED_MODULES)
"""The shared modules' old private paths, forwards to the public ones until 0.4.0."""

_CACHE_VARS = ("HANABI_ADHOC_CACHE", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "NUMBA_DISABLE_JIT")


def _project_modules():
    """Every importable module of the project's packages (optional extras may be missing)."""
    for package in jit._package_dirs(ROOT):
        for path in sorted(package.rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            if name in RENAMED:  # a forward to its new path (it defines nothing)
                continue
            try:
                yield path, importlib.import_module(name)
            except ImportError:  # an optional extra (torch, ribs, ...) is not installed
                continue


def test_every_kernel_module_is_in_the_staleness_key():
    """A module defining kernels that is missing from the key could keep stale machine code."""
    listed = set(jit.kernel_sources())
    assert {"hanabi_env/jit.py", "hanabi_env/engine.py", "agents/rules/dispatch.py"} <= listed
    # modules whose constants kernels read without defining kernels carry the marker
    assert {"agents/rulebase.py", "agents/rules/table.py"} <= listed
    assert "agents/policy.py" not in listed  # a module that only calls kernels keeps the cache
    assert "hanabi_adhoc/cli/main.py" not in listed  # imports cache_root inside a function
    defining = set()
    for path, module in _project_modules():
        for obj in vars(module).values():
            if isinstance(obj, Dispatcher) and Path(obj.py_func.__code__.co_filename) == path:
                defining.add(path.relative_to(ROOT).as_posix())
        if re.search(r"^\s*@(njit|kernel|inline|alloc)\b", path.read_text(), flags=re.M):
            defining.add(path.relative_to(ROOT).as_posix())
    assert "agents/rules/tell.py" in defining
    assert defining <= listed, f"kernels outside the staleness key: {sorted(defining - listed)}"
    for rel in listed:
        assert (ROOT / rel).is_file(), rel


def test_kernel_sources_are_found_by_their_imports_and_markers(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    files = {
        "low/__init__.py": "",
        "low/kernels.py": "from hanabi_env.jit import njit\n",
        "low/alias.py": "from hanabi_env import engine as E, jit\n",
        "low/plain.py": "import numpy as np\n",
        "high/__init__.py": "",
        "high/deep/__init__.py": "",
        "high/deep/rules.py": "from hanabi_env.jit import inline, kernel\n",
        "high/consts.py": "# kernel-source: constants read by compiled kernels\nX = 1\n",
        "high/mentions.py": '"""Calls kernels; mentions hanabi_env.jit in prose only."""\n',
        # an import inside a function (the CLI asking for the cache folder) defines no kernel
        "high/lazy.py": "def where():\n    from hanabi_env.jit import cache_root\n",
        "notapackage/kernels.py": "from hanabi_env.jit import njit\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = jit.kernel_sources(tmp_path)
    assert found == ("high/consts.py", "high/deep/rules.py", "low/alias.py", "low/kernels.py")
    # any change to a source, a marked file included, gives another cache folder
    before = jit._source_hash(tmp_path)
    (tmp_path / "high/consts.py").write_text("# kernel-source: constants\nX = 2\n")
    assert jit._source_hash(tmp_path) != before
    before = jit._source_hash(tmp_path)
    (tmp_path / "low/plain.py").write_text("import numpy as np  # edited\n")
    assert jit._source_hash(tmp_path) == before
    # the test suite's package is not installed code: a test compiling helpers of its own
    # is not part of the key
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/__init__.py").write_text("")
    (tmp_path / "tests/test_k.py").write_text("from hanabi_env.jit import njit\n")
    assert jit.kernel_sources(tmp_path) == found


def test_nothing_in_hanabi_env_names_the_higher_packages():
    text = (ROOT / "hanabi_env" / "jit.py").read_text()
    for name in ("agents", "meta", "qd"):
        assert not re.search(rf"\b{name}[./]", text), name


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


def _installed_copy(dest: Path, mtime: float) -> Path:
    """The engine's package copied to ``dest`` as an install would: new path, new mtimes."""
    shutil.copytree(ROOT / "hanabi_env", dest / "hanabi_env", copy_function=shutil.copyfile,
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    for path in (dest / "hanabi_env").rglob("*.py"):
        os.utime(path, (mtime, mtime))
    return dest


def test_the_cache_survives_a_reinstall_of_the_same_sources(tmp_path):
    """Same sources at another path with other mtimes (a reinstall, a clone beside an install)
    load the kernels the first copy compiled; the cache is keyed on the sources."""
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in _CACHE_VARS}
    env["HANABI_ADHOC_CACHE"] = str(cache)
    outputs = []
    for name, mtime in (("site-a", 1.0e9), ("site-b", 1.5e9)):
        copy = _installed_copy(tmp_path / name, mtime)
        env["PYTHONPATH"] = str(copy)
        proc = run_python(["-c", SCRIPT], tmp_path, timeout=600, env=env)
        assert proc.returncode == 0, proc.stderr[-2000:]
        outputs.append(proc.stdout)
        if name == "site-a":
            files = sorted(p for p in cache.rglob("*") if p.is_file())
            assert files, "the first install compiled into the cache"
            assert int(proc.stdout.split("hits")[1]) == 0
    assert int(outputs[1].split("hits")[1]) >= 1, "the reinstall loaded the compiled kernel"
    assert sorted(p for p in cache.rglob("*") if p.is_file()) == files, "nothing recompiled"
    assert outputs[0].split("hits")[0] == outputs[1].split("hits")[0]
    # one folder per package, named by the package path, not by the install location
    folders = {p.name for p in next(cache.iterdir()).iterdir()}
    assert folders == {"hanabi_env"}


def test_the_cache_root_follows_the_documented_precedence(monkeypatch):
    for var in _CACHE_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", "/h")
    assert jit.cache_root().parent == Path("/h/.cache/hanabi-adhoc/numba")
    monkeypatch.setenv("XDG_CACHE_HOME", "/x")
    assert jit.cache_root().parent == Path("/x/hanabi-adhoc/numba")
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/n")
    assert jit.cache_root().parent == Path("/n/hanabi-adhoc")
    monkeypatch.setenv("HANABI_ADHOC_CACHE", "/a")
    assert jit.cache_root().parent == Path("/a")


@pytest.mark.parametrize("bad", [("sig",), (1, 2)])
def test_njit_refuses_positional_signatures(bad):
    with pytest.raises(TypeError, match="keywords"):
        jit.njit(*bad)
