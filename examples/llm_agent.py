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

    It prefers a play the hints made safe-looking (a card of the seat with a known rank 1 when
    no firework is started), else a rank hint, else any listed move; one reply in ten is
    rambling without a move (unparsable) and one in twenty names a move that is not listed
    (illegal), as real models sometimes do.
    """
    rng = np.random.default_rng(seed)

    def toy_model(prompt: str) -> str:
        moves = dict(re.findall(r"\[(\d+)\] ([a-z_0-9 ]+?)(?=\s{2,}|\s*\n|$)", prompt))
        u = rng.random()
        if u < 0.10:
            return "Hmm, this is a tricky position; I need to think about it more."
        if u < 0.15:
            return "I will play my sixth card: play slot 9"
        hints = [k for k, m in moves.items() if m.startswith("reveal rank")]
        plays = [k for k, m in moves.items() if m.startswith("play")]
        if "|1" in prompt and "Fireworks: R0 Y0 G0 W0 B0" in prompt and plays:
            choice = plays[0]
        elif hints and rng.random() < 0.5:
            choice = str(rng.choice(hints))
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
