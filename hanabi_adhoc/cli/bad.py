"""``hanabi-adhoc bad ...``: the Bayesian Action Decoder of [BAD19] (docs/bad.md).

* ``bad matrix``: the two-step matrix game; trains BAD (with and without counterfactual
  gradients) and the policy gradient over many runs and writes [BAD19] Figure 3
  (:func:`agents.bad.matrix_train.reproduce_figure3`).
* ``bad hanabi``: BAD and its baseline on one of HLE's small presets over seeds, with learning
  curves and a summary (:func:`agents.bad.study.hanabi_study`).
* ``bad eval``: games of a trained agent (``bad:NAME`` or an agent file) with a partner, on
  the agent's configuration.
* ``bad export``: copies a trained run's agent into a folder of agents of yours (``--out``),
  after checking it loads; it never writes into the installed package (the shipped agents
  ``bad:NAME`` are never replaced).

``matrix`` and ``hanabi`` need torch (the ``bad`` extra); ``eval`` and ``export`` do not.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from hanabi_adhoc.cli.options import (
    OptionError,
    add_command,
    check_out_dir,
    command_errors,
    int_range,
    positive_int,
)

__all__ = ["add_subcommands"]

DEVICE_HELP = "auto (a GPU when there is one), cpu or cuda (default auto)"
THREADS_HELP = "torch CPU threads (default 1)"


def _need_torch() -> None:
    if importlib.util.find_spec("torch") is None:
        raise OptionError(
            "bad",
            "needs torch: install a CPU build of torch first (PyPI's default Linux torch is the "
            "3 GB CUDA build; docs/getting-started.md says how), then pip install '.[bad]'",
        )


def _matrix(args: argparse.Namespace) -> int:
    _need_torch()
    check_out_dir("--out", args.out)
    from agents.bad.matrix_train import METHODS, MatrixSettings, reproduce_figure3

    if args.episodes < 100:
        raise OptionError("--episodes", f"{args.episodes} is out of range; allowed: >= 100")
    settings = MatrixSettings(episodes=args.episodes, readings=min(100, args.episodes))
    with command_errors(ValueError):
        summary = reproduce_figure3(
            args.out, args.runs, args.seed, settings, device=args.device,
            progress=not args.quiet, torch_threads=args.torch_threads,
        )  # fmt: skip
    out = Path(args.out)
    print(f"matrix game, {args.runs} runs x {args.episodes} episodes (seed {args.seed}):")
    for m, row in summary["final"].items():
        print(
            f"  {METHODS[m]:<28} expected reward {row['expected_mean']:.3f} ± "
            f"{row['expected_sem']:.3f} (s.e.m.); {row['runs_above_8_5']} of {args.runs} runs "
            "end above 8.5"
        )
    print(f"optimal {summary['optimal_value']:.0f}, safe action {summary['safe_value']:.0f}")
    print(f"wrote {out / 'figure3.png'}, {out / 'summary.json'}, {out / 'curves.npz'}")
    return 0


def _hanabi(args: argparse.Namespace) -> int:
    _need_torch()
    check_out_dir("--out", args.out)
    from agents.bad.study import hanabi_study
    from agents.bad.train import TrainSettings

    seeds = _int_list("--seeds", args.seeds)
    learners = tuple(x.strip() for x in args.learners.split(",") if x.strip())
    fields = {k: getattr(args, k) for k in _TRAIN_FIELDS if getattr(args, k) is not None}
    with command_errors(ValueError, TypeError):
        settings = TrainSettings(preset=args.preset, **fields)
        summary = hanabi_study(
            args.out, settings, seeds, learners, args.device, not args.quiet, args.torch_threads
        )
    steps = next(iter(summary["learners"].values()))["steps"]
    print(f"{summary['preset']}, {len(seeds)} seeds, {steps} moves per run:")
    for row in summary["learners"].values():
        print(
            f"  {row['label']:<44} greedy {row['greedy_mean']:.2f} ± {row['greedy_sem']:.2f}, "
            f"sampled {row['sampled_mean']:.2f} ± {row['sampled_sem']:.2f} (s.e.m. over seeds; "
            f"{row['games_per_seed']} games each), {row['steps_per_second']:.0f} moves/s"
        )
    out = Path(args.out)
    print(f"wrote {out / 'learning_curves.png'}, {out / 'summary.json'}")
    return 0


_TRAIN_FIELDS = ("steps", "batch", "rollout", "hidden", "layers", "lr", "entropy", "eval_games")


def _int_list(option: str, text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise OptionError(option, f"{text!r} is not a comma-separated list of ints") from None
    if not values or min(values) < 0 or len(set(values)) != len(values):
        raise OptionError(option, f"{text!r}: allowed: distinct ints >= 0, e.g. 0,1,2")
    return values


def _policy(option: str, spec: str, seed: int):
    from agents.registry import make_policy

    try:
        return make_policy(spec, seed=seed)
    except (ValueError, TypeError) as err:
        raise OptionError(option, str(err)) from None


def _eval(args: argparse.Namespace) -> int:
    import numpy as np

    from agents.bad.policy import BADPolicy
    from agents.policy import play_out
    from hanabi_env import HanabiGame, stats
    from hanabi_env.seeding import derive_seed

    agent = _policy("AGENT", args.agent, args.seed)
    if not isinstance(agent, BADPolicy):
        raise OptionError("AGENT", f"{args.agent!r} is not a BAD agent; allowed: bad:NAME")
    partner = _policy("PARTNER", args.partner or args.agent, args.seed + 1)
    game = HanabiGame(agent.config)
    scores = []
    for g in range(args.games):
        seat = g % 2  # the agent alternates seats
        seats = [agent, partner] if seat == 0 else [partner, agent]
        game.reset(seed=derive_seed(args.seed, g))
        agent.reset(derive_seed(args.seed, g, 1))
        partner.reset(derive_seed(args.seed, g, 2))
        with command_errors(ValueError):
            play_out(game, seats)
        scores.append(game.score)
    mean, sem = float(np.mean(scores)), stats.sem(scores) if len(scores) > 1 else float("nan")
    print(
        f"{args.agent} with {args.partner or args.agent} on {agent.meta['preset']} (2 players): "
        f"{mean:.2f} ± {sem:.2f} (s.e.m.) over {len(scores)} games, max {agent.config.max_score}"
    )
    return 0


def _export(args: argparse.Namespace) -> int:
    from agents.bad.policy import export_files, shipped_agents

    if args.out is None:
        shipped = ", ".join(f"bad:{n}" for n in shipped_agents())
        raise OptionError(
            "--out",
            "required: the folder of agents to write NAME.json and NAME.npz to (the package's "
            f"own agents, {shipped}, are never replaced)",
        )
    with command_errors(ValueError, FileNotFoundError):
        path = export_files(args.run, args.name, args.out)
    print(f"wrote {path} and {path.with_suffix('.npz')}")
    return 0


_TORCH_ROWS = (
    ("--device", {"choices": ["auto", "cpu", "cuda"]}, DEVICE_HELP, "auto"),
    ("--torch-threads", {"type": int_range(1, 1024), "metavar": "T"}, THREADS_HELP, 1),
    ("--quiet", "FLAG", "no progress bars (default: shown)"),
)
"""The options of the commands that train with torch."""


def _torch_command(inner, name: str, func, rows, help: str, description: str) -> None:
    """A ``bad`` subcommand that trains with torch: ``rows`` then :data:`_TORCH_ROWS`."""
    add_command(inner, name, func, None, (*rows, *_TORCH_ROWS), help=help,
                description=description)  # fmt: skip


def add_subcommands(sub) -> None:
    """Register ``bad`` and its subcommands on ``sub`` (the ``hanabi-adhoc`` subparsers)."""
    bad = sub.add_parser(
        "bad",
        help="the Bayesian Action Decoder [BAD19]: matrix game, small Hanabi (docs/bad.md)",
        description="The Bayesian Action Decoder of [BAD19] (docs/bad.md); needs torch "
        "(pip install 'hanabi-adhoc[bad]').",
    )
    inner = bad.add_subparsers(
        dest="bad_command",
        required=True,
        metavar="BAD_COMMAND",
        help="matrix, hanabi, eval or export; 'hanabi-adhoc bad BAD_COMMAND --help' for its "
        "options",
    )
    _torch_command(inner, "matrix", _matrix, (
        ("--runs", "N", "independent runs per learner (default 100)", 100),
        ("--episodes", {"type": positive_int, "metavar": "E"}, "updates per run, each on a "
         "batch of 32 games (default 15000, as [BAD19]'s code)", 15_000),
        ("--seed", "SEED", "master seed; run r depends on (seed, r) only (default 0)", 0),
        ("--out", "DIR", "output folder: figure3.png, summary.json, curves.npz; a learner "
         "already there with the same settings is not trained again (default runs/bad-matrix)",
         "runs/bad-matrix"),
    ), "reproduce [BAD19] Figure 3: BAD, BAD + CF and policy gradient on the matrix game",
        "Trains BAD (with and without counterfactual gradients) and the policy gradient on "
        "[BAD19]'s two-step matrix game, many independent runs each, and writes the learning "
        "curves (mean ± s.e.m. over runs) as OUT/figure3.png.",
    )  # fmt: skip
    _torch_command(inner, "hanabi", _hanabi, (
        ("--preset", {"choices": ["Hanabi-Small", "Hanabi-Very-Small"]}, "HLE's preset, 2 "
         "players (default Hanabi-Small)", "Hanabi-Small"),
        ("--steps", "N", "moves per run, rounded up to whole checkpoints (default 200000)"),
        ("--seeds", {"metavar": "S,S,..."}, "run seeds (default 0,1,2)", "0,1,2"),
        ("--learners", {"metavar": "L,L"}, "bad and/or baseline (default bad,baseline)",
         "bad,baseline"),
        ("--batch", "N", "games played side by side (default 32)"),
        ("--rollout", "N", "moves per game between updates (default 16)"),
        ("--hidden", "N", "units per hidden layer (default 128)"),
        ("--layers", "N", "hidden layers (default 2)"),
        ("--lr", {"type": float, "metavar": "LR"}, "Adam's learning rate (default 0.001)"),
        ("--entropy", {"type": float, "metavar": "W"}, "entropy bonus (default 0.01)"),
        ("--eval-games", {"type": int_range(0, 10**7), "metavar": "N", "dest": "eval_games"},
         "self-play games per run of each final evaluation, greedy and sampled (default 1000)"),
        ("--out", "DIR", "output folder; rerun to resume (default runs/bad-hanabi)",
         "runs/bad-hanabi"),
    ), "train BAD and its baseline on HLE's small Hanabi presets, over seeds",
        "Trains BAD and an independent actor-critic baseline of the same size on one of HLE's "
        "small presets (2 players), several seeds each, and writes their learning curves "
        "(OUT/learning_curves.png) and final self-play scores (OUT/summary.json).",
    )  # fmt: skip
    add_command(inner, "eval", _eval, None, (
        ("agent", {"metavar": "AGENT"}, "bad:NAME (a shipped agent) or bad:PATH.json"),
        ("partner", {"metavar": "PARTNER", "nargs": "?"}, "any agent spec (agents.registry: "
         "bad:NAME, a baseline such as piers, a chromosome, ...) (default: AGENT itself)"),
        ("--games", "N", "games; the agent alternates seats (default 200)", 200),
        ("--seed", "SEED", "seed of the deals (default 0)", 0),
    ), help="play a trained BAD agent with a partner on its configuration",
    )  # fmt: skip
    add_command(inner, "export", _export, None, (
        ("run", {"metavar": "RUN"}, "a finished run folder (holding agent.json, agent.npz)"),
        ("name", {"metavar": "NAME"}, "the agent's name (letters, digits, - and _)"),
        ("--out", "DIR", "folder of agents of yours to write NAME.json and NAME.npz to "
         "(required; never the installed package); play it as bad:DIR/NAME.json"),
    ), help="copy a trained run's agent into a folder of agents of yours (bad:DIR/NAME.json)",
    )  # fmt: skip
