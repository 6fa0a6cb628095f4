"""BAD, BAD with counterfactual gradients, and the policy gradient on [BAD19]'s matrix game (torch).

The three learners of [BAD19] Section 4.1 / Figure 3, as its proof-of-principle code set them
up (docs/bad.md §1):

* **Player 1** has a table of logits ``(card, action)``. On every game the public agent samples
  a *deterministic partial policy* — an action for each card player 1 might hold, each drawn
  from the table's softmax — and player 1 plays the entry of its real card.
* **Public belief** over player 1's card after its action ``u1``: uniform over the cards whose
  entry in the sampled partial policy is ``u1`` (the exact Bayesian update, Equation 2).
* **Player 2** is a one-hidden-layer MLP. Its input is ``u1`` and its own card, plus the
  public belief for BAD; the policy gradient baseline ("PG") gets no belief.
* **Gradients**: REINFORCE with a learned value baseline per player (a centralised MLP that
  sees both cards). Player 1's log-probability is that of the action it took (``"bad"``,
  ``"pg"``) or, with counterfactual gradients (``"bad_cf"``), that of the whole sampled partial
  policy (the sum over cards).

Many independent runs train at once as one batch of parameters (runs never interact: the
optimiser is Adam, element-wise). Each run's initial weights and random draws depend only on
``(seed, run index)``, so a run's curve does not depend on how many runs are trained with it.
The curves record, at each reading, the mean reward of that update's batch of games and the
exact expected reward of the current policies (all cards and partial policies enumerated).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from agents.bad._io import read_json, read_npz, run_lock, write_json, write_npz
from agents.bad.matrix import N_ACTIONS, N_CARDS, PAYOFF, optimal_value, safe_value
from agents.sb3._threads import _torch_threads
from hanabi_env import stats
from hanabi_env.validate import check_choice, check_int, check_seed, type_error

__all__ = [
    "METHODS",
    "MatrixCurves",
    "MatrixSettings",
    "load_curves",
    "reproduce_figure3",
    "resolve_device",
    "train_matrix",
]

METHODS = {
    "bad_cf": "BAD, with CF gradient",
    "bad": "BAD, no CF gradient",
    "pg": "policy gradient (no belief)",
}
"""The learners of [BAD19] Figure 3 and their labels."""

_MIX = np.uint64(0x9E3779B97F4A7C15)


def resolve_device(device: str | None = None) -> torch.device:
    """``"cuda"`` when a GPU is available (or asked for), else ``"cpu"``.

    Args:
        device: ``None``/``"auto"`` (a GPU if there is one), ``"cpu"`` or ``"cuda"``.

    Raises:
        ValueError: An unknown name, or ``"cuda"`` without a GPU.
    """
    name = "auto" if device is None else check_choice("device", device, ("auto", "cpu", "cuda"))
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' is not available here; allowed: 'auto' or 'cpu'")
    return torch.device(name)


@dataclass(frozen=True)
class MatrixSettings:
    """Training settings of the matrix game (defaults: [BAD19]'s proof-of-principle code).

    Attributes:
        episodes: Updates per run; each plays ``batch`` games (15,000).
        batch: Games per update (32).
        hidden: Hidden units of player 2's policy and of the value baselines (32).
        lr: Adam learning rate (1e-3).
        readings: Points on the curve (100; one every ``episodes // readings`` updates, plus
            the start).
    """

    episodes: int = 15_000
    batch: int = 32
    hidden: int = 32
    lr: float = 1e-3
    readings: int = 100

    def __post_init__(self) -> None:
        """Validate every field (see the class docstring)."""
        check_int("episodes", self.episodes, 1, 10**8)
        check_int("batch", self.batch, 1, 10**6)
        check_int("hidden", self.hidden, 1, 4096)
        check_int("readings", self.readings, 1, self.episodes)
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)):
            raise type_error("lr", "a float", self.lr)
        if not 0 < self.lr < 1:
            raise ValueError(f"lr={self.lr} is out of range; allowed: (0, 1)")

    @property
    def interval(self) -> int:
        """Updates between two readings."""
        return self.episodes // self.readings


@dataclass
class MatrixCurves:
    """Learning curves of one learner over many runs.

    Attributes:
        method: A key of :data:`METHODS`.
        episodes: ``(readings + 1,)`` int64 updates done at each reading.
        expected: ``(runs, readings + 1)`` float64 exact expected reward of the policies.
        batch_reward: ``(runs, readings + 1)`` float64 mean reward of that update's games.
        seed: The master seed.
        settings: The :class:`MatrixSettings`.
    """

    method: str
    episodes: np.ndarray
    expected: np.ndarray
    batch_reward: np.ndarray
    seed: int
    settings: MatrixSettings

    def final(self, which: str = "expected") -> tuple[float, float]:
        """Mean and s.e.m. over runs of the last reading (``which``: the curve's field name)."""
        last = getattr(self, check_choice("which", which, ("expected", "batch_reward")))[:, -1]
        return float(last.mean()), float(stats.sem(last))


class _Nets:
    """Every run's parameters as batched tensors (leading axis: run)."""

    def __init__(self, seed: int, runs: np.ndarray, s: MatrixSettings, dev: torch.device):
        n_in1 = N_ACTIONS + 2 * N_CARDS  # u1, the belief (zeros for PG), card 2
        shapes = {
            "table1": (N_CARDS, N_ACTIONS),
            **_mlp_shapes("policy2", n_in1, s.hidden, N_ACTIONS),
            **_mlp_shapes("value1", 2 * N_CARDS, s.hidden, 1),
            **_mlp_shapes("value2", N_CARDS + n_in1, s.hidden, 1),
        }
        per_run = [_init_run(shapes, np.random.default_rng([seed, int(r)])) for r in runs]
        self.p = {
            k: torch.tensor(np.stack([w[k] for w in per_run]), dtype=torch.float32, device=dev)
            for k in shapes
        }
        for t in self.p.values():
            t.requires_grad_(True)

    def mlp(self, name: str, x: torch.Tensor) -> torch.Tensor:
        """``(runs, n, out)`` outputs of MLP ``name`` on ``(runs, n, in)`` inputs."""
        h = torch.relu(torch.baddbmm(self.p[f"{name}.b1"], x, self.p[f"{name}.w1"]))
        return torch.baddbmm(self.p[f"{name}.b2"], h, self.p[f"{name}.w2"])


def _mlp_shapes(name: str, n_in: int, hidden: int, n_out: int) -> dict[str, tuple[int, ...]]:
    return {
        f"{name}.w1": (n_in, hidden),
        f"{name}.b1": (1, hidden),
        f"{name}.w2": (hidden, n_out),
        f"{name}.b2": (1, n_out),
    }


def _init_run(shapes: dict[str, tuple[int, ...]], rng: np.random.Generator) -> dict:
    """One run's initial weights: the table U(0, 1), weights U(±1/√fan_in), zero biases."""
    out = {}
    for k, shape in shapes.items():
        if k == "table1":
            out[k] = rng.random(shape)
        elif ".w" in k:
            bound = 1.0 / math.sqrt(shape[0])
            out[k] = rng.uniform(-bound, bound, shape)
        else:
            out[k] = np.zeros(shape)
    return out


def _uniforms(seed: int, runs: np.ndarray, episode: int, n: int) -> np.ndarray:
    """``(runs, n)`` float64 uniforms in [0, 1), a pure function of (seed, run, episode, index).

    A counter-based generator (splitmix64 over the four coordinates), so that a run's draws do
    not depend on which other runs are trained with it.
    """
    with np.errstate(over="ignore"):
        key = _splitmix(np.uint64(seed) + _MIX * (runs.astype(np.uint64) + np.uint64(1)))
        key = _splitmix(key ^ (np.uint64(episode) * _MIX))
        z = _splitmix(key[:, None] + np.arange(n, dtype=np.uint64)[None, :])
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _splitmix(z: np.ndarray) -> np.ndarray:
    z = z + _MIX
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _sample(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Actions drawn from ``probs`` (``(..., A)``) by inverting the CDF at ``u`` (``(...)``)."""
    cdf = probs.cumsum(-1)[..., :-1]
    return (u.unsqueeze(-1) >= cdf).sum(-1)


def _player2_input(u1: torch.Tensor, belief: torch.Tensor, card2: torch.Tensor, bad: bool):
    """Player 2's input ``(u1 one-hot, public belief or zeros for PG, card2 one-hot)``."""
    parts = [
        torch.nn.functional.one_hot(u1, N_ACTIONS).float(),
        belief if bad else torch.zeros_like(belief),
        torch.nn.functional.one_hot(card2, N_CARDS).float(),
    ]
    return torch.cat(parts, dim=-1)


def _belief(partial: torch.Tensor, u1: torch.Tensor) -> torch.Tensor:
    """The public belief over player 1's card: uniform over the cards whose action is ``u1``.

    Args:
        partial: ``(..., N_CARDS)`` the sampled partial policy (an action per card).
        u1: ``(...)`` the action taken.
    """
    match = (partial == u1.unsqueeze(-1)).float()
    return match / match.sum(-1, keepdim=True)


class _Learner:
    """One learner (``method``) training all runs at once."""

    def __init__(self, method, seed, runs, settings: MatrixSettings, dev: torch.device):
        self.method, self.seed, self.runs, self.s, self.dev = method, seed, runs, settings, dev
        self.bad = method != "pg"
        self.nets = _Nets(seed, runs, settings, dev)
        self.opt = torch.optim.Adam(self.nets.p.values(), lr=settings.lr, eps=1e-8)
        self.payoff = torch.tensor(PAYOFF, dtype=torch.float32, device=dev)

    def update(self, episode: int) -> torch.Tensor:
        """One update on a batch of games; returns the ``(runs,)`` mean reward of the batch."""
        b = self.s.batch
        u = torch.tensor(
            _uniforms(self.seed, self.runs, episode, b * (3 + N_CARDS)),
            dtype=torch.float32,
            device=self.dev,
        ).view(len(self.runs), b, 3 + N_CARDS)
        card1 = (u[..., 0] * N_CARDS).long().clamp_max(N_CARDS - 1)
        card2 = (u[..., 1] * N_CARDS).long().clamp_max(N_CARDS - 1)
        logp1 = torch.log_softmax(self.nets.p["table1"], -1)  # (R, C, A)
        partial = _sample(logp1.exp().unsqueeze(1).expand(-1, b, -1, -1), u[..., 3:])  # (R, B, C)
        u1 = partial.gather(-1, card1.unsqueeze(-1)).squeeze(-1)
        logp_partial = logp1.unsqueeze(1).expand(-1, b, -1, -1).gather(-1, partial.unsqueeze(-1))
        logp_partial = logp_partial.squeeze(-1)  # (R, B, C): log π(partial[c] | c)
        logp_u1 = logp_partial.gather(-1, card1.unsqueeze(-1)).squeeze(-1)
        x2 = _player2_input(u1, _belief(partial, u1), card2, self.bad)
        logp2_all = torch.log_softmax(self.nets.mlp("policy2", x2), -1)
        u2 = _sample(logp2_all.exp(), u[..., 2])
        logp_u2 = logp2_all.gather(-1, u2.unsqueeze(-1)).squeeze(-1)
        reward = self.payoff[card1, card2, u1, u2]
        one_hot1 = torch.nn.functional.one_hot(card1, N_CARDS).float()
        one_hot2 = torch.nn.functional.one_hot(card2, N_CARDS).float()
        v1 = self.nets.mlp("value1", torch.cat([one_hot1, one_hot2], -1)).squeeze(-1)
        v2 = self.nets.mlp("value2", torch.cat([one_hot1, x2], -1)).squeeze(-1)
        logp_train1 = logp_partial.sum(-1) if self.method == "bad_cf" else logp_u1
        pg = (reward - v1.detach()) * logp_train1 + (reward - v2.detach()) * logp_u2
        value_loss = (reward - v1) ** 2 + (reward - v2) ** 2
        loss = (value_loss - pg).mean(-1).sum()  # mean over games, sum over (independent) runs
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return reward.mean(-1).detach()

    @torch.no_grad()
    def expected_reward(self) -> torch.Tensor:
        """``(runs,)`` exact expected reward: cards and partial policies enumerated."""
        probs1 = torch.softmax(self.nets.p["table1"], -1)  # (R, C, A)
        partials = torch.tensor(
            list(np.ndindex(*(N_ACTIONS,) * N_CARDS)), dtype=torch.long, device=self.dev
        )  # (P, C): every deterministic partial policy
        p_partial = probs1[:, torch.arange(N_CARDS), partials].prod(-1)  # (R, P)
        grid = torch.cartesian_prod(
            torch.arange(len(partials)), torch.arange(N_CARDS), torch.arange(N_CARDS)
        ).to(self.dev)  # (P * C * C, 3): partial, card1, card2
        part, card1, card2 = partials[grid[:, 0]], grid[:, 1], grid[:, 2]
        u1 = part.gather(-1, card1.unsqueeze(-1)).squeeze(-1)
        x2 = _player2_input(u1, _belief(part, u1), card2, self.bad)
        probs2 = torch.softmax(self.nets.mlp("policy2", x2.expand(len(self.runs), -1, -1)), -1)
        value = (probs2 * self.payoff[card1, card2, u1]).sum(-1)  # (R, P * C * C)
        weight = p_partial[:, grid[:, 0]] / N_CARDS**2
        return (weight * value).sum(-1)


def train_matrix(
    method: str,
    runs: int = 30,
    seed: int = 0,
    settings: MatrixSettings | None = None,
    device: str | None = None,
    first_run: int = 0,
    progress: bool = False,
    torch_threads: int | None = 1,
) -> MatrixCurves:
    """Train one learner on the matrix game, ``runs`` independent runs at once.

    Args:
        method: ``"bad_cf"``, ``"bad"`` or ``"pg"`` (:data:`METHODS`).
        runs: Independent runs (>= 1).
        seed: Master seed; run ``r`` depends on ``(seed, r)`` only.
        settings: :class:`MatrixSettings` (default: the paper's code's settings).
        device: ``None``/``"auto"``, ``"cpu"`` or ``"cuda"`` (:func:`resolve_device`).
        first_run: Index of the first run (train runs ``first_run .. first_run + runs - 1``; a
            long study can be split into blocks with the same results).
        progress: Show a progress bar (tqdm).
        torch_threads: Torch's CPU threads during the call (default 1: these small tensors
            gain nothing from more, and lose much on a busy machine); None leaves torch's.

    Returns:
        The :class:`MatrixCurves`.

    Raises:
        TypeError, ValueError: A bad argument (the message names it).
    """
    check_choice("method", method, METHODS)
    check_int("runs", runs, 1, 10**6)
    check_int("first_run", first_run, 0, 10**9)
    seed = check_seed("seed", seed)
    s = MatrixSettings() if settings is None else settings
    if not isinstance(s, MatrixSettings):
        raise type_error("settings", "a MatrixSettings or None", s)
    dev = resolve_device(device)
    with _torch_threads(torch_threads):
        return _train(method, seed, np.arange(first_run, first_run + runs), s, dev, progress)


def _train(method, seed, run_ids, s: MatrixSettings, dev, progress: bool) -> MatrixCurves:
    runs = len(run_ids)
    learner = _Learner(method, seed, run_ids, s, dev)
    marks = np.arange(s.readings + 1) * s.interval
    expected = np.zeros((runs, len(marks)))
    batch = np.zeros((runs, len(marks)))
    from tqdm.auto import tqdm

    with tqdm(total=s.episodes, desc=METHODS[method], disable=not progress, leave=False) as bar:
        for i in range(marks[-1] + 1):
            if i % s.interval == 0:
                expected[:, i // s.interval] = learner.expected_reward().cpu().numpy()
            reward = learner.update(i)
            if i % s.interval == 0:
                batch[:, i // s.interval] = reward.cpu().numpy()
            bar.update(1)
    return MatrixCurves(method, marks.astype(np.int64), expected, batch, seed, s)


def reproduce_figure3(
    out: str | Path,
    runs: int = 100,
    seed: int = 0,
    settings: MatrixSettings | None = None,
    methods: tuple[str, ...] = tuple(METHODS),
    device: str | None = None,
    progress: bool = False,
    torch_threads: int | None = 1,
) -> dict:
    """Train every learner, write the curves, a summary and the figure of [BAD19] Figure 3.

    Writes ``out/curves.npz`` (per method: ``<method>.expected``, ``<method>.batch_reward``,
    and ``episodes``), ``out/summary.json`` (settings, final mean ± s.e.m. per method, the game's
    optimal and safe values) and ``out/figure3.png`` (needs matplotlib). A method whose curves
    are already in ``out/curves.npz`` with the same settings and seed is not trained again.

    Args:
        out: Output folder.
        runs: Independent runs per method.
        seed: Master seed.
        settings: :class:`MatrixSettings` (default: the paper's code's settings).
        methods: Learners to train (keys of :data:`METHODS`).
        device: ``None``/``"auto"``, ``"cpu"`` or ``"cuda"``.
        progress: Show progress bars.
        torch_threads: Torch's CPU threads (:func:`train_matrix`).

    Returns:
        The summary (the content of ``summary.json``).
    """
    s = MatrixSettings() if settings is None else settings
    out = Path(out)
    for m in methods:
        check_choice("methods", m, METHODS)
    with run_lock(out):
        return _reproduce(out, runs, seed, s, methods, device, progress, torch_threads)


def _reproduce(out: Path, runs, seed, s: MatrixSettings, methods, device, progress, threads):
    """:func:`reproduce_figure3` with the folder's lock held."""
    curves = load_curves(out, runs=runs, seed=seed, settings=s)
    for m in methods:
        if m not in curves:
            curves[m] = train_matrix(
                m, runs, seed, s, device, progress=progress, torch_threads=threads
            )
            _save_curves(out, curves, runs, seed, s)
    summary = {
        "seed": seed,
        "runs": runs,
        "settings": dataclasses.asdict(s),
        "optimal_value": optimal_value(),
        "safe_value": safe_value(),
        "final": {
            m: {
                "label": METHODS[m],
                "expected_mean": c.final("expected")[0],
                "expected_sem": c.final("expected")[1],
                "batch_reward_mean": c.final("batch_reward")[0],
                "batch_reward_sem": c.final("batch_reward")[1],
                "runs_above_8_5": int((c.expected[:, -1] > safe_value() + 0.5).sum()),
            }
            for m, c in curves.items()
            if m in methods
        },
    }
    write_json(out / "summary.json", summary)
    from agents.bad.plot import learning_curves

    learning_curves(
        out / "figure3.png",
        {METHODS[m]: (curves[m].episodes, curves[m].expected) for m in methods},
        xlabel=f"training episodes (updates on {s.batch} games each)",
        ylabel="expected reward",
        title=f"[BAD19] matrix game: mean ± s.e.m. over {runs} runs",
        hlines={"optimal (10)": optimal_value(), "safe action (8)": safe_value()},
    )
    return summary


def _save_curves(out: Path, curves: dict, runs: int, seed: int, s: MatrixSettings) -> None:
    arrays = {"episodes": next(iter(curves.values())).episodes}
    for m, c in curves.items():
        arrays[f"{m}.expected"] = c.expected
        arrays[f"{m}.batch_reward"] = c.batch_reward
    write_npz(out / "curves.npz", arrays)
    write_json(out / "curves.json", {"runs": runs, "seed": seed, "settings": dataclasses.asdict(s)})


def load_curves(
    out: str | Path, runs: int, seed: int, settings: MatrixSettings
) -> dict[str, MatrixCurves]:
    """The curves saved in ``out`` by :func:`reproduce_figure3` for these runs, seed and settings.

    Returns:
        ``{method: MatrixCurves}``; empty when ``out`` holds none or holds another study's.
    """
    out = Path(out)
    if not (out / "curves.npz").is_file() or not (out / "curves.json").is_file():
        return {}
    meta = read_json(out / "curves.json")
    if meta != {"runs": runs, "seed": seed, "settings": dataclasses.asdict(settings)}:
        return {}
    z = read_npz(out / "curves.npz")
    return {
        m: MatrixCurves(
            m, z["episodes"], z[f"{m}.expected"], z[f"{m}.batch_reward"], seed, settings
        )
        for m in METHODS
        if f"{m}.expected" in z
    }
