"""Python face of the engine: :class:`HanabiGame`, the read-only :class:`PlayerView` and moves.

:class:`HanabiGame` drives the compiled kernels of :mod:`hanabi_env.engine` one move at a
time, with validation, for users who want the engine without the AEC layer. Bulk evaluation
plays whole games in compiled loops (:func:`hanabi_env.engine.play_random_games`, the
rule-game loop of :mod:`agents.rule_games`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np

from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.metrics import info_metrics, metric_ratios  # noqa: F401 - metric_ratios: re-exported
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_int,
    check_seed,
    is_int,
    type_error,
)

COLOR_NAMES = "RYGWB"
MOVE_KINDS = ("play", "discard", "reveal_color", "reveal_rank")


def describe_move(cfg: np.ndarray, seat: int, action: int) -> str:
    """Readable move uid of ``seat`` (``cfg``: the engine's configuration array).

    Examples: ``"play slot 2"``, ``"discard slot 0"``, ``"reveal R to player_1"``,
    ``"reveal rank 3 to player_1"``.
    """
    kind, slot, target, color, rank = E.decode_action(cfg, int(seat), int(action))
    if kind == E.PLAY:
        return f"play slot {slot}"
    if kind == E.DISCARD:
        return f"discard slot {slot}"
    if kind == E.REVEAL_COLOR:
        return f"reveal {COLOR_NAMES[color]} to player_{target}"
    return f"reveal rank {rank + 1} to player_{target}"


def card_name(card: int, n_ranks: int) -> str:
    """Human-readable card name such as ``"R1"`` (``"??"`` for -1)."""
    if card < 0:
        return "??"
    return f"{COLOR_NAMES[card // n_ranks]}{card % n_ranks + 1}"


@dataclass(frozen=True)
class Move:
    """One public move record.

    Attributes:
        index: Position in the game's move list (0-based).
        actor: Absolute seat of the mover.
        kind: ``"play"``, ``"discard"``, ``"reveal_color"`` or ``"reveal_rank"``.
        action: The HLE move uid, as seen from the mover's seat.
        target: Absolute seat a reveal was given to (-1 otherwise).
        color: Colour revealed, or colour of the card played/discarded (-1 if none).
        rank: Rank revealed (0-based), or rank of the card played/discarded (-1 if none).
        slot: Slot played/discarded (-1 for reveals).
        card: Card id played/discarded (-1 for reveals).
        uid: Stable identity of the card played/discarded (-1 for reveals).
        touched_slots: Target slots a reveal touched (empty otherwise).
        touched_uids: Stable identities of the cards a reveal touched.
        scored: Whether a play was added to a firework.
        token_returned: Whether the move returned an information token.
        information_tokens_before: Information tokens at the start of the move.
        known_attributes: For plays/discards, colour + rank the mover knew (0-2), else -1.
        drawn_uid: Stable identity of the card the mover drew after a play/discard; -1 when
            no card was drawn (a reveal, an empty deck, or the move that ended the game).
            Public: every seat sees that a card was drawn and which deck position it was.
        drawn_card: Card id of the drawn card when the viewer can see it: a card the viewer
            sees in another player's hand, or one that has since been played or discarded
            (the later move shows it). -1 when no card was drawn and while the drawn card
            is in the viewer's own hand (never revealed, unless a seer view).
        drawn_color: Colour of :attr:`drawn_card` (-1 when it is -1).
        drawn_rank: Rank (0-based) of :attr:`drawn_card` (-1 when it is -1).
    """

    index: int
    actor: int
    kind: str
    action: int
    target: int
    color: int
    rank: int
    slot: int
    card: int
    uid: int
    touched_slots: tuple[int, ...]
    touched_uids: tuple[int, ...]
    scored: bool
    token_returned: bool
    information_tokens_before: int
    known_attributes: int
    drawn_uid: int = -1
    drawn_card: int = -1
    drawn_color: int = -1
    drawn_rank: int = -1


@dataclass(frozen=True)
class Hint:
    """One hint as one card received it (:meth:`PlayerView.card_hints`).

    Attributes:
        index: Position of the reveal in the game's move list (0-based, :attr:`Move.index`).
        giver: Absolute seat that gave the hint.
        target: Absolute seat that received it (the card's owner).
        kind: ``"reveal_color"`` or ``"reveal_rank"``.
        color: Colour revealed (-1 for a rank hint).
        rank: Rank revealed, 0-based (-1 for a colour hint).
        positive: True when the hint touched the card (it *is* that colour or rank), False
            when the card was in the hand but not touched (it is *not*: negative
            information).
    """

    index: int
    giver: int
    target: int
    kind: str
    color: int
    rank: int
    positive: bool


@dataclass(frozen=True)
class MoveSpec:
    """What a move uid means for one seat (:meth:`PlayerView.move_of`).

    The fields are :meth:`PlayerView.action_uid`'s arguments, so that
    ``view.action_uid(**dataclasses.asdict(view.move_of(a))) == a`` for every uid ``a``.

    Attributes:
        kind: ``"play"``, ``"discard"``, ``"reveal_color"`` or ``"reveal_rank"``.
        slot: Hand slot played or discarded (-1 for reveals).
        target: Absolute seat a reveal goes to (-1 for plays and discards).
        color: Colour revealed (-1 otherwise).
        rank: Rank revealed, 0-based (-1 otherwise).
    """

    kind: str
    slot: int
    target: int
    color: int
    rank: int


def _known_cards(raw: V.View, stop: int) -> dict[int, int]:
    """Card id by uid of every card the view shows: in a visible hand, or played/discarded."""
    rec = raw.hist[:stop]
    left = (rec[:, E.H_KIND] == E.PLAY) | (rec[:, E.H_KIND] == E.DISCARD)
    known = dict(zip(rec[left, E.H_UID].tolist(), rec[left, E.H_CARD].tolist(), strict=True))
    shown = (raw.uids >= 0) & (raw.cards >= 0)  # the viewer's row holds -1 unless a seer view
    known.update(zip(raw.uids[shown].tolist(), raw.cards[shown].tolist(), strict=True))
    return known


def _moves_from(raw: V.View, start: int, stop: int) -> list[Move]:
    """The :class:`Move` records ``start..stop-1`` of the view ``raw``."""
    return _moves_at(raw, range(start, stop))


def _moves_at(raw: V.View, indices: Sequence[int]) -> list[Move]:
    """The :class:`Move` records of the view ``raw`` at move ``indices`` (each < n_moves)."""
    if not len(indices):
        return []
    n_ranks = int(raw.cfg[E.CFG_RANKS])
    n_cards = int(raw.cfg[E.CFG_N_CARDS])
    n_moves = int(raw.scal[V.V_N_MOVES])
    known = _known_cards(raw, n_moves)
    hist = raw.hist[:n_moves].tolist()  # Python ints: cheaper to read than numpy scalars
    touched_uids = raw.hist_uids[:n_moves].tolist()
    deck_now = int(raw.scal[V.V_DECK])
    out = []
    for m in indices:
        rec = hist[m]
        kind = rec[E.H_KIND]
        touched = rec[E.H_TOUCHED]
        is_reveal = kind in (E.REVEAL_COLOR, E.REVEAL_RANK)
        deck_before = rec[E.H_DECK_BEFORE]
        # the deck shrinks only by draws: compare with the next move's deck (or the deck now)
        deck_after = hist[m + 1][E.H_DECK_BEFORE] if m + 1 < n_moves else deck_now
        drawn_uid = n_cards - deck_before if deck_after < deck_before else -1
        drawn = known.get(drawn_uid, -1) if drawn_uid >= 0 else -1
        out.append(
            Move(
                index=m,
                actor=rec[E.H_ACTOR],
                kind=MOVE_KINDS[kind],
                action=rec[E.H_ACTION],
                target=rec[E.H_TARGET],
                color=rec[E.H_COLOR],
                rank=rec[E.H_RANK],
                slot=rec[E.H_SLOT],
                card=rec[E.H_CARD],
                uid=rec[E.H_UID],
                touched_slots=tuple(k for k in range(32) if (touched >> k) & 1)
                if is_reveal
                else (),
                touched_uids=tuple(u for u in touched_uids[m] if u >= 0),
                scored=rec[E.H_SCORED] == 1,
                token_returned=rec[E.H_TOKEN] == 1,
                information_tokens_before=rec[E.H_INFO_BEFORE],
                known_attributes=rec[E.H_KNOWN_ATTRS],
                drawn_uid=drawn_uid,
                drawn_card=drawn,
                drawn_color=drawn // n_ranks if drawn >= 0 else -1,
                drawn_rank=drawn % n_ranks if drawn >= 0 else -1,
            )
        )
    return out


def _field(
    source: str, cast: Callable[[Any], Any] | None, array: str, index: int | None, doc: str
) -> Any:
    """A read-only property reading one of the engine's arrays of its owner.

    The property returns ``cast(<owner>.<source>.<array>[index])``, or ``<source>.<array>`` as
    it is when ``index`` is None (``source``: ``"raw"``, a :class:`hanabi_env.view.View`, or
    ``"state"``, an engine state). A plain :class:`property`, so that reading it costs what a
    hand-written one does; the class annotates the attribute with its type.
    """
    get = attrgetter(f"{source}.{array}")
    if index is None or cast is None:

        def whole(self: object) -> Any:
            return get(self)

        return property(whole, doc=doc)

    def entry(self: object) -> Any:
        return cast(get(self)[index])

    return property(entry, doc=doc)


def _view_field(cast: Callable[[Any], Any], array: str, index: int, doc: str) -> Any:
    """A :class:`PlayerView` field: an entry of its view (``raw``); see :func:`_field`."""
    return _field("raw", cast, array, index, doc)


def _view_config(index: int, doc: str) -> Any:
    """A :class:`PlayerView` field: an (int) entry ``index`` of its view's configuration."""
    return _field("raw", int, "cfg", index, doc)


def _view_array(array: str, doc: str) -> Any:
    """A :class:`PlayerView` field: a whole (read-only) array of its view; see :func:`_field`."""
    return _field("raw", None, array, None, doc)


def _dealt_field(cast: Callable[[Any], Any], index: int, doc: str) -> Any:
    """A :class:`HanabiGame` query: entry ``index`` of its state's scalars, once it is dealt.

    Raises (on reading) ``RuntimeError`` before the first reset, as :meth:`HanabiGame.view`
    and the other queries do.
    """

    def entry(self: HanabiGame) -> Any:
        if not self._dealt:
            raise RuntimeError("call reset(seed) before using the game")
        return cast(self.state.scal[index])

    return property(entry, doc=doc + "\n\nRaises:\n    RuntimeError: Before the first reset.")


class PlayerView:
    """Everything one seat may see, read-only.

    The viewer's own cards are structurally absent: :attr:`hands` holds -1 in the viewer's row
    (``hands[seat]``), and no attribute or method returns them. Every array is a read-only copy.
    The observation vector is a pure encoding of this view (:meth:`encode`).

    Attributes:
        seat: The viewer's absolute seat.
        raw: The underlying :class:`hanabi_env.view.View` arrays (for compiled policies).
    """

    def __init__(self, raw: V.View, observation_type: int = V.OBS_CARD_KNOWLEDGE):
        """Wrap view arrays (copied and made read-only)."""
        arrays = []
        for a in raw:
            c = np.array(a, copy=True)
            c.flags.writeable = False
            arrays.append(c)
        self.raw = V.View(*arrays)
        self._observation_type = observation_type
        self.seat = int(self.raw.scal[V.V_SEAT])
        self._packed: np.ndarray | None = None

    # --- configuration ---
    n_players: int = _view_config(E.CFG_PLAYERS, "Number of players.")
    n_colors: int = _view_config(E.CFG_COLORS, "Number of colours.")
    n_ranks: int = _view_config(E.CFG_RANKS, "Number of ranks.")
    hand_size: int = _view_config(E.CFG_HAND, "Nominal hand size.")
    max_information_tokens: int = _view_config(E.CFG_MAX_INFO, "Maximum information tokens.")

    # --- public board ---
    current_player: int = _view_field(int, "scal", V.V_CUR, "Absolute seat to move.")
    information_tokens: int = _view_field(int, "scal", V.V_INFO, "Information tokens available.")
    life_tokens: int = _view_field(int, "scal", V.V_LIFE, "Life tokens left.")
    deck_size: int = _view_field(int, "scal", V.V_DECK, "Cards left in the deck.")
    score: int = _view_field(
        int, "scal", V.V_SCORE, "Current score under the game's scoring variant."
    )
    is_terminal: bool = _view_field(bool, "scal", V.V_DONE, "Whether the game is over.")
    n_moves: int = _view_field(
        int, "scal", V.V_N_MOVES, "Moves made so far (``len(moves)``, without building them)."
    )
    fireworks: np.ndarray = _view_array(
        "fireworks", "``(n_colors,)`` int32 firework heights (0 = empty)."
    )
    discard_counts: np.ndarray = _view_array(
        "discards", "``(n_colors * n_ranks,)`` int32 discarded copies per card id."
    )

    # --- hands and knowledge ---
    hands: np.ndarray = _view_array(
        "cards",
        "``(n_players, hand_size)`` int32 card ids; -1 for empty slots and the viewer's row.",
    )
    hand_lengths: np.ndarray = _view_array(
        "hand_len", "``(n_players,)`` int32 cards held by each player."
    )
    card_uids: np.ndarray = _view_array(
        "uids",
        "``(n_players, hand_size)`` int32 stable card identities (deck positions), -1 empty.",
    )
    hinted_color: np.ndarray = _view_array(
        "col_hint", "``(n_players, hand_size)`` int32 colour explicitly revealed, -1 for none."
    )
    hinted_rank: np.ndarray = _view_array(
        "rank_hint", "``(n_players, hand_size)`` int32 rank explicitly revealed, -1 for none."
    )

    @property
    def color_plausible(self) -> np.ndarray:
        """``(n_players, hand_size, n_colors)`` bool: colours still plausible from hints."""
        return self._bits(self.raw.col_plaus, self.n_colors)

    @property
    def rank_plausible(self) -> np.ndarray:
        """``(n_players, hand_size, n_ranks)`` bool: ranks still plausible from hints."""
        return self._bits(self.raw.rank_plaus, self.n_ranks)

    @property
    def plausible(self) -> np.ndarray:
        """``(n_players, hand_size, n_colors, n_ranks)`` bool outer product (HLE card knowledge)."""
        return self.color_plausible[..., :, None] & self.rank_plausible[..., None, :]

    def _bits(self, masks: np.ndarray, n: int) -> np.ndarray:
        out = (masks[..., None] >> np.arange(n)) & 1
        return out.astype(bool)

    # --- history ---
    @property
    def moves(self) -> list[Move]:
        """Every move of the game so far, oldest first (empty before the first move).

        Every seat's moves, this seat's included, as public :class:`Move` records: what was
        played or discarded (card and uid), which cards a hint touched, and which card the
        mover drew (:attr:`Move.drawn_uid`; its identity only where this seat can see it).
        """
        return _moves_from(self.raw, 0, int(self.raw.scal[V.V_N_MOVES]))

    @property
    def moves_since_last_turn(self) -> list[Move]:
        """The moves made since this seat's previous move, oldest first.

        The hook for a bot that tracks the game move by move: every other seat's moves since
        this seat last moved (and this seat's previous move is the one before the first of
        them). All moves of the game when this seat has not moved yet; empty on the game's
        first turn. There is no separate observe callback: a policy decides from its view,
        and the view carries the history, so reading this list at the start of each
        :meth:`agents.Policy.act` sees every move exactly once (docs/tutorials/
        bring-your-own-bot.md).
        """
        return _moves_from(self.raw, int(self.raw.scal[V.V_SINCE]), int(self.raw.scal[V.V_N_MOVES]))

    def moves_from(self, start: int) -> list[Move]:
        """The moves from index ``start`` on, oldest first (``moves[start:]``, built cheaper).

        For a bot that replays every move once, its own included (the outcome of its own
        play, the card it drew): keep the number of moves seen, ``n``, and read
        ``view.moves_from(n)`` on each turn.

        Args:
            start: A move index, ``0 <= start``; at or past the number of moves gives ``[]``.

        Raises:
            TypeError, ValueError: ``start`` is not a non-negative int.
        """
        start = check_int("start", start, 0)
        n_moves = int(self.raw.scal[V.V_N_MOVES])
        return _moves_from(self.raw, min(start, n_moves), n_moves)

    def discard_pile(self) -> list[Move]:
        """The discard pile in order: every card discarded or misplayed, oldest first.

        A misplayed card goes to the discard pile, as in the rules (and as
        :attr:`discard_counts` counts it). Each entry is the move that put the card there:
        :attr:`Move.card`, :attr:`Move.uid`, :attr:`Move.color`, :attr:`Move.rank`,
        :attr:`Move.actor` and :attr:`Move.index`; ``kind == "play"`` marks a misplay.
        """
        rec = self.raw.hist[: int(self.raw.scal[V.V_N_MOVES])]
        kind = rec[:, E.H_KIND]
        pile = (kind == E.DISCARD) | ((kind == E.PLAY) & (rec[:, E.H_SCORED] != 1))
        return _moves_at(self.raw, np.flatnonzero(pile).tolist())

    def played_cards(self) -> list[Move]:
        """The fireworks' history in order: every card played successfully, oldest first.

        Each entry is the scoring play (:attr:`Move.scored` is True), with its card, uid,
        colour and rank; together they add up to :attr:`fireworks`.
        """
        rec = self.raw.hist[: int(self.raw.scal[V.V_N_MOVES])]
        scored = (rec[:, E.H_KIND] == E.PLAY) & (rec[:, E.H_SCORED] == 1)
        return _moves_at(self.raw, np.flatnonzero(scored).tolist())

    def card_hints(
        self,
        player: int | None = None,
        slot: int | None = None,
        *,
        uid: int | None = None,
        negative: bool = True,
    ) -> list[Hint]:
        """The hints one card received, in order, from the move history.

        Name the card by its place, ``player`` and ``slot`` (a card held now), or by its
        stable identity ``uid`` (:attr:`card_uids`, :attr:`Move.uid`, :attr:`Move.drawn_uid`;
        also a card that has left the hands).

        Args:
            player: Absolute seat holding the card now (with ``slot``).
            slot: Its slot in that hand, ``0 <= slot < hand_lengths[player]``.
            uid: The card's uid instead (``0 <= uid < n_cards``, a card already dealt).
            negative: Also list the hints its owner received while holding it that did not
                touch it (``Hint.positive`` False: the card is *not* that colour or rank).

        Returns:
            The hints, oldest first; empty when the card received none.

        Raises:
            TypeError: An argument is not an int (``negative``: not a bool).
            ValueError: Neither or both of (``player``, ``slot``) and ``uid``; ``player`` is no
                seat, ``slot`` is an empty slot of that hand; ``uid`` is out of range or names
                a card still in the deck.
        """
        negative = check_bool("negative", negative)
        if uid is None:
            if player is None or slot is None:
                raise ValueError("card_hints needs player and slot, or uid")
            player = check_int("player", player, 0, self.n_players - 1)
            slot = check_int("slot", slot, 0, int(self.raw.hand_len[player]) - 1)
            uid = int(self.raw.uids[player, slot])
        elif player is not None or slot is not None:
            raise ValueError("card_hints takes player and slot, or uid, not both")
        uid = check_int("uid", uid, 0, int(self.raw.cfg[E.CFG_N_CARDS]) - 1)
        owner, leave = self._holder(uid)
        hist = self.raw.hist
        n_cards = int(self.raw.cfg[E.CFG_N_CARDS])
        out = []
        for m in range(leave):
            rec = hist[m]
            kind = int(rec[E.H_KIND])
            if kind not in (E.REVEAL_COLOR, E.REVEAL_RANK) or int(rec[E.H_TARGET]) != owner:
                continue
            if uid >= n_cards - int(rec[E.H_DECK_BEFORE]):  # not drawn yet at this hint
                continue
            positive = bool((self.raw.hist_uids[m] == uid).any())
            if positive or negative:
                out.append(
                    Hint(
                        index=m,
                        giver=int(rec[E.H_ACTOR]),
                        target=owner,
                        kind=MOVE_KINDS[kind],
                        color=int(rec[E.H_COLOR]) if kind == E.REVEAL_COLOR else -1,
                        rank=int(rec[E.H_RANK]) if kind == E.REVEAL_RANK else -1,
                        positive=positive,
                    )
                )
        return out

    def _holder(self, uid: int) -> tuple[int, int]:
        """``(owner, end)``: who holds or held card ``uid``, and the move it left (or n_moves).

        Raises:
            ValueError: The card is still in the deck.
        """
        n_moves = int(self.raw.scal[V.V_N_MOVES])
        rec = self.raw.hist[:n_moves]
        left = np.flatnonzero(
            ((rec[:, E.H_KIND] == E.PLAY) | (rec[:, E.H_KIND] == E.DISCARD))
            & (rec[:, E.H_UID] == uid)
        )
        if left.size:
            return int(rec[left[0], E.H_ACTOR]), int(left[0])
        where = np.argwhere(self.raw.uids == uid)
        if where.size:
            return int(where[0, 0]), n_moves
        dealt = int(self.raw.cfg[E.CFG_N_CARDS]) - self.deck_size
        raise ValueError(
            f"uid={uid} is a card still in the deck; allowed: a dealt card, 0 <= uid < {dealt}"
        )

    # --- moves ---
    def legal_mask(self) -> np.ndarray:
        """This seat's legal moves, computed from the view alone.

        The engine's legality kernel (:func:`hanabi_env.engine.legal_moves`) on this view:
        equal to :meth:`HanabiGame.legal_mask` when this seat is on turn. Like the AEC env's
        ``action_mask``, all zeros when this seat is not on turn or the game is over.

        Returns:
            ``(n_actions,)`` int8, 1 for each legal move uid (PettingZoo hanabi_v5 action
            order, docs/anchors.md §2.3), a new array.
        """
        out = np.zeros(int(self.raw.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
        if self.current_player == self.seat and not self.is_terminal:
            if self._packed is None:  # writable copies: the kernels' usual argument types
                self._packed = V.pack_view(V.View(*(np.array(a) for a in self.raw)))
            V.view_legal_mask(self._packed, out)
        return out

    def legal_actions(self) -> np.ndarray:
        """This seat's legal move uids, ascending (int64; empty when it is not on turn).

        The nonzero entries of :meth:`legal_mask`.
        """
        return np.flatnonzero(self.legal_mask())

    def action_uid(
        self,
        kind: str,
        slot: int | None = None,
        target: int | None = None,
        color: int | str | None = None,
        rank: int | None = None,
    ) -> int:
        """The move uid (HLE / PettingZoo hanabi_v5 action order) of a move of this seat.

        Args:
            kind: ``"play"``, ``"discard"``, ``"reveal_color"`` or ``"reveal_rank"``.
            slot: Hand slot (0 = oldest under the default hand order), for plays and
                discards; ``0 <= slot < hand_size``.
            target: Absolute seat receiving a reveal (not this seat).
            color: Colour revealed: an index in ``[0, n_colors)`` or a letter of ``"RYGWB"``.
            rank: Rank revealed, 0-based (0 = rank 1), in ``[0, n_ranks)``.

        Arguments that the kind does not use are ignored.

        Returns:
            The uid, an int in ``[0, n_actions)``. It may still be illegal in the position
            (e.g. a reveal without information tokens, or one that touches no card): see
            :meth:`legal_mask`.

        Raises:
            TypeError: ``kind`` is not a str, or an argument the kind uses is neither None nor
                an int (``color``: nor a str).
            ValueError: Unknown ``kind``; an argument the kind uses is missing or out of
                range; ``target`` is this seat; ``color`` names no colour of the game.
        """
        code = MOVE_KINDS.index(check_choice("kind", kind, MOVE_KINDS))
        if code in (E.PLAY, E.DISCARD):
            slot = check_int("slot", _required("slot", slot, kind), 0, self.hand_size - 1)
            return int(E.encode_action(self.raw.cfg, self.seat, code, slot, -1, -1))
        last = self.n_players - 1
        target = check_int("target", _required("target", target, kind), 0, last)
        if target == self.seat:
            raise ValueError(f"target={target} is this seat; allowed: another seat in [0, {last}]")
        if code == E.REVEAL_COLOR:
            value = _colour_index(_required("color", color, kind), self.n_colors)
        else:
            value = check_int("rank", _required("rank", rank, kind), 0, self.n_ranks - 1)
        return int(E.encode_action(self.raw.cfg, self.seat, code, -1, target, value))

    def move_of(self, action: int) -> MoveSpec:
        """What move uid ``action`` means for this seat: the inverse of :meth:`action_uid`.

        Args:
            action: A move uid, ``0 <= action < n_actions`` (legal or not).

        Returns:
            A :class:`MoveSpec` (kind, slot, target seat, colour, rank; -1 where the kind
            has none); ``action_uid(**dataclasses.asdict(spec)) == action``.

        Raises:
            TypeError: ``action`` is not an int.
            ValueError: ``action`` is outside ``[0, n_actions)``.
        """
        n_actions = int(self.raw.cfg[E.CFG_N_ACTIONS])
        action = check_int("action", action, 0, n_actions - 1)
        kind, slot, target, color, rank = E.decode_action(self.raw.cfg, self.seat, action)
        return MoveSpec(MOVE_KINDS[int(kind)], int(slot), int(target), int(color), int(rank))

    def describe_action(self, action: int) -> str:
        """Readable text of move uid ``action`` for this seat, e.g. ``"play slot 2"``.

        The text of :func:`describe_move` (``"discard slot 0"``, ``"reveal R to player_1"``,
        ``"reveal rank 3 to player_1"``); :meth:`move_of` gives the same move as fields.

        Raises:
            TypeError: ``action`` is not an int.
            ValueError: ``action`` is outside ``[0, n_actions)``.
        """
        action = check_int("action", action, 0, int(self.raw.cfg[E.CFG_N_ACTIONS]) - 1)
        return describe_move(self.raw.cfg, self.seat, action)

    # --- encodings ---
    def encode(self, observation_type: str | None = None) -> np.ndarray:
        """HLE canonical observation vector of this view (int8, docs/anchors.md §2.2).

        Args:
            observation_type: ``"minimal"`` or ``"card_knowledge"``; defaults to the env's type.
                ``"seer"`` needs a seer view (see :meth:`HanabiGame.view`).

        Raises:
            ValueError: Unknown type, or ``"seer"`` on a view without the viewer's cards.
        """
        ot = self._observation_type if observation_type is None else _obs_type(observation_type)
        if ot == V.OBS_SEER and not self.raw.scal[V.V_SEER]:
            raise ValueError("observation_type='seer' needs a seer view (view(seat, seer=True))")
        out = np.zeros(V.observation_size(self.raw.cfg, ot), dtype=np.int8)
        V.encode_observation(self.raw, ot, out)
        return out

    def __repr__(self) -> str:
        """Short description."""
        return (
            f"PlayerView(seat={self.seat}, current_player={self.current_player}, "
            f"fireworks={self.fireworks.tolist()}, info={self.information_tokens}, "
            f"life={self.life_tokens}, deck={self.deck_size})"
        )


def _required(name: str, value: object, kind: str) -> object:
    """``value``, which move kind ``kind`` needs (ValueError when it is None)."""
    if value is None:
        raise ValueError(f"{name} is required for kind={kind!r} (got None)")
    return value


def _colour_index(color: object, n_colors: int) -> int:
    """A colour given as an index or as a letter of :data:`COLOR_NAMES`, checked."""
    allowed = f"[0, {n_colors - 1}] or one of {COLOR_NAMES[:n_colors]!r}"
    if isinstance(color, str):
        i = COLOR_NAMES.find(color.upper()) if len(color) == 1 else -1
        if not 0 <= i < n_colors:
            raise ValueError(f"color={color!r} names no colour of this game; allowed: {allowed}")
        return i
    if not is_int(color):
        raise type_error("color", "an int or a colour letter", color)
    return check_int("color", color, 0, n_colors - 1, allowed=allowed)


def _obs_type(name: str) -> int:
    return V.OBSERVATION_TYPES[check_choice("observation_type", name, V.OBSERVATION_TYPES)]


class HanabiGame:
    """One Hanabi game on the compiled engine, without any RL API.

    Args:
        config: A :class:`HanabiConfig`; or pass its fields as keyword arguments.

    Example:
        >>> g = HanabiGame(players=2, scoring="lenient")
        >>> g.reset(seed=0)
        >>> while not g.is_terminal:
        ...     _ = g.step(int(g.legal_actions()[0]))
    """

    def __init__(self, config: HanabiConfig | None = None, **kwargs):
        """Allocate the state for ``config`` (or ``HanabiConfig(**kwargs)``)."""
        if config is None:
            config = HanabiConfig(**kwargs)
        elif kwargs:
            raise TypeError("pass either config or keyword arguments, not both")
        elif not isinstance(config, HanabiConfig):
            raise type_error("config", "a HanabiConfig or None", config)
        self.config = config
        self.state = E.new_state(config)
        self._view_buf = V.new_view(self.state)
        self._mask = np.zeros(self.n_actions, dtype=np.int8)
        self._obs_type = V.OBSERVATION_TYPES[config.observation_type]
        self._obs_size = V.observation_size(self.state.cfg, self._obs_type)
        self._dealt = False
        self._full_deck: np.ndarray | None = None

    @property
    def n_actions(self) -> int:
        """Size of the action space, ``2h + (p - 1)(c + r)``."""
        return int(self.state.cfg[E.CFG_N_ACTIONS])

    @property
    def observation_size(self) -> int:
        """Length of the observation vector for the configured observation type."""
        return V.observation_size(self.state.cfg, self._obs_type)

    @property
    def is_dealt(self) -> bool:
        """Whether a game has been dealt (:meth:`reset` or :meth:`reset_with_deck`)."""
        return self._dealt

    def _check_start_player(self, start_player) -> int:
        return check_int("start_player", start_player, 0, self.config.players - 1)

    def reset(self, seed: int, start_player: int | None = None) -> None:
        """Deal a new game from ``seed`` (a non-negative int; same seed, same deal).

        Every argument is checked before anything changes: a call that raises leaves the
        previous game exactly as it was.

        Args:
            seed: Deal seed, ``0 <= seed < 2**62``.
            start_player: Seat to move first; default 0, or drawn from the seed when the
                configuration has ``random_start_player``.

        Raises:
            TypeError: ``seed`` or ``start_player`` is not an int (bools and floats are not).
            ValueError: ``seed`` or ``start_player`` out of range.
        """
        seed = check_seed("seed", seed)
        if start_player is not None:
            start_player = self._check_start_player(start_player)
        E.reset_state(self.state, int(seed), bool(self.config.random_start_player))
        if start_player is not None:
            self.state.scal[E.S_CUR] = start_player
            self.state.scal[E.S_START] = start_player
        self._dealt = True

    def reset_with_deck(self, deck, start_player: int = 0) -> None:
        """Start a game with an explicit deck order (card ids, first dealt first).

        Every argument is checked before anything changes: a call that raises leaves the
        previous game exactly as it was.

        Args:
            deck: ``(n_cards,)`` integer array-like: a permutation of this configuration's
                card ids (``colour * ranks + rank``, with repeats as the deck has them).
            start_player: Seat to move first (default 0).

        Raises:
            TypeError: ``deck`` is not an integer sequence, or ``start_player`` not an int.
            ValueError: ``deck`` is not a permutation of this configuration's cards, or
                ``start_player`` is out of range.
        """
        start_player = self._check_start_player(start_player)
        if isinstance(deck, (str, bytes)) or not hasattr(deck, "__len__"):
            raise type_error("deck", "a sequence of int card ids", deck)
        if len(deck) > self.config.n_cards:  # before converting a sequence of any length
            raise ValueError(
                f"deck must be a permutation of the {self.config.n_cards} cards of this "
                f"configuration, got {len(deck)} cards"
            )
        try:
            raw = np.asarray(deck)
        except (ValueError, TypeError) as exc:  # ragged nested sequences
            raise TypeError(f"deck must be a flat sequence of int card ids ({exc})") from None
        if raw.dtype.kind not in "iu":
            raise TypeError(
                f"deck must be a sequence of int card ids, got dtype {raw.dtype} "
                "(floats, bools and strings are refused)"
            )
        s = self.state
        expected = self._ordered_deck()
        if raw.shape != expected.shape or not np.array_equal(np.sort(raw), expected):
            raise ValueError(
                f"deck must be a permutation of the {self.config.n_cards} cards of this "
                f"configuration (card ids 0..{self.config.colors * self.config.ranks - 1}, "
                "each as often as the deck holds it)"
            )
        E.reset_with_deck(s, raw.astype(np.int32), start_player)
        self._dealt = True

    def _ordered_deck(self) -> np.ndarray:
        """The sorted card ids of a full deck of this configuration (computed once)."""
        if self._full_deck is None:
            saved = self.state.deck.copy()
            E.fill_ordered_deck(self.state)
            self._full_deck = np.sort(self.state.deck.copy())
            self.state.deck[:] = saved
        return self._full_deck

    def _require_dealt(self) -> None:
        if not self._dealt:
            raise RuntimeError("call reset(seed) before using the game")

    # --- queries (each raises RuntimeError before the first reset, as the methods do) ---
    current_player: int = _dealt_field(int, E.S_CUR, "Absolute seat to move.")
    is_terminal: bool = _dealt_field(bool, E.S_DONE, "Whether the game is over.")
    fireworks_total: int = _dealt_field(
        int, E.S_FIREWORKS, "Sum of the fireworks (the lenient score)."
    )
    n_moves: int = _dealt_field(int, E.S_N_MOVES, "Moves made so far.")

    @property
    def score(self) -> int:
        """Score under the configured variant (strict: 0 once the lives run out).

        Raises:
            RuntimeError: Before the first :meth:`reset`.
        """
        self._require_dealt()
        return int(E.score(self.state))

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """``(n_actions,)`` int8, 1 for each legal move of the seat to move (zeros at the end).

        Args:
            out: An ``(n_actions,)`` int8 array to write the mask into (returned); by default
                a new array.

        Raises:
            TypeError, ValueError: ``out`` is not an int8 array of shape ``(n_actions,)``.
        """
        self._require_dealt()
        if out is None:
            E.legal_mask(self.state, self._mask)
            return self._mask.copy()
        E.legal_mask(self.state, self._check_mask("out", out))
        return out

    def _check_mask(self, name: str, mask: object) -> np.ndarray:
        if type(mask) is np.ndarray and mask.dtype == np.int8 and mask.shape == self._mask.shape:
            return mask  # the common case, fast
        if not isinstance(mask, np.ndarray):
            raise type_error(name, "a numpy int8 array", mask)
        raise ValueError(
            f"{name}=array(dtype={mask.dtype}, shape={mask.shape}) is not allowed; allowed: an "
            f"int8 array of shape ({self.n_actions},)"
        )

    def legal_actions(self) -> np.ndarray:
        """Legal move uids of the seat to move, ascending (int64)."""
        return np.flatnonzero(self.legal_mask())

    def step(self, action: int) -> int:
        """Apply ``action`` for the seat to move and return the score change.

        Raises:
            TypeError: ``action`` is not an int.
            ValueError: The game is over, or ``action`` is illegal or out of range (the
                message lists the legal actions). The state is unchanged.
        """
        self._require_dealt()
        action = check_int("action", action)
        if self.is_terminal:
            raise ValueError("the game is over; call reset()")
        applied, points = self.try_step(action)  # one compiled call checks and applies
        if not applied:
            raise ValueError(
                f"action {action} ({self.action_to_string(int(action))}) is illegal for "
                f"player_{self.current_player}; legal actions: {self.legal_actions().tolist()}"
            )
        return points

    def try_step(self, action: int, mask_out: np.ndarray | None = None) -> tuple[bool, int]:
        """Apply ``action`` if it is legal for the seat to move; never raises for an illegal one.

        One compiled call checks the move, applies it and refreshes the legal mask: the AEC
        env's step (:meth:`hanabi_env.env.raw_env.step`) goes through here.

        Args:
            action: A move uid; an uid outside ``[0, n_actions)`` counts as illegal.
            mask_out: An ``(n_actions,)`` int8 array that receives the legal moves of the
                seat to move after the step (zeros at the end of the game); by default the
                game's own buffer.

        Returns:
            ``(applied, reward)``: ``applied`` is False, the reward 0 and the state unchanged
            when the move is illegal (also once the game is over).

        Raises:
            RuntimeError: Before the first :meth:`reset`.
            TypeError: ``action`` is not an int.
            TypeError, ValueError: ``mask_out`` is not an int8 array of shape ``(n_actions,)``.
        """
        self._require_dealt()
        if type(action) is not int:
            action = check_int("action", action)
        mask = self._mask if mask_out is None else self._check_mask("mask_out", mask_out)
        if not 0 <= action < self._mask.shape[0]:  # n_actions, without the property's cost
            return False, 0
        ok, reward = E.step_checked(self.state, action, mask)
        return bool(ok), int(reward)

    def view(self, seat: int, seer: bool = False) -> PlayerView:
        """Read-only :class:`PlayerView` of ``seat`` (with its own cards only if ``seer``)."""
        self._require_dealt()
        seat = self._check_seat(seat)
        seer = check_bool("seer", seer)
        V.fill_view(self.state, seat, self._view_buf, seer)
        return PlayerView(self._view_buf, self._obs_type)

    def observation(self, seat: int, observation_type: str | None = None) -> np.ndarray:
        """Canonical observation vector (int8) of ``seat`` (docs/anchors.md §2.2).

        Args:
            seat: Absolute seat.
            observation_type: ``"minimal"``, ``"card_knowledge"`` or ``"seer"`` (the seat's
                own cards too); defaults to the configured type.

        Raises:
            RuntimeError: Before the first :meth:`reset`.
            TypeError, ValueError: ``seat`` is not a seat of this game, or an unknown
                ``observation_type``.
        """
        self._require_dealt()
        seat = self._check_seat(seat)
        if observation_type is None:
            ot, size = self._obs_type, self._obs_size
        else:
            ot = _obs_type(observation_type)
            size = V.observation_size(self.state.cfg, ot)
        out = np.zeros(size, dtype=np.int8)
        V.observe_into(self.state, seat, self._view_buf, ot, out)
        return out

    def metrics(self, seat: int) -> dict:
        """Behaviour counters and metrics of ``seat`` so far (:mod:`hanabi_env.metrics`).

        Returns:
            :func:`hanabi_env.metrics.info_metrics` of the seat's counters: the counts, each
            metric as a float (``0.0`` where undefined) and its ``<metric>_defined`` flag.

        Raises:
            RuntimeError: Before the first :meth:`reset`.
            TypeError, ValueError: ``seat`` is not an int seat of this game.
        """
        self._require_dealt()
        self._check_seat(seat)
        return info_metrics(self.state.counters[seat])

    def _check_seat(self, seat, name: str = "seat") -> int:
        if type(seat) is int and 0 <= seat < self.config.players:  # the common case, fast
            return seat
        return check_int(name, seat, 0, self.config.players - 1)

    def action_to_string(self, action: int, seat: int | None = None) -> str:
        """Describe a move uid from ``seat``'s perspective (default: the seat to move).

        An int ``action`` outside the action space gives ``"<out of range: action>"``.

        Raises:
            TypeError, ValueError: ``action`` is not an int, or ``seat`` not a seat.
        """
        action = check_int("action", action)
        if seat is not None:
            seat = self._check_seat(seat)
        if not 0 <= action < self.n_actions:
            return f"<out of range: {action}>"
        cur = self.current_player if seat is None else seat
        return describe_move(self.state.cfg, cur, action)

    def render(self, seat: int | None = None) -> str:
        """Readable text board; ``seat`` hides that player's cards (default: show all)."""
        self._require_dealt()
        if seat is not None:
            seat = self._check_seat(seat)
        s = self.state
        public = s.public
        n_ranks = self.config.ranks
        lines = []
        end = "  (game over)" if self.is_terminal else ""
        lines.append(
            f"Score {self.score}  Info {int(s.scal[E.S_INFO])}/{self.config.max_information_tokens}"
            f"  Lives {int(s.scal[E.S_LIFE])}/{self.config.max_life_tokens}"
            f"  Deck {self.config.n_cards - int(s.scal[E.S_DECK_POS])}{end}"
        )
        lines.append(
            "Fireworks: "
            + " ".join(
                f"{COLOR_NAMES[c]}{int(public.fireworks[c])}" for c in range(self.config.colors)
            )
        )
        for p in range(self.config.players):
            marker = "->" if p == self.current_player and not self.is_terminal else "  "
            cards = []
            for k in range(int(public.hand_len[p])):
                name = "XX" if p == seat else card_name(int(E.card_of(s, p, k)), n_ranks)
                know = "".join(
                    COLOR_NAMES[c]
                    for c in range(self.config.colors)
                    if (public.col_plaus[p, k] >> c) & 1
                ) + "".join(
                    str(r + 1) for r in range(n_ranks) if (public.rank_plaus[p, k] >> r) & 1
                )
                cards.append(f"{name}|{know}")
            lines.append(f"{marker} player_{p}: " + "  ".join(cards))
        disc = [f"{card_name(c, n_ranks)}x{int(n)}" for c, n in enumerate(public.discards) if n > 0]
        lines.append("Discards: " + (" ".join(disc) if disc else "-"))
        if self.n_moves:
            rec = public.hist[self.n_moves - 1]
            actor = int(rec[E.H_ACTOR])
            desc = self.action_to_string(int(rec[E.H_ACTION]), seat=actor)
            if rec[E.H_KIND] in (E.PLAY, E.DISCARD):
                desc += f" ({card_name(int(rec[E.H_CARD]), n_ranks)}"
                desc += ", scored)" if rec[E.H_SCORED] == 1 else ")"
            lines.append(f"Last move: player_{actor} {desc}")
        return "\n".join(lines)
