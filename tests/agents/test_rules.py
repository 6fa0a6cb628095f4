"""Tests of the compiled rule alphabet (agents/rules/) and its registry (agents/rulebase.py).

Per rule class: a hand-built position where it fires with the exact expected move and one where
it must not fire; then the docs/rules.md §13 checklist items 1–10 on hand-built and random states.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from agents import rulebase as RB
from agents import rules as R
from agents.published import data_path
from agents.rules import knowledge as K
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.rng import new_rng, rng_below
from hanabi_env.view import fill_view, new_view

COLOURS = "RYGWB"
FIXTURE = data_path("rulebase.json")


# ---------------------------------------------------------------------------------------------
# Helpers: hand-built positions
# ---------------------------------------------------------------------------------------------


def cid(name: str) -> int:
    """Card id of e.g. ``"R1"`` (colour letter, value 1..5)."""
    return COLOURS.index(name[0]) * 5 + int(name[1]) - 1


def full_deck() -> list[int]:
    return [c * 5 + r for c in range(5) for r in range(5) for _ in range((3, 2, 2, 2, 1)[r])]


def make_state(hands, start=0, fireworks=None, discards=(), info=None, life=None, fixed=False):
    """A state dealt with ``hands`` (lists of card names) and the rest of the deck after them.

    ``fixed``: the Java framework's fixed-slot hand order (drawn cards take the vacated slot).
    """
    n = len(hands)
    h = 5 if n <= 3 else 4
    order = "fixed" if fixed else "shift"
    s = E.new_state(HanabiConfig(players=n, hand_size=h, scoring="lenient", hand_order=order))
    deck = full_deck()
    dealt = []
    for hand in hands:
        assert len(hand) == h
        for name in hand:
            deck.remove(cid(name))
            dealt.append(cid(name))
    E.reset_with_deck(s, np.array(dealt + deck, dtype=np.int32), start)
    if fireworks is not None:
        s.public.fireworks[:] = [fireworks.get(c, 0) for c in COLOURS]
    for name in discards:
        s.public.discards[cid(name)] += 1
    if info is not None:
        s.scal[E.S_INFO] = info
    if life is not None:
        s.scal[E.S_LIFE] = life
    return s


def know(s, p, k, colour=None, value=None):
    """Give player ``p`` knowledge of its slot ``k`` (sets the plausibility masks)."""
    if colour is not None:
        s.public.col_plaus[p, k] = 1 << COLOURS.index(colour)
    if value is not None:
        s.public.rank_plaus[p, k] = 1 << (value - 1)


def know_all(s, p):
    for k in range(s.public.hand_len[p]):
        card = s.deck[s.public.uids[p, k]]
        s.public.col_plaus[p, k] = 1 << (card // 5)
        s.public.rank_plaus[p, k] = 1 << (card % 5)


def view(s, seat=None):
    v = new_view(s)
    fill_view(s, s.scal[E.S_CUR] if seat is None else seat, v, False)
    return v


def run(rule_id, s, rng=None):
    """Apply ``rule_id`` for the seat to move of ``s``; check the move is legal when it fires."""
    rng = new_rng(12345) if rng is None else rng
    a = int(R.apply_rule(rule_id, view(s), rng))
    assert a == -1 or E.is_legal(s, a), (rule_id, a)
    return a


def me(s):
    return int(s.scal[E.S_CUR])


def play(s, slot):
    return int(E.encode_action(s.cfg, me(s), E.PLAY, slot, -1, -1))


def discard(s, slot):
    return int(E.encode_action(s.cfg, me(s), E.DISCARD, slot, -1, -1))


def tell_value(s, target, value):
    return int(E.encode_action(s.cfg, me(s), E.REVEAL_RANK, -1, target, value - 1))


def tell_colour(s, target, colour):
    return int(E.encode_action(s.cfg, me(s), E.REVEAL_COLOR, -1, target, COLOURS.index(colour)))


def do(s, action):
    assert E.is_legal(s, action)
    E.apply_move(s, action)


# Two neutral hands: no 1s, no 5s (nothing playable on empty fireworks).
P2 = ["R3", "Y4", "G3", "W4", "B2"]
P3 = ["Y3", "B4", "G2", "W3", "R4"]


# ---------------------------------------------------------------------------------------------
# §13.1 The registry
# ---------------------------------------------------------------------------------------------


def test_alphabet_has_105_entries_matching_the_fixture():
    assert len(RB.ALPHABET) == RB.N_ALPHABET == 105
    assert all(r.rule_id == i for i, r in enumerate(RB.ALPHABET))
    rows = json.loads(FIXTURE.read_text())
    assert [row["index"] for row in rows] == list(range(105))
    for row in rows:
        info = RB.ALPHABET[row["index"]]
        assert info.label == row["name"]
        if row["index"] == 50:  # the fixture spells out PlayJustHinted's defaults
            assert info.name == "PlayJustHinted"
        else:
            assert info.name == row["catalogue_name"]
        assert RB.index_of(row["name"]) == row["index"]
        assert RB.index_of(row["catalogue_name"]) == row["index"]


def test_label_normalisation_is_one_to_one():
    keys = {RB.normalize_label(r.label) for r in RB.ALPHABET}
    assert len(keys) == 105
    assert RB.index_of("TellUnambiguous3(10)") == 72
    assert RB.index_of("TellUnambiguous3(10-1)") == 76
    assert RB.index_of("TellUnambiguous3(1-10)") == 77
    assert RB.index_of("TellUnambiguous3(1, -10)") == 77
    assert RB.index_of(" PlayJustHinted( true,false 2 0.6 )") == 56
    assert RB.chromosome_from_labels(["PlaySafeCard()", "OsawaDiscard"]) == (8, 38)
    with pytest.raises(KeyError):
        RB.index_of("NoSuchRule()")


def test_extra_rules_are_named_but_never_genes():
    extra = (RB.RULE_X1, RB.RULE_X2, RB.RULE_X3, RB.RULE_X4, RB.RULE_X5, RB.RULE_X6)
    assert extra == tuple(range(105, 111))
    assert RB.N_RULE_IDS == 111
    assert [RB.EXTRA_RULES[f"X{i}"].rule_id for i in range(1, 7)] == list(extra)
    assert RB.EXTRA_RULES["X1"].name == "IF(L>1) PlayProbablySafeCard(0.6) ELSE PlaySafeCard"
    assert RB.EXTRA_RULES["X2"].name == "DiscardProbablyUselessCard(0.99)"
    for info in RB.EXTRA_RULES.values():
        assert not RB.is_gene(info.rule_id)
        with pytest.raises(KeyError):
            RB.index_of(info.name)
        assert RB.name_of(info.rule_id) == info.name
    assert RB.is_gene(0)
    assert RB.is_gene(104)
    assert not RB.is_gene(-1)


def test_baselines_match_rules_md_section_4():
    assert RB.BASELINES["IGGI"] == (2, 8, 13, 38, 27, 39)
    assert RB.BASELINES["Internal"] == (8, 38, 20, 22, 34)
    assert RB.BASELINES["Outer"] == (8, 38, 21, 23, 34)
    assert RB.BASELINES["LegalRandom"] == (39,)
    assert RB.BASELINES["VanDenBergh"] == (105, 106, 13, 14, 19, 29)
    assert RB.BASELINES["Flawed"] == (8, 49, 22, 38, 27, 34)
    assert RB.BASELINES["Piers"] == (8, 46, 13, 48, 38, 27, 22, 34)
    assert RB.BASELINES["Cautious"] == (2, 8, 13, 38, 34)
    pool = "IGGI Internal Outer LegalRandom VanDenBergh Flawed Piers"
    assert pool.split() == list(RB.TEST_POOL)


def test_compiled_kinds_match_the_registry():
    codes = {
        "play": R.KIND_PLAY,
        "tell": R.KIND_TELL,
        "discard": R.KIND_DISCARD,
        "other": R.KIND_OTHER,
    }
    for rule_id in range(RB.N_RULE_IDS):
        assert R.rule_kind(rule_id) == codes[RB.rule_info(rule_id).kind]
    assert R.rule_kind(RB.N_RULE_IDS) == -1
    assert R.rule_kind(-1) == -1
    s = make_state([P2, P3])
    assert run(RB.N_RULE_IDS, s) == -1
    assert run(-5, s) == -1


def _with_gap(s, p):
    """Empty the deck and close a gap in ``p``'s hand (``p`` played its last card)."""
    s.scal[E.S_DECK_POS] = s.cfg[E.CFG_N_CARDS]
    s.public.hand_len[p] -= 1
    return s


def raw(rule_id, s):
    """Like :func:`run`, but a Java-exception rule may return RULE_RAISED."""
    a = int(R.apply_rule(rule_id, view(s), new_rng(12345)))
    assert a in (-1, R.RULE_RAISED) or E.is_legal(s, a), (rule_id, a)
    return a


def test_java_tell_dispensable_raises_when_its_scan_reaches_a_gap():
    hands = [P2, ["R1", "Y3", "B4", "R2", "W3"], ["G3", "Y4", "W2", "B2", "G2"]]
    fw = dict.fromkeys(COLOURS, 1)  # every 1 is dispensable (value below the lowest height)
    s = make_state(hands, fireworks=fw)
    assert raw(RB.RULE_X4, s) == run(15, s) == tell_value(s, 1, 1)  # no gap: rule 15
    # a gap in seat 2: the scan fires at seat 1 first
    assert raw(RB.RULE_X4, _with_gap(make_state(hands, fireworks=fw), 2)) == tell_value(s, 1, 1)
    # a gap in seat 1, reached first: the Java code read the empty slot's card and raised
    s = _with_gap(make_state(hands, fireworks=fw), 1)
    assert raw(RB.RULE_X4, s) == R.RULE_RAISED
    assert run(15, s) == tell_value(s, 1, 1)  # our rule 15 is unaffected
    # IF(I<4) X4 (Piers' rule 48): gated like 48
    assert raw(RB.RULE_X5, s) == run(48, s) == -1  # T = 8
    s.scal[E.S_INFO] = 3
    assert raw(RB.RULE_X5, s) == R.RULE_RAISED
    s.scal[E.S_INFO] = 0
    assert raw(RB.RULE_X4, s) == raw(RB.RULE_X5, s) == -1  # tell rules never fire at T = 0
    # our own shorter hand is no gap of another player
    s = _with_gap(make_state(hands, fireworks=fw), 0)
    assert raw(RB.RULE_X4, s) == tell_value(s, 1, 1)


def test_java_tell_most_information_raises_at_any_gap():
    hands = [P2, ["R1", "Y1", "G1", "W4", "B3"], ["Y1", "B1", "W1", "R3", "G4"]]
    s = make_state(hands)
    assert raw(RB.RULE_X6, s) == run(19, s) == tell_value(s, 1, 1)
    for p in (1, 2):
        s = _with_gap(make_state(hands), p)
        assert raw(RB.RULE_X6, s) == R.RULE_RAISED
        assert run(19, s) >= 0
        s.scal[E.S_INFO] = 0
        assert raw(RB.RULE_X6, s) == -1


def test_a_raise_ends_the_rule_scan():
    hands = [P2, ["R1", "Y1", "G1", "W4", "B3"], ["Y1", "B1", "W1", "R3", "G4"]]
    s = _with_gap(make_state(hands), 2)
    v = view(s)
    mask = np.zeros(s.cfg[E.CFG_N_ACTIONS], dtype=np.int8)
    rules = np.array([RB.RULE_X6, 19], dtype=np.int64)
    # strict era: the scan stops with the raise (the game ends)
    assert R.first_firing(rules, 2, v, new_rng(1)) == R.RULE_RAISED
    assert R.first_firing(rules[1:], 1, v, new_rng(1)) == run(19, s)
    # otherwise the fallback move, as the reference took after 2020-11-16; not the next rule
    rng = new_rng(1)
    fallback = R.choose_action(rules, 0, v, new_rng(1), mask)
    assert R.choose_action(rules, 2, v, rng, mask) == fallback
    assert not np.array_equal(rng, new_rng(1))  # one fallback draw


# ---------------------------------------------------------------------------------------------
# Play rules (docs/rules.md §3.1)
# ---------------------------------------------------------------------------------------------


def test_play_finesse():
    # 3p: seat 1 hints seat 0 "2" (R2 = height + 2); seat 2 plays its newest card.
    s = make_state([["R2", "Y3", "G4", "W4", "B3"], P2, P3], start=1)
    do(s, tell_value(s, 0, 2))
    assert run(0, s) == play(s, 4)
    s = make_state([["R1", "Y3", "G4", "W4", "B3"], P2, P3], start=1)
    do(s, tell_value(s, 0, 1))  # R1 = height + 1: no finesse
    assert run(0, s) == -1


def test_play_finesse_told():
    s = make_state([P2, ["R3", "Y3", "G4", "W4", "B2"], ["Y2", "B4", "G5", "W3", "R4"]])
    do(s, tell_value(s, 2, 5))  # touches exactly one card of seat 2 (slot 2)
    do(s, play(s, 0))
    assert run(1, s) == play(s, 2)
    s = make_state([P2, ["R3", "Y3", "G4", "W4", "B2"], ["Y2", "B4", "G5", "W3", "R4"]])
    do(s, tell_value(s, 2, 5))
    do(s, discard(s, 0))  # the move after the hint is not a play
    assert run(1, s) == -1


def test_play_if_certain():
    s = make_state([P2, P3])
    know(s, 0, 2, "R", 1)
    assert run(2, s) == play(s, 2)
    s = make_state([P2, P3])
    know(s, 0, 2, "R")  # colour only
    assert run(2, s) == -1


def test_play_safe_card_uses_card_counting():
    s = make_state([P2, P3])
    know(s, 0, 3, value=1)  # every 1 is playable on empty fireworks
    assert run(8, s) == play(s, 3)
    assert run(2, s) == -1  # PlayIfCertain needs the colour
    s = make_state([P2, P3], fireworks={"R": 1})
    know(s, 0, 3, value=1)
    assert run(8, s) == -1


def _p06_state(**kw):
    """Slots 1 and 3 (if ``both``) known 1s with P(playable) = 6/10 exactly."""
    both = kw.pop("both", False)
    s = make_state([P2, P3], fireworks={"R": 1, "Y": 1}, discards=["B1"] * 3, **kw)
    know(s, 0, 1, value=1)  # unseen 1s: R1 2, Y1 2, G1 3, W1 3 -> P = 6/10
    if both:
        know(s, 0, 3, value=1)
    return s


def test_play_probably_safe_threshold_is_exact():
    s = _p06_state()
    assert R.own_probability(view(s), 1, R.CLS_PLAYABLE) == pytest.approx(0.6)
    assert run(6, s) == play(s, 1)  # 0.6 passes ">= 0.6"
    assert run(7, s) == -1  # 0.8
    assert run(3, s) == play(s, 1)  # 0.0: the highest P
    s = _p06_state(both=True)
    assert run(49, s) == play(s, 3)  # ties -> highest slot (newest)


def test_if_lives_and_hail_mary_predicates():
    s = _p06_state(life=2)
    assert run(46, s) == play(s, 1)
    s = _p06_state(life=1)
    assert run(46, s) == -1
    assert run(43, s) == -1
    s = _p06_state(life=2)
    assert run(41, s) == -1  # the deck is not empty
    s.scal[E.S_DECK_POS] = s.cfg[E.CFG_N_CARDS]
    assert [run(41, s), run(42, s)] == [play(s, 1)] * 2
    s.scal[E.S_LIFE] = 1
    assert [run(41, s), run(42, s)] == [-1, -1]


def test_play_unique_possible_card_colour_hint_and_card_identity():
    s = make_state([P2, ["Y3", "B4", "R3", "W3", "G4"]])
    do(s, tell_colour(s, 1, "R"))  # singles out R3 (slot 2); height(R) = 0 and R1 is unseen
    assert run(9, s) == play(s, 2)
    do(s, discard(s, 2))  # the hinted card leaves the hand
    do(s, tell_value(s, 1, 3))  # touches two cards
    assert run(9, s) == -1


def test_play_unique_possible_card_value_hint():
    s = make_state([P2, ["Y3", "B4", "R1", "W3", "G4"]])
    do(s, tell_value(s, 1, 1))
    assert run(9, s) == play(s, 2)
    s = make_state([P2, ["Y3", "B4", "R2", "W3", "G4"]])
    do(s, tell_value(s, 1, 2))  # no colour is at height 1
    assert run(9, s) == -1


JUST_HINTED = range(50, 67)
NEWEST_ONLY = {51, 53, 55, 57, 59, 61, 63, 65}


def test_play_just_hinted_certain_card_all_variants():
    s = make_state([P2, ["Y3", "B4", "G2", "W3", "R1"]])
    do(s, tell_value(s, 1, 1))  # singles out the newest card, P(playable) = 1
    for rule_id in JUST_HINTED:
        assert run(rule_id, s) == play(s, 4), rule_id
    s = make_state([P2, ["Y3", "B4", "R1", "W3", "G2"]])
    do(s, tell_value(s, 1, 1))  # the card is not the newest
    for rule_id in JUST_HINTED:
        expected = -1 if rule_id in NEWEST_ONLY else play(s, 2)
        assert run(rule_id, s) == expected, rule_id


def test_play_just_hinted_thresholds_lives_and_history():
    s = make_state([P2, ["Y3", "B4", "G2", "W3", "R1"]])
    do(s, tell_colour(s, 1, "R"))  # P(playable) = R1 / all R < 0.6
    assert run(50, s) == play(s, 4)
    assert run(51, s) == play(s, 4)  # threshold 0 and L = 3 > 2
    assert run(55, s) == -1  # threshold 0.6
    s.scal[E.S_LIFE] = 2
    assert run(51, s) == -1
    s = make_state([P2, ["Y3", "B4", "G2", "W3", "R1"]])
    do(s, tell_value(s, 1, 1))
    do(s, discard(s, 0))
    do(s, play(s, 0))  # a move by the partner that is not a hint to me
    assert run(50, s) == -1


# ---------------------------------------------------------------------------------------------
# Tell rules (docs/rules.md §3.2)
# ---------------------------------------------------------------------------------------------


def test_tell_anyone_about_useful_card_and_oldest():
    s = make_state([P2, P3, ["Y3", "G1", "B4", "R1", "W3"]])
    assert run(13, s) == tell_value(s, 2, 1)  # G1 (slot 1), value first
    assert run(12, s) == tell_colour(s, 2, "G")  # same card, colour first
    know(s, 2, 1, "G", 1)
    assert run(13, s) == tell_value(s, 2, 1)  # now R1 (slot 3)
    assert run(12, s) == tell_colour(s, 2, "R")
    know(s, 2, 3, "R", 1)
    assert run(13, s) == -1
    assert run(12, s) == -1
    s = make_state([P2, P3, ["Y3", "G1", "B4", "R1", "W3"]], info=0)
    assert run(13, s) == -1
    assert run(12, s) == -1


def test_complete_tell_useful_card():
    s = make_state([P2, ["Y3", "B4", "R1", "W3", "G4"]])
    assert run(10, s) == -1  # nothing partly known
    know(s, 1, 2, "R")
    assert run(10, s) == tell_value(s, 1, 1)


def test_tell_playable_card_draws_once():
    s = make_state([P2, ["Y3", "G1", "B4", "R1", "W3"]])
    rng = new_rng(7)
    expected_rng = rng.copy()
    k = rng_below(expected_rng, 2)
    a = run(20, s, rng)
    assert a == (tell_value(s, 1, 1) if k == 0 else tell_colour(s, 1, "G"))
    np.testing.assert_array_equal(rng, expected_rng)
    s = make_state([P2, P3])  # no playable card: no draw
    rng = new_rng(7)
    assert run(20, s, rng) == -1
    np.testing.assert_array_equal(rng, new_rng(7))


def test_tell_playable_card_outer_skips_fully_known():
    s = make_state([P2, ["R1", "Y3", "B4", "G1", "W3"]])
    know(s, 1, 0, "R", 1)
    know(s, 1, 3, value=1)
    assert run(21, s) == tell_colour(s, 1, "G")
    know(s, 1, 3, "G")
    assert run(21, s) == -1


def test_tell_about_ones_includes_unplayable_ones():
    s = make_state([P2, ["Y3", "R1", "B4", "G2", "W3"]], fireworks={"R": 1})
    assert run(11, s) == tell_value(s, 1, 1)
    assert run(11, make_state([P2, P3])) == -1


def test_tell_fives():
    s = make_state([P2, P3, ["Y3", "G2", "B5", "R4", "W3"]])
    assert run(17, s) == tell_value(s, 2, 5)
    know(s, 2, 2, value=5)
    assert run(17, s) == -1


def test_tell_unknown_colour_first():
    s = make_state([P2, ["Y3", "B4", "G2", "W3", "R4"]])
    know(s, 1, 0, "Y", 3)
    know(s, 1, 1, value=4)
    assert run(23, s) == tell_colour(s, 1, "B")
    know_all(s, 1)
    assert run(23, s) == -1


def test_tell_randomly_draws_once():
    s = make_state([P2, P3])
    rng = new_rng(3)
    expected_rng = rng.copy()
    k = rng_below(expected_rng, 10)
    card = P3[k // 2]
    expected = tell_value(s, 1, int(card[1])) if k % 2 == 0 else tell_colour(s, 1, card[0])
    assert run(22, s, rng) == expected
    np.testing.assert_array_equal(rng, expected_rng)
    s.scal[E.S_INFO] = 0
    rng = new_rng(3)
    assert run(22, s, rng) == -1
    np.testing.assert_array_equal(rng, new_rng(3))


def test_tell_most_information_absolute_order_first_wins_ties():
    s = make_state([["R1", "Y1", "G1", "W4", "B3"], P2, ["Y1", "B1", "W1", "R3", "G4"]], start=1)
    assert run(19, s) == tell_value(s, 0, 1)  # 3 cards each; seat 0 comes first
    s = make_state([P2, P3, ["Y1", "B1", "W1", "R3", "G4"]], start=1)
    assert run(19, s) == tell_value(s, 2, 1)
    s.scal[E.S_INFO] = 0
    assert run(19, s) == -1


def test_tell_anyone_about_useless_card_skips_fully_known():
    s = make_state([P2, ["R1", "Y3", "B4", "R2", "W3"]], fireworks={"R": 2})
    assert run(14, s) == run(RB.RULE_X3, s) == tell_value(s, 1, 1)  # R1 (slot 0)
    know(s, 1, 0, "R", 1)
    assert run(14, s) == tell_value(s, 1, 2)  # R2 (slot 3), not the fully known R1
    # X3, the Java reference's scan, stops at the fully known R1 and does not fire
    assert run(RB.RULE_X3, s) == -1
    know(s, 1, 3, "R", 2)
    assert run(14, s) == -1


@pytest.mark.parametrize(
    ("fireworks", "hand", "knowledge", "expected"),
    [
        ({"B": 5}, ["Y3", "B3", "G2", "W3", "R4"], None, ("colour", "B")),  # (i)
        (dict.fromkeys(COLOURS, 1), ["Y3", "W1", "G2", "W3", "R4"], None, ("value", 1)),  # (ii)
        ({"G": 3}, ["Y3", "B4", "G2", "W3", "R4"], (2, "G", None), ("value", 2)),  # (iii)
        ({"G": 3}, ["Y3", "B4", "G2", "W3", "R4"], None, None),
    ],
)
def test_tell_dispensable(fireworks, hand, knowledge, expected):
    s = make_state([P2, hand], fireworks=fireworks)
    if knowledge:
        know(s, 1, knowledge[0], knowledge[1], knowledge[2])
    if expected is None:
        assert run(15, s) == -1
    elif expected[0] == "colour":
        assert run(15, s) == tell_colour(s, 1, expected[1])
    else:
        assert run(15, s) == tell_value(s, 1, expected[1])


def test_if_information_less_than_4_tell_dispensable():
    s = make_state([P2, ["Y3", "B3", "G2", "W3", "R4"]], fireworks={"B": 5}, info=3)
    assert run(48, s) == tell_colour(s, 1, "B")
    s.scal[E.S_INFO] = 4
    assert run(48, s) == -1


def test_tell_ill_informed():
    hand = ["B4", "R1", "G3", "R2", "W4"]
    s = make_state([P2, hand], fireworks={"R": 1})
    assert run(18, s) == tell_value(s, 1, 2)  # T = T_max: only the playable R2 is usable
    s.scal[E.S_INFO] = 5
    assert run(18, s) == tell_value(s, 1, 1)  # R1 is useless and discarding is allowed
    know_all(s, 1)
    assert run(18, s) == -1


def test_tell_finesse():
    finesse_hand = ["Y3", "R2", "B4", "G4", "W3"]
    s = make_state([P2, ["Y3", "B4", "G2", "W3", "R1"], finesse_hand])
    assert run(16, s) == tell_value(s, 2, 2)  # step (2): the value is unique
    know(s, 2, 1, value=2)
    assert run(16, s) == tell_colour(s, 2, "R")  # step (1): f knows the value
    s = make_state([P2, ["Y3", "B4", "G2", "R1", "W3"], finesse_hand])
    assert run(16, s) == -1  # the next player's newest card is not playable


WORKED = ["R1", "G1", "W1", "Y3", "B4"]


def test_tell_unambiguous3_worked_example():
    s = make_state([P2, WORKED], fireworks={"G": 1})
    for rule_id in (72, 74, 76, 67):
        assert run(rule_id, s) == tell_value(s, 1, 1), rule_id
    for rule_id in (73, 75, 77, 68):
        assert run(rule_id, s) == tell_colour(s, 1, "R"), rule_id


def test_tell_unambiguous_no_candidate():
    s = make_state([P2, P3])
    for rule_id in (67, 68, *range(69, 78)):
        assert run(rule_id, s) == -1
    s = make_state([P2, WORKED], fireworks={"G": 1})
    know(s, 1, 0, "R", 1)
    know(s, 1, 2, "W", 1)  # every playable card fully known
    for rule_id in (67, 68, *range(72, 78)):
        assert run(rule_id, s) == -1


def test_tell_unambiguous2():
    s = make_state([P2, ["R1", "Y3", "B4", "G2", "W3"]])
    for rule_id in (69, 70, 71):
        assert run(rule_id, s) == tell_value(s, 1, 1), rule_id
    s.scal[E.S_INFO] = 0
    assert run(69, s) == -1


def test_tell_at_least_n_useless():
    s = make_state([P2, ["R1", "Y1", "B4", "G3", "W2"]], fireworks=dict.fromkeys(COLOURS, 1))
    assert run(78, s) == tell_value(s, 1, 1)  # two slots become surely useless
    assert run(79, s) == tell_value(s, 1, 1)
    assert run(80, s) == -1
    s = make_state([P2, ["R1", "Y1", "G1", "W1", "B1"]], fireworks=dict.fromkeys(COLOURS, 1))
    assert run(82, s) == tell_value(s, 1, 1)  # N = 5
    know(s, 1, 0, value=1)  # the target already has a surely useless slot: skipped
    assert run(78, s) == -1


def test_tell_high_probability_mistake():
    # P_{me->1}(playable | known 1) = 12/14 for the unplayable G1 (G at 1); 2/7 for unknown slots.
    s = make_state([P2, ["G1", "R3", "Y4", "B2", "W3"]], fireworks={"G": 1})
    know(s, 1, 0, value=1)
    assert run(91, s) == tell_colour(s, 1, "G")  # (true, 0.8)
    assert run(83, s) == tell_colour(s, 1, "G")  # (true, 0): the highest P
    assert run(92, s) == -1  # (true, 0.9)
    s.public.discards[cid("G1")] = 1  # now 12/13
    assert run(92, s) == tell_colour(s, 1, "G")
    s = make_state([P2, ["R1", "Y3", "B4", "G3", "W4"]], fireworks={"G": 1})
    assert run(96, s) == -1  # (false, 0.2): P = 2/7 > 0.2
    assert run(97, s) == tell_value(s, 1, 1)  # (false, 0.3)


def test_tell_high_probability_mistake_stops_on_fully_known_card():
    s = make_state([P2, ["G1", "R3", "Y4", "B2", "W3"], P3], fireworks={"G": 1})
    know_all(s, 1)  # every card of seat 1 is fully known and unplayable: P = 0
    assert run(83, s) == -1  # chosen card fully known: no search of seat 2


# ---------------------------------------------------------------------------------------------
# Discard rules (docs/rules.md §3.3)
# ---------------------------------------------------------------------------------------------


def test_discard_safe_card_and_gating():
    s = make_state([P2, P3], fireworks=dict.fromkeys(COLOURS, 1), info=5)
    assert run(35, s) == -1
    know(s, 0, 2, value=1)  # value <= minHeight
    assert [run(35, s), run(38, s)] == [discard(s, 2)] * 2
    s.scal[E.S_INFO] = 8
    assert [run(35, s), run(38, s)] == [-1, -1]


def test_discard_useless_card():
    # height(B) = 1 and both B3 discarded: maxReachable(B) = 2.
    s = make_state([P2, P3], fireworks={"B": 1}, discards=["B3", "B3"], info=5)
    know(s, 0, 1, "B")
    assert run(37, s) == -1  # B2 is still a candidate
    s.public.rank_plaus[0, 1] = 0b11100  # not 1, not 2: the least candidate is B4
    assert run(37, s) == discard(s, 1)
    assert run(38, s) == discard(s, 1)  # OsawaDiscard falls through to DiscardUselessCard
    s = make_state([P2, P3], fireworks={"B": 1}, discards=["B3", "B3"], info=5)
    know(s, 0, 3, "B", 5)
    assert run(37, s) == discard(s, 3)


def test_discard_if_certain():
    s = make_state([P2, P3], fireworks={"R": 1}, info=5)
    know(s, 0, 1, "R", 2)
    assert run(25, s) == -1
    know(s, 0, 3, "R", 1)
    assert run(25, s) == discard(s, 3)


def test_discard_highest():
    s = make_state([P2, P3], info=5)
    assert run(24, s) == -1
    know(s, 0, 0, value=2)
    know(s, 0, 2, value=4)
    know(s, 0, 3, value=4)
    assert run(24, s) == discard(s, 2)  # ties -> lowest slot


def test_fixed_slot_hand_order_refills_the_vacated_slot():
    # the Java framework's hand order (docs/rules.md §12): the drawn card takes the vacated slot
    # with fresh knowledge; the other slots and their knowledge stay; ages are uids
    for fixed in (False, True):
        s = make_state([P2, P3], info=5, fixed=fixed)
        know(s, 0, 1, value=4)
        do(s, discard(s, 0))  # seat 0 discards R3; the next card of the deck is uid 10
        expect = [10, 1, 2, 3, 4] if fixed else [1, 2, 3, 4, 10]
        assert s.public.uids[0].tolist() == expect
        new = expect.index(10)
        assert s.public.col_plaus[0, new] == 31
        assert s.public.rank_plaus[0, new] == 31
        assert s.public.rank_plaus[0, expect.index(1)] == 1 << 3  # the hint stays with its card
        do(s, tell_value(s, 0, 4))
        # DiscardOldestFirst discards the oldest card (smallest uid), wherever it sits
        assert run(27, s) == discard(s, expect.index(1))
    # once the deck is empty the hand shifts (Java left an empty slot: same card order)
    s = make_state([P2, P3], info=5, fixed=True)
    s.scal[E.S_DECK_POS] = 50
    s.scal[E.S_TURNS_LEFT] = 2
    do(s, discard(s, 1))
    assert s.public.uids[0].tolist() == [0, 2, 3, 4, -1]
    assert s.public.hand_len[0] == 4


def test_oldest_useful_card_under_the_fixed_slot_order():
    # seat 2 plays G1 and draws R1 into slot 1: its playable cards are R1 (slot 1, newest)
    # and Y1 (slot 3, older). 12 tells the oldest (Y1), 13 the first in slot order (R1).
    hands = [P2, ["Y3", "B4", "W2", "W3", "R4"], ["Y3", "G1", "B4", "Y1", "W3"]]
    s = make_state(hands, start=2, fixed=True)
    do(s, play(s, 1))
    assert s.deck[s.public.uids[2, 1]] == cid("R1")
    know(s, 2, 1, value=1)  # R1's value is known: 13 tells its colour
    assert run(13, s) == tell_colour(s, 2, "R")
    assert run(12, s) == tell_colour(s, 2, "Y")
    s = make_state(hands, start=2)  # shift order: Y1 is both the first and the oldest
    do(s, play(s, 1))
    know(s, 2, 4, value=1)
    assert run(13, s) == tell_value(s, 2, 1)
    assert run(12, s) == tell_colour(s, 2, "Y")


def test_discard_oldest_and_no_info():
    s = make_state([P2, P3], info=5)
    know(s, 0, 0, "R")
    know(s, 0, 1, value=3)
    assert run(27, s) == discard(s, 0)
    assert run(28, s) == run(36, s) == discard(s, 2)
    for k in range(5):
        know(s, 0, k, "R")
    assert run(28, s) == run(36, s) == -1
    s.scal[E.S_INFO] = 8
    assert run(27, s) == -1


def test_discard_probably_useless_card():
    s = make_state([P2, P3], fireworks=dict.fromkeys(COLOURS, 1), info=5)
    assert run(33, s) == -1  # 0.8
    assert run(29, s) == discard(s, 4)  # 0.0: all equal, ties -> highest slot
    know(s, 0, 1, value=1)
    know(s, 0, 3, value=1)
    assert run(33, s) == discard(s, 3)
    assert run(106, s) == discard(s, 3)  # X2 = DiscardProbablyUselessCard(0.99)


def test_discard_least_likely_to_be_necessary():
    s = make_state([P2, P3], info=5)
    know(s, 0, 4, value=5)  # a 5 is always necessary
    assert run(26, s) == discard(s, 3)  # the others tie -> highest slot
    s.scal[E.S_INFO] = 8
    assert run(26, s) == -1


def test_discard_randomly_draws_once():
    s = make_state([P2, P3], info=5)
    rng = new_rng(11)
    expected_rng = rng.copy()
    assert run(34, s, rng) == discard(s, rng_below(expected_rng, 5))
    np.testing.assert_array_equal(rng, expected_rng)
    s.scal[E.S_INFO] = 8
    rng = new_rng(11)
    assert run(34, s, rng) == -1
    np.testing.assert_array_equal(rng, new_rng(11))


# ---------------------------------------------------------------------------------------------
# Other rules (docs/rules.md §3.4, §4)
# ---------------------------------------------------------------------------------------------


def _legal_list(s):
    mask = np.zeros(s.cfg[E.CFG_N_ACTIONS], dtype=np.int8)
    E.legal_mask(s, mask)
    return np.flatnonzero(mask)


@pytest.mark.parametrize("info", [0, 4, 8])
def test_legal_random(info):
    s = make_state([P2, P3], info=info)
    rng = new_rng(5)
    expected_rng = rng.copy()
    legal = _legal_list(s)
    assert run(39, s, rng) == legal[rng_below(expected_rng, len(legal))]
    np.testing.assert_array_equal(rng, expected_rng)


def test_try_to_unblock():
    s = make_state([P2, P3], fireworks=dict.fromkeys(COLOURS, 1), info=0)
    assert run(40, s) == -1  # no unblocking move of mine
    know(s, 0, 1, value=1)
    assert run(40, s) == discard(s, 1)  # seat 1 is blocked
    know(s, 1, 2, value=1)
    assert run(40, s) == -1  # seat 1 can unblock itself
    s = make_state([P2, P3], fireworks={"B": 4}, info=0)
    know(s, 0, 3, "B", 5)
    assert run(40, s) == play(s, 3)
    s.scal[E.S_INFO] = 1
    assert run(40, s) == -1


def test_x1_if_lives_else_play_safe_card():
    s = _p06_state(life=2)
    assert run(105, s) == play(s, 1)  # PlayProbablySafeCard(0.6)
    s = _p06_state(life=1)
    assert run(105, s) == -1  # PlaySafeCard: P = 0.6 < 1
    know(s, 0, 4, "G", 1)
    assert run(105, s) == play(s, 4)


def test_choose_action_first_firing_rule_then_fallback():
    s = make_state([P2, P3])
    know(s, 0, 3, value=1)
    v = view(s)
    mask = np.zeros(s.cfg[E.CFG_N_ACTIONS], dtype=np.int8)
    rng = new_rng(1)
    rules = np.array([27, 2, 8, 39], dtype=np.int64)  # 27 gated at T_max, 2 does not fire
    assert R.choose_action(rules, 4, v, rng, mask) == play(s, 3)
    np.testing.assert_array_equal(rng, new_rng(1))
    rules = np.array([27, 35, 0], dtype=np.int64)  # nothing fires: fallback, one draw
    expected_rng = rng.copy()
    legal = _legal_list(s)
    assert R.choose_action(rules, 3, v, rng, mask) == legal[rng_below(expected_rng, len(legal))]
    np.testing.assert_array_equal(rng, expected_rng)
    assert R.choose_action(rules, 0, v, new_rng(1), mask) in legal


# ---------------------------------------------------------------------------------------------
# Random states for the §13 checklist
# ---------------------------------------------------------------------------------------------

N_GAMES = 3


def _collect_states():
    """States of N = 2..5 games (Piers mixed with random legal moves), end-games included."""
    out = []
    piers = np.array(RB.PIERS, dtype=np.int64)
    for n in (2, 3, 4, 5):
        s = E.new_state(HanabiConfig(players=n, hand_size=5 if n <= 3 else 4, scoring="lenient"))
        v = new_view(s)
        mask = np.zeros(s.cfg[E.CFG_N_ACTIONS], dtype=np.int8)
        for g in range(N_GAMES):
            E.reset_state(s, 1000 * n + g, False)
            rngs = [new_rng(10 * g + p) for p in range(n)]
            noise = new_rng(77 + g)
            while not s.scal[E.S_DONE]:
                out.append(E.copy_state(s))
                cur = s.scal[E.S_CUR]
                fill_view(s, cur, v, False)
                a = R.choose_action(piers, len(piers), v, rngs[cur], mask)
                if rng_below(noise, 5) == 0:
                    legal = _legal_list(s)
                    a = legal[rng_below(noise, len(legal))]
                    if s.cfg[E.CFG_HAND] <= a < 2 * s.cfg[E.CFG_HAND]:
                        a = legal[rng_below(noise, len(legal))]  # fewer blind plays
                E.apply_move(s, a)
    return out


@pytest.fixture(scope="module")
def states():
    out = _collect_states()
    assert any(s.scal[E.S_DECK_POS] == s.cfg[E.CFG_N_CARDS] for s in out)
    assert any(s.public.hand_len.min() < s.cfg[E.CFG_HAND] for s in out)  # shortened end-game hands
    return out


@pytest.fixture(scope="module")
def results(states):
    """``(state index, rule_id) -> (action, rng after)``; the rng starts as ``new_rng(index)``."""
    out = {}
    for i, s in enumerate(states):
        v = view(s)
        for rule_id in range(RB.N_RULE_IDS):
            rng = new_rng(i)
            a = int(R.apply_rule(rule_id, v, rng))
            out[i, rule_id] = (a, rng)
    return out


def test_every_rule_is_legal_or_silent_on_random_states(states, results):
    raising = {RB.RULE_X4, RB.RULE_X5, RB.RULE_X6}
    raised = 0
    for i, s in enumerate(states):
        for rule_id in range(RB.N_RULE_IDS):
            a = results[i, rule_id][0]
            if a == R.RULE_RAISED:  # only the Java-exception rules, only at a gap
                me = s.scal[E.S_CUR]
                others = np.delete(s.public.hand_len[: s.cfg[E.CFG_PLAYERS]], me)
                assert rule_id in raising, (i, rule_id)
                assert s.scal[E.S_DECK_POS] == s.cfg[E.CFG_N_CARDS]
                assert others.min() < s.cfg[E.CFG_HAND]
                raised += 1
                continue
            assert a == -1 or E.is_legal(s, a), (i, rule_id, a)
    assert raised > 0
    fired = {r for (_, r), (a, _) in results.items() if a >= 0}
    assert fired >= set(range(RB.N_RULE_IDS)) - {0, 1, 16, 82, 92, 93, 94}


def test_legal_mask_view_matches_the_engine(states):
    for s in states[::5]:
        ours = np.zeros(s.cfg[E.CFG_N_ACTIONS], dtype=np.int8)
        theirs = np.zeros_like(ours)
        n = R.legal_mask_view(view(s), ours)
        E.legal_mask(s, theirs)
        np.testing.assert_array_equal(ours, theirs)
        assert n == theirs.sum()


def test_card_table_is_the_unseen_pool_and_card_classes(states):
    for s in states[::7]:
        v = view(s)
        tab = R.new_card_table(v)
        unseen = np.zeros(25, dtype=np.int64)  # U_me = draw pile + my own hand (docs/rules.md §2.4)
        for uid in range(s.scal[E.S_DECK_POS], s.cfg[E.CFG_N_CARDS]):
            unseen[s.deck[uid]] += 1
        for k in range(s.public.hand_len[me(s)]):
            unseen[s.deck[s.public.uids[me(s), k]]] += 1
        np.testing.assert_array_equal(tab[R.TAB_COUNT, :25], unseen)
        for card in range(25):
            cls = tab[R.TAB_CLASS, card]
            assert bool(cls & R.CLS_PLAYABLE) == R.is_playable(v, card)
            assert bool(cls & R.CLS_USELESS) == R.is_useless(v, card)
            assert bool(cls & R.CLS_NECESSARY) == R.is_necessary(v, card)


def test_token_gating(states, results):
    for i, s in enumerate(states):
        info = s.scal[E.S_INFO]
        for rule_id in range(RB.N_RULE_IDS):
            kind = RB.rule_info(rule_id).kind
            if (kind == "tell" and info == 0) or (kind == "discard" and info == 8):
                assert results[i, rule_id][0] == -1, (i, rule_id)


def test_rng_discipline(states, results):
    for i, s in enumerate(states):
        for rule_id in range(RB.N_RULE_IDS):
            a, rng = results[i, rule_id]
            expected = new_rng(i)
            if a >= 0 and rule_id in (20, 22, 34, 39):
                n = {
                    20: 2,
                    22: 2 * int(s.public.hand_len[(me(s) + 1) % s.cfg[E.CFG_PLAYERS]]),
                    34: int(s.public.hand_len[me(s)]),
                    39: len(_legal_list(s)),
                }[rule_id]
                rng_below(expected, n)
            np.testing.assert_array_equal(rng, expected, err_msg=f"{i} {rule_id}")


def test_trajectories_are_reproducible():
    def game(seed):
        s = E.new_state(HanabiConfig(players=3, hand_size=5))
        E.reset_state(s, seed, False)
        v = new_view(s)
        mask = np.zeros(s.cfg[E.CFG_N_ACTIONS], dtype=np.int8)
        rngs = [new_rng(seed + p) for p in range(3)]
        rules = np.array(RB.INTERNAL, dtype=np.int64)
        moves = []
        while not s.scal[E.S_DONE]:
            fill_view(s, s.scal[E.S_CUR], v, False)
            moves.append(int(R.choose_action(rules, len(rules), v, rngs[s.scal[E.S_CUR]], mask)))
            E.apply_move(s, moves[-1])
        return moves

    assert game(4) == game(4)
    assert game(4) != game(5)


def _fully_known(s, p, k):
    return (
        bin(s.public.col_plaus[p, k]).count("1") == 1 == bin(s.public.rank_plaus[p, k]).count("1")
    )


def _first_playable_unknown(s):
    """(player, card) of the first playable card not fully known, in turn order."""
    n = s.cfg[E.CFG_PLAYERS]
    for i in range(1, n):
        p = (me(s) + i) % n
        for k in range(s.public.hand_len[p]):
            card = s.deck[s.public.uids[p, k]]
            if s.public.fireworks[card // 5] == card % 5 and not _fully_known(s, p, k):
                return p, card
    return None


def test_equivalences_28_36_and_12_13(states, results):
    n_checked = 0
    for i, s in enumerate(states):
        assert results[i, 28][0] == results[i, 36][0]
        a13, a12 = results[i, 13][0], results[i, 12][0]
        assert (a13 == -1) == (a12 == -1)
        if a13 < 0:
            continue
        p, card = _first_playable_unknown(s)
        for a in (a12, a13):
            kind, _, target, colour, rank = E.decode_action(s.cfg, me(s), a)
            assert target == p
            if kind == E.REVEAL_COLOR:
                assert colour == card // 5
            else:
                assert rank == card % 5
        n_checked += 1
    assert n_checked > 20


def test_hail_mary_and_two_player_finesse_rules(states, results):
    for i, s in enumerate(states):
        hail_mary = s.scal[E.S_LIFE] > 1 and s.scal[E.S_DECK_POS] == s.cfg[E.CFG_N_CARDS]
        assert (results[i, 41][0] >= 0) == (hail_mary and s.public.hand_len[me(s)] > 0)
        if s.cfg[E.CFG_PLAYERS] == 2:
            assert results[i, 0][0] == results[i, 1][0] == results[i, 16][0] == -1


def _p_playable(s, t, k):
    """P_{me→t}(playable | k) with Fractions, straight from docs/rules.md §2.5 (test oracle)."""
    pool = {c: (3, 2, 2, 2, 1)[c % 5] - s.public.discards[c] for c in range(25)}
    for c in range(5):
        for r in range(s.public.fireworks[c]):
            pool[c * 5 + r] -= 1
    for p in range(s.cfg[E.CFG_PLAYERS]):
        if p not in (me(s), t):
            for j in range(s.public.hand_len[p]):
                pool[s.deck[s.public.uids[p, j]]] -= 1
    cands = [
        (c, n)
        for c, n in pool.items()
        if n > 0
        and s.public.col_plaus[t, k] >> (c // 5) & 1
        and s.public.rank_plaus[t, k] >> (c % 5) & 1
    ]
    good = sum(n for c, n in cands if s.public.fireworks[c // 5] == c % 5)
    return Fraction(good, sum(n for _, n in cands))


def _mistake_target(s, false_positive, t):
    n = s.cfg[E.CFG_PLAYERS]
    for i in range(1, n):
        p = (me(s) + i) % n
        for k in range(s.public.hand_len[p]):
            card = s.deck[s.public.uids[p, k]]
            playable = s.public.fireworks[card // 5] == card % 5
            prob = _p_playable(s, p, k)
            if false_positive and not playable and prob >= t:
                return p
            if not false_positive and playable and prob <= t:
                return p
    return None


def _first_with_playable(s):
    n = s.cfg[E.CFG_PLAYERS]
    for i in range(1, n):
        p = (me(s) + i) % n
        if any(
            s.public.fireworks[s.deck[s.public.uids[p, k]] // 5] == s.deck[s.public.uids[p, k]] % 5
            for k in range(s.public.hand_len[p])
        ):
            return p
    return None


def test_unambiguous2_and_mistake_rules_fire_on_four_card_hands(states, results):
    fired = set()
    for i, s in enumerate(states):
        if s.cfg[E.CFG_PLAYERS] < 4:
            continue
        for rule_id in (69, 70, 71, *range(83, 105)):
            a = results[i, rule_id][0]
            if a < 0:
                continue
            fired.add(rule_id)
            target = E.decode_action(s.cfg, me(s), a)[2]
            if rule_id <= 71:
                assert target == _first_with_playable(s)
            else:
                fp, t = rule_id <= 93, Fraction((rule_id - 83) % 11, 10)
                assert target == _mistake_target(s, fp, t), (i, rule_id)
    assert fired >= {69, 70, 71, *range(83, 92), *range(95, 105)}
    # falsePositive with t = 1 and the opposite with t = 0 can never fire: the true card is
    # always a candidate of U_{me→t}, so 0 < P < 1 for a card in the target's hand.
    assert not fired & {93, 94}


def test_mistake_rule_hints_the_scanned_player_in_four_player_games():
    s = make_state(
        [
            ["R3", "Y4", "G3", "W4"],
            ["Y3", "B4", "G2", "W3"],
            ["G1", "R3", "Y4", "B2"],
            ["B3", "W2", "R2", "Y2"],
        ],
        fireworks={"G": 1},
        discards=["G1"],
    )
    know(s, 2, 0, value=1)  # seat 2 (not the first in turn order) holds the candidate
    assert run(92, s) == tell_colour(s, 2, "G")


def test_at_least_n_useless_leaves_n_sure_slots(states, results):
    n_fired = 0
    for i, s in enumerate(states):
        for rule_id in range(78, 83):
            a = results[i, rule_id][0]
            if a < 0:
                continue
            n_fired += 1
            target = E.decode_action(s.cfg, me(s), a)[2]
            after = E.copy_state(s)
            hinter = me(s)
            E.apply_move(after, a)
            v = view(after, hinter)
            tab = R.new_card_table(v)
            tab_t = np.empty_like(tab)
            R.partner_table(v, target, tab, tab_t)
            sure = 0
            for k in range(after.public.hand_len[target]):
                total, _, useless, _ = R.slot_counts(v, tab_t, target, k)
                sure += useless * 100 > 99 * total
            assert sure >= rule_id - 77, (i, rule_id)
    assert n_fired > 0


def test_play_unique_possible_card_checklist():
    # Colour hint with height(c) = 0 and (c, 1) unseen: fires.
    s = make_state([P2, ["Y3", "B4", "W3", "G4", "B2"]])
    do(s, tell_colour(s, 1, "W"))
    assert run(9, s) == play(s, 2)
    # Never on a hint whose card has left my hand, even when it was the only hint.
    do(s, play(s, 2))
    do(s, discard(s, 0))
    assert run(9, s) == -1


def test_partner_probability_and_hint_simulation():
    s = make_state([P2, ["R1", "Y3", "B4", "G2", "W3"]])
    v = view(s)
    before = R.partner_probability(v, 1, 0, R.CLS_PLAYABLE, -1)
    after = R.partner_probability(v, 1, 0, R.CLS_PLAYABLE, 0)  # hint number 0 = value 1
    assert after == 1.0
    assert before == pytest.approx(float(_p_playable(s, 1, 0)))
    assert s.public.rank_plaus[1, 0] == 0b11111  # the simulation worked on a copy
    cm = np.zeros(5, dtype=np.int64)
    rm = np.zeros(5, dtype=np.int64)
    assert R.simulate_hint(v, 1, 5 + 0, cm, rm) == 1  # colour R touches R1
    assert cm[0] == 1
    assert cm[1] == 0b11110
    assert [R.hint_of(v, i) for i in (0, 4, 5, 9)] == [(False, 0), (False, 4), (True, 0), (True, 4)]
    assert R.tell_missing(v, 1, 0, True) == tell_value(s, 1, 1)
    assert R.tell_missing(v, 1, 0, False) == tell_colour(s, 1, "R")
    assert [R.turn_order(v, i) for i in range(1)] == [1]
    # the slots the viewer sees: none of its own hand, all of its partner's
    assert (K.seen_len(v, 0), K.seen_len(v, 1)) == (0, 5)
    assert K.seen_len(view(s, seat=1), 0) == 5


def test_card_predicates():
    s = make_state([P2, P3], fireworks={"B": 1}, discards=["B3", "B3", "R1", "R1"])
    v = view(s)
    assert R.max_reachable(v, 4) == 2
    assert R.max_reachable(v, 0) == 5
    assert R.is_useless(v, cid("B4"))
    assert R.is_useless(v, cid("B5"))
    assert R.is_useless(v, cid("B1"))
    assert not R.is_useless(v, cid("B2"))
    assert R.is_playable(v, cid("B2"))
    assert not R.is_playable(v, cid("B1"))
    assert R.is_necessary(v, cid("R1"))
    assert not R.is_necessary(v, cid("B5"))
    assert R.is_necessary(v, cid("G5"))
    assert not R.is_necessary(v, cid("G4"))
    assert not R.safe_to_discard(v, 4, -1)
    assert R.safe_to_discard(v, 4, 3)
    assert R.usable(v, 4, 1)
    assert not R.usable(v, 4, 0)
    know(s, 0, 0, "B", 1)
    assert R.knows_safe(view(s), 0, 0)
    assert R.known_colour(view(s), 0, 0) == 4


def test_packed_candidate_counts_equal_the_card_loop(states):
    # the fast path (counts packed per colour, one byte per rank) must give the same integers
    # as the plain loop over the cards, for every pair of colour / rank masks
    for s in states[::9]:
        v = view(s)
        tab = R.new_card_table(v)
        for cm in range(32):
            for rm in range(32):
                assert R.cand_counts_packed(v, tab, cm, rm) == R.cand_counts(v, tab, cm, rm)
        for k in range(s.public.hand_len[me(s)]):  # the per-decision cache of the own slots
            assert R.own_slot_counts(v, tab, k) == R.slot_counts(v, tab, me(s), k)
