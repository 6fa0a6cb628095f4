"""Training ``MaskablePPO`` on the CPU: against a partner pool, or in self-play.

* :func:`train_maskable_ppo` — one learning seat in :class:`~agents.sb3.env.HanabiPartnerEnv`
  against a partner pool (``DummyVecEnv`` of ``n_envs`` envs).
* :func:`train_self_play` — one model in every seat of the AEC env (:func:`hanabi_env.env`)
  through :class:`~agents.sb3.env.SB3ActionMaskWrapper` and sb3-contrib's ``ActionMasker``,
  PettingZoo's SB3 action-masking tutorial
  (``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``).

Both train on ``torch_threads`` threads (default 1; see "Torch threads" in :mod:`agents.sb3`).
``torch``, ``stable_baselines3`` and ``sb3_contrib`` are imported inside the functions only, so
this module imports without them.

Source: sb3-contrib's ``MaskablePPO`` documentation
(https://sb3-contrib.readthedocs.io/en/master/modules/ppo_mask.html).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.policy import Policy
from agents.sb3._threads import _check_torch_threads, _torch_threads
from agents.sb3.env import HanabiPartnerEnv, SB3ActionMaskWrapper, mask_fn
from hanabi_env.outputs import atomic_path


def train_maskable_ppo(
    partners: Sequence[Policy | str | Sequence[int]],
    total_timesteps: int,
    seed: int = 0,
    n_envs: int = 1,
    path: str | Path | None = None,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    torch_threads: int | None = 1,
    **ppo_kwargs: Any,
):
    """Train ``MaskablePPO`` on :class:`HanabiPartnerEnv` against a partner pool, on the CPU.

    Args:
        partners: The training pool (policies, baseline names, rule lists, SB3 policies).
        total_timesteps: Learner decisions to train on, >= 1.
        seed: Seeds the model (``MaskablePPO(seed=...)``) and the environments
            (env ``i`` is reset with ``seed + i``).
        n_envs: Environments stepped in lock-step (``DummyVecEnv``), >= 1.
        path: Where to save the model (``.zip`` added if missing; written atomically), or None.
        env_kwargs: Other :class:`HanabiPartnerEnv` arguments (``players``, ``scoring``,
            ``seat``, ``weights``, ...).
        verbose: SB3 verbosity.
        torch_threads: Torch threads while building and training the model (int >= 1;
            default 1, see :mod:`agents.sb3`), set with ``torch.set_num_threads`` and
            restored to the previous value when training ends (or fails); None leaves
            torch's setting alone.
        **ppo_kwargs: ``MaskablePPO`` arguments (``n_steps``, ``batch_size``,
            ``learning_rate``, ``ent_coef``, ``policy_kwargs``, ...).

    Returns:
        The trained ``sb3_contrib.MaskablePPO`` model.

    Raises:
        ValueError: ``total_timesteps`` or ``n_envs`` < 1, or ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
        ImportError: sb3-contrib is not installed.
    """
    threads = _check_torch_threads(torch_threads)
    if int(total_timesteps) < 1:
        raise ValueError(f"total_timesteps={total_timesteps} is out of range; allowed: >= 1")
    if int(n_envs) < 1:
        raise ValueError(f"n_envs={n_envs} is out of range; allowed: >= 1")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    kwargs = dict(env_kwargs or {})
    vec = make_vec_env(
        HanabiPartnerEnv,
        n_envs=int(n_envs),
        seed=int(seed),
        env_kwargs={"partners": partners, **kwargs},
    )
    return _learn(MaskablePPO, vec, seed, total_timesteps, path, verbose, threads, ppo_kwargs)


def _learn(algorithm, env, seed, total_timesteps, path, verbose, torch_threads, ppo_kwargs):
    """Train an ``MlpPolicy`` on ``env`` (CPU, ``torch_threads`` threads); save; close ``env``."""
    try:
        with _torch_threads(torch_threads):
            model = algorithm(
                "MlpPolicy", env, seed=int(seed), device="cpu", verbose=verbose, **ppo_kwargs
            )
            model.learn(total_timesteps=int(total_timesteps))
            if path is not None:  # a unique temporary .zip, then the rename (atomic)
                target = Path(path)
                if target.suffix != ".zip":  # as SB3 names it
                    target = target.with_name(target.name + ".zip")
                with atomic_path(target) as tmp:
                    model.save(str(tmp))
    finally:
        env.close()
    return model


def train_self_play(
    total_timesteps: int,
    seed: int = 0,
    path: str | Path | None = None,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    torch_threads: int | None = 1,
    **ppo_kwargs: Any,
):
    """Self-play ``MaskablePPO`` through the AEC env (one model in every seat).

    PettingZoo's SB3 action-masking pattern: :func:`hanabi_env.env` →
    :class:`SB3ActionMaskWrapper` → sb3-contrib's ``ActionMasker(env, mask_fn)`` →
    ``MaskablePPO``. Population training: load the result as :class:`SB3Policy` and add it to
    the pool of :func:`train_maskable_ppo`.

    Args:
        total_timesteps: Moves to train on (all seats), >= 1.
        seed: Seeds the model and the env's first reset.
        path: Where to save the model (``.zip`` added if missing; written atomically), or None.
        env_kwargs: :func:`hanabi_env.env` arguments (``players``, ``scoring``, ...).
        verbose: SB3 verbosity.
        torch_threads: Torch threads while building and training the model (int >= 1;
            default 1, see :mod:`agents.sb3`), set with ``torch.set_num_threads`` and
            restored to the previous value when training ends (or fails); None leaves
            torch's setting alone.
        **ppo_kwargs: ``MaskablePPO`` arguments.

    Returns:
        The trained ``sb3_contrib.MaskablePPO`` model.

    Raises:
        ValueError: ``total_timesteps`` < 1, or ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
        ImportError: sb3-contrib is not installed.
    """
    threads = _check_torch_threads(torch_threads)
    if int(total_timesteps) < 1:
        raise ValueError(f"total_timesteps={total_timesteps} is out of range; allowed: >= 1")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    import hanabi_env

    env = SB3ActionMaskWrapper(hanabi_env.env(**(env_kwargs or {})))
    env.reset(seed=int(seed))
    masked = ActionMasker(env, mask_fn)
    return _learn(MaskablePPO, masked, seed, total_timesteps, path, verbose, threads, ppo_kwargs)
