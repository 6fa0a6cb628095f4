"""Hanabi in words, for language-model agents: a text view of one seat and a reply parser.

A language model plays through three pieces (docs/benchmark.md §6):

* :func:`describe_game` — the prompt: the rules in brief, the board as the seat sees it (its own
  cards hidden, with what the hints told about them; :func:`agents.human.render_view`), the
  recent moves, and every legal move, numbered and in words (:func:`agents.human.format_moves`);
* :func:`parse_reply` — the model's answer read back into a move: the last ``[n]`` (a number of
  the list) or move in words (``"play slot 2"``, ``"reveal R to player_1"``,
  ``"reveal rank 3 to player_1"``) in the reply; a reply naming no move is **unparsable**, one
  naming a move that is not legal now (or a number not in the list) is **illegal**;
* :class:`TextPolicy` — a :class:`~agents.policy.Policy` around any ``model(prompt) -> reply``
  function: it asks again (with the reason) after a bad reply, then falls back to a random legal
  move, and counts every reply in a :class:`ReplyStats`.

Wire a model in a few lines::

    from agents.text import TextPolicy

    def model(prompt: str) -> str:
        return my_llm_client.complete(prompt)      # any function from text to text

    agent = TextPolicy(model, name="my-llm")
    # hanabi_adhoc.benchmark.run_benchmark([agent], suites=["pool"], deals=5)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agents.human import format_moves, legal_actions, numbered_moves, render_view
from agents.policy import Policy
from hanabi_env.game import PlayerView, describe_move
from hanabi_env.validate import check_callable, check_int, check_seed, check_str

__all__ = ["INSTRUCTIONS", "Reply", "ReplyStats", "TextPolicy", "describe_game", "parse_reply"]

INSTRUCTIONS = (
    "You are playing Hanabi, a cooperative card game. You cannot see your own cards; the other "
    "players' cards are shown. Give hints (a colour or a rank, touching every card of it in a "
    "partner's hand) so that partners play the right cards; play a card when you believe it "
    "is the next of its colour; discard to regain a hint token. Three misplays end the game. "
    "The score is the number of cards played (at most 25)."
)
"""The rules in brief, at the top of every prompt."""

ANSWER = (
    "Answer with the number of exactly one move from the list, in brackets, e.g. [0], or the "
    "move in words, e.g. play slot 2. If you write several, the last one counts."
)
"""How the model is asked to answer."""


def describe_game(view: PlayerView, width: int = 100) -> str:
    """The prompt for the seat of ``view`` (which must be on turn).

    Args:
        view: The seat's view.
        width: Line width of the board and the move list.

    Returns:
        Rules in brief, the board (legend included), the numbered legal moves and how to answer.

    Raises:
        ValueError: It is not this seat's turn, or the game is over.
    """
    legal = legal_actions(view)
    return "\n\n".join(
        [
            INSTRUCTIONS,
            f"You are player_{view.seat} of {view.n_players}.",
            render_view(view, legend=True, width=width),
            format_moves(view, legal, width),
            ANSWER,
        ]
    )


@dataclass(frozen=True)
class Reply:
    """A reply read back: ``action`` (a legal move uid, or None) and ``status``.

    Attributes:
        action: The move uid, or None.
        status: ``"ok"``, ``"unparsable"`` (no move named) or ``"illegal"`` (a move that is
            not legal now, or a number not in the list).
        reason: Why it was refused (empty when ok).
    """

    action: int | None
    status: str
    reason: str = ""


def parse_reply(reply: str, view: PlayerView) -> Reply:
    """Read a model's reply to :func:`describe_game` back into a move (see the module doc).

    The last mention wins: a number in brackets ``[n]`` (or a reply that is only a number)
    indexes the numbered list; a move in words is any move's description
    (:func:`hanabi_env.game.describe_move`), matched case-insensitively.

    Args:
        reply: The model's text.
        view: The view the prompt was made from (its seat on turn).

    Returns:
        A :class:`Reply`.

    Raises:
        TypeError: ``reply`` is not a str.
        ValueError: It is not the seat's turn.
    """
    check_str("reply", reply, empty=True)
    legal = legal_actions(view)
    menu = numbered_moves(view, legal)
    text = reply.lower()
    found: list[tuple[int, int, str, int]] = []  # (end, length, kind, value)
    for m in re.finditer(r"\[\s*(\d+)\s*\]", text):
        found.append((m.end(), len(m.group(0)), "number", int(m.group(1))))
    bare = re.fullmatch(r"\W*(\d+)\W*", text)
    if bare:
        found.append((bare.end(1), len(bare.group(1)), "number", int(bare.group(1))))
    n_actions = len(view.legal_mask())
    for uid in range(n_actions):
        words = describe_move(view.raw.cfg, view.seat, uid).lower()
        for m in re.finditer(rf"(?<![\w]){re.escape(words)}(?![\w])", text):
            found.append((m.end(), len(words), "move", uid))
    if not found:
        return Reply(None, "unparsable", "no move named; " + ANSWER)
    _, _, kind, value = max(found, key=lambda f: (f[0], f[1]))
    if kind == "number":
        if 0 <= value < len(menu):
            return Reply(menu[value], "ok")
        return Reply(
            None, "illegal", f"there is no move [{value}]; the moves are [0]-[{len(menu) - 1}]"
        )
    if value in legal:
        return Reply(int(value), "ok")
    words = describe_move(view.raw.cfg, view.seat, value)
    return Reply(None, "illegal", f"{words} is not legal now")


class ReplyStats:
    """Counts of a :class:`TextPolicy`'s replies.

    Copies of a policy made in this process (:func:`agents.evaluate.play_games` gives each seat
    its own) share one :class:`ReplyStats`: ``copy.deepcopy`` returns the same object, so the
    counts of a run end up in the policy you made. Copies in worker processes count apart (and
    are lost), so play text agents with ``workers=1`` (the benchmark does).

    Attributes:
        replies: Replies asked for.
        unparsable: Replies that named no move.
        illegal: Replies that named an illegal move.
        fallbacks: Moves chosen at random after every try failed.
    """

    def __init__(self):
        self.replies = 0
        self.unparsable = 0
        self.illegal = 0
        self.fallbacks = 0

    def __deepcopy__(self, memo) -> ReplyStats:
        return self

    def as_dict(self) -> dict[str, int]:
        """The counts by name."""
        return dict(vars(self))


class TextPolicy(Policy):
    """A language model as a policy: ``model(prompt) -> reply`` on :func:`describe_game`.

    Args:
        model: A function from a prompt (str) to a reply (str); anything that calls a model.
        name: Display name.
        retries: How many times to ask again after an unparsable or illegal reply (the new
            prompt says what was wrong); then a random legal move is played.
        seed: Seed of the fallback moves' generator (re-seeded by :meth:`reset`).
        width: Line width of the prompt's board and move list.

    Attributes:
        reply_stats: The :class:`ReplyStats` of every reply (shared with the policy's copies).
        supported_players: Game sizes it plays (all: the prompt describes any), so that a
            benchmark does not spend model calls finding out.

    Raises:
        TypeError, ValueError: A bad argument.
    """

    def __init__(
        self,
        model: Callable[[str], str],
        name: str = "text",
        retries: int = 1,
        seed: int = 0,
        width: int = 100,
    ):
        """See the class docstring."""
        check_callable("model", model)
        self.model = model
        self.name = check_str("name", name)
        self.retries = check_int("retries", retries, 0)
        self.width = check_int("width", width, 40)
        self.rng = np.random.default_rng(check_seed("seed", seed))
        self.reply_stats = ReplyStats()
        self.supported_players = (2, 3, 4, 5)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the fallback generator when ``seed`` is given."""
        if seed is not None:
            self.rng = np.random.default_rng(int(seed))

    def act(self, view: PlayerView) -> int:
        """Ask the model (again after a bad reply) and return the move it names.

        Raises:
            TypeError: The model returned something other than a str.
        """
        prompt = describe_game(view, self.width)
        stats = self.reply_stats
        for _ in range(1 + self.retries):
            reply = self.model(prompt)
            if not isinstance(reply, str):
                raise TypeError(f"{self.name}: the model must return a str, got {reply!r:.60}")
            stats.replies += 1
            read = parse_reply(reply, view)
            if read.action is not None:
                return read.action
            if read.status == "illegal":
                stats.illegal += 1
            else:
                stats.unparsable += 1
            prompt = (
                f"{describe_game(view, self.width)}\n\nYour previous answer was refused "
                f"({read.status}: {read.reason}). Answer again."
            )
        stats.fallbacks += 1
        legal = legal_actions(view)
        return int(legal[self.rng.integers(len(legal))])
