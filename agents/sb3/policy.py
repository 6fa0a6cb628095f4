"""Saved SB3 models as policies: :class:`SB3Policy` and :func:`load_model`.

:class:`SB3Policy` — a saved model as a batch policy (:class:`~agents.batch.BatchPolicy`): acts
from the player view with the legal mask, deterministic or sampled from its own generator. It
pickles without the model (the path only) and loads it once per process (:func:`load_model`), so it
works in the AEC loop, :func:`agents.evaluate.play_games`/``evaluate`` (worker processes), the
GA's mixed fitness (:func:`qd.ga.population_fitness`), :func:`meta.table.build_table` and
:func:`meta.evaluate.evaluate_meta`. Torch runs on ``torch_threads`` threads (default 1; see
"Torch threads" in :mod:`agents.sb3`).

## Algorithms

:data:`ALGORITHMS`: sb3-contrib's ``MaskablePPO`` (trained with the legal mask, the project's
training helpers' algorithm) and Stable-Baselines3's ``PPO``, ``A2C`` and ``DQN``. These three
have no mask in training (SB3 samples from every action; on :class:`HanabiPartnerEnv` an illegal
move ends the episode with ``illegal_reward``, so they learn legality from that penalty, slowly),
but a mask applies at acting time all the same: the policy takes the model's action
distribution (PPO, A2C) or Q-values (DQN), removes the illegal moves and renormalises, so an
``SB3Policy`` never plays an illegal move whatever the algorithm. DQN's policy is greedy: its
probabilities are one-hot on the best legal move, and sampling gives that move. The algorithm is
read from the saved file's JSON metadata (``algo="auto"``; no code runs for that) or named.
Recurrent policies (``RecurrentPPO``) are not supported: the policy protocol passes no hidden
state between moves.

``torch``, ``stable_baselines3`` and ``sb3_contrib`` are imported only when a model is loaded or
run, so this module imports without them.

Source: sb3-contrib's ``MaskablePPO`` documentation
(https://sb3-contrib.readthedocs.io/en/master/modules/ppo_mask.html).
"""

from __future__ import annotations

import inspect
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from agents import hand_order as HO
from agents.batch import BatchPolicy, masked_choice, shows_age_order
from agents.sb3._threads import _check_torch_threads, _torch_threads
from agents.sb3.env import legal_mask
from agents.sb3.extra import RL_EXTRA_HINT
from hanabi_env import view as V
from hanabi_env.game import PlayerView
from hanabi_env.validate import check_choice

_MODELS: dict[tuple, Any] = {}

ALGORITHMS = ("MaskablePPO", "PPO", "A2C", "DQN")
"""The SB3 algorithms an :class:`SB3Policy` loads (module docstring, "Algorithms")."""


def _model_file(path: str | Path) -> Path:
    """The model's ``.zip`` (``.zip`` added if missing), resolved."""
    p = Path(path).expanduser().resolve()
    if not p.exists() and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise FileNotFoundError(f"no SB3 model at {path}")
    return p


def _check_algo(algo: object) -> str:
    if algo != "auto" and algo not in ALGORITHMS:
        raise ValueError(
            f"algo={algo!r} is not allowed; allowed: 'auto', " + ", ".join(map(repr, ALGORITHMS))
        )
    return str(algo)


def detect_algorithm(path: str | Path) -> str:
    """The algorithm of a saved SB3 model, read from its JSON metadata (no code runs).

    SB3 stores each model's attributes as JSON in the zip's ``data`` entry; the policy class's
    module and the algorithm's own hyper-parameters tell the four :data:`ALGORITHMS` apart.

    Raises:
        FileNotFoundError: No such file.
        ValueError: Not an SB3 model zip (damaged, truncated, members declaring more than
            :data:`MAX_MODEL_BYTES`), or a model of another algorithm: one line naming it.
    """
    import json

    p = _model_file(path)
    try:
        with zipfile.ZipFile(p) as z:
            _check_members(z, path)
            data = json.loads(z.read("data"))
        if not isinstance(data, dict):
            raise ValueError("its data entry is not a JSON object")
    except _ZIP_ERRORS as err:
        reason = f"{err}".splitlines()[0] if str(err) else type(err).__name__
        raise ValueError(f"{path} is not a saved SB3 model ({reason})") from None
    module = str(data.get("policy_class", {}).get("__module__", ""))
    if module.startswith("sb3_contrib.common.maskable"):
        return "MaskablePPO"
    if module.startswith("stable_baselines3.dqn"):
        return "DQN"
    if module == "stable_baselines3.common.policies":
        return "PPO" if "clip_range" in data else "A2C"
    raise ValueError(
        f"{path}: a model of policy module {module or '?'}; allowed: "
        + ", ".join(ALGORITHMS)
        + " (MlpPolicy)"
    )


MAX_MODEL_BYTES = 2**30
"""Cap on a model zip's members, in bytes: the sum of the sizes they declare uncompressed
(1 GiB), checked before SB3 reads the file."""

_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    KeyError,  # no ``data`` entry
    ValueError,  # not JSON
    EOFError,
    zlib.error,
    OSError,
    NotImplementedError,  # a compression method zipfile does not read
    RuntimeError,  # an encrypted entry
    RecursionError,
)


def _check_members(z: zipfile.ZipFile, path: str | Path) -> None:
    """Refuse a zip whose members declare more than :data:`MAX_MODEL_BYTES` uncompressed."""
    declared = sum(info.file_size for info in z.infolist())
    if declared > MAX_MODEL_BYTES:
        raise ValueError(
            f"its entries declare {declared} bytes uncompressed; the limit is {MAX_MODEL_BYTES}"
        )


def _algorithm_class(algo: str):
    try:
        if algo == "MaskablePPO":
            from sb3_contrib import MaskablePPO

            return MaskablePPO
        import stable_baselines3

        return getattr(stable_baselines3, algo)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"SB3 policies need the rl extra: {RL_EXTRA_HINT}") from exc


def load_model(path: str | Path, algo: str = "auto"):
    """Load a saved SB3 model on the CPU, once per process (cached by path and file version).

    A forked worker reuses a model its parent had loaded. Torch's thread count is not changed
    here: :class:`SB3Policy` sets it around each load and forward pass (``torch_threads``).

    Args:
        path: The ``.zip`` written by ``model.save``.
        algo: ``"auto"`` (default: :func:`detect_algorithm`) or one of :data:`ALGORITHMS`.

    Returns:
        The model (``sb3_contrib.MaskablePPO`` or ``stable_baselines3.PPO``/``A2C``/``DQN``).

    Raises:
        ValueError: Unknown ``algo``, a file of another algorithm, or a file that does not
            load (damaged, not a zip, members declaring more than :data:`MAX_MODEL_BYTES`):
            one line naming it.
        FileNotFoundError: No such file.
        ImportError: sb3-contrib is not installed (:data:`agents.sb3.extra.RL_EXTRA_HINT`).
    """
    algo = _check_algo(algo)
    p = _model_file(path)
    if algo == "auto":
        algo = detect_algorithm(p)
    st = p.stat()
    key = (str(p), algo, st.st_mtime_ns, st.st_size)
    model = _MODELS.get(key)
    if model is None:
        cls = _algorithm_class(algo)
        try:
            with zipfile.ZipFile(p) as z:
                _check_members(z, path)
            model = cls.load(str(p), device="cpu")
        except Exception as err:  # the file is the user's: any failure to read it is theirs
            reason = f"{type(err).__name__}: {err}".splitlines()[0]
            raise ValueError(f"{path} is not a loadable {algo} model ({reason})") from None
        _MODELS[key] = model
    return model


class SB3Policy(BatchPolicy):
    """A saved SB3 model as a batch policy (see the module docstring).

    The model sees the canonical observation vector of the seat and the legal-move mask,
    applied to its action distribution (module docstring, "Algorithms"). Deterministic
    policies take the most likely legal move (as ``model.predict(deterministic=True)``);
    sampled ones draw from the masked action distribution with the decision's uniform draw
    (:mod:`agents.batch`: the seat's seeded stream in batches, the policy's own stream
    re-seeded by :meth:`reset` in :meth:`act`), so results depend only on the seeds, never on
    torch's global generator. A DQN model's policy is greedy whatever ``deterministic`` says.

    As a :class:`~agents.batch.BatchPolicy` it acts for every game waiting for it in one
    forward pass (:meth:`act_batch`), which every consumer of :func:`agents.evaluate.play_games`
    uses; :meth:`act` decides one view at a time (PettingZoo loops, terminal play).

    The policy pickles without the model: only the path travels to worker processes, and
    :func:`load_model` loads it once per process.

    Torch runs on ``torch_threads`` threads (default 1) in whichever process acts: the policy
    sets ``torch.set_num_threads(torch_threads)`` around each model load and forward pass and
    restores the previous value afterwards, so torch's setting is unchanged between moves.

    Args:
        path: The model's ``.zip`` (``model.save(path)``).
        deterministic: Argmax (True) or sample (False).
        seed: Seed of the policy's own draw stream.
        name: Display name (default ``"sb3:<file stem>"``).
        observation_type: ``"card_knowledge"`` or ``"minimal"``; None infers it from the
            model's observation size and the game configuration.
        torch_threads: Torch threads while loading and acting (int >= 1), or None to leave
            torch's setting alone.
        algo: ``"auto"`` (read from the file) or one of :data:`ALGORITHMS`.
        observation_hand_order: ``"age"`` (default: a game with fixed hand slots is shown in
            age order, HLE's, as a model trained in this env reads hands, and its moves are
            mapped back; :mod:`agents.hand_order`) or ``"game"`` (the game's own slots, for a
            model trained with fixed slots).

    Raises:
        FileNotFoundError: No model at ``path``.
        ValueError: Bad ``observation_type``, ``algo`` or ``observation_hand_order``, or
            ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
    """

    observation_dtype = "float32"

    def __init__(
        self,
        path: str | Path,
        deterministic: bool = True,
        seed: int = 0,
        name: str | None = None,
        observation_type: str | None = None,
        torch_threads: int | None = 1,
        algo: str = "auto",
        observation_hand_order: str = "age",
    ):
        """See the class docstring."""
        threads = _check_torch_threads(torch_threads)
        self.observation_hand_order = check_choice(
            "observation_hand_order", observation_hand_order, HO.OBSERVATION_HAND_ORDERS
        )
        p = _model_file(path)
        algo = _check_algo(algo)
        if observation_type not in (None, "card_knowledge", "minimal"):
            raise ValueError(
                f"observation_type={observation_type!r} is not allowed; allowed: None, "
                "'card_knowledge', 'minimal'"
            )
        self.path = str(p)
        self.deterministic = bool(deterministic)
        self.seed = int(seed)
        self.name = name or f"sb3:{p.stem}"
        self.fixed_observation_type = observation_type
        self.torch_threads = threads
        self.algo = algo
        self._model = None
        self.reset(self.seed)

    @property
    def model(self):
        """The loaded model (loaded on first use, once per process; :func:`load_model`)."""
        if self._model is None:
            with _torch_threads(self.torch_threads):
                self._model = load_model(self.path, self.algo)
        return self._model

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_model"] = None  # workers reload from the path (cached per process)
        return state

    def __setstate__(self, state: dict) -> None:
        state.setdefault("torch_threads", 1)  # pickled before the option existed
        state.setdefault("algo", "MaskablePPO")  # pickled before other algorithms were loaded
        self.__dict__.update(state)

    def observation_type_for(self, cfg: np.ndarray) -> str:
        """The observation type whose size the model takes in games of ``cfg``.

        Raises:
            ValueError: No observation type of this game has the model's size.
        """
        size = int(self.model.observation_space.shape[0])
        fixed = self.fixed_observation_type
        names = (fixed,) if fixed else ("card_knowledge", "minimal")
        for name in names:
            if V.observation_size(cfg, V.OBSERVATION_TYPES[name]) == size:
                return name
        raise ValueError(
            f"{self.name}: the model takes observations of size {size}, which matches no "
            f"observation type in {names} of this game ({int(cfg[0])} players, hand size "
            f"{int(cfg[3])}); it was trained for another configuration"
        )

    def _obs_type(self, view: PlayerView) -> str:
        return self.observation_type_for(view.raw.cfg)

    def action_probabilities(self, view: PlayerView) -> np.ndarray:
        """The masked action distribution of the model at ``view``.

        Returns:
            ``(n_actions,)`` float64 probabilities of the game's move uids (in a fixed-slot
            game the model sees the view in age order, :mod:`agents.hand_order`), zero on
            illegal moves, summing to 1.

        Raises:
            ValueError: The view has no legal move (game over), or the observation size does
                not fit the model.
        """
        cfg = view.raw.cfg
        obs = view.encode(self._obs_type(view))[None, :].astype(np.float32)
        mask = legal_mask(view)[None, :]
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal move (seat {view.seat})")
        by_age = shows_age_order(self, cfg)
        if by_age:
            seats = np.array([view.seat], dtype=np.int64)
            obs, mask, order = HO.show_by_age(obs, mask, cfg, seats, HO.hands_of_view(view))
        logits = self.logits(obs, mask)[0]
        if self.greedy:  # DQN: all the probability on the best legal move
            probs = np.zeros(len(logits))
            probs[int(masked_choice(logits[None, :], mask, np.zeros(1), True)[0])] = 1.0
        else:
            probs = np.where(mask[0] != 0, np.exp(logits - logits[mask[0] != 0].max()), 0.0)
            probs /= probs.sum()
        if by_age:  # age-order move uids -> the game's
            moves = np.arange(len(probs))
            game_moves = HO.moves_to_game(
                moves, np.repeat(order, len(probs), axis=0), order.shape[1]
            )
            out = np.zeros_like(probs)
            out[game_moves] = probs
            probs = out
        return probs

    @property
    def greedy(self) -> bool:
        """True for a DQN model: its policy is the argmax of its Q-values (never sampled)."""
        return hasattr(self.model.policy, "q_net")

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B, n_actions)`` float64 scores of the model (one forward pass).

        ``MaskablePPO``: its masked logits; ``PPO``, ``A2C``: its logits; ``DQN``: its Q-values
        (illegal entries are ignored by :func:`agents.batch.masked_choice`).
        """
        import torch

        policy = self.model.policy
        with _torch_threads(self.torch_threads), torch.no_grad():
            obs_t = torch.as_tensor(obs, dtype=torch.float32)  # SB3 casts to float anyway
            if hasattr(policy, "q_net"):  # DQN: its Q-values
                return policy.q_net(obs_t).double().cpu().numpy()
            if "action_masks" in inspect.signature(policy.get_distribution).parameters:
                dist = policy.get_distribution(obs_t, action_masks=np.asarray(mask, dtype=bool))
            else:  # PPO, A2C: no mask in the network; masked_choice ignores illegal moves
                dist = policy.get_distribution(obs_t)
            return dist.distribution.logits.double().cpu().numpy()

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """The model's moves for ``B`` decisions in one forward pass (:mod:`agents.batch`)."""
        deterministic = self.deterministic or self.greedy
        return masked_choice(self.logits(obs, mask), mask, draws, deterministic)

    def __repr__(self) -> str:
        """Name, path and mode."""
        mode = "deterministic" if self.deterministic else "sampled"
        return f"SB3Policy({self.name!r}, path={self.path!r}, {mode})"


TRUST_MESSAGE = (
    "loading an SB3 model executes code stored in the file (Stable-Baselines3 unpickles it "
    "with cloudpickle); pass trust_model=True (CLI: --trust-model) only for model files you trust"
)


def from_spec(path: str, seed: int = 0, trust_model: bool = False) -> SB3Policy:
    """The ``sb3:PATH`` agent spec (:mod:`agents.registry`): a trusted, loadable model.

    The model is loaded here, so that a bad file fails before any game.

    Args:
        path: The model's ``.zip``.
        seed: Seed of the sampling generator.
        trust_model: Must be True: loading runs code stored in the file.

    Returns:
        A deterministic :class:`SB3Policy`.

    Raises:
        ValueError: Not trusted, no path, sb3-contrib missing, no such file, or a file that
            does not load as a model of :data:`ALGORITHMS` (each message names the spec).
    """
    import importlib.util

    if not trust_model:
        raise ValueError(f"sb3:{path}: {TRUST_MESSAGE}")
    if not path:
        raise ValueError("sb3: needs a model path, e.g. sb3:runs/sb3_partner.zip")
    if importlib.util.find_spec("sb3_contrib") is None:
        raise ValueError(f"sb3:{path} needs the rl extra: {RL_EXTRA_HINT}")
    try:
        policy = SB3Policy(path, seed=seed)
    except FileNotFoundError as err:
        raise ValueError(f"sb3:{path}: {err}") from None
    try:
        policy.model  # noqa: B018 - load now: a bad file fails before any game
    except Exception as err:  # the file is the user's: any failure to load is theirs
        raise ValueError(
            f"sb3:{path} is not a loadable SB3 model ({', '.join(ALGORITHMS)}): {err}"
        ) from None
    return policy
