"""Torch's intra-op thread count for the duration of a call.

The policy (one thread by default) is described under "Torch threads" in :mod:`agents.sb3`.
Used by :class:`agents.sb3.policy.SB3Policy` around each model load and forward pass, and by
:mod:`agents.sb3.training` around building and training a model. ``torch`` is imported only
when a thread count is actually set.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator


def _check_torch_threads(torch_threads: int | None) -> int | None:
    """Validate a ``torch_threads`` argument: None, or an int >= 1.

    Returns:
        ``torch_threads`` as an ``int``, or None.

    Raises:
        TypeError: Not an int (bools are rejected too) and not None.
        ValueError: Less than 1.
    """
    if torch_threads is None:
        return None
    if isinstance(torch_threads, bool) or not isinstance(torch_threads, numbers.Integral):
        raise TypeError(
            f"torch_threads must be an int >= 1 or None, got "
            f"{type(torch_threads).__name__} {torch_threads!r}"
        )
    if torch_threads < 1:
        raise ValueError(f"torch_threads={torch_threads} is out of range; allowed: >= 1 or None")
    return int(torch_threads)


@contextlib.contextmanager
def _torch_threads(torch_threads: int | None) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(torch_threads)``, then restore the old value.

    ``None`` leaves torch alone (and does not import it). Only the intra-op thread count is
    changed (``torch.set_num_interop_threads`` can be set once per process, so it is never
    touched). Nothing is set when the count already matches.

    Raises:
        TypeError, ValueError: A bad ``torch_threads`` (:func:`_check_torch_threads`).
    """
    n = _check_torch_threads(torch_threads)
    if n is None:
        yield
        return
    import torch

    previous = torch.get_num_threads()
    if previous == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
