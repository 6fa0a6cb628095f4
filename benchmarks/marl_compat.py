"""Does every MARL library run the env unmodified? Each library on hanabi_v5 and hanabi_env.

Each library's own entry point, side by side on PettingZoo's ``hanabi_v5`` and on ``hanabi_env``
(issue 31; docs/marl.md §1 quotes the output).

For each library that is installed, the check uses it the way its documentation does, with no
adapter of ours in between:

* **PettingZoo**: ``api_test``, ``seed_test`` and ``state_test`` (with PettingZoo's own
  ``turn_based_aec_to_parallel`` for the parallel half).
* **Tianshou**: its PettingZoo example (``test/pettingzoo/tic_tac_toe.py`` of Tianshou 2.0: a DQN
  learner against ``MARLRandomDiscreteMaskedOffPolicyAlgorithm``, ``PettingZooEnv``,
  ``Collector``, ``run_training``) for ``--steps`` environment steps.
* **TorchRL**: ``PettingZooWrapper(env, use_mask=True)`` through ``check_env_specs`` and a
  rollout to the end of a game; again with ``return_state=True`` (the global state).
* **RLlib**: ``PettingZooEnv(env)`` through ``check_multiagent_environments``, then a game of
  random legal moves through the wrapper.
* **AgileRL**: ``DQN.get_action(obs, epsilon, action_mask)`` in a self-play loop with its
  ``ReplayBuffer`` and ``learn``; and, for hanabi_env, on the single-agent partner env
  (``HanabiPartnerEnv``, its ``action_masks()``).
* **SuperSuit**: each wrapper that applies to AEC envs, through PettingZoo's ``api_test``.
* **SB3**: ``MaskablePPO`` through PettingZoo's SB3 action-masking tutorial pattern, then the
  saved model loaded with the *other* env attached and trained further.

A library that is not installed in this interpreter is reported as such, unless another
interpreter given with ``--python`` has it (RLlib pins Gymnasium 1.2.2 and AgileRL pins
PettingZoo < 1.27, so they live in venvs of their own): the script then runs itself there for
those libraries and merges the rows. Each cell says ``ok`` with what was done, or ``FAIL`` with
the exception; ``n/a`` where the check has no counterpart on that env.

Usage::

    python benchmarks/marl_compat.py [--steps 300] [--only tianshou,torchrl]
        [--python /path/to/other/venv/bin/python ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import logging
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
try:
    import hanabi_env
except ImportError:  # run from a checkout without installing: use the repository's package
    sys.path.insert(0, str(ROOT))
    import hanabi_env

# library key -> (display name, module that must import, distribution for the version)
LIBRARIES: dict[str, tuple[str, str, str]] = {
    "pettingzoo": ("PettingZoo", "pettingzoo", "pettingzoo"),
    "tianshou": ("Tianshou", "tianshou", "tianshou"),
    "torchrl": ("TorchRL", "torchrl", "torchrl"),
    "rllib": ("RLlib", "ray.rllib", "ray"),
    "agilerl": ("AgileRL", "agilerl", "agilerl"),
    "supersuit": ("SuperSuit", "supersuit", "supersuit"),
    "sb3": ("SB3", "sb3_contrib", "stable-baselines3"),
}
ENV_NAMES = ("hanabi_v5", "hanabi_env")


def make_hanabi_v5(**kwargs):
    """PettingZoo's ``hanabi_v5.env()`` (OpenSpiel through Shimmy)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import hanabi_v5

        return hanabi_v5.env(**kwargs)


MAKERS: dict[str, Callable] = {"hanabi_v5": make_hanabi_v5, "hanabi_env": hanabi_env.env}


class NotApplicable(Exception):
    """The check has no counterpart on this env (reported as ``n/a``)."""


# ---------------------------------------------------------------------------------------------
# PettingZoo
# ---------------------------------------------------------------------------------------------


def check_pettingzoo_api(make_env) -> str:
    """PettingZoo's ``api_test`` (1,000 cycles)."""
    from pettingzoo.test import api_test

    api_test(make_env(), num_cycles=1000)
    return "api_test passed"


def check_pettingzoo_seed(make_env) -> str:
    """PettingZoo's ``seed_test``."""
    from pettingzoo.test import seed_test

    seed_test(make_env, num_cycles=200)
    return "seed_test passed"


def check_pettingzoo_state(make_env) -> str:
    """PettingZoo's ``state_test``; the parallel half through ``turn_based_aec_to_parallel``."""
    from pettingzoo.test import state_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    env = make_env()
    if not hasattr(env.unwrapped, "state_space"):
        raise NotApplicable("no state_space")
    state_test(env, turn_based_aec_to_parallel(make_env()), num_cycles=100)
    return f"state_test passed, state {env.state_space.shape}"


# ---------------------------------------------------------------------------------------------
# Tianshou
# ---------------------------------------------------------------------------------------------


def check_tianshou(make_env, steps: int = 300, seed: int = 0) -> str:
    """Tianshou 2's PettingZoo example (``test/pettingzoo/tic_tac_toe.py``) on this env.

    A DQN learner in ``player_0`` and Tianshou's masked random player in ``player_1``,
    ``PettingZooEnv`` in ``DummyVectorEnv``, a ``VectorReplayBuffer`` (which refuses NaN), one
    epoch of ``steps`` environment steps.
    """
    import torch
    from tianshou.algorithm import (
        DQN,
        MARLRandomDiscreteMaskedOffPolicyAlgorithm,
        MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    def get_env():
        return PettingZooEnv(make_env())

    np.random.seed(seed)  # noqa: NPY002 - the example seeds numpy's global generator (Tianshou's)
    torch.manual_seed(seed)
    env = get_env()
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=int(env.action_space.n),
        hidden_sizes=[64, 64],
    )
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.05
    )
    learner = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=1e-4),
        n_step_return_horizon=3,
        gamma=0.9,
        target_update_freq=320,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    marl = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    train_envs = DummyVectorEnv([get_env for _ in range(2)])
    test_envs = DummyVectorEnv([get_env for _ in range(2)])
    train_envs.seed(seed)
    test_envs.seed(seed)
    train_collector = Collector[CollectStats](
        marl, train_envs, VectorReplayBuffer(1000, len(train_envs)), exploration_noise=True
    )
    test_collector = Collector[CollectStats](marl, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64)
    result = marl.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=1,
            epoch_num_steps=steps,
            collection_step_num_env_steps=10,
            test_step_num_episodes=2,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
            show_progress=False,
            verbose=False,
        )
    )
    return f"trained {result.train_step} steps, {result.update_step} updates"


# ---------------------------------------------------------------------------------------------
# TorchRL
# ---------------------------------------------------------------------------------------------


def check_torchrl(make_env, return_state: bool = False) -> str:
    """``PettingZooWrapper(env, use_mask=True)``: ``check_env_specs`` and a rollout of a game."""
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    logging.getLogger("torchrl").setLevel(logging.WARNING)  # its success line goes to stdout
    env = make_env()
    if return_state and not hasattr(env.unwrapped, "state_space"):
        raise NotApplicable("no state()")
    wrapped = PettingZooWrapper(env, use_mask=True, return_state=return_state, seed=0)
    check_env_specs(wrapped, seed=0)
    td = wrapped.rollout(400, break_when_any_done=True)
    if not bool(td["next", "done"][-1]):
        raise AssertionError("the rollout did not reach the end of the game")
    group = next(iter(wrapped.group_map))
    keys = wrapped.observation_spec[group].keys()
    info = len(wrapped.observation_spec[group, "info"].keys()) if "info" in keys else 0
    extra = ", state" if return_state else ""
    return f"specs ok, a {td.shape[0]}-step game, {info} info keys{extra}"


def check_torchrl_state(make_env) -> str:
    """:func:`check_torchrl` with ``return_state=True``."""
    return check_torchrl(make_env, return_state=True)


# ---------------------------------------------------------------------------------------------
# RLlib
# ---------------------------------------------------------------------------------------------


def check_rllib(make_env, seed: int = 0) -> str:
    """RLlib's ``PettingZooEnv``: ``check_multiagent_environments``, then a game."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = PettingZooEnv(make_env())
    check_multiagent_environments(env)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    moves, total = 0, 0.0
    while True:
        [(agent, o)] = obs.items()
        if not env.observation_space[agent].contains(o):
            raise AssertionError(f"observation of {agent} outside its space")
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, _ = env.step({agent: action})
        moves += 1
        total += sum(float(r) for r in rew.values()) / max(len(rew), 1)
        if term["__all__"] or trunc["__all__"]:
            break
    return f"check passed, a {moves}-move game"


# ---------------------------------------------------------------------------------------------
# AgileRL
# ---------------------------------------------------------------------------------------------


def _agilerl_dqn(observation_space, action_space):
    from agilerl.algorithms.dqn import DQN

    return DQN(
        observation_space=observation_space,
        action_space=action_space,
        batch_size=32,
        learn_step=4,
        net_config={"head_config": {"hidden_size": [64]}},
    )


def _agilerl_store(memory, obs, action, reward, next_obs, done) -> None:
    import torch
    from agilerl.components.data import Transition, transition_to_tensordict

    td = transition_to_tensordict(
        Transition(
            obs=np.asarray(obs, np.float32)[None],
            action=np.asarray([action]),
            reward=np.asarray([reward], np.float32),
            next_obs=np.asarray(next_obs, np.float32)[None],
            done=np.asarray([done], np.float32),
        )
    )
    td.batch_size = torch.Size([1])
    memory.add(td)


def check_agilerl(make_env, steps: int = 300, seed: int = 0) -> str:
    """AgileRL's DQN in self-play on the AEC env: ``get_action(..., action_mask=mask)``."""
    from agilerl.components.replay_buffer import ReplayBuffer

    env = make_env()
    first = env.possible_agents[0]
    agent = _agilerl_dqn(env.observation_space(first)["observation"], env.action_space(first))
    memory = ReplayBuffer(max_size=5000)
    env.reset(seed=seed)
    prev: dict = {}
    moves = updates = 0
    while moves < steps:
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if name in prev:  # the seat's previous move, now that its next state is known
                o, a = prev.pop(name)
                _agilerl_store(memory, o, a, reward, obs["observation"], term or trunc)
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            action = int(agent.get_action(obs["observation"][None], 0.2, mask[None])[0])
            if not mask[action]:
                raise AssertionError(f"AgileRL chose the illegal move {action}")
            prev[name] = (obs["observation"], action)
            env.step(action)
            moves += 1
            if moves % 4 == 0 and len(memory) >= agent.batch_size:
                agent.learn(memory.sample(agent.batch_size))
                updates += 1
        env.reset()
    return f"{moves} masked moves, {updates} updates"


def check_agilerl_partner_env(make_env, steps: int = 200, seed: int = 0) -> str:
    """AgileRL's DQN on the single-agent partner env with its ``action_masks()``."""
    if make_env is not hanabi_env.env:
        raise NotApplicable("no partner env")
    from agilerl.components.replay_buffer import ReplayBuffer

    from agents.sb3 import HanabiPartnerEnv

    env = HanabiPartnerEnv(["IGGI", "Piers"])
    agent = _agilerl_dqn(env.observation_space, env.action_space)
    memory = ReplayBuffer(max_size=5000)
    obs, _ = env.reset(seed=seed)
    updates = 0
    for t in range(steps):
        mask = env.action_masks()
        action = int(agent.get_action(obs[None], 0.2, mask[None])[0])
        next_obs, reward, term, trunc, _ = env.step(action)
        _agilerl_store(memory, obs, action, reward, next_obs, term or trunc)
        obs = env.reset()[0] if term or trunc else next_obs
        if t % 4 == 3 and len(memory) >= agent.batch_size:
            agent.learn(memory.sample(agent.batch_size))
            updates += 1
    if env.illegal_actions:
        raise AssertionError(f"{env.illegal_actions} illegal moves despite the mask")
    return f"{steps} masked moves, {updates} updates"


# ---------------------------------------------------------------------------------------------
# SuperSuit
# ---------------------------------------------------------------------------------------------


def _supersuit_wrappers() -> dict[str, Callable]:
    """Wrapper name -> ``wrap(env)`` with the arguments of the check."""
    import gymnasium
    import supersuit as ss

    def to_float32(obs, _space):
        return {**obs, "observation": obs["observation"].astype(np.float32)}

    def float32_space(space):
        box = gymnasium.spaces.Box(0, 1, space["observation"].shape, np.float32)
        return gymnasium.spaces.Dict({"observation": box, "action_mask": space["action_mask"]})

    return {
        "clip_reward_v0": lambda e: ss.clip_reward_v0(e, -1, 1),
        "reward_lambda_v0": lambda e: ss.reward_lambda_v0(e, lambda r: 2 * r),
        "action_lambda_v1": lambda e: ss.action_lambda_v1(e, lambda a, _s: a, lambda s: s),
        "observation_lambda_v0": lambda e: ss.observation_lambda_v0(e, to_float32, float32_space),
        "frame_skip_v0": lambda e: ss.frame_skip_v0(e, 2),
        "pad_action_space_v0": ss.pad_action_space_v0,
        "delay_observations_v0": lambda e: ss.delay_observations_v0(e, 1),
        "sticky_actions_v0": lambda e: ss.sticky_actions_v0(e, 0.25),
        # observation wrappers for Box spaces only: both envs observe a Dict (mask included)
        "dtype_v0": lambda e: ss.dtype_v0(e, np.float32),
        "flatten_v0": ss.flatten_v0,
        "normalize_obs_v0": ss.normalize_obs_v0,
        "frame_stack_v1": lambda e: ss.frame_stack_v1(e, 2),
        "pad_observations_v0": ss.pad_observations_v0,
        "agent_indicator_v0": ss.agent_indicator_v0,
    }


SUPERSUIT_WRAPPERS = (
    "clip_reward_v0",
    "reward_lambda_v0",
    "action_lambda_v1",
    "observation_lambda_v0",
    "frame_skip_v0",
    "pad_action_space_v0",
    "delay_observations_v0",
    "sticky_actions_v0",
    "dtype_v0",
    "flatten_v0",
    "normalize_obs_v0",
    "frame_stack_v1",
    "pad_observations_v0",
    "agent_indicator_v0",
)
"""The SuperSuit wrappers checked (those that apply to AEC envs), in table order."""


def check_supersuit(make_env, wrapper: str) -> str:
    """One SuperSuit wrapper around the env, through PettingZoo's ``api_test``."""
    from pettingzoo.test import api_test

    api_test(_supersuit_wrappers()[wrapper](make_env()), num_cycles=50)
    return "api_test passed"


# ---------------------------------------------------------------------------------------------
# Stable-Baselines3
# ---------------------------------------------------------------------------------------------


def _sb3_masked(aec_env):
    """PettingZoo's SB3 action-masking tutorial pattern (``agents.sb3``) around an AEC env."""
    from sb3_contrib.common.wrappers import ActionMasker

    from agents.sb3 import SB3ActionMaskWrapper, mask_fn

    env = ActionMasker(SB3ActionMaskWrapper(aec_env), mask_fn)
    env.reset(seed=0)
    return env


def check_sb3(make_env, steps: int = 64) -> str:
    """``MaskablePPO`` trains here, then continues with the other env attached."""
    from sb3_contrib import MaskablePPO

    other = next(m for m in MAKERS.values() if m is not make_env)
    kw = {"n_steps": steps, "batch_size": steps, "n_epochs": 1, "device": "cpu"}
    model = MaskablePPO("MlpPolicy", _sb3_masked(make_env()), seed=0, **kw)
    model.learn(steps)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.zip"
        model.save(path)
        moved = MaskablePPO.load(path, env=_sb3_masked(other()), device="cpu")
        moved.learn(steps, reset_num_timesteps=False)
    return f"trained {steps} steps, then {moved.num_timesteps - steps} on the other env"


# ---------------------------------------------------------------------------------------------
# running and reporting
# ---------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One check on both envs.

    Attributes:
        library: Key of :data:`LIBRARIES`.
        check: What was run.
        cells: Env name -> result text (``ok: ...``, ``FAIL: ...``, ``n/a: ...``).
        seconds: Env name -> wall seconds of the check.
        version: The library's version (or ``not installed``).
    """

    library: str
    check: str
    cells: dict[str, str]
    seconds: dict[str, float]
    version: str


def _steps(fn: Callable, steps: int) -> Callable:
    """``fn`` with its ``steps`` argument fixed."""
    return lambda make_env: fn(make_env, steps)


def checks(steps: int) -> list[tuple[str, str, Callable]]:
    """``(library, check name, function(make_env) -> detail)``, in table order."""
    out: list[tuple[str, str, Callable]] = [
        ("pettingzoo", "api_test", check_pettingzoo_api),
        ("pettingzoo", "seed_test", check_pettingzoo_seed),
        ("pettingzoo", "state_test", check_pettingzoo_state),
        ("tianshou", "PettingZoo example: DQN vs masked random", _steps(check_tianshou, steps)),
        ("torchrl", "PettingZooWrapper(use_mask=True)", check_torchrl),
        ("torchrl", "... return_state=True", check_torchrl_state),
        ("rllib", "PettingZooEnv + multi-agent check", check_rllib),
        ("agilerl", "DQN with action masks (AEC self-play)", _steps(check_agilerl, steps)),
        ("agilerl", "DQN on HanabiPartnerEnv (action_masks)", check_agilerl_partner_env),
    ]
    out += [("supersuit", w, lambda m, w=w: check_supersuit(m, w)) for w in SUPERSUIT_WRAPPERS]
    out.append(("sb3", "MaskablePPO (tutorial pattern), model to the other env", check_sb3))
    return out


def library_version(key: str) -> str | None:
    """The installed version of a library, or None when it does not import."""
    _, module, dist = LIBRARIES[key]
    if importlib.util.find_spec(module.split(".")[0]) is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importlib.import_module(module)
    except Exception:
        return None
    return metadata.version(dist)


def _run_one(fn: Callable, make_env) -> tuple[str, float]:
    t0 = time.perf_counter()
    try:  # the libraries' own prints (api_test, loggers) go to stderr: stdout is the table
        with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stderr):
            warnings.simplefilter("ignore")
            detail = fn(make_env)
        text = f"ok: {detail}"
    except NotApplicable as err:
        text = f"n/a: {err}"
    except Exception as err:  # the point is to report every failure, whatever it is
        msg = " ".join(str(err).split())[:90]
        text = f"FAIL: {type(err).__name__}: {msg}"
        if os.environ.get("MARL_COMPAT_TRACEBACKS"):
            traceback.print_exc()
    return text, time.perf_counter() - t0


def run_local(libraries: list[str], steps: int, say=print) -> list[Row]:
    """Run the checks of ``libraries`` in this interpreter (``not installed`` rows otherwise)."""
    rows = []
    for lib, name, fn in checks(steps):
        if lib not in libraries:
            continue
        version = library_version(lib)
        if version is None:
            cells = dict.fromkeys(ENV_NAMES, "not installed")
            rows.append(Row(lib, name, cells, dict.fromkeys(ENV_NAMES, 0.0), "not installed"))
            continue
        cells, seconds = {}, {}
        for env_name in ENV_NAMES:
            cells[env_name], seconds[env_name] = _run_one(fn, MAKERS[env_name])
            say(f"  {LIBRARIES[lib][0]} {name} on {env_name}: {cells[env_name]}", file=sys.stderr)
        rows.append(Row(lib, name, cells, seconds, version))
    return rows


def run_elsewhere(python: str, libraries: list[str], steps: int) -> list[Row]:
    """Run this script in another interpreter for ``libraries``; its rows."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        cmd = [python, __file__, "--only", ",".join(libraries), "--steps", str(steps)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        subprocess.run([*cmd, "--json", str(out)], env=env, check=True, stdout=sys.stderr)
        data = json.loads(out.read_text())
    return [Row(**r) for r in data["rows"]]


def environment(python: str | None = None) -> str:
    """One line: Python, PettingZoo, Gymnasium, NumPy, torch versions of an interpreter."""
    if python is not None:
        code = "import benchmarks.marl_compat as m; print(m.environment())"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        res = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True)
        return res.stdout.strip()
    parts = [f"Python {platform.python_version()}"]
    for dist in ("pettingzoo", "gymnasium", "numpy", "torch"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} -")
    return ", ".join(parts)


def table(rows: list[Row]) -> str:
    """The Markdown table of the rows (docs/marl.md quotes it)."""
    lines = [
        "| library | check | hanabi_v5 | hanabi_env |",
        "|---|---|---|---|",
    ]
    for r in rows:
        lib = f"{LIBRARIES[r.library][0]} {r.version}"
        cells = [r.cells[e] for e in ENV_NAMES]
        lines.append(f"| {lib} | {r.check} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the checks, print the table; exit 1 if a check fails on hanabi_env."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    parser.add_argument("--only", default=",".join(LIBRARIES), help="comma-separated libraries")
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        help="another interpreter for the libraries missing here (repeatable)",
    )
    parser.add_argument("--json", help="also write the rows as JSON to this path")
    args = parser.parse_args(argv)
    wanted = [x.strip().lower() for x in args.only.split(",") if x.strip()]
    unknown = sorted(set(wanted) - set(LIBRARIES))
    if unknown:
        parser.error(f"--only: unknown {unknown}; allowed: {', '.join(LIBRARIES)}")
    rows = run_local(wanted, args.steps)
    lines = [f"this interpreter ({sys.executable}): {environment()}"]
    for python in args.python:
        missing = sorted({r.library for r in rows if r.version == "not installed"})
        if not missing:
            break
        theirs = run_elsewhere(python, missing, args.steps)
        theirs = [r for r in theirs if r.version != "not installed"]
        found = {r.library for r in theirs}
        rows = [r for r in rows if r.library not in found] + theirs
        if found:
            lines.append(f"{', '.join(sorted(found))} in {python}: {environment(python)}")
    rows.sort(key=lambda r: list(LIBRARIES).index(r.library))
    print("$ python benchmarks/marl_compat.py " + " ".join(argv or sys.argv[1:]))
    print("\n".join(lines) + "\n")
    print(table(rows))
    total = sum(sum(r.seconds.values()) for r in rows)
    print(f"\n{len(rows)} checks, {total:.0f} s of checking")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": [asdict(r) for r in rows]}, indent=1))
    return 1 if any(r.cells["hanabi_env"].startswith("FAIL") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
