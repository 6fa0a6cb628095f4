"""Hanabi as a PettingZoo AEC environment on a compiled (numba) engine.

A drop-in for PettingZoo's ``classic/hanabi-v5``: ``hanabi_env.env(**kwargs)`` and
``hanabi_env.raw_env(**kwargs)``. The engine is usable without the AEC layer through
:class:`HanabiGame`; every seat decides from a read-only :class:`PlayerView`. See
:mod:`hanabi_env.env` for the property table, observation layout and action table
(``python3 -c "import hanabi_env.env as m; print(m.__doc__)"``).

Importing the package registers :func:`env` in PettingZoo's AEC registry as
``"hanabi_adhoc/hanabi_env-v2"`` (:data:`ENV_ID`), the registry's conventional mechanism, so
``pettingzoo.make("aec", "hanabi_adhoc/hanabi_env-v2")`` works after ``import hanabi_env``.

The behaviour metrics (communicativeness, IPP, risk aversion) and the counter layout they are
computed from live in :mod:`hanabi_env.metrics`, the one place every package takes them from.
"""

from hanabi_env import metrics
from hanabi_env.config import HLE_PRESETS, HanabiConfig, hle_preset, rulebook_hand_size
from hanabi_env.env import ENV_ID, env, raw_env, register_envs
from hanabi_env.game import HanabiGame, Move, PlayerView
from hanabi_env.metrics import info_metrics, metric_ratios

__version__ = "0.2.0"

register_envs()

__all__ = [
    "ENV_ID",
    "HLE_PRESETS",
    "HanabiConfig",
    "HanabiGame",
    "Move",
    "PlayerView",
    "env",
    "hle_preset",
    "info_metrics",
    "metric_ratios",
    "metrics",
    "raw_env",
    "register_envs",
    "rulebook_hand_size",
]
