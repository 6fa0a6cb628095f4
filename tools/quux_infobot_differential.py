"""InfoBot against the C++ InfoBot (Quuxplusone/Hanabi daef9de), deal for deal.

docs/bots_infobot.md §3. For each game size, plays ``--decks`` deals of this engine (deal seeds
``0 .. decks-1`` of ``tools/quux_oracle.py deal``) with our InfoBot in every seat and with the
oracle's ``run_InfoBot`` on the same stacked deck, reports every deal where the two move lists
differ (the first differing move, both ways) and prints the self-play means +- s.e.m. of both.

Our side is played by the compiled game loop (``--ours compiled``, the default:
:func:`agents.bots.infobot_games.play_infobot_games`), by the policy
(``--ours policy``: :class:`agents.bots.infobot.InfoBot` in a Python loop, as a user plays it),
or by both (``--ours both``, each compared with the oracle).

Usage::

    python3 tools/quux_infobot_differential.py --decks 1000              # builds the oracle
    python3 tools/quux_infobot_differential.py --record tests/data/quux/infobot --decks 20
    python3 tools/quux_infobot_differential.py --recorded tests/data/quux/infobot/games.json

``--record DIR`` also writes the oracle's games as ``DIR/games.json`` (deck, moves, score per
deal, with provenance), the data ``tests/agents/test_infobot.py`` checks against;
``--recorded FILE`` checks our bot against such a file, without the C++ build.
Exit status: 0 when every deal matches, 1 otherwise, 2 on bad arguments.
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

from agents.bots.infobot import InfoBot  # noqa: E402
from agents.bots.infobot_games import infobot_config, play_infobot_games  # noqa: E402
from hanabi_env.game import HanabiGame  # noqa: E402
from hanabi_env.stats import sem  # noqa: E402

OURS = ("compiled", "policy", "both")


def deck_of(text: str) -> list[int]:
    """A deck in the oracle's text (``1r 3o ...``) as engine card ids."""
    return [Q.LETTERS.index(c[1]) * 5 + int(c[0]) - 1 for c in text.split()]


def compiled_games(players: int, decks: np.ndarray) -> list[tuple[list[Q.Step], int]]:
    """Our InfoBots on each deck by the compiled loop: (steps, lenient score) per deck."""
    cfg = infobot_config(players)
    scores, actions = play_infobot_games(cfg, decks, record=True)
    assert actions is not None
    out = []
    game = HanabiGame(cfg)
    for g in range(decks.shape[0]):
        game.reset_with_deck(decks[g])
        for uid in actions[g]:
            if uid < 0:
                break
            game.step(int(uid))
        out.append(([Q.step_of(m) for m in game.view(0).moves], int(scores[g])))
    return out


def policy_game(players: int, deck: Sequence[int]) -> tuple[list[Q.Step], int, str | None]:
    """Our InfoBot policy in every seat on ``deck``: steps, lenient score, error or None."""
    return Q.play_ours(InfoBot, players, deck)


def _mismatch(seed: int, ours: list, theirs: list, error: str | None, side: str) -> dict | None:
    i = Q.first_mismatch(ours, theirs)
    if i is None and error is None:
        return None
    return {
        "seed": seed,
        "ours": side,
        "move": i,
        "ours_move": str(ours[i]) if i is not None and i < len(ours) else None,
        "theirs_move": str(theirs[i]) if i is not None and i < len(theirs) else None,
        "error": error,
    }


def check(players: int, seeds: list[int], decks: np.ndarray, theirs: list, ours_side: str):
    """Compare our games with the oracle's (``theirs``: (steps, score) per deck).

    Returns our scores (of the first side played) and the mismatches.
    """
    mismatches = []
    scores = []
    if ours_side in ("compiled", "both"):
        for seed, (steps, score), (t_steps, t_score) in zip(
            seeds, compiled_games(players, decks), theirs, strict=True
        ):
            m = _mismatch(seed, steps, t_steps, None, "compiled")
            if m is None and score != t_score:
                m = {"seed": seed, "ours": "compiled", "score": [score, t_score]}
            if m is not None:
                mismatches.append(m)
            scores.append(score)
    if ours_side in ("policy", "both"):
        pol = []
        for seed, deck, (t_steps, t_score) in zip(seeds, decks, theirs, strict=True):
            steps, score, error = policy_game(players, deck)
            m = _mismatch(seed, steps, t_steps, error, "policy")
            if m is None and score != t_score:
                m = {"seed": seed, "ours": "policy", "score": [score, t_score]}
            if m is not None:
                mismatches.append(m)
            pol.append(score)
        if not scores:
            scores = pol
    return scores, mismatches


def record(path: Path, decks: int, games: dict[int, list[dict]]) -> None:
    """Write the oracle's games as test data (atomic write)."""
    data = {
        "source": (
            "Quuxplusone/Hanabi commit " + Q.ORACLE_COMMIT + " (MIT), built with its Makefile "
            "FAST=1 (-O3 -DNDEBUG); each deck played as `run_InfoBot --players P --deck` and "
            "its stderr read by tools/quux_oracle.py"
        ),
        "command": f"python3 tools/quux_infobot_differential.py --decks {decks} "
        f"--record {path.parent}",
        "bot": "infobot",
        "deal": "hanabi_env deal seeds 0..decks-1 (tools/quux_oracle.py deal); card ids "
        "colour * 5 + rank, colours r o y g b = engine colours 0..4",
        "move": "[actor, kind, slot, target, color, rank] (tools/quux_oracle.py Step)",
        "games": {str(p): g for p, g in games.items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def _print_row(players: int, n: int, ours: list, theirs: list, bad: int) -> None:
    o = np.asarray(ours, dtype=float)
    t = np.asarray(theirs, dtype=float)
    print(
        f"| {players} | {n} | {o.mean():.2f} ± {float(sem(o)):.2f} | "
        f"{t.mean():.2f} ± {float(sem(t)):.2f} | {bad} |",
        flush=True,
    )


def _report(mismatches: list[dict], players: int) -> None:
    for m in mismatches:
        print(f"  MISMATCH {players}p: {m}", file=sys.stderr)


def run_recorded(path: Path, ours_side: str, players_list: Sequence[int]) -> int:
    """Check our InfoBot against recorded oracle games; the number of mismatching deals."""
    data = json.loads(path.read_text())
    bad = 0
    for players in players_list:
        games = data["games"].get(str(players), [])
        if not games:
            continue
        decks = np.asarray([deck_of(g["deck"]) for g in games], dtype=np.int64)
        theirs = [([Q.Step.from_list(m) for m in g["moves"]], g["score"]) for g in games]
        seeds = [int(g["seed"]) for g in games]
        scores, mismatches = check(players, seeds, decks, theirs, ours_side)
        _report(mismatches, players)
        bad += len(mismatches)
        _print_row(players, len(games), scores, [t[1] for t in theirs], len(mismatches))
    return bad


def run_live(args: argparse.Namespace) -> int:
    """Play the oracle and ours on fresh deals; the number of mismatching deals."""
    bin_dir = Q.build(args.reference)
    bad = 0
    recorded: dict[int, list[dict]] = {}
    for players in args.players:
        seeds = list(range(args.decks))
        decks = np.stack([Q.deal(players, s) for s in seeds])
        theirs = []
        for seed, deck in zip(seeds, decks, strict=True):
            game = Q.run_oracle("infobot", players, deck, bin_dir)
            theirs.append((game.steps, game.score))
            recorded.setdefault(players, []).append(
                {
                    "seed": seed,
                    "deck": Q.deck_text(deck),
                    "moves": [s.as_list() for s in game.steps],
                    "score": game.score,
                }
            )
        scores, mismatches = check(players, seeds, decks, theirs, args.ours)
        _report(mismatches, players)
        bad += len(mismatches)
        _print_row(players, args.decks, scores, [t[1] for t in theirs], len(mismatches))
    if args.record is not None:
        record(args.record / "games.json", args.decks, recorded)
    return bad


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring); exit 1 when any deal differs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3, 4, 5])
    parser.add_argument("--decks", type=int, default=1000)
    parser.add_argument("--ours", default="compiled", choices=OURS)
    parser.add_argument("--reference", help="folder of the reference's build.sh")
    parser.add_argument("--record", type=Path, help="write the oracle games as test data here")
    parser.add_argument("--recorded", type=Path, help="check against this recorded file")
    args = parser.parse_args(argv)
    if any(p not in (2, 3, 4, 5) for p in args.players):
        parser.error(f"--players must be among 2 3 4 5, got {args.players}")
    if args.decks < 1:
        parser.error(f"--decks must be at least 1, got {args.decks}")
    if args.recorded is not None and not args.recorded.is_file():
        parser.error(f"--recorded: no such file {args.recorded}")
    print("| players | decks | ours | C++ | mismatching decks |")
    print("|---|---|---|---|---|")
    if args.recorded is not None:
        bad = run_recorded(args.recorded, args.ours, args.players)
    else:
        bad = run_live(args)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
