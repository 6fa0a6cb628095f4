"""Atomic file writes and self-checking JSON: the bottom of :mod:`hanabi_env.outputs`.

Import them from :mod:`hanabi_env.outputs` (which documents the guarantees, docs/reliability.md);
this module holds the functions that need no lock and no manifest (every public name here is
re-exported there, which lists them in its ``__all__``).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import hashlib
import io
import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from hanabi_env.jsonable import json_ready


class ResultFileError(ValueError):
    """A result file or folder that cannot be trusted: damaged, edited, swapped in or foreign.

    The message is one line naming the file and what to do. Checkpoints
    (``qd.io.CheckpointError``) and response tables (``meta.table.TableFileError``) raise
    subclasses; the ``hanabi-adhoc`` command prints it as one ``error:`` line (exit code 2).
    """


class OutputWriteError(OSError):
    """A file could not be written (full disk, no permission, ...); the message names it.

    ``errno`` is that of the underlying error (e.g. ``errno.ENOSPC``), ``filename`` the file.
    Nothing is left half written: the target keeps its previous content.
    """

    def __str__(self) -> str:
        """The message alone (no ``[Errno N]`` prefix): it names the file already."""
        return str(self.strerror)


# --------------------------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------------------------


def _umask() -> int:
    """The process umask, read without changing it where the OS allows."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # no read-only query elsewhere: set and restore at once
    os.umask(mask)
    return mask


def write_error(path: str | Path, exc: OSError) -> OutputWriteError:
    """The :class:`OutputWriteError` for a failed write of ``path`` (to raise).

    It names ``path`` (the target, never a temporary file) and the reason, and on a full disk
    says to free space and resume with the same command.
    """
    why = exc.strerror or str(exc)
    hint = ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "; free some space, then resume with the same command"
    err = OutputWriteError(exc.errno, f"cannot write {path}: {why}{hint}")
    err.filename = str(path)
    return err


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (ignored where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_in(path: Path) -> tuple[int, str]:
    """A new, uniquely named file beside ``path`` (``O_EXCL``), keeping its extension."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}", dir=path.parent
    )
    os.fchmod(fd, 0o666 & ~_umask())  # as a plain open(path, "w") would, not mkstemp's 0o600
    return fd, tmp


def _unlink_quietly(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write, which replaces ``path`` when the block ends without error.

    For writers that take a file name (``fig.savefig``, ``Archive.to_csv``): the temporary
    file is created first (``mkstemp`` in ``path``'s folder, same extension) and is removed if
    the block raises.

    Yields:
        The temporary file's path (an empty file, ours).

    Raises:
        OutputWriteError: The file could not be written or flushed (names ``path``).
    """
    path = Path(path)
    try:
        fd, tmp = _temp_in(path)
        os.close(fd)
    except OSError as exc:
        raise write_error(path, exc) from None
    try:
        yield Path(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OutputWriteError:
        _unlink_quietly(tmp)
        raise
    except OSError as exc:
        _unlink_quietly(tmp)
        raise write_error(path, exc) from None
    except BaseException:
        _unlink_quietly(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (unique temporary file + fsync + ``os.replace``).

    A reader (or a killed writer) never sees a half-written file. The file gets the permissions
    a plain ``open(path, "wb")`` would give (``0o666`` less the umask).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OutputWriteError: The file could not be written (full disk, permissions); it names
            ``path``, whose previous content is kept.
    """
    path = Path(path)
    tmp = ""
    try:
        fd, tmp = _temp_in(path)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp:
            _unlink_quietly(tmp)
        raise write_error(path, exc) from None
    except BaseException:
        if tmp:
            _unlink_quietly(tmp)
        raise
    _fsync_dir(path.parent)
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; see :func:`atomic_write_bytes`.

    Raises:
        OutputWriteError: As :func:`atomic_write_bytes`.
    """
    return atomic_write_bytes(path, text.encode("utf-8"))


def _json_text(obj: object, indent: int | None) -> str:
    return json.dumps(json_ready(obj, finite=True), indent=indent, allow_nan=False) + "\n"


def _csv_text(fieldnames: Sequence[str], rows: Iterable[Mapping]) -> str:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=list(fieldnames))
    w.writeheader()
    for row in rows:
        w.writerow({k: "" if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()})
    return buf.getvalue()


def atomic_write_json(path: str | Path, obj: object, indent: int | None = 1) -> Path:
    """Atomically write ``obj`` as strict JSON (NaN and infinities become ``null``).

    Raises:
        OutputWriteError: As :func:`atomic_write_bytes`.
    """
    return atomic_write_text(path, _json_text(obj, indent))


def atomic_write_csv(path: str | Path, fieldnames: Sequence[str], rows: Iterable[Mapping]) -> Path:
    """Atomically write ``rows`` as CSV with a header (NaN floats become empty fields).

    Raises:
        OutputWriteError: As :func:`atomic_write_bytes`.
    """
    return atomic_write_text(path, _csv_text(fieldnames, rows))


def sha256_file(path: str | Path) -> tuple[str, int]:
    """``(hex sha256, size in bytes)`` of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


# --------------------------------------------------------------------------------------------
# self-checking JSON (checkpoints, manifests)
# --------------------------------------------------------------------------------------------


def canonical_json(payload: object) -> str:
    """The canonical JSON text of ``payload`` (sorted keys, no spaces; NaN refused)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)


def write_checksummed_json(path: str | Path, fmt: str, payload: dict) -> None:
    """Write ``payload`` atomically as a self-checking JSON document.

    Schema: ``{"format": fmt, "version": 1, "sha256": <hex digest of the canonical JSON of
    payload>, "payload": payload}`` (strict JSON: NaN and infinities are refused).

    Raises:
        ValueError: ``payload`` holds NaN or an infinity.
        OutputWriteError: The file could not be written.
    """
    text = canonical_json(payload)
    doc = {
        "format": fmt,
        "version": 1,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "payload": payload,
    }
    atomic_write_text(path, json.dumps(doc, allow_nan=False) + "\n")


def _reject_constant(name: str):
    raise ValueError(f"non-standard number {name}")


def read_checksummed_json(
    path: str | Path,
    fmt: str,
    error: type[ResultFileError] = ResultFileError,
    fix: str = "delete it to start the run over",
    what: str = "checkpoint",
) -> dict:
    """Read and verify a document of :func:`write_checksummed_json`; returns its payload.

    The payload must hash to the recorded sha256, so a truncated, extended or edited file is
    refused.

    Args:
        path: The file.
        fmt: Its expected ``format``.
        error: The error class to raise (a :class:`ResultFileError`).
        fix: What to do, ending every message.
        what: The file's kind in messages (``"checkpoint"``).

    Raises:
        ResultFileError: (``error``) Missing, unreadable, not valid strict JSON, another
            ``format`` or version, or a checksum mismatch; one line naming the file and ``fix``.
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=_reject_constant)
    except FileNotFoundError as exc:
        raise error(f"no {what} at {path}") from exc
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise error(f"{what} {path} is corrupt (not valid JSON: {exc}); {fix}") from exc
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise error(f"{path} is not a {fmt} file; {fix}")
    if doc.get("version") != 1:
        raise error(f"{what} {path} has unsupported version {doc.get('version')}; {fix}")
    payload = doc.get("payload")
    if not isinstance(payload, dict):
        raise error(f"{what} {path} is corrupt (no payload); {fix}")
    if hashlib.sha256(canonical_json(payload).encode()).hexdigest() != doc.get("sha256"):
        raise error(f"{what} {path} is corrupt (checksum mismatch); {fix}")
    return payload
