"""BAD's public state and belief on small Hanabi: the engine, exact enumeration, Equation 8."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.bad.belief import (
    PartialPolicy,
    bayes_update,
    belief_v0,
    beliefs,
    combo_weights,
    self_consistent,
)
from agents.bad.net import NumpyNet, param_shapes
from agents.bad.public import Layout, PublicState
from agents.bad.runner import Decision, Games, decide
from hanabi_env import engine as E
from hanabi_env.config import hle_preset

PRESETS = ("Hanabi-Very-Small", "Hanabi-Small")


def random_net(lay: Layout, seed: int, scale: float = 0.5) -> NumpyNet:
    rng = np.random.default_rng(seed)
    shapes = param_shapes(lay.pub_dim, lay.priv_dim, 32, 2, lay.n_actions)
    return NumpyNet({k: rng.normal(0, scale, s) for k, s in shapes.items()})


def play_some(games: Games, net: NumpyNet, bayesian: bool, moves: int, rng, check=None):
    """Sampled BAD (or baseline) moves in every game, redealing finished games."""
    lay = games.layout
    for step in range(moves):
        actor = games.actors()
        combo = games.partner_combos(actor)
        noise = rng.gumbel(size=(len(games.states), len(lay.combos), lay.n_actions))
        d = decide(games.public, actor, net, bayesian, combo, noise)
        if check is not None:
            check(games, d)
        _, done, _ = games.play(actor, d, d.action)
        for b in np.flatnonzero(done):
            games.deal(b, 10_000 + 100 * step + b)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("bayesian", [True, False])
def test_public_state_follows_the_engine(preset, bayesian):
    lay = Layout(hle_preset(preset))
    games = Games(lay, 8)
    for b in range(8):
        games.deal(b, b)
    mask = np.zeros(lay.n_actions, dtype=np.int8)
    hands_seen = 0

    def check(games: Games, d: Decision) -> None:
        nonlocal hands_seen
        ps = games.public
        shown, weighting = beliefs(ps, bayesian)
        for b, s in enumerate(games.states):
            assert (ps.fireworks[b] == s.public.fireworks).all()
            assert (ps.discards[b] == s.public.discards).all()
            assert (ps.info[b], ps.life[b]) == (s.scal[E.S_INFO], s.scal[E.S_LIFE])
            assert ps.deck[b] == lay.config.n_cards - s.scal[E.S_DECK_POS]
            assert (ps.hand_len[b] == s.public.hand_len).all()
            E.legal_mask(s, mask)
            assert (mask.astype(bool) == d.legal[b]).all()  # legality for the real hand
            for p in range(2):
                n = int(s.public.hand_len[p])
                assert (ps.col_plaus[b, p, :n] == s.public.col_plaus[p, :n]).all()
                assert (ps.rank_plaus[b, p, :n] == s.public.rank_plaus[p, :n]).all()
                np.testing.assert_allclose(shown[b, p, :n].sum(axis=1), 1.0)
                assert (shown[b, p, n:] == 0).all()
                for k in range(n):  # the real card is never ruled out
                    assert weighting[b, p, k, E.card_of(s, p, k)] > 0
                    hands_seen += 1

    play_some(games, random_net(lay, 0), bayesian, 60, np.random.default_rng(1), check)
    assert hands_seen > 500


def test_private_features_mark_playable_and_useless_cards():
    lay = Layout(hle_preset("Hanabi-Small"))
    ps = PublicState(lay, 1)
    ps.fireworks[0] = [2, 0]  # colour 0 has its 1 and 2 played
    ps.discards[0, lay.n_ranks + 0] = 3  # every 1 of colour 1 is gone: colour 1 is dead
    hand = np.array([2, 1])  # colour 0 rank 3 (playable), colour 0 rank 2 (useless)
    feats = ps.private_features(np.array([0]), np.array([lay.combo_index(hand)]))[0]
    h, t = lay.hand_size, lay.n_types
    assert feats[: h * t].reshape(h, t).argmax(axis=1).tolist() == [2, 1]
    assert feats[h * t :].tolist() == [1, 0, 0, 1]  # playable per slot, then useless
    dead = ps.private_features(np.array([0]), np.array([lay.combo_index(np.array([6, 9]))]))[0]
    assert dead[h * t :].tolist() == [0, 0, 1, 1]
    one_card = ps.private_features(np.array([0]), np.array([lay.combo_index(np.array([2]))]))[0]
    assert one_card[h * t :].tolist() == [1, 0, 0, 0]  # an empty slot is neither


def exact_joint(lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Every deal of the four hand cards, and its probability (drawn without replacement)."""
    hands = np.array(list(itertools.product(range(lay.n_types), repeat=4)))
    prob = np.ones(len(hands))
    left = lay.copies.astype(float).copy()
    total = float(left.sum())
    for n, hand in enumerate(hands):
        pool, size = left.copy(), total
        for card in hand:
            prob[n] *= pool[card] / size
            pool[card] -= 1
            size -= 1
    return hands, prob


def test_beliefs_at_the_deal_are_the_exact_marginals():
    lay = Layout(hle_preset("Hanabi-Very-Small"))
    hands, prob = exact_joint(lay)
    assert prob.sum() == pytest.approx(1.0)
    ps = PublicState(lay, 1)
    v0 = belief_v0(ps)[0]
    v1 = self_consistent(ps.unseen_counts(), ps.hint_masks(), None, 10)[0]
    for slot in range(4):
        exact = np.bincount(hands[:, slot], weights=prob, minlength=lay.n_types)
        np.testing.assert_allclose(v0.reshape(4, -1)[slot], exact)
        np.testing.assert_allclose(v1.reshape(4, -1)[slot], exact)


@pytest.mark.parametrize("seed", range(4))
def test_first_counterfactual_update_is_the_exact_posterior(seed):
    """Player 0 moves first; the Bayesian belief BB⁰ over player 1's hand is the posterior."""
    lay = Layout(hle_preset("Hanabi-Very-Small"))
    net = random_net(lay, seed, scale=1.0)
    ps = PublicState(lay, 1)
    actor = np.array([0])
    noise = np.random.default_rng(seed).gumbel(size=(1, len(lay.combos), lay.n_actions))
    d = decide(ps, actor, net, True, None, noise)
    policy = dict(zip(d.partial.combo.tolist(), d.partial.action.tolist(), strict=True))
    hands, prob = exact_joint(lay)
    # the partial policy, evaluated hand by hand from the network and the rules of hints
    pub = d.pub
    for hand1 in itertools.product(range(lay.n_types), repeat=2):
        combo = lay.combo_index(np.array(hand1))
        if (np.bincount(hand1, minlength=lay.n_types) > lay.copies).any():
            assert combo not in policy  # an impossible hand has no row
            continue
        logits = net.logits(pub, ps.private_features(np.array([0]), np.array([combo])), [0])[0]
        legal = np.ones(lay.n_actions, dtype=bool)
        legal[: lay.hand_size] = False  # no discard with all information tokens
        ranks = {c % lay.n_ranks for c in hand1}
        legal[2 * lay.hand_size + lay.n_colors :] = [r in ranks for r in range(lay.n_ranks)]
        scores = np.where(legal, logits + noise[0, combo], -np.inf)
        assert policy[combo] == int(np.argmax(scores))
    taken = policy[lay.combo_index(np.array([3, 1]))]  # the move for one real hand
    bayes_update(ps, actor, d.partial, np.array([taken]))
    bb0 = self_consistent(ps.unseen_counts(), ps.hint_masks(), ps.likelihood, 0)[0, 1]
    chosen = np.array([policy.get(lay.combo_index(h[2:])) == taken for h in hands])
    post = prob * chosen
    for slot in range(2):
        exact = np.bincount(hands[:, 2 + slot], weights=post, minlength=lay.n_types)
        np.testing.assert_allclose(bb0[slot], exact / exact.sum(), atol=1e-12)
    assert (ps.likelihood[0, 0] == 1).all()  # the actor's own hand learns nothing


def test_likelihood_update_is_equation_8_by_brute_force():
    """Mid-game, each factor of L is E[1(f[i]=f) 1(π(hand)=u)] / E[1(f[i]=f)] over all hands."""
    lay = Layout(hle_preset("Hanabi-Small"))
    net = random_net(lay, 7, scale=1.0)
    games = Games(lay, 4)
    for b in range(4):
        games.deal(b, 50 + b)
    rng = np.random.default_rng(3)
    play_some(games, net, True, 5, rng)
    ps = games.public
    actor = games.actors()
    d = decide(ps, actor, net, True, games.partner_combos(actor))
    before = ps.likelihood.copy()
    _, weighting = beliefs(ps, True)
    counts = ps.unseen_counts()
    pp: PartialPolicy = d.partial
    bayes_update(ps, actor, pp, d.action)
    for b in range(4):
        partner, n = 1 - actor[b], int(ps.hand_len[b, 1 - actor[b]])
        rows = {int(c): int(a) for g, c, a in zip(pp.game, pp.combo, pp.action, strict=True)
                if g == b}  # fmt: skip
        num = np.zeros((lay.hand_size, lay.n_types))
        den = np.zeros((lay.hand_size, lay.n_types))
        for hand in itertools.product(range(lay.n_types), repeat=n):
            held = np.bincount(hand, minlength=lay.n_types)
            if (held > counts[b]).any():
                continue
            w = np.prod([weighting[b, partner, i, c] for i, c in enumerate(hand)])
            for card in np.flatnonzero(held):  # drawing without replacement
                for j in range(1, held[card]):
                    w *= (counts[b, card] - j) / counts[b, card]
            if w == 0:
                continue
            combo = lay.combo_index(np.array(hand))
            hit = rows[combo] == d.action[b]
            for i, c in enumerate(hand):
                den[i, c] += w
                num[i, c] += w * hit
        ratio = np.divide(num, den, out=np.ones_like(num), where=den > 0)
        np.testing.assert_allclose(ps.likelihood[b, partner], before[b, partner] * ratio,
                                   rtol=1e-9, atol=1e-12)  # fmt: skip
        np.testing.assert_array_equal(ps.likelihood[b, actor[b]], before[b, actor[b]])


def test_combo_weights_match_the_belief_product():
    lay = Layout(hle_preset("Hanabi-Very-Small"))
    ps = PublicState(lay, 1)
    _, weighting = beliefs(ps, True)
    w = combo_weights(ps, np.array([1]), weighting)[0]
    for hand in [(0, 1), (0, 0), (4, 4), (4, 2)]:
        k = lay.combo_index(np.array(hand))
        c = lay.copies
        expected = c[hand[0]] / 10 * (c[hand[1]] - (hand[0] == hand[1])) / 10
        assert w[k] == pytest.approx(expected)
    assert w[lay.combo_index(np.array([0]))] == 0  # a one-card combo for a two-card hand


def test_unexplained_move_leaves_the_belief():
    lay = Layout(hle_preset("Hanabi-Very-Small"))
    ps = PublicState(lay, 1)
    pp = PartialPolicy(
        game=np.array([0, 0]),
        combo=np.array([0, 1]),
        weight=np.array([0.5, 0.5]),
        action=np.array([3, 3]),
        logits=np.zeros((2, lay.n_actions), dtype=np.float32),
    )
    bayes_update(ps, np.array([0]), pp, np.array([5]))  # no hand explains move 5
    assert (ps.likelihood == 1).all()
    bayes_update(ps, np.array([0]), pp, np.array([3]))  # both explain it: nothing learnt
    assert (ps.likelihood == 1).all()
