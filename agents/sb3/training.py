"""Training ``MaskablePPO`` on the CPU: against a partner pool, in self-play, or on any env.

* :func:`train_maskable_ppo` — one learning seat in :class:`~agents.sb3.env.HanabiPartnerEnv`
  against a partner pool (``n_envs`` envs, ``DummyVecEnv`` or ``SubprocVecEnv``).
* :func:`train_self_play` — one model in every seat of the AEC env (:func:`hanabi_env.env`)
  through :class:`~agents.sb3.env.SB3ActionMaskWrapper` and sb3-contrib's ``ActionMasker``,
  PettingZoo's SB3 action-masking tutorial
  (``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``) with ``vec_env_cls``
  ``"dummy"``/``"subproc"``; by default (``"vector"``) on the compiled vectorised env
  (:class:`~agents.sb3.vec_env.HanabiSB3VecEnv`: the same games and spaces, one kernel call per
  step of all ``n_envs`` games).
* :func:`learn_maskable_ppo` — the loop both use, on any Gymnasium env or SB3 ``VecEnv`` whose
  envs have ``action_masks()`` (for example a compiled vectorised env).

All three take ``learn_kwargs`` (``model.learn`` arguments: ``callback``, ``progress_bar``,
``log_interval``, ``tb_log_name``, ``reset_num_timesteps``) and ``resume_from`` (a saved model
to continue: its weights, optimiser state and step count; ``total_timesteps`` are then *more*
steps, as ``learn(reset_num_timesteps=False)`` counts them).

**Steps trained.** ``MaskablePPO`` collects whole rollouts of ``n_steps`` per env, so with its
default ``n_steps=2048`` a run of 256 steps would train 2,048. Unless ``n_steps`` is given, it
is clamped to ``ceil(total_timesteps / n_envs)`` (at most 2,048, at least 2 with one env) and
``batch_size`` to the rollout size (at most 64), so a run trains ``total_timesteps`` steps,
rounded up to a multiple of ``n_envs``.

Both train on ``torch_threads`` threads (default 1; see "Torch threads" in :mod:`agents.sb3`).
``torch``, ``stable_baselines3`` and ``sb3_contrib`` are imported inside the functions only, so
this module imports without them.

Source: sb3-contrib's ``MaskablePPO`` documentation
(https://sb3-contrib.readthedocs.io/en/master/modules/ppo_mask.html); Stable-Baselines3's
``make_vec_env`` and ``BaseAlgorithm.learn`` documentation.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.policy import Policy
from agents.sb3._threads import _check_torch_threads, _torch_threads
from agents.sb3.env import HanabiPartnerEnv, SB3ActionMaskWrapper, mask_fn
from hanabi_env.outputs import atomic_path
from hanabi_env.validate import check_int, check_mapping

VEC_ENV_CLASSES = ("dummy", "subproc", "vector")
"""Names accepted by ``vec_env_cls``: SB3's ``DummyVecEnv`` and ``SubprocVecEnv``; and, for
self-play, ``"vector"``: the compiled :class:`~agents.sb3.vec_env.HanabiSB3VecEnv` (``n_envs``
games stepped in one kernel call)."""

_DEFAULT_N_STEPS = 2048  # MaskablePPO's default rollout length per env
_DEFAULT_BATCH_SIZE = 64  # MaskablePPO's default minibatch size


def _vec_env_class(vec_env_cls):
    """SB3's VecEnv class for ``vec_env_cls`` (a name of :data:`VEC_ENV_CLASSES` or a class)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

    if isinstance(vec_env_cls, str):
        if vec_env_cls not in VEC_ENV_CLASSES[:2]:
            raise ValueError(
                f"vec_env_cls={vec_env_cls!r} is not allowed; allowed: 'dummy', 'subproc' or "
                "a stable_baselines3 VecEnv class"
            )
        return DummyVecEnv if vec_env_cls == "dummy" else SubprocVecEnv
    if isinstance(vec_env_cls, type) and issubclass(vec_env_cls, VecEnv):
        return vec_env_cls
    raise TypeError(
        f"vec_env_cls must be 'dummy', 'subproc' or a stable_baselines3 VecEnv class, got "
        f"{type(vec_env_cls).__name__} {vec_env_cls!r}"
    )


def _make_vec(factory: Callable, n_envs: int, seed: int, vec_env_cls, vec_env_kwargs):
    """``n_envs`` copies of ``factory()`` in a VecEnv, each under SB3's ``Monitor``."""
    from stable_baselines3.common.env_util import make_vec_env

    return make_vec_env(
        factory,
        n_envs=n_envs,
        seed=seed,
        vec_env_cls=_vec_env_class(vec_env_cls),
        vec_env_kwargs=check_mapping("vec_env_kwargs", vec_env_kwargs),
    )


def _rollout_defaults(total_timesteps: int, n_envs: int, ppo_kwargs: dict) -> dict:
    """``n_steps``/``batch_size`` so that a short run trains ``total_timesteps`` (module doc)."""
    out = {}
    if "n_steps" not in ppo_kwargs:
        floor = 1 if n_envs > 1 else 2  # SB3 needs a rollout of more than one step
        out["n_steps"] = max(floor, min(_DEFAULT_N_STEPS, math.ceil(total_timesteps / n_envs)))
    if "batch_size" not in ppo_kwargs:
        rollout = ppo_kwargs.get("n_steps", out.get("n_steps", _DEFAULT_N_STEPS)) * n_envs
        out["batch_size"] = min(_DEFAULT_BATCH_SIZE, rollout)
    return out


def learn_maskable_ppo(
    env,
    total_timesteps: int,
    seed: int = 0,
    path: str | Path | None = None,
    verbose: int = 0,
    torch_threads: int | None = 1,
    resume_from: str | Path | None = None,
    learn_kwargs: dict | None = None,
    close_env: bool = True,
    **ppo_kwargs: Any,
):
    """Train (or continue) ``MaskablePPO`` with an ``MlpPolicy`` on ``env``, on the CPU.

    Args:
        env: A Gymnasium env with ``action_masks()`` or an SB3 ``VecEnv`` of such envs
            (:class:`HanabiPartnerEnv`, ``ActionMasker(SB3ActionMaskWrapper(...))``, a
            vectorised env).
        total_timesteps: Steps to train, >= 1 (more steps when resuming).
        seed: Seeds a new model (``MaskablePPO(seed=...)``).
        path: Where to save the model (``.zip`` added if missing; written atomically), or None.
        verbose: SB3 verbosity.
        torch_threads: Torch threads while building and training the model (see
            :mod:`agents.sb3`); None leaves torch's setting alone.
        resume_from: A saved ``MaskablePPO`` model to continue instead of a new one; it is
            loaded with ``env`` attached, so its observation and action spaces must equal the
            env's (a model saved on PettingZoo's hanabi_v5 continues here, and vice versa).
            Loading runs code stored in the file: pass only your own or trusted models.
        learn_kwargs: ``model.learn`` keyword arguments (``callback``, ``progress_bar``,
            ``log_interval``, ``tb_log_name``, ``reset_num_timesteps``; the last defaults to
            False when resuming, True otherwise).
        close_env: Close ``env`` when training ends (or fails).
        **ppo_kwargs: ``MaskablePPO`` arguments (``n_steps``, ``batch_size``,
            ``learning_rate``, ``ent_coef``, ``policy_kwargs``, ...); when resuming, those
            that can change on a saved model (SB3's ``load(**kwargs)``).

    Returns:
        The trained ``sb3_contrib.MaskablePPO`` model.

    Raises:
        ValueError, TypeError: A bad ``total_timesteps``, ``torch_threads`` or
            ``learn_kwargs``; a resumed model whose spaces differ from the env's.
        ImportError: sb3-contrib is not installed.
    """
    threads = _check_torch_threads(torch_threads)
    total = check_int("total_timesteps", total_timesteps, 1)
    learn = check_mapping("learn_kwargs", learn_kwargs)
    if "total_timesteps" in learn:
        raise ValueError("learn_kwargs must not hold 'total_timesteps'; pass total_timesteps")
    from sb3_contrib import MaskablePPO

    n_envs = int(getattr(env, "num_envs", 1))
    try:
        with _torch_threads(threads):
            if resume_from is None:
                kwargs = {**_rollout_defaults(total, n_envs, ppo_kwargs), **ppo_kwargs}
                model = MaskablePPO(
                    "MlpPolicy", env, seed=int(seed), device="cpu", verbose=verbose, **kwargs
                )
            else:
                model = _resume(MaskablePPO, resume_from, env, total, n_envs, ppo_kwargs)
                model.verbose = verbose
            learn.setdefault("reset_num_timesteps", resume_from is None)
            _quiet_logger(model)
            model.learn(total_timesteps=total, **learn)
            if path is not None:  # a unique temporary .zip, then the rename (atomic)
                target = Path(path)
                if target.suffix != ".zip":  # as SB3 names it
                    target = target.with_name(target.name + ".zip")
                with atomic_path(target) as tmp:
                    model.save(str(tmp))
    finally:
        if close_env:
            env.close()
    return model


def _quiet_logger(model) -> None:
    """Give ``model`` SB3's logger without a folder unless it logs to TensorBoard.

    SB3's default logger makes an empty ``$TMPDIR/SB3-<date>`` folder at every ``learn``; the
    training writes nothing there, so none is made (stdout still logs at ``verbose >= 1``).
    """
    if getattr(model, "tensorboard_log", None):
        return
    from stable_baselines3.common.logger import HumanOutputFormat, KVWriter, Logger

    formats: list[KVWriter] = [HumanOutputFormat(sys.stdout)] if model.verbose >= 1 else []
    model.set_logger(Logger(folder=None, output_formats=formats))


def _resume(algorithm, resume_from, env, total: int, n_envs: int, ppo_kwargs: dict):
    """Load a saved model with ``env`` attached; shorten its rollout for a short run."""
    p = Path(resume_from).expanduser()
    if not p.exists() and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise FileNotFoundError(f"resume_from: no SB3 model at {resume_from}")
    model = algorithm.load(str(p), env=env, device="cpu", **ppo_kwargs)
    if "n_steps" not in ppo_kwargs and model.n_steps * n_envs > total:
        kwargs = {**_rollout_defaults(total, n_envs, ppo_kwargs), **ppo_kwargs}
        kwargs["batch_size"] = min(kwargs.get("batch_size", model.batch_size), model.batch_size)
        model = algorithm.load(str(p), env=env, device="cpu", **kwargs)
    return model


def train_maskable_ppo(
    partners: Sequence[Policy | str | Sequence[int]],
    total_timesteps: int,
    seed: int = 0,
    n_envs: int = 1,
    path: str | Path | None = None,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    torch_threads: int | None = 1,
    vec_env_cls: str | type = "dummy",
    vec_env_kwargs: dict | None = None,
    resume_from: str | Path | None = None,
    learn_kwargs: dict | None = None,
    **ppo_kwargs: Any,
):
    """Train ``MaskablePPO`` on :class:`HanabiPartnerEnv` against a partner pool, on the CPU.

    Args:
        partners: The training pool (policies, baseline names, rule lists, SB3 policies).
        total_timesteps: Learner decisions to train on, >= 1 (module docstring, "Steps
            trained").
        seed: Seeds the model (``MaskablePPO(seed=...)``) and the environments
            (env ``i`` is reset with ``seed + i``).
        n_envs: Environments stepped in lock-step, >= 1.
        path: Where to save the model (``.zip`` added if missing; written atomically), or None.
        env_kwargs: Other :class:`HanabiPartnerEnv` arguments (``players``, ``scoring``,
            ``seat``, ``weights``, ``observation_dtype``, ...).
        verbose: SB3 verbosity.
        torch_threads: Torch threads while building and training the model (int >= 1;
            default 1, see :mod:`agents.sb3`), set with ``torch.set_num_threads`` and
            restored to the previous value when training ends (or fails); None leaves
            torch's setting alone.
        vec_env_cls: ``"dummy"`` (default: SB3's ``DummyVecEnv``, the envs in this process),
            ``"subproc"`` (``SubprocVecEnv``, one process per env) or a ``VecEnv`` class.
        vec_env_kwargs: Its keyword arguments (e.g. ``{"start_method": "fork"}``).
        resume_from: A saved model to continue (:func:`learn_maskable_ppo`).
        learn_kwargs: ``model.learn`` keyword arguments (:func:`learn_maskable_ppo`).
        **ppo_kwargs: ``MaskablePPO`` arguments (``n_steps``, ``batch_size``,
            ``learning_rate``, ``ent_coef``, ``policy_kwargs``, ...).

    Returns:
        The trained ``sb3_contrib.MaskablePPO`` model.

    Raises:
        ValueError: ``total_timesteps`` or ``n_envs`` < 1, ``torch_threads`` < 1, an unknown
            ``vec_env_cls`` name.
        TypeError: ``torch_threads`` is not an int or None; ``vec_env_cls`` of a wrong type.
        ImportError: sb3-contrib is not installed.
    """
    kwargs = {"partners": partners, **check_mapping("env_kwargs", env_kwargs)}
    run = _TrainSettings(
        total_timesteps=total_timesteps,
        seed=seed,
        n_envs=n_envs,
        path=path,
        verbose=verbose,
        torch_threads=torch_threads,
        vec_env_cls=vec_env_cls,
        vec_env_kwargs=vec_env_kwargs,
        resume_from=resume_from,
        learn_kwargs=learn_kwargs,
    )
    return _train_vec(_Factory(HanabiPartnerEnv, kwargs), run, ppo_kwargs)


@dataclasses.dataclass(frozen=True)
class _TrainSettings:
    """The settings of :func:`train_maskable_ppo` and :func:`train_self_play`, checked once.

    Its fields are their keywords (but ``partners``, ``env_kwargs`` and ``**ppo_kwargs``), with
    the same meaning; the inner functions take this object and trust it. ``vec_env_cls`` and
    ``vec_env_kwargs`` are checked where the envs are built (``"vector"`` is for self-play
    only).

    Raises:
        TypeError: ``torch_threads``, ``total_timesteps`` or ``n_envs`` of the wrong type.
        ValueError: ``torch_threads``, ``total_timesteps`` or ``n_envs`` < 1.
    """

    total_timesteps: int
    seed: int = 0
    n_envs: int = 1
    path: str | Path | None = None
    verbose: int = 0
    torch_threads: int | None = 1
    vec_env_cls: str | type = "dummy"
    vec_env_kwargs: dict | None = None
    resume_from: str | Path | None = None
    learn_kwargs: dict | None = None

    def __post_init__(self) -> None:
        _check_torch_threads(self.torch_threads)
        check_int("total_timesteps", self.total_timesteps, 1)
        object.__setattr__(self, "n_envs", check_int("n_envs", self.n_envs, 1))


def _train_vec(factory: _Factory, run: _TrainSettings, ppo_kwargs: dict):
    """``run.n_envs`` copies of ``factory()`` in a VecEnv, trained by ``learn_maskable_ppo``.

    With ``vec_env_cls="vector"`` (self-play only), the compiled
    :class:`~agents.sb3.vec_env.HanabiSB3VecEnv` of the factory's env arguments instead.
    """
    n_envs, seed = run.n_envs, run.seed
    if isinstance(run.vec_env_cls, str) and run.vec_env_cls == "vector":
        if factory.cls is not self_play_env:
            raise ValueError(
                "vec_env_cls='vector' is not allowed here; allowed: 'dummy', 'subproc' or a "
                "VecEnv class ('vector' is self-play: train_self_play)"
            )
        from agents.sb3.vec_env import HanabiSB3VecEnv

        more = check_mapping("vec_env_kwargs", run.vec_env_kwargs)
        vec = HanabiSB3VecEnv(n_envs, **factory.kwargs, **more)
    else:
        vec = _make_vec(factory, n_envs, seed, run.vec_env_cls, run.vec_env_kwargs)
    keys = ("path", "verbose", "torch_threads", "resume_from", "learn_kwargs")
    forwarded = {k: getattr(run, k) for k in keys}
    return learn_maskable_ppo(vec, run.total_timesteps, seed=seed, **forwarded, **ppo_kwargs)


class _Factory:
    """A picklable ``env_fn`` for SB3's vectorised envs: ``cls(**kwargs)``."""

    def __init__(self, cls, kwargs: dict):
        self.cls, self.kwargs = cls, kwargs

    def __call__(self):
        return self.cls(**self.kwargs)


def self_play_env(**env_kwargs):
    """The AEC env as one masked Gymnasium env: PettingZoo's SB3 action-masking pattern.

    :func:`hanabi_env.env` (``**env_kwargs``) → :class:`SB3ActionMaskWrapper` → sb3-contrib's
    ``ActionMasker(env, mask_fn)``. Needs sb3-contrib.
    """
    from sb3_contrib.common.wrappers import ActionMasker

    import hanabi_env

    return ActionMasker(SB3ActionMaskWrapper(hanabi_env.env(**env_kwargs)), mask_fn)


def train_self_play(
    total_timesteps: int,
    seed: int = 0,
    path: str | Path | None = None,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    torch_threads: int | None = 1,
    n_envs: int = 1,
    vec_env_cls: str | type = "vector",
    vec_env_kwargs: dict | None = None,
    resume_from: str | Path | None = None,
    learn_kwargs: dict | None = None,
    **ppo_kwargs: Any,
):
    """Self-play ``MaskablePPO``: one model in every seat of ``n_envs`` games.

    By default on the compiled vectorised env (:class:`~agents.sb3.vec_env.HanabiSB3VecEnv`:
    every game's seat to move, one kernel call per step of all games); with ``vec_env_cls``
    ``"dummy"``, ``"subproc"`` or a ``VecEnv`` class, through the AEC env with PettingZoo's SB3
    action-masking pattern (:func:`self_play_env`). Both give the same games on the same seeds
    (game ``i`` seeded with ``seed + i``) and the same spaces, so a model moves between them.
    Population training: load the result as :class:`SB3Policy` and add it to the pool of
    :func:`train_maskable_ppo`.

    Args:
        total_timesteps: Moves to train on (all seats), >= 1.
        seed: Seeds the model and the envs (env ``i`` with ``seed + i``).
        path: Where to save the model (``.zip`` added if missing; written atomically), or None.
        env_kwargs: :func:`hanabi_env.env` arguments (``players``, ``scoring``,
            ``observation_dtype``, ...).
        verbose: SB3 verbosity.
        torch_threads: Torch threads while building and training the model (int >= 1;
            default 1, see :mod:`agents.sb3`), set with ``torch.set_num_threads`` and
            restored to the previous value when training ends (or fails); None leaves
            torch's setting alone.
        n_envs: Environments stepped in lock-step, >= 1.
        vec_env_cls: ``"vector"`` (default): the compiled
            :class:`~agents.sb3.vec_env.HanabiSB3VecEnv` (``env_kwargs`` as
            :class:`hanabi_env.vector.HanabiVectorEnv`, the AEC env's arguments but
            ``render_mode``); or ``"dummy"``, ``"subproc"``, a ``VecEnv`` class
            (:func:`train_maskable_ppo`) over :func:`self_play_env`.
        vec_env_kwargs: Its keyword arguments (``"vector"``: more ``HanabiSB3VecEnv``
            arguments, e.g. ``{"threads": 2}``).
        resume_from: A saved model to continue (:func:`learn_maskable_ppo`).
        learn_kwargs: ``model.learn`` keyword arguments (:func:`learn_maskable_ppo`).
        **ppo_kwargs: ``MaskablePPO`` arguments.

    Returns:
        The trained ``sb3_contrib.MaskablePPO`` model.

    Raises:
        ValueError: ``total_timesteps`` or ``n_envs`` < 1, or ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
        ImportError: sb3-contrib is not installed.
    """
    factory = _Factory(self_play_env, check_mapping("env_kwargs", env_kwargs))
    run = _TrainSettings(
        total_timesteps=total_timesteps,
        seed=seed,
        n_envs=n_envs,
        path=path,
        verbose=verbose,
        torch_threads=torch_threads,
        vec_env_cls=vec_env_cls,
        vec_env_kwargs=vec_env_kwargs,
        resume_from=resume_from,
        learn_kwargs=learn_kwargs,
    )
    return _train_vec(factory, run, ppo_kwargs)
