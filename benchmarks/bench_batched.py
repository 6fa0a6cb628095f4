"""Neural policies at compiled speed: the batched paths against their anchors, in one run.

Three measurements, each printed with its anchor measured in the same run and the ratio
(compare ratios, not absolute numbers; docs/anchors.md §4):

1. **A pool with a MaskablePPO partner** (``rl`` extra): games per CPU-second of the
   [CIG18] mixed protocol (IGGI evaluated with the PPO partner, 2 players, one process), on
   the per-game path that ``agents.evaluate`` used before batch policies (each seat's ``act``,
   one ``predict`` per decision: ``agents.evaluate._run_policy_games``) and on the lockstep
   path it uses now (:mod:`agents.lockstep`); the same pool with IGGI in place of the partner
   (the all-rule kernel) as the upper anchor. Target: lockstep >= 50x the per-game path. The
   two paths' games are compared on the shared seeds (they must be identical).
2. **The vector env** (:class:`hanabi_env.vector.HanabiVectorEnv`), uniformly random legal
   actions drawn from the masks with numpy every step (their cost included), observation and
   mask of every game every step: steps per second, against OpenSpiel's ``hanabi`` stepped
   from Python with ``observation_tensor`` every step (target >= 20x) and, when a Python with
   ``jaxmarl`` is given (``--jax-python``; JaxMARL needs other Gymnasium and JAX versions than
   this project), JaxMARL's Hanabi with ``jit`` + ``vmap`` on the CPU over the same numbers of
   envs. Every ``--envs`` count is measured (default 1,024, JaxMARL's usual batch, and 4,096).
   Absolute target: >= 1M steps/s on 2 cores.
3. **MaskablePPO self-play rollouts** (``rl`` extra): rollout collection (``collect_rollouts``)
   through the AEC env and PettingZoo's SB3 wrapper pattern
   (``agents.sb3.train_self_play``'s route) against the vector env's SB3 adapter
   (``agents.sb3.vec_env.HanabiSB3VecEnv``); target >= 10x; and whole training (``learn``,
   the PPO update included) steps per second on both.

Usage::

    python benchmarks/bench_batched.py [--seconds 5] [--envs 1024 4096] [--threads 1 2]
        [--jax-python /path/to/venv/bin/python] [--skip-rl] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
try:
    import hanabi_env  # noqa: F401
except ImportError:  # run from a checkout without installing: use the repository's package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_env import fmt, machine_info, measure, pyspiel_player

POOL_TARGET = 50.0
VECTOR_TARGET = 20.0
VECTOR_ABSOLUTE = 1e6
ROLLOUT_TARGET = 10.0

JAX_SCRIPT = r"""
import json, sys, time
import jax, jax.numpy as jnp
from jaxmarl import make
n, seconds = int(sys.argv[1]), float(sys.argv[2])
env = make("hanabi")
agents = env.agents

def sample(key, avail):
    keys = jax.random.split(key, len(agents))
    return {a: jax.random.categorical(k, jnp.where(avail[a] > 0, 0.0, -1e9))
            for a, k in zip(agents, keys)}

def one_env_step(carry, _):
    key, state = carry
    key, k_act, k_step = jax.random.split(key, 3)
    avail = env.get_legal_moves(state)
    obs, state, reward, done, info = env.step(k_step, state, sample(k_act, avail))
    return (key, state), done["__all__"]

def rollout(keys, states, steps):
    f = lambda k, s: jax.lax.scan(one_env_step, (k, s), None, length=steps)
    (keys, states), dones = jax.vmap(f)(keys, states)
    return keys, states, dones

keys = jax.random.split(jax.random.PRNGKey(0), n)
_, states = jax.vmap(env.reset)(keys)
run = jax.jit(rollout, static_argnums=2)
keys, states, dones = run(keys, states, 100)  # compile
jax.block_until_ready(dones)
steps = 0
t0 = time.perf_counter()
while time.perf_counter() - t0 < seconds:
    keys, states, dones = run(keys, states, 100)
    jax.block_until_ready(dones)
    steps += n * 100
dt = time.perf_counter() - t0
print(json.dumps({"steps_per_s": steps / dt, "jax": jax.__version__,
                  "devices": [str(d) for d in jax.devices()]}))
"""


# --------------------------------------------------------------------------------------------
# 1. a pool with a MaskablePPO partner
# --------------------------------------------------------------------------------------------


def ppo_partner(folder: Path):
    """An (untrained) MaskablePPO with SB3's default MlpPolicy, saved and loaded as a policy.

    Training changes the weights, not the cost of a decision, so an untrained model times
    the same as a trained one.
    """
    from sb3_contrib import MaskablePPO

    from agents.sb3 import HanabiPartnerEnv, SB3Policy

    model = MaskablePPO("MlpPolicy", HanabiPartnerEnv(["IGGI"]), seed=0, device="cpu")
    path = folder / "ppo_partner.zip"
    model.save(str(path))
    return SB3Policy(path, name="MaskablePPO")


def cpu_timed(fn):
    """``(result, CPU seconds of this process)``."""
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def bench_pool(games_old: int, games_new: int, seed: int) -> dict:
    """Games per CPU-second of the mixed protocol with a PPO partner: old path vs lockstep."""
    import agents
    from agents.evaluate import _run_policy_games, game_seeds, play_games
    from hanabi_env.config import HanabiConfig

    cfg = HanabiConfig(players=2, scoring="lenient")
    iggi = agents.make("iggi")
    with tempfile.TemporaryDirectory() as tmp:
        ppo = ppo_partner(Path(tmp))
        n = max(games_old, games_new)
        seats, deals, agent_seeds = game_seeds(seed, n, 2, random_seat=True)
        seat_agents = np.ones((n, 2), dtype=np.int64)
        seat_agents[np.arange(n), seats] = 0
        pools = [iggi, ppo]
        play_games(pools, seat_agents[:50], deals[:50], agent_seeds[:50], cfg)  # warm up
        _run_policy_games(cfg, pools, seat_agents[:5], deals[:5], agent_seeds[:5])
        old, t_old = cpu_timed(
            lambda: _run_policy_games(
                cfg, pools, seat_agents[:games_old], deals[:games_old], agent_seeds[:games_old]
            )
        )
        new, t_new = cpu_timed(
            lambda: play_games(
                pools, seat_agents[:games_new], deals[:games_new], agent_seeds[:games_new], cfg
            )
        )
        _rule, t_rule = cpu_timed(
            lambda: play_games(
                [iggi, agents.make("iggi")], seat_agents, deals, agent_seeds, cfg, workers=1
            )
        )
        identical = bool(np.array_equal(old[0], new.scores[:games_old]))
    rates = {
        "per_game_path": games_old / t_old,
        "lockstep": games_new / t_new,
        "all_rule_kernel": n / t_rule,
    }
    print("1. pool with a MaskablePPO partner (mixed, 2 players, one process), games/CPU-s")
    for k, v in rates.items():
        print(f"  {k:<22} {fmt(v):>8}")
    ratio = rates["lockstep"] / rates["per_game_path"]
    verdict = "PASS" if ratio >= POOL_TARGET else "MISS"
    print(f"  lockstep / per-game    {ratio:8.1f}x  (target >= {POOL_TARGET:.0f}x: {verdict})")
    print(f"  lockstep / all-rule    {rates['lockstep'] / rates['all_rule_kernel']:8.3f}x")
    print(f"  same games on the {games_old} shared seeds: {identical}")
    return {**rates, "ratio": ratio, "identical": identical}


# --------------------------------------------------------------------------------------------
# 2. the vector env
# --------------------------------------------------------------------------------------------


def bench_vector(envs: int, threads: int, dtype: str, seconds: float) -> dict:
    """Steps/s of the vector env with numpy-drawn random legal actions."""
    from hanabi_env.vector import HanabiVectorEnv

    venv = HanabiVectorEnv(envs, threads=threads, observation_dtype=dtype, copy=False)
    _, infos = venv.reset(seed=0)
    rng = np.random.default_rng(0)

    def actions(mask: np.ndarray) -> np.ndarray:
        u = rng.random(mask.shape, dtype=np.float32)
        u[mask == 0] = -1.0
        return u.argmax(axis=1)

    for _ in range(20):
        _, _, _, _, infos = venv.step(actions(infos["action_mask"]))
    steps = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        _, _, _, _, infos = venv.step(actions(infos["action_mask"]))
        steps += envs
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    venv.close()
    name = f"vector env, {envs} envs, {threads} thread(s), {dtype}"
    print(f"  {name:<46} {fmt(steps / wall):>8} steps/s  ({cpu / wall:.2f} CPUs busy)")
    return {"steps_per_s": steps / wall, "cpu_per_wall": cpu / wall}


def bench_jaxmarl(python: str, envs: int, seconds: float) -> dict | None:
    """JaxMARL's Hanabi (jit + vmap, CPU) in a subprocess of ``python``; None if it fails."""
    try:
        out = subprocess.run(
            [python, "-c", JAX_SCRIPT, str(envs), str(seconds)],
            capture_output=True,
            text=True,
            timeout=900,
            env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"},
        )
        result = json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as err:
        print(f"  JaxMARL: not measured ({err})")
        return None
    name = f"JaxMARL hanabi, jit+vmap {envs} envs (jax {result['jax']})"
    print(f"  {name:<46} {fmt(result['steps_per_s']):>8} steps/s")
    return result


# --------------------------------------------------------------------------------------------
# 3. MaskablePPO self-play rollouts
# --------------------------------------------------------------------------------------------


def _rollout_rate(model, env, n_steps: int, repeats: int) -> float:
    from stable_baselines3.common.callbacks import BaseCallback

    class Nothing(BaseCallback):
        def _on_step(self) -> bool:
            return True

    model._setup_learn(n_steps * env.num_envs * repeats, callback=None)
    callback = Nothing()
    callback.init_callback(model)
    t0 = time.perf_counter()
    for _ in range(repeats):
        model.collect_rollouts(env, callback, model.rollout_buffer, n_steps)
    return n_steps * env.num_envs * repeats / (time.perf_counter() - t0)


def bench_rollouts(envs: int, seconds: float) -> dict:
    """Rollout collection and whole-training steps/s: AEC wrappers vs the vector env."""
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.vec_env import DummyVecEnv

    import hanabi_env
    from agents.sb3 import SB3ActionMaskWrapper, mask_fn
    from agents.sb3.vec_env import HanabiSB3VecEnv

    torch.set_num_threads(1)
    aec = DummyVecEnv([lambda: ActionMasker(SB3ActionMaskWrapper(hanabi_env.env()), mask_fn)])
    vec = HanabiSB3VecEnv(envs, observation_dtype="float32")
    out = {}
    for name, env, n_steps in (("AEC wrappers", aec, 2048), ("vector env", vec, 16)):
        model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, seed=0, device="cpu")
        _rollout_rate(model, env, n_steps, 1)  # warm up
        repeats = max(1, int(seconds * 1500 / (n_steps * env.num_envs)))
        rate = _rollout_rate(model, env, n_steps, repeats)
        total = max(n_steps * env.num_envs, 4096)
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=n_steps, batch_size=min(2048, total), seed=0, device="cpu"
        )
        t0 = time.perf_counter()
        model.learn(total_timesteps=total)
        train = total / (time.perf_counter() - t0)
        out[name] = {"rollout_steps_per_s": rate, "train_steps_per_s": train}
        print(f"  {name:<22} rollouts {fmt(rate):>8} steps/s   whole training {fmt(train):>8}")
    ratio = out["vector env"]["rollout_steps_per_s"] / out["AEC wrappers"]["rollout_steps_per_s"]
    verdict = "PASS" if ratio >= ROLLOUT_TARGET else "MISS"
    print(f"  rollouts: vector / AEC {ratio:8.1f}x  (target >= {ROLLOUT_TARGET:.0f}x: {verdict})")
    return {**out, "ratio": ratio}


# --------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="timed seconds per system")
    p.add_argument(
        "--envs", type=int, nargs="+", default=[1024, 4096], help="games of the vector env"
    )
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument(
        "--pool-games",
        type=int,
        nargs=2,
        default=[200, 4000],
        metavar=("OLD", "NEW"),
        help="games timed on the per-game / lockstep path",
    )
    p.add_argument("--jax-python", help="a Python with jaxmarl installed (its own venv)")
    p.add_argument("--skip-rl", action="store_true", help="skip the MaskablePPO parts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the results here")
    return p.parse_args(argv)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    info = machine_info()
    print(f"machine: {info['processor']}, {info['cpus_usable']} usable CPUs, "
          f"numba {info['numba']}, open_spiel {info['open_spiel']}")  # fmt: skip
    results: dict = {"machine": info}
    if not args.skip_rl:
        results["pool"] = bench_pool(*args.pool_games, seed=args.seed)
    print("2. random legal play with observations and masks, steps/s")
    cfg = {"players": 2}
    spiel = measure(
        "OpenSpiel hanabi + observation_tensor",
        lambda s: pyspiel_player(cfg, s, observe=True),
        args.seconds,
        args.seed,
    )
    vec: dict[str, dict] = {}
    for envs in args.envs:
        for threads in args.threads:
            for dtype in ("float32", "float64"):
                vec[f"{envs}:{threads}:{dtype}"] = bench_vector(envs, threads, dtype, args.seconds)
    best_at = {
        envs: max(v["steps_per_s"] for k, v in vec.items() if k.startswith(f"{envs}:"))
        for envs in args.envs
    }
    best = max(best_at.values())
    jax = {}
    if args.jax_python:
        for envs in args.envs:
            jax[envs] = bench_jaxmarl(args.jax_python, envs, args.seconds)
    for envs in args.envs:
        ratio = best_at[envs] / spiel.steps_per_s
        print(f"  best vector, {envs} envs / OpenSpiel  {ratio:6.1f}x  (target >= "
              f"{VECTOR_TARGET:.0f}x: {'PASS' if ratio >= VECTOR_TARGET else 'MISS'})")  # fmt: skip
    print(f"  best vector, absolute      {fmt(best):>8} steps/s  (target >= 1M: "
          f"{'PASS' if best >= VECTOR_ABSOLUTE else 'MISS'})")  # fmt: skip
    for envs, res in jax.items():
        if res:
            jr = best_at[envs] / res["steps_per_s"]
            print(f"  best vector / JaxMARL, {envs} envs each  {jr:6.1f}x")
    results["vector"] = {"ours": vec, "openspiel_obs": spiel.steps_per_s, "jaxmarl": jax}
    if not args.skip_rl:
        print("3. MaskablePPO self-play")
        results["rollouts"] = bench_rollouts(min(args.envs[0], 256), args.seconds)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
