"""The one place the benchmark writes and reads its report folder's files.

Every file goes through :func:`write_output` (atomic: a temporary file in the same folder, then
a rename, so a killed run never leaves half a file), so that the folder lock and manifest of the
project's output helper can replace it in one place.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from hanabi_env.jsonable import json_ready

__all__ = ["read_csv", "write_csv", "write_json", "write_output"]


def write_output(path: str | Path, content: str | bytes) -> Path:
    """Write ``content`` (text or bytes) to ``path`` atomically; folders are created.

    Returns:
        The path.
    """
    from qd.io import atomic_write_text

    path = Path(path)
    if isinstance(content, str):
        atomic_write_text(path, content)
        return path
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_json(path: str | Path, doc) -> Path:
    """Strict JSON (NaN as null), indented."""
    return write_output(path, json.dumps(json_ready(doc), indent=1, allow_nan=False) + "\n")


def write_csv(path: str | Path, fields: Sequence[str], rows: Iterable[dict]) -> Path:
    """A CSV file of ``rows`` (NaN as an empty cell; floats with up to 6 significant digits)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _cell(r.get(k)) for k in fields})
    return write_output(path, buf.getvalue())


def _cell(x):
    if isinstance(x, float):
        return "" if x != x else f"{x:.6g}"
    return x


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """Rows of a CSV file (empty if it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))
