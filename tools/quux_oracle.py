"""Play the C++ reference bots (Quuxplusone/Hanabi, commit daef9de) as a test oracle.

docs/bots.md §3. A developer tool, not part of the package: it builds the C++ bots with the
reference's build script, writes one of this project's deals in the oracle's stacked-deck format,
runs one game on it, reads the oracle's move log back as moves comparable with ours, and plays a
bot of this project on the same deal to find the first move where the two differ.

The C++ source is not part of this repository: pass the folder holding its ``build.sh`` and
``src/`` (github Quuxplusone/Hanabi at daef9de, with a build script) with ``--reference`` or
set ``HANABI_QUUX_REFERENCE``; it is needed only to build.
The built programs go to ``$TMPDIR/hanabi-reference-quux`` (``--build-dir``).

Card and colour mapping: this engine's card id ``colour * 5 + rank`` (0-based rank) is the
oracle's ``"<rank+1><letter>"`` with letters ``r o y g b`` for the engine's colours 0..4 in
order (the game is symmetric in its colours, only the names differ).

A move is compared as a :class:`Step` ``(actor, kind, slot, target, color, rank)``: plays and
discards carry the hand slot (0 = oldest, as both engines order hands) and the card's colour
and rank; reveals the target seat and the colour or rank named (the other fields -1).

Usage::

    python3 tools/quux_oracle.py build
    python3 tools/quux_oracle.py play --bot smartbot --players 3 --seed 11   # one deal, compared
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hanabi_env.config import HanabiConfig, rulebook_hand_size  # noqa: E402
from hanabi_env.game import HanabiGame, Move  # noqa: E402

ORACLE_COMMIT = "daef9de"
"""The Quuxplusone/Hanabi commit the oracle is built from."""

LETTERS = "roygb"
"""The oracle's colour letters, in this engine's colour order."""

COLOUR_WORDS = ("red", "orange", "yellow", "green", "blue")

PROGRAMS = {
    "simplebot": "run_SimpleBot",
    "valuebot": "run_ValueBot",
    "holmesbot": "run_HolmesBot",
    "smartbot": "run_SmartBot",
    "infobot": "run_InfoBot",
    "blindbot": "run_BlindBot",
}
"""This project's bot names and the oracle's programs."""

Deck = Sequence[int] | np.ndarray
"""A deck: engine card ids, first dealt first."""

_POSITIONS = {
    5: ("oldest", "second-oldest", "middle", "second-newest", "newest"),
    4: ("oldest", "second-oldest", "second-newest", "newest"),
    3: ("oldest", "middle", "newest"),
}


@dataclass(frozen=True)
class Step:
    """One move in the comparable form: ``(actor, kind, slot, target, color, rank)``.

    ``kind`` is ``"play"``, ``"discard"``, ``"reveal_color"`` or ``"reveal_rank"``; ``color``
    and ``rank`` are 0-based engine indices; unused fields are -1.
    """

    actor: int
    kind: str
    slot: int = -1
    target: int = -1
    color: int = -1
    rank: int = -1

    def as_list(self) -> list:
        """The step as a JSON list ``[actor, kind, slot, target, color, rank]``."""
        return [self.actor, self.kind, self.slot, self.target, self.color, self.rank]

    @classmethod
    def from_list(cls, item: Sequence) -> Step:
        """The inverse of :meth:`as_list`."""
        a, k, s, t, c, r = item
        return cls(int(a), str(k), int(s), int(t), int(c), int(r))

    def __str__(self) -> str:
        """Short text, e.g. ``p1 play slot 2 (1r)`` or ``p0 -> p1 rank 3``."""
        if self.kind in ("play", "discard"):
            return (
                f"p{self.actor} {self.kind} slot {self.slot} ({self.rank + 1}{LETTERS[self.color]})"
            )
        what = LETTERS[self.color] if self.kind == "reveal_color" else str(self.rank + 1)
        return f"p{self.actor} -> p{self.target} {self.kind[7:]} {what}"


def step_of(move: Move) -> Step:
    """Our :class:`hanabi_env.game.Move` as a :class:`Step`."""
    if move.kind in ("play", "discard"):
        return Step(move.actor, move.kind, move.slot, -1, move.color, move.rank)
    if move.kind == "reveal_color":
        return Step(move.actor, move.kind, -1, move.target, move.color, -1)
    return Step(move.actor, move.kind, -1, move.target, -1, move.rank)


def card_text(card: int) -> str:
    """Engine card id (5 colours x 5 ranks) as the oracle writes it, e.g. ``0 -> "1r"``."""
    return f"{card % 5 + 1}{LETTERS[card // 5]}"


def deck_text(deck: Deck) -> str:
    """A deck (engine card ids, first dealt first) in the oracle's ``--deck`` format."""
    return " ".join(card_text(int(c)) for c in deck)


def game_config(players: int) -> HanabiConfig:
    """The oracle's rules as this engine's configuration (docs/rules.md §15)."""
    return HanabiConfig(players=players, hand_size=rulebook_hand_size(players), scoring="lenient")


def deal(players: int, seed: int) -> np.ndarray:
    """The deck (card ids, first dealt first) this engine deals from ``seed``."""
    game = HanabiGame(game_config(players))
    game.reset(seed)
    return np.asarray(game.state.deck, dtype=np.int64).copy()


_LINE_PLAY = re.compile(
    r"Player (\d) (played|discarded|tried to play) his ([\w-]+) card \((\d)([roygb])\)"
)
_LINE_HINT = re.compile(r"Player (\d) told player (\d) that .* (?:was|were) (\w+)\.$")
_LINE_DRAW = re.compile(r"Player (\d) drew a replacement")


def parse_log(text: str, players: int) -> list[Step]:
    """The moves of an oracle game log (its stderr with ``--deck``), in order.

    Raises:
        ValueError: A move line the parser does not understand (quoted).
    """
    sizes = [rulebook_hand_size(players)] * players
    steps: list[Step] = []
    for line in text.splitlines():
        m = _LINE_PLAY.match(line)
        if m:
            actor, verb, where, value, letter = m.groups()
            p = int(actor)
            names = _POSITIONS.get(sizes[p])
            if names is None or where not in names:
                raise ValueError(f"cannot read the position in {line!r} (hand of {sizes[p]})")
            kind = "discard" if verb == "discarded" else "play"
            steps.append(
                Step(p, kind, names.index(where), -1, LETTERS.index(letter), int(value) - 1)
            )
            sizes[p] -= 1
            continue
        m = _LINE_DRAW.match(line)
        if m:
            sizes[int(m.group(1))] += 1
            continue
        m = _LINE_HINT.match(line)
        if m:
            actor, target, word = m.groups()
            word = word.rstrip("s") if word[0].isdigit() else word
            if word in COLOUR_WORDS:
                steps.append(
                    Step(int(actor), "reveal_color", -1, int(target), COLOUR_WORDS.index(word))
                )
            elif word.isdigit():
                steps.append(Step(int(actor), "reveal_rank", -1, int(target), -1, int(word) - 1))
            else:
                raise ValueError(f"cannot read the hint in {line!r}")
            continue
        if line.startswith("Player") and (" told " in line or " his " in line):
            raise ValueError(f"cannot read the oracle's line {line!r}")
    return steps


def reference_dir(path: str | None = None) -> Path:
    """The folder holding the reference's ``build.sh`` and ``src/``.

    Raises:
        FileNotFoundError: Neither ``path`` nor ``HANABI_QUUX_REFERENCE`` is given.
    """
    path = path or os.environ.get("HANABI_QUUX_REFERENCE")
    if not path:
        raise FileNotFoundError(
            "the C++ bots are not built; pass --reference FOLDER (holding build.sh) or set "
            "HANABI_QUUX_REFERENCE"
        )
    return Path(path)


def default_build_dir() -> Path:
    """Where the built programs go: ``$TMPDIR/hanabi-reference-quux``."""
    return Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "hanabi-reference-quux"


def build(reference: str | None = None, out: Path | None = None, force: bool = False) -> Path:
    """Build the C++ bots (about 30 CPU-seconds) unless already built; the folder of programs.

    Raises:
        FileNotFoundError: No ``build.sh`` in the reference folder.
        subprocess.CalledProcessError: The build failed.
    """
    out = out or default_build_dir()
    if not force and all((out / p).is_file() for p in PROGRAMS.values()):
        return out
    script = reference_dir(reference) / "build.sh"
    if not script.is_file():
        raise FileNotFoundError(
            f"no build script at {script}; pass --reference or set HANABI_QUUX_REFERENCE"
        )
    subprocess.run(["bash", str(script), str(out)], check=True)
    return out


def built(out: Path | None = None) -> Path | None:
    """The folder of built programs if every program is there, else None."""
    out = out or default_build_dir()
    return out if all((out / p).is_file() for p in PROGRAMS.values()) else None


@dataclass
class OracleGame:
    """One oracle game: its moves, its score and its raw log."""

    steps: list[Step]
    score: int
    log: str


def run_oracle(bot: str, players: int, deck: Deck, bin_dir: Path | None = None) -> OracleGame:
    """Play the oracle's ``bot`` on ``deck`` (engine card ids, first dealt first).

    Raises:
        ValueError: An unknown bot, or output the parser cannot read.
        subprocess.CalledProcessError: The program failed.
    """
    if bot not in PROGRAMS:
        raise ValueError(f"bot={bot!r} is not allowed; allowed: {', '.join(PROGRAMS)}")
    program = (bin_dir or default_build_dir()) / PROGRAMS[bot]
    done = subprocess.run(
        [str(program), "--players", str(players), "--deck"],
        input=deck_text(deck),
        capture_output=True,
        text=True,
        check=True,
    )
    m = re.search(r"scored (\d+) points", done.stdout)
    if m is None:
        raise ValueError(f"no score in the oracle's output: {done.stdout!r}")
    return OracleGame(parse_log(done.stderr, players), int(m.group(1)), done.stderr)


def play_ours(
    make: Callable[[], object], players: int, deck: Deck
) -> tuple[list[Step], int, str | None]:
    """Play our bot (``make()`` builds one policy per seat) on ``deck``.

    Returns:
        The steps, the score (lenient) and the text of an exception that stopped the game, or
        None.
    """
    game = HanabiGame(game_config(players))
    game.reset_with_deck(np.asarray(deck, dtype=np.int64))
    seats = [make() for _ in range(players)]
    for s in seats:
        s.reset()  # type: ignore[attr-defined]
    error = None
    try:
        while not game.is_terminal:
            cur = game.current_player
            game.step(int(seats[cur].act(game.view(cur))))  # type: ignore[attr-defined]
    except Exception as err:  # reported as the game outcome
        error = f"{type(err).__name__}: {err}"
    steps = [step_of(m) for m in game.view(0).moves]
    return steps, int(game.fireworks_total), error


def action_of(view, step: Step) -> int:
    """The move uid of ``step`` for the seat of ``view`` (which must be ``step.actor``)."""
    if step.kind in ("play", "discard"):
        return view.action_uid(step.kind, slot=step.slot)
    if step.kind == "reveal_color":
        return view.action_uid(step.kind, target=step.target, color=step.color)
    return view.action_uid(step.kind, target=step.target, rank=step.rank)


def replay(players: int, deck: Deck, steps: Sequence[Step]) -> HanabiGame:
    """Play the oracle's ``steps`` on this engine; the finished game.

    Checks the two engines' rules agree: each step is legal here, is this engine's mover's,
    plays/discards the card the oracle names, and this engine's game ends with the last step.

    Raises:
        ValueError: The first step where the engines disagree, named.
    """
    game = HanabiGame(game_config(players))
    game.reset_with_deck(np.asarray(deck, dtype=np.int64))
    for i, step in enumerate(steps):
        if game.is_terminal:
            raise ValueError(f"move {i} ({step}): this engine's game is already over")
        if step.actor != game.current_player:
            raise ValueError(f"move {i} ({step}): seat {game.current_player} is to move here")
        view = game.view(step.actor)
        action = action_of(view, step)
        if not view.legal_mask()[action]:
            raise ValueError(f"move {i} ({step}) is illegal in this engine")
        game.step(action)
        if step_of(game.view(0).moves[-1]) != step:
            raise ValueError(f"move {i} ({step}) is {step_of(game.view(0).moves[-1])} here")
    if not game.is_terminal:
        raise ValueError(f"this engine's game goes on after the oracle's {len(steps)} moves")
    return game


def first_mismatch(ours: Sequence[Step], theirs: Sequence[Step]) -> int | None:
    """The index of the first move that differs (or where one game is longer), else None."""
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return i
    return None if len(ours) == len(theirs) else min(len(ours), len(theirs))


def compare(bot: str, players: int, deck: Deck, bin_dir: Path | None = None) -> dict:
    """Play ``bot`` (ours, from ``agents.make``) and the oracle on ``deck``; a report dict.

    Keys: ``index`` (first differing move or None), ``ours``/``theirs`` (the two moves there,
    as text), ``score_ours``, ``score_theirs``, ``error`` (our bot's exception or None).
    """
    from agents import make

    oracle = run_oracle(bot, players, deck, bin_dir)
    ours, score, error = play_ours(lambda: make(bot), players, deck)
    i = first_mismatch(ours, oracle.steps)
    return {
        "index": i,
        "ours": str(ours[i]) if i is not None and i < len(ours) else None,
        "theirs": str(oracle.steps[i]) if i is not None and i < len(oracle.steps) else None,
        "score_ours": score,
        "score_theirs": oracle.score,
        "error": error,
        "moves": len(oracle.steps),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``build``, or ``play`` one deal with both and report the first mismatch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", help="folder of the reference's build.sh")
    parser.add_argument("--build-dir", type=Path, help="where the programs are built")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build", help="build the C++ bots")
    play = sub.add_parser("play", help="play one deal with ours and the oracle's bot")
    play.add_argument("--bot", required=True, choices=sorted(PROGRAMS))
    play.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5))
    play.add_argument("--seed", type=int, default=0, help="deal seed of this engine")
    play.add_argument("--log", action="store_true", help="print the oracle's log")
    args = parser.parse_args(argv)
    out = build(args.reference, args.build_dir)
    if args.cmd == "build":
        print(f"built: {out}")
        return 0
    deck = deal(args.players, args.seed)
    report = compare(args.bot, args.players, deck, out)
    if args.log:
        print(run_oracle(args.bot, args.players, deck, out).log)
    print(deck_text(deck))
    for key, value in report.items():
        print(f"{key}: {value}")
    return 0 if report["index"] is None and report["error"] is None else 1


if __name__ == "__main__":
    sys.exit(main())
