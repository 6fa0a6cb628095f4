"""``hanabi-adhoc train-sb3``: train a MaskablePPO partner against a rule-based pool (rl extra)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys

from hanabi_adhoc.specs import make_plain_agent

__all__ = ["add_subcommand"]


def add_subcommand(sub) -> None:
    """Register ``train-sb3`` on ``sub`` (the subparsers of ``hanabi-adhoc``)."""
    from hanabi_adhoc.cli.options import SCORING_HELP, SEED_HELP, add_command

    add_command(sub, "train-sb3", _train_sb3, None, (
        ("--pool", {}, "training partners: comma-separated baseline names (default "
         "IGGI,Piers,Outer)", "IGGI,Piers,Outer"),
        ("--steps", "N", "learner decisions (default 200000)", 200_000),
        ("--players", "PLAYERS", "2..5 (default 2)", 2),
        ("--scoring", "strict|lenient", SCORING_HELP, "lenient"),
        ("--games", "N0", "evaluation games per partner after training, 0 = skip (default 100)",
         100),
        ("--seed", "SEED", SEED_HELP, 0),
        ("--workers", "WORKERS", "evaluation processes (default: all cores)"),
        ("--torch-threads", "WORKERS", "torch CPU threads for training (default 1)", 1),
        ("--out", "PATH", "model path, .zip added if missing (default runs/sb3_partner.zip)",
         "runs/sb3_partner.zip"),
        ("--quiet", "FLAG", "no training log or progress bar (default: shown)"),
    ), help="train a MaskablePPO partner against a rule-based pool (needs the rl extra)",
    )  # fmt: skip


def _train_sb3(args: argparse.Namespace) -> int:
    from hanabi_adhoc.cli.options import OptionError, check_out_file

    pool = [p.strip() for p in args.pool.split(",")]
    if not any(pool):
        raise OptionError("--pool", f"{args.pool!r} names no agent; e.g. IGGI,Piers,Outer")
    try:
        partners = [make_plain_agent(p, args.seed + i) for i, p in enumerate(pool)]
    except ValueError as err:
        raise OptionError("--pool", str(err)) from None
    if not args.out.strip() or os.path.basename(args.out) in ("", ".zip"):
        raise OptionError("--out", f"{args.out!r} is not a model file path")
    out = args.out if args.out.endswith(".zip") else args.out + ".zip"
    check_out_file("--out", out)
    missing = [m for m in ("torch", "sb3_contrib") if importlib.util.find_spec(m) is None]
    if missing:  # pragma: no cover - depends on the environment
        from agents.sb3.extra import RL_EXTRA_HINT

        print(f"error: train-sb3 needs {', '.join(missing)}: {RL_EXTRA_HINT}", file=sys.stderr)
        return 2
    from agents.evaluate import evaluate
    from agents.sb3 import SB3Policy, train_maskable_ppo

    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    print(
        f"training MaskablePPO for {args.steps} steps against {', '.join(pool)} "
        f"({args.players} players, {args.scoring} scoring) on the CPU"
    )
    model = train_maskable_ppo(
        partners,
        args.steps,
        seed=args.seed,
        path=out,
        env_kwargs={"players": args.players, "scoring": args.scoring},
        verbose=0 if args.quiet else 1,
        torch_threads=args.torch_threads,
        # SB3's progress bar needs rich (in the rl extra); an older install trains without it
        learn_kwargs={"progress_bar": not args.quiet and bool(importlib.util.find_spec("rich"))},
    )
    print(f"saved {out} ({model.num_timesteps} steps trained)")
    if args.games > 0:
        result = evaluate(
            SB3Policy(out, seed=args.seed, name="sb3"),
            mode="mixed",
            players=(args.players,),
            games=args.games,
            scoring=args.scoring,
            seed=args.seed,
            pool=partners,
            workers=args.workers,
            progress=not args.quiet,
        )
        print(f"mixed evaluation against the training pool: {result.mean:.2f} ± {result.sem:.2f}")
    print(f"use it as a partner: hanabi-adhoc play human sb3:{out} --trust-model")
    return 0
