"""A person at the terminal as a policy, and a text board drawn from one seat's view.

:class:`HumanPolicy` follows the same :class:`~agents.policy.Policy` protocol as every agent, so a
person can sit in any seat of a PettingZoo loop next to rule-based agents, meta-agents or SB3
models (``hanabi-adhoc play human piers``). It sees only what its seat may see: the board is
drawn by :func:`render_view` from the seat's :class:`~hanabi_env.game.PlayerView`, with the
person's own cards shown as ``??`` plus what the hints told about them.

Input: the number of a listed legal move, or a short command — ``p2`` (play slot 2), ``d0``
(discard slot 0), ``c1 R`` (reveal red to player_1), ``r1 3`` (reveal rank 3 to player_1);
``?`` shows the notation and the syntax; ``q`` or end of input (Ctrl-D) quits (both raise
:class:`KeyboardInterrupt`). Anything else re-prompts with the reason it was rejected (no such
slot, information tokens full or empty, a hint to yourself or touching no card, ...): a typo
never ends the game.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Callable

import numpy as np

from agents.policy import Policy
from hanabi_env import engine as E
from hanabi_env.game import COLOR_NAMES, PlayerView, card_name, describe_move

__all__ = [
    "LEGEND",
    "SYNTAX",
    "HumanPolicy",
    "action_uid",
    "describe_action",
    "format_moves",
    "interpret_move",
    "legal_actions",
    "numbered_moves",
    "render_view",
]


def legal_actions(view: PlayerView) -> np.ndarray:
    """Legal move uids (ascending int64) of the seat of ``view``, computed from the view only.

    :meth:`hanabi_env.PlayerView.legal_actions`, for a seat that must be on turn.

    Raises:
        ValueError: It is not this seat's turn, or the game is over.
    """
    if view.is_terminal or view.current_player != view.seat:
        raise ValueError(f"player_{view.seat} is not on turn")
    return view.legal_actions()


action_uid = PlayerView.action_uid
"""``action_uid(view, kind, slot=None, target=None, color=None, rank=None)``: the move uid of a
move of the seat of ``view`` (:meth:`hanabi_env.PlayerView.action_uid`, which documents the
arguments and errors)."""


def describe_action(view: PlayerView, action: int) -> str:
    """Readable description of move uid ``action`` for the seat of ``view``.

    Example: ``"play slot 2"``, ``"reveal R to player_1"``, ``"reveal rank 3 to player_1"``.
    """
    return describe_move(view.raw.cfg, view.seat, action)


def _knowledge(view: PlayerView, p: int, k: int) -> str:
    """Plausible colours then ranks; a dimension still fully open is left out ("" = no hint)."""
    col = np.flatnonzero(view.color_plausible[p, k])
    rank = np.flatnonzero(view.rank_plausible[p, k])
    cols = "" if len(col) == view.n_colors else "".join(COLOR_NAMES[c] for c in col)
    ranks = "" if len(rank) == view.n_ranks else "".join(str(r + 1) for r in rank)
    return cols + ranks


def _move_text(view: PlayerView, m) -> str:
    who = "you" if m.actor == view.seat else f"player_{m.actor}"
    if m.kind in ("play", "discard"):
        card = card_name(m.card, view.n_ranks)
        if m.kind == "play":
            return f"{who} played {card} from slot {m.slot}" + ("" if m.scored else " (misplay)")
        return f"{who} discarded {card} from slot {m.slot}"
    to = "you" if m.target == view.seat else f"player_{m.target}"
    what = COLOR_NAMES[m.color] if m.kind == "reveal_color" else f"rank {m.rank + 1}"
    return f"{who} revealed {what} to {to} (slots {', '.join(map(str, m.touched_slots))})"


LEGEND = (
    "Key: 2:G4 = slot 2 holds G4 (slot 0 = oldest); ?? = your card, hidden from you.\n"
    "     After '|': what the hints still allow, e.g. |G = green, |2345 = not a 1,\n"
    "     |RY34 = red or yellow and rank 3 or 4 (no '|' = no hint touched it yet)."
)
"""The notation of :func:`render_view`, printed with ``legend=True``."""

SYNTAX = (
    "type the [number] of a listed move, or a command: p<slot> play, d<slot> discard, "
    "c<player> <colour> colour hint, r<player> <rank> rank hint "
    "(e.g. p0, d4, c1 R, r1 3); ? shows help, q quits"
)
"""The accepted input, as shown to the person."""

_COLOUR_WORDS = {"red": "R", "yellow": "Y", "green": "G", "white": "W", "blue": "B"}
_GROUPS = (
    ("Play", "p<slot>"),
    ("Discard", "d<slot>"),
    ("Hint", "c<player> <colour>, r<player> <rank>"),
)


def render_view(view: PlayerView, legend: bool = False, width: int | None = None) -> str:
    """Text board of what the seat of ``view`` may see (its own cards as ``??``).

    Each card is ``slot:name`` followed by ``|knowledge`` when hints narrowed it: the colours
    and/or ranks still plausible (HLE card knowledge). The seat's own last move and everything
    after it come last, word-wrapped to ``width`` columns (None = the terminal width).
    ``legend=True`` adds :data:`LEGEND` under the hands.
    """
    lines = [
        f"Score {view.score}  Info {view.information_tokens}/{view.max_information_tokens}  "
        f"Lives {view.life_tokens}  Deck {view.deck_size}"
        + ("  (game over)" if view.is_terminal else ""),
        "Fireworks: " + " ".join(f"{COLOR_NAMES[c]}{int(h)}" for c, h in enumerate(view.fireworks)),
    ]
    for p in range(view.n_players):
        marker = "->" if p == view.current_player and not view.is_terminal else "  "
        who = "you     " if p == view.seat else f"player_{p}"
        cards = []
        for k in range(int(view.hand_lengths[p])):
            name = "??" if p == view.seat else card_name(int(view.hands[p, k]), view.n_ranks)
            know = _knowledge(view, p, k)
            cards.append(f"{k}:{name}" + (f"|{know}" if know else ""))
        lines.append(_wrap(f"{marker} {who}: " + "  ".join(cards), _width(width), indent=13))
    if legend:
        lines.append(LEGEND)
    disc = [
        f"{card_name(c, view.n_ranks)}x{int(n)}" for c, n in enumerate(view.discard_counts) if n > 0
    ]
    lines.append("Discards: " + (" ".join(disc) if disc else "-"))
    moves = view.moves
    own = [m.index for m in moves if m.actor == view.seat]
    recent = moves[own[-1] :] if own else moves
    if recent:
        text = "Last moves: " + "; ".join(_move_text(view, m) for m in recent)
        lines.append(_wrap(text, _width(width)))
    return "\n".join(lines)


def _menu(view: PlayerView, legal: np.ndarray) -> list[list[int]]:
    """The legal uids grouped as plays, discards, hints (numbered in this order)."""
    groups: list[list[int]] = [[], [], []]
    for a in legal:
        kind = E.decode_action(view.raw.cfg, view.seat, int(a))[0]
        groups[0 if kind == E.PLAY else 1 if kind == E.DISCARD else 2].append(int(a))
    return groups


def numbered_moves(view: PlayerView, legal: np.ndarray) -> list[int]:
    """The legal move uids in the order :func:`format_moves` numbers them (``[0]``, ``[1]``...)."""
    return [a for g in _menu(view, legal) for a in g]


def _grid(entries: list[str], width: int, indent: int = 2, gap: int = 3) -> list[str]:
    """``entries`` in as many equal columns as fit in ``width`` (an entry is never broken)."""
    col = max(len(e) for e in entries) + gap
    ncols = max(1, (width - indent + gap) // col)
    rows = []
    for r in range(0, len(entries), ncols):
        row = entries[r : r + ncols]
        rows.append(" " * indent + "".join(e.ljust(col) for e in row[:-1]) + row[-1])
    return rows


def _width(width: int | None) -> int:
    return shutil.get_terminal_size((80, 24)).columns if width is None else width


def _wrap(text: str, width: int, indent: int = 2) -> str:
    """``text`` word-wrapped to ``width`` columns (never inside a word), later lines indented."""
    return textwrap.fill(
        text, max(width - 1, 20), subsequent_indent=" " * indent, break_long_words=False,
        break_on_hyphens=False,
    )  # fmt: skip


def format_moves(view: PlayerView, legal: np.ndarray, width: int | None = None) -> str:
    """The numbered legal moves, grouped by kind, in columns that fit ``width`` characters.

    ``width=None`` uses the terminal width (:func:`shutil.get_terminal_size`). The numbers
    are the ones :class:`HumanPolicy` accepts (plays first, then discards, then hints).
    """
    width = _width(width)
    lines = ["Your moves:"]
    i = 0
    for (title, syntax), uids in zip(_GROUPS, _menu(view, legal), strict=True):
        if not uids:
            continue
        head = f" {title} ({syntax}):"
        lines.append(head if len(head) <= width else f" {title}:")
        entries = [f"[{i + j}] {describe_action(view, a)}" for j, a in enumerate(uids)]
        lines.extend(_grid(entries, width))
        i += len(uids)
    return "\n".join(lines)


def _touching(view: PlayerView, target: int) -> tuple[list[int], list[int]]:
    """Colours and ranks (0-based, sorted) that a hint to ``target`` would touch."""
    cards = [int(view.hands[target, k]) for k in range(int(view.hand_lengths[target]))]
    cards = [c for c in cards if c >= 0]
    return sorted({c // view.n_ranks for c in cards}), sorted({c % view.n_ranks for c in cards})


_HEAD = re.compile(r"^(play|p|discard|d|colou?r|c|rank|r)\b\s*(.*)$", flags=re.I)


def _interpret(text: str, view: PlayerView, legal: np.ndarray) -> tuple[int | None, str]:
    """``(uid, "")`` for a typed legal move, else ``(None, why it is rejected)``."""
    t = " ".join(text.replace(",", " ").split())
    menu = numbered_moves(view, legal)
    if not t:
        return None, "nothing typed; " + SYNTAX
    if t.isdigit():
        i = int(t)
        if 0 <= i < len(menu):
            return menu[i], ""
        return None, f"there is no move [{i}]: the listed moves are numbered 0-{len(menu) - 1}"
    m = _HEAD.match(t) or re.match(r"^([pdcr])(.*)$", t, flags=re.I)
    if m is None:
        return None, f"cannot read it; {SYNTAX}"
    head, rest = m.group(1)[0].lower(), m.group(2).strip()
    if head in "pd":
        return _interpret_slot(head, rest, view, legal)
    return _interpret_hint(head, rest, view, legal)


def _interpret_slot(
    head: str, rest: str, view: PlayerView, legal: np.ndarray
) -> tuple[int | None, str]:
    """:func:`_interpret` of ``p<slot>`` / ``d<slot>`` (``head`` ``"p"`` or ``"d"``)."""
    info, max_info = view.information_tokens, view.max_information_tokens
    verb = "play" if head == "p" else "discard"
    n = int(view.hand_lengths[view.seat])
    slots = f"your slots are 0-{n - 1} (0 = oldest)"
    if not rest.isdigit():
        what = "which slot?" if not rest else f"the slot must be a number, not {rest!r};"
        return None, f"{what} {slots}, e.g. {head}0"
    slot = int(rest)
    if not 0 <= slot < n:
        return None, f"there is no slot {slot}: {slots}"
    if head == "d" and info >= max_info:
        return None, (
            f"you cannot discard: the information tokens are full ({info}/{max_info}); "
            "play a card or give a hint instead"
        )
    uid = action_uid(view, verb, slot=slot)
    return (uid, "") if uid in legal else (None, f"{verb} slot {slot} is not legal now")


def _interpret_hint(
    head: str, rest: str, view: PlayerView, legal: np.ndarray
) -> tuple[int | None, str]:
    """:func:`_interpret` of a hint: ``c<player> <colour>`` or ``r<player> <rank>``.

    Also ``c1R``, ``r13``, ``colour 1 red``.
    """
    m = re.match(r"^(\d+)\s*(.*)$", rest)
    if m is None:
        kind, example = ("colour", "R") if head == "c" else ("rank", "1")
        return None, (
            (f"{rest!r} is not a player number; " if rest else "which player? ")
            + f"type {head}<player> <{kind}>, "
            f"e.g. {head}{(view.seat + 1) % view.n_players} {example}"
        )
    if not m.group(2) and len(m.group(1)) > 1:  # compact "r13": player 1, rank 3
        m = re.match(r"^(\d)(.*)$", rest)
    assert m is not None  # rest starts with a digit here (whitespace normalised above)
    target, value = int(m.group(1)), m.group(2).strip()
    others = ", ".join(str(p) for p in range(view.n_players) if p != view.seat)
    if target == view.seat:
        return None, f"you cannot hint yourself (you are player_{view.seat}); hint player {others}"
    if not 0 <= target < view.n_players:
        return None, f"there is no player_{target}; you can hint player {others}"
    if view.information_tokens == 0:
        return None, (
            f"you cannot hint: no information tokens left (0/{view.max_information_tokens}); "
            "play or discard instead"
        )
    if head == "c":
        uid, what = _hint_colour(view, target, value)
    else:
        uid, what = _hint_rank(view, target, value)
    if uid is None:
        return None, what
    if uid not in legal:
        return None, f"revealing {what} to player_{target} is not legal now"
    return uid, ""


def _hint_colour(view: PlayerView, target: int, value: str) -> tuple[int | None, str]:
    """``(uid, colour letter)`` of a colour hint to ``target``, or ``(None, why not)``."""
    cols, _ = _touching(view, target)
    col_names = " ".join(COLOR_NAMES[c] for c in cols)
    letter = _COLOUR_WORDS.get(value.lower(), value.upper())
    if not value:
        return None, f"which colour? colours that touch player_{target}'s cards: {col_names}"
    if value.isdigit():
        return None, f"{value} is a rank, not a colour; for a rank hint type r{target} {value}"
    if len(letter) != 1 or letter not in COLOR_NAMES[: view.n_colors]:
        return (
            None,
            f"unknown colour {value!r}; the colours are {' '.join(COLOR_NAMES[: view.n_colors])}",
        )
    c = COLOR_NAMES.index(letter)
    if c not in cols:
        return None, (
            f"player_{target} has no {letter} card, so the hint would touch nothing; "
            f"colours that touch something: {col_names}"
        )
    return action_uid(view, "reveal_color", target=target, color=c), letter


def _hint_rank(view: PlayerView, target: int, value: str) -> tuple[int | None, str]:
    """``(uid, "rank <r>")`` of a rank hint to ``target``, or ``(None, why not)``."""
    _, ranks = _touching(view, target)
    rank_names = " ".join(str(r + 1) for r in ranks)
    if not value:
        return None, f"which rank? ranks that touch player_{target}'s cards: {rank_names}"
    if not value.isdigit():
        letter = _COLOUR_WORDS.get(value.lower(), value.upper())
        if len(letter) == 1 and letter in COLOR_NAMES[: view.n_colors]:
            return None, (
                f"{value!r} is a colour, not a rank; for a colour hint type c{target} {letter}"
            )
        return None, f"the rank must be a number 1-{view.n_ranks}, not {value!r}"
    r = int(value) - 1
    if not 0 <= r < view.n_ranks:
        return None, f"there is no rank {value}; the ranks are 1-{view.n_ranks}"
    if r not in ranks:
        return None, (
            f"player_{target} has no rank {r + 1} card, so the hint would touch nothing; "
            f"ranks that touch something: {rank_names}"
        )
    return action_uid(view, "reveal_rank", target=target, rank=r), f"rank {r + 1}"


def interpret_move(view: PlayerView, text: str) -> tuple[int | None, str]:
    """The legal move a typed command names, or why it is refused (the terminal's reasons).

    The same reading as :class:`HumanPolicy` (``p2``, ``d0``, ``c1 R``, ``r1 3`` or the number
    of a listed move; module docstring), for other front ends (the browser app).

    Args:
        view: The view of the seat on turn.
        text: The command.

    Returns:
        ``(uid, "")`` for a legal move, ``(None, reason)`` otherwise.

    Raises:
        ValueError: It is not this seat's turn, or the game is over.
    """
    return _interpret(text, view, legal_actions(view))


def _parse(text: str, view: PlayerView, legal: np.ndarray) -> int | None:
    """The move uid a typed command names (None if it names no legal move)."""
    return _interpret(text, view, legal)[0]


class HumanPolicy(Policy):
    """A person choosing moves at the terminal (see the module docstring for the input).

    Args:
        input_fn: Reads one line given a prompt (None = the built-in :func:`input`).
        output: Prints one string (None = :func:`print`).
        name: Display name.
        width: Columns for the move list (None = the terminal width).
    """

    def __init__(
        self,
        input_fn: Callable[[str], str] | None = None,
        output: Callable[[str], None] | None = None,
        name: str = "human",
        width: int | None = None,
    ):
        """See the class docstring."""
        self.input_fn = input_fn
        self.output = output
        self.name = name
        self.width = width

    def act(self, view: PlayerView) -> int:
        """Show the board and the legal moves, read a choice until it names a legal move.

        The board carries the notation legend on the seat's first turn of each game (and on
        ``?``). A rejected input is answered with the reason and the game goes on.

        Raises:
            KeyboardInterrupt: The person typed ``q`` or closed the input (EOF, Ctrl-D): both
                end the session the same way.
        """
        read = self.input_fn or input
        say = self.output or print
        legal = legal_actions(view)
        first_turn = not any(m.actor == view.seat for m in view.moves)
        say("")
        say(render_view(view, legend=first_turn, width=self.width))
        say(format_moves(view, legal, self.width))
        while True:
            try:
                text = read(f"player_{view.seat}> ")
            except EOFError:  # Ctrl-D / end of piped input: exactly the same as typing q
                raise KeyboardInterrupt from None
            if text.strip().lower() in ("q", "quit", "exit"):
                raise KeyboardInterrupt
            if text.strip().lower() in ("?", "h", "help"):
                say(LEGEND + "\n" + _wrap("Input: " + SYNTAX, _width(self.width)))
                continue
            action, why = _interpret(text, view, legal)
            if action is not None:
                return action
            say(_wrap(f"not a legal move: {text.strip()!r} — {why}", _width(self.width)))
