"""Game records in hanab.live's JSON format: a played :class:`HanabiGame` out, and back in.

`hanab.live <https://hanab.live>`_ is where people play Hanabi online. It stores and exports a
game as one JSON object (its "format version 3"), and replays any such object: "Watch Specific
Replay" -> "JSON Data", paste it (docs/browser.md §4). :func:`to_hanablive` writes a game of
this engine in that format, :func:`from_hanablive` replays a record (ours or one exported from
hanab.live, ``https://hanab.live/export/<game id>``) on the engine, and :func:`hanablive_end`
says where hanab.live ends a game. Nothing here touches the network.

**The format** (hanab.live's commented example ``misc/example_game_with_comments.jsonc`` and
the server's ``GameJSON``/``GameAction``/``CardIdentity`` structs, ``server/src/game_json.go``,
``server/src/models_game_actions.go``, ``server/src/card_identity.go`` of
https://github.com/Hanabi-Live/hanabi-live at commit 8503cd84a44d4ffdadb40e3d5da56dd853d00e51;
docs/browser.md §4)::

    {"players": ["Alice", "Bob"],                      # seat order; seat 0 deals first
     "deck": [{"suitIndex": 0, "rank": 3}, ...],       # all 50 cards, top of the deck first
     "actions": [{"type": 0, "target": 7, "value": 0}, # play the card of order 7
                 {"type": 1, "target": 3, "value": 0}, # discard the card of order 3
                 {"type": 2, "target": 1, "value": 4}, # colour clue to seat 1: suit 4
                 {"type": 3, "target": 0, "value": 5}],# rank clue to seat 0: rank 5
     "options": {"variant": "No Variant"},             # optional; see below
     "hanabi_adhoc": {...}}                            # ours; hanab.live ignores it

* A card's *order* is its position in ``deck`` (0 = first dealt): the engine's card uid
  (:attr:`hanabi_env.Move.uid`), so plays and discards name cards, not slots, and a record
  does not depend on the hand order. A misplay is a play (type 0): the server finds it fails.
* Cards are dealt from the top, each player a full hand before the next, player 0 first
  (the engine deals the same way, :mod:`hanabi_env.engine`). The hand size is hanab.live's
  table (``DefaultNumCardsPerHand`` in ``server/src/constants.go``): 5 cards at 2–3 players, 4
  at 4–5 (:data:`HANABLIVE_HAND_SIZE`, the rulebook's); one card more or less is the option
  ``oneExtraCard``/``oneLessCard`` (``server/src/game.go``, ``GetHandSize``), so a 5-card game at
  4 players (PettingZoo's ``hanabi_v5`` default) is recorded with ``"oneExtraCard": true``.
* Suits of "No Variant" are Red, Yellow, Green, Blue, Purple (``packages/game/src/json/
  variants.json``); the engine's colours are R, Y, G, W, B. :data:`SUIT_OF_COLOR` maps them by
  name where hanab.live has the colour (R, Y, G, B) and white to Purple. Ranks are 1–5.
* Action types (``server/src/constants.go``): 0 play, 1 discard, 2 colour clue, 3 rank clue,
  4 game ended by the server or a player (timeout, termination), 5 ended by vote.
* Seat 0 moves first unless ``options.startingPlayer`` says otherwise (kept for old games,
  ``server/src/command_table_start.go``); :func:`to_hanablive` writes it only when the game's
  start player is not 0.
* Options are typed as the server's Go structs decode them: the boolean ones are JSON
  ``true``/``false`` (Go's decoder refuses ``"false"`` or ``0`` for a ``bool``), ``null`` or
  absent is the default. :func:`from_hanablive` reads them as strictly (a string for a boolean
  option is refused, naming the option).

**Where hanab.live ends a game** (``Game.CheckEnd`` in ``server/src/game.go``, called after every
action, with ``server/src/game_player.go`` and ``server/src/command_action.go``; a JSON record
is replayed by ``emulateActions`` in ``server/src/command_table_start.go``): after a move, the
game ends when

1. the third strike is made (the score is then 0, ``server/src/game_end.go``: strict scoring);
2. the final round is over: every player moved once after the one who drew the last card (and
   that player too), as in HLE;
3. the score reaches the most still reachable: per suit, the ranks up to the first one whose
   copies are all discarded or misplayed (``GetMaxScore``);
4. no card still needed can be played: for every unfinished suit, each copy of its next rank
   is discarded, misplayed or in the hand of a player who has made their last move of the
   final round (``CannotBePlayed``).

The engine follows HLE, which ends only on 1, 2 and all fireworks complete; after hanab.live's
end HLE play goes on (no point can be scored any more, but under strict scoring the lives can
still run out). A record of a longer game does not replay there (the server stops at its end),
so :func:`to_hanablive` writes the moves up to hanab.live's end and states in ``hanabi_adhoc``
how many moves the engine game had (docs/browser.md §4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig, rulebook_hand_size
from hanabi_env.game import HanabiGame
from hanabi_env.validate import check_choice, type_error

__all__ = [
    "ACTION_TYPES",
    "DEFAULT_PLAYERS",
    "HANABLIVE_HAND_SIZE",
    "SUIT_NAMES",
    "SUIT_OF_COLOR",
    "HanabliveEnd",
    "check_hanablive_config",
    "from_hanablive",
    "hanablive_end",
    "hanablive_options",
    "to_hanablive",
]

HANABLIVE_HAND_SIZE = {players: rulebook_hand_size(players) for players in range(2, 6)}
"""Cards per hand by number of players on hanab.live: the rulebook's (5, 5, 4, 4)."""

SUIT_NAMES = ("Red", "Yellow", "Green", "Blue", "Purple")
"""The suits of hanab.live's "No Variant", by ``suitIndex``."""

SUIT_OF_COLOR = (0, 1, 2, 4, 3)
"""hanab.live ``suitIndex`` of each engine colour (R, Y, G, W, B): white is Purple there."""

COLOR_OF_SUIT = tuple(SUIT_OF_COLOR.index(s) for s in range(5))
"""Engine colour of each hanab.live ``suitIndex`` (the inverse of :data:`SUIT_OF_COLOR`)."""

ACTION_TYPES = {"play": 0, "discard": 1, "reveal_color": 2, "reveal_rank": 3}
"""hanab.live action ``type`` of each engine move kind (4 and 5 end a game; never written)."""

_END_TYPES = (4, 5)

DEFAULT_PLAYERS = ("Alice", "Bob", "Cathy", "Donald", "Emily")
"""Player names hanab.live uses for anonymous records (``DEFAULT_PLAYER_NAMES``)."""

_VARIANT = "No Variant"
_RECORD_KEY = "hanabi_adhoc"


@dataclass(frozen=True)
class HanabliveEnd:
    """Where hanab.live ends a game (see the module docstring).

    Attributes:
        moves: Moves played when hanab.live ends the game (a prefix of the engine's history).
        reason: ``"strikeout"``, ``"final_round"``, ``"max_score"`` (the score reached the
            most still reachable) or ``"no_playable_card"``.
        score: The score hanab.live shows: the fireworks total then, 0 after a strikeout.
    """

    moves: int
    reason: str
    score: int


def check_hanablive_config(config: HanabiConfig) -> None:
    """Raise unless hanab.live can play ``config`` (its "No Variant" with these options).

    Allowed: 5 colours × 5 ranks, 8 information tokens, 3 lives, 2–5 players, and a hand size
    of :data:`HANABLIVE_HAND_SIZE` or one card more or less (``oneExtraCard``/``oneLessCard``).

    Raises:
        TypeError: ``config`` is not a :class:`HanabiConfig`.
        ValueError: A setting hanab.live cannot play; the message names it and what is allowed.
    """
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a HanabiConfig", config)
    fixed = (("colors", 5), ("ranks", 5), ("max_information_tokens", 8), ("max_life_tokens", 3))
    for name, value in fixed:
        if getattr(config, name) != value:
            raise ValueError(
                f"{name}={getattr(config, name)} cannot be recorded for hanab.live; allowed: "
                f"{value} (its No Variant)"
            )
    base = HANABLIVE_HAND_SIZE[config.players]
    if abs(config.hand_size - base) > 1:
        raise ValueError(
            f"hand_size={config.hand_size} cannot be recorded for hanab.live at "
            f"{config.players} players; allowed: {base - 1}, {base} or {base + 1}"
        )


def hanablive_options(config: HanabiConfig, start_player: int = 0) -> dict:
    """The ``options`` of a record of ``config`` (variant, hand-size option, start player).

    Raises:
        TypeError, ValueError: As :func:`check_hanablive_config`.
    """
    check_hanablive_config(config)
    options: dict = {"variant": _VARIANT}
    extra = config.hand_size - HANABLIVE_HAND_SIZE[config.players]
    if extra == 1:
        options["oneExtraCard"] = True
    elif extra == -1:
        options["oneLessCard"] = True
    if start_player:
        options["startingPlayer"] = int(start_player)
    return options


def _history(game: HanabiGame) -> np.ndarray:
    """``(n_moves, HIST_FIELDS)`` int32: the game's move records (a copy)."""
    if not isinstance(game, HanabiGame):
        raise type_error("game", "a HanabiGame", game)
    if not game.is_dealt:
        raise ValueError("game has not been dealt; call reset(seed) or reset_with_deck first")
    return np.array(game.state.public.hist[: game.n_moves], copy=True)


def hanablive_end(game: HanabiGame) -> HanabliveEnd | None:
    """Where hanab.live ends ``game``, or None when it would still go on after the last move.

    The rules of hanab.live's server (module docstring), replayed on the engine's history.

    Args:
        game: A dealt game of 5 colours × 5 ranks (any hand size, hand order and scoring).

    Returns:
        The first move after which hanab.live ends the game, why, and its score then; None if
        none of the moves so far ends it.

    Raises:
        TypeError: ``game`` is not a :class:`HanabiGame`.
        ValueError: The game is not dealt, or not 5 colours × 5 ranks.
    """
    hist = _history(game)
    cfg = game.config
    if (cfg.colors, cfg.ranks) != (5, 5):
        raise ValueError(
            f"colors={cfg.colors}, ranks={cfg.ranks}: hanab.live's rules need 5 colours × 5 ranks"
        )
    deck = np.asarray(game.state.deck, dtype=np.int64)
    board = _Board(deck, cfg)
    for i, rec in enumerate(hist):
        board.apply(i, rec)
        reason = board.end_reason(i)
        if reason:
            score = 0 if reason == "strikeout" else int(board.stacks.sum())
            return HanabliveEnd(i + 1, reason, score)
    return None


_IN_DECK, _IN_HAND, _PLAYED, _GONE = 0, 1, 2, 3


class _Board:
    """What hanab.live's end check reads: where every card is, the stacks and the strikes."""

    def __init__(self, deck: np.ndarray, cfg: HanabiConfig):
        self.deck, self.n_ranks, self.players = deck, cfg.ranks, cfg.players
        self.copies = np.bincount(deck, minlength=cfg.colors * cfg.ranks)
        self.gone = np.zeros_like(self.copies)  # discarded or misplayed copies per card id
        self.stacks = np.zeros(cfg.colors, dtype=np.int64)
        self.where = np.full(len(deck), _IN_DECK)
        self.holder = np.full(len(deck), -1)  # seat holding each card order
        self.done = np.zeros(cfg.players, dtype=bool)  # made their last move of the final round
        self.lives, self.drawn, self.last_draw = cfg.max_life_tokens, 0, -1
        for p in range(cfg.players):
            for _ in range(cfg.hand_size):
                self._draw(p)

    def _draw(self, seat: int) -> None:
        self.where[self.drawn], self.holder[self.drawn] = _IN_HAND, seat
        self.drawn += 1

    def apply(self, i: int, rec: np.ndarray) -> None:
        """Move ``i`` (an engine history record)."""
        actor = int(rec[E.H_ACTOR])
        if int(rec[E.H_KIND]) in (E.PLAY, E.DISCARD):
            card, order = int(rec[E.H_CARD]), int(rec[E.H_UID])
            if rec[E.H_SCORED] == 1:
                self.where[order] = _PLAYED
                self.stacks[card // self.n_ranks] += 1
            else:
                self.where[order] = _GONE
                self.gone[card] += 1
                self.lives -= int(rec[E.H_KIND]) == E.PLAY
            if self.drawn < len(self.deck):
                self._draw(actor)
                if self.drawn == len(self.deck):
                    self.last_draw = i
                return
        if self.drawn == len(self.deck):  # a move of the final round, after the last draw
            self.done[actor] = True

    def end_reason(self, i: int) -> str:
        """hanab.live's ``CheckEnd`` after move ``i`` ("" while the game goes on)."""
        if self.lives <= 0:
            return "strikeout"
        if self.last_draw >= 0 and i - self.last_draw == self.players:
            return "final_round"
        if int(self.stacks.sum()) == self.reachable():
            return "max_score"
        in_live_hand = (self.where == _IN_HAND) & ~self.done[np.maximum(self.holder, 0)]
        alive = (self.where == _IN_DECK) | in_live_hand
        for suit, height in enumerate(self.stacks):
            needed = suit * self.n_ranks + height
            if height < self.n_ranks and np.any(alive & (self.deck == needed)):
                return ""
        return "no_playable_card"

    def reachable(self) -> int:
        """hanab.live's ``GetMaxScore``: per suit, the ranks below the first one all gone."""
        total = 0
        for suit in range(self.stacks.shape[0]):
            ids = suit * self.n_ranks + np.arange(self.n_ranks)
            lost = np.flatnonzero(self.gone[ids] >= self.copies[ids])
            total += int(lost[0]) if len(lost) else self.n_ranks
        return total


def to_hanablive(
    game: HanabiGame,
    players: Sequence[str] | None = None,
    extra: Mapping | None = None,
) -> dict:
    """A record of ``game`` in hanab.live's JSON format, cut where hanab.live ends it.

    Args:
        game: A dealt game (finished or not) that hanab.live can play
            (:func:`check_hanablive_config`).
        players: One distinct, non-empty name per seat (default :data:`DEFAULT_PLAYERS`).
        extra: Added to the record's ``hanabi_adhoc`` entry (e.g. the agents, the ruleset,
            the deal seed); JSON values, with no key the entry already has.

    Returns:
        ``{"players", "deck", "actions", "options", "hanabi_adhoc"}`` (module docstring), a new
        dict of JSON values. ``hanabi_adhoc`` states the configuration (``players``,
        ``hand_size``, ``scoring``, ``hand_order``, ``start_player``), ``engine_moves`` and
        ``engine_score`` (the engine's game), ``moves`` (the actions written), ``ended``
        (whether hanab.live ends the game there), ``end_reason``, ``hanablive_score`` and
        ``truncated`` (moves left out after hanab.live's end), then ``extra``.

    Raises:
        TypeError: ``game`` is not a :class:`HanabiGame`, ``players`` not a sequence of str,
            ``extra`` not a mapping.
        ValueError: The game is not dealt, hanab.live cannot play its configuration, the names
            are not one distinct non-empty name per seat, or ``extra`` repeats a key.
    """
    hist = _history(game)
    cfg = game.config
    start = int(game.state.scal[E.S_START])
    options = hanablive_options(cfg, start)
    names = _names(players, cfg.players)
    end = hanablive_end(game)
    moves = len(hist) if end is None else end.moves
    deck = [_card(int(c), cfg.ranks) for c in game.state.deck]
    actions = [_action(rec) for rec in hist[:moves]]
    record_info = {
        "players": cfg.players,
        "hand_size": cfg.hand_size,
        "scoring": cfg.scoring,
        "hand_order": cfg.hand_order,
        "start_player": start,
        "engine_moves": len(hist),
        "engine_score": game.score,
        "engine_terminal": bool(game.is_terminal),
        "moves": moves,
        "ended": end is not None,
        "end_reason": None if end is None else end.reason,
        "hanablive_score": None if end is None else end.score,
        "truncated": len(hist) - moves,
    }
    if extra is not None:
        if not isinstance(extra, Mapping):
            raise type_error("extra", "a mapping of JSON values or None", extra)
        clash = sorted(set(extra) & set(record_info))
        if clash:
            raise ValueError(f"extra repeats the record's own keys {clash}; use other names")
        record_info.update(extra)
    return {
        "players": names,
        "deck": deck,
        "actions": actions,
        "options": options,
        _RECORD_KEY: record_info,
    }


def _names(players: Sequence[str] | None, n: int) -> list[str]:
    if players is None:
        return list(DEFAULT_PLAYERS[:n])
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise type_error("players", "a sequence of names (str)", players)
    names = list(players)
    if not all(isinstance(x, str) for x in names):
        raise TypeError(f"players must be names (str), got {players!r}")
    if len(names) != n or len(set(names)) != n or not all(x.strip() for x in names):
        raise ValueError(
            f"players={names!r} is not allowed; allowed: {n} distinct non-empty names, one per seat"
        )
    return names


def _card(card: int, n_ranks: int) -> dict:
    return {"suitIndex": SUIT_OF_COLOR[card // n_ranks], "rank": card % n_ranks + 1}


def _action(rec: np.ndarray) -> dict:
    """The hanab.live action of one engine history record."""
    kind = int(rec[E.H_KIND])
    if kind in (E.PLAY, E.DISCARD):
        return {"type": 0 if kind == E.PLAY else 1, "target": int(rec[E.H_UID]), "value": 0}
    if kind == E.REVEAL_COLOR:
        return {"type": 2, "target": int(rec[E.H_TARGET]), "value": SUIT_OF_COLOR[rec[E.H_COLOR]]}
    return {"type": 3, "target": int(rec[E.H_TARGET]), "value": int(rec[E.H_RANK]) + 1}


def from_hanablive(
    record: Mapping,
    scoring: str = "strict",
    hand_order: str = "shift",
    on_move: Callable[[HanabiGame, int], None] | None = None,
) -> HanabiGame:
    """Replay a hanab.live record (ours, or exported from hanab.live) on the engine.

    The record's No Variant game (2–5 players, hand size from ``oneExtraCard``/``oneLessCard``,
    ``startingPlayer``) is dealt from its deck and its actions are played in order; an action
    of type 4 or 5 (the game was ended by the server or the players) stops the replay there.
    Other fields (``notes``, ``id``, ``seed``, ``hanabi_adhoc``, ...) are ignored.

    Options are read as hanab.live's server decodes them (Go struct fields): an absent or
    ``null`` option is its default; the boolean ones (``oneExtraCard``, ``oneLessCard``,
    ``timed``, ``cardCycle``, ``deckPlays``) must be JSON ``true``/``false`` (a string such
    as ``"false"``, or ``0``/``1``, is refused, never read as true); ``startingPlayer`` an
    int seat, ``timeBase`` and ``timePerTurn`` ints. An option this engine does not know is
    refused unless it is off (``false``, ``0`` or ``null``).

    Args:
        record: The JSON object (a dict, e.g. from ``json.load``).
        scoring: Scoring of the engine game, ``"strict"`` (hanab.live's) or ``"lenient"``.
        hand_order: ``"shift"`` (hanab.live's and HLE's) or ``"fixed"``.
        on_move: Called before each action is applied, with the game as it stands and the
            action's engine move uid (checked legal): e.g. to read the observation each move
            was made on (:func:`agents.clone.record_demonstrations`).

    Returns:
        The game after the record's last action. It is terminal when the engine's rule ends it
        there; a game that hanab.live ended early (module docstring) is not.

    Raises:
        TypeError: ``record`` is not a mapping.
        ValueError: A field is missing or malformed (an option of the wrong JSON type
            included: the message names it and what is allowed), a variant or option this
            engine cannot play, a deck that is not a full deck, or an action that is not legal
            where it stands (the message names the action's index and why).
    """
    if not isinstance(record, Mapping):
        raise type_error("record", "a mapping (a hanab.live JSON object)", record)
    players = record.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 5:
        raise ValueError(f"record['players'] must list 2 to 5 players, got {players!r}")
    options, flags = _record_options(record)
    n = len(players)
    hand = HANABLIVE_HAND_SIZE[n] + flags["oneExtraCard"] - flags["oneLessCard"]
    check_choice("scoring", scoring, ("strict", "lenient"))
    cfg = HanabiConfig(players=n, hand_size=hand, scoring=scoring, hand_order=hand_order)
    start = _option(options, "startingPlayer", 0)
    if type(start) is not int or not 0 <= start < n:
        raise ValueError(f"options['startingPlayer']={start!r} is not a seat in [0, {n - 1}]")
    game = HanabiGame(cfg)
    game.reset_with_deck(_deck(record.get("deck"), cfg.ranks), start_player=start)
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise ValueError(f"record['actions'] must be a list, got {type(actions).__name__}")
    _replay_actions(game, actions, on_move)
    return game


def _record_options(record: Mapping) -> tuple[Mapping, dict[str, int]]:
    """A record's ``options`` (``{}`` when absent or null) and its boolean flags (0 or 1), checked.

    Raises:
        ValueError: ``options`` is not an object, names another variant, has an option of the
            wrong JSON type, or one this engine does not know that is on.
    """
    options = record.get("options")
    if options is None:  # absent or null: hanab.live's defaults
        options = {}
    if not isinstance(options, Mapping):
        raise ValueError(f"record['options'] must be an object, got {options!r}")
    variant = _option(options, "variant", _VARIANT)
    if variant != _VARIANT:
        raise ValueError(f"variant {variant!r} is not supported; allowed: {_VARIANT!r}")
    flags = {name: _flag(options, name) for name in _BOOL_OPTIONS}
    for name in _INT_OPTIONS:  # read by nothing here, but typed as on the server
        value = _option(options, name, 0)
        if type(value) is not int:
            raise ValueError(
                f"options[{name!r}]={value!r} is not allowed; allowed: an int, or no value"
            )
    unknown = [k for k, v in options.items() if k not in _OPTIONS and v not in (False, 0, None)]
    if unknown:
        raise ValueError(f"options {unknown} are not supported; allowed: {sorted(_OPTIONS)}")
    return options, flags


def _replay_actions(
    game: HanabiGame, actions: list, on_move: Callable[[HanabiGame, int], None] | None
) -> None:
    """Play a record's ``actions`` on ``game`` in order, up to one that ends the game early.

    Raises:
        ValueError: An action is malformed or not legal where it stands (naming its index).
    """
    for i, action in enumerate(actions):
        if isinstance(action, Mapping) and action.get("type") in _END_TYPES:
            break
        uid = _engine_move(game, i, action)
        if on_move is not None and 0 <= uid < game.n_actions and game.legal_mask()[uid]:
            on_move(game, uid)
        applied, _ = game.try_step(uid)
        if not applied:
            seat = game.current_player
            raise ValueError(
                f"action {i} ({action}) is not legal for seat {seat}: "
                f"{game.action_to_string(uid)}: {_why(game, action)}"
            )


def _option(options: Mapping, name: str, default: object) -> object:
    """Option ``name``, or ``default`` when it is absent or null (Go leaves the field unset)."""
    value = options.get(name)
    return default if value is None else value


def _flag(options: Mapping, name: str) -> int:
    """1 if the boolean option ``name`` is true, 0 if false, absent or null.

    hanab.live's options are JSON bools (Go ``bool`` fields, whose decoder refuses strings
    and numbers), so only ``true``/``false`` are read: ``"false"``, ``0`` or ``1`` is refused
    rather than guessed.

    Raises:
        ValueError: Any other value; the message names the option and what is allowed.
    """
    value = _option(options, name, False)
    if not isinstance(value, bool):
        raise ValueError(
            f"options[{name!r}]={value!r} is not allowed; allowed: true or false (a JSON bool, "
            "as hanab.live writes it), or no value"
        )
    return int(value)


_BOOL_OPTIONS = ("oneExtraCard", "oneLessCard", "timed", "cardCycle", "deckPlays")
_OPTIONS = {"variant", "startingPlayer", *_BOOL_OPTIONS}
# options that do not change the rules of a replay (checked all the same): clocks, the
# card-cycle display, and deck plays (a play of the deck's last card is refused below as a
# card in no hand)
_INT_OPTIONS = ("timeBase", "timePerTurn")
_OPTIONS |= set(_INT_OPTIONS)


def _deck(deck: object, n_ranks: int) -> np.ndarray:
    if not isinstance(deck, list):
        raise ValueError(f"record['deck'] must be a list of cards, got {type(deck).__name__}")
    ids = []
    for i, card in enumerate(deck):
        suit = card.get("suitIndex") if isinstance(card, Mapping) else None
        rank = card.get("rank") if isinstance(card, Mapping) else None
        if type(suit) is not int or type(rank) is not int or not (0 <= suit < 5 and 1 <= rank <= 5):
            raise ValueError(
                f"record['deck'][{i}]={card!r} is not a card; allowed: "
                '{"suitIndex": 0-4, "rank": 1-5}'
            )
        ids.append(COLOR_OF_SUIT[suit] * n_ranks + rank - 1)
    return np.asarray(ids, dtype=np.int64)


def _engine_move(game: HanabiGame, i: int, action: object) -> int:
    """The engine move uid of hanab.live action ``i`` for the seat to move."""
    if game.is_terminal:
        raise ValueError(f"action {i} ({action}) comes after the end of the game")
    kind = action.get("type") if isinstance(action, Mapping) else None
    target = action.get("target") if isinstance(action, Mapping) else None
    value = action.get("value", 0) if isinstance(action, Mapping) else None
    if kind not in (0, 1, 2, 3) or type(target) is not int or type(value) is not int:
        raise ValueError(
            f"action {i} ({action!r}) is not an action; allowed: type 0-5 with an int target"
        )
    seat = game.current_player
    view = game.view(seat)
    if kind in (0, 1):
        public = game.state.public
        slots = [k for k in range(int(public.hand_len[seat])) if public.uids[seat, k] == target]
        if not slots:
            raise ValueError(f"action {i} ({action}): card {target} is not in seat {seat}'s hand")
        return view.action_uid("play" if kind == 0 else "discard", slot=slots[0])
    if not 0 <= target < game.config.players or target == seat:
        raise ValueError(f"action {i} ({action}): seat {seat} cannot clue seat {target}")
    if kind == 2:
        if not 0 <= value < 5:
            raise ValueError(f"action {i} ({action}): no suit {value}; allowed: 0-4")
        return view.action_uid("reveal_color", target=target, color=COLOR_OF_SUIT[value])
    if not 1 <= value <= 5:
        raise ValueError(f"action {i} ({action}): no rank {value}; allowed: 1-5")
    return view.action_uid("reveal_rank", target=target, rank=value - 1)


def _why(game: HanabiGame, action: Mapping) -> str:
    """Why a well-formed action is illegal (hanab.live refuses the same moves)."""
    info = int(game.state.scal[E.S_INFO])
    if action["type"] == 1:
        return f"a discard needs fewer than {game.config.max_information_tokens} clue tokens"
    if info == 0:
        return "no clue token left"
    return f"the clue touches no card of seat {action['target']}"
