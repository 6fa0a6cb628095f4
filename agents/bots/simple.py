"""SimpleBot: hint playable cards, play what was hinted, else discard the oldest card.

docs/bots.md §1.1. The strategy of Arthur O'Dwyer's SimpleBot (Quuxplusone/Hanabi), written for
this project and checked move for move against it (docs/bots.md §3).

Every hint means "these cards are playable now": a colour hint makes the touched cards that
colour at the pile's next value, a value hint that value; both mark them playable. A value
hint to the seat just before the hinter, touching its oldest card, while all 8 hint tokens are
there, is read as the forced "give a token back" hint and means nothing. A successful or failed
play of a card that a card marked playable could be (not a known 5) clears that mark.

On its turn the bot plays its lowest marked-playable card; else gives the hint that marks the
most really-playable, not yet marked cards of one partner without touching an unplayable card
(partners in seat order from the left, colours before values, the first best wins); else
discards its oldest card, or, with all 8 tokens, tells the seat on its right the value of that
seat's oldest card.
"""

from __future__ import annotations

from agents.bots._table import Decision, Seat, Table
from agents.bots.rule_bots_games import CompiledRuleBot

__all__ = ["SimpleBot"]


class _Knol:
    """What a seat knows of one of its cards: a colour, a value (or -1), and a playable mark."""

    __slots__ = ("colour", "playable", "value")

    def __init__(self) -> None:
        self.colour = -1
        self.value = -1
        self.playable = False


class _SimpleSeat(Seat):
    def __init__(self, table: Table):
        super().__init__(table)
        # fixed-length lists, as the reference keeps them (a shrinking hand keeps a blank tail)
        self.knols = [[_Knol() for _ in range(table.hand_size)] for _ in range(table.players)]


class SimpleBot(CompiledRuleBot):
    """SimpleBot (module docstring), a deterministic :class:`~agents.policy.Policy`.

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

    name = "SimpleBot"

    def new_seat(self, players: int, me: int, hand_size: int) -> Seat:
        """A seat with blank knowledge of every hand."""
        return _SimpleSeat(Table(players, me, hand_size))

    @staticmethod
    def _remove(seat: _SimpleSeat, frm: int, slot: int) -> None:
        row = seat.knols[frm]
        del row[slot]
        row.append(_Knol())

    def before_discard(self, seat, frm, slot, card):  # noqa: D102
        self._remove(seat, frm, slot)

    def before_play(self, seat, frm, slot, card):  # noqa: D102
        self._remove(seat, frm, slot)
        colour, value = card
        for row in seat.knols:
            for k in row:
                if not k.playable or k.value == 5:
                    continue
                if k.colour not in (-1, colour) or k.value not in (-1, value):
                    continue
                k.playable = False

    def colour_hint(self, seat, frm, to, colour, slots):  # noqa: D102
        value = seat.table.piles[colour] + 1
        for i in slots:
            k = seat.knols[to][i]
            k.colour, k.value, k.playable = colour, value, True

    def value_hint(self, seat, frm, to, value, slots):  # noqa: D102
        t = seat.table
        if not t.discarding_allowed() and frm == (to + 1) % t.players and 0 in slots:
            return
        for i in slots:
            k = seat.knols[to][i]
            k.value, k.playable = value, True

    def decide(self, seat: Seat) -> Decision:
        """Play, hint or discard (module docstring)."""
        assert isinstance(seat, _SimpleSeat)
        t = seat.table
        me = t.me
        best, best_value = -1, 6
        for i, k in enumerate(seat.knols[me]):
            if k.playable and k.value < best_value:
                best, best_value = i, k.value
        if best >= 0:
            return Decision("play", slot=best)
        hint = self._helpful_hint(seat) if t.hints > 0 else None
        if hint is not None:
            return hint
        if not t.discarding_allowed():
            right = (me + t.players - 1) % t.players
            return Decision("value", target=right, value=t.hand(right)[0][1])
        return Decision("discard", slot=0)

    @staticmethod
    def _helpful_hint(seat: _SimpleSeat) -> Decision | None:
        t = seat.table
        best_info, best = 0, None
        for off in range(1, t.players):
            partner = (t.me + off) % t.players
            hand = t.hand(partner)
            knols = seat.knols[partner]
            real = [t.is_playable(c) for c in hand]
            for attr in (0, 1):
                for x in range(5) if attr == 0 else range(1, 6):
                    info = 0
                    bad = False
                    for c, card in enumerate(hand):
                        if card[attr] != x:
                            continue
                        if real[c] and not knols[c].playable:
                            info += 1
                        elif not real[c]:
                            bad = True
                            break
                    if not bad and info > best_info:
                        best_info = info
                        best = (
                            Decision("colour", target=partner, colour=x)
                            if attr == 0
                            else Decision("value", target=partner, value=x)
                        )
        return best
