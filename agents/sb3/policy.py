"""Saved SB3 models as policies: :class:`SB3Policy` and :func:`load_model`.

:class:`SB3Policy` — a saved model as a :class:`~agents.policy.Policy`: acts from the player view
with the legal mask, deterministic or sampled from its own generator. It pickles
without the model (the path only) and loads it once per process (:func:`load_model`), so it
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
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import Policy
from agents.sb3._threads import _check_torch_threads, _torch_threads
from agents.sb3.env import _ViewMask
from hanabi_env import _view as V
from hanabi_env.game import PlayerView

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
        ValueError: Not an SB3 model zip, or a model of another algorithm.
    """
    import json
    import zipfile

    p = _model_file(path)
    try:
        with zipfile.ZipFile(p) as z:
            data = json.loads(z.read("data"))
    except (zipfile.BadZipFile, KeyError, ValueError) as err:
        raise ValueError(f"{path} is not a saved SB3 model ({err})") from None
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


def _algorithm_class(algo: str):
    try:
        if algo == "MaskablePPO":
            from sb3_contrib import MaskablePPO

            return MaskablePPO
        import stable_baselines3

        return getattr(stable_baselines3, algo)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'SB3 policies need the rl extra: pip install ".[rl]" (torch, sb3-contrib)'
        ) from exc


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
        ValueError: Unknown ``algo``, or a file of another algorithm.
        FileNotFoundError: No such file.
        ImportError: The rl extra is not installed (``pip install ".[rl]"``).
    """
    algo = _check_algo(algo)
    p = _model_file(path)
    if algo == "auto":
        algo = detect_algorithm(p)
    st = p.stat()
    key = (str(p), algo, st.st_mtime_ns, st.st_size)
    model = _MODELS.get(key)
    if model is None:
        model = _algorithm_class(algo).load(str(p), device="cpu")
        _MODELS[key] = model
    return model


class SB3Policy(Policy):
    """A saved SB3 model as a policy (see the module docstring).

    The model sees the canonical observation vector of the seat (``view.encode``, in the
    model's observation dtype) and the legal-move mask computed from the view
    (:func:`legal_mask`), applied to its action distribution (module docstring,
    "Algorithms"). Deterministic policies take the most likely legal move; sampled ones
    draw from the masked action distribution with their own generator, re-seeded by
    :meth:`reset`, so results depend only on the seeds (never on torch's global generator).

    The policy pickles without the model: only the path travels to worker processes, and
    :func:`load_model` loads it once per process.

    Torch runs on ``torch_threads`` threads (default 1) in whichever process acts: the policy
    sets ``torch.set_num_threads(torch_threads)`` around each model load and forward pass and
    restores the previous value afterwards, so torch's setting is unchanged between moves.

    Args:
        path: The model's ``.zip`` (``model.save(path)``).
        deterministic: Argmax (True) or sample (False).
        seed: Seed of the sampling generator.
        name: Display name (default ``"sb3:<file stem>"``).
        observation_type: ``"card_knowledge"`` or ``"minimal"``; None infers it from the
            model's observation size and the game configuration.
        torch_threads: Torch threads while loading and acting (int >= 1), or None to leave
            torch's setting alone.
        algo: ``"auto"`` (read from the file) or one of :data:`ALGORITHMS`.

    Raises:
        FileNotFoundError: No model at ``path``.
        ValueError: Bad ``observation_type`` or ``algo``, or ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
    """

    def __init__(
        self,
        path: str | Path,
        deterministic: bool = True,
        seed: int = 0,
        name: str | None = None,
        observation_type: str | None = None,
        torch_threads: int | None = 1,
        algo: str = "auto",
    ):
        """See the class docstring."""
        threads = _check_torch_threads(torch_threads)
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
        self.observation_type = observation_type
        self.torch_threads = threads
        self.algo = algo
        self.rng = np.random.default_rng(self.seed)
        self._model = None
        self._mask = _ViewMask()

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
        state["_mask"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        state.setdefault("torch_threads", 1)  # pickled before the option existed
        state.setdefault("algo", "MaskablePPO")  # pickled before other algorithms were loaded
        self.__dict__.update(state)
        self._mask = _ViewMask()

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the sampling generator when ``seed`` is given (the policy has no memory)."""
        if seed is not None:
            self.rng = np.random.default_rng(int(seed))

    def _obs_type(self, view: PlayerView) -> str:
        size = int(self.model.observation_space.shape[0])
        names = (self.observation_type,) if self.observation_type else ("card_knowledge", "minimal")
        for name in names:
            if V.observation_size(view.raw.cfg, V.OBSERVATION_TYPES[name]) == size:
                return name
        raise ValueError(
            f"{self.name}: the model takes observations of size {size}, which matches no "
            f"observation type in {names} of this game ({view.n_players} players, hand size "
            f"{view.hand_size}); it was trained for another configuration"
        )

    def action_probabilities(self, view: PlayerView) -> np.ndarray:
        """The masked action distribution of the model at ``view``.

        Returns:
            ``(n_actions,)`` float64 probabilities, zero on illegal moves, summing to 1.

        Raises:
            ValueError: The view has no legal move (game over), or the observation size does
                not fit the model.
        """
        obs, mask = self._inputs(view)
        with _torch_threads(self.torch_threads):
            return self._probs(obs, mask)

    def _inputs(self, view: PlayerView) -> tuple[np.ndarray, np.ndarray]:
        obs = view.encode(self._obs_type(view)).astype(self.model.observation_space.dtype)
        mask = self._mask(view).astype(bool)
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal move (seat {view.seat})")
        return obs, mask

    def _probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        policy = self.model.policy
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(obs)
            if hasattr(policy, "q_net"):  # DQN: greedy on the legal Q-values
                q = policy.q_net(obs_t)[0].cpu().numpy().astype(np.float64)
                probs = np.zeros_like(q)
                probs[int(np.argmax(np.where(mask, q, -np.inf)))] = 1.0
                return probs
            if "action_masks" in inspect.signature(policy.get_distribution).parameters:
                dist = policy.get_distribution(obs_t, action_masks=mask[None, :])
            else:  # PPO, A2C: the mask applies at acting time only
                dist = policy.get_distribution(obs_t)
            logits = dist.distribution.logits[0].cpu().numpy().astype(np.float64)
        logits = np.where(mask, logits, -np.inf)
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def act(self, view: PlayerView) -> int:
        """A legal move uid for ``view``'s seat (must be on turn)."""
        obs, mask = self._inputs(view)
        with _torch_threads(self.torch_threads):
            probs = self._probs(obs, mask)
        if self.deterministic:
            action = int(np.argmax(probs))
        else:
            cdf = np.cumsum(probs)
            action = int(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right"))
            action = min(action, len(cdf) - 1)
        if not mask[action]:  # pragma: no cover - the mask forbids it
            raise RuntimeError(f"{self.name} chose the illegal move {action}")
        return action

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
        raise ValueError(
            f"sb3:{path} needs the rl extra (install CPU torch first, then pip install '.[rl]')"
        )
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
