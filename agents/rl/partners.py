"""Trained RL partners as batch policies: numpy networks loaded from NPZ weights and a JSON config.

A partner is two files side by side: ``NAME.npz`` (the policy network's weights, read with
``numpy.load(allow_pickle=False)``, so loading runs no code from the file) and ``NAME.json``
(its architecture, observation, game, training provenance and self-play score; the schema in
docs/rl_partners.md §5). :class:`RLPartner` runs the network in plain numpy, so partners play
on a core install without torch, and as a :class:`~agents.batch.BatchPolicy` it decides for
every game waiting for it in one forward pass (:mod:`agents.lockstep`).

The shipped partners live in ``agents/data/rl_partners/`` (:func:`partner_names`); the agent
spec ``rl:NAME`` (:func:`from_spec`, registered in :mod:`agents.registry`) names one of them,
``rl:PATH.json`` a partner a user exported (:func:`agents.rl.export.export_partner`).

**The forward pass.** ``logits = W_k(...act(W_1 act(W_0 x + b_0) + b_1)...) + b_k`` in float64
(the stored weights, float16 or float32, are widened once at load), the masked argmax (or a
draw from the masked softmax) by :func:`agents.batch.masked_choice`. Computing in float64 keeps
a decision independent of the batch it is computed in (a BLAS kernel may sum in another order
for another batch size; in float64 that moves a logit by ~1e-16 of its size, far below any gap
between two moves) and of the machine's float32 kernels.

Source: the observation is HLE's canonical encoding (docs/anchors.md §2.2); the network is
Stable-Baselines3's ``MlpPolicy`` actor (https://stable-baselines3.readthedocs.io/en/master/guide/custom_policy.html).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.batch import BatchPolicy, masked_choice
from hanabi_env import _engine as E
from hanabi_env.validate import check_bool, check_seed, check_str

__all__ = [
    "FORMAT",
    "PARTNER_DIR",
    "RLPartner",
    "from_spec",
    "game_entry",
    "load_partner",
    "load_partners",
    "partner_config",
    "partner_names",
    "partner_specs",
    "self_play_record",
    "weights_digest",
]

PARTNER_DIR = Path(__file__).resolve().parents[1] / "data" / "rl_partners"
"""Where the shipped partners live (package data of ``agents``)."""

FORMAT = {"format": "hanabi-adhoc rl partner", "format_version": 1}
"""The ``format`` and ``format_version`` entries of a partner's JSON config."""

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
"""Hidden-layer activations a partner's network may use."""

_GAME_KEYS = {
    "players": E.CFG_PLAYERS,
    "colors": E.CFG_COLORS,
    "ranks": E.CFG_RANKS,
    "hand_size": E.CFG_HAND,
    "max_information_tokens": E.CFG_MAX_INFO,
    "max_life_tokens": E.CFG_MAX_LIFE,
}


def game_entry(config: Any = None) -> dict:
    """The ``game`` entry of a partner's config for a :class:`~hanabi_env.HanabiConfig`.

    Args:
        config: The game the partner was trained in (a ``HanabiConfig``, or a dict of its
            fields); None is the 2-player lenient game (the papers' setting).

    Returns:
        ``players``, ``colors``, ``ranks``, ``hand_size``, ``max_information_tokens``,
        ``max_life_tokens``, ``scoring`` and ``hand_order``.

    Raises:
        TypeError, ValueError: Not a configuration (named as ``HanabiConfig`` names it).
    """
    from hanabi_env.config import HanabiConfig

    if config is None:
        config = HanabiConfig(players=2, scoring="lenient")
    elif isinstance(config, dict):
        config = HanabiConfig(**config)
    elif not isinstance(config, HanabiConfig):
        raise TypeError(f"game must be a HanabiConfig, a dict or None, got {type(config).__name__}")
    keys = (*_GAME_KEYS, "scoring", "hand_order")
    return {k: getattr(config, k) for k in keys}


def partner_names() -> list[str]:
    """The names of the shipped partners, sorted (``rl:NAME`` for each)."""
    return sorted(p.stem for p in PARTNER_DIR.glob("*.json"))


def partner_specs() -> list[str]:
    """The agent specs of the shipped partners, ``["rl:NAME", ...]`` (for pools and suites)."""
    return [f"rl:{name}" for name in partner_names()]


def _config_path(name: str) -> Path:
    """The JSON config of a shipped partner ``name`` or of a file ``name`` (``.json``)."""
    check_str("name", name, empty=True)
    text = name.strip()
    if text.endswith(".json") or "/" in text or "\\" in text:
        path = Path(text).expanduser()
        if not path.is_file():
            raise ValueError(f"rl:{text}: no partner config (JSON) at {path}")
        return path
    path = PARTNER_DIR / f"{text}.json"
    if not text or not path.is_file():
        names = ", ".join(partner_names()) or "none"
        raise ValueError(
            f"rl:{text}: no such RL partner; shipped: {names} (or rl:PATH.json for a partner "
            "exported with agents.rl.export_partner)"
        )
    return path


def partner_config(name: str) -> dict:
    """The JSON config of partner ``name`` (a shipped name or a ``.json`` path).

    Raises:
        ValueError: No such partner, or a file that is not a partner config.
    """
    path = _config_path(name)
    try:
        config = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"rl:{name}: {path} is not a JSON partner config ({err})") from None
    if not isinstance(config, dict) or config.get("format") != FORMAT["format"]:
        raise ValueError(f"rl:{name}: {path} is not a partner config (no {FORMAT['format']!r})")
    if config.get("format_version") != FORMAT["format_version"]:
        raise ValueError(
            f"rl:{name}: {path} has format_version {config.get('format_version')!r}; this "
            f"version reads {FORMAT['format_version']}"
        )
    return config


def weights_digest(arrays: Sequence[np.ndarray]) -> str:
    """SHA-256 of a network's arrays in order (dtype, shape and bytes of each), hex."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _read_weights(path: Path, config: dict, label: str) -> list[np.ndarray]:
    """The network's arrays from ``path`` (NPZ, no pickle), checked against ``config``."""
    arch = config["architecture"]
    names = [n for i in range(len(arch["layers"]) - 1) for n in (f"w{i}", f"b{i}")]
    try:
        with np.load(path, allow_pickle=False) as npz:
            missing = [n for n in names if n not in npz.files]
            if missing:
                raise ValueError(f"{label}: {path} lacks the arrays {missing}")
            arrays = [npz[n] for n in names]
    except (OSError, ValueError) as err:
        if str(err).startswith(label):
            raise
        raise ValueError(f"{label}: {path} is not an NPZ of weights ({err})") from None
    want = config["weights"].get("sha256")
    if want is not None and weights_digest(arrays) != want:
        raise ValueError(f"{label}: {path} does not hold the weights its config records (sha256)")
    sizes = arch["layers"]
    for i in range(len(sizes) - 1):
        w, b = arrays[2 * i], arrays[2 * i + 1]
        if w.shape != (sizes[i + 1], sizes[i]) or b.shape != (sizes[i + 1],):
            raise ValueError(
                f"{label}: layer {i} has shapes {w.shape} and {b.shape}; the config says "
                f"{(sizes[i + 1], sizes[i])} and {(sizes[i + 1],)}"
            )
    return arrays


class RLPartner(BatchPolicy):
    """A trained network as a batch policy, in numpy (see the module docstring).

    Build one with :func:`load_partner` (or ``agents.make("rl:NAME")``); the constructor takes
    the arrays and the config directly.

    Args:
        arrays: ``[w0, b0, w1, b1, ...]``: ``w_i`` ``(out, in)``, ``b_i`` ``(out,)``, any float
            dtype (widened to float64).
        config: The partner's JSON config (its ``architecture``, ``observation`` and
            ``game`` entries are used; docs/rl_partners.md §5).
        name: Display name (default ``"rl:" + config["name"]``).
        deterministic: The best legal move (default) or a draw from the masked softmax.
        seed: Seed of the policy's own draw stream (:meth:`BatchPolicy.act`).

    Raises:
        TypeError: A bad ``name``, ``deterministic`` or ``seed``.
        ValueError: An architecture this class does not run, or arrays that do not fit it.
    """

    observation_type = "card_knowledge"
    observation_dtype = "float32"

    def __init__(
        self,
        arrays: Sequence[np.ndarray],
        config: dict,
        name: str | None = None,
        deterministic: bool = True,
        seed: int = 0,
    ):
        """See the class docstring."""
        arch = config["architecture"]
        if arch.get("kind") != "mlp" or arch.get("activation") not in ACTIVATIONS:
            raise ValueError(
                f"architecture {arch.get('kind')!r} with activation {arch.get('activation')!r} "
                f"is not supported; allowed: kind 'mlp', activation in {sorted(ACTIVATIONS)}"
            )
        if len(arrays) != 2 * (len(arch["layers"]) - 1):
            raise ValueError(
                f"{len(arrays)} arrays for {len(arch['layers']) - 1} layers; need a weight "
                "and a bias per layer"
            )
        self.config = config
        self.name = check_str("name", name) if name is not None else f"rl:{config['name']}"
        self.deterministic = check_bool("deterministic", deterministic)
        self.observation_type = config["observation"]["type"]
        self.observation_dtype = config["observation"]["dtype"]
        self._act = arch["activation"]
        self._layers = [
            (np.ascontiguousarray(np.asarray(w, np.float64).T), np.asarray(b, np.float64))
            for w, b in zip(arrays[::2], arrays[1::2], strict=True)
        ]
        self.reset(check_seed("seed", seed))

    @property
    def game(self) -> dict:
        """The game the partner was trained in (``players``, ``hand_size``, ``scoring``, ...)."""
        return dict(self.config["game"])

    def observation_type_for(self, cfg: np.ndarray) -> str:
        """The partner's observation type, after checking that ``cfg`` is its game.

        Args:
            cfg: The engine's config array of the game (:mod:`hanabi_env._engine`).

        Raises:
            ValueError: A game of another size, deck, token count or hand order than the one
                the partner was trained in (its observations would mean something else).
        """
        have = {key: int(cfg[idx]) for key, idx in _GAME_KEYS.items()}
        fixed = int(cfg[E.CFG_HAND_ORDER]) == E.HAND_FIXED
        self._check_fields(have, "fixed" if fixed else "shift")
        return self.observation_type

    def check_game(self, config: Any) -> None:
        """Refuse a game this partner was not trained for (before any move is asked).

        The check ``hanabi-adhoc play`` makes of every seat that has one.

        Args:
            config: The game's :class:`~hanabi_env.HanabiConfig`.

        Raises:
            ValueError: As :meth:`observation_type_for`.
        """
        have = {key: int(getattr(config, key)) for key in _GAME_KEYS}
        self._check_fields(have, str(config.hand_order))

    def _check_fields(self, have: dict[str, int], order: str) -> None:
        game = self.config["game"]
        diffs = [
            f"{key.replace('_', ' ')} {value} (trained with {game[key]})"
            for key, value in have.items()
            if value != int(game[key])
        ]
        if order != game.get("hand_order", "shift"):
            diffs.append(f"hand order {order} (trained with {game.get('hand_order', 'shift')})")
        if diffs:
            raise ValueError(
                f"{self.name} was trained for {game['players']}-player games (hand size "
                f"{game['hand_size']}); this game has {', '.join(diffs)}"
            )

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``(B, n_actions)`` float64 logits for ``obs`` ``(B, obs_dim)`` (one forward pass).

        Raises:
            ValueError: ``obs`` is not ``(B, obs_dim)`` of the network's input size.
        """
        h = np.asarray(obs, dtype=np.float64)
        size = self._layers[0][0].shape[0]
        if h.ndim != 2 or h.shape[1] != size:
            raise ValueError(f"obs has shape {h.shape}; {self.name} takes (B, {size})")
        act = ACTIVATIONS[self._act]
        for w, b in self._layers[:-1]:
            h = act(h @ w + b)
        w, b = self._layers[-1]
        return h @ w + b

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """The masked argmax (or draw) of the network's logits (:mod:`agents.batch`)."""
        return masked_choice(self.logits(obs), mask, draws, self.deterministic)

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        """Name, trained game and mode."""
        mode = "deterministic" if self.deterministic else "sampled"
        game = self.config["game"]
        return f"RLPartner({self.name!r}, {game['players']} players, {mode})"


def load_partner(name: str, seed: int = 0, deterministic: bool = True) -> RLPartner:
    """A partner by name (shipped, :func:`partner_names`) or by the path of its JSON config.

    Loading reads a JSON file and an NPZ file with ``allow_pickle=False``: no code from the
    files runs, so no trust flag is needed.

    Args:
        name: A shipped name (e.g. ``"sp-seed1"``) or ``path/to/NAME.json`` (its weights are
            the ``file`` its config names, in the same folder).
        seed: Seed of the policy's own draw stream (used when sampling).
        deterministic: The best legal move (default) or a draw from the masked softmax.

    Returns:
        The :class:`RLPartner`.

    Raises:
        ValueError: No such partner (the message lists the shipped ones), or files that are
            not a partner (a bad config, missing or mismatched weights).
    """
    config = partner_config(name)
    path = _config_path(name)
    label = f"rl:{name.strip()}"
    try:
        weights = path.parent / config["weights"]["file"]
        arrays = _read_weights(weights, config, label)
        return RLPartner(arrays, config, deterministic=deterministic, seed=seed)
    except (KeyError, TypeError) as err:
        raise ValueError(f"{label}: {path} is not a complete partner config ({err!r})") from None


def load_partners(names: str | Sequence[str] = "all", seed: int = 0) -> list[RLPartner]:
    """Several partners, for pools: ``"all"`` (every shipped one) or names (a list or ``"a,b"``).

    Raises:
        ValueError: An unknown name, or no name at all.
    """
    if isinstance(names, str):
        text = names.strip()
        names = partner_names() if text == "all" else [n for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError(f"no RL partner named; shipped: {', '.join(partner_names())}")
    return [load_partner(n.strip(), seed=seed) for n in names]


def from_spec(arg: str, seed: int = 0, trust_model: bool = False) -> RLPartner:
    """The ``rl:NAME`` agent spec (:mod:`agents.registry`): a partner; no trust needed.

    ``trust_model`` is accepted and ignored: the files hold data only.

    Raises:
        ValueError: Unknown name (the message lists the shipped ones) or bad files.
    """
    return load_partner(arg, seed=seed)


def self_play_record(policy: BatchPolicy, games: int = 16, seed: int = 0) -> dict:
    """Fingerprint of ``policy``'s 2-player lenient self-play games on seeded deals.

    The record a partner's config keeps under ``check`` (made with the SB3 model it was
    exported from): the same games played by the loaded partner must give the same moves, so
    a test can check the shipped weights and the numpy forward pass against the trained model
    without torch.

    Args:
        policy: Any batch policy (an :class:`RLPartner`, an SB3 policy).
        games: Games, >= 1 (seeds from :func:`agents.evaluate.game_seeds` with ``seed``).
        seed: Master seed.

    Returns:
        ``{"games", "seed", "decisions", "actions_sha256", "scores"}``: the SHA-256 of the
        ``(games, max_moves)`` int16 move table (-1 after a game's end) and each game's score.
    """
    from agents.evaluate import game_seeds, play_games
    from hanabi_env.config import HanabiConfig

    _, deals, agent_seeds = game_seeds(seed, games, 2, False)
    batch = play_games(
        [policy],
        np.zeros((games, 2), dtype=np.int64),
        deals,
        agent_seeds,
        HanabiConfig(players=2, scoring="lenient"),
        record_actions=True,
    )
    actions = np.ascontiguousarray(batch.actions, dtype=np.int16)
    return {
        "games": int(games),
        "seed": int(seed),
        "decisions": int((actions >= 0).sum()),
        "actions_sha256": hashlib.sha256(actions.tobytes()).hexdigest(),
        "scores": [int(s) for s in batch.scores],
    }
