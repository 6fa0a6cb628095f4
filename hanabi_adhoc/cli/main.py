"""Command-line interface ``hanabi-adhoc``: the parser, the entry point and the game commands.

Subcommands (``hanabi-adhoc <command> --help`` for each):

* ``pipeline``: the whole study (:mod:`hanabi_adhoc.pipeline`): three MAP-Elites populations, elite
  re-evaluation, match-up tables, the Bayesian meta-agent in and out of distribution, and a
  report folder (Markdown summary, CSV tables, PNG figures); ``--config paper`` for the papers'
  scale; resumable.
* ``play``: games through ``hanabi_env.env()`` with the agents of your choice in each seat;
  ``human`` seats a person at the terminal (:class:`agents.human.HumanPolicy`), ``meta`` the
  Bayesian meta-agent; ends with each seat's communicativeness and IPP.
* ``warmup``: compiles every numba kernel now and prints how long it took
  (:mod:`hanabi_adhoc.warmup`).
* ``demo``: plays a few games of uniformly random legal moves through ``hanabi_env.env()``
  (the standard PettingZoo loop) and prints each score and the seats' behaviour metrics.
* ``evaluate``: mirror or mixed evaluation of a baseline agent or a chromosome ([CIG18]), e.g.
  ``hanabi-adhoc evaluate piers --mode mixed --games 400 --players 2-5``; a table, or
  ``--json``/``--csv``.
* ``map-elites``, ``ga``, ``population``, ``matchups``: MAP-Elites runs, the 2018 genetic
  algorithm, population analysis, and a population's match-up table (see
  :mod:`hanabi_adhoc.cli.qd`).
* ``meta-table``, ``meta-eval``: the meta-agents' offline response table and the papers'
  evaluation protocol (see :mod:`hanabi_adhoc.cli.meta`).
* ``serve``: play in the browser with any agent, the meta-agent included (see
  :mod:`hanabi_adhoc.cli.serve`, docs/browser.md).
* ``benchmark``: the ad-hoc teamwork benchmark of any agents (see
  :mod:`hanabi_adhoc.cli.benchmark`, docs/benchmark.md).
* ``bad ...``: the Bayesian Action Decoder [BAD19] (see :mod:`hanabi_adhoc.cli.bad`).
"""

from __future__ import annotations

import _thread
import argparse
import contextlib
import ctypes
import importlib.util
import os
import signal
import sys
import threading

import numpy as np

from hanabi_env import stats
from hanabi_env.config import HanabiConfig, hand_size_words
from hanabi_env.config import describe_settings as game_settings


def _warmup(args: argparse.Namespace) -> int:
    import time

    from hanabi_adhoc.warmup import ESTIMATE_S, STEPS, compiled_steps, warm_up
    from hanabi_env._jit import cache_root

    print(f"numba cache: {cache_root() or 'none (compiled in memory)'}")
    todo = [name for name, _ in STEPS if name not in compiled_steps()]
    if todo:
        estimate = sum(ESTIMATE_S[name] for name in todo)
        print(f"compiling {len(todo)} of {len(STEPS)} steps (about {estimate / 60:.0f} min on an "
              "idle machine; once for this version)", flush=True)  # fmt: skip
    t0 = time.perf_counter()
    warm_up(say=lambda line: print(f"  {line}", flush=True))
    print(f"all kernels ready in {time.perf_counter() - t0:.1f} s")
    return 0


def _demo(args: argparse.Namespace) -> int:
    import hanabi_env
    from hanabi_adhoc.warmup import ensure_compiled

    cfg = HanabiConfig.for_game(args.players, scoring=args.scoring)
    hand_size = cfg.hand_size
    env = hanabi_env.env(players=args.players, hand_size=hand_size, scoring=args.scoring)
    ensure_compiled(("env",))
    print(f"{game_settings(args.players, hand_size, args.scoring, None)}, uniformly random moves")
    rng = np.random.default_rng(args.seed)
    scores, moves, dead = [], [], 0
    for game in range(args.games):
        env.reset(seed=args.seed + game)
        infos = {}
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            infos[agent] = info
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        score = next(iter(infos.values()))["score"]
        scores.append(score)
        view = env.unwrapped.view("player_0")
        fireworks = int(np.sum(view.fireworks))
        moves.append(env.unwrapped.game.n_moves)
        dead += int(view.life_tokens) == 0
        metrics = "  ".join(
            f"{a}: comm={_fmt(i, 'communicativeness')} ipp={_fmt(i, 'ipp')}"
            for a, i in infos.items()
        )
        print(
            f"game {game}: score {score:2d} (fireworks {fireworks:2d}, {moves[-1]:3d} moves)"
            f"   {metrics}"
        )
    mean = float(np.mean(scores))
    sem = stats.sem(scores) if len(scores) > 1 else 0.0
    print(f"mean score over {len(scores)} games: {mean:.2f} ± {sem:.2f} (s.e.m.)")
    print(_demo_note(args.scoring, dead, len(scores), float(np.mean(moves))))
    return 0


def _demo_note(scoring: str, dead: int, games: int, mean_moves: float) -> str:
    """The one-line explanation that ends ``demo`` (why uniformly random play scores 0)."""
    lives = f"random play lost all 3 lives in {dead} of {games} games (~{mean_moves:.0f} moves)"
    if scoring == "strict":
        return (
            f"note: {lives}; under strict scoring (the default, as HLE/hanabi_v5) that scores "
            "0 - try --scoring lenient to keep the fireworks total"
        )
    return (
        f"note: {lives}; lenient scoring (the papers' Java framework) keeps the fireworks "
        "total, strict scoring (the default, as HLE/hanabi_v5) would score those games 0"
    )


def _fmt(info: dict, metric: str) -> str:
    """A metric of an env info (docs/marl.md §3): ``n/a`` where its flag says undefined."""
    from hanabi_adhoc.cli.table import MISSING

    return f"{info[metric]:.2f}" if info[f"{metric}_defined"] else f"{MISSING:>5}"


def _parse_agent(
    text: str,
    seed: int,
    ruleset: str = "corrected",
    preset: str | None = None,
    trust_model: bool = False,
):
    """An agent of a spec (:func:`hanabi_adhoc.specs.make_agent`, ``meta`` excluded).

    A baseline name, a chromosome of comma-separated rule indices, ``sb3:PATH`` (with
    ``trust_model``), ``package.module:Name`` or ``path/to/file.py:Name``. ``ruleset=
    "reference"`` (or ``preset="cig18"``): the Java reference's rules; a chromosome then runs
    as Hanabi-Map-Elites' HistogramAgent, a baseline as its ProductionRuleAgent.

    Raises:
        ValueError: Unknown name, a rule index out of range, or a spec that does not load.
        TypeError: A ``module:Name`` that is not a policy.
    """
    from hanabi_adhoc.specs import make_agent, meta_variant

    if not text.strip():
        raise ValueError("unknown agent ''; an empty name is not allowed")
    if meta_variant(text) is not None:
        raise ValueError(f"{text!r}: the meta-agent is a seat of play, meta-eval and benchmark")
    return make_agent(text, seed, ruleset=ruleset, preset=preset, trust_model=trust_model)


SEAT_HELP = (
    "SEAT is 'human' (you, at the terminal), a baseline name (IGGI, Internal, Outer, "
    "LegalRandom, VanDenBergh, Flawed, Piers, Cautious), a comma-separated chromosome of rule "
    "indices, 'meta' or 'meta:VARIANT' (the Bayesian meta-agent over the published 5x5 "
    "population; VARIANT adaptive (default), generalist or random; 2 players), 'rl:NAME' (a "
    "shipped RL partner, docs/rl_partners.md; 2 players), 'sb3:PATH' (a "
    "saved MaskablePPO model; needs the rl extra and --trust-model, because loading a model "
    "runs code stored in the file), or your own Policy: 'package.module:Name' or "
    "'path/to/file.py:Name' (a Policy subclass or a function returning one; importing runs "
    "the module's code)."
)
SEAT_FORMS = (
    "human, meta, meta:adaptive, meta:generalist, meta:random, a baseline name (IGGI, Internal, "
    "Outer, LegalRandom, VanDenBergh, Flawed, Piers, Cautious), a chromosome of comma-separated "
    "rule indices (e.g. 3,17,4), rl:NAME, sb3:PATH, package.module:Name or path/to/file.py:Name"
)


from hanabi_adhoc.specs import META_VARIANTS  # noqa: E402 - beside the seat forms it names


def _seat_kind(text: str) -> str:
    """``"human"``, ``"meta"``, ``"sb3"`` or ``"agent"`` (a baseline or chromosome)."""
    key = text.strip().lower()
    if key == "human":
        return "human"
    if key == "meta" or key.startswith("meta:"):
        return "meta"
    if key.startswith("sb3:"):
        return "sb3"
    return "agent"


def parse_seat(
    text: str,
    seed: int,
    train_games: int = 20,
    trust_model: bool = False,
    players: int = 2,
    ruleset: str = "corrected",
):
    """A policy from a SEAT string (see :data:`SEAT_HELP`); names must match exactly.

    ``ruleset`` is that of rule agents and of the meta-agent's pool (docs/rules.md §12).

    An ``sb3:PATH`` model is loaded here (``trust_model`` must be True: loading runs code from
    the file) and checked against the game size, so that a bad file fails before any game.

    Raises:
        ValueError: Unknown seat, agent name or meta variant; a model file refused, missing,
            unreadable or made for another game size.
    """
    key = text.strip()
    kind = _seat_kind(key)
    if kind == "human":
        from agents.human import HumanPolicy

        return HumanPolicy()
    if kind == "meta":
        variant = key.partition(":")[2].strip().lower() if ":" in key else "adaptive"
        return _meta_agent(variant, seed, train_games, ruleset)
    if kind == "sb3":
        return _sb3_seat(key[4:].strip(), seed, trust_model, players)
    try:
        return _parse_agent(key, seed, ruleset, trust_model=trust_model)
    except ValueError as err:
        if "unknown agent" in str(err):
            raise ValueError(f"unknown agent {key!r}; allowed seats: {SEAT_FORMS}") from None
        raise


def _sb3_seat(path: str, seed: int, trust_model: bool, players: int):
    """A trusted, loadable SB3 model that fits ``players``-player games (see :func:`parse_seat`)."""
    from agents.sb3.policy import from_spec

    policy = from_spec(path, seed=seed, trust_model=trust_model)
    from hanabi_env.config import HanabiConfig
    from hanabi_env.game import HanabiGame

    game = HanabiGame(HanabiConfig(players=players))
    game.reset(0)
    try:
        policy._obs_type(game.view(0))
    except ValueError as err:
        raise ValueError(f"sb3:{path}: {err}") from None
    return policy


def _meta_agent(variant: str, seed: int, train_games: int, ruleset: str = "corrected"):
    from hanabi_adhoc.specs import meta_agent

    return meta_agent(variant, seed, train_games, ruleset)


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
    kinds = [_seat_kind(s) for s in args.seats]
    if players != 2 and "meta" in kinds:
        raise OptionError("SEAT", "the meta-agent plays 2-player games only")
    policies: list = [None] * players
    try:
        for i, s in enumerate(args.seats):
            if kinds[i] == "meta":
                variant = s.strip().partition(":")[2].strip().lower() if ":" in s else "adaptive"
                if variant not in META_VARIANTS:
                    _meta_agent(variant, 0, 1)  # raises the error listing the variants
            else:
                policies[i] = parse_seat(s, args.seed + i, args.train_games, args.trust_model,
                                         players, args.ruleset)  # fmt: skip
        for i, s in enumerate(args.seats):
            if kinds[i] == "meta":
                policies[i] = parse_seat(s, args.seed + i, args.train_games, ruleset=args.ruleset)
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
    if players == 2 and "meta" in {_seat_kind(s) for s in args.seats}:
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
        _CTRL_C.handled()
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


def _train_sb3(args: argparse.Namespace) -> int:
    from hanabi_adhoc.cli.options import OptionError, check_out_file

    pool = [p.strip() for p in args.pool.split(",")]
    if not any(pool):
        raise OptionError("--pool", f"{args.pool!r} names no agent; e.g. IGGI,Piers,Outer")
    try:
        partners = [_parse_agent(p, args.seed + i) for i, p in enumerate(pool)]
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


PIPELINE_OPTIONS = {
    "runs": "--runs",
    "candidates": "--candidates",
    "me_games": "--me-games",
    "seed": "--seed",
    "matchup_games": "--matchup-games",
    "train_games": "--train-games",
    "episodes": "--episodes",
    "games": "--games",
    "ruleset": "--ruleset",
}
"""PipelineConfig fields -> ``pipeline`` options (for errors naming the option)."""


def _pipeline(args: argparse.Namespace) -> int:
    from hanabi_adhoc.cli.options import (
        check_out_dir,
        command_errors,
        config_error,
        option_dest,
        require_extra,
    )
    from hanabi_adhoc.pipeline import get_pipeline_config, run_pipeline

    require_extra("pipeline (its report's figures)", "qd")
    check_out_dir("--out", args.pl_out)
    try:  # every option checked before any work
        overrides = {f: getattr(args, option_dest("pl", o)) for f, o in PIPELINE_OPTIONS.items()}
        config = get_pipeline_config(args.pl_config, **overrides)
    except ValueError as err:
        raise config_error(err, PIPELINE_OPTIONS) from None
    with command_errors(ValueError):
        path = run_pipeline(
            config,
            args.pl_out,
            workers=args.pl_workers,
            scheduler_address=args.pl_scheduler_address,
            quiet=args.pl_quiet,
            wait=args.pl_wait,
            adopt=args.pl_adopt,
        )
    print(f"report: {path}")
    return 0


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
        agent = _parse_agent(args.agent, args.seed, args.ruleset, args.preset, args.trust_model)
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


SCORING = (
    "strict (the default, as HLE/hanabi_v5): losing the last life scores 0; lenient (the "
    "papers' Java framework): the fireworks total is kept"
)


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line: ``error: ...`` (exit code 2)."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see: {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``hanabi-adhoc`` (subparsers share its one-line usage errors)."""
    from hanabi_adhoc.cli.options import (
        ADOPT_HELP,
        MOVE_TIME_LIMIT,
        MOVE_TIME_LIMIT_HELP,
        QUIET_HELP,
        SCORING_HELP,
        SEED_HELP,
        WAIT_HELP,
        add_command,
        positive_int,
    )

    parser = _Parser(prog="hanabi-adhoc", description="Ad-hoc cooperation research in Hanabi.")
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        help="one of the subcommands below; 'hanabi-adhoc COMMAND --help' for its options",
    )
    add_command(sub, "pipeline", _pipeline, "pl", (
        ("--config", {"choices": ["quick", "paper"]}, "quick (minutes on 2 cores) or paper "
         "([Bayes21] scale); the options below override it (default quick)", "quick"),
        ("--out", "DIR", "output folder; rerun with the same folder to resume (default "
         "runs/pipeline)", "runs/pipeline"),
        ("--runs", "N", "MAP-Elites populations (default 3)"),
        ("--candidates", "N", "candidates per MAP-Elites run (default: quick 4000, paper 10^6)"),
        ("--me-games", "N", "self-play games per MAP-Elites candidate (default: quick 25, "
         "paper 100)"),
        ("--seed", "SEED_N", "master seed (default 0)"),
        ("--matchup-games", "N", "games per match-up pair (default: quick 100, paper 400)"),
        ("--train-games", "N", "games per response-table pair (default: quick 50, paper 400)"),
        ("--episodes", {"type": positive_int, "metavar": "K"}, "meta-agent episodes per "
         "partner, k (default: quick 5, paper 200)"),
        ("--games", {"type": positive_int, "metavar": "G"}, "games per meta-agent episode, g "
         "(default 10)"),
        ("--ruleset", "corrected|reference", "corrected or reference: every stage (MAP-Elites "
         "search and binning, match-ups, response tables, meta-agents) plays the rule agents as "
         "the papers' Java code ran them, bugs included (docs/rules.md §12); a study folder is "
         "resumed only in its own ruleset (default corrected)"),
        ("--workers", "WORKERS", "local threads (and processes for policies that are not rule "
         "agents), >= 1 (default: all cores)"),
        ("--scheduler-address", "ADDRESS", "Dask scheduler that plays every stage's games "
         "(MAP-Elites, match-ups, response tables, meta-agent evaluation), e.g. "
         "tcp://host:8786; the report's numbers are identical to a local run (default: local "
         "threads)"),
        ("--quiet", "FLAG", "no progress bars (default: shown)"),
        ("--wait", "FLAG", WAIT_HELP),
        ("--adopt", "FLAG", ADOPT_HELP),
    ), help="the whole study: populations -> match-ups -> meta-agents -> report",
        description="Runs (or resumes) the study of hanabi_adhoc.pipeline and writes OUT/report/ "
        "(summary.md, tables/*.csv, figures/*.png). Rerun the same command to resume.",
    )  # fmt: skip
    add_command(sub, "play", _play, None, (
        ("seats", {"nargs": "+", "metavar": "SEAT"}, "one per seat, 2 to 5"),
        ("--games", "COUNT", "number of games (default 1)", 1),
        ("--seed", "SEED", SEED_HELP, 0),
        ("--scoring", "strict|lenient", SCORING, "strict"),
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
    add_command(sub, "demo", _demo, None, (
        ("--games", "COUNT", "number of games (default 5)", 5),
        ("--players", "PLAYERS", "2..5 (default 2)", 2),
        ("--scoring", "strict|lenient", SCORING, "strict"),
        ("--seed", "SEED", SEED_HELP, 0),
    ), help="play a few random games through hanabi_env.env()")  # fmt: skip
    add_command(
        sub,
        "warmup",
        _warmup,
        None,
        (),
        help="compile every numba kernel now (minutes on a fresh install, seconds after)",
        description="Compiles (or loads from the cache) every compiled kernel by playing tiny "
        "workloads through the public API, and prints the seconds each step took "
        "(hanabi_adhoc.warmup). Run it once after installing, or in a container image build.",
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
        description="AGENT is a baseline name (IGGI, Internal, Outer, LegalRandom, VanDenBergh, "
        "Flawed, Piers, Cautious), a comma-separated chromosome of rule indices, sb3:PATH, or "
        "your own Policy as package.module:Name or path/to/file.py:Name.",
    )  # fmt: skip
    from hanabi_adhoc.cli.qd import add_subcommands

    add_subcommands(sub)  # map-elites, ga, population
    from hanabi_adhoc.cli.meta import add_subcommands as add_meta_subcommands

    add_meta_subcommands(sub)  # meta-table, meta-eval
    from hanabi_adhoc.cli.clone import add_subcommands as add_clone_subcommands

    add_clone_subcommands(sub)  # clone
    from hanabi_adhoc.cli.serve import add_subcommand as add_serve

    add_serve(sub)  # serve: play in the browser (hanabi_adhoc.web)
    from hanabi_adhoc.cli.benchmark import add_subcommand as add_benchmark

    add_benchmark(sub)  # benchmark
    from hanabi_adhoc.cli.bad import add_subcommands as add_bad_subcommands

    add_bad_subcommands(sub)  # bad matrix, bad hanabi, bad eval, bad export
    return parser


INTERRUPTED = "interrupted (Ctrl-C); finished work is saved: resume with the same command"
"""The one line ``hanabi-adhoc`` prints when stopped with Ctrl-C (after ``error: ``)."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``hanabi-adhoc``.

    Every known failure ends with one ``error: ...`` line on stderr and exit code 2: a bad
    option, an error of the work (:class:`~hanabi_adhoc.cli.options.CommandError`), a result
    file that cannot be trusted (:class:`hanabi_env.outputs.ResultFileError`, naming it), an
    ``OSError`` (a busy folder, a full disk, an unreadable input: the file named) and Ctrl-C
    (:data:`INTERRUPTED`). Exit codes: docs/reliability.md.
    """
    from hanabi_adhoc.cli.options import CommandError, OptionError
    from hanabi_env.outputs import ResultFileError

    args = build_parser().parse_args(argv)  # option errors: one error line, exit 2
    with _ctrl_c():
        try:
            return args.func(args)  # checks every option before any work (OptionError)
        except (OptionError, CommandError, ResultFileError, OSError) as err:
            print(f"error: {_one_line(err)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            _CTRL_C.handled()
            _forget_unhandled_interrupt()
            flags = [f for f in ("me_resume", "ga_resume") if getattr(args, f, None) is False]
            hint = " plus --resume" if flags else ""  # (a run that needs it to continue)
            print(f"\nerror: {INTERRUPTED}{hint}", file=sys.stderr)
            return 2


def _forget_unhandled_interrupt() -> None:
    """Tell CPython that the Ctrl-C was handled, so that the exit status stays 2.

    CPython records a ``KeyboardInterrupt`` that ends a nested top-level run
    (``run_eval_code_obj``, which compiled code reached by numba's compiler goes through) in
    the C global ``_Py_UnhandledKeyboardInterrupt`` and, at exit, kills the process with
    SIGINT when it is set, even though the command caught the interrupt (seen as exit status
    -2 after the one ``error:`` line). It is reset here; on another Python nothing is done.
    """
    try:
        flag = ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt")
    except (AttributeError, ValueError, OSError):  # not CPython, or not exported
        return
    flag.value = 0


class _CtrlC:
    """The SIGINT handler of ``hanabi-adhoc``: ``KeyboardInterrupt``, raised until it is caught.

    Python drops an exception raised inside a ``ctypes`` callback (numba's compiler has some),
    (printing "Exception ignored"), so a Ctrl-C that lands there would be lost and the run go
    on. The first Ctrl-C therefore raises ``KeyboardInterrupt`` and starts a thread that raises
    it again every 0.5 s (``_thread.interrupt_main``) until the command has caught it
    (:meth:`handled`); the message of a dropped one is not printed (:func:`_ctrl_c`).
    """

    def __init__(self) -> None:
        self._caught = threading.Event()
        self._pressed = False
        self._lock = threading.Lock()  # no interrupt_main once handled() has returned

    def __call__(self, signum, frame) -> None:
        if not self._pressed:
            self._pressed = True
            again = threading.Thread(
                target=self._again, args=(self._caught, self._lock), daemon=True
            )
            again.start()
        if not self._caught.is_set():
            raise KeyboardInterrupt

    @staticmethod
    def _again(caught: threading.Event, lock: threading.Lock) -> None:
        while not caught.wait(0.5):
            with lock:
                if caught.is_set():  # handled meanwhile: a late interrupt would outlive it
                    return
                _thread.interrupt_main()

    def handled(self) -> None:
        """The interrupt was caught: stop raising it (no interrupt is sent after this)."""
        with self._lock:
            self._caught.set()

    def reset(self) -> None:
        """Ready for the next command (an in-process caller may run several)."""
        self.handled()  # (a thread of the last command stops)
        self._caught = threading.Event()
        self._lock = threading.Lock()
        self._pressed = False


_CTRL_C = _CtrlC()


@contextlib.contextmanager
def _ctrl_c():
    """:class:`_CtrlC` as the SIGINT handler meanwhile (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _CTRL_C.reset()
    old = signal.signal(signal.SIGINT, _CTRL_C)
    old_hook = sys.unraisablehook

    def hook(unraisable) -> None:  # a dropped Ctrl-C is raised again: no message for it
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            old_hook(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        _CTRL_C.handled()
        signal.signal(signal.SIGINT, old)
        sys.unraisablehook = old_hook


def _one_line(err: Exception) -> str:
    """The message of ``err`` on one line (an ``OSError`` with its file name)."""
    text = str(err)
    if isinstance(err, OSError) and err.filename and str(err.filename) not in text:
        text = f"{text}: {err.filename}"
    return " ".join(text.split())
