"""``hanabi-adhoc play``: games with the agents of your choice in each seat, a person included.

Every SEAT is parsed by :func:`hanabi_adhoc.specs.parse_seat` (``human`` seats a person at the
terminal, ``meta`` the Bayesian meta-agent); the command ends with each seat's
communicativeness and IPP.
"""

from __future__ import annotations

import argparse

import numpy as np

from hanabi_adhoc.cli.interrupt import CTRL_C
from hanabi_adhoc.settings import game_settings
from hanabi_adhoc.specs import SEAT_HELP, check_meta_variant, meta_variant, parse_seat, seat_kind
from hanabi_env import stats
from hanabi_env.config import HanabiConfig
from hanabi_env.seeding import derive_seed

__all__ = ["add_subcommand"]


def add_subcommand(sub) -> None:
    """Register ``play`` on ``sub`` (the subparsers of ``hanabi-adhoc``)."""
    from hanabi_adhoc.cli.options import (
        MOVE_TIME_LIMIT,
        MOVE_TIME_LIMIT_HELP,
        SEED_HELP,
        STRICT_SCORING_HELP,
        add_command,
    )

    add_command(sub, "play", _play, None, (
        ("seats", {"nargs": "+", "metavar": "SEAT"}, "one per seat, 2 to 5"),
        ("--games", "COUNT", "number of games (default 1)", 1),
        ("--seed", "SEED", SEED_HELP, 0),
        ("--scoring", "strict|lenient", STRICT_SCORING_HELP, "strict"),
        ("--hand-size", "HAND_SIZE", "cards per hand, 2..5 (default: the rulebook's, 5 for 2-3 "
         "players and 4 for 4-5; docs/rules.md §0.1)"),
        ("--render", "FLAG", "print the board at every move (agents only; default: off)"),
        ("--train-games", "COUNT", "games per pair of the meta-agent's response table (default "
         "20)", 20),
        ("--ruleset", "corrected|reference", "rules of the rule agents and of the meta-agent's "
         "pool: corrected (default) or reference, as the papers' Java code ran them (fixed "
         "hand slots; docs/rules.md §12)", "corrected"),
        ("--trust-model", "FLAG", "allow sb3:PATH seats: loading a Stable-Baselines3 model "
         "executes code stored in the file (cloudpickle), so pass it only for files you trust "
         "(default: refused)"),
        ("--move-time-limit", "SECONDS", MOVE_TIME_LIMIT_HELP + "; human seats have none",
         MOVE_TIME_LIMIT),
    ), help="play games with the agents of your choice (a person included: 'human')",
        description=SEAT_HELP)  # fmt: skip


def _seat_policies(args: argparse.Namespace) -> list:
    """The policy of every SEAT of ``play``.

    Every seat is checked (models loaded) before the meta-agent's response table is built.

    Raises:
        OptionError: Not 2–5 seats, a meta-agent in a game of more than 2, or a bad SEAT.
    """
    from hanabi_adhoc.cli.options import OptionError

    players = len(args.seats)
    if not 2 <= players <= 5:
        raise OptionError("SEAT", f"give 2 to 5 seats, got {players}")
    kinds = [seat_kind(s) for s in args.seats]
    if players != 2 and "meta" in kinds:
        raise OptionError("SEAT", "the meta-agent plays 2-player games only")
    policies: list = [None] * players
    seeds = [derive_seed(args.seed, i) for i in range(players)]  # seat i's construction seed
    try:
        for i, s in enumerate(args.seats):
            if kinds[i] == "meta":
                check_meta_variant(meta_variant(s) or "adaptive")  # built last (its table)
            else:
                policies[i] = parse_seat(s, seeds[i], args.train_games, args.trust_model,
                                         players, args.ruleset)  # fmt: skip
        for i, s in enumerate(args.seats):
            if kinds[i] == "meta":
                policies[i] = parse_seat(s, seeds[i], args.train_games, ruleset=args.ruleset)
    except (ValueError, TypeError, ImportError) as err:
        raise OptionError("SEAT", str(err)) from None
    return policies


def _play_game(env, policies: list, seeds: tuple, game: int, render: bool, faults: tuple) -> None:
    """Play game number ``game`` of ``play`` through ``env`` (a reference end stops it).

    ``seeds`` is ``(deal seeds, agent seeds)`` of :func:`agents.evaluate.game_seeds`, so that
    ``play`` deals and seeds the games that :func:`agents.play` and a mirror
    :func:`agents.evaluate` play with the same seed. ``faults`` is ``(names, limits)``: each
    seat's name and per-move time limit for the fault rule (:func:`agents.faults.policy_move`).

    Raises:
        AgentFault: A seat raised, returned anything but a legal move id or was too slow.
    """
    from agents.faults import policy_move
    from agents.policy import ReferenceGameEnd, end_game

    deals, agent_seeds = seeds
    names, limits = faults
    env.reset(options={"deal_seed": int(deals[game])})
    for i, pol in enumerate(policies):
        if hasattr(pol, "start_game"):
            pol.start_game("partner")  # one partner id for the whole session
        pol.reset(int(agent_seeds[game, i]))
    base = env.unwrapped
    for agent in env.agent_iter():
        seat = int(agent.split("_")[1])
        action = None
        if not (base.terminations.get(agent, False) or base.truncations.get(agent, False)):
            state = base.game
            try:
                action = policy_move(
                    policies[seat], base.view(agent), state.legal_mask(), agent=names[seat],
                    limit=limits[seat], game=game, move=state.n_moves,
                )  # fmt: skip
            except ReferenceGameEnd as end:  # as the Java reference ended such games
                end_game(state, end.code)
                print(f"player_{seat} ended the game, as the Java reference did")
                break
        if render and action is not None:
            print(env.render())
            print(f"player_{seat} -> {env.unwrapped.game.action_to_string(action)}")
        env.step(action)


def _check_seats(seats: list[str], policies: list, config) -> None:
    """Refuse, before any game, a seat that asks for a hidden-card view or another game.

    Raises:
        OptionError: ``argument SEAT: SPEC: ...`` for a policy that asks for an observation
            its seat may not see (:func:`agents.batch.policy_observation_type`) or an agent
            trained for another configuration (``check_game``: ``rl:NAME``, ``bad:NAME``).
    """
    from agents.batch import check_policy_observations
    from hanabi_adhoc.cli.options import OptionError

    for seat, pol in zip(seats, policies, strict=True):
        try:
            check_policy_observations([pol], config)
            if hasattr(pol, "check_game"):  # an agent trained for one configuration
                pol.check_game(config)
        except ValueError as err:
            raise OptionError("SEAT", f"{seat.strip()}: {err}") from None


def _play(args: argparse.Namespace) -> int:
    import hanabi_env
    from agents.evaluate import game_seeds
    from agents.faults import AgentFault
    from agents.human import HumanPolicy, render_view
    from hanabi_adhoc.cli.options import CommandError, OptionError
    from hanabi_adhoc.warmup import ensure_compiled
    from hanabi_env.metrics import metric_ratios

    players = len(args.seats)
    if players == 2 and "meta" in {seat_kind(s) for s in args.seats}:
        ensure_compiled(("env", "rule games", "meta"))  # the meta-agent's table is built next
    policies = _seat_policies(args)
    ensure_compiled(("env",))
    humans = [i for i, p in enumerate(policies) if isinstance(p, HumanPolicy)]
    try:
        cfg = HanabiConfig.for_game(players, args.hand_size, args.scoring, args.ruleset)
    except ValueError as err:
        raise OptionError("--hand-size", str(err)) from None
    hand_size = cfg.hand_size
    env = hanabi_env.env(
        players=players,
        hand_size=hand_size,
        scoring=args.scoring,
        render_mode="ansi",
        hand_order=cfg.hand_order,
    )
    _check_seats(args.seats, policies, env.unwrapped.config)
    _, deals, agent_seeds = game_seeds(args.seed, args.games, players, random_seat=False)
    settings = game_settings(players, hand_size, args.scoring, args.ruleset)
    print(f"{settings}; seed {args.seed}")
    names = [f"player_{i} ({getattr(p, 'name', type(p).__name__)})" for i, p in enumerate(policies)]
    limit = args.move_time_limit or None  # a person at the terminal takes the time it takes
    faults = ([s.strip() for s in args.seats], [None if i in humans else limit for i in
              range(players)])  # fmt: skip
    counters = None  # (players, N_COUNTERS) summed over games (docs/rules.md §5: ratios of sums)
    scores = []
    try:
        for game in range(args.games):
            render = args.render and not humans
            try:
                _play_game(env, policies, (deals, agent_seeds), game, render, faults)
            except AgentFault as fault:  # the agent's, not the toolkit's: one error line
                raise CommandError(str(fault)) from None
            base = env.unwrapped
            for i, pol in enumerate(policies):
                if hasattr(pol, "end_game"):
                    pol.end_game(base.view(f"player_{i}"))
            for h in humans:
                print("\n" + render_view(base.view(f"player_{h}")))
            score = base.game.score
            scores.append(score)
            c = np.array(base.game.state.counters, dtype=np.float64)
            counters = c if counters is None else counters + c
            print(f"game {game}: score {score}")
    except KeyboardInterrupt:
        CTRL_C.handled()
        game_state = env.unwrapped.game
        if game_state.n_moves or counters is None:  # the unfinished game too (summary even at 0)
            c = np.array(game_state.state.counters, dtype=np.float64)
            counters = c if counters is None else counters + c
        print("\nstopped.")
        print(_score_so_far(env.unwrapped, len(scores)))
    if counters is None:
        return 0
    if scores:
        sem = stats.sem(scores) if len(scores) > 1 else 0.0
        print(f"\n{len(scores)} game(s), mean score {np.mean(scores):.2f} ± {sem:.2f} ({settings})")
    ratios = metric_ratios(counters)
    for i in range(players):
        you = "  <- you" if i in humans else ""
        print(
            f"{names[i]:<28} communicativeness {_fmt_nan(ratios['communicativeness'][i])}  "
            f"IPP {_fmt_nan(ratios['ipp'][i])}{you}"
        )
    return 0


def _score_so_far(base, game: int) -> str:
    """The unfinished game's standing when a person stops: score, lives, moves played."""
    view = base.view("player_0")
    fireworks = int(np.sum(view.fireworks))
    return (
        f"game {game} (unfinished): score so far {base.game.score} (fireworks {fireworks}/25, "
        f"{int(view.life_tokens)} lives left, {base.game.n_moves} moves)"
    )


def _fmt_nan(x: float) -> str:
    from hanabi_adhoc.cli.table import fmt

    return fmt(float(x))  # n/a when undefined
