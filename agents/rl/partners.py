"""Trained RL partners as batch policies: numpy networks loaded from NPZ weights and a JSON config.

A partner is two files side by side: ``NAME.npz`` (the policy network's weights, read by
:func:`hanabi_env.safe_npz.read_npz`: no pickle, so loading runs no code from the file, and every
size checked before anything is decompressed) and ``NAME.json`` (its architecture, observation,
game, the weights' SHA-256, training provenance, the ``check`` record of games the network must
replay, and its self-play score; the schema in docs/rl_partners.md §5). :func:`load_partner`
checks both files before it returns a partner; a damaged or mismatched file is one
``ValueError`` line naming it. :class:`RLPartner` runs the network in plain numpy, so partners play
on a core install without torch, and as a :class:`~agents.batch.BatchPolicy` it decides for
every game waiting for it in one forward pass (:mod:`agents.lockstep`).

A config of ``architecture.kind`` ``"gru"`` (a recurrent clone, docs/cloning.md §5) loads as a
:class:`RecurrentPartner` (:func:`make_partner` picks the class): the same checks, the network
of :mod:`agents.rl.recurrent`, one hidden state per game and seat.

The shipped partners live in ``agents/data/rl_partners/`` (:func:`partner_names`; the
behaviour clones shipped there, ``clone-*``, are listed with ``clones=True``; ``rl:all``,
:func:`load_partners` ``("all")``, is every shipped network, clones included);
the agent spec ``rl:NAME`` (:func:`from_spec`, registered in :mod:`agents.registry`) names one
of them, ``rl:PATH.json`` a partner a user exported (:func:`agents.rl.export.export_partner`).

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
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import hand_order as HO
from agents.batch import BatchPolicy, draw_uniform, masked_choice
from agents.rl import recurrent as RNN
from hanabi_env import engine as E
from hanabi_env.safe_npz import MAX_JSON_BYTES, MAX_NPZ_BYTES, arrays_sha256, read_npz
from hanabi_env.validate import check_bool, check_seed, check_str

__all__ = [
    "CHECK_KEYS",
    "FORMAT",
    "MAX_CHECK_GAMES",
    "MAX_WEIGHT_BYTES",
    "PARTNER_DIR",
    "RLPartner",
    "RecurrentPartner",
    "from_spec",
    "game_entry",
    "load_partner",
    "load_partners",
    "make_partner",
    "partner_config",
    "partner_names",
    "partner_specs",
    "partner_weights",
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


CLONE_PREFIX = "clone-"
"""Name prefix of the behaviour clones shipped beside the RL partners (docs/human_proxies.md)."""


def partner_names(clones: bool = False) -> list[str]:
    """The names of the shipped partners, sorted (``rl:NAME`` for each).

    Args:
        clones: Also list the shipped behaviour clones (names starting with
            :data:`CLONE_PREFIX`, docs/human_proxies.md §4): every shipped network, the
            partners of ``rl:all`` and of the ``neural`` benchmark suite. Without it, the
            networks trained by RL only (not clones).

    Raises:
        TypeError: ``clones`` is not a bool.
    """
    check_bool("clones", clones)
    names = sorted(p.stem for p in PARTNER_DIR.glob("*.json"))
    return names if clones else [n for n in names if not n.startswith(CLONE_PREFIX)]


def partner_specs(clones: bool = False) -> list[str]:
    """The agent specs of the shipped partners, ``["rl:NAME", ...]`` (for pools and suites).

    Args:
        clones: Also the shipped behaviour clones (:func:`partner_names`).
    """
    return [f"rl:{name}" for name in partner_names(clones)]


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
        names = ", ".join(partner_names(clones=True)) or "none"
        raise ValueError(
            f"rl:{text}: no such RL partner; shipped: {names} (or rl:PATH.json for a partner "
            "exported with agents.rl.export_partner)"
        )
    return path


MAX_WEIGHT_BYTES = MAX_NPZ_BYTES
"""Cap on a partner's weights, in bytes (64 MiB): the size its ``architecture`` implies is
checked against it, and the NPZ's declared sizes against that size, before anything is read."""

MAX_CHECK_GAMES = 64
"""The most games a config's ``check`` may ask to replay at load."""

CHECK_KEYS = ("games", "seed", "decisions", "actions_sha256", "scores")
"""The entries of a config's ``check`` (:func:`self_play_record`)."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_ITEMSIZE = {"float16": 2, "float32": 4}


def _read_config(name: str) -> tuple[Path, dict, str]:
    """``(path, config, SHA-256 of the JSON's bytes)`` of partner ``name``, checked."""
    path = _config_path(name)
    label = f"rl:{name.strip()}"
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise ValueError(f"{size} bytes; a partner config may be {MAX_JSON_BYTES}")
        raw = path.read_bytes()
        config = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ValueError(f"{label}: {path} is not a JSON partner config ({reason})") from None
    if not isinstance(config, dict) or config.get("format") != FORMAT["format"]:
        raise ValueError(f"{label}: {path} is not a partner config (no {FORMAT['format']!r})")
    if config.get("format_version") != FORMAT["format_version"]:
        raise ValueError(
            f"{label}: {path} has format_version {config.get('format_version')!r}; this "
            f"version reads {FORMAT['format_version']}"
        )
    problem = _config_problem(config)
    if problem:
        raise ValueError(f"{label}: {path} is not a complete partner config: {problem}")
    return path, config, hashlib.sha256(raw).hexdigest()


def _is_int(x: object, lo: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= lo


def _config_problem(config: dict) -> str | None:
    """What is wrong with a config's entries (None: nothing), in one phrase."""
    arch, obs, weights = (config.get(k) for k in ("architecture", "observation", "weights"))
    if not isinstance(config.get("name"), str):
        return "no name"
    if not (isinstance(arch, dict) and isinstance(obs, dict) and isinstance(weights, dict)):
        return "architecture, observation and weights must be objects"
    if arch.get("kind") not in _KINDS or arch.get("activation") not in ACTIVATIONS:
        return (
            f"architecture must be kind {' or '.join(_KINDS)} with an activation in "
            f"{sorted(ACTIVATIONS)}"
        )
    layers, least = arch.get("layers"), _KINDS[arch["kind"]]
    if not (
        isinstance(layers, list) and len(layers) >= least and all(_is_int(n, 1) for n in layers)
    ):
        words = {2: "two", 3: "three"}[least]
        return f"architecture.layers must be a list of {words} or more ints >= 1"
    if obs.get("type") not in ("card_knowledge", "minimal") or obs.get("size") != layers[0]:
        return "observation.type must be card_knowledge or minimal, observation.size layers[0]"
    if weights.get("dtype") not in _ITEMSIZE:
        return f"weights.dtype must be one of {sorted(_ITEMSIZE)}"
    shapes = _shapes(arch["kind"], layers)
    n_bytes = _ITEMSIZE[weights["dtype"]] * sum(math.prod(s) for s in shapes.values())
    if n_bytes > MAX_WEIGHT_BYTES:
        return f"its layers need {n_bytes} bytes of weights; the limit is {MAX_WEIGHT_BYTES}"
    file = weights.get("file")
    if not (isinstance(file, str) and file.endswith(".npz") and Path(file).name == file):
        return "weights.file must be the name of an .npz file beside the config (no folder)"
    if weights.get("arrays", list(shapes)) != list(shapes):
        return f"weights.arrays must be {list(shapes)}"
    if not isinstance(weights.get("sha256"), str) or not _HEX64.fullmatch(weights["sha256"]):
        return (
            "weights.sha256 is missing or not 64 hex digits (the SHA-256 of the weights, "
            "agents.rl.partners.weights_digest; export_partner writes it)"
        )
    return _check_problem(config.get("check")) or _game_problem(config.get("game"))


def _check_problem(check: object) -> str | None:
    """What is wrong with a config's ``check`` record (None: nothing)."""
    if not isinstance(check, dict) or set(check) != set(CHECK_KEYS):
        return (
            f"check must record {', '.join(CHECK_KEYS)} (self_play_record; export_partner "
            "writes it)"
        )
    games, scores = check["games"], check["scores"]
    if not (_is_int(games, 1) and games <= MAX_CHECK_GAMES and _is_int(check["seed"])):
        return f"check.games must be 1 to {MAX_CHECK_GAMES}, check.seed an int >= 0"
    if not (isinstance(scores, list) and len(scores) == games and all(map(_is_int, scores))):
        return "check.scores must be one int per game"
    if not (_is_int(check["decisions"]) and isinstance(check["actions_sha256"], str)):
        return "check.decisions must be an int, check.actions_sha256 a str"
    return None


def _game_problem(game: object) -> str | None:
    """What is wrong with a config's ``game`` (None: nothing)."""
    from hanabi_env.config import HanabiConfig

    keys = (*_GAME_KEYS, "scoring", "hand_order")
    if not isinstance(game, dict) or not set(_GAME_KEYS) <= set(game) or set(game) - set(keys):
        return f"game must have the entries {', '.join(keys)}"
    try:
        HanabiConfig(**game)
    except (TypeError, ValueError) as err:
        return f"game: {err}"
    return None


_KINDS = {"mlp": 2, "gru": 3}
"""Architectures a partner may have, and the fewest ``layers`` entries of each."""


def _shapes(kind: str, layers: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """Name → shape of every array of a network, in the NPZ's order."""
    if kind == "gru":
        return RNN.array_shapes(layers)
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(len(layers) - 1):
        shapes[f"w{i}"] = (layers[i + 1], layers[i])
        shapes[f"b{i}"] = (layers[i + 1],)
    return shapes


def partner_config(name: str) -> dict:
    """The JSON config of partner ``name`` (a shipped name or a ``.json`` path).

    The config is checked as :func:`load_partner` checks it (every entry it uses, the
    ``weights.sha256`` and ``check`` it must record; docs/rl_partners.md §5), without reading
    the weights.

    Raises:
        ValueError: No such partner, or a file that is not a complete partner config (one
            line naming the file).
    """
    return _read_config(name)[1]


def weights_digest(arrays: Sequence[np.ndarray]) -> str:
    """SHA-256 of a network's arrays in order (dtype, shape and bytes of each), hex.

    The ``weights.sha256`` of a partner's config (:func:`hanabi_env.safe_npz.arrays_sha256`).
    """
    return arrays_sha256(arrays)


def _read_weights(path: Path, config: dict, label: str) -> list[np.ndarray]:
    """The network's arrays from ``path``, sizes checked before reading, then their digest."""
    shapes = _shapes(config["architecture"]["kind"], config["architecture"]["layers"])
    dtype = config["weights"]["dtype"]
    found = read_npz(path, shapes, dtypes=(dtype,), max_bytes=MAX_WEIGHT_BYTES, label=label)
    arrays = [found[n] for n in shapes]
    if weights_digest(arrays) != config["weights"]["sha256"]:
        raise ValueError(f"{label}: {path} does not hold the weights its config records (sha256)")
    return arrays


_VERIFIED: set[tuple[str, str]] = set()
"""(JSON sha, weights sha) of the partners whose check games this process has replayed."""


def _verify(
    arrays: list[np.ndarray], config: dict, key: tuple[str, str], path: Path, label: str
) -> None:
    """Replay the config's ``check`` games with the network; once per ``key`` per process."""
    if key in _VERIFIED:
        return
    from hanabi_env.config import HanabiConfig

    check = config["check"]
    try:
        probe = make_partner(arrays, config, name=label)
        record = self_play_record(
            probe, check["games"], check["seed"], config=HanabiConfig(**config["game"])
        )
    except ValueError as err:
        first = str(err).splitlines()[0]
        raise ValueError(f"{label}: {path}: cannot play the check games ({first})") from None
    if record != check:
        raise ValueError(
            f"{label}: {path}: the network does not play the moves its config records (check: "
            f"{check['games']} games, seed {check['seed']}); its config or weights were changed"
        )
    _VERIFIED.add(key)


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
        self._layers = [
            (np.ascontiguousarray(np.asarray(w, np.float64).T), np.asarray(b, np.float64))
            for w, b in zip(arrays[::2], arrays[1::2], strict=True)
        ]
        self._setup(config, name, deterministic, seed)

    def _setup(self, config: dict, name: str | None, deterministic: bool, seed: int) -> None:
        """The attributes every partner has (name, mode, observation, hand order, draws)."""
        self.config = config
        self.name = check_str("name", name) if name is not None else f"rl:{config['name']}"
        self.deterministic = check_bool("deterministic", deterministic)
        self.observation_type = config["observation"]["type"]
        self.observation_dtype = config["observation"]["dtype"]
        # trained in HLE's order: shown fixed-slot games in age order (agents.hand_order)
        trained = config["game"].get("hand_order", "shift")
        self.observation_hand_order = "age" if trained == "shift" else "game"
        self._act = config["architecture"]["activation"]
        self.reset(check_seed("seed", seed))

    @property
    def game(self) -> dict:
        """The game the partner was trained in (``players``, ``hand_size``, ``scoring``, ...)."""
        return dict(self.config["game"])

    def observation_type_for(self, cfg: np.ndarray) -> str:
        """The partner's observation type, after checking that ``cfg`` is its game.

        Args:
            cfg: The engine's config array of the game (:mod:`hanabi_env.engine`).

        A partner trained in HLE's hand order plays fixed-slot games too: it is shown them in
        age order (:mod:`agents.hand_order`). One trained with fixed slots plays only those.

        Raises:
            ValueError: A game of another size, deck or token count than the one the partner
                was trained in (its observations would mean something else), or an HLE-order
                game for a partner trained with fixed slots.
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
        if order == "shift" and game.get("hand_order", "shift") == "fixed":
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


class RecurrentPartner(RLPartner):
    """A recurrent network (``architecture.kind`` ``"gru"``) as a batch policy, in numpy.

    The network of :mod:`agents.rl.recurrent` (an MLP encoder, a GRU, a linear output): one
    step per decision of its seat, with a hidden state per game and seat, zero at each game's
    start. In the lockstep player (``needs_views``, :mod:`agents.batch`) every chunk of games
    starts with zero states (:meth:`start_games`) and each decision updates the state of its
    game and seat only, so many games at once play as each alone; :meth:`act` (one game at a
    time: the per-game path, PettingZoo loops, the browser) keeps one state per seat and starts
    a new game when a view has fewer moves than the last one seen (or at :meth:`reset`).
    A fixed-slot game is shown in age order, as for :class:`RLPartner`. docs/cloning.md §5.

    Args:
        arrays: The arrays in :func:`agents.rl.recurrent.array_names` order (any float dtype).
        config: The partner's JSON config (kind ``"gru"``; docs/cloning.md §5).
        name: Display name (default ``"rl:" + config["name"]``).
        deterministic: The best legal move (default) or a draw from the masked softmax.
        seed: Seed of the policy's own draw stream (:meth:`act`).

    Raises:
        TypeError: A bad ``name``, ``deterministic`` or ``seed``.
        ValueError: Not a ``"gru"`` architecture, or arrays that do not fit it.
    """

    needs_views = True

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
        if arch.get("kind") != "gru" or arch.get("activation") not in ACTIVATIONS:
            raise ValueError(
                f"architecture {arch.get('kind')!r} with activation {arch.get('activation')!r} "
                f"is not a recurrent one; allowed: kind 'gru', activation in {sorted(ACTIVATIONS)}"
            )
        shapes = RNN.array_shapes(arch["layers"])
        got = [tuple(np.shape(a)) for a in arrays]
        if got != list(shapes.values()):
            raise ValueError(f"arrays of shapes {got}; the layers need {list(shapes.values())}")
        wide = [np.asarray(a, np.float64) for a in arrays]
        k = len(arch["layers"]) - 3
        pairs = zip(wide[: 2 * k : 2], wide[1 : 2 * k : 2], strict=True)
        self._encoder = [(np.ascontiguousarray(w.T), b) for w, b in pairs]
        wi, wh, bi, bh = wide[2 * k : 2 * k + 4]
        self._gru = (np.ascontiguousarray(wi.T), np.ascontiguousarray(wh.T), bi, bh)
        self._head = (np.ascontiguousarray(wide[-2].T), wide[-1])
        self.states = RNN.HiddenStates(arch["layers"][-2])
        self._setup(config, name, deterministic, seed)

    @property
    def units(self) -> int:
        """The GRU's size ``H``."""
        return self.states.units

    def step(self, obs: np.ndarray, hidden: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One decision's forward pass for ``B`` games: ``(logits, new hidden states)``.

        Args:
            obs: ``(B, obs_dim)`` observations.
            hidden: ``(B, H)`` hidden states before the decision (zeros at a game's start).

        Returns:
            ``(B, n_actions)`` float64 logits and ``(B, H)`` float64 states after the step.

        Raises:
            ValueError: ``obs`` or ``hidden`` of another shape.
        """
        x = np.asarray(obs, dtype=np.float64)
        h = np.asarray(hidden, dtype=np.float64)
        size = self._gru[0].shape[0] if not self._encoder else self._encoder[0][0].shape[0]
        if x.ndim != 2 or x.shape[1] != size or h.shape != (len(x), self.units):
            raise ValueError(
                f"obs {x.shape} and hidden {h.shape}; {self.name} takes (B, {size}) and "
                f"(B, {self.units})"
            )
        act = ACTIVATIONS[self._act]
        for w, b in self._encoder:
            x = act(x @ w + b)
        h = RNN.gru_step(x, h, *self._gru)
        w, b = self._head
        return h @ w + b, h

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``(B, n_actions)`` logits of each row as a game's first decision (zero states)."""
        return self.step(obs, np.zeros((len(obs), self.units)))[0]

    def start_games(self, agent_seeds: np.ndarray) -> None:
        """A lockstep chunk starts: zero states for each of its games and seats."""
        n, players = np.shape(agent_seeds)
        self.states.start_chunk(n, players)

    def act_batch(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        seats: np.ndarray,
        draws: np.ndarray,
        views: list[Any] | None = None,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """The moves of ``B`` waiting games, each from its own game and seat's state.

        Raises:
            ValueError: Called without ``games``/``views`` (only the lockstep player does), or
                for games outside the chunk started.
        """
        if views is None or games is None:
            raise ValueError(f"{self.name}: act_batch needs the views and games of a chunk")
        rows = self.states.rows(games, seats)
        hands, cfg = None, views[0].raw.cfg if views else None
        if cfg is not None and self._by_age(cfg):
            parts = [HO.hands_of_view(v) for v in views]
            hands = HO.Hands(*(np.concatenate(f) for f in zip(*parts, strict=True)))
        acts, h = self._decide(obs, mask, seats, draws, self.states.chunk[rows], cfg, hands)
        self.states.chunk[rows] = h
        return acts

    def act(self, view: Any) -> int:
        """One decision for ``view``'s seat, from that seat's state in the current game."""
        cfg = view.raw.cfg
        h = self.states.solo(view.seat, int(view.n_moves))
        obs = view.encode(self.observation_type_for(cfg))[None]
        mask = np.asarray(view.legal_mask(), dtype=np.int8)[None]
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal move (seat {view.seat})")
        draws = np.array([draw_uniform(self._draw_rng())])
        seats = np.array([view.seat], dtype=np.int64)
        hands = HO.hands_of_view(view) if self._by_age(cfg) else None
        acts, h = self._decide(obs, mask, seats, draws, h, cfg, hands)
        self.states.solo_h[int(view.seat)] = h
        return int(acts[0])

    def _by_age(self, cfg: np.ndarray) -> bool:
        fixed = int(cfg[E.CFG_HAND_ORDER]) == E.HAND_FIXED
        return fixed and self.observation_hand_order == "age"

    def _decide(
        self, obs, mask, seats, draws, h, cfg: Any, hands: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """Moves and new states; a fixed-slot game shown in age order if ``hands``."""
        order = None
        if hands is not None:
            obs, mask, order = HO.show_by_age(obs, mask, cfg, seats, hands)
        logits, h = self.step(obs, h)
        acts = masked_choice(logits, mask, draws, self.deterministic)
        if order is not None:
            acts = HO.moves_to_game(acts, order, int(cfg[E.CFG_HAND]))
        return acts, h

    def reset(self, seed: int | None = None) -> None:
        """Forget every game; re-seed the draw stream when ``seed`` is given."""
        super().reset(seed)
        states = getattr(self, "states", None)
        if states is not None:
            states.reset()

    def __repr__(self) -> str:
        """Name, trained game and mode."""
        return super().__repr__().replace("RLPartner(", "RecurrentPartner(", 1)


def make_partner(
    arrays: Sequence[np.ndarray],
    config: dict,
    name: str | None = None,
    deterministic: bool = True,
    seed: int = 0,
) -> RLPartner:
    """The partner of ``config``'s architecture: :class:`RLPartner` or :class:`RecurrentPartner`.

    Args and Raises: as the classes'.
    """
    cls = RecurrentPartner if config["architecture"].get("kind") == "gru" else RLPartner
    return cls(arrays, config, name=name, deterministic=deterministic, seed=seed)


def load_partner(name: str, seed: int = 0, deterministic: bool = True) -> RLPartner:
    """A partner by name (shipped, :func:`partner_names`) or by the path of its JSON config.

    Loading reads a JSON file and an NPZ file (:func:`hanabi_env.safe_npz.read_npz`, no
    pickle): no code from the files runs, so no trust flag is needed. Before the partner is
    returned (docs/rl_partners.md §5, "What loading checks"):

    1. the config is checked: every entry the partner uses, a ``weights.sha256`` and a
       ``check`` record (a config without them is refused), and the size its layers imply
       (at most :data:`MAX_WEIGHT_BYTES`);
    2. the NPZ's members are checked against those layers (names, dtype, shapes, declared
       sizes) before anything is decompressed, then read;
    3. the weights' SHA-256 must be the config's;
    4. the network replays the config's ``check`` games (:func:`self_play_record`) and must
       make the recorded moves. This runs once per process for each pair (JSON SHA-256,
       weights SHA-256): a pool that loads a partner many times plays them once (about 0.1 s
       for a shipped partner's 16 games).

    Args:
        name: A shipped name (e.g. ``"ppo-sp1"``) or ``path/to/NAME.json`` (its weights are
            the ``file`` its config names, in the same folder).
        seed: Seed of the policy's own draw stream (used when sampling).
        deterministic: The best legal move (default) or a draw from the masked softmax.

    Returns:
        The :class:`RLPartner`.

    Raises:
        ValueError: No such partner (the message lists the shipped ones), or files that are
            not a partner: one line naming the file (a bad or incomplete config, missing,
            damaged, oversized or mismatched weights, a failed check).
    """
    config, arrays = partner_weights(name)
    return make_partner(arrays, config, deterministic=deterministic, seed=seed)


def partner_weights(name: str) -> tuple[dict, list[np.ndarray]]:
    """A partner's config and weights as stored, checked as :func:`load_partner` checks them.

    For training further from a partner (``agents.clone.train_clone(..., init=arrays)``,
    ``hanabi-adhoc clone --init``; docs/cloning.md §4.1).

    Args:
        name: A shipped name or ``path/to/NAME.json`` (as :func:`load_partner`).

    Returns:
        ``(config, arrays)``: the JSON config and ``[w0, b0, w1, b1, ...]`` in the stored dtype
        (``w_i`` of shape ``(out, in)``); their digest is ``config["weights"]["sha256"]``.

    Raises:
        ValueError: As :func:`load_partner`.
    """
    path, config, json_sha = _read_config(name)
    label = f"rl:{name.strip()}"
    arrays = _read_weights(path.parent / config["weights"]["file"], config, label)
    _verify(arrays, config, (json_sha, config["weights"]["sha256"]), path, label)
    return config, arrays


def load_partners(names: str | Sequence[str] = "all", seed: int = 0) -> list[RLPartner]:
    """Several partners, for pools: ``"all"`` (every shipped one) or names (a list or ``"a,b"``).

    ``"all"`` (the pool SOURCE ``rl:all``, docs/rl_partners.md §2) is every shipped network,
    the behaviour clones included (:func:`partner_names` with ``clones=True``), in name order;
    it grows with every network shipped.

    Raises:
        ValueError: An unknown name, or no name at all.
    """
    if isinstance(names, str):
        text = names.strip()
        every = partner_names(clones=True)
        names = every if text == "all" else [n for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError(f"no RL partner named; shipped: {', '.join(partner_names(clones=True))}")
    return [load_partner(n.strip(), seed=seed) for n in names]


def from_spec(arg: str, seed: int = 0, trust_model: bool = False) -> RLPartner:
    """The ``rl:NAME`` agent spec (:mod:`agents.registry`): a partner; no trust needed.

    ``trust_model`` is accepted and ignored: the files hold data only.

    Raises:
        ValueError: Unknown name (the message lists the shipped ones) or bad files.
    """
    return load_partner(arg, seed=seed)


def self_play_record(
    policy: BatchPolicy, games: int = 16, seed: int = 0, config: Any = None
) -> dict:
    """Fingerprint of ``policy``'s 2-player lenient self-play games on seeded deals.

    The record a partner's config keeps under ``check`` (made with the SB3 model it was
    exported from): the same games played by the loaded partner must give the same moves, so
    a test can check the shipped weights and the numpy forward pass against the trained model
    without torch.

    Args:
        policy: Any batch policy (an :class:`RLPartner`, an SB3 policy).
        games: Games, >= 1 (seeds from :func:`agents.evaluate.game_seeds` with ``seed``).
        seed: Master seed.
        config: The game (a :class:`~hanabi_env.HanabiConfig`); None: 2 players, lenient
            scoring (the shipped partners' game). :func:`load_partner` replays a partner's
            record in the game of its config.

    Returns:
        ``{"games", "seed", "decisions", "actions_sha256", "scores"}``: the SHA-256 of the
        ``(games, max_moves)`` int16 move table (-1 after a game's end) and each game's score.

    Raises:
        ValueError: A policy that cannot play ``config`` (e.g. another number of players).
    """
    from agents.evaluate import game_seeds, play_games
    from hanabi_env.config import HanabiConfig

    if config is None:
        config = HanabiConfig(players=2, scoring="lenient")
    _, deals, agent_seeds = game_seeds(seed, games, config.players, False)
    batch = play_games(
        [policy],
        np.zeros((games, config.players), dtype=np.int64),
        deals,
        agent_seeds,
        config,
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
