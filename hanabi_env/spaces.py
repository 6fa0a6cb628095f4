"""The Gymnasium spaces of the Hanabi envs, built in one place (docs/marl.md §2).

Every env of the project (the AEC env :func:`hanabi_env.env`, the vectorised env, the SB3
partner env :class:`agents.sb3.HanabiPartnerEnv`) builds its observation, state and action-mask
spaces here, so that one ``observation_dtype`` argument means the same thing everywhere:

==================  =====================================  ====================================
``observation_dtype``  observation space                    use
==================  =====================================  ====================================
``"float64"``       ``Box(-inf, inf, (n,), float64)``      default: exactly PettingZoo
                                                           ``hanabi_v5``'s space, so saved SB3
                                                           models load on either env
``"float32"``       ``Box(0, 1, (n,), float32)``           torch's default dtype (no cast)
``"int8"``          ``Box(0, 1, (n,), int8)``              compact (the engine's own dtype;
                                                           the env's default before v2)
==================  =====================================  ====================================

The values are the same 0/1 bits in every dtype (HLE's canonical encoding, docs/anchors.md
§2.2); only the array type and the declared bounds differ. The float64 space declares infinite
bounds because hanabi_v5 does (SB3 compares spaces exactly when a saved model is loaded).

The global state (:func:`state_space`) and the action mask (:func:`action_mask_space`) have no
hanabi_v5 counterpart to match, so they declare their true bounds, ``[0, 1]``: the state in the
observation dtype, the mask as int8 0/1 (PettingZoo's and hanabi_v5's convention).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from hanabi_env.validate import check_choice, check_int

__all__ = [
    "DEFAULT_OBSERVATION_DTYPE",
    "OBSERVATION_DTYPES",
    "action_mask_space",
    "check_observation_dtype",
    "numpy_dtype",
    "observation_space",
    "state_space",
]

OBSERVATION_DTYPES = ("float64", "float32", "int8")
"""The allowed values of ``observation_dtype``, the default first."""

DEFAULT_OBSERVATION_DTYPE = OBSERVATION_DTYPES[0]
"""``"float64"``: hanabi_v5's observation dtype."""


def check_observation_dtype(observation_dtype: object, name: str = "observation_dtype") -> str:
    """Check an ``observation_dtype`` argument.

    Args:
        observation_dtype: One of :data:`OBSERVATION_DTYPES` (a str; a numpy dtype or type is
            refused, so that the name is the one spelling).
        name: The parameter name used in error messages.

    Returns:
        The name, unchanged.

    Raises:
        TypeError: Not a str.
        ValueError: Not one of ``"float64"``, ``"float32"``, ``"int8"``.
    """
    return check_choice(name, observation_dtype, OBSERVATION_DTYPES)


def numpy_dtype(observation_dtype: str) -> np.dtype:
    """The numpy dtype of an ``observation_dtype`` name (checked).

    Raises:
        TypeError, ValueError: As :func:`check_observation_dtype`.
    """
    return np.dtype(check_observation_dtype(observation_dtype))


def observation_space(size: int, observation_dtype: str) -> spaces.Box:
    """The observation space of one seat.

    Args:
        size: Length of the observation vector (e.g. 658 for 2 players with card knowledge;
            :attr:`hanabi_env.HanabiGame.observation_size`), >= 1.
        observation_dtype: One of :data:`OBSERVATION_DTYPES`.

    Returns:
        ``Box(-inf, inf, (size,), float64)`` for ``"float64"`` (hanabi_v5's space, equal to it
        under ``==``), ``Box(0, 1, (size,), float32)`` or ``Box(0, 1, (size,), int8)``.

    Raises:
        TypeError, ValueError: A bad ``size`` or ``observation_dtype`` (named in the message).
    """
    size = check_int("size", size, 1)
    dtype = numpy_dtype(observation_dtype)
    if dtype == np.float64:
        return spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float64)
    return spaces.Box(0, 1, shape=(size,), dtype=dtype)


def state_space(size: int, observation_dtype: str) -> spaces.Box:
    """The space of the global state (``state()``; see docs/marl.md §4).

    Args:
        size: Length of the state vector, >= 1.
        observation_dtype: One of :data:`OBSERVATION_DTYPES` (the state has the observation's
            dtype).

    Returns:
        ``Box(0, 1, (size,), dtype)``: finite bounds in every dtype (PettingZoo's ``state_test``
        warns on infinite ones).

    Raises:
        TypeError, ValueError: A bad ``size`` or ``observation_dtype``.
    """
    size = check_int("size", size, 1)
    return spaces.Box(0, 1, shape=(size,), dtype=numpy_dtype(observation_dtype))


def action_mask_space(n_actions: int) -> spaces.Box:
    """The space of an action mask: ``Box(0, 1, (n_actions,), int8)``, 1 for a legal move.

    Raises:
        TypeError, ValueError: A bad ``n_actions`` (>= 1).
    """
    n_actions = check_int("n_actions", n_actions, 1)
    return spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8)
