"""SimpleBot, ValueBot and HolmesBot as numba kernels: the same moves as their Python bots.

docs/bots.md §1.1–1.3 and §4.2. The Python bots (:mod:`agents.bots.simple`,
:mod:`agents.bots.value`, :mod:`agents.bots.holmes`) are the specification; these kernels take
the same steps in the same order on arrays (golden tests: ``tests/agents/test_bots.py``).

**One memory per game.** What these three bots believe about every card comes from public
events only (hints, plays, discards, fireworks, the public card counts), read by conventions
every seat shares; a bot looks at its partners' cards only to decide. So every seat of a game
holds the same beliefs at every moment, and the compiled self-play loop keeps one copy of them
per game instead of one per seat (the policy keeps one per seat it plays).

**Shared code.** ValueBot and HolmesBot read a warning (:func:`read_value_hint`), give one
(:func:`warn`), choose hints (:func:`best_hint_for`, :func:`helpful_hint`; SimpleBot's too)
and discard (:func:`discard_tail`) with the same kernels; where they differ a ``bot`` argument
(:data:`SIMPLE`, :data:`VALUE`, :data:`HOLMES`) says which. ValueBot's public count ("copies
seen, -1 once played") is :data:`pub` with the fireworks: an identity is played when its value
is at most its firework's height, as HolmesBot counts it.

Layout (one game; ``n`` seats, hand size ``h``):

* ``kn``: ``(n, h, N_FIELDS)`` int64 per card (slot 0 = oldest; slots past the hand blank):
  ``F_COL``/``F_VAL`` the colour (0–4) and value (1–5) its holder knows (-1 unknown; SimpleBot
  keeps the value 6 a hint in a finished colour gives), ``F_PLAY``/``F_VALU``/``F_WORTH`` the
  marks (0/1), ``F_CANT`` HolmesBot's ruled-out identities (25-bit mask, bit
  ``5 * colour + value - 1``), ``F_NOVAL`` ValueBot's "no value possible" (a hint in a
  finished colour);
* ``g``: ``(G_SIZE,)`` int64, fireworks ``g[0:5]``, ``G_HINTS``, ``G_LIVES``, ``G_DECK``
  (cards left to draw), ``G_DECIDED`` (the policy: its own move's ``before_move`` has run);
* ``pub``: ``(5, 6)`` int64 copies played or discarded per colour and value (1–5);
* ``hands``: ``(n, h)`` int64 engine card ids (``colour * 5 + rank``, rank 0–4), -1 unseen;
  ``hl``: ``(n,)`` hand lengths;
* ``scr``: ``(SCR_SIZE,)`` int64 scratch (HolmesBot's located counts);
* ``out``: ``(3,)`` int64 a decision: ``M_*`` kind, slot (plays, discards) or target seat
  (hints), colour (0–4) or value (1–5).
"""

from __future__ import annotations

import numpy as np

from hanabi_env import engine as E
from hanabi_env.jit import inline, kernel, njit

SIMPLE, VALUE, HOLMES = 0, 1, 2
F_COL, F_VAL, F_PLAY, F_VALU, F_WORTH, F_CANT, F_NOVAL = 0, 1, 2, 3, 4, 5, 6
N_FIELDS = 7
G_HINTS, G_LIVES, G_DECK, G_DECIDED = 5, 6, 7, 8
G_SIZE = 9
SCR_SIZE = 64
M_PLAY, M_DISCARD, M_COLOUR, M_VALUE = 0, 1, 2, 3
FULL = (1 << 25) - 1
COLOUR_MASK = np.array([31 << (5 * k) for k in range(5)], dtype=np.int64)
VALUE_MASK = np.array(
    [0] + [sum(1 << (5 * k + v - 1) for k in range(5)) for v in range(1, 6)], dtype=np.int64
)
COUNTS = np.array([0, 3, 2, 2, 2, 1], dtype=np.int64)  # copies of value v (index v)


# --- cards and the public counts ---
@inline
def blank(kn, p, i):
    """Slot ``i`` of seat ``p``: a card nobody knows anything about."""
    kn[p, i, F_COL] = -1
    kn[p, i, F_VAL] = -1
    kn[p, i, F_PLAY] = 0
    kn[p, i, F_VALU] = 0
    kn[p, i, F_WORTH] = 0
    kn[p, i, F_CANT] = 0
    kn[p, i, F_NOVAL] = 0


@kernel
def new_game(kn, g, pub, hl):
    """Blank beliefs and the table at the deal (8 hints, 3 lives, the deck after the deal)."""
    n = kn.shape[0]
    h = kn.shape[1]
    for p in range(n):
        hl[p] = h
        for i in range(h):
            blank(kn, p, i)
    for k in range(G_SIZE):
        g[k] = 0
    g[G_HINTS] = 8
    g[G_LIVES] = 3
    g[G_DECK] = 50 - n * h
    for c in range(5):
        for v in range(6):
            pub[c, v] = 0


@inline
def remove(kn, p, slot):
    """The card in ``slot`` leaves seat ``p``'s hand: later cards move up, a blank at the end."""
    h = kn.shape[1]
    for j in range(slot, h - 1):
        for f in range(N_FIELDS):
            kn[p, j, f] = kn[p, j + 1, f]
    blank(kn, p, h - 1)


@inline
def lowest(g):
    """The lowest value not yet played in every colour (6 when all fireworks are complete)."""
    low = g[0]
    for c in range(1, 5):
        if g[c] < low:
            low = g[c]
    return low + 1


@inline
def is_valuable(g, pub, c, v):
    """Whether ``(c, v)`` is not yet played and its last copy (the others are public)."""
    return v > g[c] and pub[c, v] == COUNTS[v] - 1


@inline
def could_be_valuable(g, pub, cant, value):
    """Whether a card with ``value`` and ruled-out identities ``cant`` could be valuable."""
    if value < 1 or value > 5:
        return False
    for c in range(5):
        if not (cant >> (5 * c + value - 1)) & 1 and is_valuable(g, pub, c, value):
            return True
    return False


@inline
def next_discard(kn, to, length):
    """The slot seat ``to`` discards next: its oldest card not known valuable.

    -1 when there is none, or when it holds a card marked playable or worthless.
    """
    for i in range(length):
        if kn[to, i, F_PLAY] or kn[to, i, F_WORTH]:
            return -1
    for i in range(length):
        if not kn[to, i, F_VALU]:
            return i
    return -1


@inline
def token_back(g, n, frm, to, touched):
    """Whether a value hint is the one that gives a token back: it means nothing.

    All 8 tokens there, to the seat before the hinter, touching its oldest card.
    """
    return g[G_HINTS] == 8 and frm == (to + 1) % n and (touched & 1) == 1


# --- reading moves (before they are applied; ``hl`` as before the move) ---
@kernel
def simple_play(kn, slot_of, frm, c, v):
    """SimpleBot: a play clears the playable mark of the cards that could be the same card."""
    remove(kn, frm, slot_of)
    for p in range(kn.shape[0]):
        for i in range(kn.shape[1]):
            if not kn[p, i, F_PLAY] or kn[p, i, F_VAL] == 5:
                continue
            col = kn[p, i, F_COL]
            val = kn[p, i, F_VAL]
            if (col != -1 and col != c) or (val != -1 and val != v):
                continue
            kn[p, i, F_PLAY] = 0


@kernel
def simple_hint(kn, g, n, frm, to, is_colour, x, touched):
    """SimpleBot: a hint marks the touched cards playable (a colour hint: at the next value)."""
    if not is_colour and token_back(g, n, frm, to, touched):
        return
    for i in range(kn.shape[1]):
        if (touched >> i) & 1:
            if is_colour:
                kn[to, i, F_COL] = x
                kn[to, i, F_VAL] = g[x] + 1
            else:
                kn[to, i, F_VAL] = x
            kn[to, i, F_PLAY] = 1


@kernel
def read_value_hint(kn, g, pub, n, hl, frm, to, value, touched):
    """ValueBot and HolmesBot: -1 for the token-back hint, else whether it is a warning.

    A warning (the hint touches ``to``'s next discard and could make it valuable) marks that
    card valuable, and playable when ``value`` is the lowest value not played everywhere.
    """
    if token_back(g, n, frm, to, touched):
        return -1
    d = next_discard(kn, to, hl[to])
    if d < 0 or not (touched >> d) & 1:
        return 0
    if not could_be_valuable(g, pub, kn[to, d, F_CANT], value):
        return 0
    kn[to, d, F_VALU] = 1
    if value == lowest(g):
        kn[to, d, F_PLAY] = 1
    return 1


@kernel
def value_discard(kn, pub, frm, slot, c, v):
    """ValueBot and HolmesBot: a discarded card leaves the hand and is counted."""
    pub[c, v] += 1
    remove(kn, frm, slot)


@kernel
def value_play(kn, g, pub, hl, frm, slot, c, v):
    """ValueBot: a play (``hl`` as before it; ``g`` the fireworks before it)."""
    remove(kn, frm, slot)
    if v != g[c] + 1:
        pub[c, v] += 1
        return
    n = kn.shape[0]
    if pub[c, v] != COUNTS[v] - 1:  # other copies may be marked playable
        for p in range(n):
            for i in range(hl[p]):
                if not kn[p, i, F_PLAY] or kn[p, i, F_VAL] == 5:
                    continue
                col = kn[p, i, F_COL]
                val = kn[p, i, F_VAL]
                if (col != -1 and col != c) or (val != -1 and val != v) or kn[p, i, F_NOVAL]:
                    continue
                kn[p, i, F_PLAY] = 0
    pub[c, v] += 1
    low = v + 1
    for k in range(5):
        if k != c and g[k] + 1 < low:
            low = g[k] + 1
    if low > v:
        for p in range(n):
            for i in range(hl[p]):
                if kn[p, i, F_VAL] == v:
                    kn[p, i, F_WORTH] = 1


@kernel
def value_colour_hint(kn, g, pub, to, colour, touched):
    """ValueBot: the touched cards are ``colour``; of unknown value, the pile's next value."""
    value = g[colour] + 1
    for i in range(kn.shape[1]):
        if not (touched >> i) & 1:
            continue
        kn[to, i, F_COL] = colour
        if kn[to, i, F_VAL] == -1:
            if value <= 5:
                kn[to, i, F_VAL] = value
                kn[to, i, F_NOVAL] = 0
            else:
                kn[to, i, F_NOVAL] = 1
        known = kn[to, i, F_VAL]
        # value() is -1 only after a hint in a finished colour: the spec reads its count at
        # index -1 (value 5, played) and COUNTS[-2] (2 copies)
        cell = known if known != -1 else 5
        if cell <= g[colour]:
            kn[to, i, F_WORTH] = 1
        else:
            if value == known:
                kn[to, i, F_PLAY] = 1
            copies = COUNTS[known] if known != -1 else 2
            if pub[colour, cell] == copies - 1:
                kn[to, i, F_VALU] = 1


@kernel
def value_value_hint(kn, g, pub, n, hl, frm, to, value, touched):
    """ValueBot: a value hint (a warning, the token-back hint, or "these are playable")."""
    warning = read_value_hint(kn, g, pub, n, hl, frm, to, value, touched)
    if warning < 0:
        return
    mark = warning == 0 and value >= lowest(g)
    for i in range(kn.shape[1]):
        if (touched >> i) & 1:
            kn[to, i, F_VAL] = value
            kn[to, i, F_NOVAL] = 0
            if mark:
                kn[to, i, F_PLAY] = 1


@kernel
def holmes_play(kn, g, pub, hl, frm, slot, c, v):
    """HolmesBot: a successful play of a non-last copy clears the other candidates' marks."""
    if v == g[c] + 1 and not is_valuable(g, pub, c, v):
        cell = 5 * c + v - 1
        for p in range(kn.shape[0]):
            for i in range(hl[p]):
                maybe = not (kn[p, i, F_CANT] >> cell) & 1
                if kn[p, i, F_PLAY] and not kn[p, i, F_VALU] and maybe:
                    kn[p, i, F_PLAY] = 0
    value_discard(kn, pub, frm, slot, c, v)


@kernel
def holmes_colour_hint(kn, g, hl, to, colour, touched):
    """HolmesBot: touched cards are ``colour`` (of unknown value: the next), others are not."""
    value = g[colour] + 1
    for i in range(hl[to]):
        if (touched >> i) & 1:
            kn[to, i, F_CANT] |= FULL & ~COLOUR_MASK[colour]
            kn[to, i, F_COL] = colour
            # value 6: a hint in a finished colour (never HolmesBot's) says nothing of the value
            if kn[to, i, F_VAL] == -1 and not kn[to, i, F_WORTH] and value <= 5:
                kn[to, i, F_CANT] |= FULL & ~VALUE_MASK[value]
                kn[to, i, F_VAL] = value
        else:
            kn[to, i, F_CANT] |= COLOUR_MASK[colour]


@kernel
def holmes_value_hint(kn, g, pub, n, hl, frm, to, value, touched):
    """HolmesBot: a value hint; cards of unknown colour read as playable unless a warning."""
    warning = read_value_hint(kn, g, pub, n, hl, frm, to, value, touched)
    if warning < 0:
        return
    for i in range(hl[to]):
        if (touched >> i) & 1:
            kn[to, i, F_CANT] |= FULL & ~VALUE_MASK[value]
            kn[to, i, F_VAL] = value
            if kn[to, i, F_COL] == -1 and warning == 0 and not kn[to, i, F_WORTH]:
                kn[to, i, F_PLAY] = 1
        else:
            kn[to, i, F_CANT] |= VALUE_MASK[value]


@inline
def observe(bot, kn, g, pub, hl, actor, kind, slot, target, c, v, touched):
    """Every seat reads seat ``actor``'s move, before it is applied.

    ``kind`` is the engine's move kind; ``(c, v)`` the card of a play or discard, ``c`` the
    colour or ``v`` the value (1–5) of a hint.
    """
    n = kn.shape[0]
    if kind == E.PLAY:
        if bot == SIMPLE:
            simple_play(kn, slot, actor, c, v)
        elif bot == VALUE:
            value_play(kn, g, pub, hl, actor, slot, c, v)
        else:
            holmes_play(kn, g, pub, hl, actor, slot, c, v)
    elif kind == E.DISCARD:
        if bot == SIMPLE:
            remove(kn, actor, slot)
        else:
            value_discard(kn, pub, actor, slot, c, v)
    elif bot == SIMPLE:
        is_colour = kind == E.REVEAL_COLOR
        simple_hint(kn, g, n, actor, target, is_colour, c if is_colour else v, touched)
    elif kind == E.REVEAL_COLOR:
        if bot == VALUE:
            value_colour_hint(kn, g, pub, target, c, touched)
        else:
            holmes_colour_hint(kn, g, hl, target, c, touched)
    elif bot == VALUE:
        value_value_hint(kn, g, pub, n, hl, actor, target, v, touched)
    else:
        holmes_value_hint(kn, g, pub, n, hl, actor, target, v, touched)


# --- HolmesBot's deductions, before every move ---
@kernel
def _located(kn, hl, loc):
    """Count the identified cards of every hand into ``loc[0:25]``; whether it changed."""
    changed = False
    for cell in range(25):
        loc[32 + cell] = 0
    for p in range(kn.shape[0]):
        for i in range(hl[p]):
            c = kn[p, i, F_COL]
            v = kn[p, i, F_VAL]
            if c != -1 and v != -1:
                loc[32 + 5 * c + v - 1] += 1
    for cell in range(25):
        if loc[cell] != loc[32 + cell]:
            loc[cell] = loc[32 + cell]
            changed = True
    return changed


@kernel
def _single(kn, p, i):
    """Give the card its colour and value where only one is left."""
    if kn[p, i, F_COL] == -1:
        possible = FULL & ~kn[p, i, F_CANT]
        colour = -1
        for c in range(5):
            if possible & COLOUR_MASK[c]:
                if colour != -1:
                    colour = -2
                    break
                colour = c
        if colour >= 0:
            kn[p, i, F_CANT] |= FULL & ~COLOUR_MASK[colour]
            kn[p, i, F_COL] = colour
    if kn[p, i, F_VAL] == -1:
        possible = FULL & ~kn[p, i, F_CANT]
        value = -1
        for v in range(1, 6):
            if possible & VALUE_MASK[v]:
                if value != -1:
                    value = -2
                    break
                value = v
        if value >= 0:
            kn[p, i, F_CANT] |= FULL & ~VALUE_MASK[value]
            kn[p, i, F_VAL] = value


@kernel
def _update(kn, p, i, exhausted, playable, valuable, played):
    """HolmesBot's deductions for one card (module docstring of :mod:`agents.bots.holmes`)."""
    while True:
        _single(kn, p, i)
        if kn[p, i, F_COL] != -1 and kn[p, i, F_VAL] != -1:
            break
        out = exhausted
        if kn[p, i, F_VALU]:
            out |= FULL & ~valuable
        if kn[p, i, F_PLAY]:
            out |= FULL & ~playable
        if kn[p, i, F_WORTH]:
            out |= FULL & ~played
        if not out & ~kn[p, i, F_CANT]:
            break
        kn[p, i, F_CANT] |= out
    if kn[p, i, F_WORTH]:
        return
    possible = FULL & ~kn[p, i, F_CANT]
    if not kn[p, i, F_PLAY] and not kn[p, i, F_VALU] and not possible & ~played:
        kn[p, i, F_WORTH] = 1
        return
    if not kn[p, i, F_VALU] and not possible & ~valuable:
        kn[p, i, F_VALU] = 1
    if not kn[p, i, F_PLAY] and not possible & ~playable:
        kn[p, i, F_PLAY] = 1


@kernel
def holmes_before_move(kn, g, pub, hl, scr):
    """HolmesBot before every move: deduce until nothing changes (``scr``: scratch)."""
    playable = 0
    valuable = 0
    played = 0
    for c in range(5):
        for v in range(1, 6):
            bit = 1 << (5 * c + v - 1)
            if v == g[c] + 1:
                playable |= bit
            if is_valuable(g, pub, c, v):
                valuable |= bit
            if v <= g[c]:
                played |= bit
    for cell in range(25):
        scr[cell] = 0
    _located(kn, hl, scr)
    while True:
        exhausted = 0
        for c in range(5):
            for v in range(1, 6):
                if pub[c, v] + scr[5 * c + v - 1] == COUNTS[v]:
                    exhausted |= 1 << (5 * c + v - 1)
        for p in range(kn.shape[0]):
            for i in range(hl[p]):
                _update(kn, p, i, exhausted, playable, valuable, played)
        if not _located(kn, hl, scr):
            break


# --- deciding ---
@inline
def _hint_counts(bot, kn, g, hands, hl, to):
    """One pass over seat ``to``'s hand for :func:`best_hint_for`.

    Returns ``(info_c, info_v, bad_c, bad_v)``: 4-bit counts per colour and per value of the
    cards a hint would newly mark playable, and bits of the colours and values whose hint
    would touch a card it must not.
    """
    info_c = 0
    info_v = 0
    bad_c = 0
    bad_v = 0
    for i in range(hl[to]):
        card = hands[to, i]
        c = card // 5
        r = card - 5 * c  # value - 1
        if r == g[c]:
            if not kn[to, i, F_PLAY]:
                info_c += 1 << (4 * c)
                info_v += 1 << (4 * r)
        elif bot == SIMPLE:
            bad_c |= 1 << c
            bad_v |= 1 << r
        elif bot == VALUE:
            bad_v |= 1 << r
            if kn[to, i, F_VAL] == -1:
                bad_c |= 1 << c
        elif not kn[to, i, F_WORTH]:
            if kn[to, i, F_VAL] == -1:
                bad_c |= 1 << c
            if kn[to, i, F_COL] == -1:
                bad_v |= 1 << r
    return info_c, info_v, bad_c, bad_v


@inline
def best_hint_for(bot, kn, g, pub, hands, hl, to, out):
    """The hint to seat ``to`` that marks most playable cards, into ``out``; its count.

    Colours first, then values; the first best wins; -1 when no hint is allowed. A hint
    may not touch a card that is not playable now: SimpleBot's never; ValueBot's colour hints
    may when its holder knows the card's value; HolmesBot's when its holder knows the other
    attribute or that the card is worthless. ValueBot and HolmesBot never name the value of
    ``to``'s next discard when it would read as a warning.
    """
    info_c, info_v, bad_c, bad_v = _hint_counts(bot, kn, g, hands, hl, to)
    best = -1
    for colour in range(5):
        info = -1 if (bad_c >> colour) & 1 else (info_c >> (4 * colour)) & 15
        if info > best:
            best = info
            out[0] = M_COLOUR
            out[1] = to
            out[2] = colour
    avoid = -1
    if bot != SIMPLE:
        d = next_discard(kn, to, hl[to])
        if d != -1:
            avoid = hands[to, d] % 5 + 1
            if not could_be_valuable(g, pub, kn[to, d, F_CANT], avoid):
                avoid = -1
    for value in range(1, 6):
        if value == avoid:
            continue
        info = -1 if (bad_v >> (value - 1)) & 1 else (info_v >> (4 * value - 4)) & 15
        if info > best:
            best = info
            out[0] = M_VALUE
            out[1] = to
            out[2] = value
    return best


@inline
def helpful_hint(bot, me, kn, g, pub, hands, hl, out):
    """The best hint over the partners from the left, if it marks a playable card.

    The first best wins. True with the hint in ``out``; else False (``out`` is scratch then).
    """
    if g[G_HINTS] == 0:
        return False
    n = kn.shape[0]
    best = 0
    k0 = out[0]
    k1 = out[1]
    k2 = out[2]
    for off in range(1, n):
        info = best_hint_for(bot, kn, g, pub, hands, hl, (me + off) % n, out)
        if info > best:
            best = info
            k0 = out[0]
            k1 = out[1]
            k2 = out[2]
    out[0] = k0
    out[1] = k1
    out[2] = k2
    return best > 0


@inline
def warn(bot, me, kn, g, pub, hands, hl, out):
    """ValueBot and HolmesBot: warn the left partner of a valuable card about to go.

    With a hint that gives a play if there is one; True if ``out`` holds that hint.
    """
    if g[G_HINTS] == 0:
        return False
    left = (me + 1) % kn.shape[0]
    i = next_discard(kn, left, hl[left])
    if i == -1:
        return False
    card = hands[left, i]
    if not is_valuable(g, pub, card // 5, card % 5 + 1):
        return False
    if best_hint_for(bot, kn, g, pub, hands, hl, left, out) > 0:
        return True
    out[0] = M_VALUE
    out[1] = left
    out[2] = card % 5 + 1
    return True


@inline
def play_lowest(kn, me, length, out):
    """Play the card marked playable with the lowest known value (unknown counts as lowest)."""
    best = -1
    best_value = 6
    for i in range(length):
        if kn[me, i, F_PLAY] and kn[me, i, F_VAL] < best_value:
            best = i
            best_value = kn[me, i, F_VAL]
    if best == -1:
        return False
    out[0] = M_PLAY
    out[1] = best
    return True


@inline
def token_hint(me, hands, n, out):
    """With all 8 tokens: tell the right partner the value of its oldest card."""
    right = (me + n - 1) % n
    out[0] = M_VALUE
    out[1] = right
    out[2] = hands[right, 0] % 5 + 1


@inline
def discard_tail(kn, me, length, out):
    """ValueBot and HolmesBot: discard a worthless card, or the oldest not known valuable.

    Else the card with the highest known value.
    """
    out[0] = M_DISCARD
    for i in range(length):
        if kn[me, i, F_WORTH]:
            out[1] = i
            return
    for i in range(length):
        if not kn[me, i, F_VALU]:
            out[1] = i
            return
    best = 0
    for i in range(length):
        if kn[me, i, F_VAL] > kn[me, best, F_VAL]:
            best = i
    out[1] = best


@inline
def play_mystery(kn, g, me, length, out):
    """HolmesBot: with 1 card or none left to draw, play the newest card of unknown identity."""
    if g[G_DECK] > 1:
        return False
    for i in range(length - 1, -1, -1):
        if not kn[me, i, F_WORTH] and (kn[me, i, F_COL] == -1 or kn[me, i, F_VAL] == -1):
            out[0] = M_PLAY
            out[1] = i
            return True
    return False


@inline
def decide(bot, me, kn, g, pub, hands, hl, out):
    """The move of seat ``me`` (its partners' cards in ``hands``) into ``out``."""
    n = kn.shape[0]
    length = hl[me]
    if bot != SIMPLE and warn(bot, me, kn, g, pub, hands, hl, out):
        return
    if play_lowest(kn, me, length, out):
        return
    if helpful_hint(bot, me, kn, g, pub, hands, hl, out):
        return
    if bot == HOLMES and play_mystery(kn, g, me, length, out):
        return
    if g[G_HINTS] == 8:
        token_hint(me, hands, n, out)
    elif bot == SIMPLE:
        out[0] = M_DISCARD
        out[1] = 0
    else:
        discard_tail(kn, me, length, out)


# --- one seat of the policy: replaying its view's history, then deciding ---
@inline
def advance(g, hl, kind, actor, c, v):
    """Advance the table past a move (engine ``kind``; the card ``(c, v)`` of a play or discard).

    The rules of docs/rules.md §15: a play of the next card of its firework adds it (a 5
    gives a token back if one is missing), any other play costs a life, a discard gives a
    token, a hint costs one; the mover draws while the deck lasts.
    """
    if kind > E.DISCARD:
        g[G_HINTS] -= 1
        return
    if kind == E.PLAY and v == g[c] + 1:
        g[c] += 1
        if v == 5 and g[G_HINTS] < 8:
            g[G_HINTS] += 1
    elif kind == E.PLAY:
        g[G_LIVES] -= 1
    else:
        g[G_HINTS] += 1
    if g[G_DECK] > 0:
        g[G_DECK] -= 1
    else:
        hl[actor] -= 1


@njit(_nrt=False, error_model="numpy")
def replay_and_decide(bot, me, kn, g, pub, hl, scr, hands, view_cards, hist, start, stop, out):
    """Replay history rows ``start:stop`` as seat ``me`` saw them, then decide into ``out``.

    The compiled form of ``BotPolicy.act`` (docs/bots.md §2) with the hooks of ``bot``.

    Args:
        bot: :data:`SIMPLE`, :data:`VALUE` or :data:`HOLMES`.
        me: The seat.
        kn: ``(n, h, N_FIELDS)`` the seat's beliefs (:func:`new_game` at the deal), updated.
        g: ``(G_SIZE,)`` the seat's table, updated.
        pub: ``(5, 6)`` the seat's public counts, updated.
        hl: ``(n,)`` the seat's hand lengths, updated.
        scr: ``(SCR_SIZE,)`` scratch.
        hands: ``(n, h)`` scratch: the partners' cards, written.
        view_cards: ``(n, h)`` the view's card ids (own row unused).
        hist: The view's ``(max_moves, fields)`` move records (``hanabi_env.engine.H_*``).
        start: The first row to replay.
        stop: The row after the last to replay.
        out: ``(3,)`` int64, the decision, written.
    """
    for r in range(start, stop):
        if g[G_DECIDED]:  # this seat's own move: its before_move ran when it decided
            g[G_DECIDED] = 0
        elif bot == HOLMES:
            holmes_before_move(kn, g, pub, hl, scr)
        kind = hist[r, E.H_KIND]
        actor = hist[r, E.H_ACTOR]
        c = hist[r, E.H_COLOR]
        v = hist[r, E.H_RANK] + 1
        observe(bot, kn, g, pub, hl, actor, kind, hist[r, E.H_SLOT], hist[r, E.H_TARGET], c, v,
                hist[r, E.H_TOUCHED])  # fmt: skip
        advance(g, hl, kind, actor, c, v)
    n = kn.shape[0]
    for p in range(n):
        for i in range(hands.shape[1]):
            hands[p, i] = view_cards[p, i] if p != me and i < hl[p] else -1
    g[G_DECIDED] = 1
    if bot == HOLMES:
        holmes_before_move(kn, g, pub, hl, scr)
    decide(bot, me, kn, g, pub, hands, hl, out)
