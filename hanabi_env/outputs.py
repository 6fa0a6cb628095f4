"""Output files and folders: atomic writes, one writer per folder, results bound to their run.

Every file the project writes goes through this module (docs/reliability.md):

* **Atomic writes** (:func:`atomic_write_bytes`, :func:`atomic_write_text`,
  :func:`atomic_write_json`, :func:`atomic_write_csv`, :func:`atomic_path`): the content goes to
  a temporary file with a unique name made by ``tempfile.mkstemp`` in the target's folder
  (created with ``O_EXCL``, so a planted file or symlink is never followed), is flushed to disk,
  and then replaces the target with ``os.replace`` (a planted symlink at the target is replaced,
  not written through). A reader, a killed writer or a full disk never leaves half a file; a
  failed write raises :class:`OutputWriteError`, which names the file.
* **One writer per folder** (:class:`FolderLock`, :func:`file_lock`): an operating-system lock
  (the ``filelock`` library: ``flock`` on POSIX) held for the whole run. A second writer is
  refused at once with :class:`FolderBusyError` naming the holder (pid, host, start time and
  command), or waits with ``wait=True``. The kernel releases the lock of a process that dies,
  so a stale lock of a killed run is taken over safely (with a note naming it).
* **A manifest** (:class:`OutputFolder`, ``manifest.json``): the folder's kind, configuration
  and seed, and every file the run wrote with its sha256, stage, configuration and seed. A
  resume verifies each result it loads (:meth:`OutputFolder.verify`): a file edited after the
  run wrote it, a file of another run (swapped in), or a file the run never wrote is refused
  with :class:`ResultFileError`, one line naming the file and what to do.

Example:
    >>> from hanabi_env.outputs import OutputFolder
    >>> with OutputFolder("runs/x", kind="demo", config={"games": 5}, seed=0) as out:
    ...     _ = out.write_json("result.json", {"mean": 17.5}, stage="evaluate")
    ...     out.load_json("result.json")
    {'mean': 17.5}
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hanabi_env.files import (
    OutputWriteError,
    ResultFileError,
    _csv_text,
    _json_text,
    _reject_constant,
    atomic_path,
    atomic_write_bytes,
    atomic_write_csv,
    atomic_write_json,
    atomic_write_text,
    canonical_json,
    read_checksummed_json,
    sha256_file,
    write_checksummed_json,
    write_error,
)

__all__ = [
    "LOCK_NAME",
    "MANIFEST_NAME",
    "FolderBusyError",
    "FolderLock",
    "OutputFolder",
    "OutputWriteError",
    "ResultFileError",
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_csv",
    "atomic_write_json",
    "atomic_write_text",
    "canonical_json",
    "check_recorded",
    "file_lock",
    "read_checksummed_json",
    "settings_diff",
    "sha256_file",
    "write_checksummed_json",
    "write_error",
]

ResultFileError.__module__ = OutputWriteError.__module__ = __name__  # their public home

LOCK_NAME = ".hanabi-adhoc.lock"
"""The lock file of an output folder (its holder is described in ``LOCK_NAME + ".json"``)."""
MANIFEST_NAME = "manifest.json"
"""The manifest of an output folder (schema in :class:`OutputFolder`)."""
MANIFEST_FORMAT = "hanabi-adhoc/manifest"


class FolderBusyError(BlockingIOError):
    """Another writer holds the folder's (or file's) lock; the message names the holder.

    An ``OSError`` (``BlockingIOError``): the ``hanabi-adhoc`` command prints it as one
    ``error:`` line (exit code 2).
    """


# --------------------------------------------------------------------------------------------
# locks
# --------------------------------------------------------------------------------------------

_HELD: dict[str, tuple[Any, int]] = {}  # lock file -> (filelock object, depth) in this process


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _describe(holder: dict | None) -> str:
    if not holder:
        return "holder unknown"
    started = holder.get("started", "?")
    text = f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}, started {started}"
    command = str(holder.get("command") or "").strip()
    return f"{text}: {command[:120]}" if command else text


class FolderLock:
    """An exclusive lock on an output folder (or one output file) for the whole of a run.

    The lock is ``folder/name``, held with the ``filelock`` library (``flock`` on POSIX: the
    kernel releases it when the process dies, however it dies). Its holder is described in
    ``folder/name + ".json"`` (pid, host, start time, command), written when the lock is taken
    and removed when it is released, so that a refused writer can name it. Locks are
    re-entrant within a process (a nested :func:`file_lock` of the same file is a no-op).

    Args:
        folder: The folder (created if missing).
        name: The lock file's name in it (default :data:`LOCK_NAME`).
        wait: Wait until the lock is free (printing one note) instead of refusing at once.
        say: Where notes go (default: stderr).
        what: What is locked, for messages (default: the folder's path).

    Raises:
        FolderBusyError: On entering, when another process holds the lock and ``wait`` is
            False.
        OutputWriteError: The folder or its lock file cannot be created.
    """

    def __init__(
        self,
        folder: str | Path,
        name: str = LOCK_NAME,
        *,
        wait: bool = False,
        say: Callable[[str], None] | None = None,
        what: str | None = None,
    ):
        """See the class docstring."""
        self.folder = Path(folder)
        self.lock_path = self.folder / name
        self.holder_path = self.folder / (name + ".json")
        self.wait = bool(wait)
        self.say = say or _stderr
        self.what = what or str(self.folder)
        self._key = ""

    def holder(self) -> dict | None:
        """The recorded holder (``pid``, ``host``, ``started``, ``command``), or None."""
        try:
            doc = json.loads(self.holder_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def _busy(self) -> FolderBusyError:
        holder = None
        for _ in range(10):  # the new holder writes its description right after locking
            holder = self.holder()
            if holder is not None:
                break
            time.sleep(0.02)
        return FolderBusyError(
            f"{self.what} is in use by another writer ({_describe(holder)}); wait for it to "
            "finish, or wait behind it (--wait, wait=True), or use another folder"
        )

    def __enter__(self) -> FolderLock:
        """Take the lock (see the class docstring)."""
        import filelock

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._key = str(self.lock_path.resolve())
        except OSError as exc:
            raise write_error(self.lock_path, exc) from None
        if self._key in _HELD:  # re-entrant within this process
            lock, depth = _HELD[self._key]
            _HELD[self._key] = (lock, depth + 1)
            return self
        lock = filelock.FileLock(str(self.lock_path))
        try:
            try:
                lock.acquire(timeout=0)
            except filelock.Timeout:
                if not self.wait:
                    raise self._busy() from None
                self.say(f"note: waiting for {self.what} ({_describe(self.holder())})")
                lock.acquire(timeout=-1, poll_interval=0.2)
        except OSError as exc:
            if isinstance(exc, FolderBusyError):
                raise
            raise write_error(self.lock_path, exc) from None
        _HELD[self._key] = (lock, 1)
        stale = self.holder()
        if stale is not None and stale.get("pid") != os.getpid():
            self.say(
                f"note: took over {self.what} from a run that ended without releasing it "
                f"({_describe(stale)})"
            )
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
            "command": " ".join(sys.argv)[:300],
        }
        try:
            atomic_write_json(self.holder_path, me)
        except OSError:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        """Release the lock (the outermost exit of this process removes the holder file)."""
        if self._key not in _HELD:
            return
        lock, depth = _HELD[self._key]
        if depth > 1:
            _HELD[self._key] = (lock, depth - 1)
            return
        del _HELD[self._key]
        with contextlib.suppress(OSError):
            self.holder_path.unlink()
        lock.release()


def file_lock(
    path: str | Path, *, wait: bool = False, say: Callable[[str], None] | None = None
) -> FolderLock:
    """The lock of one output file ``path`` (a :class:`FolderLock` named ``.NAME.lock``).

    For commands that write a single file where others write too (``evaluate --json``, a
    response table's CSV): every writer of ``path`` takes it, so two of them never interleave.

    Raises:
        FolderBusyError: On entering, as :class:`FolderLock`.
    """
    path = Path(path)
    return FolderLock(path.parent, f".{path.name}.lock", wait=wait, say=say, what=str(path))


# --------------------------------------------------------------------------------------------
# the manifest
# --------------------------------------------------------------------------------------------


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _plain(value: object) -> object:
    """``value`` as it reads back from JSON (tuples -> lists, NaN -> None)."""
    return json.loads(_json_text(value, None))


def settings_diff(old: object, new: object) -> str:
    """The settings that differ, as ``"key: OLD there, NEW here"`` parts (at most four).

    The one wording of every "belongs to a different run" refusal (docs/reliability.md).

    Args:
        old: The recorded settings (a dict, or any value).
        new: The settings of this run, alike.

    Returns:
        ``"seed: 0 there, 1 here; games: 5 there, 6 here"`` for dicts; ``"OLD there, NEW
        here"`` otherwise.
    """
    if isinstance(old, dict) and isinstance(new, dict):
        keys = sorted(set(old) | set(new), key=str)
        parts = [
            f"{k}: {old.get(k)!r} there, {new.get(k)!r} here"
            for k in keys
            if old.get(k) != new.get(k)
        ]
        return "; ".join(parts[:4]) + ("; ..." if len(parts) > 4 else "")
    return f"{old!r} there, {new!r} here"


_UNSET: Any = object()


class OutputFolder:
    """The one writer of an output folder: its lock, its manifest and atomic writes.

    Entering takes the folder's lock (:class:`FolderLock`) and reads ``manifest.json``; every
    ``write_*`` then writes a file atomically and records it in the manifest with its sha256,
    its stage, and the configuration and seed that made it; :meth:`verify` and the ``load_*``
    methods check a file against its record before a resume trusts it. Leaving releases the
    lock. Names are paths relative to the folder (``"tables/run0.csv"``); files in subfolders
    are recorded like any other.

    A folder whose manifest holds another kind, configuration or seed belongs to another run:
    entering it is refused, or with ``fresh=True`` (commands that always start over) the old
    run's recorded files are removed and a new manifest begins. A folder that holds files but
    no ``manifest.json`` is refused (the toolkit cannot tell its own older outputs from files of
    the user's, which a write could replace), unless ``adopt=True`` (``--adopt``) says it is a run
    made before manifests existed: then each file is recorded as it is when first verified, with
    one note.

    A **strict** folder (``strict=True``, the benchmark's) trusts its manifest only and never
    overwrites a file it did not write: entering one that holds files but no manifest (its
    results cannot be checked) is refused instead of adopted, and so is entering one that holds
    a file its manifest does not record (a file of the user's, which a write could replace).
    Files whose names start with ``.`` are not looked at (the lock files, the temporary files
    of a killed write; the toolkit writes no other).

    Manifest schema (a self-checking document of :func:`write_checksummed_json`, format
    ``"hanabi-adhoc/manifest"``): payload ``{"kind", "config", "seed", "created", "adopted":
    bool, "files": {name: {"sha256": hex or null, "bytes", "stage", "config", "seed",
    "written", "previous": hex or null, "hashed": bool}}}``. A file entry's ``config``/``seed``
    are null when they are the folder's. ``"previous"`` is the file's earlier hash: the entry
    is written before the file replaces it, so a run killed in between leaves a file the
    manifest still accepts. An entry with ``"sha256": null`` is a file being produced
    (:meth:`expect`).

    Args:
        path: The folder (created if missing).
        kind: What writes it (``"pipeline"``, ``"map-elites"``, ...).
        config: The settings that define the run's results (JSON-ready; compared on entry).
        seed: The run's seed (compared on entry).
        wait: Wait for another writer to finish instead of refusing at once.
        fresh: Start over in a folder of another run (its recorded files removed) instead of
            refusing it.
        say: Where notes go (default: stderr).
        strict: Also refuse a folder whose manifest does not record every file in it (see
            above); a strict folder adopts nothing, whatever ``adopt`` says.
        adopt: Adopt a folder that holds files but no manifest (a run made by hanabi-adhoc
            before 0.2) instead of refusing it.

    Raises:
        FolderBusyError: (entering) Another process writes the folder, or this process has it
            open already.
        ResultFileError: (entering) The manifest is damaged, the folder belongs to another
            kind of run or (without ``fresh``) to a run with other settings, it holds files
            but no manifest (without ``adopt``), or (``strict``) it holds files the toolkit did
            not write.
        OutputWriteError: The folder, a file or the manifest cannot be written.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        kind: str,
        config: Mapping | None = None,
        seed: int | None = None,
        wait: bool = False,
        fresh: bool = False,
        say: Callable[[str], None] | None = None,
        strict: bool = False,
        adopt: bool = False,
    ):
        """See the class docstring."""
        if not isinstance(kind, str) or not kind:
            raise TypeError(f"kind must be a non-empty str, got {kind!r}")
        self.path = Path(path)
        self.kind = kind
        self.config: dict = dict(_plain(dict(config or {})))  # type: ignore[call-overload]
        self.seed = None if seed is None else int(seed)
        self.fresh = bool(fresh)
        self.strict = bool(strict)
        self.adopt = bool(adopt) and not self.strict
        self.say = say or _stderr
        self._lock = FolderLock(self.path, wait=wait, say=self.say)
        self._files: dict[str, dict] = {}
        self._adopted = False
        self._noted = False
        self._created = _now()
        self._open = False

    # ---- entering and leaving ----------------------------------------------------------------
    def __enter__(self) -> OutputFolder:
        """Take the lock and read the manifest (see the class docstring)."""
        key = str((self.path / LOCK_NAME).resolve()) if self.path.exists() else ""
        if key and key in _HELD:
            raise FolderBusyError(f"{self.path} is already open for writing in this process")
        self._lock.__enter__()
        try:
            self._read_manifest()
            if self.strict:
                self._refuse_foreign()
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        self._open = True
        return self

    def __exit__(self, *exc: object) -> None:
        """Release the lock."""
        self._open = False
        self._lock.__exit__(None, None, None)

    @property
    def manifest_path(self) -> Path:
        """``path / "manifest.json"``."""
        return self.path / MANIFEST_NAME

    def _read_manifest(self) -> None:
        path = self.manifest_path
        if not path.exists():
            found = sorted(  # files made before manifests existed, or the user's (locks aside)
                p.name
                for p in self.path.iterdir()
                if p.name not in _OWN
                and not p.name.startswith(".")
                and not p.name.endswith((".lock", ".lock.json"))
            )
            if found and not self.adopt and not self.strict:
                again = (
                    "move them away or use another folder"
                    if self.fresh
                    else "if they are a run made by hanabi-adhoc before 0.2, resume it with "
                    "--adopt (adopt=True); otherwise move them away or use another folder"
                )
                raise ResultFileError(
                    f"{self.path} holds files (e.g. {found[0]}) but no {MANIFEST_NAME}: the "
                    f"toolkit cannot check them, and they may be yours; {again}"
                )
            self._adopted = bool(found) and self.adopt
            return
        fix = "restore it, or delete the folder (or use another) to start over"
        doc = read_checksummed_json(path, MANIFEST_FORMAT, ResultFileError, fix, "manifest")
        try:
            kind, files = doc["kind"], doc["files"]
            if not isinstance(files, dict) or not all(isinstance(e, dict) for e in files.values()):
                raise TypeError("files is not a table of entries")
        except (KeyError, TypeError) as exc:
            raise ResultFileError(f"manifest {path} is not a manifest ({exc}); {fix}") from None
        if kind != self.kind:
            raise ResultFileError(
                f"{self.path} holds the outputs of a {kind} run, not {self.kind} (see {path}); "
                "use another folder"
            )
        same = doc.get("config") == self.config and doc.get("seed") == self.seed
        if not same and not self.fresh:
            old = {**(doc.get("config") or {}), "seed": doc.get("seed")}
            new = {**self.config, "seed": self.seed}
            raise ResultFileError(
                f"{self.path} holds a {kind} run with other settings "
                f"({settings_diff(old, new)}): it belongs to a different run; use another "
                "folder, or the same settings to resume it"
            )
        if not same:  # fresh: the old run's outputs go, a new manifest begins
            for name in files:
                with contextlib.suppress(OSError, ValueError):
                    self.file(name).unlink()
            with contextlib.suppress(OSError):
                path.unlink()
            return
        self._files = {str(k): dict(v) for k, v in files.items()}
        self._adopted = bool(doc.get("adopted"))
        self._created = str(doc.get("created") or self._created)

    def _refuse_foreign(self) -> None:
        """(strict) Refuse files the manifest does not record: the toolkit did not write them."""
        foreign = []
        for p in sorted(self.path.rglob("*")):
            rel = p.relative_to(self.path)
            if any(part.startswith(".") for part in rel.parts) or p.is_dir():
                continue
            if rel.as_posix() not in self._files and rel.as_posix() != MANIFEST_NAME:
                foreign.append(p)
        self._adopted = False  # a strict folder adopts nothing
        if not foreign:
            return
        if not self.manifest_path.exists():
            raise ResultFileError(
                f"{self.path} holds files (e.g. {foreign[0].name}) but no {MANIFEST_NAME}: "
                "the toolkit cannot check them, and they may be yours; move them away, or use "
                "another folder"
            )
        raise ResultFileError(
            f"{foreign[0]} is not in {self.manifest_path}: this toolkit did not write it and "
            "would overwrite it or mix it with its outputs; move it away, or use another folder"
        )

    def entry(self, name: str) -> dict | None:
        """A copy of the manifest's entry of ``name`` (see the class docstring), or None."""
        got = self._files.get(name)
        return None if got is None else dict(got)

    def _save(self) -> None:
        payload = {
            "kind": self.kind,
            "config": self.config,
            "seed": self.seed,
            "created": self._created,
            "adopted": self._adopted,
            "files": self._files,
        }
        write_checksummed_json(self.manifest_path, MANIFEST_FORMAT, payload)

    def _require_open(self) -> None:
        if not self._open:
            raise RuntimeError(f"OutputFolder({str(self.path)!r}) is used outside its with block")

    # ---- names -------------------------------------------------------------------------------
    def file(self, name: str) -> Path:
        """The path of ``name`` (a relative path inside the folder).

        Raises:
            ValueError: ``name`` is absolute, empty, leaves the folder or names its own files.
        """
        parts = Path(str(name)).parts
        if not parts or Path(str(name)).is_absolute() or ".." in parts or name in _OWN:
            raise ValueError(
                f"name={name!r} is not allowed; allowed: a relative path inside the folder"
            )
        return self.path / name

    def files(self) -> dict[str, dict]:
        """A copy of the manifest's entries, by name."""
        return {k: dict(v) for k, v in self._files.items()}

    def _entry(self, name, stage, config, seed, **extra) -> dict:
        return {
            "stage": str(stage),
            "config": None if config is None else _plain(config),
            "seed": None if seed is None else int(seed),
            "written": _now(),
            **extra,
        }

    # ---- writing -----------------------------------------------------------------------------
    def write_bytes(
        self,
        name: str,
        data: bytes,
        *,
        stage: str,
        config: Mapping | None = None,
        seed: int | None = None,
    ) -> Path:
        """Write ``data`` to ``name`` atomically and record it (sha256, stage, config, seed).

        ``config`` and ``seed`` are those of the stage that made the file (default: the
        folder's). The entry is saved before the file replaces the old one, keeping the old
        hash as ``previous``.

        Returns:
            The file's path.

        Raises:
            OutputWriteError: The file or the manifest could not be written.
        """
        with self.staged(name, stage=stage, config=config, seed=seed) as tmp:
            tmp.write_bytes(data)
        return self.file(name)

    def write_text(self, name: str, text: str, *, stage: str, **kw: Any) -> Path:
        """:meth:`write_bytes` of ``text`` in UTF-8 (same keywords).

        Raises:
            OutputWriteError: As :meth:`write_bytes`.
        """
        return self.write_bytes(name, text.encode("utf-8"), stage=stage, **kw)

    def write_json(self, name: str, obj: object, *, stage: str, indent: int | None = 1,
                   **kw: Any) -> Path:  # fmt: skip
        """:meth:`write_bytes` of ``obj`` as strict JSON (NaN and infinities as ``null``).

        Raises:
            OutputWriteError: As :meth:`write_bytes`.
        """
        return self.write_text(name, _json_text(obj, indent), stage=stage, **kw)

    def write_csv(self, name: str, fieldnames: Sequence[str], rows: Iterable[Mapping], *,
                  stage: str, **kw: Any) -> Path:  # fmt: skip
        """:meth:`write_bytes` of ``rows`` as CSV with a header (NaN as empty fields).

        Raises:
            OutputWriteError: As :meth:`write_bytes`.
        """
        return self.write_text(name, _csv_text(fieldnames, rows), stage=stage, **kw)

    @contextlib.contextmanager
    def staged(
        self,
        name: str,
        *,
        stage: str,
        config: Mapping | None = None,
        seed: int | None = None,
    ) -> Iterator[Path]:
        """A temporary path to write ``name`` through, for writers that take a file name.

        When the block ends without error the file is flushed, recorded (as
        :meth:`write_bytes`) and moved into place; if it raises, the temporary file is removed
        and nothing changes.

        Yields:
            The temporary file's path (beside the target, same extension).

        Raises:
            OutputWriteError: The file or the manifest could not be written.
            ResultFileError: ``name`` exists but the manifest does not record it (a file the
                toolkit did not write, e.g. the user's own: it is never overwritten), unless
                the folder was adopted from before manifests (its files are older outputs).
        """
        self._require_open()
        target = self.file(name)
        # a file the manifest does not record is not the toolkit's: never replaced (a folder
        # adopted from before manifests, whose files are its own older outputs, excepted)
        if name not in self._files and target.exists() and not self._adopted:
            raise ResultFileError(
                f"{target} is not in {self.manifest_path}: this toolkit did not write it and "
                "would overwrite it; move it away, or use another folder"
            )
        with atomic_path(target) as tmp:
            yield tmp
            try:
                digest, size = sha256_file(tmp)
            except OSError as exc:
                raise write_error(target, exc) from None
            previous = self._current_hash(name, target)
            self._files[name] = self._entry(
                name, stage, config, seed, sha256=digest, bytes=size, previous=previous,
                hashed=True,
            )  # fmt: skip
            self._save()  # (a failure names manifest.json, the file it could not write)

    def _current_hash(self, name: str, target: Path) -> str | None:
        """The hash of the file ``name`` has now (None if absent), from its record if kept."""
        if not target.is_file():
            return None
        old = self._files.get(name, {})
        if old.get("sha256") is not None:
            return str(old["sha256"])
        try:
            return sha256_file(target)[0]
        except OSError:
            return None

    def expect(
        self,
        name: str,
        *,
        stage: str,
        config: Mapping | None = None,
        seed: int | None = None,
        hashed: bool = True,
    ) -> None:
        """Record that ``name`` is being produced by other code (appended, or a nested run's).

        Until :meth:`record` hashes it, the entry has no hash and :meth:`verify` accepts the
        file as it is (its producer checks its content). ``hashed=False`` marks a file that
        checks itself and changes as the run goes (a checkpoint): never hashed.

        Raises:
            OutputWriteError: The manifest could not be written.
        """
        self._require_open()
        self.file(name)
        old = self._files.get(name)
        same = old is not None and old.get("stage") == stage and old.get("hashed") == hashed
        if same and (old.get("sha256") is None or self.file(name).is_file()):  # type: ignore[union-attr]
            return  # already expected, or produced and recorded: keep its record
        self._files[name] = self._entry(
            name, stage, config, seed, sha256=None, bytes=None, previous=None, hashed=hashed
        )
        self._save()

    def record(
        self,
        name: str,
        *,
        stage: str | None = None,
        config: Mapping | None = None,
        seed: int | None = None,
    ) -> None:
        """Hash ``name`` as it is now and record it (after other code produced it).

        ``stage``, ``config`` and ``seed`` default to those of its :meth:`expect` entry (or
        the folder's).

        Raises:
            FileNotFoundError: No such file.
            OutputWriteError: The manifest could not be written.
        """
        self._require_open()
        path = self.file(name)
        digest, size = sha256_file(path)
        old = self._files.get(name, {})
        if old.get("sha256") == digest and stage is None and config is None and seed is None:
            return
        self._files[name] = self._entry(
            name,
            stage if stage is not None else old.get("stage", "unknown"),
            config if config is not None else old.get("config"),
            seed if seed is not None else old.get("seed"),
            sha256=digest,
            bytes=size,
            previous=None,
            hashed=True,
        )
        self._save()

    def forget(self, name: str) -> None:
        """Drop ``name``'s entry (its file is being recomputed or was removed).

        Raises:
            OutputWriteError: The manifest could not be written.
        """
        self._require_open()
        if self._files.pop(name, None) is not None:
            self._save()

    # ---- checking and loading ----------------------------------------------------------------
    def verify(self, name: str, *, config: Any = _UNSET, seed: Any = _UNSET) -> bool:
        """Whether ``name`` exists, after checking that it is the file this run wrote.

        ``config`` and ``seed`` (when given) must equal those recorded for the file (the
        folder's when the entry has none). A file of a folder made before manifests is recorded
        now (with a note), a file being produced (:meth:`expect`) is accepted as it is.

        Returns:
            False when the file does not exist (its stage is to be computed), True otherwise.

        Raises:
            ResultFileError: The file was changed after this run wrote it, was never written by
                this run (copied or swapped in), or was made with other settings; the message
                names it and what to do.
        """
        self._require_open()
        path = self.file(name)
        if not path.is_file():
            if path.exists() or path.is_symlink():
                raise ResultFileError(f"{path} is not a regular file; delete it to recompute it")
            return False
        entry = self._files.get(name)
        fix = "delete it to recompute it, or use another folder"
        if entry is None:
            if not self._adopted:
                raise ResultFileError(
                    f"{path} is not recorded in {self.manifest_path}: this run did not write "
                    f"it (copied or swapped in from another run?); {fix}"
                )
            if not self._noted:
                self._noted = True
                self.say(
                    f"note: {self.path} has no manifest (made by an older version): its files "
                    "are recorded as they are now, unchecked"
                )
            self.record(
                name,
                stage="adopted",
                config=None if config is _UNSET else config,
                seed=None if seed is _UNSET else seed,
            )
            return True
        want = {"config": config, "seed": seed}
        for key, value in want.items():
            if value is _UNSET:
                continue
            recorded = entry.get(key)
            if recorded is None:
                recorded = self.config if key == "config" else self.seed
            if recorded != _plain(value):
                raise ResultFileError(
                    f"{path} was made with other settings "
                    f"({settings_diff(recorded, _plain(value))}); {fix}"
                )
        if entry.get("sha256") is None:
            return True  # being produced (or self-checking): its producer checks it
        try:
            digest, _ = sha256_file(path)
        except OSError as exc:
            raise ResultFileError(f"{path} cannot be read ({exc.strerror}); {fix}") from None
        if digest == entry["sha256"]:
            return True
        if digest == entry.get("previous"):  # killed between the record and the rename
            entry["sha256"], entry["previous"] = digest, None
            self._save()
            return True
        raise ResultFileError(
            f"{path} was changed after this run wrote it (its sha256 differs from the one in "
            f"{self.manifest_path}); {fix}, or restore the file"
        )

    def load_bytes(self, name: str, **kw: Any) -> bytes:
        """The bytes of ``name`` after :meth:`verify` (same keywords).

        Raises:
            ResultFileError: As :meth:`verify`, or the file is missing.
        """
        if not self.verify(name, **kw):
            raise ResultFileError(f"{self.file(name)} is missing; rerun the same command")
        return self.file(name).read_bytes()

    def load_text(self, name: str, **kw: Any) -> str:
        """The UTF-8 text of ``name`` after :meth:`verify`.

        Raises:
            ResultFileError: As :meth:`load_bytes`, or the file is not UTF-8 text.
        """
        data = self.load_bytes(name, **kw)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ResultFileError(
                f"{self.file(name)} is not UTF-8 text ({exc}); delete it to recompute it"
            ) from None

    def load_json(self, name: str, **kw: Any) -> Any:
        """The strict JSON document of ``name`` after :meth:`verify`.

        Raises:
            ResultFileError: As :meth:`load_text`, or the file is not valid strict JSON.
        """
        text = self.load_text(name, **kw)
        try:
            return json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise ResultFileError(
                f"{self.file(name)} is not valid JSON ({exc}); delete it to recompute it"
            ) from None


_OWN = {LOCK_NAME, LOCK_NAME + ".json", MANIFEST_NAME}


def check_recorded(path: str | Path) -> None:
    """Refuse a file that its folder's manifest records with another content (read-only).

    For readers of a finished run's files (a population SOURCE): when ``path``'s folder has a
    ``manifest.json`` that records ``path`` with a hash, the file must still have it. Nothing
    is written, no lock is taken; a folder without a manifest is not checked.

    Raises:
        ResultFileError: The file was changed after its run wrote it, or the manifest is
            damaged.
    """
    path = Path(path)
    manifest = path.parent / MANIFEST_NAME
    if not manifest.is_file():
        return
    fix = "restore it, or delete the folder's manifest.json to stop checking it"
    doc = read_checksummed_json(manifest, MANIFEST_FORMAT, ResultFileError, fix, "manifest")
    entry = (doc.get("files") or {}).get(path.name)
    if not isinstance(entry, dict) or not entry.get("sha256"):
        return
    digest, _ = sha256_file(path)
    if digest not in (entry["sha256"], entry.get("previous")):
        raise ResultFileError(
            f"{path} was changed after its run wrote it (its sha256 differs from the one in "
            f"{manifest}); restore it, or rerun the command that made it"
        )
