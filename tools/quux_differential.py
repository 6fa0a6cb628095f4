"""The full differential: our bots against the C++ reference bots, deal for deal.

docs/bots.md §3. For each bot and game size, plays ``--decks`` deals of this engine (deal seeds
``0 .. decks-1`` of :func:`quux_oracle.deal`) with our bot in every seat and with the oracle's
program on the same stacked deck, reports every deal where the two move lists differ (the first
differing move, both ways) and prints the self-play means +- s.e.m. of both.

Usage (about 0.1 s per SmartBot game of ours, 5 ms per oracle game)::

    python3 tools/quux_differential.py --bots simplebot smartbot --decks 1000
    python3 tools/quux_differential.py --record tests/data/quux --decks 20   # the CI data

``--record DIR`` also writes each bot's oracle games as ``DIR/<bot>.json`` (deck, moves, score
per deal, with provenance), the data ``tests/agents/test_bots.py`` checks against.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import quux_oracle as Q  # noqa: E402

from agents.bots import make_bot  # noqa: E402
from hanabi_env.stats import sem  # noqa: E402

IMPLEMENTED = ("simplebot", "valuebot", "holmesbot", "smartbot")


def run(bot: str, players: int, decks: int, bin_dir: Path) -> dict:
    """Both sides on ``decks`` deals; the scores, mismatches and the oracle's games."""
    ours_scores, theirs_scores, mismatches, games = [], [], [], []
    for seed in range(decks):
        deck = Q.deal(players, seed)
        oracle = Q.run_oracle(bot, players, deck, bin_dir)
        ours, score, error = Q.play_ours(lambda: make_bot(bot), players, deck)
        i = Q.first_mismatch(ours, oracle.steps)
        if i is not None or error is not None:
            mismatches.append(
                {
                    "seed": seed,
                    "move": i,
                    "ours": str(ours[i]) if i is not None and i < len(ours) else None,
                    "theirs": str(oracle.steps[i])
                    if i is not None and i < len(oracle.steps)
                    else None,
                    "error": error,
                }
            )
        ours_scores.append(score)
        theirs_scores.append(oracle.score)
        games.append(
            {
                "seed": seed,
                "deck": Q.deck_text(deck),
                "moves": [s.as_list() for s in oracle.steps],
                "score": oracle.score,
            }
        )
    return {"ours": ours_scores, "theirs": theirs_scores, "mismatches": mismatches, "games": games}


def record(path: Path, bot: str, decks: int, results: dict[int, dict]) -> None:
    """Write the oracle's games of ``bot`` as test data (atomic write)."""
    data = {
        "source": (
            "Quuxplusone/Hanabi commit " + Q.ORACLE_COMMIT + " (MIT), built with its Makefile "
            "FAST=1 (-O3 -DNDEBUG); each deck played as `run_"
            + Q.PROGRAMS[bot][4:]
            + " --players P --deck` and its stderr read by tools/quux_oracle.py"
        ),
        "command": f"python3 tools/quux_differential.py --bots {bot} --decks {decks} "
        f"--record {path.parent}",
        "bot": bot,
        "deal": "hanabi_env deal seeds 0..decks-1 (tools/quux_oracle.py deal); card ids "
        "colour * 5 + rank, colours r o y g b = engine colours 0..4",
        "move": "[actor, kind, slot, target, color, rank] (tools/quux_oracle.py Step)",
        "games": {str(p): r["games"] for p, r in results.items()},
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring); exit 1 when any deal differs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", nargs="+", default=list(IMPLEMENTED), choices=IMPLEMENTED)
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3, 4, 5])
    parser.add_argument("--decks", type=int, default=1000)
    parser.add_argument("--reference", help="folder of the reference's build.sh")
    parser.add_argument("--record", type=Path, help="write the oracle games as test data here")
    args = parser.parse_args(argv)
    bin_dir = Q.build(args.reference)
    bad = 0
    print("| bot | players | decks | ours | C++ | mismatching decks |")
    print("|---|---|---|---|---|---|")
    for bot in args.bots:
        results = {}
        for players in args.players:
            r = run(bot, players, args.decks, bin_dir)
            results[players] = r
            for m in r["mismatches"]:
                print(f"  MISMATCH {bot} {players}p seed {m['seed']}: {m}", file=sys.stderr)
            bad += len(r["mismatches"])
            ours, theirs = np.asarray(r["ours"], float), np.asarray(r["theirs"], float)
            mo, so, mt, st = ours.mean(), float(sem(ours)), theirs.mean(), float(sem(theirs))
            print(
                f"| {bot} | {players} | {args.decks} | {mo:.2f} ± {so:.2f} | {mt:.2f} ± {st:.2f} "
                f"| {len(r['mismatches'])} |",
                flush=True,
            )
        if args.record is not None:
            args.record.mkdir(parents=True, exist_ok=True)
            record(args.record / f"{bot}.json", bot, args.decks, results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
