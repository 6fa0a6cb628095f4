"""SmartBot: playable-card hints read by their newest card, valuable-card warnings, discard finesse.

docs/bots.md §1.4. The strategy of Arthur O'Dwyer's SmartBot (Quuxplusone/Hanabi), written for
this project and checked move for move against it (docs/bots.md §3). Every seat tracks, for
every card in every hand, the set of cards its holder still thinks it can be (a 5 x 5 mask),
narrowed by hints, by the cards all seats can count (played, discarded, identified in a hand)
and by the conventions:

* **hints**: of the touched cards that were "maybe playable", the newest one that is still only
  "maybe playable" after the hint is playable (unless the hint already identified a playable
  card);
* **warnings**: the seat to the hinter's left expects a warning on the card it would discard
  next (its oldest card not known valuable, when it has nothing to play or throw away); a value
  hint touching that card, that could make it valuable, says it is the last copy. Any other
  move tells that seat the card is not valuable (while cards and hint tokens remain);
* **discard finesse**: discarding a card known playable says that a partner's newest card is
  that card (the first such partner in seat order, or the watcher itself).

On its turn: with an empty deck it plays a card it knows is playable or gambles; it warns its
left partner of a valuable card about to be discarded (by a hint that gives a play if one
exists); discard-finesses; plays its best playable card (one partners do not know it knows
first, then low values); gives the hint that rules out most possibilities among those that
reveal a playable card; gambles when the deck is nearly empty for the lives left; else it
discards a worthless card, else its next discard, else the highest of its all-valuable hand
(with all 8 tokens it tells its right partner the value of that partner's oldest card).

Beliefs keep cached summaries (playable, valuable, worthless and their probabilities as 32-bit
floats) that some events invalidate and others do not, as the reference's do: to make the same
moves the bot must compute them at the same moments, so the code follows the reference's order
of queries.
"""

from __future__ import annotations

import numpy as np

from agents.bots import smart_core as _core
from agents.bots._table import (
    COUNTS,
    BotPolicy,
    Decision,
    Seat,
    Table,
    check_raw_game,
)
from hanabi_env import view as V
from hanabi_env.game import PlayerView
from hanabi_env.validate import type_error

__all__ = ["SmartBot"]

NO, MAYBE, YES = 0, 1, 2
_P32 = [[float(np.float32(y) / np.float32(t)) if t else 0.0 for t in range(26)] for y in range(26)]


FULL = (1 << 25) - 1
COLOUR_MASK = [31 << (5 * k) for k in range(5)]  # the cells of colour k
VALUE_MASK = [0] + [sum(1 << (5 * k + v - 1) for k in range(5)) for v in range(1, 6)]


class _Knol:
    """One card's knowledge as its holder has it: the cards it cannot be, and cached summaries.

    ``cant``: a 25-bit mask, bit ``5 * colour + value - 1`` set for each identity ruled out.
    ``colour``/``value``: -2 not computed, -1 ambiguous, else the identity. Summaries
    (``play``, ``val``, ``worth`` in NO/MAYBE/YES) are valid while their probability
    (``pp``, ``pv``, ``pw``) is not -1.
    """

    __slots__ = (
        "cant",
        "colour",
        "play",
        "poss",
        "pp",
        "pv",
        "pw",
        "seat",
        "val",
        "value",
        "worth",
    )

    def __init__(self, seat: _SmartSeat):
        self.seat = seat
        self.cant = 0
        self.poss = -1
        self.colour = -2
        self.value = -2
        self.play = self.val = self.worth = MAYBE
        self.pp = self.pv = self.pw = -1.0

    def copy(self) -> _Knol:
        new = _Knol.__new__(_Knol)
        new.seat, new.cant, new.poss = self.seat, self.cant, self.poss
        new.colour, new.value = self.colour, self.value
        new.play, new.val, new.worth = self.play, self.val, self.worth
        new.pp, new.pv, new.pw = self.pp, self.pv, self.pw
        return new

    # --- identity ---
    def identity(self) -> None:
        if self.colour != -2 and self.value != -2:
            return
        possible = FULL & ~self.cant
        if not possible:
            self.colour = self.value = -2
            return
        colour = value = -2
        for k in range(5):
            if possible & COLOUR_MASK[k]:
                colour = k if colour == -2 else -1
        for v in range(1, 6):
            if possible & VALUE_MASK[v]:
                value = v if value == -2 else -1
        self.colour, self.value = colour, value

    def known(self) -> bool:
        self.identity()
        return self.colour != -1 and self.value != -1

    def get_value(self) -> int:
        self.identity()
        return self.value

    def cannot_be_value(self, v: int) -> bool:
        if self.value >= 0:
            return self.value != v
        return not (VALUE_MASK[v] & ~self.cant)

    def possibilities(self) -> int:
        if self.poss == -1:
            self.poss = (FULL & ~self.cant).bit_count()
        return self.poss

    # --- cached summaries ---
    def _summary(self, mask: int) -> tuple[float, int]:
        possible = FULL & ~self.cant
        total = possible.bit_count()
        yes = (possible & mask).bit_count()
        return _P32[yes][total], (YES if yes == total else MAYBE if yes else NO)

    def playable(self) -> int:
        if self.pp == -1.0:
            self.pp, self.play = self._summary(self.seat.masks()[0])
        return self.play

    def prob_playable(self) -> float:
        self.playable()
        return self.pp

    def valuable(self) -> int:
        if self.pv == -1.0:
            self.pv, self.val = self._summary(self.seat.masks()[1])
        return self.val

    def worthless(self) -> int:
        if self.pw == -1.0:
            self.pw, self.worth = self._summary(self.seat.masks()[2])
        return self.worth

    def prob_worthless(self) -> float:
        self.worthless()
        return self.pw

    def _narrowed(self) -> None:
        """Invalidate what a narrowing changes (the summaries that were MAYBE)."""
        if self.play == MAYBE:
            self.pp = -1.0
        if self.val == MAYBE:
            self.pv = -1.0
        if self.worth == MAYBE:
            self.pw = -1.0

    # --- hints and conventions ---
    def set_colour(self, colour: int) -> None:
        self.cant |= FULL & ~COLOUR_MASK[colour]
        self.poss = -1
        self.colour = colour
        if self.value == -1:
            self.value = -2
        self._narrowed()

    def set_value(self, value: int) -> None:
        self.cant |= FULL & ~VALUE_MASK[value]
        self.poss = -1
        if self.colour == -1:
            self.colour = -2
        self.value = value
        self._narrowed()

    def _ruled_out(self) -> None:
        self.poss = -1
        if self.colour == -1:
            self.colour = -2
        if self.value == -1:
            self.value = -2

    def set_not_colour(self, colour: int) -> None:
        self.cant |= COLOUR_MASK[colour]
        self._ruled_out()
        self._narrowed()

    def set_not_value(self, value: int) -> None:
        self.cant |= VALUE_MASK[value]
        self._ruled_out()
        self._narrowed()

    def set_playable(self, known: bool) -> None:
        mask = self.seat.masks()[0]
        self.cant |= (FULL & ~mask) if known else mask
        self._ruled_out()
        self.play = YES if known else NO
        self.pp = 1.0 if known else 0.0
        if self.val == MAYBE:
            self.pv = -1.0
        if self.worth == MAYBE:
            self.pw = -1.0
        if known:
            self.worth, self.pw = NO, 0.0

    def set_valuable(self, known: bool) -> None:
        mask = self.seat.masks()[1]
        self.cant |= (FULL & ~mask) if known else mask
        self._ruled_out()
        if self.play == MAYBE:
            self.pp = -1.0
        self.val = YES if known else NO
        self.pv = 1.0 if known else 0.0
        if self.worth == MAYBE:
            self.pw = -1.0
        if known:
            self.worth, self.pw = NO, 0.0

    def befuddle_by_discard(self) -> None:
        if self.worth != YES:
            self.val, self.pv = MAYBE, -1.0
            self.worth, self.pw = MAYBE, -1.0

    def befuddle_by_play(self, success: bool) -> None:
        if success:
            self.play, self.pp = MAYBE, -1.0
        else:
            self.val, self.pv = MAYBE, -1.0
        if self.worth != YES:
            self.worth, self.pw = MAYBE, -1.0

    def update(self, exhausted: int) -> None:
        """Rule out ``exhausted`` (the cards all of whose copies are public or located/seen)."""
        if self.known():
            return
        if exhausted & ~self.cant:
            self.cant |= exhausted
            self.poss = -1
            self.colour = self.value = -2
            self.play = self.val = self.worth = MAYBE
            self.pp = self.pv = self.pw = -1.0

    def could_be_valuable_with(self, value: int) -> bool:
        if value < 1 or value > 5 or self.cannot_be_value(value):
            return False
        if self.valuable() != MAYBE:
            return False
        new = self.copy()
        new.set_value(value)
        return new.valuable() != NO


class _Hint:
    __slots__ = ("colour", "fitness", "to", "value")

    def __init__(self, to: int = -1, colour: int = -1, value: int = -1):
        self.fitness = -1
        self.to, self.colour, self.value = to, colour, value

    def includes(self, card: tuple[int, int]) -> bool:
        return card[0] == self.colour if self.colour != -1 else card[1] == self.value

    def decision(self) -> Decision:
        if self.colour != -1:
            return Decision("colour", target=self.to, colour=self.colour)
        return Decision("value", target=self.to, value=self.value)


def _zeros() -> list[list[int]]:
    return [[0] * 6 for _ in range(5)]


class _SmartSeat(Seat):
    def __init__(self, table: Table):
        super().__init__(table)
        self.knols = [[_Knol(self) for _ in range(table.hand_size)] for _ in range(table.players)]
        self.played = _zeros()  # played or discarded copies
        self.located = _zeros()  # identified in hands (public knowledge)
        self.eyesight = _zeros()  # visible to this seat
        self.eye_exhausted = 0  # the cards all of whose copies are public or visible
        self.version = 0  # counts changes of self.played
        self._masks_key = (-1, -1)
        self._masks = (0, 0, 0)
        self.my_hand = table.hand_size

    def is_valuable(self, k: int, v: int) -> bool:
        if self.played[k][v] != COUNTS[v - 1] - 1:
            return False
        return not self.is_worthless(k, v)

    def is_worthless(self, k: int, v: int) -> bool:
        playable = self.table.piles[k] + 1
        if v < playable:
            return True
        played = self.played[k]
        while v > playable:
            v -= 1
            if played[v] == COUNTS[v - 1]:
                return True
        return False

    def see(self, card: tuple[int, int]) -> None:
        """A card played or discarded."""
        self.played[card[0]][card[1]] += 1
        self.version += 1

    def masks(self) -> tuple[int, int, int]:
        """Cell masks of the playable, valuable and worthless identities now."""
        piles = self.table.piles
        key = (sum(piles), self.version)
        if key != self._masks_key:
            play = val = worth = 0
            for k in range(5):
                for v in range(1, 6):
                    bit = 1 << (5 * k + v - 1)
                    if v == piles[k] + 1:
                        play |= bit
                    if self.is_valuable(k, v):
                        val |= bit
                    if self.is_worthless(k, v):
                        worth |= bit
            self._masks_key, self._masks = key, (play, val, worth)
        return self._masks

    def exhausted(self, held: list[list[int]]) -> int:
        """Cells of the identities all of whose copies are public or in ``held``."""
        mask = 0
        played = self.played
        for k in range(5):
            for v in range(1, 6):
                if played[k][v] + held[k][v] == COUNTS[v - 1]:
                    mask |= 1 << (5 * k + v - 1)
        return mask

    def update_located(self) -> bool:
        new = _zeros()
        for row in self.knols:
            for knol in row:
                if knol.known():
                    new[knol.colour][knol.value] += 1
        if new != self.located:
            self.located = new
            return True
        return False

    def next_discard(self, to: int) -> int:
        best_fitness, best = 0.0, -1
        for i, knol in enumerate(self.knols[to]):
            if knol.playable() == YES or knol.worthless() == YES:
                return -1
            if knol.valuable() == YES:
                continue
            fitness = 100 + knol.prob_worthless()
            if fitness > best_fitness:
                best_fitness, best = fitness, i
        return best

    def no_warning_given(self, frm: int) -> None:
        t = self.table
        if t.deck == 0 or t.hints == 0:
            return
        expecting = (frm + 1) % t.players
        i = self.next_discard(expecting)
        if i != -1:
            self.knols[expecting][i].set_valuable(False)

    def remove(self, p: int, i: int) -> None:
        row = self.knols[p]
        del row[i]
        if self.table.deck != 0:
            row.append(_Knol(self))


class _FastSeat:
    """One seat's memory on the compiled path: its arrays and how many moves it has replayed."""

    def __init__(self, players: int, hand_size: int):
        self.arrays = _core.new_seat(players, hand_size)
        self.seen = 0
        self.out = np.zeros(3, dtype=np.int64)


class SmartBot(BotPolicy):
    """SmartBot (module docstring), a deterministic :class:`~agents.policy.Policy`.

    Args:
        seed: Accepted for the common interface (the bot draws nothing).
        compiled: Decide with the numba kernels of :mod:`agents.bots.smart_core` (the
            default; the same moves, docs/bots.md §4) instead of this module's Python code.

    Raises:
        TypeError: ``compiled`` not a bool.
        ValueError: From ``act``/``check_game``: a game other than the reference bots'
            (docs/bots.md §2).
    """

    name = "SmartBot"

    def __init__(self, seed: int = 0, compiled: bool = True):
        """See the class docstring."""
        super().__init__(seed)
        if not isinstance(compiled, bool):
            raise type_error("compiled", "a bool", compiled)
        self.compiled = compiled
        self._fast: dict[int, _FastSeat] = {}

    def reset(self, seed: int | None = None) -> None:
        """Forget every seat's memory (``seed`` is checked, not used: the bot is deterministic)."""
        super().reset(seed)
        self._fast = {}

    def act(self, view: PlayerView) -> int:
        """Replay the moves since this seat's last turn, then decide (a legal move uid)."""
        if not self.compiled:
            return super().act(view)
        me = view.seat
        raw = view.raw
        n_moves = int(raw.scal[V.V_N_MOVES])
        seat = self._fast.get(me)
        if seat is None or seat.seen > n_moves:
            players, hand = check_raw_game(raw.cfg, self.name)
            seat = self._fast[me] = _FastSeat(players, hand)
        out = seat.out
        _core.replay_and_decide(
            me, seat.arrays, raw.cards, raw.uids, raw.hand_len, raw.hist, seat.seen, n_moves, out
        )
        seat.seen = n_moves
        kind, a, b = int(out[0]), int(out[1]), int(out[2])
        if kind == _core.M_PLAY:
            return view.action_uid("play", slot=a)
        if kind == _core.M_DISCARD:
            return view.action_uid("discard", slot=a)
        if kind == _core.M_COLOUR:
            return view.action_uid("reveal_color", target=a, color=b)
        return view.action_uid("reveal_rank", target=a, rank=b - 1)

    def new_seat(self, players: int, me: int, hand_size: int) -> Seat:
        """A seat with blank knowledge of every hand."""
        return _SmartSeat(Table(players, me, hand_size))

    # --- observing ---
    def before_move(self, seat) -> None:  # noqa: D102
        t = seat.table
        seat.my_hand = t.hand_len(t.me)
        seat.located = _zeros()
        seat.update_located()
        while True:
            exhausted = seat.exhausted(seat.located)
            for row in seat.knols:
                for knol in row:
                    knol.update(exhausted)
            if not seat.update_located():
                break
        eye = _zeros()
        for p in range(t.players):
            if p == t.me:
                for knol in seat.knols[p][: seat.my_hand]:
                    if knol.known():
                        eye[knol.colour][knol.value] += 1
            else:
                for k, v in t.hand(p):
                    eye[k][v] += 1
        seat.eyesight = eye
        seat.eye_exhausted = seat.exhausted(eye)

    def before_discard(self, seat, frm, slot, card):  # noqa: D102
        t = seat.table
        seat.no_warning_given(frm)
        knol = seat.knols[frm][slot]
        if knol.known() and knol.playable() == YES:  # a discard finesse: who has it newest?
            holder = t.me
            for p in range(t.players):
                if p not in (frm, t.me) and t.hand(p)[-1] == card:
                    holder = p
                    break
            seat.knols[holder][-1].set_colour(card[0])
            seat.knols[holder][-1].set_value(card[1])
        for row in seat.knols:
            for k in row:
                k.befuddle_by_discard()
        seat.see(card)
        seat.remove(frm, slot)

    def before_play(self, seat, frm, slot, card):  # noqa: D102
        success = seat.table.is_playable(card)
        seat.no_warning_given(frm)
        for row in seat.knols:
            for k in row:
                k.befuddle_by_play(success)
        seat.see(card)
        seat.remove(frm, slot)

    @staticmethod
    def _read_hint(seat, to, slots, touched, untouched) -> tuple[bool, int]:
        """Apply a hint's narrowing newest first: (identified a playable card, newest maybe)."""
        identified, inferred = False, -1
        row = seat.knols[to]
        for i in range(seat.table.hand_len(to) - 1, -1, -1):
            knol = row[i]
            was_maybe = knol.playable() == MAYBE
            if i in slots:
                touched(knol)
                if was_maybe:
                    now = knol.playable()
                    if now == YES:
                        identified = True
                    elif now == MAYBE and inferred == -1:
                        inferred = i
            else:
                untouched(knol)
                if was_maybe and knol.playable() == YES:
                    identified = True
        return identified, inferred

    def colour_hint(self, seat, frm, to, colour, slots):  # noqa: D102
        identified, inferred = self._read_hint(
            seat, to, slots, lambda k: k.set_colour(colour), lambda k: k.set_not_colour(colour)
        )
        if not identified and inferred >= 0:
            seat.knols[to][inferred].set_playable(True)
        if to != (frm + 1) % seat.table.players:
            seat.no_warning_given(frm)

    def value_hint(self, seat, frm, to, value, slots):  # noqa: D102
        t = seat.table
        expecting = (frm + 1) % t.players
        discard = seat.next_discard(expecting)
        reclaim = not t.discarding_allowed() and frm == (to + 1) % t.players and 0 in slots
        warning = (
            not reclaim
            and to == expecting
            and discard in slots
            and seat.knols[to][discard].could_be_valuable_with(value)
        )
        if warning:
            seat.knols[to][discard].set_valuable(True)
        identified, inferred = self._read_hint(
            seat, to, slots, lambda k: k.set_value(value), lambda k: k.set_not_value(value)
        )
        if not warning and not reclaim and not identified and inferred >= 0:
            seat.knols[to][inferred].set_playable(True)
        if to != expecting:
            seat.no_warning_given(frm)

    # --- deciding ---
    def decide(self, seat) -> Decision:
        """The move (module docstring's order)."""
        t = seat.table
        if t.deck == 0:
            d = self._play_best(seat) or self._play_mystery(seat)
            if d is not None:
                return d
        d = (
            self._warn(seat)
            or self._discard_finesse(seat)
            or self._play_best(seat)
            or self._helpful_hint(seat)
            or self._play_mystery(seat)
        )
        if d is not None:
            return d
        if not t.discarding_allowed():
            right = (t.me + t.players - 1) % t.players
            return Decision("value", target=right, value=t.hand(right)[0][1])
        d = self._discard_worthless(seat)
        if d is not None:
            return d
        i = seat.next_discard(t.me)
        if i != -1:
            return Decision("discard", slot=i)
        mine = seat.knols[t.me]
        best = 0
        for i in range(seat.my_hand):
            if mine[i].get_value() > mine[best].get_value():
                best = i
        return Decision("discard", slot=best)

    @staticmethod
    def _play_best(seat) -> Decision | None:
        best, best_fitness = -1, 0.0
        mine = seat.knols[seat.table.me]
        for i in range(seat.my_hand):
            if mine[i].playable() == NO:
                continue
            eye = mine[i].copy()
            eye.update(seat.eye_exhausted)
            if eye.playable() != YES:
                continue
            fitness = 6.0 - eye.get_value()
            if mine[i].playable() != YES:
                fitness += 100
            if fitness > best_fitness:
                best, best_fitness = i, fitness
        return Decision("play", slot=best) if best != -1 else None

    @staticmethod
    def _discard_worthless(seat) -> Decision | None:
        best, best_fitness = -1, 0.0
        mine = seat.knols[seat.table.me]
        for i in range(seat.my_hand):
            w = mine[i].worthless()
            if w == NO:
                continue
            if w == MAYBE:
                eye = mine[i].copy()
                eye.update(seat.eye_exhausted)
                if eye.worthless() != YES:
                    continue
            fitness = 2.0 - mine[i].prob_worthless()
            if fitness > best_fitness:
                best, best_fitness = i, fitness
        return Decision("discard", slot=best) if best != -1 else None

    @staticmethod
    def _best_hint_given(seat, to: int, is_okay) -> _Hint:
        hand = seat.table.hand(to)
        old = seat.knols[to]
        best = _Hint(to)
        for attr in (0, 1):
            present = {card[attr] for card in hand}
            for x in range(5) if attr == 0 else range(1, 6):
                if x not in present:
                    continue
                hint = _Hint(to, x, -1) if attr == 0 else _Hint(to, -1, x)
                new = [k.copy() for k in old]
                for c, card in enumerate(hand):
                    if attr == 0:
                        new[c].set_colour(x) if card[0] == x else new[c].set_not_colour(x)
                    else:
                        new[c].set_value(x) if card[1] == x else new[c].set_not_value(x)
                if is_okay(hint, old, new):
                    hint.fitness = sum(
                        o.possibilities() - n.possibilities()
                        for o, n in zip(old, new, strict=False)
                    )
                    if hint.fitness > best.fitness:
                        best = hint
        return best

    def _best_hint_for(self, seat, partner: int) -> _Hint:
        t = seat.table
        hand = t.hand(partner)
        really = [t.is_playable(c) for c in hand]
        avoid = -1
        if partner == (t.me + 1) % t.players:
            i = seat.next_discard(partner)
            if i != -1:
                avoid = hand[i][1]
                if not seat.knols[partner][i].could_be_valuable_with(avoid):
                    avoid = -1

        def is_okay(hint: _Hint, old: list[_Knol], new: list[_Knol]) -> bool:
            if hint.value != -1 and hint.value == avoid:
                return False  # it would read as a warning
            reveals = False
            misleading = MAYBE
            for c in range(len(hand) - 1, -1, -1):
                if old[c].playable() != MAYBE:
                    continue
                now = new[c].playable()
                if now == YES:
                    reveals = True
                elif now == MAYBE and hint.includes(hand[c]) and misleading == MAYBE:
                    misleading = NO if really[c] else YES
            return reveals or misleading == NO

        return self._best_hint_given(seat, partner, is_okay)

    def _warn(self, seat) -> Decision | None:
        t = seat.table
        if t.hints == 0:
            return None
        left = (t.me + 1) % t.players
        i = seat.next_discard(left)
        if i == -1:
            return None
        target = t.hand(left)[i]
        if not seat.is_valuable(*target):
            return None
        hint = self._best_hint_for(seat, left)
        if hint.fitness > 0:
            return hint.decision()
        return Decision("value", target=left, value=target[1])

    @staticmethod
    def _discard_finesse(seat) -> Decision | None:
        t = seat.table
        if not t.discarding_allowed():
            return None
        mine = []
        for i, knol in enumerate(seat.knols[t.me]):
            if knol.known() and knol.valuable() == NO and knol.playable() == YES:
                mine.append(((knol.colour, knol.value), i))
        if not mine:
            return None
        newest = [t.hand((t.me + off) % t.players)[-1] for off in range(1, t.players)]
        for card, i in mine:
            if newest.count(card) == 1:
                return Decision("discard", slot=i)
        return None

    def _helpful_hint(self, seat) -> Decision | None:
        t = seat.table
        if t.hints == 0:
            return None
        best = _Hint()
        for off in range(1, t.players):
            cand = self._best_hint_for(seat, (t.me + off) % t.players)
            if cand.fitness > best.fitness:
                best = cand
        return best.decision() if best.fitness > 0 else None

    @staticmethod
    def _play_mystery(seat) -> Decision | None:
        t = seat.table
        if t.deck > (-99, 1, 1, 3)[t.mulligans]:
            return None
        best, best_fitness = -1, 0.0
        mine = seat.knols[t.me]
        for i in range(len(mine) - 1, -1, -1):
            eye = mine[i].copy()
            eye.update(seat.eye_exhausted)
            if eye.playable() == MAYBE:
                fitness = eye.prob_playable()
                if fitness > best_fitness:
                    best, best_fitness = i, fitness
        return Decision("play", slot=best) if best != -1 else None
