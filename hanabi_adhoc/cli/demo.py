"""``hanabi-adhoc demo``: random games through ``hanabi_env.env()`` (the PettingZoo loop).

Prints each score and the seats' behaviour metrics, and why uniformly random play scores 0.
"""

from __future__ import annotations

import argparse

import numpy as np

from hanabi_adhoc.settings import game_settings
from hanabi_env import stats
from hanabi_env.config import HanabiConfig
from hanabi_env.seeding import derive_seed

__all__ = ["add_subcommand"]


def add_subcommand(sub) -> None:
    """Register ``demo`` on ``sub`` (the subparsers of ``hanabi-adhoc``)."""
    from hanabi_adhoc.cli.options import SEED_HELP, STRICT_SCORING_HELP, add_command

    add_command(sub, "demo", _demo, None, (
        ("--games", "COUNT", "number of games (default 5)", 5),
        ("--players", "PLAYERS", "2..5 (default 2)", 2),
        ("--scoring", "strict|lenient", STRICT_SCORING_HELP, "strict"),
        ("--seed", "SEED", SEED_HELP, 0),
    ), help="play a few random games through hanabi_env.env()")  # fmt: skip


def _demo(args: argparse.Namespace) -> int:
    import hanabi_env
    from hanabi_adhoc.warmup import ensure_compiled

    hand_size = HanabiConfig.for_game(args.players, scoring=args.scoring).hand_size
    env = hanabi_env.env(players=args.players, hand_size=hand_size, scoring=args.scoring)
    ensure_compiled(("env",))
    print(f"{game_settings(args.players, hand_size, args.scoring, None)}, uniformly random moves")
    rng = np.random.default_rng(args.seed)
    scores, moves, dead = [], [], 0
    for game in range(args.games):
        env.reset(seed=derive_seed(args.seed, game))
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
