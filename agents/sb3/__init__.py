"""Reinforcement-learning partners: Stable-Baselines3 policies in every pool and seat.

Three pieces, all optional (``pip install ".[rl]"`` installs Stable-Baselines3 and sb3-contrib;
``torch`` and ``stable_baselines3`` are imported only inside the functions that need them, so
this package and :class:`HanabiPartnerEnv` import without them):

* :class:`HanabiPartnerEnv` (:mod:`agents.sb3.env`) — a single-agent Gymnasium environment: one
  learning seat, every other seat a partner drawn from a pool (rule agents, MAP-Elites elites,
  SB3 models, any :class:`~agents.policy.Policy`) at each reset. ``action_masks()`` feeds
  sb3-contrib's ``MaskablePPO``. Train with :func:`train_maskable_ppo`. ``import agents``
  registers it as ``gymnasium.make("hanabi_adhoc/HanabiPartner-v0", partners=[...])``.
* :class:`SB3Policy` (:mod:`agents.sb3.policy`) — a saved ``MaskablePPO`` model (or ``PPO``,
  ``A2C``, ``DQN``, masked at acting time) as a
  :class:`~agents.policy.Policy`: acts from the player view with the legal mask, deterministic or
  sampled from its own generator. It pickles without the model (the path only) and loads it once
  per process, so it works in the AEC loop, :func:`agents.evaluate.play_games`/``evaluate``
  (worker processes), the GA's mixed fitness (:func:`qd.ga.population_fitness`),
  :func:`meta.table.build_table` and :func:`meta.evaluate.evaluate_meta`.
* :func:`train_self_play` — self-play / population training, one model in every seat: on the
  compiled vectorised env by default (:class:`~agents.sb3.vec_env.HanabiSB3VecEnv`), or through
  the AEC env (:func:`hanabi_env.env`) with :class:`SB3ActionMaskWrapper`
  (:mod:`agents.sb3.env`), following PettingZoo's SB3 action-masking tutorial
  (``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``).
* :func:`learn_maskable_ppo` — the training loop of both, on any env or ``VecEnv`` with
  ``action_masks()``: ``learn_kwargs`` (callbacks, progress bar), ``resume_from`` (continue a
  saved model, also one trained on PettingZoo's hanabi_v5), ``vec_env_cls`` (``"subproc"``) in
  the two helpers above.

Modules: :mod:`agents.sb3.env` (the environments, :func:`as_policy`, :func:`legal_mask`,
:func:`mask_fn`; the ``HanabiPartnerEnv`` property table), :mod:`agents.sb3.policy`
(:class:`SB3Policy`, :func:`load_model`), :mod:`agents.sb3.training`
(:func:`train_maskable_ppo`, :func:`train_self_play`, :func:`learn_maskable_ppo`) and
``agents.sb3._threads`` (torch's thread count, below). Every public name is imported from
``agents.sb3``.

## Torch threads

Training and acting run torch on **one thread per process** by default (``torch_threads=1`` in
:func:`train_maskable_ppo`, :func:`train_self_play` and :class:`SB3Policy`). The networks are
small MLPs: one thread trains them as fast as two, while torch's default (one thread per
core) collapses when other processes share the cores (on a busy 2-core machine: ~600 steps/s
on one thread, 46–85 steps/s on two). The count is set with ``torch.set_num_threads`` for the
duration of the call only: training sets it before building the model and restores the
previous value when ``learn`` returns (or raises); :class:`SB3Policy` does the same around
each load and forward pass (~1 µs). ``torch_threads=None`` leaves torch's setting alone
(torch's default, ``OMP_NUM_THREADS``, or the caller's own ``torch.set_num_threads``).

Sources: [CIG18]'s mixed evaluation (partners copied in every other seat; docs/papers.md §2), the
PettingZoo SB3 tutorial above, sb3-contrib's ``MaskablePPO`` documentation
(https://sb3-contrib.readthedocs.io/en/master/modules/ppo_mask.html).
"""

from agents.sb3.env import HanabiPartnerEnv, SB3ActionMaskWrapper, as_policy, legal_mask, mask_fn
from agents.sb3.policy import ALGORITHMS, SB3Policy, detect_algorithm, load_model
from agents.sb3.training import (
    VEC_ENV_CLASSES,
    learn_maskable_ppo,
    self_play_env,
    train_maskable_ppo,
    train_self_play,
)

__all__ = [
    "ALGORITHMS",
    "VEC_ENV_CLASSES",
    "HanabiPartnerEnv",
    "SB3ActionMaskWrapper",
    "SB3Policy",
    "as_policy",
    "detect_algorithm",
    "learn_maskable_ppo",
    "legal_mask",
    "load_model",
    "mask_fn",
    "self_play_env",
    "train_maskable_ppo",
    "train_self_play",
]
