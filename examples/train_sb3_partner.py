"""Train a MaskablePPO partner against rule-based agents, evaluate it, add it to a meta-agent pool.

1. Train sb3-contrib's ``MaskablePPO`` on the CPU in :class:`agents.sb3.HanabiPartnerEnv`: one
   learning seat, the other a partner drawn from a rule-based training pool at every reset.
2. Save it, load it back as an :class:`agents.sb3.SB3Policy` (the model file is loaded once
   per process; the policy pickles to worker processes without it).
3. Evaluate it against the test pool ([CIG18]'s mixed evaluation, mean ± s.e.m.).
4. Put it in the Bayesian meta-agent's pools (responses R, hypotheses H and evaluation pool E,
   [Bayes21]): one match-up table with rule agents, one meta-agent evaluation.

Usage (the defaults, 20,000 training steps and 100 games per evaluation, finish in under 3
minutes on two cores: 72 s wall, 65 s CPU measured, about 40 s of it training; the time each
step ends is printed. Tiny settings run in seconds)::

    python3 examples/train_sb3_partner.py
    python3 examples/train_sb3_partner.py --steps 512 --games 4 --out /tmp/partner.zip

Torch runs on one thread (``--torch-threads 1``, the default of :mod:`agents.sb3`): these
small networks train as fast on one thread as on two, and torch's default (one thread per core)
slows to a crawl when other processes share the cores (46-85 steps/s against ~600). More
steps give a stronger partner (50,000: 5.5 vs the test pool, against 4.5 for 20,000) in
proportionally more time.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from agents import TEST_POOL, evaluate, make
from agents.sb3 import SB3Policy, train_maskable_ppo
from meta import build_table, evaluate_meta


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20_000, help="training steps (learner moves)")
    p.add_argument("--pool", default="IGGI,Piers,Outer", help="training pool (baseline names)")
    p.add_argument("--games", type=int, default=100, help="games per partner / table pair")
    p.add_argument("--episodes", type=int, default=2, help="meta-agent episodes per partner")
    p.add_argument("--meta-games", type=int, default=5, help="games per meta-agent episode")
    p.add_argument("--scoring", default="lenient", choices=["lenient", "strict"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="evaluation processes")
    p.add_argument(
        "--torch-threads", type=int, default=1, help="torch threads for training and acting"
    )
    p.add_argument("--out", default="sb3_partner.zip", help="where to save the model")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    pool = [s.strip() for s in args.pool.split(",") if s.strip()]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    t0, c0 = time.perf_counter(), time.process_time()

    def clock() -> str:
        return f"{time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU"

    # 1. train against the rule-based pool, on the CPU, and save
    n_steps = max(64, min(2048, args.steps))
    train_maskable_ppo(
        pool,
        args.steps,
        seed=args.seed,
        path=out,
        env_kwargs={"scoring": args.scoring},
        n_steps=n_steps,
        batch_size=64,
        torch_threads=args.torch_threads,
    )
    print(f"trained {args.steps} steps against {', '.join(pool)}; saved {out} ({clock()})")

    # 2. load it as a policy
    partner = SB3Policy(out, name="ppo", torch_threads=args.torch_threads)

    # 3. evaluate against the test pool (mixed evaluation, 2 players); this and every evaluation
    # below plays with the same seed, scoring rule and worker processes
    same = {"seed": args.seed, "scoring": args.scoring, "workers": args.workers}
    res = evaluate(partner, mode="mixed", players=(2,), games=args.games, pool=TEST_POOL, **same)
    print(f"\nvs the test pool: {res.mean:.2f} ± {res.sem:.2f} ({clock()})")
    for row in res.rows:
        print(f"  {row['partner']:<12} {row['mean']:5.2f} ± {row['sem']:.2f}")

    # 4. the model and rule agents in one match-up table and one meta-agent evaluation
    responses = [partner, make("Piers"), make("IGGI")]
    hypotheses = [partner, make("IGGI"), make("Outer"), make("LegalRandom")]
    table = build_table(responses, hypotheses, games=args.games, **same)
    print(f"\nmatch-up table I(r, h) (mean score, r in seat 0, h in seat 1; {clock()}):")
    print(" " * 8 + "".join(f"{h:>12}" for h in table.hypothesis_ids))
    for i, r in enumerate(table.response_ids):
        print(f"{r:<8}" + "".join(f"{table.scores[i, j]:12.2f}" for j in range(table.shape[1])))
    meta = evaluate_meta(
        table, responses, hypotheses, episodes=args.episodes, games=args.meta_games, **same
    )
    print("\nBayesian meta-agent with the model in R, H and E (mean ± s.e.m. per game):")
    for variant, s in meta.summary().items():
        print(f"  {variant:<16} {s['mean']:5.2f} ± {s['sem']:.2f}")
    print(f"\ndone in {clock()}")


if __name__ == "__main__":
    main()
