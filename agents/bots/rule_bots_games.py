"""Whole games of SimpleBot, ValueBot or HolmesBot in every seat, in one compiled loop.

docs/bots.md §4.2. :func:`play_simplebot_games`, :func:`play_valuebot_games` and
:func:`play_holmesbot_games` play self-play games, table and bots together, with no Python per
move (on the bots' own table, not through the engine: :func:`play_rule_bot_games_kernel`): the
fast path for self-play scores and the speed benchmark (``benchmarks/bench_bots.py``).
The decisions are the kernels of :mod:`agents.bots.rule_bots_core`, which the policies
(:class:`~agents.bots.simple.SimpleBot`, ...) use too; these bots' beliefs come from public
events only, so the loop keeps one copy per game (that module's docstring), and the moves are
the Python bots' (``tests/agents/test_bots.py`` compares them move for move).

:class:`CompiledSeats` is the policies' side: one seat's arrays per seat played, replayed from
the view's history by :func:`agents.bots.rule_bots_core.replay_and_decide`.
"""

from __future__ import annotations

import numpy as np

from agents.bots import rule_bots_core as K
from agents.bots._table import BotPolicy, check_config_game, check_raw_game
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import PlayerView
from hanabi_env.jit import inline, njit
from hanabi_env.validate import type_error

__all__ = [
    "CompiledRuleBot",
    "CompiledSeats",
    "play_holmesbot_games",
    "play_simplebot_games",
    "play_valuebot_games",
]


@inline
def _move(cfg, cur, out, hands, hl):
    """The move uid of the decision ``out``; its engine kind; the touched slots of a hint."""
    kind = out[0]
    if kind == K.M_PLAY:
        return E.encode_action(cfg, cur, E.PLAY, out[1], -1, -1), E.PLAY, 0
    if kind == K.M_DISCARD:
        return E.encode_action(cfg, cur, E.DISCARD, out[1], -1, -1), E.DISCARD, 0
    target = out[1]
    touched = 0
    for i in range(hl[target]):
        card = hands[target, i]
        attr = card // 5 if kind == K.M_COLOUR else card % 5 + 1
        if attr == out[2]:
            touched |= 1 << i
    if kind == K.M_COLOUR:
        uid = E.encode_action(cfg, cur, E.REVEAL_COLOR, -1, target, out[2])
        return uid, E.REVEAL_COLOR, touched
    uid = E.encode_action(cfg, cur, E.REVEAL_RANK, -1, target, out[2] - 1)
    return uid, E.REVEAL_RANK, touched


@inline
def _step(bot, cfg, deck, pos, cur, kn, g, pub, hands, hl, scr, out):
    """Seat ``cur`` decides and every seat reads its move; the table moves past it.

    Returns the move uid and the next deck position.
    """
    if bot == K.HOLMES:
        K.holmes_before_move(kn, g, pub, hl, scr)
    K.decide(bot, cur, kn, g, pub, hands, hl, out)
    uid, kind, touched = _move(cfg, cur, out, hands, hl)
    if kind > E.DISCARD:
        c = out[2] if kind == E.REVEAL_COLOR else -1
        v = out[2] if kind == E.REVEAL_RANK else 0
        K.observe(bot, kn, g, pub, hl, cur, kind, -1, out[1], c, v, touched)
        K.advance(g, hl, kind, cur, c, v)
        return uid, pos
    slot = out[1]
    card = hands[cur, slot]
    K.observe(bot, kn, g, pub, hl, cur, kind, slot, -1, card // 5, card % 5 + 1, 0)
    drew = g[K.G_DECK] > 0
    K.advance(g, hl, kind, cur, card // 5, card % 5 + 1)
    for j in range(slot, hands.shape[1] - 1):
        hands[cur, j] = hands[cur, j + 1]
    hands[cur, hands.shape[1] - 1] = -1
    if drew:
        hands[cur, hl[cur] - 1] = deck[pos]
        pos += 1
    return uid, pos


@njit(_nrt=False, error_model="numpy")
def play_rule_bot_games_kernel(
    bot, cfg, decks, out_scores, out_actions, kn, g, pub, hands, hl, scr, out
):
    """Play one game of ``bot`` in every seat per row of ``decks`` (seat 0 starts).

    The game is the bots' own table (:func:`agents.bots.rule_bots_core.advance`, which the
    policies replay their history with), with the hands and the deck: the engine's rules
    (docs/rules.md §15; the last round after the last card is drawn, HLE's), without its
    views, history and counters, which these games do not need. ``tests/agents/test_bots.py``
    replays every move on :class:`hanabi_env.HanabiGame` and checks the ends and scores agree.

    Args:
        bot: :data:`~agents.bots.rule_bots_core.SIMPLE`, ``VALUE`` or ``HOLMES``.
        cfg: An engine configuration array (``State.cfg``) of the games.
        decks: ``(n_games, n_cards)`` int32 decks (card ids, first dealt first).
        out_scores: ``(n_games,)`` int64, the scores (the configuration's scoring), written.
        out_actions: ``(n_games, max_moves)`` int16 move uids, -1 padded, written when it has
            ``n_games`` rows (a ``(0, 0)`` array records nothing).
        kn: Scratch of :mod:`agents.bots.rule_bots_core`'s layout, as the next six.
        g: Scratch.
        pub: Scratch.
        hands: Scratch.
        hl: Scratch.
        scr: Scratch.
        out: Scratch.

    Returns:
        The number of moves played.
    """
    n = kn.shape[0]
    h = kn.shape[1]
    record = out_actions.shape[0] == decks.shape[0]
    moves = 0
    for game in range(decks.shape[0]):
        deck = decks[game]
        K.new_game(kn, g, pub, hl)
        for p in range(n):
            for i in range(h):
                hands[p, i] = deck[p * h + i]
        pos = n * h
        turns_left = n  # after the last card is drawn, every seat moves once more
        cur = 0
        m = 0
        if record:
            for k in range(out_actions.shape[1]):
                out_actions[game, k] = -1
        while True:
            if g[K.G_DECK] == 0:
                turns_left -= 1
            uid, pos = _step(bot, cfg, deck, pos, cur, kn, g, pub, hands, hl, scr, out)
            if record:
                out_actions[game, m] = uid
            m += 1
            total = g[0] + g[1] + g[2] + g[3] + g[4]
            if g[K.G_LIVES] <= 0 or total >= 25 or turns_left <= 0:
                break
            cur = (cur + 1) % n
        lost = cfg[E.CFG_LENIENT] == 0 and g[K.G_LIVES] <= 0
        out_scores[game] = 0 if lost else total
        moves += m
    return moves


_CODES = {"SimpleBot": K.SIMPLE, "ValueBot": K.VALUE, "HolmesBot": K.HOLMES}


def _scratch(players: int, hand: int) -> tuple[np.ndarray, ...]:
    """``(kn, g, pub, hands, hl, scr, out)`` of :mod:`agents.bots.rule_bots_core`'s layout."""
    return (
        np.zeros((players, hand, K.N_FIELDS), dtype=np.int64),
        np.zeros(K.G_SIZE, dtype=np.int64),
        np.zeros((5, 6), dtype=np.int64),
        np.full((players, hand), -1, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(K.SCR_SIZE, dtype=np.int64),
        np.zeros(3, dtype=np.int64),
    )


def _play(
    name: str, config: HanabiConfig, decks: np.ndarray, record: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a HanabiConfig", config)
    check_config_game(config, name)
    arr = np.asarray(decks)
    if arr.dtype.kind not in "iu":
        raise type_error("decks", "an integer array of card ids", decks)
    if arr.ndim != 2 or arr.shape[1] != config.n_cards:
        raise ValueError(
            f"decks must have shape (n_games, {config.n_cards}), got {tuple(arr.shape)}"
        )
    s = E.new_state(config)
    scores = np.zeros(arr.shape[0], dtype=np.int64)
    n_rec = arr.shape[0] if record else 0
    actions = np.zeros((n_rec, int(s.cfg[E.CFG_MAX_MOVES]) if record else 0), dtype=np.int16)
    play_rule_bot_games_kernel(
        _CODES[name],
        s.cfg,
        np.ascontiguousarray(arr, dtype=np.int32),
        scores,
        actions,
        *_scratch(config.players, config.hand_size),
    )
    return scores, (actions if record else None)


def play_simplebot_games(
    config: HanabiConfig, decks: np.ndarray, record: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Play SimpleBots in every seat on each deck (see :func:`play_holmesbot_games`)."""
    return _play("SimpleBot", config, decks, record)


def play_valuebot_games(
    config: HanabiConfig, decks: np.ndarray, record: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Play ValueBots in every seat on each deck (see :func:`play_holmesbot_games`)."""
    return _play("ValueBot", config, decks, record)


def play_holmesbot_games(
    config: HanabiConfig, decks: np.ndarray, record: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Play HolmesBots in every seat on each deck; seat 0 starts.

    The same signature and return convention as
    :func:`agents.bots.smart_games.play_smartbot_games`; :func:`play_simplebot_games` and
    :func:`play_valuebot_games` are the same for their bots.

    Args:
        config: The game: the reference bots' (docs/bots.md §2), any scoring.
        decks: ``(n_games, n_cards)`` integer card ids (``colour * 5 + rank``), first dealt
            first, each a permutation of the configuration's cards (not checked here).
        record: Also return the move uids.

    Returns:
        ``(scores, actions)``: ``(n_games,)`` int64 scores under the configuration's scoring
        and, when ``record``, ``(n_games, max_moves)`` int16 move uids (-1 padded), else None.

    Raises:
        TypeError: ``config`` not a HanabiConfig or ``decks`` not an integer array.
        ValueError: A game other than the reference bots', or ``decks`` of the wrong shape.
    """
    return _play("HolmesBot", config, decks, record)


class _Seat:
    """One seat's arrays on the compiled path, and how many moves it has replayed."""

    def __init__(self, players: int, hand: int):
        self.kn, self.g, self.pub, self.hands, self.hl, self.scr, self.out = _scratch(players, hand)
        self.kn[:, :, K.F_COL] = -1  # K.new_game, which Python cannot call
        self.kn[:, :, K.F_VAL] = -1
        self.g[K.G_HINTS], self.g[K.G_LIVES], self.g[K.G_DECK] = 8, 3, 50 - players * hand
        self.hl[:] = hand
        self.seen = 0


class CompiledSeats:
    """The compiled decisions of one bot for every seat a policy plays (docs/bots.md §4.2).

    The moves of the bot's Python hooks, from :func:`agents.bots.rule_bots_core
    .replay_and_decide` on one seat's arrays per seat.

    Args:
        name: ``"SimpleBot"``, ``"ValueBot"`` or ``"HolmesBot"``.
    """

    def __init__(self, name: str):
        """See the class docstring."""
        self.name = name
        self.code = _CODES[name]
        self._seats: dict[int, _Seat] = {}

    def reset(self) -> None:
        """Forget every seat."""
        self._seats = {}

    def act(self, view: PlayerView) -> int:
        """Replay the moves since this seat's last turn, then decide (a legal move uid).

        Raises:
            ValueError: A game other than the reference bots' (docs/bots.md §2).
        """
        me = view.seat
        raw = view.raw
        n_moves = int(raw.scal[V.V_N_MOVES])
        seat = self._seats.get(me)
        if seat is None or seat.seen > n_moves:
            players, hand = check_raw_game(raw.cfg, self.name)
            seat = self._seats[me] = _Seat(players, hand)
        out = seat.out
        K.replay_and_decide(
            self.code, me, seat.kn, seat.g, seat.pub, seat.hl, seat.scr, seat.hands, raw.cards,
            raw.hist, seat.seen, n_moves, out,
        )  # fmt: skip
        seat.seen = n_moves
        kind, a, b = int(out[0]), int(out[1]), int(out[2])
        if kind == K.M_PLAY:
            return view.action_uid("play", slot=a)
        if kind == K.M_DISCARD:
            return view.action_uid("discard", slot=a)
        if kind == K.M_COLOUR:
            return view.action_uid("reveal_color", target=a, color=b)
        return view.action_uid("reveal_rank", target=a, rank=b - 1)


class CompiledRuleBot(BotPolicy):
    """Base of SimpleBot, ValueBot and HolmesBot: decide with the kernels, or in Python.

    Args:
        seed: Accepted for the common interface (the bots draw nothing).
        compiled: Decide with the numba kernels of :mod:`agents.bots.rule_bots_core` (the
            default; the same moves, docs/bots.md §4.2) instead of the bot's Python hooks.

    Raises:
        TypeError: ``compiled`` not a bool.
        ValueError: From ``act``/``check_game``: a game other than the reference bots'
            (docs/bots.md §2).
    """

    def __init__(self, seed: int = 0, compiled: bool = True):
        """See the class docstring."""
        super().__init__(seed)
        if not isinstance(compiled, bool):
            raise type_error("compiled", "a bool", compiled)
        self.compiled = compiled
        self._fast = CompiledSeats(self.name)

    def reset(self, seed: int | None = None) -> None:
        """Forget every seat's memory (``seed`` is checked, not used: the bot is deterministic)."""
        super().reset(seed)
        self._fast.reset()

    def act(self, view: PlayerView) -> int:
        """Replay the moves since this seat's last turn, then decide (a legal move uid)."""
        if not self.compiled:
            return super().act(view)
        return self._fast.act(view)
