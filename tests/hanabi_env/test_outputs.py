"""Output files and folders (:mod:`hanabi_env.outputs`): atomic writes, locks, the manifest.

The lock tests start real processes (a second writer must be refused while the first holds the
folder, named by its pid; a killed holder's lock is taken over). The manifest tests damage a
folder the ways the issue found results trusted: an edited file, a file swapped in from another
run, a file the run never wrote, another run's settings, a damaged manifest.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hanabi_env import files, outputs
from hanabi_env.outputs import (
    LOCK_NAME,
    FolderBusyError,
    FolderLock,
    OutputFolder,
    OutputWriteError,
    ResultFileError,
    atomic_path,
    atomic_write_bytes,
    atomic_write_csv,
    atomic_write_json,
    atomic_write_text,
    check_recorded,
    file_lock,
)

ROOT = Path(__file__).resolve().parents[2]

HOLDER = textwrap.dedent(
    """
    import sys, time
    from hanabi_env.outputs import FolderLock, file_lock
    lock = FolderLock(sys.argv[1]) if sys.argv[2] == "folder" else file_lock(sys.argv[1])
    with lock:
        print("locked", flush=True)
        time.sleep(float(sys.argv[3]))
    print("released", flush=True)
    """
)


def _holder(path: Path, kind: str = "folder", seconds: float = 60.0) -> subprocess.Popen:
    """A real process that takes the lock of ``path`` and keeps it ``seconds`` s."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), kind, str(seconds)],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


# --------------------------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------------------------


def test_atomic_writers_write_whole_files(tmp_path):
    atomic_write_text(tmp_path / "a" / "t.txt", "héllo\n")
    assert (tmp_path / "a" / "t.txt").read_text(encoding="utf-8") == "héllo\n"
    atomic_write_json(tmp_path / "j.json", {"x": float("nan"), "y": (1, 2)})
    assert json.loads((tmp_path / "j.json").read_text()) == {"x": None, "y": [1, 2]}
    atomic_write_csv(tmp_path / "c.csv", ["a", "b"], [{"a": 1, "b": float("nan")}])
    assert (tmp_path / "c.csv").read_bytes() == b"a,b\r\n1,\r\n"
    atomic_write_bytes(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b.bin", "c.csv", "j.json"]


def test_permissions_follow_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "t.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "t.txt").stat().st_mode & 0o777 == 0o640


def test_a_planted_symlink_is_replaced_never_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "result.json"
    target.symlink_to(victim)
    # the old fixed temporary names too: mkstemp never opens an existing name
    for name in (".result.json.tmp", ".result.tmp.json"):
        (tmp_path / "out" / name).symlink_to(victim)
    atomic_write_json(target, {"ok": True})
    assert victim.read_text() == "precious\n"
    assert not target.is_symlink()
    assert json.loads(target.read_text()) == {"ok": True}


def test_temporary_names_are_unique(tmp_path, monkeypatch):
    seen = []
    real = files.tempfile.mkstemp

    def spy(*a, **kw):
        fd, name = real(*a, **kw)
        seen.append(name)
        return fd, name

    monkeypatch.setattr(files.tempfile, "mkstemp", spy)
    for _ in range(3):
        atomic_write_text(tmp_path / "t.txt", "x")
    assert len(set(seen)) == 3
    assert all(Path(n).parent == tmp_path for n in seen)


@pytest.mark.parametrize("fail", ["fsync", "replace"])
def test_a_full_disk_names_the_file_and_keeps_the_old_content(tmp_path, monkeypatch, fail):
    target = tmp_path / "summary.json"
    target.write_text("old\n")

    def full(*a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, fail, full)
    with pytest.raises(OutputWriteError) as info:
        atomic_write_text(target, "new\n")
    msg = str(info.value)
    assert str(target) in msg, msg
    assert "No space left on device" in msg
    assert "resume with the same command" in msg
    assert info.value.errno == errno.ENOSPC
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]  # no temporary file left


def test_atomic_path_removes_its_file_when_the_writer_fails(tmp_path):
    made = []

    def writer():
        with atomic_path(tmp_path / "fig.png") as tmp:
            made.append(tmp)
            tmp.write_bytes(b"half")
            raise RuntimeError("the writer failed")

    with pytest.raises(RuntimeError):
        writer()
    assert made[0].suffix == ".png"
    assert made[0].parent == tmp_path
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------------
# locks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_a_second_writer_is_refused_naming_the_holder(tmp_path, kind):
    path = tmp_path / ("out" if kind == "folder" else "result.json")
    proc = _holder(path, kind)
    try:
        lock = FolderLock(path) if kind == "folder" else file_lock(path)
        t0 = time.monotonic()
        with pytest.raises(FolderBusyError) as info, lock:
            pass
        assert time.monotonic() - t0 < 5.0, "refused only after waiting"
        msg = str(info.value)
        for part in (f"pid {proc.pid}", str(path), "started 20", "--wait"):
            assert part in msg, msg
        assert isinstance(info.value, OSError)
    finally:
        proc.kill()
        proc.wait()


def test_wait_queues_behind_the_holder(tmp_path):
    proc = _holder(tmp_path, "folder", seconds=1.5)
    notes: list[str] = []
    try:
        t0 = time.monotonic()
        with FolderLock(tmp_path, wait=True, say=notes.append):
            waited = time.monotonic() - t0
            assert proc.poll() is not None or proc.wait(timeout=5) == 0
    finally:
        proc.kill()
        proc.wait()
    assert waited > 0.5, waited
    assert len(notes) == 1
    assert "waiting for" in notes[0]
    assert f"pid {proc.pid}" in notes[0]


def test_the_lock_of_a_killed_writer_is_taken_over(tmp_path):
    proc = _holder(tmp_path, "folder")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert (tmp_path / (LOCK_NAME + ".json")).exists()  # its description is left behind
    notes: list[str] = []
    with FolderLock(tmp_path, say=notes.append):
        holder = json.loads((tmp_path / (LOCK_NAME + ".json")).read_text())
        assert holder["pid"] == os.getpid()
    assert len(notes) == 1, notes
    assert "took over" in notes[0]
    assert f"pid {proc.pid}" in notes[0]
    assert not (tmp_path / (LOCK_NAME + ".json")).exists()  # released: description removed


def test_locks_are_reentrant_and_folders_are_not(tmp_path):
    with file_lock(tmp_path / "t.csv"), file_lock(tmp_path / "t.csv"):
        pass
    second = OutputFolder(tmp_path, kind="x")
    with OutputFolder(tmp_path, kind="x"), pytest.raises(FolderBusyError, match="in this process"):
        second.__enter__()
    with OutputFolder(tmp_path, kind="x"):  # released: open again
        pass


# --------------------------------------------------------------------------------------------
# the manifest
# --------------------------------------------------------------------------------------------

CFG = {"games": 5, "players": (2, 3)}


def _run(path: Path, **kw) -> OutputFolder:
    return OutputFolder(
        path, kind="demo", config=kw.pop("config", CFG), seed=kw.pop("seed", 0), **kw
    )


def _made(path: Path) -> None:
    with _run(path) as out:
        out.write_json("result.json", {"mean": 17.5}, stage="evaluate")
        out.write_csv("tables/rows.csv", ["a"], [{"a": 1}], stage="evaluate")
        with out.staged("fig.png", stage="figures") as tmp:
            tmp.write_bytes(b"\x89PNG")


def test_every_file_is_recorded_with_its_hash_config_and_seed(tmp_path):
    _made(tmp_path)
    doc = json.loads((tmp_path / "manifest.json").read_text())
    assert doc["format"] == "hanabi-adhoc/manifest"
    payload = doc["payload"]
    assert payload["kind"] == "demo"
    assert payload["seed"] == 0
    assert payload["config"] == {"games": 5, "players": [2, 3]}
    assert sorted(payload["files"]) == ["fig.png", "result.json", "tables/rows.csv"]
    entry = payload["files"]["result.json"]
    assert entry["sha256"] == outputs.sha256_file(tmp_path / "result.json")[0]
    assert entry["stage"] == "evaluate"
    with _run(tmp_path) as out:  # the same run resumes: every file verifies
        assert out.load_json("result.json") == {"mean": 17.5}
        assert out.verify("tables/rows.csv")
        assert out.verify("fig.png")
        assert not out.verify("missing.json")


def test_an_edited_file_is_refused_naming_it(tmp_path):
    _made(tmp_path)
    (tmp_path / "result.json").write_text('{"mean": 92.3}\n')
    with _run(tmp_path) as out, pytest.raises(ResultFileError) as info:
        out.load_json("result.json")
    msg = str(info.value)
    assert str(tmp_path / "result.json") in msg
    assert "changed after this run wrote it" in msg
    assert "delete it" in msg


def test_a_file_swapped_in_from_another_run_is_refused(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _made(a)
    with _run(b, seed=1) as out:
        out.write_json("result.json", {"mean": 11.0}, stage="evaluate")
    (a / "result.json").write_bytes((b / "result.json").read_bytes())
    with _run(a) as out, pytest.raises(ResultFileError, match="changed after this run"):
        out.verify("result.json")
    (a / "foreign.json").write_bytes((b / "result.json").read_bytes())
    with _run(a) as out, pytest.raises(ResultFileError, match="not recorded in"):
        out.verify("foreign.json")


def test_a_folder_of_another_run_is_refused_or_started_over(tmp_path):
    _made(tmp_path)
    with pytest.raises(ResultFileError, match=r"seed: 0 there, 1 here.*different run"):
        _run(tmp_path, seed=1).__enter__()
    with pytest.raises(ResultFileError, match=r"games: 5 there, 6 here"):
        _run(tmp_path, config={**CFG, "games": 6}).__enter__()
    with pytest.raises(ResultFileError, match="outputs of a demo run, not other"):
        OutputFolder(tmp_path, kind="other", config=CFG, seed=0).__enter__()
    (tmp_path / "notes.txt").write_text("the user's own file\n")
    with _run(tmp_path, seed=1, fresh=True) as out:  # commands that start over
        assert out.files() == {}
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "notes.txt",
        "tables",
    ]  # the old run's files are gone, the user's file is kept


def test_per_file_settings_are_checked(tmp_path):
    with _run(tmp_path) as out:
        out.write_json("run0.json", {}, stage="search", config={"seed": 3}, seed=3)
    with _run(tmp_path) as out:
        assert out.verify("run0.json", config={"seed": 3}, seed=3)
        with pytest.raises(ResultFileError, match="made with other settings"):
            out.verify("run0.json", seed=4)


def test_a_kill_between_the_record_and_the_rename_is_accepted(tmp_path, monkeypatch):
    _made(tmp_path)

    def killed(*a, **kw):
        raise KeyboardInterrupt  # as if the process died right after saving the manifest

    with _run(tmp_path) as out:
        monkeypatch.setattr(files.os, "replace", killed)
        with pytest.raises(KeyboardInterrupt):
            out.write_json("result.json", {"mean": 18.0}, stage="evaluate")
        monkeypatch.undo()
    with _run(tmp_path) as out:  # the old file is still the one the manifest accepts
        assert out.load_json("result.json") == {"mean": 17.5}


def test_files_being_produced_and_self_checking_files(tmp_path):
    with _run(tmp_path) as out:
        out.expect("table.csv", stage="tables")
        out.expect("checkpoint.json", stage="search", hashed=False)
        (tmp_path / "table.csv").write_text("partial\n")
        (tmp_path / "checkpoint.json").write_text("1\n")
    with _run(tmp_path) as out:
        assert out.verify("table.csv")
        assert out.verify("checkpoint.json")
        (tmp_path / "table.csv").write_text("complete\n")
        out.record("table.csv")
        (tmp_path / "checkpoint.json").write_text("2\n")  # rewritten as the run goes
    (tmp_path / "table.csv").write_text("edited\n")
    with _run(tmp_path) as out:
        assert out.verify("checkpoint.json")
        with pytest.raises(ResultFileError, match="changed after this run"):
            out.verify("table.csv")


def test_a_folder_with_files_but_no_manifest_is_refused_unless_adopted(tmp_path):
    (tmp_path / "result.json").write_text('{"mean": 17.5}\n')
    with pytest.raises(ResultFileError, match=r"result\.json\) but no manifest\.json.*--adopt"):
        _run(tmp_path).__enter__()
    with pytest.raises(ResultFileError, match="move them away") as err:
        OutputFolder(tmp_path, kind="demo", fresh=True).__enter__()
    assert "--adopt" not in str(err.value)  # a command that starts over adopts nothing
    assert (tmp_path / "result.json").read_text() == '{"mean": 17.5}\n'
    assert not (tmp_path / "manifest.json").exists()
    (tmp_path / ".tmp-killed-write").write_text("")  # dot-files are never the user's
    (tmp_path / "result.json").unlink()
    with _run(tmp_path) as out:
        out.write_json("result.json", {"mean": 1.0}, stage="evaluate")


def test_a_folder_made_before_manifests_is_adopted(tmp_path):
    (tmp_path / "result.json").write_text('{"mean": 17.5}\n')
    notes: list[str] = []
    with _run(tmp_path, say=notes.append, adopt=True) as out:
        assert out.load_json("result.json") == {"mean": 17.5}
    assert len(notes) == 1
    assert "no manifest" in notes[0]
    (tmp_path / "result.json").write_text('{"mean": 1.0}\n')
    with _run(tmp_path) as out, pytest.raises(ResultFileError, match="changed after"):
        out.verify("result.json")  # recorded at adoption: checked from then on


def test_a_strict_folder_adopts_nothing_and_overwrites_nothing_it_did_not_write(tmp_path):
    (tmp_path / "summary.md").write_text("my notes")  # no manifest: not adopted
    with pytest.raises(ResultFileError, match=r"summary\.md\) but no manifest\.json"):
        OutputFolder(tmp_path, kind="demo", strict=True).__enter__()
    assert (tmp_path / "summary.md").read_text() == "my notes"
    assert not (tmp_path / "manifest.json").exists()
    assert not (tmp_path / (LOCK_NAME + ".json")).exists()  # the lock was released

    run = tmp_path / "run"
    (run / ".hidden").mkdir(parents=True)
    (run / ".hidden" / "x").write_text("")  # dot-files: locks and temporary files, not looked at
    with OutputFolder(run, kind="demo", strict=True) as out:
        out.write_json("sub/result.json", {"mean": 1.0}, stage="evaluate")
    with OutputFolder(run, kind="demo", strict=True) as out:  # its own files: fine
        assert out.load_json("sub/result.json") == {"mean": 1.0}
        assert out.entry("sub/result.json")["stage"] == "evaluate"
        assert out.entry("nope") is None
    (run / "sub" / "mine.txt").write_text("mine")
    with pytest.raises(ResultFileError, match=r"mine\.txt is not in .*manifest\.json"):
        OutputFolder(run, kind="demo", strict=True).__enter__()
    with OutputFolder(run, kind="demo") as out:  # not strict: as before
        assert out.verify("sub/result.json")
    assert (run / "sub" / "mine.txt").read_text() == "mine"


@pytest.mark.parametrize("damage", ["truncated", "edited", "not-json", "wrong-format"])
def test_a_damaged_manifest_is_refused(tmp_path, damage):
    _made(tmp_path)
    m = tmp_path / "manifest.json"
    text = m.read_text()
    m.write_text(
        {
            "truncated": text[: len(text) // 2],
            "edited": text.replace('"evaluate"', '"edited"', 1),
            "not-json": "[]",
            "wrong-format": json.dumps({"format": "x", "payload": {}}),
        }[damage]
    )
    with pytest.raises(ResultFileError) as info:
        _run(tmp_path).__enter__()
    assert str(m) in str(info.value)
    with FolderLock(tmp_path):  # the refused entry released the lock
        pass


def test_bad_names_are_refused(tmp_path):
    with _run(tmp_path) as out:
        for name in ("", "/etc/passwd", "../x.json", "manifest.json", LOCK_NAME):
            with pytest.raises(ValueError, match="name="):
                out.file(name)
    with pytest.raises(RuntimeError, match="outside its with block"):
        out.write_text("x.txt", "x", stage="s")


def test_check_recorded_reads_a_finished_runs_manifest(tmp_path):
    _made(tmp_path)
    check_recorded(tmp_path / "result.json")
    check_recorded(tmp_path / "unrecorded.json")  # not recorded: not checked
    (tmp_path / "result.json").write_text("{}\n")
    with pytest.raises(ResultFileError, match="changed after its run wrote it"):
        check_recorded(tmp_path / "result.json")
    assert not (tmp_path / (LOCK_NAME + ".json")).exists()  # read-only: no lock taken


def test_no_folder_overwrites_a_file_it_did_not_write(tmp_path):
    # issue 41: `--out d` never replaces the user's own d/summary.md, strict folder or not
    with OutputFolder(tmp_path, kind="demo") as out:
        out.write_text("table.csv", "a\n1\n", stage="tables")
    (tmp_path / "summary.md").write_text("my notes")  # the user's, beside the run's files
    with OutputFolder(tmp_path, kind="demo") as out:
        with pytest.raises(ResultFileError, match=r"summary\.md is not in .*manifest\.json"):
            out.write_text("summary.md", "# report\n", stage="report")
        out.write_text("table.csv", "a\n2\n", stage="tables")  # its own file: rewritten
    assert (tmp_path / "summary.md").read_text() == "my notes"
    assert (tmp_path / "table.csv").read_text() == "a\n2\n"
