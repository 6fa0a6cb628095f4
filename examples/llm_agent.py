"""A language-model agent in the benchmark, with a plain Python function as the "model".

``agents.text.TextPolicy`` turns any ``model(prompt) -> reply`` function into a policy: the
prompt is the game in words (``agents.text.describe_game``: the rules in brief, the board as the
seat sees it, the legal moves numbered), the reply is read back by ``agents.text.parse_reply``,
and unparsable or illegal replies are counted. Replace ``toy_model`` by a call to your model's
client (no network is used here). The run is a quick look: the first ``--deals`` deals of the
test pool at 2 players (a partial run, off the leaderboard).

Run::

    python3 examples/llm_agent.py --deals 2
"""

from __future__ import annotations

import argparse
import re

import numpy as np

from agents.text import TextPolicy
from hanabi_adhoc.benchmark import run_benchmark


def make_toy_model(seed: int = 0):
    """A stand-in for a language model: it reads the numbered moves off the prompt.

    It plays a hinted card while no firework is started (probably a 1), else gives a rank hint
    most of the time, else discards its oldest card; one reply in ten rambles without naming a
    move (unparsable) and one in twenty names a move that is not listed (illegal), as real
    models sometimes do. It is a poor player (it hardly ever plays): the point is the plumbing.
    """
    rng = np.random.default_rng(seed)

    def toy_model(prompt: str) -> str:
        moves = dict(re.findall(r"\[(\d+)\] ([a-z_0-9 ]+?)(?=\s{2,}|\s*\n|$)", prompt))
        u = rng.random()
        if u < 0.10:
            return "Hmm, this is a tricky position; I need to think about it more."
        if u < 0.15:
            return "I will take move [99]."
        of = {kind: [k for k, m in moves.items() if m.startswith(kind)]
              for kind in ("play", "discard", "reveal rank")}  # fmt: skip
        if "|1" in prompt and "Fireworks: R0 Y0 G0 W0 B0" in prompt and of["play"]:
            choice = of["play"][0]  # a hinted card at the start is probably a 1
        elif of["reveal rank"] and rng.random() < 0.7:
            choice = str(rng.choice(of["reveal rank"]))
        elif of["discard"]:
            choice = of["discard"][0]  # the oldest card
        else:
            choice = str(rng.choice(list(moves)))
        return f"Let me look at the board. My answer: [{choice}]"

    return toy_model


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=2, help="deals per partner and seat")
    ap.add_argument("--out", default=None, help="report folder (default: none written)")
    args = ap.parse_args(argv)
    agent = TextPolicy(make_toy_model(seed=0), name="toy-llm", retries=1)
    bench = run_benchmark(
        [agent],
        suites=["pool"],
        out=args.out,
        deals=args.deals,
        players=[2],
        workers=1,
        progress=False,
    )
    summary = bench.summary["agents"][0]
    pool = summary["suites"]["pool@1"]["all"]
    print(
        f"toy-llm with the test pool: mean score {pool['score_mean']['value']:.2f}, "
        f"normalised {pool['normalised_mean']['value']:.3f}"
    )
    r = agent.reply_stats
    print(
        f"replies {r.replies}: unparsable {r.unparsable}, illegal {r.illegal}, "
        f"fallback moves {r.fallbacks}"
    )


if __name__ == "__main__":
    main()
