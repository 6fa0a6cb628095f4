"""Helpers shared by the hanabi_env tests: an AEC episode loop, engine-state snapshots."""

from __future__ import annotations

from collections import Counter

import numpy as np

from hanabi_env import engine as E


def play_aec(e, policy, max_steps=10_000, on_step=None):
    """Run one episode through ``agent_iter``; return per-agent reward sums from ``last()``.

    ``policy(raw, action_mask) -> action``; ``on_step(obs, info)`` is called at every live step.
    Also checks at every live step that every agent got the same reward for the last move and
    that nothing is ever truncated.
    """
    raw = e.unwrapped
    returns = Counter()
    steps = 0
    for agent in e.agent_iter(max_iter=max_steps):
        obs, rew, term, trunc, info = e.last()
        returns[agent] += rew
        assert not trunc
        if term:
            e.step(None)
            continue
        if on_step is not None:
            on_step(obs, info)
        e.step(policy(raw, obs["action_mask"]))
        steps += 1
        if raw.agents:
            vals = {raw.rewards[a] for a in raw.agents}
            assert len(vals) == 1, f"per-step rewards differ: {raw.rewards}"
    assert not e.agents, "episode did not end"
    return returns, steps


def random_policy(rng: np.random.Generator):
    """A policy drawing uniformly among the legal actions."""
    return lambda raw, mask: int(rng.choice(np.flatnonzero(mask)))


def state_arrays(s) -> dict[str, np.ndarray]:
    """Every array of an engine state by name (``public`` is views of ``packed``).

    ``s.packed`` holds every public array (fireworks, hands, knowledge, history).
    """
    return {name: getattr(s, name) for name in E.State._fields if name != "public"}


def snapshot(game) -> list[np.ndarray]:
    """Copies of every array of a :class:`hanabi_env.game.HanabiGame`'s engine state."""
    return [np.array(a, copy=True) for a in state_arrays(game.state).values()]


def same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    """Whether two :func:`snapshot` results are byte-identical, array by array."""
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


SHARED_MODULES = ("engine", "view", "batch", "jit", "rng", "workers", "files")
"""``hanabi_env``'s shared modules that were private by name (``_engine`` ...) until 0.3.0."""
