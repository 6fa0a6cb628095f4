"""The one place that decides how kernels are compiled.

Every kernel of the project is decorated with :func:`njit` from here: numba's ``njit`` with
``cache=True``. ``NUMBA_DISABLE_JIT=1`` turns every kernel into plain Python for debugging.

Cache safety: numba invalidates a cached kernel only when *its own* source file changes, so a
kernel that calls into a changed module would keep stale machine code (possibly with another
data layout). We therefore key the cache directory on a hash of all the project's kernel
sources (``hanabi_env``, ``agents``, ``qd``, ``meta``): any source change gives a fresh
directory. The base directory is ``$NUMBA_CACHE_DIR`` if set, else
``~/.cache/hanabi-adhoc/numba`` (or ``$HANABI_ADHOC_CACHE``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

_PACKAGES = ("hanabi_env", "agents", "qd", "meta")


def _source_hash() -> str:
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(numba.__version__.encode())
    for pkg in _PACKAGES:
        for path in sorted((root / pkg).glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _configure_cache() -> None:
    base = os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("HANABI_ADHOC_CACHE")
    base_path = Path(base) if base else Path.home() / ".cache" / "hanabi-adhoc" / "numba"
    numba.config.CACHE_DIR = str(base_path / _source_hash())


_configure_cache()


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache=True`` by default; usable bare or with options."""
    kwargs.setdefault("cache", True)
    if len(args) == 1 and callable(args[0]):
        return numba.njit(**kwargs)(args[0])
    return numba.njit(*args, **kwargs)
