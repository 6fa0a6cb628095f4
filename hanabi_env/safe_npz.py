"""Model files read with their sizes checked first: NPZ weights and the JSON beside them.

The networks the project ships (RL partners, docs/rl_partners.md §5; BAD agents, docs/bad.md
§3) are an NPZ of float arrays plus a JSON config. :func:`read_npz` reads such an NPZ without
trusting it: before anything is decompressed it opens the zip's directory (``zipfile``) and
checks every member's declared uncompressed size and every array's ``.npy`` header (name, dtype,
shape) against what the caller expects and against a byte cap; then it reads each array's
exact byte count (so a member that lies about its size cannot inflate past it; the zip's CRC is
checked on the way). Arrays of Python objects (pickle) are refused from their header. Every
damaged file (not a zip, truncated, a bad CRC, a header that is not ``.npy``, missing or extra
arrays, another dtype or shape, too large) is one :class:`ValueError` naming the file.

:func:`read_json` reads a JSON object of at most a cap of bytes, with the same one-line errors,
and :func:`arrays_sha256` is the digest a config records of its weights (dtype, shape and bytes
of each array, in order).

Source: the ``.npy`` format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html)
and the zip directory (https://docs.python.org/3/library/zipfile.html); the files' formats:
docs/rl_partners.md §5 and docs/bad.md §3.
"""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
import zlib
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "FLOAT_DTYPES",
    "MAX_JSON_BYTES",
    "MAX_NPZ_BYTES",
    "arrays_sha256",
    "read_json",
    "read_npz",
]

MAX_NPZ_BYTES = 64 * 2**20
"""Default cap on an NPZ's arrays, in bytes: the sum of the sizes its members declare
uncompressed (and of the file itself). 64 MiB; the shipped networks hold < 2 MiB each."""

MAX_JSON_BYTES = 2**20
"""Default cap on a model's JSON config, in bytes (1 MiB; the shipped ones are < 6 kB)."""

FLOAT_DTYPES = ("float16", "float32", "float64")
"""The dtypes :func:`read_npz` accepts by default."""

_READ_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    zlib.error,
    OSError,
    NotImplementedError,  # a compression method zipfile does not read
    RuntimeError,  # an encrypted member
    ValueError,  # numpy's .npy header parser
    SyntaxError,  # a .npy header that is not a Python literal
    UnicodeDecodeError,
)


class _Refused(ValueError):
    """A check of :func:`read_npz` failed (its message is final)."""


def _prefix(label: str | None) -> str:
    return f"{label}: " if label else ""


def arrays_sha256(arrays: Sequence[np.ndarray]) -> str:
    """SHA-256 (hex) of arrays in order: each one's dtype string, shape and C-order bytes.

    Args:
        arrays: The arrays, in the order the config lists them.

    Returns:
        64 lowercase hex digits.
    """
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def read_json(path: str | Path, label: str | None = None, max_bytes: int = MAX_JSON_BYTES) -> dict:
    """A JSON object from ``path``, of at most ``max_bytes`` bytes.

    Args:
        path: The file.
        label: What the errors start with (e.g. ``"rl:NAME"``); None: nothing.
        max_bytes: The largest file read.

    Returns:
        The object (a dict).

    Raises:
        ValueError: No such file, a larger file, not UTF-8 JSON, or not an object (one line
            naming the file).
    """
    path = Path(path)
    pre = _prefix(label)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise _Refused(f"{pre}{path} is {size} bytes; a model's JSON may be {max_bytes}")
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except _Refused:
        raise
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ValueError(f"{pre}{path} is not a readable JSON file ({reason})") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{pre}{path}: expected a JSON object, got {type(doc).__name__}")
    return doc


def read_npz(
    path: str | Path,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
    *,
    dtypes: Collection[str] | None = FLOAT_DTYPES,
    max_bytes: int = MAX_NPZ_BYTES,
    label: str | None = None,
) -> dict[str, np.ndarray]:
    """The arrays of an NPZ file, every size checked before it is decompressed.

    See the module docstring for the checks, in order.

    Args:
        path: The ``.npz`` (as ``numpy.savez`` or ``numpy.savez_compressed`` write it).
        shapes: Array name → the shape it must have; the file must hold exactly these arrays.
            None: any names and shapes (still under ``max_bytes``).
        dtypes: The dtype names allowed (default float16, float32, float64; None: any); object
            arrays are always refused.
        max_bytes: Cap on the arrays' total uncompressed bytes (and on the file's size).
        label: What the errors start with (e.g. ``"rl:NAME"``); None: nothing.

    Returns:
        Name → array, in the file's order (writable arrays of the stored dtype and shape).

    Raises:
        ValueError: Any damaged or unexpected file: one line naming ``path``.
    """
    path = Path(path)
    pre = _prefix(label)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise _Refused(f"{pre}{path} is {size} bytes; the limit is {max_bytes}")
        with zipfile.ZipFile(path) as z:
            infos = _members(z, path, shapes, max_bytes, pre)
            return {name: _read_array(z, info, name, path, shapes, dtypes, pre)
                    for name, info in infos.items()}  # fmt: skip
    except _Refused:
        raise
    except FileNotFoundError:
        raise ValueError(f"{pre}{path}: no such file") from None
    except _READ_ERRORS as err:
        reason = f"{type(err).__name__}: {err}".splitlines()[0]
        raise ValueError(f"{pre}{path} is not a readable NPZ file ({reason})") from None


def _members(
    z: zipfile.ZipFile,
    path: Path,
    shapes: Mapping[str, tuple[int, ...]] | None,
    max_bytes: int,
    pre: str,
) -> dict[str, zipfile.ZipInfo]:
    """The zip's members by array name, after the checks of names and declared sizes."""
    infos: dict[str, zipfile.ZipInfo] = {}
    for info in z.infolist():
        name = info.filename.removesuffix(".npy")
        if name == info.filename or name in infos:
            raise _Refused(f"{pre}{path} is not an NPZ of arrays (member {info.filename!r})")
        infos[name] = info
    if shapes is not None:
        missing = [n for n in shapes if n not in infos]
        if missing:
            raise _Refused(f"{pre}{path} lacks the arrays {missing}")
        extra = [n for n in infos if n not in shapes]
        if extra:
            raise _Refused(f"{pre}{path} holds arrays it should not: {extra}")
    declared = sum(info.file_size for info in infos.values())
    if declared > max_bytes:
        raise _Refused(
            f"{pre}{path} declares {declared} bytes of arrays uncompressed; the limit is "
            f"{max_bytes} (refused before decompressing)"
        )
    return infos


def _read_array(
    z: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    name: str,
    path: Path,
    shapes: Mapping[str, tuple[int, ...]] | None,
    dtypes: Collection[str] | None,
    pre: str,
) -> np.ndarray:
    """One member's array: its ``.npy`` header checked, then exactly its bytes read."""
    with z.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise _Refused(f"{pre}{path}: array {name!r} has .npy version {version}")
        if dtype.hasobject:
            raise _Refused(f"{pre}{path}: array {name!r} holds Python objects (needs pickle)")
        if dtypes is not None and dtype.name not in dtypes:
            raise _Refused(
                f"{pre}{path}: array {name!r} has dtype {dtype.name}; allowed: " + ", ".join(dtypes)
            )
        shape = tuple(int(n) for n in shape)
        if shapes is not None and shape != tuple(shapes[name]):
            raise _Refused(
                f"{pre}{path}: array {name!r} has shape {shape}; expected {tuple(shapes[name])}"
            )
        nbytes = math.prod(shape) * dtype.itemsize
        if f.tell() + nbytes != info.file_size:
            raise _Refused(
                f"{pre}{path}: array {name!r} declares {info.file_size} bytes, its header "
                f"{f.tell() + nbytes}"
            )
        data = f.read(nbytes)
        if len(data) != nbytes or f.read(1):
            raise _Refused(f"{pre}{path}: array {name!r} is truncated")
    flat = np.frombuffer(bytearray(data), dtype=dtype)
    return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
