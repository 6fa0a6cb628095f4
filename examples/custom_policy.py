"""Writing your own policy: subclass ``agents.Policy`` and implement ``act(view)``.

The policy below plays a card whose colour and rank are both known to be playable, hints a
playable card to the next player when it can, and otherwise discards its oldest card (or hints
anything when discarding is illegal). It then plays in a PettingZoo loop and in the batch
evaluator next to Piers.

Run::

    python3 examples/custom_policy.py --games 50
"""

from __future__ import annotations

import argparse

import numpy as np

import hanabi_env
from agents import Policy, make, play
from agents.human import action_uid, legal_actions
from hanabi_env import PlayerView


class HintThenPlay(Policy):
    """A small hand-written policy deciding from the player view only."""

    name = "HintThenPlay"

    def __init__(self, seed: int = 0):
        """Seeded generator for tie-breaks."""
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed between games when the evaluator gives a seed."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        """Return a legal move uid (built with ``agents.human.action_uid``)."""
        legal = set(legal_actions(view).tolist())
        me = view.seat
        # 1. play a card known to be playable: one plausible colour and rank, the next in line
        for k in range(int(view.hand_lengths[me])):
            colours = np.flatnonzero(view.color_plausible[me, k])
            ranks = np.flatnonzero(view.rank_plausible[me, k])
            if len(colours) == 1 and len(ranks) == 1 and view.fireworks[colours[0]] == ranks[0]:
                return action_uid(view, "play", slot=k)
        # 2. hint the rank of a playable card in the next player's hand
        nxt = (me + 1) % view.n_players
        if view.information_tokens > 0:
            for k in range(int(view.hand_lengths[nxt])):
                card = int(view.hands[nxt, k])
                colour, rank = divmod(card, view.n_ranks)
                if view.fireworks[colour] == rank:
                    action = action_uid(view, "reveal_rank", target=nxt, rank=rank)
                    if action in legal:
                        return action
        # 3. discard the oldest card if allowed, else any legal move
        oldest = action_uid(view, "discard", slot=0)
        if oldest in legal:
            return oldest
        return int(self.rng.choice(sorted(legal)))


def main() -> None:
    """Play HintThenPlay with Piers in the AEC env and in the evaluator."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = hanabi_env.env(players=2)
    ours, piers = HintThenPlay(seed=args.seed), make("piers", seed=args.seed)
    env.reset(seed=args.seed)
    seats = {"player_0": ours, "player_1": piers}
    for agent in env.agent_iter():
        *_, info = env.last()
        env.step(seats[agent](env, agent))
    print(f"one AEC game with Piers: score {info['score']}")

    batch = play([ours, "piers"], games=args.games, seed=args.seed)
    m = batch.seat_metrics()
    print(
        f"{args.games} games with Piers: {batch.scores.mean():.2f} ± "
        f"{batch.scores.std(ddof=1) / np.sqrt(len(batch.scores)):.2f}; ours: communicativeness "
        f"{np.nanmean(m['communicativeness'][:, 0]):.2f}, IPP {np.nanmean(m['ipp'][:, 0]):.2f}"
    )


if __name__ == "__main__":
    main()
