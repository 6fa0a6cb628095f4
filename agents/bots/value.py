"""ValueBot: SimpleBot's playable-card hints plus warnings about valuable cards.

docs/bots.md §1.2. The strategy of Arthur O'Dwyer's ValueBot (Quuxplusone/Hanabi), written for
this project and checked move for move against it (docs/bots.md §3).

Each seat counts the public cards per identity (played cards count as "no longer needed").
A colour hint says the touched cards of unknown value are that colour's next card; a touched card
whose value is then known is marked worthless (its identity was played), playable (it is the
next card) and valuable (the last copy not discarded). A value hint that touches the card its
target would discard next (its oldest card not known valuable, when it has nothing marked
playable or worthless) and names a value of which some colour has one copy left is a warning:
that card is valuable (and playable when the value is the lowest not yet played in every
colour); otherwise a value hint marks its cards playable. A value hint to the seat just before
the hinter touching its oldest card, while all 8 tokens are there, means nothing.

On its turn: warn the left partner of a valuable card about to be discarded (by a hint giving
a play if one exists); play the lowest card marked playable; give the hint that marks most
playable cards of a partner (colour hints may touch unplayable cards whose value the partner
knows; value hints may not touch unplayable cards, nor name the value of a partner's next
discard when that would read as a warning); else discard a worthless card, else the oldest
card not known valuable, else the highest card (with all 8 tokens: tell the right partner the
value of its oldest card).
"""

from __future__ import annotations

from agents.bots._table import COUNTS, Decision, Seat, Table
from agents.bots.rule_bots_games import CompiledRuleBot

__all__ = ["ValueBot"]

NO, MAYBE, YES = 0, 1, 2


class _Knol:
    __slots__ = ("colours", "playable", "valuable", "values", "worthless")

    def __init__(self) -> None:
        self.colours = [MAYBE] * 5
        self.values = [MAYBE] * 6  # index 1..5
        self.playable = self.valuable = self.worthless = False

    def value(self) -> int:
        for v in range(1, 6):
            if self.values[v] == YES:
                return v
        return -1

    def set_colour(self, colour: int) -> None:
        self.colours = [YES if k == colour else NO for k in range(5)]

    def set_value(self, value: int) -> None:
        self.values = [MAYBE] + [YES if v == value else NO for v in range(1, 6)]


class _ValueSeat(Seat):
    def __init__(self, table: Table):
        super().__init__(table)
        self.knols = [[_Knol() for _ in range(table.hand_size)] for _ in range(table.players)]
        self.count = [[0] * 6 for _ in range(5)]  # public copies; -1 once played
        self.my_hand = table.hand_size

    def lowest_unplayed(self) -> int:
        for v in range(1, 6):
            for k in range(5):
                if self.count[k][v] != -1:
                    return v
        return 6

    def could_be_valuable(self, value: int) -> bool:
        if value < 1 or value > 5:
            return False
        return any(self.count[k][value] == COUNTS[value - 1] - 1 for k in range(5))

    def remove(self, p: int, i: int) -> None:
        row = self.knols[p]
        del row[i]
        row.append(_Knol())

    def see(self, card: tuple[int, int]) -> None:
        k, v = card
        if self.count[k][v] != -1:
            self.count[k][v] += 1

    def next_discard(self, to: int) -> int:
        row = self.knols[to][: self.table.hand_len(to)]
        if any(k.playable or k.worthless for k in row):
            return -1
        for i, k in enumerate(row):
            if not k.valuable:
                return i
        return -1


class ValueBot(CompiledRuleBot):
    """ValueBot (module docstring), a deterministic :class:`~agents.policy.Policy`.

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

    name = "ValueBot"

    def new_seat(self, players: int, me: int, hand_size: int) -> Seat:
        """A seat with blank knowledge of every hand."""
        return _ValueSeat(Table(players, me, hand_size))

    def before_move(self, seat) -> None:  # noqa: D102
        seat.my_hand = seat.table.hand_len(seat.table.me)

    def before_discard(self, seat, frm, slot, card):  # noqa: D102
        seat.remove(frm, slot)
        seat.see(card)

    def before_play(self, seat, frm, slot, card):  # noqa: D102
        t = seat.table
        seat.remove(frm, slot)
        k, v = card
        if not t.is_playable(card):
            seat.see(card)
            return
        if seat.count[k][v] != COUNTS[v - 1] - 1:  # other copies may be marked playable
            for p in range(t.players):
                for knol in seat.knols[p][: t.hand_len(p)]:
                    if not knol.playable or knol.values[5] == YES:
                        continue
                    if knol.colours[k] == NO or knol.values[v] == NO:
                        continue
                    knol.playable = False
        seat.count[k][v] = -1
        if seat.lowest_unplayed() > v:
            for p in range(t.players):
                for knol in seat.knols[p][: t.hand_len(p)]:
                    if knol.values[v] == YES:
                        knol.worthless = True

    def colour_hint(self, seat, frm, to, colour, slots):  # noqa: D102
        value = seat.table.piles[colour] + 1
        for i in slots:
            knol = seat.knols[to][i]
            knol.set_colour(colour)
            if knol.value() == -1:
                knol.set_value(value)
            known = knol.value()
            count = seat.count[colour][known]
            if count == -1:
                knol.worthless = True
            else:
                if value == known:
                    knol.playable = True
                if count == COUNTS[known - 1] - 1:
                    knol.valuable = True

    def value_hint(self, seat, frm, to, value, slots):  # noqa: D102
        t = seat.table
        discard = seat.next_discard(to)
        lowest = seat.lowest_unplayed()
        pointless = value < lowest
        warning = seat.could_be_valuable(value) and discard in slots
        if not t.discarding_allowed() and frm == (to + 1) % t.players and 0 in slots:
            return
        if warning:
            seat.knols[to][discard].valuable = True
            if value == lowest:
                seat.knols[to][discard].playable = True
        for i in slots:
            knol = seat.knols[to][i]
            knol.set_value(value)
            if not warning and not pointless:
                knol.playable = True

    def decide(self, seat) -> Decision:
        """Warn, play, hint or discard (module docstring)."""
        t = seat.table
        d = self._warn(seat)
        if d is not None:
            return d
        mine = seat.knols[t.me]
        best, best_value = -1, 6
        for i in range(seat.my_hand):
            if mine[i].playable and mine[i].value() < best_value:
                best, best_value = i, mine[i].value()
        if best != -1:
            return Decision("play", slot=best)
        d = self._helpful_hint(seat)
        if d is not None:
            return d
        if not t.discarding_allowed():
            right = (t.me + t.players - 1) % t.players
            return Decision("value", target=right, value=t.hand(right)[0][1])
        for i in range(seat.my_hand):
            if mine[i].worthless:
                return Decision("discard", slot=i)
        for i in range(seat.my_hand):
            if not mine[i].valuable:
                return Decision("discard", slot=i)
        best = 0
        for i in range(seat.my_hand):
            if mine[i].value() > mine[best].value():
                best = i
        return Decision("discard", slot=best)

    @staticmethod
    def _content(hand, knols, really, attr: int, x: int) -> int:
        """Cards a hint of ``x`` (colour: ``attr`` 0, value: 1) newly marks playable; -1 if bad.

        A colour hint may touch an unplayable card whose value its holder knows, a value hint
        no unplayable card.
        """
        info = 0
        for c, card in enumerate(hand):
            if card[attr] != x:
                continue
            if really[c] and not knols[c].playable:
                info += 1
            elif not really[c] and (attr == 1 or knols[c].value() == -1):
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
            if not seat.could_be_valuable(avoid):
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
        if t.hints == 0:
            return None
        left = (t.me + 1) % t.players
        i = seat.next_discard(left)
        if i == -1:
            return None
        k, v = t.hand(left)[i]
        if seat.count[k][v] != COUNTS[v - 1] - 1:
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
