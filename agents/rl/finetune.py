"""RL fine-tuning of a cloned network: PPO from the clone's weights, in self-play or with a pool.

docs/finetuning.md. :func:`finetune` starts from a partner file in the no-code format
(``START.json`` + its NPZ: a clone of :func:`agents.clone.export_clone`, or any exported
RL partner) and trains it with PPO; the result is exported in the same format, loadable as
``rl:DIR/NAME.json`` without torch. PPO's settings are one checked object,
:class:`PPOSettings` (``finetune(..., ppo=PPOSettings(envs=4))``); the fields named below as
``ppo.FIELD`` are its.

**Why a small PPO of our own, not sb3-contrib's MaskablePPO.** The teacher regulariser is a
term of the loss on the minibatch's states, with the teacher's distribution or move recorded
at collection time; SB3 has no hook for an extra loss term (it needs ``train()`` copied and
edited), no place in its rollout buffer for the teacher's targets, and its checkpoints are
pickled zips (this project writes NPZ/JSON only). The PPO here is the textbook clipped
objective (Schulman et al. 2017, as SB3 implements it: GAE, advantage normalisation per
minibatch, clipped ratio, value loss, entropy bonus, gradient clipping, Adam), on masked
logits (illegal moves get ``-1e9``, sb3-contrib's masking).

**The networks.** The actor is the start network, its layers loaded from the NPZ (float16
weights widened to float32). The critic is a fresh MLP of the same hidden widths (torch's
default initialisation from ``seed``), trained from the first rollout on; with
``ppo.critic_warmup=K`` the first ``K`` updates train the critic only (the actor is frozen while
the value function learns the clone's own returns), so early noisy advantages do not undo
the clone.

**Games.** ``ppo.envs`` games are played side by side (:class:`hanabi_env.HanabiGame`), one
batched forward pass of the actor per step for every game waiting for it.

* *Self-play* (``partners=None`` or ``["self"]``): the learner plays every seat; each decision
  is a transition whose reward is the score change until the game's next learner decision.
* *Pool* (agent specs: rule agents, chromosomes, bots, RL partners, your own policies): at
  every deal a seat is drawn uniformly for the learner and one pool member uniformly for all
  the other seats (one instance of each member per game slot); the reward of a learner move
  is the score change until its next turn or the game's end (the partners' moves included).

**Teacher regulariser** (``teacher_coef > 0``): on every state the learner visited, the loss
gets ``coef * KL(teacher || policy)`` over the legal moves when the teacher is a network
(``teacher=None``: the start network, frozen; or an ``rl:`` spec), or ``coef *
cross_entropy(teacher's move)`` for any other agent (asked for its move on that seat's view:
``smartbot``, a rule agent, ...). ``teacher_decay_steps`` decays the coefficient linearly to 0
over that many steps (None: constant).

**Other-Play** ([BR20]; :mod:`agents.rl.other_play`): with ``other_play=True`` every deal
draws a colour permutation uniformly among all ``colors!`` (identity included) and one seat
(self-play: a seat drawn uniformly; pool: the learner's seat): that seat's observations are
permuted (``shown = real[index]``), its legal mask is ``real_mask[to_real]``, and the move
the network chooses in the shown game is played as ``to_real[move]``. Its transitions are
stored as the seat saw them (shown observations and moves), so the network learns in the
permuted game, whose partners play the real one.

**Determinism and resume.** Deals, seats, partners, permutations and partner seeds come from
one ``numpy`` generator seeded by ``seed``; actions and minibatches from one torch generator
(``derive_seed(seed, 1)``). A checkpoint (every ``ppo.checkpoint_every`` updates and at the end)
stores the weights, Adam's state, both generators' states, the curves and each game in
progress as its deal seed and the moves made so far; resuming replays those moves (the
partners are asked again, so their own state is rebuilt). A run resumed from a checkpoint
gives the same weights, curves and export as the uninterrupted run on the same machine and
torch version (a test checks it); only ``cpu_seconds`` and ``seconds`` differ.

**Outputs** in ``out`` (an :class:`~hanabi_env.outputs.OutputFolder` of kind
``"finetune"``, its ``manifest.json`` binding each file to the run): ``checkpoint.npz`` +
``checkpoint.json``, ``curves.csv`` (one row per update: :data:`CURVE_FIELDS`), ``curves.png``
(with matplotlib) and ``NAME.json`` + ``NAME.npz`` (:func:`agents.rl.export.export_network`),
whose ``training`` entry holds the start file's SHA-256, the settings, the steps and the CPU
seconds.

``torch`` is imported inside the functions only (the ``rl`` extra).

Source: Schulman et al., "Proximal Policy Optimization Algorithms" (2017) and SB3's PPO;
Hu et al., "Other-Play for zero-shot coordination" (ICML 2020,
https://arxiv.org/abs/2003.02979); regularising toward a human or bot policy as in
Jacob et al., "Modeling Strong and Human-Like Gameplay with KL-Regularized Search" (2022).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.clone import _linear_arrays, _mlp
from agents.policy import Policy
from agents.rl.advantages import gae
from agents.rl.other_play import action_maps, colour_permutations, observation_index
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.outputs import OutputFolder, sha256_file
from hanabi_env.seeding import SEED_LIMIT, derive_seed
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_optional_int,
    check_seed,
    check_str,
    type_error,
)

__all__ = ["CURVE_FIELDS", "KIND", "FinetuneResult", "PPOSettings", "finetune"]

KIND = "finetune"
"""The output folder's kind (its manifest)."""

CURVE_FIELDS = (
    "update", "steps", "episodes", "mean_score", "teacher_agreement", "teacher_kl", "entropy",
    "approx_kl", "clip_fraction", "value_loss", "policy_loss", "teacher_coef", "cpu_seconds",
)  # fmt: skip
"""Columns of ``curves.csv``: per update, the learner steps so far, the games that ended in
the rollout and their mean score (NaN when none), the share of visited states where the
policy's best move is the teacher's (the start network's when there is no teacher), the mean
KL(teacher || policy) there (NaN for an agent teacher), the policy's mean entropy (nats),
PPO's approximate KL of the update, the share of clipped ratios, the losses, the teacher
coefficient used and the run's CPU seconds so far."""

CHECKPOINT = "checkpoint"


@dataclass(frozen=True)
class FinetuneResult:
    """A fine-tuning run's outcome.

    Attributes:
        partner: The exported partner (:class:`agents.rl.RLPartner`), loaded back.
        path: Its JSON config (``out/NAME.json``).
        curves: One dict per update (:data:`CURVE_FIELDS`).
        steps: Learner steps trained in all (a whole number of rollouts).
        cpu_seconds: CPU seconds of every session of the run.
    """

    partner: Any
    path: Path
    curves: list[dict]
    steps: int
    cpu_seconds: float


@dataclass(frozen=True, kw_only=True)
class PPOSettings:
    """PPO's settings for :func:`finetune`, checked once (docs/finetuning.md §2).

    Every field is checked when the object is made (``__post_init__``, in this order) and
    stored in its plain type (``int`` or ``float``); :func:`finetune`'s inner functions trust
    them. Keywords only: ``PPOSettings(envs=4, n_steps=32)``. The defaults are
    ``hanabi-adhoc finetune``'s; every field but ``checkpoint_every`` is recorded in the run's
    manifest and export (a resume needs the same).

    Attributes:
        envs: The rollout's games played side by side, ``[1, 4096]``.
        n_steps: Decisions per game slot in a rollout, ``[2, 100000]``; an update trains on
            ``envs * n_steps`` learner steps.
        epochs: Passes over a rollout per update, ``[1, 1000]``.
        minibatches: Minibatches per pass, ``[1, 10000]``.
        learning_rate: Adam's step size, > 0.
        gamma: Discount, ``[0, 1]``.
        gae_lambda: GAE's lambda, ``[0, 1]``.
        clip_range: PPO's ratio clip, > 0.
        ent_coef: Entropy bonus weight, >= 0.
        vf_coef: Value loss weight, >= 0.
        max_grad_norm: Gradient norm clip, > 0.
        critic_warmup: First updates that train the critic only, ``[0, 10**9]``.
        checkpoint_every: Updates between checkpoints, ``[1, 10**9]`` (one is also written at
            the end; it does not change the results).

    Raises:
        TypeError: A field of the wrong type (the message names it).
        ValueError: A field out of range (the message names it and what is allowed).
    """

    envs: int = 16
    n_steps: int = 64
    epochs: int = 4
    minibatches: int = 4
    learning_rate: float = 1e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    critic_warmup: int = 0
    checkpoint_every: int = 10

    def __post_init__(self) -> None:
        """Check every field and store it in its plain type."""
        checked = {
            "envs": check_int("envs", self.envs, 1, 4096),
            "n_steps": check_int("n_steps", self.n_steps, 2, 100_000),
            "epochs": check_int("epochs", self.epochs, 1, 1000),
            "minibatches": check_int("minibatches", self.minibatches, 1, 10_000),
            "checkpoint_every": check_int("checkpoint_every", self.checkpoint_every, 1, 10**9),
            "critic_warmup": check_int("critic_warmup", self.critic_warmup, 0, 10**9),
            "learning_rate": check_float("learning_rate", self.learning_rate, 0.0, lo_open=True),
            "gamma": check_float("gamma", self.gamma, 0.0, 1.0),
            "gae_lambda": check_float("gae_lambda", self.gae_lambda, 0.0, 1.0),
            "clip_range": check_float("clip_range", self.clip_range, 0.0, lo_open=True),
            "ent_coef": check_float("ent_coef", self.ent_coef, 0.0),
            "vf_coef": check_float("vf_coef", self.vf_coef, 0.0),
            "max_grad_norm": check_float("max_grad_norm", self.max_grad_norm, 0.0, lo_open=True),
        }
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    @property
    def rollout_steps(self) -> int:
        """Learner steps per update: ``envs * n_steps``."""
        return self.envs * self.n_steps


# --------------------------------------------------------------------------------------------
# games
# --------------------------------------------------------------------------------------------


class _Slot:
    """One game slot: its game, who sits where, its permutation and the moves made."""

    def __init__(self, config: HanabiConfig):
        self.game = HanabiGame(config)
        self.deal = 0
        self.agent_seed = 0
        self.learner = -1  # -1: every seat (self-play)
        self.partner = 0
        self.perm_seat = -1  # -1: no permuted seat
        self.perm = 0
        self.moves: list[int] = []

    def state(self) -> list[int]:
        head = [self.deal, self.agent_seed, self.learner, self.partner, self.perm_seat, self.perm]
        return head + self.moves


class _Games:
    """``n`` games of the learner with itself or a pool (see the module docstring)."""

    def __init__(self, config, n, pool, teacher_agent, other_play, obs_type, gen):
        self.config, self.n, self.gen = config, n, gen
        self.obs_type = obs_type
        self.pool: list[list[Policy]] = pool  # pool[k][slot]: member k's instance of a slot
        self.teacher: list[list[Policy]] | None = teacher_agent  # [slot][seat]
        self.perms = colour_permutations(config.colors) if other_play else None
        self._maps: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.slots = [_Slot(config) for _ in range(n)]
        probe = HanabiGame(config)
        probe.reset(0)
        self.size = int(probe.observation(0, obs_type).shape[0])
        self.n_actions = probe.n_actions

    def maps(self, perm: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(obs_index, to_real, to_shown)`` of permutation number ``perm``."""
        if perm not in self._maps:
            assert self.perms is not None
            p = self.perms[perm]
            self._maps[perm] = (observation_index(self.config, p, self.obs_type),
                                *action_maps(self.config, p))  # fmt: skip
        return self._maps[perm]

    def is_learner(self, s: _Slot, seat: int) -> bool:
        return s.learner < 0 or s.learner == seat

    def deal(self, i: int) -> None:
        """Deal slot ``i`` anew from the generator, then let the partners move."""
        s, gen, players = self.slots[i], self.gen, self.config.players
        s.deal = int(gen.integers(0, SEED_LIMIT))
        s.agent_seed = int(gen.integers(0, SEED_LIMIT))
        s.learner = int(gen.integers(0, players)) if self.pool else -1
        s.partner = int(gen.integers(0, len(self.pool))) if self.pool else 0
        if self.perms is not None:
            s.perm_seat = s.learner if self.pool else int(gen.integers(0, players))
            s.perm = int(gen.integers(0, len(self.perms)))
        self._start(i, [])

    def _start(self, i: int, moves: list[int]) -> None:
        """Start slot ``i``'s deal and play ``moves`` (a resume), then the partners' turns."""
        s = self.slots[i]
        s.game.reset(s.deal, start_player=0)
        s.moves = []
        agents = [self.pool[s.partner][i]] if self.pool else []
        for agent in agents + (self.teacher[i] if self.teacher else []):
            agent.reset(s.agent_seed)
        for move in moves:
            seat = s.game.current_player
            if not self.is_learner(s, seat):
                self._partner_move(i)
                continue
            self._teacher_move(i)  # the teacher sees every learner decision, as in training
            s.game.step(int(move))
            s.moves.append(int(move))
        self.advance(i)

    def _partner_move(self, i: int) -> None:
        from agents.faults import policy_move

        s = self.slots[i]
        seat = s.game.current_player
        agent = self.pool[s.partner][i]
        legal = s.game.legal_mask()
        move = policy_move(agent, s.game.view(seat), legal, limit=None, game=i,
                           move=s.game.n_moves)  # fmt: skip
        s.game.step(int(move))
        s.moves.append(int(move))

    def advance(self, i: int) -> None:
        """Partners move in slot ``i`` until the learner's turn or the game's end."""
        s = self.slots[i]
        while not s.game.is_terminal and not self.is_learner(s, s.game.current_player):
            self._partner_move(i)

    def observe(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Slot ``i``'s learner observation and legal mask, as its seat sees them."""
        s = self.slots[i]
        seat = s.game.current_player
        obs = s.game.observation(seat, self.obs_type).astype(np.float32)
        mask = s.game.legal_mask().astype(bool)
        if seat == s.perm_seat:
            index, to_real, _ = self.maps(s.perm)
            obs, mask = obs[index], mask[to_real]
        return obs, mask

    def to_real(self, i: int, shown: int) -> int:
        s = self.slots[i]
        if s.game.current_player == s.perm_seat:
            return int(self.maps(s.perm)[1][shown])
        return int(shown)

    def _teacher_move(self, i: int) -> int:
        """The agent teacher's move on slot ``i``'s learner decision, in the shown game."""
        if not self.teacher:
            return -1
        from agents.faults import policy_move

        s = self.slots[i]
        seat = s.game.current_player
        move = policy_move(self.teacher[i][seat], s.game.view(seat), s.game.legal_mask(),
                           limit=None, game=i, move=s.game.n_moves)  # fmt: skip
        if seat == s.perm_seat:
            return int(self.maps(s.perm)[2][int(move)])
        return int(move)

    def step(self, i: int, shown: int) -> tuple[float, bool, int]:
        """Play the learner's move; ``(reward, done, final score)`` (score -1 if not done)."""
        s = self.slots[i]
        before = s.game.score
        real = self.to_real(i, shown)
        s.game.step(real)
        s.moves.append(real)
        self.advance(i)
        reward = float(s.game.score - before)
        if s.game.is_terminal:
            score = int(s.game.score)
            self.deal(i)
            return reward, True, score
        return reward, False, -1

    def restore(self, states: list[list[int]]) -> None:
        for i, state in enumerate(states):
            s = self.slots[i]
            s.deal, s.agent_seed, s.learner, s.partner, s.perm_seat, s.perm = state[:6]
            self._start(i, [int(m) for m in state[6:]])


# --------------------------------------------------------------------------------------------
# networks
# --------------------------------------------------------------------------------------------


def _load_actor(partner: Any, torch: Any) -> Any:
    """The start partner's MLP as a torch ``Sequential`` (float32)."""
    arch = partner.config["architecture"]
    net = _mlp(torch, arch["layers"], arch["activation"])
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for lin, (w_t, b) in zip(linears, partner._layers, strict=True):
            lin.weight.copy_(torch.as_tensor(np.ascontiguousarray(w_t.T), dtype=torch.float32))
            lin.bias.copy_(torch.as_tensor(b, dtype=torch.float32))
    return net


def _masked(logits: Any, mask: Any) -> Any:
    return logits.masked_fill(~mask, -1e9)


# --------------------------------------------------------------------------------------------
# the run
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Job:
    """:func:`finetune`'s arguments but the start and the folder, checked once (in this order)."""

    steps: int
    seed: int
    ppo: PPOSettings
    partners: Sequence[str] | None  # a tuple once checked ((): self-play)
    teacher: str | None
    teacher_coef: float
    teacher_decay_steps: int | None
    other_play: bool
    name: str
    weight_dtype: str
    resume: bool
    progress: bool
    threads: int | None

    def __post_init__(self) -> None:
        if not isinstance(self.ppo, PPOSettings):
            raise type_error("ppo", "a PPOSettings or None", self.ppo)
        checked = {
            "steps": check_int("steps", self.steps, 1, 10**10),
            "seed": check_seed("seed", self.seed),
            "teacher_decay_steps": check_optional_int(
                "teacher_decay_steps", self.teacher_decay_steps, 1
            ),
            "teacher_coef": check_float("teacher_coef", self.teacher_coef, 0.0),
            "other_play": check_bool("other_play", self.other_play),
            "resume": check_bool("resume", self.resume),
            "progress": check_bool("progress", self.progress),
            "name": _check_name(self.name),
            "weight_dtype": check_choice("weight_dtype", self.weight_dtype, ("float16", "float32")),
            "partners": tuple(_check_partners(self.partners)),
            "teacher": None if self.teacher is None else check_str("teacher", self.teacher),
        }
        if checked["teacher"] is not None and checked["teacher_coef"] == 0:
            raise ValueError("teacher is given but teacher_coef=0.0; allowed: teacher_coef > 0")
        if self.threads is not None:
            checked["threads"] = check_int("threads", self.threads, 1, 1024)
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    def settings(self) -> dict:
        """The settings recorded in the manifest and the export, by their keyword names.

        The PPO fields but ``checkpoint_every`` (it changes no result), flat beside the
        pool's and the teacher's, so folders written before :class:`PPOSettings` resume.
        """
        ppo = {f.name: getattr(self.ppo, f.name) for f in dataclasses.fields(PPOSettings)
               if f.name != "checkpoint_every"}  # fmt: skip
        return {"partners": list(self.partners or ()), "teacher": self.teacher,
                "teacher_coef": self.teacher_coef,
                "teacher_decay_steps": self.teacher_decay_steps, "other_play": self.other_play,
                **ppo, "name": self.name, "weight_dtype": self.weight_dtype}  # fmt: skip

    def teacher_coef_at(self, steps: int) -> float:
        """The teacher weight after ``steps`` learner steps (its linear decay, if any)."""
        if self.teacher_decay_steps is None:
            return self.teacher_coef
        return self.teacher_coef * max(0.0, 1.0 - steps / self.teacher_decay_steps)


@dataclass(frozen=True)
class _Start:
    """The start network (an :class:`agents.rl.RLPartner`), its game, the run's settings."""

    partner: Any
    config: HanabiConfig
    settings: dict  # recorded in the manifest and the export: {"start": digest, **_Job.settings()}


@dataclass
class _Run:
    """Everything a checkpoint holds, plus the live objects."""

    torch: Any
    actor: Any
    critic: Any
    frozen: Any
    opt: Any
    tgen: Any
    gen: np.random.Generator
    games: _Games
    teacher_net: Any  # an RLPartner teacher (numpy logits) or None
    steps: int = 0
    updates: int = 0
    cpu_seconds: float = 0.0
    curves: list | None = None


def _check_name(name: object) -> str:
    """``name`` as a file stem: a non-empty str, no ``/``, not starting with ``.``."""
    name = check_str("name", name)
    if "/" in name or name.startswith("."):
        raise ValueError(f"name={name!r} is not allowed; allowed: a file stem, no '/'")
    return name


def _check_partners(partners: object) -> list[str]:
    if partners is None:
        return []
    if isinstance(partners, str) or not isinstance(partners, Sequence):
        raise type_error("partners", "None or a list of agent specs", partners)
    specs = []
    for p in partners:
        if not isinstance(p, str) or not p.strip():
            raise type_error("partners[]", "an agent spec (a non-empty str) or 'self'", p)
        specs.append(p.strip())
    if specs == ["self"]:
        return []
    if "self" in specs:
        raise ValueError("partners: 'self' is allowed only alone (self-play)")
    if not specs:
        raise ValueError("partners is empty; allowed: None, ['self'] or agent specs")
    return specs


def _load_start(start: str | Path):
    from agents.rl.partners import load_partner

    path = Path(start)
    if path.suffix != ".json":
        raise ValueError(f"start={str(start)!r} is not allowed; allowed: a partner's PATH.json")
    if not path.is_file():
        raise ValueError(f"start={str(start)!r}: no such file")
    partner = load_partner(str(path))
    npz = path.parent / partner.config["weights"]["file"]
    digest = {"file": str(path), "sha256": sha256_file(path)[0],
              "weights_sha256": sha256_file(npz)[0]}  # fmt: skip
    return partner, HanabiConfig(**partner.config["game"]), digest


def _build_agents(specs: Sequence[str], n: int, config: HanabiConfig, seed: int, what: str):
    """``[k][slot]``: an instance of agent ``specs[k]`` for each of ``n`` slots."""
    from agents.registry import make

    out = []
    for k, spec in enumerate(specs):
        try:
            agent = make(spec, seed=derive_seed(seed, 100 + k))
        except (ValueError, TypeError, ImportError) as err:
            raise ValueError(f"{what}: {spec!r}: {err}") from None
        check = getattr(agent, "check_game", None)
        if callable(check):
            try:
                check(config)
            except ValueError as err:
                raise ValueError(f"{what}: {spec!r} cannot play the start's game: {err}") from None
        out.append([agent] + [copy.deepcopy(agent) for _ in range(n - 1)])
    return out


def finetune(
    start: str | Path,
    steps: int,
    out: str | Path,
    *,
    ppo: PPOSettings | None = None,
    partners: Sequence[str] | None = None,
    teacher: str | None = None,
    teacher_coef: float = 0.0,
    teacher_decay_steps: int | None = None,
    other_play: bool = False,
    seed: int = 0,
    name: str = "finetuned",
    weight_dtype: str = "float32",
    resume: bool = False,
    progress: bool = False,
    threads: int | None = 1,
    wait: bool = False,
    say: Callable[[str], None] | None = None,
) -> FinetuneResult:
    """Fine-tune a partner network with PPO (see the module docstring), writing to ``out``.

    Args:
        start: The start network, a partner's ``PATH.json`` (its NPZ beside it).
        steps: Learner decisions to train in all (with ``resume``: the total, more than the
            checkpoint's); rounded up to whole rollouts of ``ppo.envs * ppo.n_steps``.
        out: The output folder (created; see the module docstring for its files).
        ppo: PPO's settings (:class:`PPOSettings`; None: its defaults).
        partners: None or ``["self"]``: self-play; otherwise agent specs, the pool
            (:func:`agents.make`'s forms: ``"piers"``, ``"smartbot"``, ``"rl:ppo-sp1"``, ...).
        teacher: The regulariser's teacher, an agent spec (None: the start network, frozen).
        teacher_coef: The regulariser's weight, >= 0 (0: none).
        teacher_decay_steps: Steps over which the weight decays linearly to 0 (None: constant).
        other_play: Other-Play colour permutations (module docstring).
        seed: Seeds the deals, seats, partners, permutations, the critic, actions and batches.
        name: The exported partner's name and file stem (``out/NAME.json``).
        weight_dtype: The export's weights, ``"float32"`` (default) or ``"float16"``.
        resume: Continue ``out``'s run from its checkpoint (same settings and seed).
        progress: A tqdm bar over the steps.
        threads: torch's CPU threads while training, ``[1, 1024]`` (None: torch's setting).
        wait: Wait for another writer of ``out`` instead of refusing.
        say: Where notes go (default: none).

    Returns:
        The :class:`FinetuneResult`.

    Raises:
        ImportError: torch is not installed (``pip install "hanabi-adhoc[rl]"``).
        TypeError, ValueError: A bad argument (named), a start file that is not a partner,
            a partner or teacher that does not load or cannot play the start's game, a
            ``resume`` without a checkpoint, or a new run in a folder that holds one.
        hanabi_env.outputs.ResultFileError: ``out`` holds another run (other settings or
            seed), or a damaged checkpoint.
        agents.faults.AgentFault: A partner or teacher raised or chose an illegal move.
    """
    try:
        import torch
    except ImportError:  # pragma: no cover - the rl extra
        raise ImportError('finetune needs torch: pip install "hanabi-adhoc[rl]"') from None
    job = _Job(
        steps=steps, seed=seed, ppo=PPOSettings() if ppo is None else ppo, partners=partners,
        teacher=teacher, teacher_coef=teacher_coef, teacher_decay_steps=teacher_decay_steps,
        other_play=other_play, name=name, weight_dtype=weight_dtype, resume=resume,
        progress=progress, threads=threads,
    )  # fmt: skip
    partner, config, start_digest = _load_start(start)
    settings = {"start": start_digest, **job.settings()}
    with OutputFolder(out, kind=KIND, config=settings, seed=job.seed, wait=wait) as folder:
        _check_folder(folder, out, job.resume)
        old_threads = torch.get_num_threads()
        if job.threads is not None:
            torch.set_num_threads(job.threads)
        try:
            return _train(torch, job, _Start(partner, config, settings), folder, say)
        finally:
            torch.set_num_threads(old_threads)


def _check_folder(folder: OutputFolder, out: str | Path, resume: bool) -> None:
    """Refuse a new run in a folder that holds one, and a resume without a checkpoint."""
    has_checkpoint = folder.entry(CHECKPOINT + ".json") is not None
    if has_checkpoint and not resume:
        raise ValueError(
            f"{out} holds a fine-tuning run already; resume it (resume=True, --resume) "
            "or use another folder"
        )
    if resume and not has_checkpoint:
        raise ValueError(f"resume: {out} holds no checkpoint to continue")


def _build_teacher(job: _Job, start: _Start) -> tuple[Any, list[list[Policy]] | None]:
    """``(network teacher or None, agent teacher [slot][seat] or None)`` of ``job.teacher``."""
    if job.teacher is None:
        return None, None
    from agents.rl.partners import RLPartner

    n, p, partner = job.ppo.envs, start.config.players, start.partner
    built = _build_agents([job.teacher], n * p, start.config, job.seed, "teacher")[0]
    if not isinstance(built[0], RLPartner):
        return None, [built[i * p : (i + 1) * p] for i in range(n)]
    if built[0].observation_type != partner.observation_type:
        raise ValueError(
            f"teacher: {job.teacher!r} reads {built[0].observation_type!r} "
            f"observations, the start network {partner.observation_type!r}"
        )
    return built[0], None


def _new_run(torch: Any, job: _Job, start: _Start) -> _Run:
    partner, config, seed, n = start.partner, start.config, job.seed, job.ppo.envs
    pool = _build_agents(job.partners or (), n, config, seed, "partners")
    teacher_net, teacher_agents = _build_teacher(job, start)
    gen = np.random.default_rng(seed)
    games = _Games(config, n, pool, teacher_agents, job.other_play,
                   partner.observation_type, gen)  # fmt: skip
    torch.manual_seed(derive_seed(seed, 2))
    actor = _load_actor(partner, torch)
    frozen = copy.deepcopy(actor).requires_grad_(False)
    arch = partner.config["architecture"]
    critic = _mlp(torch, [*arch["layers"][:-1], 1], arch["activation"])
    params = list(actor.parameters()) + list(critic.parameters())
    opt = torch.optim.Adam(params, lr=job.ppo.learning_rate, eps=1e-5)
    tgen = torch.Generator().manual_seed(derive_seed(seed, 1))
    return _Run(torch, actor, critic, frozen, opt, tgen, gen, games, teacher_net, curves=[])


def _train(
    torch: Any, job: _Job, start: _Start, folder: OutputFolder, say: Callable[[str], None] | None
) -> FinetuneResult:
    run = _new_run(torch, job, start)
    if job.resume:
        _load_checkpoint(run, folder)
        if say:
            say(f"resumed at step {run.steps} (update {run.updates})")
    else:
        for i in range(run.games.n):
            run.games.deal(i)
    per_update = job.ppo.rollout_steps
    target = math.ceil(job.steps / per_update) * per_update
    if target <= run.steps and job.resume and say:
        say(f"{run.steps} steps trained already (asked: {job.steps}); exporting")
    bar = _bar(job.progress, target, run.steps)
    try:
        while run.steps < target:
            t_cpu = time.process_time()
            row = _update(run, job)
            run.cpu_seconds += time.process_time() - t_cpu
            row["cpu_seconds"] = run.cpu_seconds
            assert run.curves is not None
            run.curves.append(row)
            bar(per_update)
            if run.updates % job.ppo.checkpoint_every == 0 or run.steps >= target:
                _save_checkpoint(run, folder)
    finally:
        bar(0, close=True)
    return _finish(run, job, start, folder)


# --------------------------------------------------------------------------------------------
# one update: a rollout, then PPO's epochs
# --------------------------------------------------------------------------------------------


def _rollout(run: _Run, ppo: PPOSettings) -> dict:
    """One rollout of ``ppo.n_steps`` decisions in every game slot, with GAE's advantages."""
    torch, g = run.torch, run.games
    t_len, n = ppo.n_steps, g.n
    buf: dict[str, Any] = {
        "obs": np.zeros((t_len, n, g.size), np.float32),
        "mask": np.zeros((t_len, n, g.n_actions), bool),
        "act": np.zeros((t_len, n), np.int64),
        "logp": np.zeros((t_len, n), np.float32),
        "value": np.zeros((t_len, n), np.float32),
        "reward": np.zeros((t_len, n), np.float32),
        "done": np.zeros((t_len, n), np.float32),
        "tmove": np.full((t_len, n), -1, np.int64),
        "tlogits": np.zeros((t_len, n, g.n_actions), np.float32),
    }
    scores: list[int] = []
    for t in range(t_len):
        for i in range(n):
            buf["obs"][t, i], buf["mask"][t, i] = g.observe(i)
            if g.teacher:
                buf["tmove"][t, i] = g._teacher_move(i)
        obs = torch.as_tensor(buf["obs"][t])
        mask = torch.as_tensor(buf["mask"][t])
        with torch.no_grad():
            logits = _masked(run.actor(obs), mask)
            probs = torch.softmax(logits, 1)
            act = torch.multinomial(probs, 1, generator=run.tgen)[:, 0]
            logp = torch.log_softmax(logits, 1).gather(1, act[:, None])[:, 0]
            buf["value"][t] = run.critic(obs)[:, 0].numpy()
            ref = run.frozen(obs) if run.teacher_net is None else None
        buf["tlogits"][t] = (ref.numpy() if ref is not None
                             else run.teacher_net.logits(buf["obs"][t]))  # fmt: skip
        buf["act"][t], buf["logp"][t] = act.numpy(), logp.numpy()
        for i in range(n):
            reward, done, score = g.step(i, int(act[i]))
            buf["reward"][t, i], buf["done"][t, i] = reward, float(done)
            if done:
                scores.append(score)
    last = np.stack([g.observe(i)[0] for i in range(n)])
    with torch.no_grad():
        last_value = run.critic(torch.as_tensor(last))[:, 0].numpy()
    buf["adv"] = gae(buf["reward"], buf["done"], buf["value"], last_value, ppo.gamma,
                     ppo.gae_lambda, accumulate=np.float32)  # fmt: skip
    buf["ret"] = buf["adv"] + buf["value"]
    buf["scores"] = scores
    return buf


def _flat(buf: dict, torch: Any) -> dict:
    keys = ("obs", "mask", "act", "logp", "value", "adv", "ret", "tmove", "tlogits")
    return {k: torch.as_tensor(buf[k].reshape(-1, *buf[k].shape[2:])) for k in keys}


def _teacher_terms(run: _Run, b: dict, logp_all: Any) -> tuple[Any, Any, Any]:
    """``(loss per state, agreement per state, KL per state or None)`` toward the teacher."""
    torch = run.torch
    best = logp_all.argmax(1)
    if run.games.teacher:  # an agent teacher: its moves
        loss = -logp_all.gather(1, b["tmove"][:, None])[:, 0]
        return loss, (best == b["tmove"]).float(), None
    t_logp = torch.log_softmax(_masked(b["tlogits"], b["mask"]), 1)
    t_p = t_logp.exp()
    kl = (t_p * (t_logp - logp_all)).masked_fill(~b["mask"], 0.0).sum(1)
    return kl, (best == t_logp.argmax(1)).float(), kl


def _update(run: _Run, job: _Job) -> dict:
    """One update: a rollout, then PPO's epochs over it; the curves' row (no CPU seconds)."""
    torch, ppo = run.torch, job.ppo
    coef = job.teacher_coef_at(run.steps)
    buf = _rollout(run, ppo)
    data = _flat(buf, torch)
    total = data["obs"].shape[0]
    mb = max(1, total // ppo.minibatches)
    actor_on = run.updates >= ppo.critic_warmup
    stats: dict[str, list[float]] = {k: [] for k in ("approx_kl", "clip_fraction", "value_loss",
                                                     "policy_loss")}  # fmt: skip
    params = list(run.actor.parameters()) + list(run.critic.parameters())
    for _ in range(ppo.epochs):
        order = torch.randperm(total, generator=run.tgen)
        for lo in range(0, total - mb + 1, mb):
            idx = order[lo : lo + mb]
            b = {k: v[idx] for k, v in data.items()}
            logp_all = torch.log_softmax(_masked(run.actor(b["obs"]), b["mask"]), 1)
            logp = logp_all.gather(1, b["act"][:, None])[:, 0]
            adv = b["adv"]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv
            ratio = (logp - b["logp"]).exp()
            clip = ppo.clip_range
            pg = -torch.min(adv * ratio, adv * ratio.clamp(1 - clip, 1 + clip)).mean()
            value = run.critic(b["obs"])[:, 0]
            v_loss = ((value - b["ret"]) ** 2).mean()
            ent = -(logp_all.exp() * logp_all).masked_fill(~b["mask"], 0.0).sum(1).mean()
            loss = ppo.vf_coef * v_loss
            if actor_on:
                loss = loss + pg - ppo.ent_coef * ent
                if coef > 0:
                    loss = loss + coef * _teacher_terms(run, b, logp_all)[0].mean()
            run.opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, ppo.max_grad_norm)
            run.opt.step()
            with torch.no_grad():
                stats["approx_kl"].append(float(((ratio - 1) - (logp - b["logp"])).mean()))
                stats["clip_fraction"].append(float(((ratio - 1).abs() > clip).float().mean()))
                stats["value_loss"].append(float(v_loss))
                stats["policy_loss"].append(float(pg))
    run.steps += total
    run.updates += 1
    return _row(run, buf, data, stats, coef)


def _row(run: _Run, buf: dict, data: dict, stats: dict, coef: float) -> dict:
    torch = run.torch
    with torch.no_grad():
        logp_all = torch.log_softmax(_masked(run.actor(data["obs"]), data["mask"]), 1)
        _, agree, kl = _teacher_terms(run, data, logp_all)
        ent = -(logp_all.exp() * logp_all).masked_fill(~data["mask"], 0.0).sum(1).mean()
    scores = buf["scores"]
    return {
        "update": run.updates,
        "steps": run.steps,
        "episodes": len(scores),
        "mean_score": float(np.mean(scores)) if scores else float("nan"),
        "teacher_agreement": float(agree.mean()),
        "teacher_kl": float(kl.mean()) if kl is not None else float("nan"),
        "entropy": float(ent),
        **{k: float(np.mean(v)) for k, v in stats.items()},
        "teacher_coef": coef,
    }


# --------------------------------------------------------------------------------------------
# checkpoints, curves, export
# --------------------------------------------------------------------------------------------


def _net_state(run: _Run) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    for prefix, net in (("actor", run.actor), ("critic", run.critic)):
        for key, value in net.state_dict().items():
            arrays[f"{prefix}.{key}"] = value.detach().numpy().copy()
    state = run.opt.state_dict()
    for pid, entry in state["state"].items():
        for key, value in entry.items():
            arrays[f"adam.{pid}.{key}"] = np.asarray(value.detach().numpy()).copy()
    arrays["torch_generator"] = run.tgen.get_state().numpy().copy()
    return arrays


def _save_checkpoint(run: _Run, folder: OutputFolder) -> None:
    import io

    buf = io.BytesIO()
    np.savez(buf, **_net_state(run))  # type: ignore[arg-type]
    folder.write_bytes(CHECKPOINT + ".npz", buf.getvalue(), stage="train")
    doc = {
        "steps": run.steps,
        "updates": run.updates,
        "cpu_seconds": run.cpu_seconds,
        "generator": run.gen.bit_generator.state,
        "games": [s.state() for s in run.games.slots],
        "curves": run.curves,
        "npz_sha256": folder.entry(CHECKPOINT + ".npz")["sha256"],  # type: ignore[index]
    }
    folder.write_json(CHECKPOINT + ".json", doc, stage="train")
    _write_curves(run.curves or [], folder)


def _load_checkpoint(run: _Run, folder: OutputFolder) -> None:
    import io

    from hanabi_env.outputs import ResultFileError

    torch = run.torch
    doc = folder.load_json(CHECKPOINT + ".json")
    raw = folder.load_bytes(CHECKPOINT + ".npz")
    if folder.entry(CHECKPOINT + ".npz")["sha256"] != doc.get("npz_sha256"):  # type: ignore[index]
        raise ResultFileError(f"{folder.path}: checkpoint.npz is not checkpoint.json's")
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    for prefix, net in (("actor", run.actor), ("critic", run.critic)):
        keys = net.state_dict().keys()
        net.load_state_dict({k: torch.as_tensor(arrays[f"{prefix}.{k}"]) for k in keys})
    state = run.opt.state_dict()
    for pid in range(len(state["param_groups"][0]["params"])):
        entry = {k.split(".", 2)[2]: torch.as_tensor(v) for k, v in arrays.items()
                 if k.startswith(f"adam.{pid}.")}  # fmt: skip
        if entry:
            state["state"][pid] = entry
    run.opt.load_state_dict(state)
    run.tgen.set_state(torch.as_tensor(arrays["torch_generator"]))
    run.steps, run.updates = int(doc["steps"]), int(doc["updates"])
    run.cpu_seconds = float(doc["cpu_seconds"])
    run.curves = [{k: (float("nan") if v is None else v) for k, v in row.items()}
                  for row in doc["curves"]]  # fmt: skip
    run.games.restore(doc["games"])
    run.gen.bit_generator.state = doc["generator"]  # after the replay (it draws nothing)


def _write_curves(curves: list[dict], folder: OutputFolder) -> None:
    folder.write_csv("curves.csv", CURVE_FIELDS, curves, stage="train")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - the qd extra
        return
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
    steps = [r["steps"] for r in curves]
    for ax, keys in zip(axes, (("mean_score",), ("teacher_agreement",), ("entropy", "teacher_kl")),
                        strict=True):  # fmt: skip
        for key in keys:
            ax.plot(steps, [r[key] for r in curves], label=key.replace("_", " "))
        ax.set_xlabel("learner steps")
        ax.legend(fontsize=8)
    fig.tight_layout()
    with folder.staged("curves.png", stage="train") as tmp:
        fig.savefig(tmp, format="png", dpi=80)
    plt.close(fig)


def _finish(run: _Run, job: _Job, start: _Start, folder: OutputFolder) -> FinetuneResult:
    """Export the actor as ``NAME.json`` + ``NAME.npz`` with its ``training`` entry."""
    from agents.rl.export import export_network

    torch, name = run.torch, job.name
    partner, config, settings = start.partner, start.config, start.settings
    path = folder.path / f"{name}.json"
    last = (run.curves[-1] if run.curves else {}).items()
    training = {
        "algorithm": "PPO fine-tuning (agents.rl.finetune): clipped PPO on masked logits, "
        "Adam"
        + (", teacher regulariser" if job.teacher_coef > 0 else "")
        + (", Other-Play" if job.other_play else ""),
        "start": settings["start"],
        "start_name": partner.config.get("name"),
        "settings": {k: v for k, v in settings.items() if k != "start"},
        "seed": job.seed,
        "steps": run.steps,
        "updates": run.updates,
        "cpu_seconds": round(run.cpu_seconds, 3),
        "torch": torch.__version__,
        "curves": "curves.csv",
        "last": {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in last},
    }
    for stem in (f"{name}.json", f"{name}.npz"):
        folder.expect(stem, stage="export")
    exported = export_network(
        _linear_arrays(torch, run.actor), partner.config["architecture"]["activation"], path,
        name=name, game=config, observation_type=partner.observation_type,
        description=f"{partner.config.get('name')} fine-tuned by PPO for {run.steps} steps",
        weight_dtype=job.weight_dtype, extra={"training": training},
    )  # fmt: skip
    for stem in (f"{name}.json", f"{name}.npz"):
        folder.record(stem, stage="export")
    return FinetuneResult(exported, path, list(run.curves or []), run.steps, run.cpu_seconds)


def _bar(show: bool, total: int, done: int) -> Callable[..., None]:
    if not show:
        return lambda n, close=False: None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, initial=min(done, total), desc="fine-tuning", unit="step")

    def step(n: int, close: bool = False) -> None:
        if n:
            bar.update(n)
        if close:
            bar.close()

    return step
