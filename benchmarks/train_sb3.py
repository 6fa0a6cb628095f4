"""Benchmark: does MaskablePPO learn to partner a rule-based pool? (issue 6; not run in CI).

Trains sb3-contrib's ``MaskablePPO`` on :class:`agents.sb3.HanabiPartnerEnv` (one learning seat,
the other seat a partner drawn from the training pool each episode) for ``--steps`` learner
decisions on the CPU, and reports the mean ± s.e.m. score against the training pool
([CIG18]'s mixed evaluation over the pool, :func:`agents.evaluate.evaluate`, the learner in a
random seat) of

* the untrained model (the same initial weights),
* the trained model (deterministic: the most likely legal move),
* Legal Random with the same partners (the baseline the model must clearly beat).

Every evaluation plays the same deals and seats (common random numbers). Usage::

    python3 benchmarks/train_sb3.py --steps 300000 --pool IGGI,Piers,Outer --games 300

The command line and a markdown table of the results are printed at the end.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import torch

from agents import evaluate, make
from agents.sb3 import HanabiPartnerEnv, SB3Policy


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300_000, help="learner decisions to train on")
    p.add_argument("--pool", default="IGGI,Piers,Outer", help="training pool (baseline names)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--scoring", default="lenient", choices=["lenient", "strict"])
    p.add_argument("--games", type=int, default=300, help="evaluation games per partner")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-seed", type=int, default=12345)
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--n-steps", type=int, default=256, help="rollout length per env")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--n-epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--net-arch", default="256,256", help="hidden layer sizes")
    p.add_argument(
        "--torch-threads",
        "--threads",
        dest="threads",
        type=int,
        default=1,
        help="torch threads for training and acting (default 1, as agents.sb3)",
    )
    p.add_argument("--workers", type=int, default=1, help="evaluation processes")
    p.add_argument("--out", default="runs/sb3_partner", help="model path prefix")
    return p.parse_args(argv)


def progress_callback(total: int, t0: float):
    """An SB3 callback printing the steps done and the elapsed time every tenth of the run."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        next_report = max(1, total // 10)

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_report:
                dt = time.perf_counter() - t0
                print(f"{self.num_timesteps} steps, {dt:.0f} s", file=sys.stderr, flush=True)
                self.next_report += max(1, total // 10)
            return True

    return Progress()


def score(policy, pool: list[str], args) -> tuple[float, float]:
    res = evaluate(
        policy,
        mode="mixed",
        players=(args.players,),
        games=args.games,
        pool=pool,
        scoring=args.scoring,
        seed=args.eval_seed,
        workers=args.workers,
    )
    return res.mean, res.sem


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(args.threads)
    pool = [s.strip() for s in args.pool.split(",") if s.strip()]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    env_kwargs = {"partners": pool, "players": args.players, "scoring": args.scoring}
    vec = make_vec_env(HanabiPartnerEnv, n_envs=args.n_envs, seed=args.seed, env_kwargs=env_kwargs)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.lr,
        ent_coef=args.ent_coef,
        gamma=args.gamma,
        policy_kwargs={"net_arch": [int(x) for x in args.net_arch.split(",")]},
        seed=args.seed,
        device="cpu",
    )
    model.save(f"{out}_init.zip")
    rows = []
    t0 = time.perf_counter()
    init = SB3Policy(f"{out}_init.zip", torch_threads=args.threads)
    rows.append(("untrained model", 0, *score(init, pool, args)))
    rows.append(("Legal Random", 0, *score(make("LegalRandom"), pool, args)))
    t_eval = time.perf_counter() - t0
    print(f"before training: {rows}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=progress_callback(args.steps, t0))
    t_train = time.perf_counter() - t0
    model.save(f"{out}.zip")
    trained = SB3Policy(f"{out}.zip", torch_threads=args.threads)
    sampled = SB3Policy(f"{out}.zip", deterministic=False, torch_threads=args.threads)
    rows.append(("trained model", args.steps, *score(trained, pool, args)))
    rows.append(("trained model (sampled)", args.steps, *score(sampled, pool, args)))
    print()
    print("$ " + shlex.join(["python3", "benchmarks/train_sb3.py", *sys.argv[1:]]))
    print(
        f"\n{args.players} players, {args.scoring} scoring, training pool {', '.join(pool)}; "
        f"{args.games} games per partner, learner in a random seat; "
        f"training {t_train:.0f} s ({args.steps / t_train:.0f} steps/s), first evaluations "
        f"{t_eval:.0f} s\n"
    )
    print("| policy | training steps | mean score vs the pool | s.e.m. |")
    print("|---|---|---|---|")
    for name, steps, mean, sem in rows:
        print(f"| {name} | {steps} | {mean:.2f} | {sem:.2f} |")
    print(f"\nmodel saved to {out}.zip")


if __name__ == "__main__":
    main()
