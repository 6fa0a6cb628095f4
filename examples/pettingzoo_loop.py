"""A plain PettingZoo loop with rule-based policies in every seat.

Each policy decides from its seat's player view; ``policy(env, agent)`` returns ``None`` on
PettingZoo's dead steps. ``infos`` carry each seat's communicativeness and IPP.

Run::

    python3 examples/pettingzoo_loop.py --games 3 --players 3
"""

from __future__ import annotations

import argparse

import hanabi_env
from agents import make


def main() -> None:
    """Play ``--games`` games of Piers, IGGI, ... and print scores and behaviour metrics."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4, 5])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = hanabi_env.env(players=args.players)  # same constructor as PettingZoo's hanabi_v5
    names = ["Piers", "IGGI", "VanDenBergh", "Outer", "Flawed"][: args.players]
    policies = {f"player_{i}": make(n, seed=args.seed + i) for i, n in enumerate(names)}
    for game in range(args.games):
        env.reset(seed=args.seed + game)
        for pol in policies.values():
            pol.reset()
        infos = {}
        for agent in env.agent_iter():
            *_, infos[agent] = env.last()  # the agent's last info (final one at its dead step)
            env.step(policies[agent](env, agent))  # the one-line integration
        score = infos["player_0"]["score"]
        metrics = ", ".join(
            f"{policies[a].name}: comm {_f(i, 'communicativeness')} IPP {_f(i, 'ipp')}"
            for a, i in infos.items()
        )
        print(f"game {game}: score {score:2d}  ({metrics})")


def _f(info: dict, metric: str) -> str:
    # an undefined metric (no hint opportunity / no play yet) is 0.0 with its flag False
    return f"{info[metric]:.2f}" if info[f"{metric}_defined"] else "n/a"


if __name__ == "__main__":
    main()
