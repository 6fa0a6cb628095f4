#!/usr/bin/env python3
"""Read the Java-reference traces (tests/data/reference_traces/*.jsonl.gz) and summarise them.

    python tools/reference_trace/read_traces.py [DIR] [--check] [--by-label]

Prints, per category, the number of jobs and games, how many games had no randomised move, the
abnormal endings, and the mean score per agent (label) and player count (mirror play, lenient).
``--check`` also replays every game under the Java framework's rules (cards stay in their slot,
a new card goes into the slot that was emptied, n more turns after the deck runs out) from the
recorded deck and moves, and verifies the recorded cards, score, lives, tokens and move count,
plus the per-seat ReportAgent counters against the per-move fields.

Standard library and numpy only. ``load(path)`` yields ``(job, games)`` pairs for reuse.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "reference_traces"
CATEGORIES = ["baselines", "single_rules", "published", "random_chromosomes"]

# Move record: [seat, kind, x, y, rule, info_before, known, flags]
PLAY, DISCARD, TELL_COLOUR, TELL_RANK = 0, 1, 2, 3
F_RANDOM, F_RULE_RAISED, F_ILLEGAL, F_FAILED, F_LEGALITY_RAISED, F_NULL = 1, 2, 4, 8, 16, 32
JAVA_LETTER_TO_PROJECT = {
    "R": 0,
    "O": 1,
    "G": 2,
    "W": 3,
    "B": 4,
}  # RED ORANGE GREEN WHITE BLUE -> R Y G W B


def load(path: Path) -> Iterator[tuple[dict, list[dict]]]:
    """Yield (job, [game, ...]) in file order."""
    job: dict | None = None
    games: list[dict] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] == "job":
                if job is not None:
                    yield job, games
                job, games = rec, []
            else:
                games.append(rec)
    if job is not None:
        yield job, games


def replay(game: dict) -> list[str]:
    """Replay one game with the Java framework's rules; return a list of problems (empty: ok)."""
    errs = _deck_problems(game)
    n, h = game["players"], game["hand_size"]
    deck = game["deck"]
    hands = [[deck[p * h + k] for k in range(h)] for p in range(n)]
    ptr = n * h
    fw = [0] * 5
    info, lives, moves_left, applied = 8, 3, n, 0
    seat = 0
    metrics = [defaultdict(int) for _ in range(n)]
    for t, (s, kind, x, y, _rule, info_before, known, flags) in enumerate(game["moves"]):
        if lives <= 0 or (ptr >= len(deck) and moves_left == 0) or sum(fw) == 25:
            errs.append(f"move {t} after the game should have ended")
            break
        if ptr >= len(deck):
            moves_left -= 1
        if s != seat:
            errs.append(f"move {t}: seat {s}, expected {seat}")
        if info_before != info:
            errs.append(f"move {t}: info {info_before}, replay {info}")
        failed = flags & (F_ILLEGAL | F_FAILED | F_LEGALITY_RAISED | F_NULL)
        _count(metrics[s], kind, flags, info, known)
        if failed:
            if t != len(game["moves"]) - 1:
                errs.append(f"move {t}: failed move is not the last")
            break
        if kind in (PLAY, DISCARD):
            card = hands[s][x]
            if card != y:
                errs.append(f"move {t}: card {y}, replay {card}")
            if kind == PLAY:
                c, r = divmod(card, 5)
                if fw[c] == r:
                    fw[c] += 1
                    if r == 4 and info < 8:
                        info += 1
                else:
                    lives -= 1
            else:
                info += 1
            hands[s][x] = deck[ptr] if ptr < len(deck) else None
            ptr += ptr < len(deck)
        elif kind in (TELL_COLOUR, TELL_RANK):
            info -= 1
        applied += 1
        seat = (seat + 1) % n
    else:
        if not (lives <= 0 or (ptr >= len(deck) and moves_left == 0) or sum(fw) == 25):
            errs.append("moves ran out before the game ended")
    return errs + _end_problems(game, sum(fw), lives, info, applied, metrics)


def _count(m: dict, kind: int, flags: int, info: int, known: int) -> None:
    """The reference's metric counters of one move, as its ReportAgent counted them."""
    if not (flags & F_FAILED) and info > 0:
        m["possible_hints"] += 1
        m["hints_given"] += kind in (TELL_COLOUR, TELL_RANK)
    if kind == PLAY and not (flags & F_FAILED):
        m["plays"] += 1
        m["known_attrs_on_plays"] += (known & 1) + (known >> 1 & 1)


def _deck_problems(game: dict) -> list[str]:
    """The recorded deck against its Java spelling (the first mismatch, if any)."""
    dj = game["deck_java"]
    for i, c in enumerate(game["deck"]):
        letter, rank = dj[2 * i], int(dj[2 * i + 1])
        if JAVA_LETTER_TO_PROJECT[letter] * 5 + rank - 1 != c:
            return [f"deck[{i}] {c} != java {letter}{rank}"]
    return []


def _end_problems(game: dict, score, lives, info, applied, metrics) -> list[str]:
    """The replay's final state and counters against the recorded ones."""
    errs = []
    for name, key, mine in (
        ("score", "score", score),
        ("lives", "lives", lives),
        ("information", "information", info),
        ("java_moves", "java_moves", applied),
    ):
        if mine != game[key]:
            errs.append(f"{name} {game[key]}, replay {mine}")
    for p in range(game["players"]):
        for k in ("possible_hints", "hints_given", "plays", "known_attrs_on_plays"):
            if metrics[p][k] != game["metrics"][p][k]:
                errs.append(f"seat {p} {k} {game['metrics'][p][k]}, replay {metrics[p][k]}")
    return errs


def summarise(directory: Path, check: bool, by_label: bool) -> int:
    """Print the summary of every category file in DIRECTORY; return the number of bad games."""
    bad = 0
    for cat in CATEGORIES:
        path = directory / f"{cat}.jsonl.gz"
        if not path.exists():
            continue
        scores: dict[tuple[str, int], list[int]] = defaultdict(list)
        per_size: dict[int, list[int]] = defaultdict(list)
        n_jobs = n_games = n_det = 0
        ends: dict[str, int] = defaultdict(int)
        for job, games in load(path):
            n_jobs += 1
            for g in games:
                n_games += 1
                n_det += not g["random_fired"]
                scores[(job["label"], g["players"])].append(g["score"])
                per_size[g["players"]].append(g["score"])
                ends[g["end"].split(":")[0]] += 1
                if check:
                    errs = replay(g)
                    if errs:
                        bad += 1
                        if bad <= 10:
                            print(
                                f"  CHECK {cat} {job['label']} n={g['players']} "
                                f"game {g['game']}: {errs[:3]}"
                            )
        print(
            f"{cat}: {n_jobs} jobs, {n_games} games, {n_det} without a randomised move "
            f"({100.0 * n_det / max(n_games, 1):.1f}%), file {path.stat().st_size / 1e6:.2f} MB"
        )
        print("  endings: " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
        print(
            "  mean score by players: "
            + ", ".join(f"{n}p {np.mean(v):.2f} ({len(v)})" for n, v in sorted(per_size.items()))
        )
        labels = list(dict.fromkeys(lab for lab, _ in scores))  # file (job) order
        if by_label or len(labels) <= 10:
            sizes = sorted({n for _, n in scores})
            print(f"  {'agent':<26}" + "".join(f"{n}p".rjust(8) for n in sizes))
            for lab in labels:
                row = "".join(
                    f"{np.mean(scores[(lab, n)]):8.2f}" if (lab, n) in scores else " " * 8
                    for n in sizes
                )
                print(f"  {lab:<26}{row}")
    if check:
        print(
            f"replay check: {'all games consistent' if bad == 0 else f'{bad} games inconsistent'}"
        )
    return bad


def main() -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("directory", nargs="?", default=str(DEFAULT_DIR))
    ap.add_argument("--check", action="store_true", help="replay every game and verify it")
    ap.add_argument(
        "--by-label", action="store_true", help="print the per-agent table for every category"
    )
    args = ap.parse_args()
    raise SystemExit(1 if summarise(Path(args.directory), args.check, args.by_label) else 0)


if __name__ == "__main__":
    main()
