"""Actor-critic training of BAD and of its baseline on small Hanabi (torch; docs/bad.md §2).

Both learners play self-play games side by side on the engine (:class:`agents.bad.runner.Games`)
and learn with the advantage actor-critic of [BAD19] §4.5, synchronous here: ``batch`` games
advance ``rollout`` moves, then one update on those moves (generalised advantage estimation,
entropy bonus, value regression). [BAD19] trained asynchronously (IMPALA, V-trace correcting
the lag between actors and learner); synchronous updates are on-policy and need no correction.

* ``"bad"`` — the public agent of [BAD19]: its input holds the Bayesian public belief V2, its
  moves are sampled deterministic partial policies (Gumbel noise shared by every hand the
  actor might see: the common-knowledge seed of §3.3), and each move updates the belief
  counterfactually (:mod:`agents.bad.belief`). Its gradient is that of the move taken
  (no counterfactual gradient, as the paper's Hanabi agent).
* ``"baseline"`` — an independent actor-critic of the same size and the same inputs but with
  the V1 belief (no Bayesian update): each player acts on its own observation, like the
  paper's V1 baseline but feed-forward (the last move is part of its input).

Training is resumable: every ``chunk`` updates the run writes a checkpoint (weights, Adam's
state, the learning curve) to its folder, and each chunk deals its games from seeds derived
from ``(seed, chunk, game, count)`` and draws its noise from ``(seed, chunk)``, so a run
interrupted and resumed ends with the same weights as one run straight through.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from agents.bad._io import read_json, read_npz, run_lock, write_json, write_npz
from agents.bad.matrix_train import resolve_device
from agents.bad.net import NumpyNet, param_shapes, torch_net
from agents.bad.public import Layout
from agents.bad.runner import Games, decide, evaluate, public_features
from agents.rl.advantages import gae
from agents.sb3._threads import _torch_threads
from hanabi_env import stats
from hanabi_env.config import HLE_PRESETS, hle_preset
from hanabi_env.seeding import derive_seed
from hanabi_env.validate import check_choice, check_int, check_seed, type_error

__all__ = [
    "EVALUATIONS",
    "EVAL_SEED",
    "LEARNERS",
    "TrainSettings",
    "export_agent",
    "load_run",
    "train",
]

EVAL_SEED = 2019
"""Seed of the evaluation deals (game ``i``: ``derive_seed(EVAL_SEED, i)``), common to all runs."""
LEARNERS = ("bad", "baseline")
"""``"bad"``: the Bayesian Action Decoder; ``"baseline"``: the independent actor-critic."""


@dataclass(frozen=True)
class TrainSettings:
    """Settings of one training run.

    Attributes:
        preset: HLE preset, ``"Hanabi-Small"`` or ``"Hanabi-Very-Small"`` (2 players).
        learner: ``"bad"`` or ``"baseline"`` (:data:`LEARNERS`).
        steps: Moves to train on (all games together); rounded up to whole chunks.
        batch: Games played side by side.
        rollout: Moves per game between two updates.
        hidden: Units per hidden layer.
        layers: Hidden layers.
        lr: Adam's learning rate.
        gamma: Discount per move.
        gae_lambda: λ of generalised advantage estimation.
        entropy: Weight of the entropy bonus.
        value_coef: Weight of the value loss.
        max_grad_norm: Gradient norm clip.
        chunk: Updates between two checkpoints.
        eval_games: Greedy self-play games of the final evaluation.
    """

    preset: str = "Hanabi-Small"
    learner: str = "bad"
    steps: int = 200_000
    batch: int = 32
    rollout: int = 16
    hidden: int = 128
    layers: int = 2
    lr: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 1.0
    chunk: int = 25
    eval_games: int = 1000

    def __post_init__(self) -> None:
        """Validate every field (see the class docstring)."""
        check_choice("preset", self.preset, HLE_PRESETS)
        check_choice("learner", self.learner, LEARNERS)
        check_int("steps", self.steps, 1, 10**10)
        check_int("batch", self.batch, 1, 4096)
        check_int("rollout", self.rollout, 1, 10_000)
        check_int("hidden", self.hidden, 1, 4096)
        check_int("layers", self.layers, 1, 16)
        check_int("chunk", self.chunk, 1, 10**6)
        check_int("eval_games", self.eval_games, 0, 10**7)
        for name in ("lr", "gamma", "gae_lambda", "entropy", "value_coef", "max_grad_norm"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise type_error(name, "a float", value)
            if not 0 <= value <= (1 if name in ("gamma", "gae_lambda") else 100):
                raise ValueError(f"{name}={value} is out of range")

    @property
    def updates(self) -> int:
        """Updates of the run: whole chunks covering ``steps``."""
        per_chunk = self.batch * self.rollout * self.chunk
        return -(-self.steps // per_chunk) * self.chunk

    def identity(self) -> dict:
        """The settings that define a run's trajectory (all but ``steps`` and ``eval_games``).

        A run folder resumes, or continues to more steps, only under the same identity.
        """
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in _LENGTH}

    @property
    def layout(self) -> Layout:
        """The configuration's :class:`~agents.bad.public.Layout`."""
        return Layout(hle_preset(self.preset))

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The network's parameter shapes."""
        lay = self.layout
        return param_shapes(lay.pub_dim, lay.priv_dim, self.hidden, self.layers, lay.n_actions)


_LENGTH = ("steps", "eval_games")


class _Run:
    """One run's learner, optimiser and curve, with its checkpoint files in ``out``."""

    def __init__(self, settings: TrainSettings, seed: int, out: Path, device: torch.device):
        self.s, self.seed, self.out, self.dev = settings, seed, out, device
        self.layout = settings.layout
        self.net = torch_net(settings.shapes(), derive_seed(seed, 0)).to(device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=settings.lr, eps=1e-5)
        self.chunk, self.steps, self.wall = 0, 0, 0.0
        self.curve: list[dict] = []
        if (out / "checkpoint.json").is_file():
            self._load()

    @property
    def bayesian(self) -> bool:
        return self.s.learner == "bad"

    def numpy_net(self) -> NumpyNet:
        params = {k: v.detach().cpu().numpy() for k, v in self.net.params.items()}
        return NumpyNet(params, np.float32)

    def train_chunk(self, progress) -> None:
        """``chunk`` updates from freshly dealt games (the unit of resumption)."""
        s, lay = self.s, self.layout
        t0 = time.perf_counter()
        games = Games(lay, s.batch)
        deals = np.zeros(s.batch, dtype=np.int64)
        for b in range(s.batch):
            games.deal(b, derive_seed(self.seed, 1, self.chunk, b, 0))
        rng = np.random.default_rng([self.seed, 2, self.chunk])
        n_updates = s.chunk
        finished: list[int] = []
        lengths: list[int] = []
        moves = np.zeros(s.batch, dtype=np.int64)
        for _ in range(n_updates):
            net = self.numpy_net()
            batch: dict[str, list[np.ndarray]] = {
                k: [] for k in ("pub", "combo", "action", "legal", "reward", "done", "priv")
            }
            for _t in range(s.rollout):
                actor = games.actors()
                combo = games.partner_combos(actor)
                noise = rng.gumbel(size=(s.batch, len(lay.combos), lay.n_actions))
                priv = games.public.private_features(np.arange(s.batch), combo)
                d = decide(games.public, actor, net, self.bayesian, combo, noise.astype(np.float32))
                assert d.action is not None
                reward, done, score = games.play(actor, d, d.action)
                moves += 1
                row = {"pub": d.pub, "combo": combo, "action": d.action, "legal": d.legal,
                       "reward": reward, "done": done, "priv": priv}  # fmt: skip
                for key, value in row.items():
                    batch[key].append(value)
                for g in np.flatnonzero(done).tolist():
                    finished.append(int(score[g]))
                    lengths.append(int(moves[g]))
                    moves[g] = 0
                    deals[g] += 1
                    games.deal(g, derive_seed(self.seed, 1, self.chunk, g, int(deals[g])))
            actor = games.actors()
            pub, _ = public_features(games.public, actor, self.bayesian)
            every = np.arange(s.batch)
            priv = games.public.private_features(every, games.partner_combos(actor))
            bootstrap = net.value(pub, priv, every)
            self._update({k: np.stack(v) for k, v in batch.items()}, bootstrap)
            self.steps += s.batch * s.rollout
            if progress is not None:
                progress.update(s.batch * s.rollout)
        self.wall += time.perf_counter() - t0
        self.chunk += 1
        self.curve.append(
            {
                "chunk": self.chunk,
                "steps": self.steps,
                "wall_seconds": round(self.wall, 3),
                "episodes": len(finished),
                "mean_score": float(np.mean(finished)) if finished else float("nan"),
                "sem_score": stats.sem(finished) if len(finished) > 1 else float("nan"),
                "mean_moves": float(np.mean(lengths)) if lengths else float("nan"),
            }
        )
        self._save()

    def _update(self, batch: dict, bootstrap: np.ndarray) -> None:
        """One actor-critic update on ``(rollout, B)`` moves."""
        s = self.s
        n, b = batch["action"].shape
        pub = torch.tensor(batch["pub"].reshape(n * b, -1), device=self.dev)
        priv = torch.tensor(batch["priv"].reshape(n * b, -1), device=self.dev)
        legal = torch.tensor(batch["legal"].reshape(n * b, -1), device=self.dev)
        logits, value = self.net(pub, priv)
        with torch.no_grad():
            values = value.detach().cpu().numpy().reshape(n, b)
        adv = gae(batch["reward"], batch["done"], values, bootstrap, s.gamma, s.gae_lambda)
        ret = torch.tensor((adv + values).reshape(-1), dtype=torch.float32, device=self.dev)
        adv_t = torch.tensor(adv.reshape(-1), dtype=torch.float32, device=self.dev)
        adv_t = (adv_t - adv_t.mean()) / (adv_t.std() + 1e-8)
        masked = torch.where(legal, logits, torch.tensor(-1e9, device=self.dev))
        logp = torch.log_softmax(masked, -1)
        action = torch.tensor(batch["action"].reshape(-1), device=self.dev)
        logp_taken = logp.gather(1, action[:, None])[:, 0]
        entropy = -(logp.exp() * torch.where(legal, logp, torch.zeros_like(logp))).sum(-1)
        loss = (
            -(logp_taken * adv_t).mean()
            - s.entropy * entropy.mean()
            + s.value_coef * ((value - ret) ** 2).mean()
        )
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), s.max_grad_norm)
        self.opt.step()

    # --- checkpoints ---------------------------------------------------------------------------

    def _save(self) -> None:
        arrays = {f"param.{k}": v.detach().cpu().numpy() for k, v in self.net.params.items()}
        state = self.opt.state_dict()
        names = list(self.net.params)
        for i, st in state["state"].items():
            for key in ("exp_avg", "exp_avg_sq"):
                arrays[f"adam.{names[i]}.{key}"] = st[key].cpu().numpy()
            arrays[f"adam.{names[i]}.step"] = np.asarray(float(st["step"]))
        write_npz(self.out / "checkpoint.npz", arrays)
        write_json(
            self.out / "checkpoint.json",
            {
                "identity": self.s.identity(),
                "seed": self.seed,
                "chunk": self.chunk,
                "steps": self.steps,
                "wall_seconds": self.wall,
                "curve": self.curve,
            },
        )

    def _load(self) -> None:
        meta = read_json(self.out / "checkpoint.json")
        if meta["identity"] != self.s.identity() or meta["seed"] != self.seed:
            raise ValueError(
                f"{self.out} holds a run with other settings or another seed; use another folder"
            )
        if meta["chunk"] > self.s.updates // self.s.chunk:
            raise ValueError(
                f"{self.out} holds a run of {meta['steps']} moves, more than steps="
                f"{self.s.steps}; use another folder"
            )
        arrays = read_npz(self.out / "checkpoint.npz")
        with torch.no_grad():
            for k, p in self.net.params.items():
                p.copy_(torch.tensor(arrays[f"param.{k}"]))
        state = self.opt.state_dict()
        names = list(self.net.params)
        state["state"] = {
            i: {
                "step": torch.tensor(float(arrays[f"adam.{k}.step"])),
                "exp_avg": torch.tensor(arrays[f"adam.{k}.exp_avg"], device=self.dev),
                "exp_avg_sq": torch.tensor(arrays[f"adam.{k}.exp_avg_sq"], device=self.dev),
            }
            for i, k in enumerate(names)
            if f"adam.{k}.step" in arrays
        }
        self.opt.load_state_dict(state)
        self.chunk, self.steps, self.wall = meta["chunk"], meta["steps"], meta["wall_seconds"]
        self.curve = meta["curve"]


def _command() -> str:
    """The command line that runs this process (``hanabi-adhoc ...`` for the CLI)."""
    head = Path(sys.argv[0])
    cli = head.name == "hanabi-adhoc" or head.parent.name == "hanabi_adhoc"
    return " ".join(["hanabi-adhoc" if cli else head.name, *sys.argv[1:]])


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
            timeout=10,
        )
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def train(
    settings: TrainSettings,
    out: str | Path,
    seed: int = 0,
    device: str | None = None,
    progress: bool = False,
    torch_threads: int | None = 1,
) -> dict:
    """Train one run (or resume it from ``out``), evaluate it, and write its agent files.

    Writes ``out/checkpoint.{json,npz}`` every ``settings.chunk`` updates (a run folder
    continues from its checkpoint, also to more ``steps`` than it was started with), then
    ``out/result.json`` (the curve, wall time, the self-play evaluations of
    :data:`EVALUATIONS`: ``eval_games`` games each, dealt from :data:`EVAL_SEED`, the same for
    every run) and the agent (``out/agent.json``,
    ``out/agent.npz``; :func:`export_agent`). A finished run is not trained again.

    Args:
        settings: The :class:`TrainSettings`.
        out: The run's folder.
        seed: The run's seed.
        device: ``None``/``"auto"``, ``"cpu"`` or ``"cuda"`` (the updates; rollouts run in NumPy).
        progress: Show a progress bar.
        torch_threads: Torch's CPU threads during the call (None: leave torch's setting).

    Returns:
        The content of ``result.json``.

    Raises:
        ValueError: ``out`` holds a run with other settings or seed.
        hanabi_env.outputs.FolderBusyError: Another process writes ``out``.
    """
    if not isinstance(settings, TrainSettings):
        raise type_error("settings", "a TrainSettings", settings)
    seed = check_seed("seed", seed)
    out = Path(out)
    with run_lock(out):
        return _train(settings, out, seed, device, progress, torch_threads)


def _train(settings, out: Path, seed: int, device, progress: bool, torch_threads) -> dict:
    """:func:`train` with the folder's lock held."""
    if (out / "result.json").is_file():
        result = read_json(out / "result.json")
        if result["settings"] == dataclasses.asdict(settings) and result["seed"] == seed:
            return _complete(out, result)
    from threadpoolctl import threadpool_limits
    from tqdm.auto import tqdm

    run = _Run(settings, seed, out, resolve_device(device))
    n_chunks = settings.updates // settings.chunk
    total = settings.updates * settings.batch * settings.rollout
    with (
        threadpool_limits(1),
        _torch_threads(torch_threads),
        tqdm(total=total, initial=run.steps, disable=not progress, leave=False,
             desc=f"{settings.learner} {settings.preset} seed {seed}") as bar,
    ):  # fmt: skip
        while run.chunk < n_chunks:
            run.train_chunk(bar)
    result = {
        "settings": dataclasses.asdict(settings),
        "seed": seed,
        "steps": run.steps,
        "train_wall_seconds": run.wall,
        "steps_per_second": run.steps / run.wall if run.wall else float("nan"),
        "curve": run.curve,
        "provenance": {
            "command": _command(),
            "commit": _commit(),
            "torch": torch.__version__,
            "device": str(run.dev),
        },
    }
    export_agent(out, run, result)
    return _complete(out, result)


EVALUATIONS = {"greedy": False, "sampled": True}
"""The self-play evaluations of a run: the most probable move, or moves sampled as in training."""


def _complete(out: Path, result: dict) -> dict:
    """Add the evaluations ``result`` lacks (of the agent in ``out``) and write ``result.json``."""
    missing = [name for name in EVALUATIONS if name not in result]
    if not missing:
        return result
    from threadpoolctl import threadpool_limits

    from agents.bad.policy import BADPolicy

    agent = BADPolicy.load(out / "agent.json")
    games = result["settings"]["eval_games"]
    for name in missing:
        t0 = time.perf_counter()
        with threadpool_limits(1):
            scores = evaluate(agent.layout, agent.net, agent.bayesian, games, EVAL_SEED,
                              sampled=EVALUATIONS[name])  # fmt: skip
        result[name] = {
            "games": games,
            "mean": float(scores.mean()) if games else float("nan"),
            "sem": stats.sem(scores) if games > 1 else float("nan"),
            "perfect": float(np.mean(scores == agent.config.max_score)) if games else 0.0,
            "wall_seconds": round(time.perf_counter() - t0, 1),
        }
    meta = read_json(out / "agent.json")
    meta["scores"] = {f"{k}_self_play": result[k] for k in EVALUATIONS}
    write_json(out / "agent.json", meta)
    write_json(out / "result.json", result)
    return result


def export_agent(out: Path, run: _Run, result: dict) -> None:
    """Write the trained agent: ``out/agent.npz`` (float32 weights) and ``out/agent.json``.

    The JSON records the weights' SHA-256 (``weights_sha256``,
    :func:`agents.bad.policy.weights_sha256`), which loading checks.
    """
    from agents.bad.policy import weights_sha256

    params = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in run.net.params.items()}
    write_npz(out / "agent.npz", params)
    s = run.s
    write_json(
        out / "agent.json",
        {
            "format": "hanabi-adhoc/bad-agent",
            "version": 1,
            "learner": s.learner,
            "preset": s.preset,
            "config": hle_preset(s.preset).as_dict(),
            "hidden": s.hidden,
            "layers": s.layers,
            "weights_sha256": weights_sha256(params),
            "provenance": {
                **result["provenance"],
                "seed": result["seed"],
                "steps": result["steps"],
                "train_wall_seconds": round(result["train_wall_seconds"], 1),
                "settings": result["settings"],
            },
            "scores": {},
        },
    )


def load_run(out: str | Path) -> dict:
    """The ``result.json`` of a finished run folder."""
    return read_json(Path(out) / "result.json")
