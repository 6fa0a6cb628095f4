"""A trained BAD agent (or its baseline) as a :class:`agents.policy.Policy`, loaded without code.

An agent is two files: ``NAME.json`` (format, learner, the game configuration, network sizes,
provenance: command, seed, commit, steps, scores) and ``NAME.npz`` (the network's float32
weights, read with ``allow_pickle=False``): loading runs no code and needs no torch; the agent
plays in NumPy (:class:`agents.bad.net.NumpyNet`). The agents shipped with the package live in
``agents/data/bad/`` (:func:`shipped_agents`; docs/bad.md §3 lists them and how they were
trained).

The agent plays its seat greedily by default (the most probable move, [BAD19]'s test
setting), or samples its moves (``sampled=True``) from the common-knowledge seed given to
:meth:`BADPolicy.reset` (:func:`agents.bad.runner.decision_noise`): two sampling BAD agents
reset with the same seed sample the same partial policies, as [BAD19]'s players share their
seeds. It keeps the public belief by replaying the whole move history of its view through the
same code as the trainer (:mod:`agents.bad.runner`): for every move, the partial policy the
mover would have followed and BAD's counterfactual update, then the move itself. It reads a
partner's moves as if the partner were itself; with a partner that is not, a move no hand
explains leaves the belief as it was.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from agents.bad._io import write_bytes, write_json
from agents.bad.net import NumpyNet, param_shapes
from agents.bad.public import Layout, PublicState
from agents.bad.runner import Decision, decide, decision_noise, observe
from agents.batch import BatchPolicy
from hanabi_env import engine as E
from hanabi_env import safe_npz
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import PlayerView
from hanabi_env.validate import check_bool, check_seed, check_str, type_error

__all__ = [
    "FORMAT",
    "MAX_WEIGHT_BYTES",
    "PACKAGE_ROOT",
    "BADPolicy",
    "export_files",
    "from_spec",
    "read_agent",
    "shipped_agents",
    "shipped_path",
    "weights_sha256",
]

FORMAT = "hanabi-adhoc/bad-agent"
"""The ``format`` field of an agent's JSON file (version 1)."""

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "data" / "bad"
"""The shipped agents' folder (package data; read only, never written)."""

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""The installed ``agents`` package: :func:`export_files` refuses to write inside it."""


class BADPolicy(BatchPolicy):
    """A trained BAD (or baseline) network playing one seat of 2-player games.

    A batch policy that reads whole views (:mod:`agents.batch`, ``needs_views``): in the
    lockstep player it keeps one public state per game and seat of the chunk, replays the
    moves it has not seen of every waiting game in batched rounds and decides for all of them
    in one pass of its network; :meth:`act` plays one game at a time, keeping its own state.
    Both give the same moves (tests/agents/test_bad_policy.py).

    Args:
        weights: Parameter name → array (:func:`agents.bad.net.param_shapes`).
        meta: The agent's JSON document (``format``, ``version``, ``learner``, ``config``,
            ``hidden``, ``layers``; ``provenance`` and ``scores`` are kept as they are).
        name: The policy's name.
        sampled: Sample moves from the common seed of :meth:`reset` instead of playing the most
            probable move.

    Attributes:
        config: The :class:`hanabi_env.HanabiConfig` it was trained on (and plays).
        meta: The JSON document.

    Raises:
        ValueError: An unknown format or version, or weights that do not fit the configuration.
    """

    def __init__(
        self,
        weights: Mapping[str, np.ndarray],
        meta: Mapping,
        name: str = "bad",
        sampled: bool = False,
    ):
        """See the class docstring."""
        self.sampled = check_bool("sampled", sampled)
        if meta.get("format") != FORMAT or meta.get("version") != 1:
            raise ValueError(f"not a BAD agent file (format {FORMAT!r}, version 1)")
        self.meta = dict(meta)
        self.name = name
        self.config = HanabiConfig(**meta["config"])
        self.layout = lay = Layout(self.config)
        self.bayesian = meta["learner"] == "bad"
        want = param_shapes(
            lay.pub_dim, lay.priv_dim, meta["hidden"], meta["layers"], lay.n_actions
        )
        got = {k: tuple(np.shape(v)) for k, v in weights.items()}
        if got != want:
            raise ValueError(f"the weights do not fit the configuration: {got} != {want}")
        self.net = NumpyNet(weights)
        self.reset()

    @classmethod
    def load(cls, path: str | Path, name: str | None = None, sampled: bool = False) -> BADPolicy:
        """The agent of ``path`` (its ``.json``; the ``.npz`` beside it holds the weights).

        Checked before it is returned (docs/bad.md §3, "What loading checks"): the JSON (at
        most :data:`hanabi_env.safe_npz.MAX_JSON_BYTES`; format, game, sizes, a
        ``weights_sha256``), the NPZ's arrays against the shapes the JSON implies before
        anything is decompressed (:func:`hanabi_env.safe_npz.read_npz`, at most
        :data:`MAX_WEIGHT_BYTES`), then the weights' SHA-256.

        Raises:
            ValueError: A missing, damaged or mismatched file: one line naming it.
        """
        path = Path(path)
        meta, weights = read_agent(path.with_suffix(".json"), name or f"bad:{path.stem}")
        return cls(weights, meta, name or f"bad:{path.stem}", sampled)

    needs_views = True

    def reset(self, seed: int | None = None) -> None:
        """Forget the game; ``seed`` is the common seed of sampled moves (default 0)."""
        self._public = PublicState(self.layout, 1)
        self._seen = 0
        self._pending: tuple[int, Decision] | None = None
        self._seed = 0 if seed is None else check_seed("seed", seed)

    def start_games(self, agent_seeds: np.ndarray) -> None:
        """A lockstep chunk starts: one public state per game and seat (:mod:`agents.batch`)."""
        n, players = np.shape(agent_seeds)
        self._chunk = PublicState(self.layout, n * players)
        self._chunk_seen = np.zeros(n * players, dtype=np.int64)
        self._chunk_seeds = np.asarray(agent_seeds, dtype=np.int64).reshape(-1)
        self._players = int(players)

    def act_batch(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        seats: np.ndarray,
        draws: np.ndarray,
        views: list[PlayerView] | None = None,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """The moves of ``B`` waiting games: catch up on their histories, then decide.

        Every game's unseen moves are replayed in rounds (round ``r`` replays the ``r``-th
        unseen move of every game that has one, BAD's partial policies and counterfactual
        updates in one batch), then one decision for all ``B``. ``obs`` and ``draws`` are
        not used (the agent reads the views; sampled moves use the common seed).

        Raises:
            ValueError: Called without ``views``/``games`` (only the lockstep player does) or
                for a game of another configuration.
        """
        if views is None or games is None or getattr(self, "_chunk", None) is None:
            raise ValueError(f"{self.name}: act_batch needs the views and games of a chunk")
        for view in views:
            self._check(view)
        keys = np.asarray(games, dtype=np.int64) * self._players + np.asarray(seats)
        n_moves = np.array([int(v.raw.scal[V.V_N_MOVES]) for v in views], dtype=np.int64)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):
            self._catch_up(keys, n_moves, views)
            sub = self._chunk.take(keys)
            partner = 1 - np.asarray(seats)
            combos = np.array(
                [
                    self.layout.combo_index(v.hands[q][: int(v.hand_lengths[q])])
                    for v, q in zip(views, partner, strict=True)
                ]
            )
            noise = self._chunk_noise(keys, n_moves)
            d = decide(sub, np.asarray(seats), self.net, self.bayesian, combos, noise)
        assert d.action is not None
        return d.action.astype(np.int64)

    def _catch_up(self, keys: np.ndarray, n_moves: np.ndarray, views: list[PlayerView]) -> None:
        """Replay the unseen moves of every game of ``keys``, a round at a time."""
        while True:
            behind = np.flatnonzero(self._chunk_seen[keys] < n_moves)
            if not len(behind):
                return
            k = keys[behind]
            recs = np.stack(
                [views[j].raw.hist[self._chunk_seen[keys[j]]] for j in behind.tolist()]
            ).astype(np.int64)
            if self.bayesian:
                sub = self._chunk.take(k)
                actor = recs[:, E.H_ACTOR]
                noise = self._chunk_noise(k, self._chunk_seen[k])
                d = decide(sub, actor, self.net, True, None, noise)
                observe(sub, actor, d, recs[:, E.H_ACTION])
                self._chunk.put(k, sub)
            for key, rec in zip(k.tolist(), recs, strict=True):
                self._chunk.apply(key, rec)
            self._chunk_seen[k] += 1

    def _chunk_noise(self, keys: np.ndarray, moves: np.ndarray) -> np.ndarray | None:
        if not self.sampled:
            return None
        return np.stack(
            [
                decision_noise(int(self._chunk_seeds[k]), int(m), self.layout)
                for k, m in zip(keys.tolist(), moves.tolist(), strict=True)
            ]
        )

    def act(self, view: PlayerView) -> int:
        """The greedy move of this seat; replays the moves it has not seen yet first.

        Raises:
            ValueError: The view's game is not the agent's configuration.
        """
        self._check(view)
        hist = view.raw.hist
        n_moves = int(view.raw.scal[V.V_N_MOVES])
        if n_moves < self._seen:  # a new game without reset()
            self.reset()
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):
            for m in range(self._seen, n_moves):
                self._replay(m, hist[m])
            self._seen = n_moves
            seat = np.array([view.seat])
            partner = 1 - view.seat
            hand = view.hands[partner][: int(view.hand_lengths[partner])]
            combo = np.array([self.layout.combo_index(hand)])
            d = decide(self._public, seat, self.net, self.bayesian, combo, self._noise(n_moves))
        self._pending = (n_moves, d)
        assert d.action is not None
        return int(d.action[0])

    def _replay(self, index: int, rec: np.ndarray) -> None:
        actor = np.array([int(rec[E.H_ACTOR])])
        if self.bayesian:
            if self._pending is not None and self._pending[0] == index:
                d = self._pending[1]  # this seat's own decision, made on this same position
            else:
                d = decide(self._public, actor, self.net, True, None, self._noise(index))
            observe(self._public, actor, d, np.array([int(rec[E.H_ACTION])]))
        self._public.apply(0, rec)

    def _noise(self, move: int) -> np.ndarray | None:
        if not self.sampled:
            return None
        return decision_noise(self._seed, move, self.layout)[None]

    def _check(self, view: PlayerView) -> None:
        if not isinstance(view, PlayerView):
            raise type_error("view", "a hanabi_env.PlayerView", view)
        cfg = view.raw.cfg
        keys = (E.CFG_PLAYERS, E.CFG_COLORS, E.CFG_RANKS, E.CFG_HAND, E.CFG_MAX_INFO)
        have = tuple(int(cfg[k]) for k in (*keys, E.CFG_MAX_LIFE))
        if have != self._game_key():
            raise ValueError(self._refusal(*have))

    def _game_key(self) -> tuple[int, ...]:
        c = self.config
        return (c.players, c.colors, c.ranks, c.hand_size, c.max_information_tokens,
                c.max_life_tokens)  # fmt: skip

    def _refusal(self, *have: int) -> str:
        c = self.config
        return (
            f"{self.name} plays {c.players} players, {c.colors} colours, {c.ranks} ranks, "
            f"hand {c.hand_size}, tokens {c.max_information_tokens}/{c.max_life_tokens} "
            f"(HLE's {self.meta.get('preset')}); this game has {have[0]} players, {have[1]} "
            f"colours, {have[2]} ranks, hand {have[3]}, tokens {have[4]}/{have[5]}"
        )

    def check_game(self, config: HanabiConfig) -> None:
        """Refuse a game this agent was not trained for (before any move is asked).

        Raises:
            ValueError: ``config`` differs in players, colours, ranks, hand size or tokens.
        """
        have = (config.players, config.colors, config.ranks, config.hand_size,
                config.max_information_tokens, config.max_life_tokens)  # fmt: skip
        if have != self._game_key():
            raise ValueError(self._refusal(*have))


MAX_WEIGHT_BYTES = safe_npz.MAX_NPZ_BYTES
"""Cap on an agent's weights in bytes (64 MiB): the size its JSON implies, checked first."""


def weights_sha256(weights: Mapping[str, np.ndarray]) -> str:
    """The ``weights_sha256`` of an agent's JSON: of its arrays in name order.

    :func:`hanabi_env.safe_npz.arrays_sha256` of ``[weights[k] for k in sorted(weights)]``
    (each array's dtype, shape and bytes, as stored).
    """
    return safe_npz.arrays_sha256([np.asarray(weights[k]) for k in sorted(weights)])


def _expected_shapes(meta: Mapping) -> dict[str, tuple[int, ...]]:
    """The parameter shapes an agent's JSON implies (its game and network sizes)."""
    if meta.get("format") != FORMAT or meta.get("version") != 1:
        raise ValueError(f"not a BAD agent file (format {FORMAT!r}, version 1)")
    sizes = [meta.get("hidden"), meta.get("layers")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes):
        raise ValueError("hidden and layers must be ints >= 1")
    if meta.get("learner") not in ("bad", "baseline"):
        raise ValueError("learner must be bad or baseline")
    if not isinstance(meta.get("config"), dict):
        raise ValueError("config must be an object (a HanabiConfig's fields)")
    lay = Layout(HanabiConfig(**meta["config"]))
    shapes = param_shapes(lay.pub_dim, lay.priv_dim, meta["hidden"], meta["layers"],
                          lay.n_actions)  # fmt: skip
    n_bytes = 8 * sum(math.prod(shape) for shape in shapes.values())
    if n_bytes > MAX_WEIGHT_BYTES:
        raise ValueError(f"its sizes need {n_bytes} bytes of weights; at most {MAX_WEIGHT_BYTES}")
    return shapes


def _checked_shapes(meta: Mapping, path: Path, label: str) -> dict[str, tuple[int, ...]]:
    """:func:`_expected_shapes`, its errors one line naming ``path``."""
    try:
        return _expected_shapes(meta)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{label}: {path} is not a BAD agent ({err})") from None


def read_agent(path: str | Path, label: str = "bad") -> tuple[dict, dict[str, np.ndarray]]:
    """An agent's JSON and weights (``path`` and the ``.npz`` beside it), checked.

    The checks of :meth:`BADPolicy.load`, which builds the policy from what this returns.

    Args:
        path: The agent's ``.json``.
        label: What the errors start with.

    Returns:
        ``(meta, weights)``: the JSON document and parameter name → array.

    Raises:
        ValueError: A missing, damaged or mismatched file: one line naming it.
    """
    path = Path(path)
    meta = safe_npz.read_json(path, label=label)
    shapes = _checked_shapes(meta, path, label)
    want = meta.get("weights_sha256")
    if not isinstance(want, str) or not re.fullmatch(r"[0-9a-f]{64}", want):
        raise ValueError(
            f"{label}: {path} records no weights_sha256 (the SHA-256 of its weights, "
            "agents.bad.policy.weights_sha256); 'hanabi-adhoc bad export' adds it"
        )
    npz = path.with_suffix(".npz")
    weights = safe_npz.read_npz(npz, shapes, max_bytes=MAX_WEIGHT_BYTES, label=label)
    if weights_sha256(weights) != want:
        raise ValueError(f"{label}: {npz} does not hold the weights its JSON records (sha256)")
    return meta, weights


def shipped_agents() -> dict[str, dict]:
    """The agents shipped in ``agents/data/bad/``: name → their JSON document."""
    return {p.stem: safe_npz.read_json(p) for p in sorted(SHIPPED_DIR.glob("*.json"))}


def shipped_path(name: str) -> Path:
    """The JSON file of the shipped agent ``name``.

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: No such agent (the message lists them).
    """
    check_str("name", name)
    path = SHIPPED_DIR / f"{name}.json"
    if not path.is_file():
        raise ValueError(f"no shipped BAD agent {name!r}; allowed: {', '.join(shipped_agents())}")
    return path


def from_spec(arg: str, seed: int = 0, trust_model: bool = False) -> BADPolicy:
    """The (greedy) policy of a ``bad:ARG`` agent spec (the registry's loader).

    ``ARG`` is a shipped agent's name (:func:`shipped_agents`) or the path of an agent's
    ``.json`` file. Loading runs no code, so ``trust_model`` is not needed.

    Args:
        arg: The name or path.
        seed: Unused (the greedy agent is deterministic).
        trust_model: Unused.

    Raises:
        ValueError: No such agent, or not an agent file.
    """
    check_str("arg", arg)
    text = arg.strip()
    if text.endswith(".json") or "/" in text:
        if not Path(text).is_file():
            raise ValueError(f"bad:{text}: no such file")
        return BADPolicy.load(text, name=f"bad:{text}")
    try:
        path = shipped_path(text)
    except ValueError as err:
        raise ValueError(f"bad:{text}: {err}") from None
    return BADPolicy.load(path, name=f"bad:{text}")


def export_files(run: str | Path, name: str, dest: str | Path) -> Path:
    """Copy a trained run's agent (``agent.json``, ``agent.npz``) to ``dest/NAME.{json,npz}``.

    The agent is checked first (a file that does not load is not copied); the weights are
    copied byte for byte, and the JSON gets the weights' ``weights_sha256`` when the run's
    has none (a run trained before the field existed). ``dest`` may not be inside the
    installed package: the shipped agents (``bad:NAME``) are never replaced.

    Args:
        run: The run folder (:func:`agents.bad.train.train`'s ``out``).
        name: The agent's name: letters, digits, ``-`` and ``_``.
        dest: A folder of agents of yours (created if missing).

    Returns:
        The path of the written JSON file.

    Raises:
        TypeError: ``name`` or ``dest`` of another type.
        ValueError: A bad name, a ``dest`` inside the package, or files that are not an agent.
        FileNotFoundError: The run has no agent files.
    """
    check_str("name", name)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
        raise ValueError(f"name={name!r} is not allowed; allowed: letters, digits, - and _")
    if not isinstance(dest, (str, Path)):
        raise type_error("dest", "a folder path (str or Path)", dest)
    folder = Path(dest).expanduser().resolve()
    package = PACKAGE_ROOT
    if folder == package or package in folder.parents:
        raise ValueError(
            f"dest={str(dest)!r} is inside the installed package ({package}); allowed: a folder "
            "of yours (the shipped agents are never replaced)"
        )
    src = Path(run) / "agent.json"
    for path in (src, src.with_suffix(".npz")):
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: a finished run holds agent.json and "
                                    "agent.npz")  # fmt: skip
    meta = safe_npz.read_json(src)
    shapes = _checked_shapes(meta, src, "bad export")
    npz = src.with_suffix(".npz")
    weights = safe_npz.read_npz(npz, shapes, max_bytes=MAX_WEIGHT_BYTES)
    digest = weights_sha256(weights)
    if meta.setdefault("weights_sha256", digest) != digest:
        raise ValueError(f"{npz} does not hold the weights {src} records (sha256)")
    BADPolicy(weights, meta)  # refuses anything that is not an agent
    target = folder / f"{name}.json"
    folder.mkdir(parents=True, exist_ok=True)
    write_bytes(target.with_suffix(".npz"), npz.read_bytes())
    write_json(target, meta)
    return target
