"""What to install for the Stable-Baselines3 partners, in one sentence every hint reuses."""

from __future__ import annotations

__all__ = ["RL_EXTRA_HINT"]

RL_EXTRA_HINT = (
    "install a CPU build of torch first (PyPI's default Linux torch is the 3 GB CUDA build; "
    "docs/getting-started.md says how), then pip install '.[rl]'"
)
"""How to get the ``rl`` extra without pulling CUDA torch (every error and hint says this)."""
