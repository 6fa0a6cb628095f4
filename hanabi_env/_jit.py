"""The one place that decides how kernels are compiled.

Every kernel of the package is decorated with :func:`njit` from here: numba's ``njit`` with
``cache=True`` (compiled code is cached next to the sources, so a second process starts fast).
``NUMBA_DISABLE_JIT=1`` turns every kernel into plain Python for debugging.
"""

from __future__ import annotations

import numba


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache=True`` by default; usable bare or with options."""
    kwargs.setdefault("cache", True)
    if args and callable(args[0]) and len(args) == 1 and not kwargs.get("_called"):
        return numba.njit(**kwargs)(args[0])
    return numba.njit(*args, **kwargs)
