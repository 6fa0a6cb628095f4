"""Behaviour cloning: a network that plays as a teacher played, from games or game records.

docs/cloning.md. Three steps, each usable alone:

1. **Demonstrations** (:class:`Demonstrations`): every decision of the seats to learn from, as
   the observation the env gives that seat (``observation_type``, HLE's canonical encoding,
   docs/anchors.md §2.2), its legal moves and the move made. :func:`play_demonstrations` plays
   games with any agents (a rule agent, a reference bot such as ``"smartbot"``, a population's
   elites, your own policy) and records the seats you name; :func:`record_demonstrations`
   replays hanab.live game records (``hanabi_env.records``: exported from hanab.live or written
   by the browser app) and records every seat's decisions. Observations are stored as packed
   bits (one byte per 8 entries): a million decisions take about 100 MB.
2. **Training** (:func:`train_clone`; needs torch, the ``rl`` extra): an MLP of the shipped RL
   partners' form, or with ``recurrent="gru"`` a GRU over each seat's decisions in a game
   (trained on whole games, padded and masked; docs/cloning.md §5), trained with the
   cross-entropy of the teacher's move over the legal moves (illegal moves masked), Adam; the
   decisions of held-out *games* (not decisions) give the accuracy reported after every epoch.
3. **Export** (:func:`export_clone`): the network as a partner in the no-code format of the
   shipped RL partners (NPZ weights + JSON config with its provenance, docs/rl_partners.md §5;
   kind ``"gru"`` for the recurrent one, docs/cloning.md §5), which
   ``agents.make("rl:PATH.json")`` loads and plays without torch.

Deterministic: the same arguments give the same demonstrations; training with the same seed on
the same machine and torch version gives the same network.

Source: behaviour cloning as the field builds human proxies and cloned partners (e.g. [BR20]
"Other-Play"'s and AH2AC2's human proxies cloned from hanab.live games); the network and its
file format are this project's RL partners' (docs/rl_partners.md).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import Policy
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.safe_npz import arrays_sha256
from hanabi_env.seeding import derive_seed
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_seed,
    settings_keywords,
    type_error,
)

__all__ = [
    "OBSERVATION_TYPES",
    "RECURRENT",
    "CloneResult",
    "CloneSettings",
    "Demonstrations",
    "export_clone",
    "play_demonstrations",
    "record_demonstrations",
    "sequences",
    "train_clone",
]

OBSERVATION_TYPES = ("card_knowledge", "minimal")
"""Observations a clone may learn from (the env's types a network reads; never ``seer``)."""

MAX_GAMES = 10_000_000
"""The most games :func:`play_demonstrations` plays in one call."""


@dataclass(frozen=True)
class Demonstrations:
    """Decisions to learn from: observations (packed bits), legal moves and the moves made.

    Attributes:
        observations: ``(N, ceil(obs_size / 8))`` uint8, each observation's 0/1 entries packed
            by ``numpy.packbits`` (:meth:`observation_batch` unpacks them).
        legal: ``(N, n_actions)`` bool, the legal moves (HLE move uids).
        actions: ``(N,)`` int16, the move made (a legal move uid).
        games: ``(N,)`` int32, the index of the decision's game (held-out splits are by game).
        seats: ``(N,)`` int8, the seat that decided.
        obs_size: Entries of one observation.
        config: The game played (:class:`~hanabi_env.HanabiConfig`).
        observation_type: ``"card_knowledge"`` or ``"minimal"``.
        source: Provenance (JSON-ready): who played, how many games, seeds or record files.
        scores: ``(G,)`` int16, each game's final score (the teacher's level, for reports).
    """

    observations: np.ndarray
    legal: np.ndarray
    actions: np.ndarray
    games: np.ndarray
    seats: np.ndarray
    obs_size: int
    config: HanabiConfig
    observation_type: str
    source: dict = field(default_factory=dict)
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))

    def __len__(self) -> int:
        """The number of decisions."""
        return int(self.actions.shape[0])

    @property
    def n_games(self) -> int:
        """The number of games the decisions come from."""
        return int(self.games.max()) + 1 if len(self) else 0

    def observation_batch(self, index: np.ndarray) -> np.ndarray:
        """The observations of decisions ``index``, unpacked: ``(len(index), obs_size)`` uint8."""
        return np.unpackbits(self.observations[index], axis=1, count=self.obs_size)

    def split(self, holdout: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Decision indices ``(train, held_out)``, whole games held out (a fraction ``holdout``).

        Raises:
            ValueError: ``holdout`` outside ``[0, 1)``.
        """
        if not isinstance(holdout, (int, float)) or not 0 <= holdout < 1:
            raise ValueError(f"holdout={holdout!r} is not allowed; allowed: a number in [0, 1)")
        n = self.n_games
        order = np.random.default_rng(check_seed("seed", seed)).permutation(n)
        held = np.zeros(n, dtype=bool)
        held[order[: round(holdout * n)]] = True
        mask = held[self.games]
        return np.flatnonzero(~mask), np.flatnonzero(mask)

    def concat(self, other: Demonstrations) -> Demonstrations:
        """These decisions followed by ``other``'s (same game and observation; games renumbered).

        Raises:
            ValueError: Another game or observation.
        """
        if (other.config, other.observation_type) != (self.config, self.observation_type):
            raise ValueError(
                "other is of another game or observation type; allowed: "
                f"{self.config} with {self.observation_type!r} observations"
            )
        return Demonstrations(
            np.concatenate([self.observations, other.observations]),
            np.concatenate([self.legal, other.legal]),
            np.concatenate([self.actions, other.actions]),
            np.concatenate([self.games, other.games + self.n_games]),
            np.concatenate([self.seats, other.seats]),
            self.obs_size,
            self.config,
            self.observation_type,
            {"parts": [self.source, other.source]},
            np.concatenate([self.scores, other.scores]),
        )


class _Recorder:
    """Collects decisions of one game after another, packed as they come."""

    def __init__(self, config: HanabiConfig, observation_type: str):
        self.config = config
        self.observation_type = observation_type
        self.obs: list[np.ndarray] = []
        self.legal: list[np.ndarray] = []
        self.actions: list[int] = []
        self.games: list[int] = []
        self.seats: list[int] = []
        self.scores: list[int] = []
        self.obs_size = 0

    def decision(self, game: HanabiGame, action: int) -> None:
        seat = game.current_player
        obs = game.observation(seat, self.observation_type)
        self.obs_size = obs.shape[0]
        self.obs.append(np.packbits(obs.astype(np.uint8)))
        self.legal.append(game.legal_mask().astype(bool))
        self.actions.append(int(action))
        self.games.append(len(self.scores))
        self.seats.append(seat)

    def end_game(self, score: int) -> None:
        self.scores.append(int(score))

    def result(self, source: dict) -> Demonstrations:
        n_bytes = (self.obs_size + 7) // 8
        n_actions = HanabiGame(self.config).n_actions
        return Demonstrations(
            np.array(self.obs, dtype=np.uint8).reshape(-1, n_bytes),
            np.array(self.legal, dtype=bool).reshape(-1, n_actions),
            np.array(self.actions, dtype=np.int16),
            np.array(self.games, dtype=np.int32),
            np.array(self.seats, dtype=np.int8),
            self.obs_size,
            self.config,
            self.observation_type,
            source,
            np.array(self.scores, dtype=np.int16),
        )


class _Recording(Policy):
    """A seat's policy whose every decision is recorded with the observation it was made on."""

    def __init__(self, inner: Policy, game: HanabiGame, rec: _Recorder):
        self.inner, self.game, self.rec = inner, game, rec
        self.name = getattr(inner, "name", type(inner).__name__)

    def act(self, view: Any) -> int:
        action = self.inner.act(view)
        legal = self.game.legal_mask()
        if isinstance(action, (int, np.integer)) and 0 <= action < len(legal) and legal[action]:
            self.rec.decision(self.game, int(action))  # a fault is raised by play_out
        return action


def _policies(seats: str | Policy | Sequence[str | Policy], players: int) -> list[Policy]:
    from agents.registry import make

    if isinstance(seats, (str, Policy)):
        seats = [seats] * players
    if isinstance(seats, (bytes, Mapping)) or not isinstance(seats, Sequence):
        raise type_error("seats", "an agent (spec or Policy) or one per seat", seats)
    if len(seats) != players:
        raise ValueError(
            f"seats has {len(seats)} agents; allowed: one, or one per seat ({players})"
        )
    built: dict[int, Policy] = {}
    out = []
    for s in seats:
        if isinstance(s, str):
            out.append(make(s))
        elif isinstance(s, Policy):
            out.append(built.setdefault(id(s), s))
        else:
            raise type_error("seats", "agent specs (str) or Policy objects", s)
    return out


def play_demonstrations(
    seats: str | Policy | Sequence[str | Policy],
    games: int,
    *,
    config: HanabiConfig | None = None,
    seed: int = 0,
    record_seats: Sequence[int] | None = None,
    observation_type: str = "card_knowledge",
    progress: bool = False,
) -> Demonstrations:
    """Play ``games`` games and record the decisions of ``record_seats``.

    Args:
        seats: One agent for every seat (self-play of a teacher, e.g. ``"smartbot"``), or one
            per seat (a teacher with partners): agent specs (:func:`agents.make`) or
            :class:`~agents.policy.Policy` objects (one object may sit in several seats).
        games: Games to play, in ``[1, MAX_GAMES]``.
        config: The game (default: 2 players, lenient scoring, the rulebook's hand size).
        seed: Game ``g`` is dealt with ``derive_seed(seed, g)`` and every policy is reset with
            it; the start player is seat 0.
        record_seats: The seats whose decisions are recorded (default: every seat).
        observation_type: ``"card_knowledge"`` (HLE's canonical) or ``"minimal"``.
        progress: Show a tqdm progress bar.

    Returns:
        The decisions, in game order.

    Raises:
        TypeError, ValueError: A bad argument (named), an agent that does not load, or one that
            cannot play ``config`` (its own error).
        agents.faults.AgentFault: An agent raised or chose an illegal move.
    """
    config = HanabiConfig(players=2, scoring="lenient") if config is None else config
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a HanabiConfig or None", config)
    games = check_int("games", games, 1, MAX_GAMES)
    seed = check_seed("seed", seed)
    check_choice("observation_type", observation_type, OBSERVATION_TYPES)
    progress = check_bool("progress", progress)
    policies = _policies(seats, config.players)
    recorded = set(range(config.players)) if record_seats is None else set()
    for s in record_seats or ():
        recorded.add(check_int("record_seats[]", s, 0, config.players - 1))
    for p in policies:
        check = getattr(p, "check_game", None)
        if callable(check):
            check(config)
    from agents.faults import agent_label
    from agents.policy import play_out

    rec = _Recorder(config, observation_type)
    game = HanabiGame(config)
    names = [agent_label(p) for p in policies]
    seated = [_Recording(p, game, rec) if i in recorded else p for i, p in enumerate(policies)]
    bar = _bar(progress, games, "demonstrations")
    for g in range(games):
        deal = derive_seed(seed, g)
        game.reset(deal, start_player=0)
        for p in {id(p): p for p in policies}.values():
            p.reset(deal)
        play_out(game, seated, game_index=g, agents=names)
        rec.end_game(game.score)
        bar(1)
    bar(0, close=True)
    source = {"kind": "games", "seats": names, "games": games, "seed": seed,
              "record_seats": sorted(recorded)}  # fmt: skip
    return rec.result(source)


def record_demonstrations(
    records: Iterable[Mapping | str | Path],
    *,
    observation_type: str = "card_knowledge",
    scoring: str = "lenient",
    players: int | None = None,
) -> Demonstrations:
    """The decisions of every seat in hanab.live game records (``hanabi_env.records``).

    Args:
        records: Records (JSON objects, as :func:`hanabi_env.records.from_hanablive` reads),
            or paths of JSON files each holding one record or a list of records (hanab.live's
            export, the browser app's ``*.hanablive.json``).
        observation_type: ``"card_knowledge"`` or ``"minimal"``.
        scoring: The engine's scoring of the replayed games (``"lenient"`` or ``"strict"``).
        players: Keep only games of this many players (default: the first record's).

    Returns:
        The decisions, one game per record kept (records of other sizes or hand sizes are
        skipped; ``source["skipped"]`` counts them).

    Raises:
        TypeError, ValueError: A record that is not valid (the message names its file and
            index and why, as ``from_hanablive`` says), or no record kept.
        OSError: A file cannot be read.
    """
    from hanabi_env.records import from_hanablive

    check_choice("observation_type", observation_type, OBSERVATION_TYPES)
    rec: _Recorder | None = None
    files: list[str] = []
    skipped = 0
    for where, record in _iter_records(records, files):
        n = len(record.get("players") or ()) if isinstance(record, Mapping) else 0
        if players is None and n:
            players = n
        if n != players:
            skipped += 1
            continue
        moves: list[tuple[np.ndarray, np.ndarray, int, int]] = []
        observe = _collector(moves, observation_type)
        try:
            game = from_hanablive(record, scoring=scoring, on_move=observe)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{where}: {err}") from None
        if rec is None:
            rec = _Recorder(game.config, observation_type)
        elif game.config != rec.config:
            skipped += 1
            continue
        for obs, legal, action, seat in moves:
            rec.obs_size = obs.shape[0]
            rec.obs.append(np.packbits(obs.astype(np.uint8)))
            rec.legal.append(legal)
            rec.actions.append(action)
            rec.games.append(len(rec.scores))
            rec.seats.append(seat)
        rec.end_game(game.score)
    if rec is None or not rec.scores:
        raise ValueError(f"records: no game of {players} players to learn from")
    source = {"kind": "hanab.live records", "files": files, "games": len(rec.scores),
              "skipped": skipped, "scoring": scoring}  # fmt: skip
    return rec.result(source)


def _collector(moves: list, observation_type: str) -> Callable[[HanabiGame, int], None]:
    def observe(game: HanabiGame, action: int) -> None:
        seat = game.current_player
        obs = game.observation(seat, observation_type)
        moves.append((obs, game.legal_mask().astype(bool), int(action), seat))

    return observe


def _iter_records(records: Iterable, files: list[str]):
    if isinstance(records, (str, Path, Mapping)):
        records = [records]
    for i, item in enumerate(records):
        if isinstance(item, Mapping):
            yield f"records[{i}]", item
            continue
        if not isinstance(item, (str, Path)):
            raise type_error("records[]", "a record (dict) or a JSON file path", item)
        path = Path(item)
        files.append(str(path))
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} is not JSON ({err})") from None
        docs = doc if isinstance(doc, list) else [doc]
        for j, record in enumerate(docs):
            if not isinstance(record, Mapping):
                raise ValueError(f"{path}[{j}] is not a hanab.live record (a JSON object)")
            yield f"{path}[{j}]", record


def _bar(show: bool, total: int, desc: str, unit: str = "game") -> Callable[..., None]:
    if not show:
        return lambda n, close=False: None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, leave=False)

    def step(n: int, close: bool = False) -> None:
        if n:
            bar.update(n)
        if close:
            bar.close()

    return step


# --------------------------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CloneResult:
    """A trained clone: its weights and how well it predicts the teacher.

    Attributes:
        arrays: float32 arrays. An MLP (``kind`` ``"mlp"``): ``[w0, b0, w1, b1, ...]``
            (``w_i`` ``(out, in)``), the RL partners' form (docs/rl_partners.md §5). A GRU
            (``kind`` ``"gru"``): the encoder's ``w_i, b_i``, torch's ``weight_ih_l0``,
            ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, then the output layer's
            (:func:`agents.rl.recurrent.array_names`; docs/cloning.md §5).
        activation: ``"relu"`` or ``"tanh"``.
        history: One dict per epoch: ``epoch``, ``loss`` (mean training cross-entropy),
            ``train_accuracy``, ``holdout_accuracy`` (the share of held-out decisions where the
            clone's masked argmax is the teacher's move; NaN without held-out games),
            ``seconds``.
        settings: The training settings (JSON-ready).
        kind: ``"mlp"`` or ``"gru"`` (the network's architecture).
    """

    arrays: list[np.ndarray]
    activation: str
    history: list[dict]
    settings: dict
    kind: str = "mlp"


RECURRENT = ("gru",)
"""Recurrent networks :func:`train_clone` trains (``recurrent=``)."""


@dataclass(frozen=True)
class CloneSettings:
    """How :func:`train_clone` trains (docs/cloning.md §1), every field checked when made.

    Attributes:
        hidden: Hidden layer widths, each in ``[1, 4096]`` (stored as a tuple); with
            ``recurrent`` the last one is the GRU's size and the others an MLP encoder.
        activation: ``"relu"`` or ``"tanh"`` (the MLP layers').
        epochs: Passes over the training decisions, ``[1, 1000]``.
        batch_size: Decisions per gradient step, ``[1, 2**20]`` (with ``recurrent``: whole
            sequences of about that many decisions in all, at least one).
        learning_rate: Adam's step size, a finite number > 0 (stored as a float).
        holdout: The share of games held out to measure accuracy, ``[0, 1)`` (a float).
        seed: Seeds the split, the initial weights and the batch order, in ``[0, 2**62)``.
        recurrent: None (an MLP on each observation) or ``"gru"`` (docs/cloning.md §5).

    Raises:
        TypeError: A field of the wrong type (named).
        ValueError: A field out of range (named, with what is allowed).
    """

    hidden: Sequence[int] = (512, 512)
    activation: str = "relu"
    epochs: int = 12
    batch_size: int = 128
    learning_rate: float = 1e-3
    holdout: float = 0.1
    seed: int = 0
    recurrent: str | None = None

    def __post_init__(self) -> None:
        """Check every field and store it in its plain type."""
        hidden = self.hidden
        if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence) or not hidden:
            raise type_error("hidden", "a non-empty sequence of layer widths", hidden)
        checked = {
            "hidden": tuple(check_int("hidden[]", h, 1, 4096) for h in hidden),
            "activation": check_choice("activation", self.activation, ("relu", "tanh")),
            "epochs": check_int("epochs", self.epochs, 1, 1000),
            "batch_size": check_int("batch_size", self.batch_size, 1, 2**20),
            "learning_rate": check_float("learning_rate", self.learning_rate, 0, lo_open=True),
            "holdout": check_float("holdout", self.holdout, 0, 1, hi_open=True),
            "seed": check_seed("seed", self.seed),
        }
        if self.recurrent is not None:
            check_choice("recurrent", self.recurrent, RECURRENT)
        for name, value in checked.items():
            object.__setattr__(self, name, value)


def train_clone(
    demos: Demonstrations,
    *,
    hidden: Sequence[int] = (512, 512),
    activation: str = "relu",
    epochs: int = 12,
    batch_size: int = 128,
    learning_rate: float = 1e-3,
    holdout: float = 0.1,
    seed: int = 0,
    threads: int | None = None,
    progress: bool = False,
    on_epoch: Callable[[dict], None] | None = None,
    recurrent: str | None = None,
    init: Sequence[np.ndarray] | None = None,
    settings: CloneSettings | None = None,
) -> CloneResult:
    """Train a network to choose the teacher's moves (masked cross-entropy, Adam).

    Args:
        demos: The decisions (:func:`play_demonstrations`, :func:`record_demonstrations`).
        hidden: :attr:`CloneSettings.hidden`, the hidden layer widths.
        activation: :attr:`CloneSettings.activation`.
        epochs: :attr:`CloneSettings.epochs`.
        batch_size: :attr:`CloneSettings.batch_size`.
        learning_rate: :attr:`CloneSettings.learning_rate`.
        holdout: :attr:`CloneSettings.holdout`, the share of games held out.
        seed: :attr:`CloneSettings.seed`.
        threads: torch's CPU threads (default: torch's).
        progress: A tqdm bar per epoch.
        on_epoch: Called with each epoch's history entry (e.g. to print it).
        recurrent: :attr:`CloneSettings.recurrent`, None (an MLP) or ``"gru"``.
        init: Start from these weights (an MLP only; to train a clone further): ``[w0, b0,
            w1, b1, ...]``, ``w_i`` of shape ``(out, in)`` as a partner stores them
            (:func:`agents.rl.partners.partner_weights`); their SHA-256 goes into the settings.
        settings: The settings above in one :class:`CloneSettings`; then leave their keywords
            at the defaults (both ways train the same network).

    Returns:
        The :class:`CloneResult`.

    Raises:
        ImportError: torch is not installed (``pip install "hanabi-adhoc[rl]"``).
        TypeError, ValueError: A bad argument (named), ``settings`` with a setting keyword,
            or no training decisions.
    """
    try:
        import torch
    except ImportError:  # pragma: no cover - the rl extra
        raise ImportError('train_clone needs torch: pip install "hanabi-adhoc[rl]"') from None
    given = settings_keywords("settings", CloneSettings, settings, locals())
    cs = CloneSettings(**given) if settings is None else settings
    if not isinstance(demos, Demonstrations):
        raise type_error("demos", "Demonstrations", demos)
    keys = ("activation", "epochs", "batch_size", "learning_rate", "seed")
    s: dict[str, Any] = {"hidden": list(cs.hidden), **{k: getattr(cs, k) for k in keys}}
    recurrent, holdout = cs.recurrent, cs.holdout
    train, held = demos.split(holdout, s["seed"])
    if not len(train):
        raise ValueError("demos: no training decisions (more games, or a smaller holdout)")
    if threads is not None:
        torch.set_num_threads(check_int("threads", threads, 1, 1024))
    torch.manual_seed(s["seed"])
    task = _task(torch, demos, s, (train, held), recurrent, init)
    opt = torch.optim.Adam(task.net.parameters(), lr=s["learning_rate"])
    rng = np.random.default_rng(derive_seed(s["seed"], 1))
    history: list[dict] = []
    for epoch in range(1, s["epochs"] + 1):
        t0 = time.perf_counter()
        loss, right, n = task.epoch(opt, rng, _bar(progress, task.steps, f"epoch {epoch}", "batch"))
        entry = {"epoch": epoch, "loss": loss / n, "train_accuracy": right / n,
                 "holdout_accuracy": task.accuracy(),
                 "seconds": time.perf_counter() - t0}  # fmt: skip
        history.append(entry)
        if on_epoch is not None:
            on_epoch(entry)
    record = {**s, "holdout": holdout, "recurrent": recurrent, "decisions": len(demos),
                "train_decisions": len(train), "holdout_decisions": len(held),
                "torch": torch.__version__}  # fmt: skip
    return CloneResult(task.arrays(), cs.activation, history, record, recurrent or "mlp")


def _task(torch: Any, demos: Demonstrations, s: dict, split: tuple, recurrent, init) -> Any:
    """The MLP or GRU task of :func:`train_clone`, started from ``init`` (its digest into ``s``)."""
    if init is not None and recurrent is not None:
        raise ValueError("init: starting weights are for an MLP clone, not a recurrent one")
    task = (_GruTask if recurrent else _MlpTask)(torch, demos, s, *split)
    if init is not None:
        s["init_sha256"] = task.load(init)
    return task


def _mlp(torch: Any, sizes: Sequence[int], activation: str) -> Any:
    """``Linear`` layers of ``sizes`` with ``activation`` between them (none after the last)."""
    act = torch.nn.ReLU if activation == "relu" else torch.nn.Tanh
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(act())
    return torch.nn.Sequential(*layers)


def _linear_arrays(torch: Any, modules: Iterable[Any]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            out += [module.weight.detach().numpy().astype(np.float32),
                    module.bias.detach().numpy().astype(np.float32)]  # fmt: skip
    return out


class _MlpTask:
    """An MLP on single decisions: its batches, epoch, accuracy and arrays."""

    def __init__(self, torch: Any, demos: Demonstrations, s: dict, train, held):
        self.torch, self.demos, self.train, self.held = torch, demos, train, held
        self.batch = s["batch_size"]
        sizes = [demos.obs_size, *s["hidden"], demos.legal.shape[1]]
        self.net = _mlp(torch, sizes, s["activation"])
        self.steps = math.ceil(len(train) / self.batch)

    def load(self, init: Sequence[np.ndarray]) -> str:
        """Copy ``init`` (``[w0, b0, ...]``, ``w_i`` ``(out, in)``) into the layers; its digest."""
        linears = [m for m in self.net if isinstance(m, self.torch.nn.Linear)]
        if isinstance(init, (str, bytes)) or not isinstance(init, Sequence):
            raise type_error("init", "a sequence of weight arrays", init)
        digest = arrays_sha256([np.asarray(a) for a in init])
        arrays = [np.asarray(a, dtype=np.float32) for a in init]
        want = [tuple(t.shape) for m in linears for t in (m.weight, m.bias)]
        got = [a.shape for a in arrays]
        if got != want:
            raise ValueError(
                f"init: shapes {got} do not fit the network's {want} (the same "
                "hidden widths, observation type and game size are needed)"
            )
        with self.torch.no_grad():
            for m, w, b in zip(linears, arrays[::2], arrays[1::2], strict=True):
                m.weight.copy_(self.torch.as_tensor(w))
                m.bias.copy_(self.torch.as_tensor(b))
        return digest

    def logits(self, idx: np.ndarray) -> Any:
        torch, demos = self.torch, self.demos
        x = torch.as_tensor(demos.observation_batch(idx), dtype=torch.float32)
        return self.net(x).masked_fill(~torch.as_tensor(demos.legal[idx]), -1e9)

    def epoch(self, opt: Any, rng: np.random.Generator, bar) -> tuple[float, int, int]:
        order = self.train[rng.permutation(len(self.train))]
        loss_sum, right = 0.0, 0
        self.net.train()
        for start in range(0, len(order), self.batch):
            idx = order[start : start + self.batch]
            loss, hits = _step(self.torch, opt, self.logits(idx), self.demos.actions[idx])
            loss_sum, right = loss_sum + loss, right + hits
            bar(1)
        bar(0, close=True)
        return loss_sum, right, len(order)

    def accuracy(self) -> float:
        if not len(self.held):
            return float("nan")
        self.net.eval()
        right = 0
        with self.torch.no_grad():
            for start in range(0, len(self.held), 8192):
                part = self.held[start : start + 8192]
                pred = self.logits(part).argmax(1).numpy()
                right += int((pred == self.demos.actions[part]).sum())
        return right / len(self.held)

    def arrays(self) -> list[np.ndarray]:
        return _linear_arrays(self.torch, self.net)


def _step(torch: Any, opt: Any, logits: Any, actions: np.ndarray) -> tuple[float, int]:
    """One Adam step on the mean cross-entropy; ``(summed loss, right moves)``."""
    target = torch.as_tensor(actions.astype(np.int64))
    loss = torch.nn.functional.cross_entropy(logits, target, reduction="sum")
    opt.zero_grad()
    (loss / len(target)).backward()
    opt.step()
    return loss.item(), int((logits.argmax(1) == target).sum())


def sequences(demos: Demonstrations, index: np.ndarray) -> list[np.ndarray]:
    """The decisions ``index`` grouped by game and seat, each group in the order played.

    Args:
        demos: The decisions.
        index: Decision indices (whole games, as :meth:`Demonstrations.split` gives them).

    Returns:
        One int64 array of decision indices per (game, seat), by game then seat.
    """
    index = np.sort(np.asarray(index, dtype=np.int64))
    if not len(index):
        return []
    key = demos.games[index].astype(np.int64) * 256 + demos.seats[index]
    order = np.argsort(key, kind="stable")
    cuts = np.flatnonzero(np.diff(key[order])) + 1
    return np.split(index[order], cuts)


class _GruTask(_MlpTask):
    """A GRU over each seat's decisions in a game: whole sequences, padded and masked."""

    def __init__(self, torch: Any, demos: Demonstrations, s: dict, train, held):
        self.torch, self.demos = torch, demos
        self.train, self.held = sequences(demos, train), sequences(demos, held)
        mean_len = len(train) / max(1, len(self.train))
        self.per_step = max(1, round(s["batch_size"] / mean_len))
        self.steps = math.ceil(len(self.train) / self.per_step)
        *enc, units = s["hidden"]
        self.net = _gru_net(torch, [demos.obs_size, *enc], units, demos.legal.shape[1],
                            s["activation"])  # fmt: skip

    def padded(self, seqs: Sequence[np.ndarray]) -> tuple[Any, np.ndarray]:
        """Masked logits ``(n_valid, A)`` of sequences ``seqs`` and their decision indices."""
        torch, demos = self.torch, self.demos
        length = max(len(q) for q in seqs)
        idx = np.full((len(seqs), length), -1, dtype=np.int64)
        for i, q in enumerate(seqs):
            idx[i, : len(q)] = q
        valid = idx >= 0
        flat = idx[valid]
        x = np.zeros((*idx.shape, demos.obs_size), dtype=np.float32)
        x[valid] = demos.observation_batch(flat)
        out = self.net(torch.as_tensor(x))[torch.as_tensor(valid)]
        return out.masked_fill(~torch.as_tensor(demos.legal[flat]), -1e9), flat

    def epoch(self, opt: Any, rng: np.random.Generator, bar) -> tuple[float, int, int]:
        order = rng.permutation(len(self.train))
        loss_sum, right, n = 0.0, 0, 0
        self.net.train()
        for start in range(0, len(order), self.per_step):
            part = order[start : start + self.per_step]
            logits, flat = self.padded([self.train[i] for i in part])
            loss, hits = _step(self.torch, opt, logits, self.demos.actions[flat])
            loss_sum, right, n = loss_sum + loss, right + hits, n + len(flat)
            bar(1)
        bar(0, close=True)
        return loss_sum, right, n

    def accuracy(self) -> float:
        if not self.held:
            return float("nan")
        self.net.eval()
        right = n = 0
        with self.torch.no_grad():
            for start in range(0, len(self.held), 256):
                logits, flat = self.padded(self.held[start : start + 256])
                right += int((logits.argmax(1).numpy() == self.demos.actions[flat]).sum())
                n += len(flat)
        return right / n

    def arrays(self) -> list[np.ndarray]:
        net = self.net
        gru = [getattr(net.gru, f"{k}_l0").detach().numpy().astype(np.float32)
               for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]  # fmt: skip
        return [*_linear_arrays(self.torch, net.encoder), *gru,
                *_linear_arrays(self.torch, [net.head])]  # fmt: skip


def _gru_net(torch: Any, encoder: Sequence[int], units: int, n_actions: int, act: str) -> Any:
    """The recurrent clone: ``encoder`` MLP (activated), a GRU of ``units``, a linear head.

    Its forward maps ``(S, T, obs)`` to ``(S, T, n_actions)`` logits (zero initial state):
    the network :class:`agents.rl.partners.RecurrentPartner` plays (:mod:`agents.rl.recurrent`).
    """
    nn = torch.nn
    module: Any = nn.Module

    class GruClone(module):
        def __init__(self) -> None:
            super().__init__()
            layers = _mlp(torch, encoder, act)
            if len(encoder) > 1:
                layers.append(nn.ReLU() if act == "relu" else nn.Tanh())
            self.encoder = layers
            self.gru = nn.GRU(encoder[-1], units, batch_first=True)
            self.head = nn.Linear(units, n_actions)

        def forward(self, x: Any) -> Any:
            return self.head(self.gru(self.encoder(x))[0])

    return GruClone()


def export_clone(
    result: CloneResult,
    demos: Demonstrations,
    path: str | Path,
    *,
    name: str,
    description: str = "",
    weight_dtype: str = "float16",
    extra: dict | None = None,
):
    """Write a clone as a partner: ``path`` (``NAME.json``) and ``NAME.npz`` beside it.

    The format of the shipped RL partners (docs/rl_partners.md §5): ``agents.make(
    "rl:PATH.json")`` loads it without torch; its ``training`` entry records the teacher
    (``demos.source``), the training settings and the accuracy per epoch. A GRU
    (``result.kind == "gru"``) is written with ``architecture.kind`` ``"gru"`` and the arrays
    of :func:`agents.rl.recurrent.array_names` (docs/cloning.md §5).

    Returns:
        The partner (:class:`agents.rl.RLPartner`; a :class:`agents.rl.partners
        .RecurrentPartner` for a GRU), loaded back from the files (and so checked as any
        partner file is).

    Raises:
        ValueError: A bad argument (named), or files that do not load back.
    """
    from agents.rl.export import export_network

    teacher_score = float(np.mean(demos.scores)) if len(demos.scores) else float("nan")
    training = {
        "algorithm": "behaviour cloning (agents.clone): masked cross-entropy, Adam",
        "teacher": demos.source,
        "teacher_mean_score": teacher_score,
        "settings": result.settings,
        "history": [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in e.items()}
            for e in result.history
        ],  # strict JSON: no held-out games -> null
    }
    if result.kind == "gru":
        return _export_recurrent(
            result, demos, Path(path), name=name, description=description,
            weight_dtype=weight_dtype, extra={"training": training, **(extra or {})},
        )  # fmt: skip
    return export_network(
        result.arrays,
        result.activation,
        path,
        name=name,
        game=demos.config,
        description=description,
        observation_type=demos.observation_type,
        weight_dtype=weight_dtype,
        extra={"training": training, **(extra or {})},
    )


def _export_recurrent(
    result: CloneResult,
    demos: Demonstrations,
    path: Path,
    *,
    name: str,
    description: str,
    weight_dtype: str,
    extra: dict,
):
    """:func:`export_clone` for a GRU: the ``"gru"`` partner format (docs/cloning.md §5)."""
    import io

    from agents.rl import partners as P
    from agents.rl.recurrent import array_names
    from hanabi_env.outputs import atomic_write_bytes
    from hanabi_env.validate import check_str

    check_str("name", name)
    check_choice("weight_dtype", weight_dtype, ("float16", "float32"))
    if path.suffix != ".json":
        raise ValueError(f"path={str(path)!r} is not allowed; allowed: a .json file")
    arrays = [np.asarray(a).astype(weight_dtype) for a in result.arrays]
    sizes = [demos.obs_size, *result.settings["hidden"], int(demos.legal.shape[1])]
    names = array_names(sizes)
    config = {
        **P.FORMAT,
        "name": name,
        "description": description,
        "architecture": {
            "kind": "gru",
            "layers": sizes,
            "activation": result.activation,
            "recurrent": "a GRU of layers[-2] units after an MLP encoder of layers[1:-2]; one "
            "step per decision of the seat, the hidden state zero at each game's start",
            "output": "logits over the HLE move uids; illegal moves masked, then argmax",
        },
        "observation": {"type": demos.observation_type, "dtype": "float32", "size": sizes[0]},
        "game": P.game_entry(demos.config),
        "weights": {
            "file": path.with_suffix(".npz").name,
            "dtype": weight_dtype,
            "arrays": names,
            "sha256": P.weights_digest(arrays),
        },
        **extra,
    }
    probe = P.make_partner(arrays, config)
    config["check"] = P.self_play_record(probe, config=demos.config)
    buf = io.BytesIO()
    np.savez_compressed(buf, **dict(zip(names, arrays, strict=True)))  # type: ignore[arg-type]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path.with_suffix(".npz"), buf.getvalue())
    atomic_write_bytes(path, (json.dumps(config, indent=1) + "\n").encode())
    return P.load_partner(str(path))
