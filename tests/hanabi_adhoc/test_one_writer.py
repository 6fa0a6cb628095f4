"""One writer per output: two real ``hanabi-adhoc`` processes on one folder (or file).

For every command that writes a folder or a result file, a first process is started on a long
job and, once it holds the output's lock, a second one is started on the same output: it must
be refused at once (well before the first ends) with exit code 2 and one ``error:`` line naming
the first process (its pid), and the first process's files must not change because of it.
Then ``--wait`` (the second waits and goes on) and the take-over of a killed writer's lock.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "hanabi_adhoc"]

# command -> (a long job writing OUT, the lock's holder file while it runs)
LONG = {
    "pipeline": (
        "pipeline --out out --runs 1 --candidates 1000000 --me-games 5 --workers 1 --quiet",
        "out/.hanabi-adhoc.lock.json",
    ),
    "map-elites": (
        "map-elites --candidates 1000000 --games 5 --workers 1 --quiet --out out",
        "out/.hanabi-adhoc.lock.json",
    ),
    "ga --out": (
        "ga --generations 100000 --population 10 --games 3 --workers 1 --quiet --out out",
        "out/.hanabi-adhoc.lock.json",
    ),
    "meta-table": (
        "meta-table --responses 5x5 --train-games 100000 --workers 1 --out out/table.csv",
        "out/.table.csv.lock.json",
    ),
    "meta-eval --out": (
        "meta-eval --responses 5x5 --train-games 100000 --workers 1 --out out",
        "out/.hanabi-adhoc.lock.json",
    ),
    "population --out": (
        "population 5x5 --reeval 1000000 --workers 1 --out out",
        "out/.hanabi-adhoc.lock.json",
    ),
    "matchups --out": (
        "matchups 20x20 --games 100000 --workers 1 --out out",
        "out/.hanabi-adhoc.lock.json",
    ),
    "evaluate --json": (
        "evaluate piers --games 1000000 --workers 1 --quiet --json out/result.json",
        "out/.result.json.lock.json",
    ),
    "evaluate --csv": (
        "evaluate piers --games 1000000 --workers 1 --quiet --csv out/result.csv",
        "out/.result.csv.lock.json",
    ),
}


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")


def start(line: str, cwd: Path) -> subprocess.Popen:
    """``hanabi-adhoc LINE`` in the background (its own session: signals reach its group)."""
    return subprocess.Popen(
        [*CLI, *line.split()], cwd=cwd, env=_env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def wait_for_lock(proc: subprocess.Popen, holder: Path, timeout: float = 120.0) -> None:
    """Until ``proc`` has taken the lock whose holder file is ``holder``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"ended (code {proc.returncode}): {proc.stderr.read()[-2000:]}")
        try:
            if json.loads(holder.read_text())["pid"] == proc.pid:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"no lock {holder} after {timeout} s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` but the locks' holder files: (mtime, size)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.endswith(".lock.json"):
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_mtime_ns, st.st_size)
    return out


@pytest.mark.parametrize("name", list(LONG))
def test_a_second_writer_is_refused_at_once_naming_the_first(name, tmp_path):
    line, holder = LONG[name]
    first = start(line, tmp_path)
    try:
        wait_for_lock(first, tmp_path / holder)
        time.sleep(0.3)
        before = {k: v for k, v in _files(tmp_path).items() if not k.startswith("out/")}
        t0 = time.monotonic()
        second = subprocess.run(
            [*CLI, *line.split()], cwd=tmp_path, env=_env(), capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        took = time.monotonic() - t0
        assert first.poll() is None, "the first writer ended before the second was refused"
        lines = second.stderr.strip().splitlines()
        assert second.returncode == 2, second.stderr[-2000:]
        assert len(lines) == 1, second.stderr[-2000:]
        assert lines[0].startswith("error:")
        assert "in use by another writer" in lines[0]
        assert f"pid {first.pid}" in lines[0], lines[0]
        assert "Traceback" not in second.stderr
        assert took < 60, f"refused only after {took:.0f} s"
        after = {k: v for k, v in _files(tmp_path).items() if not k.startswith("out/")}
        assert after == before
    finally:
        stop(first)


def test_map_elites_runs_with_two_seeds_into_one_folder_cannot_both_succeed(tmp_path):
    """The issue's lost run: seeds 0 and 1 into one --out; the second is refused."""
    base = "map-elites --candidates 1000000 --games 5 --workers 1 --quiet --out out --seed"
    first = start(f"{base} 0", tmp_path)
    try:
        wait_for_lock(first, tmp_path / "out" / ".hanabi-adhoc.lock.json")
        second = subprocess.run(
            [*CLI, *f"{base} 1".split()], cwd=tmp_path, env=_env(), capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip
        assert second.returncode == 2
        assert f"pid {first.pid}" in second.stderr
    finally:
        stop(first)
    # once the first is gone, the seed-1 run is still refused: the folder is seed 0's
    second = subprocess.run(
        [*CLI, *f"{base} 1".split(), "--resume"], cwd=tmp_path, env=_env(), capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert second.returncode == 2, second.stderr
    assert "seed: 0 there, 1 here" in second.stderr


SHORT = "map-elites --random 100 --games 3 --reeval-games 0 --workers 1 --quiet --out out"


def start_locked(line: str, cwd: Path) -> subprocess.Popen:
    """:func:`start` a ``map-elites`` run into ``cwd/out``, returned once it holds the folder."""
    proc = start(line, cwd)
    try:
        wait_for_lock(proc, cwd / "out" / ".hanabi-adhoc.lock.json")
    except AssertionError:
        stop(proc)
        raise
    return proc


def test_wait_queues_behind_the_first_writer(tmp_path):
    line = f"{SHORT} --candidates 300 --seed 4"
    first = start_locked(line, tmp_path)
    try:
        second = subprocess.run(
            [*CLI, *line.split(), "--resume", "--wait"], cwd=tmp_path, env=_env(),
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert first.wait(timeout=300) == 0, first.stderr.read()
    finally:
        stop(first)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "note: waiting for out" in second.stderr
    assert f"pid {first.pid}" in second.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["candidates"] == 300


def test_a_killed_writers_lock_is_taken_over(tmp_path):
    line = f"{SHORT} --candidates 1200 --checkpoint-every 100"
    first = start_locked(line, tmp_path)
    try:
        while not (tmp_path / "out" / "checkpoint.json").exists():
            assert first.poll() is None, first.stderr.read()
            time.sleep(0.02)
    finally:
        stop(first)  # SIGKILL: no chance to release anything
    assert first.returncode == -signal.SIGKILL, "the run ended before it was killed"
    resumed = subprocess.run(
        [*CLI, *line.split(), "--resume"], cwd=tmp_path, env=_env(), capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "took over out" in resumed.stderr, resumed.stderr
    assert f"pid {first.pid}" in resumed.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["candidates"] == 1200
