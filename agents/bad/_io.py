"""The files BAD writes, all through the project's writer (:mod:`hanabi_env.outputs`).

Every file of :mod:`agents.bad` (weights, checkpoints, curves, configs, figures) is written
here: atomically (temporary file + rename, :func:`hanabi_env.outputs.atomic_write_bytes`), as
NPZ (``numpy.savez``; read back with ``allow_pickle=False``) or strict JSON; never pickle. A
run holds its folder's lock (:func:`run_lock`) for as long as it writes there, so a second
process writing the same folder is refused.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hanabi_env import safe_npz
from hanabi_env.outputs import FolderLock, atomic_write_bytes, atomic_write_json

__all__ = [
    "RUN_FILE_BYTES",
    "read_json",
    "read_npz",
    "run_lock",
    "write_bytes",
    "write_json",
    "write_npz",
]


def run_lock(folder: str | Path) -> FolderLock:
    """The lock of an output folder, to hold while a run writes there (one writer per folder).

    Raises:
        hanabi_env.outputs.FolderBusyError: (entering) Another process writes the folder.
    """
    return FolderLock(folder)


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    atomic_write_bytes(path, data)


def write_json(path: str | Path, obj: object) -> None:
    """Write ``obj`` as strict JSON (NaN becomes ``null``), atomically."""
    atomic_write_json(path, obj)


def write_npz(path: str | Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write numeric ``arrays`` as an uncompressed NPZ, atomically.

    Raises:
        TypeError: An array of Python objects (it would need pickle).
    """
    for name, a in arrays.items():
        if np.asarray(a).dtype == object:
            raise TypeError(f"array {name!r} holds Python objects; only numeric arrays are saved")
    buf = io.BytesIO()
    savez: Any = np.savez  # numpy's stubs take keyword arrays for its own keywords
    savez(buf, **{k: np.asarray(v) for k, v in arrays.items()})
    write_bytes(path, buf.getvalue())


RUN_FILE_BYTES = 2**30
"""Cap on a run's own NPZ and JSON files (checkpoints, curves, results) read back: 1 GiB."""


def read_npz(path: str | Path, label: str | None = None) -> dict[str, np.ndarray]:
    """The arrays of an NPZ file of a run, read without pickle, sizes checked first.

    :func:`hanabi_env.safe_npz.read_npz` with any numeric dtype and :data:`RUN_FILE_BYTES`.

    Raises:
        ValueError: A damaged file (one line naming it).
    """
    return safe_npz.read_npz(path, dtypes=None, max_bytes=RUN_FILE_BYTES, label=label)


def read_json(path: str | Path, label: str | None = None) -> dict:
    """A JSON document (a dict) of a run, at most :data:`RUN_FILE_BYTES`.

    Raises:
        ValueError: Not a readable JSON object (one line naming the file).
    """
    return safe_npz.read_json(path, label=label, max_bytes=RUN_FILE_BYTES)
