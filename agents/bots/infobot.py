"""InfoBot: the hat-guessing strategy as a policy of this project (docs/bots_infobot.md).

InfoBot is the "information" strategy of Jeff Wu's hanabi.rs as Arthur O'Dwyer's C++ bots
(Quuxplusone/Hanabi, commit daef9de) play it: every hint is a sum, modulo the number of hint
types, of the answers of all other hands to questions that the public knowledge of each hand
decides, so that one hint tells every other player something about their own cards. This
module is this project's own implementation, checked game for game against the C++ program
(tests/agents/test_infobot.py, tools/quux_infobot_differential.py); the decisions are compiled
kernels (:mod:`agents.bots.infobot_core`).

The bot is deterministic: the same deck and partners give the same game.
"""

from __future__ import annotations

import numpy as np

from agents.bots import infobot_core as K
from agents.policy import Policy
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import PlayerView
from hanabi_env.validate import check_seed, check_str, type_error

__all__ = ["InfoBot", "check_infobot_game"]

_NOT_FOLLOWING = (
    "the game's history does not follow from the moves InfoBot has seen (was the bot given "
    "views of two games without reset()?)"
)


def _refusal(players: int, colors: int, ranks: int, hand: int, info: int, life: int, order: str):
    """The one-line reason InfoBot cannot play a game, or None when it can."""
    problems = []
    if not 2 <= players <= 5:
        problems.append(f"players={players} (allowed: 2 to 5)")
    if colors != K.NC or ranks != K.NV:
        problems.append(f"colors={colors}, ranks={ranks} (allowed: 5 and 5)")
    if not 1 <= hand <= 5:
        problems.append(f"hand_size={hand} (allowed: 1 to 5)")
    if info != K.MAX_HINTS or life != 3:
        problems.append(f"max_information_tokens={info}, max_life_tokens={life} (allowed: 8 and 3)")
    if order != "shift":
        problems.append(f"hand_order={order!r} (allowed: 'shift')")
    if not problems:
        return None
    return "InfoBot cannot play this game: " + "; ".join(problems)


def check_infobot_game(config: HanabiConfig) -> None:
    """Refuse a game InfoBot cannot play (before any move is asked).

    InfoBot plays the full game: 2–5 players, 5 colours of 5 ranks, 8 information and 3 life
    tokens, a played or discarded card leaving the hand and the new card drawn at its end
    (``hand_order="shift"``), hands of at most 5 cards. Either scoring may be used; the C++
    reference scores leniently (docs/bots_infobot.md §3) and hands of 5 cards at 2–3 players,
    4 at 4–5, the sizes checked game for game.

    Raises:
        TypeError: ``config`` is not a :class:`hanabi_env.HanabiConfig`.
        ValueError: The game differs in one of the points above (one message naming each).
    """
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a hanabi_env.HanabiConfig", config)
    why = _refusal(
        config.players,
        config.colors,
        config.ranks,
        config.hand_size,
        config.max_information_tokens,
        config.max_life_tokens,
        config.hand_order,
    )
    if why is not None:
        raise ValueError(why)


class _Seat:
    """What one seat's InfoBot knows in the current game (docs/bots_infobot.md §2)."""

    def __init__(self, n: int, h: int):
        self.info, self.hl, self.pcounts = K.new_knowledge(n, h)
        self.fw = np.zeros(K.NC, dtype=np.int64)
        self.disc = np.zeros((K.NC, K.NV), dtype=np.int64)
        self.sc = np.zeros(K.N_SC, dtype=np.int64)
        self.sc[K.SC_DECK] = K.TOTAL_CARDS - n * h
        self.sc[K.SC_HINTS] = K.MAX_HINTS
        self.sc[K.SC_LIVES] = 3
        self.seen = 0  # moves of the game observed so far
        self.cards: dict[int, int] = {}  # card identity (deck position) -> card, others' hands


class InfoBot(Policy):
    """InfoBot, the hat-guessing strategy (docs/bots_infobot.md), as a :class:`Policy`.

    The bot keeps the public knowledge of every hand from the public history alone: each call
    catches up with the moves made since the seat's previous call, as the C++ bot observes
    them. It plays with any partners; with InfoBots in every seat it makes the C++ reference's
    moves on every deck. One object may sit in several seats (it keeps one knowledge per
    seat). A new game is recognised by :meth:`reset` or by a history shorter than the one
    already seen.

    Against partners of other conventions InfoBot still moves legally: a hint or discard that
    no InfoBot would make teaches it nothing it cannot decode (docs/bots_infobot.md §4).

    Args:
        seed: Accepted for the agent registry and ignored: the bot is deterministic.
        name: Display name (default ``"infobot"``).

    Raises:
        TypeError: ``seed`` not an int or ``name`` not a str.
        ValueError: ``seed`` outside ``[0, 2**62)``.
    """

    name = "infobot"

    def __init__(self, seed: int = 0, name: str | None = None):
        """See the class docstring."""
        check_seed("seed", seed)
        if name is not None:
            self.name = check_str("name", name)
        self._seats: dict[int, _Seat] = {}
        self._out = np.zeros(3, dtype=np.int64)
        self._ws = K.new_workspace()

    def check_game(self, config: HanabiConfig) -> None:
        """Refuse a game InfoBot cannot play: see :func:`check_infobot_game`."""
        check_infobot_game(config)

    def reset(self, seed: int | None = None) -> None:
        """Forget the current game (``seed`` is checked and ignored: the bot is deterministic).

        Raises:
            TypeError, ValueError: ``seed`` is not None or an int in ``[0, 2**62)``.
        """
        check_seed("seed", seed, allow_none=True)
        self._seats = {}

    def _new_game(self, view: PlayerView) -> _Seat:
        cfg = view.raw.cfg
        order = "shift" if int(cfg[E.CFG_HAND_ORDER]) != E.HAND_FIXED else "fixed"
        why = _refusal(
            view.n_players,
            view.n_colors,
            view.n_ranks,
            view.hand_size,
            view.max_information_tokens,
            int(cfg[E.CFG_MAX_LIFE]),
            order,
        )
        if why is not None:
            raise ValueError(why)
        seat = _Seat(view.n_players, view.hand_size)
        self._seats[view.seat] = seat
        return seat

    def act(self, view: PlayerView) -> int:
        """InfoBot's move for the seat of ``view`` (which must be on turn).

        Raises:
            TypeError: ``view`` is not a :class:`hanabi_env.PlayerView`.
            ValueError: The game is one InfoBot cannot play (:func:`check_infobot_game`), the
                seat is not on turn, or the history contradicts what the bot has seen.
        """
        if not isinstance(view, PlayerView):
            raise type_error("view", "a hanabi_env.PlayerView", view)
        raw = view.raw
        n_moves = int(raw.scal[V.V_N_MOVES])
        me = view.seat
        st = self._seats.get(me)
        if st is None or n_moves < st.seen or st.hl.shape[0] != view.n_players:
            st = self._new_game(view)
        if view.current_player != me or view.is_terminal:
            raise ValueError(f"seat {me} is not on turn; InfoBot acts only on its turn")
        hands = raw.cards.astype(np.int64)
        hl_now = raw.hand_len.astype(np.int64)
        hands[me, :] = -1
        cards = {
            int(u): int(c)
            for u, c in zip(raw.uids.ravel(), hands.ravel(), strict=True)
            if u >= 0 and c >= 0
        }
        if not all(st.cards.get(u, c) == c for u, c in cards.items()):
            del self._seats[me]  # a card seen before is another card now: another game
            raise ValueError(_NOT_FOLLOWING)
        hist = raw.hist.astype(np.int64)
        bad = K.catch_up(me, hist, st.seen, n_moves, hands, hl_now, st.info, st.hl, st.pcounts,
                         st.fw, st.disc, st.sc, self._ws)  # fmt: skip
        st.seen = n_moves
        st.cards = cards
        if (
            bad
            or st.sc[K.SC_DECK] != view.deck_size
            or st.sc[K.SC_HINTS] != view.information_tokens
            or st.sc[K.SC_LIVES] != view.life_tokens
            or not np.array_equal(st.fw, view.fireworks)
            or st.hl[me] != hl_now[me]
        ):
            del self._seats[me]
            raise ValueError(_NOT_FOLLOWING)
        st.sc[K.SC_PLAYER] = me
        K.decide_from_python(me, st.info, st.hl, st.fw, st.disc, st.sc, hands, self._out, self._ws)
        kind, a, b = (int(x) for x in self._out)
        if kind == K.M_PLAY:
            uid = view.action_uid("play", slot=a)
        elif kind == K.M_DISCARD:
            uid = view.action_uid("discard", slot=a)
        elif kind == K.M_COLOR:
            uid = view.action_uid("reveal_color", target=a, color=b)
        else:
            uid = view.action_uid("reveal_rank", target=a, rank=b)
        mask = view.legal_mask()
        if not mask[uid]:
            # The C++ bot may, very rarely, name a hint that touches no card (an empty hint,
            # which its server allows in -O3 builds and this engine does not): make the
            # last legal move of HLE's move order instead, a hint when one is legal
            # (docs/bots_infobot.md §4).
            uid = int(np.flatnonzero(mask)[-1])
        return uid

    def __repr__(self) -> str:
        """Name."""
        return f"InfoBot({self.name!r})"
