"""The vectorised Hanabi env as a Stable-Baselines3 ``VecEnv``: self-play at compiled speed.

:class:`HanabiSB3VecEnv` adapts :class:`hanabi_env.vector.HanabiVectorEnv` (``num_envs`` games
stepped in one kernel call) to SB3's ``VecEnv`` interface, so that ``MaskablePPO`` trains one
policy in every seat of ``num_envs`` games at once, with no Python loop per game or move:

* ``step`` returns SB3's ``(obs, rewards, dones, infos)``: the seat to move's observation and
  the score change of each game's move (the reward every seat receives), a list of per-game
  info dicts; a game that ended is dealt anew in the same step (its last observation is
  ``infos[i]["terminal_observation"]``, SB3's convention);
* ``env_method("action_masks")`` (what sb3-contrib's ``get_action_masks`` calls) returns the
  legal moves of each game's seat to move, so ``MaskablePPO`` masks its actions.

It imports ``stable_baselines3`` (the ``rl`` extra); ``torch`` is never imported here.

Source: SB3's ``VecEnv`` API (https://stable-baselines3.readthedocs.io/en/master/guide/vec_envs.html)
and sb3-contrib's ``MaskablePPO`` (https://sb3-contrib.readthedocs.io/en/master/modules/ppo_mask.html).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from hanabi_env.vector import HanabiVectorEnv

__all__ = ["GamesVecEnv", "HanabiSB3VecEnv"]

_INFO_KEYS = ("score", "seat", "illegal_action")


class GamesVecEnv(VecEnv):
    """What SB3's ``VecEnv`` asks of an env whose games share one object (no sub-envs).

    A subclass provides ``action_masks()`` (``(num_envs, n_actions)`` bool); this gives it
    ``env_method("action_masks")`` (what sb3-contrib's ``get_action_masks`` calls: one row per
    game), no wrapped games, no images, and refuses ``set_attr``.
    """

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool legal moves of each game's seat to move."""
        raise NotImplementedError

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Not supported: the games share one env object."""
        raise AttributeError(f"cannot set {attr_name!r} on the games of a {type(self).__name__}")

    def env_method(
        self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs
    ) -> list[Any]:
        """``"action_masks"`` per game; no other per-game method exists."""
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"{type(self).__name__} has no per-game method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No game is wrapped."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """No rendering."""
        return [None for _ in range(self.num_envs)]


class HanabiSB3VecEnv(GamesVecEnv):
    """``num_envs`` self-play games for SB3 (see the module docstring).

    Args:
        num_envs: Games stepped together, >= 1.
        **env_kwargs: :class:`~hanabi_env.vector.HanabiVectorEnv` arguments (``players``,
            ``scoring``, ``observation_type``, ``observation_dtype``, ``threads``, ...);
            ``autoreset_mode`` is always ``"same_step"`` (SB3's convention).

    Raises:
        TypeError, ValueError: A bad argument (named).
    """

    def __init__(self, num_envs: int, **env_kwargs: Any):
        """See the class docstring."""
        if "autoreset_mode" in env_kwargs:
            raise TypeError("autoreset_mode is always 'same_step' in HanabiSB3VecEnv")
        self.venv = HanabiVectorEnv(num_envs, autoreset_mode="same_step", **env_kwargs)
        self.render_mode = None
        super().__init__(
            self.venv.num_envs,
            self.venv.single_observation_space,
            self.venv.single_action_space,
        )
        self._actions = np.zeros(self.num_envs, dtype=np.int64)
        n_actions = int(self.venv.single_action_space.n)  # type: ignore[attr-defined]
        self._masks = np.zeros((self.num_envs, n_actions), dtype=np.bool_)

    def reset(self) -> np.ndarray:
        """Deal every game (with the seeds of ``seed()``, if any); the observations."""
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        obs, infos = self.venv.reset(seed=seeds)
        self._masks = infos["action_mask"].astype(bool)
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Store the actions (one move uid per game)."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Step every game: ``(obs, rewards, dones, infos)`` in SB3's convention."""
        obs, rewards, term, trunc, infos = self.venv.step(self._actions)
        self._masks = infos["action_mask"].astype(bool)
        dones = term | trunc
        out: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            final = infos["final_info"]
            out[i] = {
                "terminal_observation": infos["final_obs"][i],
                "TimeLimit.truncated": bool(trunc[i] and not term[i]),
                **{k: final[k][i].item() for k in _INFO_KEYS},
            }
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool legal moves of each game's seat to move."""
        return self._masks.copy()

    def close(self) -> None:
        """Release the vector env's threads."""
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``attr_name`` of each game (``action_masks``: a per-game mask getter)."""
        idx = self._get_indices(indices)
        if attr_name == "action_masks":
            return [self._mask_of(i) for i in idx]
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def _mask_of(self, i: int):
        return lambda: self._masks[i]
