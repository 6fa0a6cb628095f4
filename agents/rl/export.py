"""Export a trained Stable-Baselines3 policy as a partner: NPZ weights plus a JSON config.

:func:`export_partner` takes a ``MaskablePPO`` (or ``PPO``) model with an ``MlpPolicy`` and
writes the actor network (the layers that turn an observation into move logits; the value
network is not needed to play) as ``NAME.npz`` and its config as ``NAME.json``, which
:func:`agents.rl.load_partner` (``agents.make("rl:PATH.json")``) loads without torch and
without running code from the files. :func:`move_agreement` checks that the exported network
chooses the model's moves (the masked argmax) on a set of observations: float16 storage halves
the files, and the check tells whether it changes a move.

``torch`` is imported only inside these functions (the ``rl`` extra).

Source: Stable-Baselines3's ``ActorCriticPolicy`` (features extractor, ``mlp_extractor
.policy_net``, ``action_net``; https://stable-baselines3.readthedocs.io/en/master/guide/custom_policy.html).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.rl.partners import FORMAT, RLPartner, game_entry, weights_digest
from hanabi_env.outputs import atomic_write_bytes
from hanabi_env.validate import check_choice, check_str

__all__ = ["WEIGHT_DTYPES", "export_network", "export_partner", "move_agreement", "sb3_actor"]

WEIGHT_DTYPES = ("float16", "float32")
"""How the weights may be stored."""

_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}


def sb3_actor(model: Any) -> tuple[list[np.ndarray], str]:
    """The actor of an SB3 ``MlpPolicy``: ``([w0, b0, w1, b1, ...], activation)`` in float32.

    Args:
        model: An SB3 model (``MaskablePPO``, ``PPO``, ...) whose policy has a flatten
            features extractor, an MLP ``mlp_extractor.policy_net`` and a linear
            ``action_net`` (SB3's ``MlpPolicy`` for a ``Box`` observation).

    Returns:
        The weights (``w_i`` ``(out, in)``, ``b_i`` ``(out,)``) and the hidden activation
        (``"tanh"`` or ``"relu"``).

    Raises:
        ValueError: A policy of another shape (a custom extractor, another activation).
    """
    import torch

    policy = model.policy
    if type(policy.features_extractor).__name__ != "FlattenExtractor":
        raise ValueError(
            f"only MlpPolicy's FlattenExtractor is exported, not "
            f"{type(policy.features_extractor).__name__}"
        )
    arrays: list[np.ndarray] = []
    acts = set()
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, torch.nn.Linear):
            arrays += [module.weight.detach().cpu().numpy(), module.bias.detach().cpu().numpy()]
        elif type(module).__name__ in _ACTIVATIONS:
            acts.add(_ACTIVATIONS[type(module).__name__])
        else:
            raise ValueError(f"the policy network has a {type(module).__name__} layer")
    if len(acts) > 1 or (arrays and not acts):
        raise ValueError(f"the policy network mixes activations {sorted(acts)}")
    head = policy.action_net
    arrays += [head.weight.detach().cpu().numpy(), head.bias.detach().cpu().numpy()]
    return [np.asarray(a, np.float32) for a in arrays], (acts.pop() if acts else "tanh")


def move_agreement(model: Any, partner: RLPartner, obs: np.ndarray, mask: np.ndarray) -> dict:
    """How often ``partner``'s masked argmax equals the SB3 model's on ``obs``.

    Args:
        model: The SB3 model (its ``policy.get_distribution(obs, action_masks=mask)``).
        partner: The exported partner.
        obs: ``(B, obs_dim)`` observations.
        mask: ``(B, n_actions)`` 0/1 legal moves.

    Returns:
        ``{"observations": B, "same_moves": k, "max_logit_error": e}``: the number of equal
        moves and the largest absolute difference of a legal move's logit.
    """
    import torch

    mask_b = np.asarray(mask) != 0
    with torch.no_grad():
        dist = model.policy.get_distribution(
            torch.as_tensor(obs, dtype=torch.float32), action_masks=mask_b
        )
        ref = dist.distribution.logits.double().cpu().numpy()
    ours = partner.logits(obs)
    # SB3's masked logits are normalised (log-probabilities): compare centred legal logits
    ref_c = np.where(mask_b, ref, 0.0) - np.where(mask_b, ref, -np.inf).max(1, keepdims=True)
    ours_c = np.where(mask_b, ours, 0.0) - np.where(mask_b, ours, -np.inf).max(1, keepdims=True)
    err = float(np.abs(np.where(mask_b, ref_c - ours_c, 0.0)).max()) if len(obs) else 0.0
    same = np.where(mask_b, ref, -np.inf).argmax(1) == np.where(mask_b, ours, -np.inf).argmax(1)
    return {"observations": len(obs), "same_moves": int(same.sum()), "max_logit_error": err}


def export_partner(
    model: Any,
    path: str | Path,
    *,
    name: str,
    game: Any = None,
    description: str = "",
    observation_type: str = "card_knowledge",
    weight_dtype: str = "float16",
    extra: dict | None = None,
) -> RLPartner:
    """Write ``model``'s actor as ``path`` (``NAME.json``) and ``NAME.npz`` beside it.

    Args:
        model: A trained SB3 model with an ``MlpPolicy`` (:func:`sb3_actor`).
        path: The JSON config's path (``.json``); the weights go to the same stem + ``.npz``.
        name: The partner's name (``rl:NAME`` when shipped).
        game: The game it was trained in: a :class:`~hanabi_env.HanabiConfig` or a dict of its
            fields (None: 2 players, lenient scoring; :func:`agents.rl.partners.game_entry`).
        description: One or two sentences for docs and listings.
        observation_type: ``"card_knowledge"`` (HLE's canonical observation) or ``"minimal"``.
        weight_dtype: ``"float16"`` (default) or ``"float32"`` storage.
        extra: More entries of the config (``training``, ``self_play``, ``check``, ...).
            ``check`` is the record of the games the partner must replay at load
            (:func:`agents.rl.partners.self_play_record` of the SB3 model, as
            ``tools/train_rl_partners.py`` makes it with :class:`agents.sb3.SB3Policy`);
            without one, the exported network's own record is written (it then checks the
            files and the numpy forward pass, not the match with the model).

    Returns:
        The exported partner, loaded back from the written files (and so checked as
        :func:`agents.rl.load_partner` checks a partner).

    Raises:
        ValueError: A bad argument, a model that does not fit the observation, or an
            exported network that does not replay ``extra["check"]`` (nothing is written
            then).
    """
    check_str("name", name)
    check_choice("weight_dtype", weight_dtype, WEIGHT_DTYPES)
    check_choice("observation_type", observation_type, ("card_knowledge", "minimal"))
    if Path(path).suffix != ".json":
        raise ValueError(f"path={str(path)!r} is not allowed; allowed: a .json file")
    arrays, activation = sb3_actor(model)
    in_size = int(np.prod(model.observation_space.shape))
    if int(arrays[0].shape[1]) != in_size:
        raise ValueError(
            f"the network takes {int(arrays[0].shape[1])} inputs, the model's space {in_size}"
        )
    return export_network(
        arrays, activation, path, name=name, game=game, description=description,
        observation_type=observation_type, weight_dtype=weight_dtype, extra=extra,
    )  # fmt: skip


def export_network(
    arrays: list[np.ndarray],
    activation: str,
    path: str | Path,
    *,
    name: str,
    game: Any = None,
    description: str = "",
    observation_type: str = "card_knowledge",
    weight_dtype: str = "float16",
    extra: dict | None = None,
) -> RLPartner:
    """Write an MLP's weights as a partner: :func:`export_partner` for weights from anywhere.

    A network trained by :func:`agents.clone.train_clone`, or your own torch
    ``nn.Sequential``; the files, the result and the check are :func:`export_partner`'s.

    Args:
        arrays: ``[w0, b0, w1, b1, ...]``, ``w_i`` ``(out, in)``, ``b_i`` ``(out,)``; the first
            layer takes the observation, the last gives one logit per HLE move uid.
        activation: The hidden layers' activation, ``"tanh"`` or ``"relu"``.
        path: As in :func:`export_partner`.
        name: As in :func:`export_partner`.
        game: As in :func:`export_partner`.
        description: As in :func:`export_partner`.
        observation_type: As in :func:`export_partner`.
        weight_dtype: As in :func:`export_partner`.
        extra: As in :func:`export_partner`.

    Returns:
        The partner, loaded back from the written files.

    Raises:
        ValueError: A bad argument (named), arrays that are not an MLP, or a network that does
            not replay ``extra["check"]`` (nothing is written then).
    """
    from agents.rl.partners import ACTIVATIONS, load_partner

    check_str("name", name)
    check_choice("weight_dtype", weight_dtype, WEIGHT_DTYPES)
    check_choice("observation_type", observation_type, ("card_knowledge", "minimal"))
    check_choice("activation", activation, tuple(ACTIVATIONS))
    path = Path(path)
    if path.suffix != ".json":
        raise ValueError(f"path={str(path)!r} is not allowed; allowed: a .json file")
    if not arrays or len(arrays) % 2 or any(np.ndim(a) != 2 - i % 2 for i, a in enumerate(arrays)):
        raise ValueError("arrays must be [w0, b0, w1, b1, ...]: 2-d weights, 1-d biases")
    arrays = [np.asarray(a).astype(weight_dtype) for a in arrays]
    config = _mlp_config(arrays, activation, path, name, game, description, observation_type)
    names = config["weights"]["arrays"]
    config.update(extra or {})
    _check_replay(arrays, config, extra, weight_dtype)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = _npz_bytes(dict(zip(names, arrays, strict=True)))
    atomic_write_bytes(path.with_suffix(".npz"), buf)
    atomic_write_bytes(path, (json.dumps(config, indent=1) + "\n").encode())
    return load_partner(str(path))


def _mlp_config(
    arrays: list[np.ndarray],
    activation: str,
    path: Path,
    name: str,
    game: Any,
    description: str,
    observation_type: str,
) -> dict:
    """The partner config of :func:`export_network` (its ``extra`` entries not yet in)."""
    sizes = [int(arrays[0].shape[1])] + [int(w.shape[0]) for w in arrays[::2]]
    names = [n for i in range(len(sizes) - 1) for n in (f"w{i}", f"b{i}")]
    return {
        **FORMAT,
        "name": name,
        "description": description,
        "architecture": {
            "kind": "mlp",
            "layers": sizes,
            "activation": activation,
            "output": "logits over the HLE move uids; illegal moves masked, then argmax",
        },
        "observation": {"type": observation_type, "dtype": "float32", "size": sizes[0]},
        "game": game_entry(game),
        "weights": {
            "file": path.with_suffix(".npz").name,
            "dtype": str(arrays[0].dtype),
            "arrays": names,
            "sha256": weights_digest(arrays),
        },
    }


def _check_replay(
    arrays: list[np.ndarray], config: dict, extra: dict | None, weight_dtype: str
) -> None:
    """Set ``config["check"]`` to the network's own record, or check it replays the given one.

    Raises:
        ValueError: The network does not replay ``extra["check"]``.
    """
    from agents.rl.partners import CHECK_KEYS, self_play_record
    from hanabi_env.config import HanabiConfig

    probe = RLPartner(arrays, config)
    record = self_play_record(probe, config=HanabiConfig(**config["game"]), **_check_args(extra))
    if "check" not in config:
        config["check"] = record
    elif record != {k: config["check"].get(k) for k in CHECK_KEYS}:
        raise ValueError(
            f"the exported {weight_dtype} network does not replay extra['check'] (the model's "
            "recorded moves); nothing was written"
        )


def _check_args(extra: dict | None) -> dict:
    """``games`` and ``seed`` of the check record in ``extra`` (default 16 games, seed 0)."""
    check = (extra or {}).get("check")
    if check is None:
        return {"games": 16, "seed": 0}
    if not isinstance(check, dict) or not {"games", "seed"} <= set(check):
        raise ValueError("extra['check'] must be a self_play_record (games, seed, ...)")
    return {"games": check["games"], "seed": check["seed"]}


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]
    return buf.getvalue()
