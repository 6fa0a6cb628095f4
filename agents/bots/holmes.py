"""HolmesBot: ValueBot's conventions plus deductions from the cards everyone can count.

docs/bots.md §1.3. The strategy of Arthur O'Dwyer's HolmesBot (Quuxplusone/Hanabi), written for
this project and checked move for move against it (docs/bots.md §3).

Every card in every hand carries the set of identities its holder cannot rule out and three
marks (playable, valuable, worthless). Before each move every seat deduces, until nothing
changes: an identity is ruled out when all its copies are public or identified in hands, or when
it contradicts a mark; a card whose colour or value is the only one left gets it; a card all of
whose identities are already played is worthless, all valuable (the last copy, not yet played)
valuable, all the next card of their firework playable.

Hints: a colour hint gives the touched cards of unknown value that colour's next value (so they
read as playable), a value hint marks the touched cards of unknown colour playable, unless it is a
warning: a value hint touching the target's next discard (its oldest card not known valuable,
when it has nothing marked playable or worthless) that could make that card valuable marks it
valuable (and playable when the value is the lowest next card of any firework). The hint that
gives back a token (all 8 there, to the seat before the hinter, touching its oldest card) means
nothing. A successful play of a card that is not the last copy clears the playable mark of the
other cards that could be it.

On its turn: warn the left partner of a valuable card about to be discarded; play the card marked
playable with the lowest known value; give the hint that marks most playable cards; gamble on the
newest card of unknown identity when the deck is about to run out (1 card left or fewer); else
discard a worthless card, else the oldest card not known valuable, else the highest card (with
all 8 tokens: tell the right partner the value of its oldest card).
"""

from __future__ import annotations

from agents.bots._table import COUNTS, Decision, Seat, Table
from agents.bots.rule_bots_games import CompiledRuleBot

__all__ = ["HolmesBot"]


FULL = (1 << 25) - 1
COLOUR_MASK = [31 << (5 * k) for k in range(5)]  # the cells of colour k
VALUE_MASK = [0] + [sum(1 << (5 * k + v - 1) for k in range(5)) for v in range(1, 6)]


class _Knol:
    """``cant``: a 25-bit mask, bit ``5 * colour + value - 1`` set per identity ruled out."""

    __slots__ = ("cant", "colour", "playable", "valuable", "value", "worthless")

    def __init__(self) -> None:
        self.colour = -1
        self.value = -1
        self.cant = 0
        self.playable = self.valuable = self.worthless = False

    def cannot_colour(self, k: int) -> bool:
        if self.colour != -1:
            return self.colour != k
        return not (COLOUR_MASK[k] & ~self.cant)

    def cannot_value(self, v: int) -> bool:
        if self.value != -1:
            return self.value != v
        return not (VALUE_MASK[v] & ~self.cant)

    def set_colour(self, colour: int) -> None:
        self.cant |= FULL & ~COLOUR_MASK[colour]
        self.colour = colour

    def set_value(self, value: int) -> None:
        self.cant |= FULL & ~VALUE_MASK[value]
        self.value = value

    def set_not_colour(self, colour: int) -> None:
        self.cant |= COLOUR_MASK[colour]

    def set_not_value(self, value: int) -> None:
        self.cant |= VALUE_MASK[value]

    def _single(self) -> tuple[int, int]:
        """Give the card its colour/value when only one is left; (colour, value) known."""
        colour, value = self.colour, self.value
        if colour == -1:
            for k in range(5):
                if self.cannot_colour(k):
                    continue
                if colour != -1:
                    colour = -1
                    break
                colour = k
            if colour != -1:
                self.set_colour(colour)
        if value == -1:
            for v in range(1, 6):
                if self.cannot_value(v):
                    continue
                if value != -1:
                    value = -1
                    break
                value = v
            if value != -1:
                self.set_value(value)
        return colour, value

    def update(self, exhausted: int, masks: tuple[int, int, int]) -> None:
        """The deductions of the module docstring, for this card.

        ``exhausted``: identities all of whose copies are public or located; ``masks``: the
        playable, valuable and already-played identities.
        """
        playable, valuable, played = masks
        while True:
            colour, value = self._single()
            if colour != -1 and value != -1:
                break
            out = exhausted
            if self.valuable:
                out |= FULL & ~valuable
            if self.playable:
                out |= FULL & ~playable
            if self.worthless:
                out |= FULL & ~played
            if not out & ~self.cant:
                break
            self.cant |= out
        if self.worthless:
            return
        possible = FULL & ~self.cant
        if not self.playable and not self.valuable and not possible & ~played:
            self.worthless = True
            return
        if not self.valuable and not possible & ~valuable:
            self.valuable = True
        if not self.playable and not possible & ~playable:
            self.playable = True


class _HolmesSeat(Seat):
    def __init__(self, table: Table):
        super().__init__(table)
        self.knols = [[_Knol() for _ in range(table.hand_size)] for _ in range(table.players)]
        self.played = [[0] * 6 for _ in range(5)]
        self.located = [[0] * 6 for _ in range(5)]
        self.lowest = 1

    def is_valuable(self, k: int, v: int) -> bool:
        if 1 <= v <= self.table.piles[k]:
            return False
        return self.played[k][v] == COUNTS[v - 1] - 1

    def could_be_valuable(self, knol: _Knol, value: int) -> bool:
        if value < 1 or value > 5:
            return False
        return any(
            not knol.cant >> (k * 5 + value - 1) & 1 and self.is_valuable(k, value)
            for k in range(5)
        )

    def masks(self) -> tuple[int, int, int]:
        """Cell masks of the playable, valuable and already-played identities now."""
        piles = self.table.piles
        playable = valuable = played = 0
        for k in range(5):
            for v in range(1, 6):
                bit = 1 << (5 * k + v - 1)
                if v == piles[k] + 1:
                    playable |= bit
                if self.is_valuable(k, v):
                    valuable |= bit
                if v <= piles[k]:
                    played |= bit
        return playable, valuable, played

    def exhausted(self) -> int:
        """Cells of the identities all of whose copies are public or located."""
        mask = 0
        for k in range(5):
            for v in range(1, 6):
                if self.played[k][v] + self.located[k][v] == COUNTS[v - 1]:
                    mask |= 1 << (5 * k + v - 1)
        return mask

    def update_located(self) -> bool:
        new = [[0] * 6 for _ in range(5)]
        for p, row in enumerate(self.knols):
            for knol in row[: self.table.hand_len(p)]:
                if knol.colour != -1 and knol.value != -1:
                    new[knol.colour][knol.value] += 1
        if new != self.located:
            self.located = new
            return True
        return False

    def next_discard(self, to: int) -> int:
        row = self.knols[to][: self.table.hand_len(to)]
        if any(k.playable or k.worthless for k in row):
            return -1
        for i, k in enumerate(row):
            if not k.valuable:
                return i
        return -1

    def remove(self, p: int, i: int) -> None:
        row = self.knols[p]
        del row[i]
        row.append(_Knol())


class HolmesBot(CompiledRuleBot):
    """HolmesBot (module docstring), a deterministic :class:`~agents.policy.Policy`.

    The Python hooks below are the specification; ``act`` decides with their compiled form
    (:mod:`agents.bots.rule_bots_core`, the same moves) unless ``compiled=False``.

    Args:
        seed: Accepted for the common interface (the bot draws nothing).
        compiled: Decide with the numba kernels (the default) instead of the Python hooks.

    Raises:
        TypeError: ``compiled`` not a bool.
        ValueError: From ``act``/``check_game``: a game other than the reference bots'
            (docs/bots.md §2).
    """

    name = "HolmesBot"

    def new_seat(self, players: int, me: int, hand_size: int) -> Seat:
        """A seat with blank knowledge of every hand."""
        return _HolmesSeat(Table(players, me, hand_size))

    def before_move(self, seat) -> None:  # noqa: D102
        t = seat.table
        for p in range(t.players):
            del seat.knols[p][t.hand_len(p) :]
        seat.located = [[0] * 6 for _ in range(5)]
        seat.update_located()
        masks = seat.masks()
        while True:
            exhausted = seat.exhausted()
            for row in seat.knols:
                for knol in row:
                    knol.update(exhausted, masks)
            if not seat.update_located():
                break
        seat.lowest = min(p + 1 for p in t.piles)

    def before_discard(self, seat, frm, slot, card):  # noqa: D102
        seat.played[card[0]][card[1]] += 1
        seat.remove(frm, slot)

    def before_play(self, seat, frm, slot, card):  # noqa: D102
        if seat.table.is_playable(card) and not seat.is_valuable(*card):
            cell = card[0] * 5 + card[1] - 1
            for row in seat.knols:
                for knol in row:
                    if knol.playable and not knol.valuable and not knol.cant >> cell & 1:
                        knol.playable = False
        seat.played[card[0]][card[1]] += 1
        seat.remove(frm, slot)

    def colour_hint(self, seat, frm, to, colour, slots):  # noqa: D102
        value = seat.table.piles[colour] + 1
        for i, knol in enumerate(seat.knols[to][: seat.table.hand_len(to)]):
            if i in slots:
                knol.set_colour(colour)
                # value 6: a hint in a finished colour, which no HolmesBot gives (a partner of
                # another kind may): it says nothing of the value
                if knol.value == -1 and not knol.worthless and value <= 5:
                    knol.set_value(value)
            else:
                knol.set_not_colour(colour)

    def value_hint(self, seat, frm, to, value, slots):  # noqa: D102
        t = seat.table
        discard = seat.next_discard(to)
        warning = discard in slots and seat.could_be_valuable(seat.knols[to][discard], value)
        if not t.discarding_allowed() and frm == (to + 1) % t.players and 0 in slots:
            return
        if warning:
            seat.knols[to][discard].valuable = True
            if value == seat.lowest:
                seat.knols[to][discard].playable = True
        for i, knol in enumerate(seat.knols[to][: t.hand_len(to)]):
            if i in slots:
                knol.set_value(value)
                if knol.colour == -1 and not warning and not knol.worthless:
                    knol.playable = True
            else:
                knol.set_not_value(value)

    def decide(self, seat) -> Decision:
        """Warn, play, hint, gamble or discard (module docstring)."""
        t = seat.table
        mine = seat.knols[t.me][: t.hand_len(t.me)]
        d = self._warn(seat)
        if d is not None:
            return d
        best, best_value = -1, 6
        for i, knol in enumerate(mine):
            if knol.playable and knol.value < best_value:
                best, best_value = i, knol.value
        if best != -1:
            return Decision("play", slot=best)
        d = self._helpful_hint(seat)
        if d is not None:
            return d
        d = self._play_mystery(t, mine)
        if d is not None:
            return d
        if not t.discarding_allowed():
            right = (t.me + t.players - 1) % t.players
            return Decision("value", target=right, value=t.hand(right)[0][1])
        for i, knol in enumerate(mine):
            if knol.worthless:
                return Decision("discard", slot=i)
        for i, knol in enumerate(mine):
            if not knol.valuable:
                return Decision("discard", slot=i)
        best = 0
        for i, knol in enumerate(mine):
            if knol.value > mine[best].value:
                best = i
        return Decision("discard", slot=best)

    @staticmethod
    def _play_mystery(t: Table, mine: list[_Knol]) -> Decision | None:
        """With the deck about to run out, play the newest card of unknown identity."""
        if t.deck > (-99, 1, 1, 1)[t.mulligans]:
            return None
        for i in range(len(mine) - 1, -1, -1):
            knol = mine[i]
            if not knol.worthless and (knol.colour == -1 or knol.value == -1):
                return Decision("play", slot=i)
        return None

    @staticmethod
    def _content(hand, knols, really, attr: int, x: int) -> int:
        """Cards a hint of ``x`` (colour: ``attr`` 0, value: 1) newly marks playable; -1 if bad.

        A hint may not touch an unplayable card that is not known worthless and whose other
        attribute its holder does not know.
        """
        info = 0
        for c, card in enumerate(hand):
            if card[attr] != x:
                continue
            knol = knols[c]
            if really[c] and not knol.playable:
                info += 1
            elif not really[c]:
                other = knol.value if attr == 0 else knol.colour
                if other == -1 and not knol.worthless:
                    return -1
        return info

    def _best_hint_for(self, seat, partner: int) -> tuple[int, Decision | None]:
        t = seat.table
        hand = t.hand(partner)
        knols = seat.knols[partner]
        really = [t.is_playable(c) for c in hand]
        best_info, best = -1, None
        for colour in range(5):
            info = self._content(hand, knols, really, 0, colour)
            if info > best_info:
                best_info, best = info, Decision("colour", target=partner, colour=colour)
        discard = seat.next_discard(partner)
        avoid = -1
        if discard != -1:
            avoid = hand[discard][1]
            if not seat.could_be_valuable(knols[discard], avoid):
                avoid = -1
        for value in range(1, 6):
            if value == avoid:
                continue
            info = self._content(hand, knols, really, 1, value)
            if info > best_info:
                best_info, best = info, Decision("value", target=partner, value=value)
        return best_info, best

    def _warn(self, seat) -> Decision | None:
        t = seat.table
        left = (t.me + 1) % t.players
        i = seat.next_discard(left)
        if i == -1:
            return None
        k, v = t.hand(left)[i]
        if not seat.is_valuable(k, v) or t.hints == 0:
            return None
        info, hint = self._best_hint_for(seat, left)
        if info > 0:
            return hint
        return Decision("value", target=left, value=v)

    def _helpful_hint(self, seat) -> Decision | None:
        t = seat.table
        if t.hints == 0:
            return None
        best_info, best = -1, None
        for off in range(1, t.players):
            info, hint = self._best_hint_for(seat, (t.me + off) % t.players)
            if info > best_info:
                best_info, best = info, hint
        return best if best_info > 0 else None
