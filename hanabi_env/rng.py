"""A small, portable, seedable random number generator for compiled kernels.

xoshiro128** (Blackman & Vigna, 2018) on 32-bit words held in an ``int64`` array of length 4.
Every operation is masked to 32 bits, and products are split so that no intermediate exceeds
2**48, so the kernels give bit-identical streams compiled with numba and interpreted under
``NUMBA_DISABLE_JIT=1`` (where the values are plain Python or NumPy integers).

Why not ``numpy.random`` inside numba: numba's ``np.random`` keeps one hidden global state per
thread, which cannot be carried in a game state, forked per seat, or checkpointed.
"""

from __future__ import annotations

import numpy as np

from hanabi_env.jit import njit

MASK32 = 0xFFFFFFFF
RNG_WORDS = 4


@njit
def _mul32(a, b):
    """Return ``(a * b) mod 2**32`` for 32-bit ``a``, ``b`` without 64-bit overflow."""
    lo = a * (b & 0xFFFF)
    hi = (a * (b >> 16)) & 0xFFFF
    return (lo + (hi << 16)) & MASK32


@njit
def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & MASK32


@njit
def _splitmix32(x):
    """One step of a 32-bit splitmix-style mixer (Murmur3 finaliser on ``x + golden``)."""
    z = (x + 0x9E3779B9) & MASK32
    z = _mul32(z ^ (z >> 16), 0x85EBCA6B)
    z = _mul32(z ^ (z >> 13), 0xC2B2AE35)
    return z ^ (z >> 16)


@njit
def rng_seed(rng, seed):
    """Seed ``rng`` (int64 array of length 4) from a non-negative integer ``seed`` (< 2**62)."""
    lo = seed & MASK32
    hi = (seed >> 32) & MASK32
    x = _splitmix32(lo ^ _splitmix32(hi))
    for i in range(RNG_WORDS):
        x = _splitmix32(x + i)
        rng[i] = x
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:
        rng[0] = 1


@njit
def rng_next(rng):
    """Advance ``rng`` and return the next 32-bit unsigned value as a non-negative int."""
    s0 = rng[0]
    s1 = rng[1]
    s2 = rng[2]
    s3 = rng[3]
    result = _mul32(_rotl(_mul32(s1, 5), 7), 9)
    t = (s1 << 9) & MASK32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 11)
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3
    return result


@njit
def rng_below(rng, n):
    """Return a uniform integer in ``[0, n)`` (``1 <= n < 2**32``), by rejection (unbiased)."""
    limit = (MASK32 + 1) - ((MASK32 + 1) % n)
    while True:
        x = rng_next(rng)
        if x < limit:
            return x % n


def new_rng(seed: int) -> np.ndarray:
    """Return a fresh seeded generator state, an ``int64`` array of shape ``(4,)``."""
    rng = np.zeros(RNG_WORDS, dtype=np.int64)
    rng_seed(rng, int(seed))
    return rng
