"""Borrowed arrays: the same data without reference counting, for hot compiled loops.

Passing a namedtuple of arrays (a :class:`~hanabi_env._view.View` has 13) to a kernel that
numba does not inline costs two atomic reference-count operations per array per call; profiling
the rule evaluator showed a third of its time there. A *borrowed* array has the same data,
shape and strides but a NULL ``meminfo``, so numba's ``NRT_incref``/``NRT_decref`` return at
once. It must not outlive the array it borrows from: use borrowed views only inside the kernel
that owns (or received) the originals, and never return them to Python.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from hanabi_env._engine import State
from hanabi_env._jit import njit
from hanabi_env._view import View


@intrinsic
def borrow(typingctx, arr):
    """Same array without a meminfo (no reference counting); see the module docstring."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        out.meminfo = cgutils.get_null_value(src.meminfo.type)
        out.parent = cgutils.get_null_value(src.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()

    return arr(arr), codegen


@njit
def borrow_view(v):
    """A :class:`View` of borrowed arrays (writes go to ``v``'s memory)."""
    return View(
        borrow(v.cfg),
        borrow(v.scal),
        borrow(v.fireworks),
        borrow(v.discards),
        borrow(v.cards),
        borrow(v.uids),
        borrow(v.hand_len),
        borrow(v.col_plaus),
        borrow(v.rank_plaus),
        borrow(v.col_hint),
        borrow(v.rank_hint),
        borrow(v.hist),
        borrow(v.hist_uids),
    )


@njit
def borrow_state(s):
    """A :class:`State` of borrowed arrays (writes go to ``s``'s memory)."""
    return State(
        borrow(s.cfg),
        borrow(s.scal),
        borrow(s.deck),
        borrow(s.fireworks),
        borrow(s.discards),
        borrow(s.hands),
        borrow(s.hand_len),
        borrow(s.col_plaus),
        borrow(s.rank_plaus),
        borrow(s.col_hint),
        borrow(s.rank_hint),
        borrow(s.hist),
        borrow(s.hist_uids),
        borrow(s.counters),
        borrow(s.rng),
    )
