"""One episode of the Bayesian meta-agent ([Bayes21]) with a partner it does not know.

Builds the offline response table I(r, h) over the published 5×5 MAP-Elites population
(R = H), picks one elite as the unknown partner, and plays ``--games`` games with it. After
each game the agent updates its belief over H from the partner's observed communicativeness
and IPP; the script prints the most likely hypotheses and the chosen response after each game.

Run::

    python3 examples/meta_agent_episode.py --games 10 --train-games 50
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.evaluate import game_seeds
from agents.policy import play_out
from hanabi_env import HanabiConfig, HanabiGame
from meta.bayes import BayesianMetaAgent
from meta.pools import load_pool
from meta.table import build_table


def main() -> None:
    """Play one episode and print the belief after each game."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games in the episode")
    parser.add_argument("--train-games", type=int, default=50, help="games per table pair")
    parser.add_argument("--partner", default="[2,3]", help="cell of the partner (e.g. [2,3])")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    pool, ids = load_pool("5x5")  # the published population's elites, ids "[i,j]"
    if args.partner not in ids:
        parser.error(f"--partner must be one of {ids}")
    table = build_table(pool, pool, games=args.train_games, seed=args.seed,
                        response_ids=ids, hypothesis_ids=ids)  # fmt: skip
    partner = pool[ids.index(args.partner)]
    agent = BayesianMetaAgent(table, pool, variant="adaptive", seed=args.seed)
    print(f"{len(ids)} hypotheses; generalist response {ids[table.generalist()]}; "
          f"true partner {args.partner} (unknown to the agent)")  # fmt: skip

    game = HanabiGame(HanabiConfig(players=2, hand_size=5, scoring="lenient"))
    _, deals, seeds = game_seeds(args.seed, args.games, 2, random_seat=False)
    agent.start_episode("partner")
    for g in range(args.games):
        agent.start_game("partner")  # the update happens here (before every game but the first)
        game.reset(int(deals[g]))
        agent.reset(int(seeds[g, 0]))
        partner.reset(int(seeds[g, 1]))
        play_out(game, (agent, partner))  # each seat acts on its own view until the end
        agent.end_game(game.view(0))
        belief = agent.belief("partner")
        top = np.argsort(-belief)[:3]
        guesses = ", ".join(f"{ids[j]} {belief[j]:.2f}" for j in top)
        print(f"game {g}: score {game.score:2d} with response {ids[agent.response]}; "
              f"belief top 3: {guesses}")  # fmt: skip
    rank = int(np.sum(belief > belief[ids.index(args.partner)])) + 1
    print(f"true partner {args.partner}: belief {belief[ids.index(args.partner)]:.2f} "
          f"(rank {rank} of {len(ids)})")  # fmt: skip


if __name__ == "__main__":
    main()
