"""Borrowed (non-refcounted) arrays alias the original memory exactly."""

from __future__ import annotations

import numpy as np

from hanabi_env import _engine as E
from hanabi_env import _view as V
from hanabi_env._borrow import borrow, borrow_state, borrow_view
from hanabi_env._jit import njit


@njit
def _write_through_borrow(a):
    b = borrow(a)
    b[1, 2] = 7
    return b.sum(), b.shape[0], b.strides[0]


@njit
def _play_borrowed(s, v, seed):
    sb = borrow_state(s)
    vb = borrow_view(v)
    E.reset_state(sb, seed, False)
    V.fill_view(sb, 1, vb, False)
    return vb.scal[V.V_DECK]


def test_borrowed_array_aliases_data_shape_and_strides():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    total, rows, stride = _write_through_borrow(a)
    assert a[1, 2] == 7
    assert total == a.sum()
    assert rows == 3
    assert stride == a.strides[0]


def test_borrowed_state_and_view_write_to_the_originals():
    s = E.new_state(3)
    v = V.new_view(s)
    deck_left = _play_borrowed(s, v, 5)
    ref = E.new_state(3)
    E.reset_state(ref, 5, False)
    np.testing.assert_array_equal(s.deck, ref.deck)
    np.testing.assert_array_equal(s.hands, ref.hands)
    assert v.scal[V.V_SEAT] == 1
    assert deck_left == 50 - 15
    assert (v.cards[1] == -1).all()
