"""The public state of 2-player Hanabi games, tracked from the move history alone (NumPy).

[BAD19] splits the state into *public* features, which every player knows, and *private*
ones: the cards in the hands (its Section 2). :class:`PublicState` holds, for a batch of
games, exactly what a third party watching the table would know: fireworks, discards, tokens,
deck size, hand lengths, every slot's hint knowledge (the hint masks HM of docs/papers.md §5),
the last move, and BAD's likelihood factors ``L`` (its Equations 6–8, updated by
:mod:`agents.bad.belief`). It is advanced by the engine's move records
(``hanabi_env.engine.H_*`` fields, the rows of ``PlayerView.raw.hist``), so the trainer (which
reads them from its engine states) and a playing agent (which reads them from its
:class:`hanabi_env.PlayerView`) follow the same code. A test checks it against the engine's own
public arrays at every move.

:class:`Layout` holds the constants of one configuration: card types (``colour * n_ranks +
rank``, HLE's order), copies, the move-uid table of docs/anchors.md §2.3 and every possible
hand of the partner (*combos*, used to enumerate private observations in the belief update).

Only 2 players and the default hand order (``hand_order="shift"``: a card leaving the hand
shifts the later ones left, the new card is appended) are supported, as in [BAD19]'s
experiments.
"""

from __future__ import annotations

import itertools

import numpy as np

from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.validate import type_error

__all__ = ["Layout", "PublicState"]


class Layout:
    """Constants of one 2-player configuration for BAD.

    Attributes:
        config: The :class:`hanabi_env.HanabiConfig`.
        n_colors, n_ranks, hand_size, n_types: Colours, ranks, hand size; card types
            ``T = n_colors * n_ranks``.
        n_actions: Move uids (``2h + c + r``).
        copies: ``(T,)`` int64 copies of each card type in the deck.
        initial_deck: Cards left in the deck after the deal.
        combos: ``(K, h)`` int64 every partner hand, slot by slot, a card type or ``T`` for an
            empty slot; ``K = (T + 1) ** h``.
        combo_onehot: ``(K, h * T)`` float32 one-hot cards of each combo (empty slots: zeros).
        combo_counts: ``(K, T)`` int64 copies of each type the combo holds.
        combo_fits: ``(h + 1, K)`` bool: combo ``k`` is a hand of ``n`` cards (its first ``n``
            slots hold cards, the others are empty).
        combo_hints: ``(K, c + r)`` bool: the colours, then the ranks, present in the combo (which
            hints about it are legal).
        pub_dim: Length of the public feature vector (:meth:`PublicState.features`).
        priv_dim: Length of the private feature vector (``h * T + 2h``,
            :meth:`PublicState.private_features`).

    Raises:
        ValueError: Not 2 players, or ``hand_order="fixed"``.
    """

    def __init__(self, config: HanabiConfig):
        """See the class docstring."""
        if not isinstance(config, HanabiConfig):
            raise type_error("config", "a HanabiConfig", config)
        if config.players != 2:
            raise ValueError(f"players={config.players} is not supported; allowed: 2 (BAD here)")
        if config.fixed_slots:
            raise ValueError("hand_order='fixed' is not supported; allowed: 'shift'")
        self.config = config
        c, r, h = config.colors, config.ranks, config.hand_size
        self.n_colors, self.n_ranks, self.hand_size = c, r, h
        self.n_types = t = c * r
        self.n_actions = 2 * h + c + r
        per_rank = np.array([E.copies_of_rank(r, k) for k in range(r)], dtype=np.int64)
        self.copies = np.tile(per_rank, c)
        self.initial_deck = config.n_cards - 2 * h
        self.combos = np.array(list(itertools.product(range(t + 1), repeat=h)), dtype=np.int64)
        filled = self.combos < t
        onehot = np.zeros((len(self.combos), h, t), dtype=np.float32)
        rows, slots = np.nonzero(filled)
        onehot[rows, slots, self.combos[rows, slots]] = 1.0
        self.combo_counts = onehot.sum(axis=1).astype(np.int64)
        self.combo_onehot = onehot.reshape(len(self.combos), h * t)
        self.combo_fits = np.array(
            [(filled[:, :n].all(axis=1)) & (~filled[:, n:]).all(axis=1) for n in range(h + 1)]
        )
        colours = self.combo_counts.reshape(-1, c, r).sum(axis=2) > 0
        ranks = self.combo_counts.reshape(-1, c, r).sum(axis=1) > 0
        self.combo_hints = np.concatenate([colours, ranks], axis=1)
        self.pub_dim = (
            c * (r + 1)
            + (config.max_information_tokens + 1)
            + (config.max_life_tokens + 1)
            + (self.initial_deck + 1)
            + t
            + 2 * (h + 1)
            + _LAST_MOVE_BASE
            + 2 * h
            + c
            + r
            + t
            + 2 * h * t
            + 2 * 2 * h
        )
        self.priv_dim = h * t + 2 * h

    def combo_index(self, hand: np.ndarray) -> int:
        """Index in :attr:`combos` of a hand given as card types (``-1`` or missing: empty)."""
        k = 0
        for slot in range(self.hand_size):
            card = int(hand[slot]) if slot < len(hand) else -1
            k = k * (self.n_types + 1) + (self.n_types if card < 0 else card)
        return k


_LAST_MOVE_BASE = 1 + 2 + 4 + 2  # none, actor (me/partner), kind, scored, misplay


class PublicState:
    """What everybody knows about a batch of 2-player games (see the module docstring).

    Attributes:
        layout: The :class:`Layout`.
        fireworks: ``(B, c)`` int64 firework heights.
        discards: ``(B, T)`` int64 discarded copies per card type (misplays included).
        info, life, deck: ``(B,)`` int64 information tokens, life tokens, cards in the deck.
        hand_len: ``(B, 2)`` int64 cards in each hand.
        col_plaus, rank_plaus: ``(B, 2, h)`` int64 bitmasks of the colours / ranks each slot
            may still have given the hints (the engine's ``col_plaus``/``rank_plaus``).
        likelihood: ``(B, 2, h, T)`` float64 BAD's likelihood factor ``L`` of each slot's card
            type ([BAD19] Equation 8); 1 for a card nobody has acted on yet.
        last: ``(B, HIST_FIELDS)`` int64 the last move record (all -1 before the first move).
    """

    def __init__(self, layout: Layout, n_games: int):
        """Public states of ``n_games`` new games."""
        self.layout = lay = layout
        b, h, t = n_games, lay.hand_size, lay.n_types
        self.fireworks = np.zeros((b, lay.n_colors), dtype=np.int64)
        self.discards = np.zeros((b, t), dtype=np.int64)
        self.info = np.zeros(b, dtype=np.int64)
        self.life = np.zeros(b, dtype=np.int64)
        self.deck = np.zeros(b, dtype=np.int64)
        self.hand_len = np.zeros((b, 2), dtype=np.int64)
        self.col_plaus = np.zeros((b, 2, h), dtype=np.int64)
        self.rank_plaus = np.zeros((b, 2, h), dtype=np.int64)
        self.likelihood = np.ones((b, 2, h, t))
        self.last = np.full((b, E.HIST_FIELDS), -1, dtype=np.int64)
        self.reset(np.arange(b))

    @property
    def n_games(self) -> int:
        """Number of games ``B``."""
        return len(self.info)

    _FIELDS = (
        "fireworks",
        "discards",
        "info",
        "life",
        "deck",
        "hand_len",
        "col_plaus",
        "rank_plaus",
        "likelihood",
        "last",
    )

    def take(self, games: np.ndarray) -> PublicState:
        """A copy of the public states of games ``games`` (an index array), in that order."""
        out = PublicState.__new__(PublicState)
        out.layout = self.layout
        for name in self._FIELDS:
            setattr(out, name, getattr(self, name)[games].copy())
        return out

    def put(self, games: np.ndarray, other: PublicState) -> None:
        """Write ``other`` (from :meth:`take` of ``games``) back into games ``games``."""
        for name in self._FIELDS:
            getattr(self, name)[games] = getattr(other, name)

    def reset(self, games: np.ndarray) -> None:
        """Start games ``games`` (an index array) from the deal: full hands, nothing hinted."""
        lay, cfg = self.layout, self.layout.config
        self.fireworks[games] = 0
        self.discards[games] = 0
        self.info[games] = cfg.max_information_tokens
        self.life[games] = cfg.max_life_tokens
        self.deck[games] = lay.initial_deck
        self.hand_len[games] = lay.hand_size
        self.col_plaus[games] = (1 << lay.n_colors) - 1
        self.rank_plaus[games] = (1 << lay.n_ranks) - 1
        self.likelihood[games] = 1.0
        self.last[games] = -1

    def apply(self, game: int, rec: np.ndarray) -> None:
        """Advance game ``game`` by one move record (a row of the engine's history).

        Args:
            game: Index of the game in the batch.
            rec: ``(HIST_FIELDS,)`` ints, the ``hanabi_env.engine.H_*`` fields of the move.
        """
        lay = self.layout
        actor, kind = int(rec[E.H_ACTOR]), int(rec[E.H_KIND])
        if kind in (E.PLAY, E.DISCARD):
            card, slot = int(rec[E.H_CARD]), int(rec[E.H_SLOT])
            colour, rank = divmod(card, lay.n_ranks)
            if kind == E.DISCARD:
                self.discards[game, card] += 1
                self.info[game] += 1
            elif rec[E.H_SCORED] == 1:
                self.fireworks[game, colour] = rank + 1
                self.info[game] += int(rec[E.H_TOKEN] == 1)
            else:
                self.discards[game, card] += 1
                self.life[game] -= 1
            self._remove(game, actor, slot)
            full = self.fireworks[game].sum() == lay.n_colors * lay.n_ranks
            if self.deck[game] > 0 and self.life[game] > 0 and not full:
                self._draw(game, actor)
        else:
            target, touched = int(rec[E.H_TARGET]), int(rec[E.H_TOUCHED])
            self.info[game] -= 1
            if kind == E.REVEAL_COLOR:
                self._reveal(self.col_plaus[game, target], touched, int(rec[E.H_COLOR]))
            else:
                self._reveal(self.rank_plaus[game, target], touched, int(rec[E.H_RANK]))
        self.last[game] = rec

    def _reveal(self, plaus: np.ndarray, touched: int, value: int) -> None:
        for k in range(len(plaus)):
            if (touched >> k) & 1:
                plaus[k] = 1 << value
            else:
                plaus[k] &= ~(1 << value)

    def _remove(self, game: int, p: int, slot: int) -> None:
        n = int(self.hand_len[game, p])
        for arr in (self.col_plaus, self.rank_plaus, self.likelihood):
            arr[game, p, slot : n - 1] = arr[game, p, slot + 1 : n].copy()
        self.hand_len[game, p] = n - 1
        self._clear(game, p, n - 1)

    def _clear(self, game: int, p: int, slot: int) -> None:
        self.col_plaus[game, p, slot] = 0
        self.rank_plaus[game, p, slot] = 0
        self.likelihood[game, p, slot] = 1.0

    def _draw(self, game: int, p: int) -> None:
        n = int(self.hand_len[game, p])
        self.col_plaus[game, p, n] = (1 << self.layout.n_colors) - 1
        self.rank_plaus[game, p, n] = (1 << self.layout.n_ranks) - 1
        self.likelihood[game, p, n] = 1.0
        self.hand_len[game, p] = n + 1
        self.deck[game] -= 1

    # --- what the belief needs ---------------------------------------------------------------

    def unseen_counts(self) -> np.ndarray:
        """``(B, T)`` int64 copies of each card type not publicly seen (deck and hands): C(f).

        The full deck less the discards (misplays included) and the cards on the fireworks.
        """
        lay = self.layout
        rank = np.arange(lay.n_types) % lay.n_ranks
        colour = np.arange(lay.n_types) // lay.n_ranks
        played = rank[None, :] < self.fireworks[:, colour]
        return lay.copies[None, :] - self.discards - played

    def hint_masks(self) -> np.ndarray:
        """``(B, 2, h, T)`` bool hint masks HM: the types each occupied slot may hold."""
        lay = self.layout
        colour = np.arange(lay.n_types) // lay.n_ranks
        rank = np.arange(lay.n_types) % lay.n_ranks
        ok_colour = (self.col_plaus[..., None] >> colour) & 1
        ok_rank = (self.rank_plaus[..., None] >> rank) & 1
        occupied = np.arange(lay.hand_size)[None, None, :] < self.hand_len[:, :, None]
        return (ok_colour & ok_rank).astype(bool) & occupied[..., None]

    def card_status(self) -> tuple[np.ndarray, np.ndarray]:
        """``(playable, useless)``, each ``(B, T)`` bool, of every card type (docs/rules.md §2.3).

        Playable: the next card of its firework. Useless: below its firework's height, or at or
        above a rank whose copies are all discarded (its firework can no longer reach it).
        """
        lay = self.layout
        c, r = lay.n_colors, lay.n_ranks
        height = self.fireworks[:, np.arange(lay.n_types) // r]
        rank = np.arange(lay.n_types) % r
        gone = (self.discards >= lay.copies[None, :]).reshape(-1, c, r)
        above = np.arange(r)[None, None, :] >= self.fireworks[:, :, None]
        blocked = np.where((gone & above).any(axis=2), np.argmax(gone & above, axis=2), r)
        reach = blocked[:, np.arange(lay.n_types) // r]
        return rank[None, :] == height, (rank[None, :] < height) | (rank[None, :] >= reach)

    # --- what the network sees ---------------------------------------------------------------

    def private_features(self, game: np.ndarray, combo: np.ndarray) -> np.ndarray:
        """``(N, priv_dim)`` float32 the acting player's private observation, per row.

        Row ``n``: the partner's hand ``combo[n]`` in game ``game[n]``: its cards one-hot per
        slot, then per slot whether the card is playable, and whether it is useless
        (:meth:`card_status`; empty slots: zeros).
        """
        lay = self.layout
        playable, useless = self.card_status()
        cards = lay.combos[combo]  # (N, h)
        held = cards < lay.n_types
        safe = np.minimum(cards, lay.n_types - 1)
        status = np.concatenate(
            [held & playable[game[:, None], safe], held & useless[game[:, None], safe]], axis=1
        )
        return np.concatenate([lay.combo_onehot[combo], status], axis=1).astype(np.float32)

    def legal_public(self, actor: np.ndarray) -> np.ndarray:
        """``(B, A)`` bool moves of ``actor`` legal whatever the partner holds.

        Plays of occupied slots; discards of them below the maximum of information tokens;
        hints with a token left (a hint is legal only when it touches a card of the partner:
        :attr:`Layout.combo_hints` completes the mask for each possible partner hand).
        """
        lay = self.layout
        h = lay.hand_size
        g = np.arange(self.n_games)
        occupied = np.arange(h)[None, :] < self.hand_len[g, actor][:, None]
        can_discard = self.info < lay.config.max_information_tokens
        hint = np.repeat((self.info > 0)[:, None], lay.n_colors + lay.n_ranks, axis=1)
        return np.concatenate([occupied & can_discard[:, None], occupied, hint], axis=1)

    def features(self, actor: np.ndarray, belief: np.ndarray) -> np.ndarray:
        """``(B, pub_dim)`` float32 public features, seen from the seat ``actor`` of each game.

        Fireworks (one-hot height per colour), information and life tokens and deck size
        (one-hot), discards (fraction of each type's copies), hand lengths of the actor then
        its partner (one-hot), the last move (none; by the actor or its partner; kind; scored;
        misplay; slot; hinted colour and rank; touched slots; card played or discarded), and
        the public belief over the actor's hand then the partner's (``(h, T)`` each), and the
        chance under it that each slot of the actor's, then the partner's hand is playable, and
        that it is useless (:meth:`card_status`).

        Args:
            actor: ``(B,)`` seat to move in each game.
            belief: ``(B, 2, h, T)`` the public belief over both hands (absolute seats).
        """
        lay, cfg = self.layout, self.layout.config
        g = np.arange(self.n_games)
        partner = 1 - actor
        parts = [
            _one_hot(self.fireworks, lay.n_ranks + 1),
            _one_hot(self.info, cfg.max_information_tokens + 1),
            _one_hot(self.life, cfg.max_life_tokens + 1),
            _one_hot(self.deck, lay.initial_deck + 1),
            self.discards / lay.copies[None, :],
            _one_hot(self.hand_len[g, actor], lay.hand_size + 1),
            _one_hot(self.hand_len[g, partner], lay.hand_size + 1),
            self._last_move(actor),
            belief[g, actor].reshape(self.n_games, -1),
            belief[g, partner].reshape(self.n_games, -1),
            *self._chances(belief[g, actor]),
            *self._chances(belief[g, partner]),
        ]
        return np.concatenate([p.reshape(self.n_games, -1) for p in parts], axis=1).astype(
            np.float32
        )

    def _chances(self, belief: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        playable, useless = self.card_status()
        return (
            np.einsum("bht,bt->bh", belief, playable.astype(np.float64)),
            np.einsum("bht,bt->bh", belief, useless.astype(np.float64)),
        )

    def _last_move(self, actor: np.ndarray) -> np.ndarray:
        lay = self.layout
        h, c, r, t = lay.hand_size, lay.n_colors, lay.n_ranks, lay.n_types
        rec = self.last
        kind = rec[:, E.H_KIND]
        none = kind < 0
        play_or_discard = (kind == E.PLAY) | (kind == E.DISCARD)
        colour_hint = kind == E.REVEAL_COLOR
        rank_hint = kind == E.REVEAL_RANK
        mine = rec[:, E.H_ACTOR] == actor
        touched = (rec[:, E.H_TOUCHED, None] >> np.arange(h)) & 1
        return np.concatenate(
            [
                none[:, None],
                np.stack([~none & mine, ~none & ~mine], axis=1),
                _one_hot(np.where(none, -1, kind), 4),
                (play_or_discard & (rec[:, E.H_SCORED] == 1))[:, None],
                ((kind == E.PLAY) & (rec[:, E.H_SCORED] == 0))[:, None],
                _one_hot(np.where(play_or_discard, rec[:, E.H_SLOT], -1), h),
                _one_hot(np.where(colour_hint, rec[:, E.H_COLOR], -1), c),
                _one_hot(np.where(rank_hint, rec[:, E.H_RANK], -1), r),
                touched * (colour_hint | rank_hint)[:, None],
                _one_hot(np.where(play_or_discard, rec[:, E.H_CARD], -1), t),
            ],
            axis=1,
        )


def _one_hot(x: np.ndarray, n: int) -> np.ndarray:
    """One-hot over the last axis; a negative or out-of-range value gives a zero row."""
    x = np.asarray(x)
    return (x[..., None] == np.arange(n)).astype(np.float32)
