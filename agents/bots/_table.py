"""What one seat of a bot sees, move by move, rebuilt from its view's public history.

The reference bots (docs/bots.md) update their beliefs on every move, at the moment it is made:
before a play they see the card and the hands as they were. A :class:`~agents.policy.Policy`
is only asked on its own turn, so :class:`BotPolicy` replays the moves made since its last
turn, one by one, on a small model of the table (:class:`Table`) that it keeps per seat: the
hands by card identity (deck position), the fireworks, the public card counts, the tokens and
the deck. The identity of every card that was ever in another seat's hand is known to the seat
(it is either still there, in the view, or was played or discarded, in the move record), so
each past position is rebuilt exactly as that seat saw it.

A bot implements the hooks ``before_move``, ``before_play``, ``before_discard``,
``colour_hint``, ``value_hint`` (called, in that order of a move, with the table as it was
before the move) and ``decide`` (the move, as a :class:`Decision`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.policy import Policy
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.game import PlayerView
from hanabi_env.validate import check_seed

__all__ = ["COUNTS", "BotPolicy", "Decision", "Seat", "Table"]

N_COLOURS = 5
N_RANKS = 5
COUNTS = (3, 2, 2, 2, 1)
"""Copies of each rank (index 0 = rank 1) per colour."""


@dataclass(frozen=True)
class Decision:
    """A bot's move: ``kind`` is ``"play"``, ``"discard"``, ``"colour"`` or ``"value"``.

    ``slot`` (plays, discards; 0 = oldest), ``target`` (hints, absolute seat), ``colour``
    (0–4) or ``value`` (1–5, as the reference counts ranks).
    """

    kind: str
    slot: int = -1
    target: int = -1
    colour: int = -1
    value: int = -1


class Table:
    """The public game as one seat sees it, before the move being replayed.

    Cards are ``(colour, value)`` pairs with ``value`` in 1..5 (the reference's numbering).

    Attributes:
        players: Number of seats; ``me``: the seat; ``hand_size``: cards dealt per hand.
        piles: ``piles[c]`` cards played in colour ``c``.
        public: ``public[c][v]`` copies of card ``(c, v)`` played or discarded.
        hints: Hint tokens left (0–8); ``mulligans``: lives left; ``deck``: cards to draw.
        uids: ``uids[p]`` the card identities in seat ``p``'s hand, oldest first.
        cards: Card of each identity the seat has seen (identity -> ``(colour, value)``).
    """

    def __init__(self, players: int, me: int, hand_size: int):
        """A table at the deal (50 cards, 8 hints, 3 mulligans)."""
        self.players, self.me, self.hand_size = players, me, hand_size
        self.piles = [0] * N_COLOURS
        self.public = [[0] * (N_RANKS + 1) for _ in range(N_COLOURS)]
        self.hints = 8
        self.mulligans = 3
        n_cards = N_COLOURS * sum(COUNTS)
        self.deck = n_cards - players * hand_size
        self.next_uid = players * hand_size
        self.uids = [list(range(p * hand_size, (p + 1) * hand_size)) for p in range(players)]
        self.cards: dict[int, tuple[int, int]] = {}

    def hand(self, p: int) -> list[tuple[int, int]]:
        """The cards of seat ``p`` (not this seat), oldest first."""
        cards = self.cards
        return [cards[u] for u in self.uids[p]]

    def hand_len(self, p: int) -> int:
        """Cards seat ``p`` holds."""
        return len(self.uids[p])

    def is_playable(self, card: tuple[int, int]) -> bool:
        """Whether ``card`` is the next card of its firework."""
        return card[1] == self.piles[card[0]] + 1

    def discarding_allowed(self) -> bool:
        """The reference's rule: no discard while all 8 hint tokens are there."""
        return self.hints != 8

    def apply(self, kind: int, actor: int, slot: int, colour: int, value: int) -> None:
        """Advance the table past a move (engine move kind; the card's colour and value)."""
        if kind <= E.DISCARD:
            card = (colour, value)
            hand = self.uids[actor]
            del hand[slot]
            self.public[colour][value] += 1
            if kind == E.PLAY and self.is_playable(card):
                self.piles[card[0]] += 1
                if card[1] == 5 and self.hints < 8:
                    self.hints += 1
            elif kind == E.PLAY:
                self.mulligans -= 1
            else:
                self.hints += 1
            if self.deck > 0:
                hand.append(self.next_uid)
                self.next_uid += 1
                self.deck -= 1
        else:
            self.hints -= 1


class Seat:
    """Per-seat memory of a bot: its table and how many moves it has replayed."""

    def __init__(self, table: Table):
        """Start at the deal."""
        self.table = table
        self.seen = 0
        self.decided = False


class BotPolicy(Policy):
    """Base class of the reference-style bots: replays the history, then decides.

    One object can play every seat of a game (self-play): it keeps one memory per seat
    (:meth:`new_seat` builds a bot's own), and forgets them all on :meth:`reset` or when a view
    shows a shorter history than the seat has replayed (a new game). Bots are deterministic:
    ``seed`` is accepted for the common interface and ignored.

    Raises:
        ValueError: From :meth:`act`, a game other than 5 colours x 5 ranks, 2–5 players, 8 hint
            tokens, 3 lives and the rulebook's hand size (5 cards at 2–3 players, 4 at 4–5).
    """

    name = "bot"

    def __init__(self, seed: int = 0):
        """See the class docstring."""
        check_seed("seed", seed)
        self._seats: dict[int, Seat] = {}

    def reset(self, seed: int | None = None) -> None:
        """Forget every seat's memory (``seed`` is checked, not used: bots are deterministic)."""
        check_seed("seed", seed, allow_none=True)
        self._seats = {}

    def check_game(self, config) -> None:
        """Refuse a game the reference bots cannot play (see the class docstring).

        Args:
            config: A :class:`hanabi_env.HanabiConfig`.

        Raises:
            ValueError: Naming what differs and what is allowed.
        """
        check_config_game(config, self.name)

    def __repr__(self) -> str:
        """The bot's name, e.g. ``SmartBot()``."""
        return f"{self.name}()"

    def new_seat(self, players: int, me: int, hand_size: int) -> Seat:
        """A fresh memory for seat ``me`` (bots override it to add their beliefs)."""
        return Seat(Table(players, me, hand_size))

    def act(self, view: PlayerView) -> int:
        """Replay the moves since this seat's last turn, then decide (a legal move uid)."""
        me = view.seat
        seat = self._seats.get(me)
        raw = view.raw
        n_moves = int(raw.scal[V.V_N_MOVES])
        if seat is None or seat.seen > n_moves:
            players, hand = check_raw_game(raw.cfg, self.name)
            seat = self.new_seat(players, me, hand)
            self._seats[me] = seat
        table = seat.table
        cards = table.cards
        lengths = raw.hand_len.tolist()
        for p, (row, ids) in enumerate(zip(raw.cards.tolist(), raw.uids.tolist(), strict=True)):
            if p != me:
                for k in range(lengths[p]):
                    c = row[k]
                    cards[ids[k]] = (c // N_RANKS, c % N_RANKS + 1)
        records = raw.hist[seat.seen : n_moves].tolist()
        for rec in records:
            if rec[E.H_KIND] <= E.DISCARD:
                cards[rec[E.H_UID]] = (rec[E.H_COLOR], rec[E.H_RANK] + 1)
        for rec in records:
            if seat.decided:  # this seat's own move: its before_move ran when it decided
                seat.decided = False
            else:
                self.before_move(seat)
            kind, actor = rec[E.H_KIND], rec[E.H_ACTOR]
            if kind == E.PLAY:
                self.before_play(seat, actor, rec[E.H_SLOT], (rec[E.H_COLOR], rec[E.H_RANK] + 1))
            elif kind == E.DISCARD:
                self.before_discard(seat, actor, rec[E.H_SLOT], (rec[E.H_COLOR], rec[E.H_RANK] + 1))
            else:
                touched = rec[E.H_TOUCHED]
                slots = tuple(k for k in range(table.hand_len(rec[E.H_TARGET])) if touched >> k & 1)
                if kind == E.REVEAL_COLOR:
                    self.colour_hint(seat, actor, rec[E.H_TARGET], rec[E.H_COLOR], slots)
                else:
                    self.value_hint(seat, actor, rec[E.H_TARGET], rec[E.H_RANK] + 1, slots)
            table.apply(kind, actor, rec[E.H_SLOT], rec[E.H_COLOR], rec[E.H_RANK] + 1)
        seat.seen = n_moves
        seat.decided = True
        self.before_move(seat)
        d = self.decide(seat)
        if d.kind == "play":
            return view.action_uid("play", slot=d.slot)
        if d.kind == "discard":
            return view.action_uid("discard", slot=d.slot)
        if d.kind == "colour":
            return view.action_uid("reveal_color", target=d.target, color=d.colour)
        return view.action_uid("reveal_rank", target=d.target, rank=d.value - 1)

    # --- hooks (the table is as it was before the move) ---
    def before_move(self, seat: Seat) -> None:
        """Called before every move (its mover's decision included)."""

    def before_play(self, seat: Seat, frm: int, slot: int, card: tuple[int, int]) -> None:
        """Seat ``frm`` plays ``card`` from ``slot``."""

    def before_discard(self, seat: Seat, frm: int, slot: int, card: tuple[int, int]) -> None:
        """Seat ``frm`` discards ``card`` from ``slot``."""

    def colour_hint(
        self, seat: Seat, frm: int, to: int, colour: int, slots: tuple[int, ...]
    ) -> None:
        """Seat ``frm`` tells seat ``to`` that its cards in ``slots`` are ``colour``."""

    def value_hint(self, seat: Seat, frm: int, to: int, value: int, slots: tuple[int, ...]) -> None:
        """Seat ``frm`` tells seat ``to`` that its cards in ``slots`` have ``value`` (1–5)."""

    def decide(self, seat: Seat) -> Decision:
        """The move of the seat on turn."""
        raise NotImplementedError


def check_view_game(
    players: int,
    colours: int,
    ranks: int,
    hand_size: int,
    hints: int,
    lives: int,
    name: str,
    hand_order: str = "shift",
) -> None:
    """Refuse a game other than the reference's (see :class:`BotPolicy`).

    Raises:
        ValueError: Naming the first field that differs and what is allowed.
    """
    expected_hand = 5 if players <= 3 else 4
    for field, value, allowed in (
        ("colors", colours, 5),
        ("ranks", ranks, 5),
        ("hand_size", hand_size, expected_hand),
        ("max_information_tokens", hints, 8),
        ("max_life_tokens", lives, 3),
        ("hand_order", hand_order, "shift"),
    ):
        if value != allowed:
            raise ValueError(
                f"{name} plays only the reference bots' game (docs/bots.md §2): {field}={value!r} "
                f"is not allowed; allowed: {field}={allowed!r} at {players} players (5 colours x "
                "5 ranks, 8 hint tokens, 3 lives, hands of 5 cards at 2-3 players and 4 at 4-5, "
                "new cards at the end of the hand)"
            )


def check_config_game(config, name: str) -> None:
    """:func:`check_view_game` of a :class:`hanabi_env.HanabiConfig`.

    Raises:
        ValueError: As :func:`check_view_game`.
    """
    check_view_game(
        config.players,
        config.colors,
        config.ranks,
        config.hand_size,
        config.max_information_tokens,
        config.max_life_tokens,
        name,
        config.hand_order,
    )


def check_raw_game(cfg: np.ndarray, name: str) -> tuple[int, int]:
    """:func:`check_view_game` of a view's raw configuration array (``view.raw.cfg``).

    Returns:
        ``(players, hand_size)`` of the game.

    Raises:
        ValueError: As :func:`check_view_game`.
    """
    players, hand = int(cfg[E.CFG_PLAYERS]), int(cfg[E.CFG_HAND])
    check_view_game(
        players,
        int(cfg[E.CFG_COLORS]),
        int(cfg[E.CFG_RANKS]),
        hand,
        int(cfg[E.CFG_MAX_INFO]),
        int(cfg[E.CFG_MAX_LIFE]),
        name,
        "shift" if cfg[E.CFG_HAND_ORDER] == E.HAND_SHIFT else "fixed",
    )
    return players, hand
