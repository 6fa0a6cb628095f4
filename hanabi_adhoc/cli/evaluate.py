"""``hanabi-adhoc evaluate``: mirror or mixed evaluation of an agent ([CIG18]).

A table, or ``--json``/``--csv``; e.g. ``hanabi-adhoc evaluate piers --mode mixed --games 400
--players 2-5``.
"""

from __future__ import annotations

import argparse

from hanabi_adhoc.settings import hand_size_words
from hanabi_adhoc.specs import agent_help, make_plain_agent

__all__ = ["add_subcommand"]


def add_subcommand(sub) -> None:
    """Register ``evaluate`` on ``sub`` (the subparsers of ``hanabi-adhoc``)."""
    from hanabi_adhoc.cli.options import (
        MOVE_TIME_LIMIT,
        MOVE_TIME_LIMIT_HELP,
        QUIET_HELP,
        SCORING_HELP,
        SEED_HELP,
        WAIT_HELP,
        add_command,
    )

    add_command(sub, "evaluate", _evaluate, None, (
        ("agent", {"metavar": "AGENT"}, "a baseline name (e.g. piers), a comma-separated "
         "chromosome of rule indices, sb3:PATH, package.module:Name or path/to/file.py:Name"),
        ("--mode", {"choices": ["mirror", "mixed"]}, "mirror (self-play) or mixed (with each "
         "agent of the test pool) (default mirror)", "mirror"),
        ("--games", "COUNT", "games per size (and partner) (default 100)", 100),
        ("--players", {}, "e.g. 2-5, 2,4 or 3 (default 2-5)", "2-5"),
        ("--scoring", "strict|lenient", SCORING_HELP, "lenient"),
        ("--seed", "SEED", SEED_HELP, 0),
        ("--hand-size", "HAND_SIZE", "cards per hand at every game size, 2..5 (default: the "
         "rulebook's, 5 for 2-3 players and 4 for 4-5; docs/rules.md §0.1)"),
        ("--hand-order", {"choices": ["shift", "fixed"]}, "shift (HLE; default for the "
         "corrected ruleset) or fixed (the Java framework's fixed slots; default and required "
         "for --ruleset reference), docs/rules.md §12"),
        ("--ruleset", "corrected|reference", "corrected (default) or reference: the rules, "
         "baseline lists and agent wrappers exactly as the papers' Java code ran them, bugs "
         "included (docs/rules.md §12)", "corrected"),
        ("--preset", {"choices": ["cig18"]}, "cig18: [CIG18] Table III's setting (the 2018 pool "
         "as the framework built it, reference rules, random seat, lenient scoring; "
         "docs/rules.md §12.3); needs --mode mixed"),
        ("--strict-era", "FLAG", "a turn on which no rule fires ends the game (the 2018-2020 "
         "Java reference)"),
        ("--workers", "WORKERS", "parallel workers: threads for rule agents, processes for other "
         "policies (default: all cores; results do not depend on it)"),
        ("--json", "PATH", "write the full result as JSON (default: none)"),
        ("--csv", "PATH", "write one row per (partner, size) as CSV (default: none)"),
        ("--trust-model", "FLAG", "allow an sb3:PATH agent: loading a model runs code stored in "
         "the file (default: refused)"),
        ("--move-time-limit", "SECONDS", MOVE_TIME_LIMIT_HELP, MOVE_TIME_LIMIT),
        ("--quiet", "FLAG", QUIET_HELP),
        ("--wait", "FLAG", WAIT_HELP),
    ), help="mirror/mixed evaluation of an agent ([CIG18])",
        description=f"AGENT is {agent_help(meta=False)}.",
    )  # fmt: skip


def _evaluate(args: argparse.Namespace) -> int:
    from agents.evaluate import evaluate
    from hanabi_adhoc.cli.options import (
        OptionError,
        check_out_file,
        check_players,
        command_errors,
        output_files,
    )
    from hanabi_env.outputs import atomic_write_csv, atomic_write_json

    players = check_players("--players", args.players)
    try:
        agent = make_plain_agent(args.agent, args.seed, args.ruleset, args.preset, args.trust_model)
    except (ValueError, TypeError, ImportError) as err:
        raise OptionError("AGENT", str(err)) from None
    if args.preset is not None and args.mode != "mixed":
        raise OptionError("--preset", "cig18 is a mixed evaluation: add --mode mixed")
    _check_declared_observation(agent, args.agent, players)
    check_out_file("--json", args.json)
    check_out_file("--csv", args.csv)
    from agents.policy import RuleAgent
    from hanabi_adhoc.warmup import ensure_compiled

    # a policy of another kind plays in lockstep with the pool (the batched kernels)
    ensure_compiled(("rule games",) if isinstance(agent, RuleAgent) else ("rule games", "batched"))
    with output_files([args.json, args.csv], args.wait), command_errors(ValueError):
        result = _evaluate_agent(evaluate, agent, args, players)
        if args.json:
            atomic_write_json(args.json, result.to_dict())
        if args.csv:
            atomic_write_csv(args.csv, list(result.rows[0]), result.rows)
    _print_evaluation(result, args.seed)
    return 0


def _check_declared_observation(agent, spec: str, players: tuple[int, ...]) -> None:
    """Refuse an AGENT that declares a hidden-card observation type, naming its spec.

    (The library refuses it too, before any game; this names the spec as typed.)

    Raises:
        OptionError: ``argument AGENT: SPEC: policy ... asks for observation_type='seer' ...``.
    """
    from agents.batch import POLICY_OBSERVATION_TYPES, check_policy_observations
    from hanabi_adhoc.cli.options import OptionError
    from hanabi_env.config import HanabiConfig

    declared = getattr(agent, "observation_type", None)
    if declared is None or declared in POLICY_OBSERVATION_TYPES:
        return
    try:
        check_policy_observations([agent], HanabiConfig(players=players[0]))
    except ValueError as err:
        raise OptionError("AGENT", f"{spec}: {err}") from None


def _evaluate_agent(evaluate, agent, args: argparse.Namespace, players: tuple[int, ...]):
    """:func:`agents.evaluate.evaluate` as ``evaluate`` asked; a fault names the AGENT spec.

    Raises:
        AgentFault: The agent's fault (a ``ValueError``), naming it as the command line did.
    """
    from agents.faults import AgentFault, agent_label

    try:
        return evaluate(
            agent,
            mode=args.mode,
            players=players,
            games=args.games,
            scoring=args.scoring,
            seed=args.seed,
            workers=args.workers,
            progress=not args.quiet,
            no_rule="end_game" if args.strict_era else "fallback",
            hand_order=args.hand_order,
            ruleset=args.ruleset,
            preset=args.preset,
            hand_size=args.hand_size,
            move_time_limit=args.move_time_limit or None,
        )
    except AgentFault as fault:
        if fault.agent != agent_label(agent):
            raise
        raise AgentFault(args.agent, fault.reason, game=fault.game, move=fault.move) from None


def _print_evaluation(result, seed: int) -> None:
    """The ``evaluate`` command's table of ``result`` (an :class:`EvaluationResult`)."""
    from hanabi_adhoc.cli.table import fmt

    print(
        f"{result.agent}: {result.mode} evaluation, {result.scoring} scoring, "
        f"{result.ruleset} ruleset, {result.hand_order} hand order, "
        f"{hand_size_words(result.hand_sizes)}; {result.games} games per cell, seed {seed}"
    )
    print(f"{'partner':<14}{'players':>8}{'mean':>8}{'s.e.m.':>8}{'comm':>7}{'ipp':>7}")
    for r in result.rows:
        print(
            f"{r['partner']:<14}{r['players']:>8}{fmt(r['mean']):>8}{fmt(r['sem']):>8}"
            f"{fmt(r['communicativeness']):>7}{fmt(r['ipp']):>7}"
        )
    for p, (m, s) in result.per_size().items():
        print(f"{'all':<14}{p:>8}{fmt(m):>8}{fmt(s):>8}")
    print(
        f"overall: {fmt(result.mean)} ± {fmt(result.sem)}   communicativeness "
        f"{fmt(result.metrics['communicativeness'], '.3f')}  IPP "
        f"{fmt(result.metrics['ipp'], '.3f')}"
    )
