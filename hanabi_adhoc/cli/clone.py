"""``hanabi-adhoc clone``: a network that plays as a teacher played (behaviour cloning).

docs/cloning.md. Demonstrations from games played by any agents (``clone smartbot``; one agent
per seat for a teacher with partners) or from hanab.live records (``--records``), an MLP
trained on them (:func:`agents.clone.train_clone`, needs torch; ``--recurrent gru`` for a GRU
over each seat's observations in a game), written as a no-code partner
(``--out NAME.json`` + ``NAME.npz``, loadable as ``rl:NAME.json`` without torch), then the
clone's self-play, the teacher's and the two together on the same deals.
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
    check_out_file,
    command_errors,
    output_files,
    rate_float,
    unit_float,
)

__all__ = ["add_subcommands"]


def _widths(text: str) -> list[int]:
    try:
        widths = [int(w) for w in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed; allowed: comma-separated layer widths, e.g. 512,512"
        ) from None
    if not widths or not all(1 <= w <= 4096 for w in widths):
        raise argparse.ArgumentTypeError(f"{text!r}: every width must be in [1, 4096]")
    return widths


def _fraction(text: str) -> float:
    """An ``argparse`` type: a share in ``[0, 1)``."""
    value = unit_float(text)
    if value == 1:
        raise argparse.ArgumentTypeError("1.0 is out of range; allowed: [0, 1)")
    return value


def add_subcommands(sub) -> None:
    """Add ``clone`` to an ``argparse`` subparsers object."""
    add_command(sub, "clone", _clone, None, (
        ("teachers", {"nargs": "*", "metavar": "AGENT"}, "the teacher: one agent spec for "
         "every seat (e.g. smartbot), or one per seat (a teacher with partners; see "
         "--record-seats); none with --records"),
        ("--records", {"action": "append", "metavar": "PATH"}, "learn from the hanab.live "
         "records in this JSON file (one record or a list; hanab.live exports, the browser "
         "app's *.hanablive.json); repeat for more files"),
        ("--games", "N", "games the teacher plays (default 3000)", 3000),
        ("--players", "PLAYERS", "players per game (default 2)", 2),
        ("--record-seats", {"metavar": "SEATS"}, "comma-separated seats whose decisions are "
         "learnt (default: every seat)"),
        ("--observation-type", {"choices": ["card_knowledge", "minimal"]}, "the observation "
         "the clone reads (default card_knowledge, HLE's canonical)", "card_knowledge"),
        ("--hidden", {"type": _widths, "metavar": "WIDTHS"}, "hidden layer widths (default "
         "512,512)", [512, 512]),
        ("--activation", {"choices": ["relu", "tanh"]}, "hidden activation (default relu)",
         "relu"),
        ("--recurrent", {"choices": ["gru"]}, "a recurrent clone: a GRU over each seat's "
         "observations in a game (the last --hidden width; the others an MLP before it), for "
         "a teacher whose moves depend on the history (default: an MLP)"),
        ("--threads", "N", "torch's CPU threads for training (default: torch's; 1 is "
         "fastest on a loaded machine)", None),
        ("--init", {"metavar": "PARTNER"}, "start from this partner's weights (rl:NAME, a "
         "shipped NAME or PATH.json; an MLP with the same --hidden, observation type and "
         "game size) instead of random ones: to train a clone further (default: random)"),
        ("--epochs", "N", "passes over the decisions (default 12)", 12),
        ("--batch-size", "N", "decisions per step (default 128)", 128),
        ("--learning-rate", {"type": rate_float, "metavar": "LR"}, "Adam's step size (default "
         "0.001)", 1e-3),
        ("--holdout", {"type": _fraction, "metavar": "FRACTION"}, "share of games held out "
         "for the accuracy (default 0.1)", 0.1),
        ("--eval-games", "GAMES", "games for the clone's self-play and play with the teacher "
         "after training (default 200; 0: none)", 200),
        ("--name", {"metavar": "NAME"}, "the partner's name (default: --out's stem)"),
        ("--out", {"metavar": "PATH.json", "required": True}, "where the partner goes: "
         "PATH.json and PATH.npz (required)"),
        ("--seed", "SEED", SEED_HELP, 0),
        ("--trust-model", "FLAG", "allow an sb3:PATH teacher: loading a model runs code stored "
         "in the file (default: refused)"),
        ("--quiet", "FLAG", QUIET_HELP),
        ("--wait", "FLAG", WAIT_HELP),
    ), help="behaviour cloning: a network that plays as a teacher played",
        description="Records the decisions of a teacher (any agent: smartbot, a rule agent, "
        "a chromosome, your own policy) or of the people in hanab.live records, trains an MLP "
        "(or with --recurrent gru a GRU over each seat's game) to make the same moves "
        "(needs the rl extra: torch) and writes it as a partner that "
        "plays without torch (agents.make('rl:PATH.json')). docs/cloning.md.",
    )  # fmt: skip


def _clone(args: argparse.Namespace) -> int:
    import importlib.util

    from agents.clone import CloneSettings, export_clone, train_clone

    if importlib.util.find_spec("torch") is None:  # pragma: no cover - the environment's
        from agents.sb3.extra import RL_EXTRA_HINT

        raise CommandError(f"clone trains with torch, which is not installed: {RL_EXTRA_HINT}")
    if not args.teachers and not args.records:
        raise OptionError("AGENT", "name a teacher (e.g. smartbot) or give --records PATH")
    if args.teachers and args.records:
        raise OptionError("--records", "learn from a teacher or from records, not both")
    out = Path(args.out)
    if out.suffix != ".json":
        raise OptionError("--out", f"{args.out!r} is not allowed; allowed: a PATH.json")
    check_out_file("--out", args.out)
    init = _init_weights(args)
    with command_errors(ValueError):  # checked before any game is played
        settings = CloneSettings(
            hidden=args.hidden, activation=args.activation, epochs=args.epochs,
            batch_size=args.batch_size, learning_rate=args.learning_rate,
            holdout=args.holdout, seed=args.seed, recurrent=args.recurrent,
        )  # fmt: skip
    demos, teacher = _demonstrations(args)
    say = print  # --quiet drops the progress bars only
    level = f"mean score {np.mean(demos.scores):.2f}" if len(demos.scores) else "no games"
    say(f"demonstrations: {len(demos)} decisions from {demos.n_games} games ({level})")
    with command_errors(ValueError):
        result = train_clone(
            demos, settings=settings, progress=not args.quiet, threads=args.threads,
            init=init, on_epoch=
            lambda e: say(f"epoch {e['epoch']}: loss {e['loss']:.4f}, accuracy "
                          f"{e['train_accuracy']:.4f} (held-out games "
                          f"{e['holdout_accuracy']:.4f}), {e['seconds']:.1f} s"),
        )  # fmt: skip
    with (
        output_files([args.out, str(out.with_suffix(".npz"))], args.wait),
        command_errors(ValueError),
    ):
        partner = export_clone(result, demos, out, name=args.name or out.stem)
    print(f"wrote {out} and {out.with_suffix('.npz').name} (agent spec: rl:{out})")
    if args.eval_games and teacher is not None:
        _report(partner, teacher, demos.config, args.eval_games, args.seed, say)
    return 0


def _init_weights(args: argparse.Namespace) -> list | None:
    """``--init``'s weights, checked against the clone's settings before any game is played."""
    if args.init is None:
        return None
    from agents.registry import split_prefix
    from agents.rl.partners import partner_weights

    prefix, name = split_prefix(args.init)
    if prefix not in (None, "rl"):
        raise OptionError("--init", f"{args.init!r} is not a network; give rl:NAME or PATH.json")
    try:
        config, arrays = partner_weights(name)
    except ValueError as err:
        raise OptionError("--init", str(err).splitlines()[0]) from None
    if args.recurrent is not None:
        raise OptionError("--init", "starts an MLP clone; not with --recurrent")
    arch, game = config["architecture"], config["game"]
    got = (arch["layers"][1:-1], arch["activation"], config["observation"]["type"], game["players"])
    want = (list(args.hidden), args.activation, args.observation_type, args.players)
    if arch["kind"] != "mlp" or got != want:
        raise OptionError(
            "--init",
            f"{args.init!r} is an {arch['kind']} with hidden {got[0]}, {got[1]}, "
            f"{got[2]} observations, {got[3]} players; this clone: hidden {want[0]}, {want[1]}, "
            f"{want[2]}, {want[3]} players",
        )
    return arrays


def _demonstrations(args: argparse.Namespace):
    from agents.clone import play_demonstrations, record_demonstrations
    from hanabi_adhoc.specs import make_agent

    if args.records:
        with command_errors(ValueError, OSError):
            demos = record_demonstrations(
                args.records, observation_type=args.observation_type, players=args.players
            )
        return demos, None
    if len(args.teachers) not in (1, args.players):
        raise OptionError(
            "AGENT", f"give one agent, or one per seat ({args.players}); got {len(args.teachers)}"
        )
    try:
        teachers = [make_agent(t, args.seed, trust_model=args.trust_model) for t in args.teachers]
    except (ValueError, TypeError, ImportError) as err:
        raise OptionError("AGENT", str(err)) from None
    seats = None
    if args.record_seats is not None:
        try:
            seats = [int(s) for s in args.record_seats.split(",")]
        except ValueError:
            raise OptionError(
                "--record-seats", f"{args.record_seats!r} is not a list of seats"
            ) from None
        if not all(0 <= s < args.players for s in seats):
            raise OptionError("--record-seats", f"seats are 0..{args.players - 1}")
    from hanabi_env.config import HanabiConfig

    config = HanabiConfig(players=args.players, scoring="lenient")
    with command_errors(ValueError):
        demos = play_demonstrations(
            teachers if len(teachers) > 1 else teachers[0], args.games, config=config,
            seed=args.seed, record_seats=seats, observation_type=args.observation_type,
            progress=not args.quiet,
        )  # fmt: skip
    return demos, teachers


def _report(partner, teachers: list, config, games: int, seed: int, say) -> None:
    """The clone's self-play, the teacher's, and clone + teacher, on the same deals."""
    from agents.evaluate import game_seeds, play_policies
    from hanabi_env.seeding import derive_seed

    _, deals, agent_seeds = game_seeds(derive_seed(seed, 2), games, config.players, False)
    teacher = teachers[0]
    n = config.players
    rows = {
        "clone self-play": [partner] * n,
        "teacher self-play": [teacher] * n,
        "clone in seat 0, teacher elsewhere": [partner] + [teacher] * (n - 1),
    }
    for label, seats in rows.items():
        policies = list({id(p): p for p in seats}.values())
        index = np.array([[policies.index(p) for p in seats]] * games, dtype=np.int64)
        try:
            scores, _ = play_policies(policies, index, deals, agent_seeds, config, workers=1)
        except (ValueError, TypeError) as err:
            raise CommandError(f"{label}: {err}") from None
        sem = scores.std(ddof=1) / math.sqrt(games) if games > 1 else math.nan
        say(f"{label}: {scores.mean():.2f} ± {sem:.2f} over {games} games")
