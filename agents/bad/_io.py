"""The files BAD writes: one small function per format, all atomic (temporary file + rename).

Every file of :mod:`agents.bad` (weights, checkpoints, curves, configs, figures) is written
here, so that the project's shared writer can replace these in one place. Formats are NPZ
(``numpy.savez``; read back with ``allow_pickle=False``) and strict JSON; never pickle.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hanabi_env.jsonable import json_ready

__all__ = ["read_json", "read_npz", "write_bytes", "write_json", "write_npz"]


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json(path: str | Path, obj: object) -> None:
    """Write ``obj`` as strict JSON (NaN becomes ``null``), atomically."""
    text = json.dumps(json_ready(obj, finite=True), indent=1, allow_nan=False) + "\n"
    write_bytes(path, text.encode())


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


def read_npz(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of an NPZ file, read without pickle (``allow_pickle=False``)."""
    with np.load(Path(path), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def read_json(path: str | Path) -> dict:
    """A JSON document (a dict)."""
    doc = json.loads(Path(path).read_text())
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(doc).__name__}")
    return doc
