"""``hanabi-adhoc finetune``: PPO fine-tuning of a cloned network (docs/finetuning.md).

Starts from a partner file (``START.json``, e.g. written by ``hanabi-adhoc clone``), trains it
with PPO in self-play or with a pool (:func:`agents.rl.finetune.finetune`, needs torch), with
an optional regulariser toward a teacher and Other-Play colour permutations, and writes to
``--out DIR``: ``curves.csv``, ``curves.png``, a checkpoint (``--resume`` continues it) and
the result as ``DIR/NAME.json`` + ``NAME.npz``, loadable as ``rl:DIR/NAME.json`` without
torch. Ends with the start's and the result's self-play on the same deals.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from hanabi_adhoc.cli.options import (
    QUIET_HELP,
    SEED_HELP,
    WAIT_HELP,
    CommandError,
    OptionError,
    add_command,
    check_out_dir,
    command_errors,
    int_range,
    rate_float,
    seconds_float,
    unit_float,
)

__all__ = ["add_subcommand"]


def add_subcommand(sub) -> None:
    """Add ``finetune`` to an ``argparse`` subparsers object."""
    add_command(sub, "finetune", _finetune, None, (
        ("start", {"metavar": "START.json"}, "the network to start from: a partner file "
         "(hanabi-adhoc clone --out, an exported RL partner)"),
        ("--steps", {"type": int_range(1, 10**10), "metavar": "N", "required": True},
         "learner decisions to train in all (with --resume: the new total), rounded up to "
         "whole rollouts of --envs x --n-steps (required)"),
        ("--out", {"metavar": "DIR", "required": True}, "the run's folder: curves.csv, "
         "curves.png, checkpoint, NAME.json + NAME.npz (required)"),
        ("--partners", {"metavar": "SPECS"}, "'self' (default: self-play) or comma-separated "
         "agent specs, the training pool (e.g. smartbot,piers,rl:ppo-sp1)", "self"),
        ("--teacher", {"metavar": "SPEC"}, "the regulariser's teacher: an agent spec (default "
         "with --teacher-coef: the start network, frozen)"),
        ("--teacher-coef", {"type": seconds_float, "metavar": "C"}, "weight of the KL (or "
         "cross-entropy) toward the teacher's moves on the visited states, >= 0 (default 0: "
         "none)", 0.0),
        ("--teacher-decay-steps", {"type": int_range(1, 10**10), "metavar": "N"}, "decay "
         "the teacher weight linearly to 0 over N steps (default: constant)"),
        ("--other-play", "FLAG", "Other-Play: a random colour permutation per game on one "
         "seat's observations and moves (default: off)"),
        ("--envs", {"type": int_range(1, 4096), "metavar": "N"}, "games played side by side "
         "(default 16)", 16),
        ("--n-steps", {"type": int_range(2, 100_000), "metavar": "N"}, "decisions per game "
         "in a rollout (default 64)", 64),
        ("--epochs", {"type": int_range(1, 1000), "metavar": "N"}, "PPO passes over a "
         "rollout (default 4)", 4),
        ("--learning-rate", {"type": rate_float, "metavar": "LR"}, "Adam's step size (default "
         "0.0001)", 1e-4),
        ("--ent-coef", {"type": unit_float, "metavar": "C"}, "entropy bonus weight (default "
         "0.01)", 0.01),
        ("--critic-warmup", {"type": int_range(0, 10**9), "metavar": "N"}, "first updates "
         "that train the critic only (default 0)", 0),
        ("--name", {"metavar": "NAME"}, "the result's name and file stem (default "
         "finetuned)", "finetuned"),
        ("--eval-games", "GAMES", "games for the start's and the result's self-play after "
         "training (default 200; 0: none)", 200),
        ("--seed", "SEED", SEED_HELP, 0),
        ("--torch-threads", "WORKERS", "torch CPU threads (default 1)", 1),
        ("--resume", "FLAG", "continue DIR's run from its last checkpoint to --steps"),
        ("--quiet", "FLAG", QUIET_HELP),
        ("--wait", "FLAG", WAIT_HELP),
    ), help="RL fine-tuning (PPO) of a cloned network, in self-play or with a pool",
        description="Trains a partner network (e.g. a clone from 'hanabi-adhoc clone') with "
        "PPO in self-play or with a pool of any agents, optionally regularised toward a "
        "teacher and with Other-Play colour permutations (needs the rl extra: torch); writes "
        "curves.csv, curves.png and DIR/NAME.json, loadable as rl:DIR/NAME.json without "
        "torch. docs/finetuning.md.",
    )  # fmt: skip


def _check(args: argparse.Namespace) -> list[str] | None:
    """Every option checked before any work; the pool (None: self-play)."""
    start = Path(args.start)
    if start.suffix != ".json":
        raise OptionError("START", f"{args.start!r} is not allowed; allowed: a partner's .json")
    if not start.is_file():
        raise OptionError("START", f"{args.start!r}: no such file")
    check_out_dir("--out", args.out)
    if args.teacher is not None and args.teacher_coef == 0:
        raise OptionError("--teacher", "needs --teacher-coef > 0 (the regulariser's weight)")
    if args.teacher_decay_steps is not None and args.teacher_coef == 0:
        raise OptionError("--teacher-decay-steps", "needs --teacher-coef > 0")
    if not args.name.strip() or "/" in args.name or args.name.startswith("."):
        raise OptionError("--name", f"{args.name!r} is not allowed; allowed: a file stem")
    specs = [s.strip() for s in args.partners.split(",")]
    if not all(specs):
        raise OptionError("--partners", f"{args.partners!r}: an empty agent spec")
    if specs == ["self"]:
        return None
    if "self" in specs:
        raise OptionError("--partners", "'self' is allowed only alone (self-play)")
    return specs


def _finetune(args: argparse.Namespace) -> int:
    import importlib.util

    pool = _check(args)
    if importlib.util.find_spec("torch") is None:  # pragma: no cover - the environment's
        from agents.sb3.extra import RL_EXTRA_HINT

        raise CommandError(f"finetune needs torch: {RL_EXTRA_HINT}")
    from agents.rl.finetune import PPOSettings, finetune

    say = print
    what = "self-play" if pool is None else f"a pool of {', '.join(pool)}"
    say(f"fine-tuning {args.start} with PPO in {what} for {args.steps} steps"
        + (" (Other-Play)" if args.other_play else ""))  # fmt: skip
    with command_errors(ValueError, TypeError):  # an AgentFault is a ValueError
        ppo = PPOSettings(
            envs=args.envs, n_steps=args.n_steps, epochs=args.epochs,
            learning_rate=args.learning_rate, ent_coef=args.ent_coef,
            critic_warmup=args.critic_warmup,
        )  # fmt: skip
        result = finetune(
            args.start, args.steps, args.out, ppo=ppo, partners=pool, teacher=args.teacher,
            teacher_coef=args.teacher_coef, teacher_decay_steps=args.teacher_decay_steps,
            other_play=args.other_play, seed=args.seed, name=args.name, resume=args.resume,
            progress=not args.quiet, threads=args.torch_threads, wait=args.wait, say=say,
        )  # fmt: skip
    last = result.curves[-1] if result.curves else {}
    if last:
        say(f"trained {result.steps} steps in {result.cpu_seconds:.1f} CPU seconds; last "
            f"update: mean score {last['mean_score']:.2f}, teacher agreement "
            f"{last['teacher_agreement']:.3f}, entropy {last['entropy']:.3f}")  # fmt: skip
    say(f"wrote {result.path} (agent spec: rl:{result.path}) and {Path(args.out) / 'curves.csv'}")
    if args.eval_games:
        _report(args.start, result, args.eval_games, args.seed, say)
    return 0


def _report(start: str, result, games: int, seed: int, say) -> None:
    """The start's and the result's self-play, on the same deals."""
    from agents.evaluate import game_seeds, play_policies
    from agents.rl.partners import load_partner
    from hanabi_env.config import HanabiConfig
    from hanabi_env.seeding import derive_seed

    config = HanabiConfig(**result.partner.game)
    _, deals, agent_seeds = game_seeds(derive_seed(seed, 2), games, config.players, False)
    index = np.zeros((games, config.players), dtype=np.int64)
    for label, policy in (("start", load_partner(start)), ("fine-tuned", result.partner)):
        try:
            scores, _ = play_policies([policy], index, deals, agent_seeds, config, workers=1)
        except (ValueError, TypeError) as err:
            raise CommandError(f"{label} self-play: {err}") from None
        sem = scores.std(ddof=1) / math.sqrt(games) if games > 1 else math.nan
        say(f"{label} self-play: {scores.mean():.2f} ± {sem:.2f} over {games} games")
