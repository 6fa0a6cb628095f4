"""An outside bot, and the adapter that seats it in hanabi-adhoc.

The example of docs/tutorials/bring-your-own-bot.md.

:class:`OutsideBot` stands for a bot written for another framework: it never sees a
:class:`hanabi_env.PlayerView`. The framework tells it about every move as an *event*
(:meth:`OutsideBot.observe`, its own moves included), it tracks its own hand by card ids and
what the hints told it, and on its turn it answers :meth:`OutsideBot.decide` from its own
game representation (:class:`Table`) with a choice such as ``("play", card_id)``.

:class:`Adapter` is the only code the toolkit needs: an :class:`agents.Policy` that builds
those events and that table from the view (``moves_from``, ``Move.drawn_uid``,
``discard_pile``) and turns the choice back into a move uid (``action_uid``). Run it with::

    hanabi-adhoc evaluate 'examples/outside_bot.py:Adapter?level=2' --games 20

or here, for a self-play score at each level and the check that the bot's own hint tracking
agrees with the view's (``PlayerView.card_hints``)::

    python3 examples/outside_bot.py --games 20
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from agents import Policy
from hanabi_env import PlayerView
from hanabi_env.game import COLOR_NAMES, Move

# --------------------------------------------------------------------------------------------
# The outside bot: its own card names, events and table; no import of the toolkit.
# --------------------------------------------------------------------------------------------


@dataclass
class Knowledge:
    """What hints told about one card: a colour letter / 1-based rank once known."""

    colour: str | None = None
    rank: int | None = None
    not_colours: set[str] = field(default_factory=set)
    not_ranks: set[int] = field(default_factory=set)


@dataclass
class Table:
    """The outside framework's picture of the game for one player on turn.

    Attributes:
        hints: Hint tokens left; ``max_hints`` the most there can be.
        fireworks: Height of each colour's firework, e.g. ``{"R": 2, ...}``.
        hands: The other players' hands, oldest card first: ``{player: [(card_id, "R3")]}``.
        discards: The discard pile in order, e.g. ``["B1", "R4"]`` (misplays included).
    """

    hints: int
    max_hints: int
    fireworks: dict[str, int]
    hands: dict[int, list[tuple[int, str]]]
    discards: list[str]


class OutsideBot:
    """A small bot of another framework: plays what it knows, hints what is playable.

    Args:
        me: Its seat; ``players`` the number of players.
        hand: Its card ids at the deal, oldest first.
        level: 1 plays only cards whose colour and rank it knows and hints the next player
            only; 2 also plays a card of known rank that is playable whatever its colour
            may be, and hints any player.
    """

    def __init__(self, me: int, players: int, hand: list[int], level: int = 1):
        self.me, self.players, self.level = me, players, level
        self.hand = list(hand)  # my card ids, oldest first
        self.knowledge = {c: Knowledge() for c in hand}
        self.told: dict[int, Knowledge] = {}  # what every hinted card's owner was told

    def observe(self, event: tuple) -> None:
        """Take one move, as the framework reports it to every player.

        ``("hint", giver, receiver, "colour" or "rank", value, touched_ids)``,
        ``("play", player, card_id, name, drawn_id)`` or ``("discard", player, card_id, name,
        drawn_id)``; ``drawn_id`` is None when no card was drawn.
        """
        if event[0] == "hint":
            _, _, receiver, what, value, touched = event
            for c in touched:
                told = self.told.setdefault(c, Knowledge())
                setattr(told, what, value)
            if receiver == self.me:
                for c in self.hand:
                    self._learn(self.knowledge[c], what, value, c in touched)
            return
        _, player, card_id, _, drawn = event
        if player == self.me:
            self.hand.remove(card_id)
            self.knowledge.pop(card_id)
            if drawn is not None:
                self.hand.append(drawn)
                self.knowledge[drawn] = Knowledge()

    @staticmethod
    def _learn(k: Knowledge, what: str, value, positive: bool) -> None:
        if positive:
            setattr(k, what, value)
        elif what == "colour":
            k.not_colours.add(value)
        else:
            k.not_ranks.add(value)

    def decide(self, table: Table) -> tuple:
        """``("play", id)``, ``("discard", id)`` or ``("hint", player, kind, value)``."""
        for c in self.hand:
            if self._surely_playable(self.knowledge[c], table.fireworks):
                return ("play", c)
        if table.hints > 0:
            hint = self._useful_hint(table)
            if hint is not None:
                return hint
        if table.hints < table.max_hints:
            plain = [c for c in self.hand if self.knowledge[c] == Knowledge()]
            return ("discard", (plain or self.hand)[0])
        nxt = (self.me + 1) % self.players
        return ("hint", nxt, "rank", int(table.hands[nxt][0][1][1]))

    def _surely_playable(self, k: Knowledge, fireworks: dict[str, int]) -> bool:
        if k.rank is None:
            return False
        if k.colour is not None:
            return fireworks[k.colour] == k.rank - 1
        if self.level < 2:
            return False
        possible = [c for c in fireworks if c not in k.not_colours]
        return all(fireworks[c] == k.rank - 1 for c in possible)

    def _useful_hint(self, table: Table) -> tuple | None:
        seats = [(self.me + d) % self.players for d in range(1, self.players)]
        for p in seats if self.level >= 2 else seats[:1]:
            for c, name in table.hands[p]:
                colour, rank = name[0], int(name[1])
                if table.fireworks[colour] != rank - 1:
                    continue
                told = self.told.get(c, Knowledge())
                if told.rank is None:
                    return ("hint", p, "rank", rank)
                if told.colour is None:
                    return ("hint", p, "colour", colour)
        return None


# --------------------------------------------------------------------------------------------
# The adapter: the outside bot as an agents.Policy.
# --------------------------------------------------------------------------------------------


def event_of(move: Move, n_ranks: int) -> tuple:
    """The outside framework's event for one :class:`hanabi_env.Move`."""
    if move.kind in ("reveal_color", "reveal_rank"):
        what = "colour" if move.kind == "reveal_color" else "rank"
        value = COLOR_NAMES[move.color] if what == "colour" else move.rank + 1
        return ("hint", move.actor, move.target, what, value, move.touched_uids)
    drawn = move.drawn_uid if move.drawn_uid >= 0 else None
    return (move.kind, move.actor, move.uid, card_text(move.card, n_ranks), drawn)


def card_text(card: int, n_ranks: int) -> str:
    """``"R3"`` for a card id."""
    return f"{COLOR_NAMES[card // n_ranks]}{card % n_ranks + 1}"


def table_of(view: PlayerView) -> Table:
    """The outside bot's :class:`Table` from the view."""
    n_ranks = view.n_ranks
    hands = {
        p: [
            (int(view.card_uids[p, k]), card_text(int(view.hands[p, k]), n_ranks))
            for k in range(int(view.hand_lengths[p]))
        ]
        for p in range(view.n_players)
        if p != view.seat
    }
    return Table(
        hints=view.information_tokens,
        max_hints=view.max_information_tokens,
        fireworks={COLOR_NAMES[c]: int(h) for c, h in enumerate(view.fireworks)},
        hands=hands,
        discards=[card_text(m.card, n_ranks) for m in view.discard_pile()],
    )


class Adapter(Policy):
    """:class:`OutsideBot` as a policy of this toolkit.

    Args:
        level: The bot's level (1 or 2), e.g. from the spec ``outside_bot.py:Adapter?level=2``.
        seed: Unused (the bot is deterministic); taken so that every spec form can pass one.

    Raises:
        ValueError: ``level`` is not 1 or 2.
    """

    def __init__(self, level: int = 1, seed: int = 0):
        if level not in (1, 2) or isinstance(level, bool):
            raise ValueError(f"level={level!r} is not allowed; allowed: 1, 2")
        self.level = level
        self.name = f"outside-bot-{level}"
        self.bot: OutsideBot | None = None
        self.seen = 0  # moves already passed to the bot

    def reset(self, seed: int | None = None) -> None:
        """Forget the last game."""
        self.bot, self.seen = None, 0

    def act(self, view: PlayerView) -> int:
        """Tell the bot the moves since it last heard, ask it, and return the move uid."""
        me = view.seat
        if self.bot is None or self.bot.me != me or view.n_moves < self.seen:
            # its first turn: its hand is still the dealt one (it has not moved yet)
            hand = [int(u) for u in view.card_uids[me, : int(view.hand_lengths[me])]]
            self.bot, self.seen = OutsideBot(me, view.n_players, hand, self.level), 0
        for move in view.moves_from(self.seen):  # its own last move, then the others'
            self.bot.observe(event_of(move, view.n_ranks))
        self.seen = view.n_moves
        return self.uid_of(view, self.bot.decide(table_of(view)))

    @staticmethod
    def uid_of(view: PlayerView, choice: tuple) -> int:
        """The move uid of the bot's choice (its own legal fallback if the choice is not)."""
        if choice[0] in ("play", "discard"):
            slot = [int(u) for u in view.card_uids[view.seat]].index(choice[1])
            uid = view.action_uid(choice[0], slot=slot)
        else:
            _, target, what, value = choice
            if what == "colour":
                uid = view.action_uid("reveal_color", target=target, color=value)
            else:
                uid = view.action_uid("reveal_rank", target=target, rank=value - 1)
        legal = view.legal_actions()
        return uid if uid in legal else int(legal[0])


def _check_tracking(view: PlayerView, bot: OutsideBot) -> int:
    """Cards whose bot knowledge disagrees with ``PlayerView.card_hints`` (0 when it agrees)."""
    wrong = 0
    for k, c in enumerate(bot.hand):
        hints = view.card_hints(bot.me, k)
        k_view = Knowledge()
        for h in hints:
            what = "colour" if h.kind == "reveal_color" else "rank"
            value = COLOR_NAMES[h.color] if what == "colour" else h.rank + 1
            OutsideBot._learn(k_view, what, value, h.positive)
        wrong += int(c != int(view.card_uids[bot.me, k]) or k_view != bot.knowledge[c])
    return wrong


def main(argv: list[str] | None = None) -> None:
    """Self-play scores of the adapted bot at each level, and the tracking check."""
    from agents import play
    from hanabi_env import HanabiGame

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per level (default 20)")
    parser.add_argument("--players", type=int, default=2, help="players, 2-5 (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    args = parser.parse_args(argv)
    for level in (1, 2):
        seats = [Adapter(level) for _ in range(args.players)]
        batch = play(seats, games=args.games, seed=args.seed, workers=1)
        sem = batch.scores.std(ddof=1) / len(batch.scores) ** 0.5 if args.games > 1 else 0.0
        print(f"level {level}: self-play {batch.scores.mean():.2f} ± {sem:.2f}")
    # one game move by move: the bot's own hint tracking agrees with the view's card_hints
    game = HanabiGame(players=args.players)
    game.reset(args.seed)
    seats = [Adapter(2) for _ in range(args.players)]
    wrong = 0
    while not game.is_terminal:
        seat = game.current_player
        game.step(seats[seat].act(game.view(seat)))
        if not game.is_terminal:  # every seat, on its turn, has heard every move so far
            nxt = seats[game.current_player]
            if nxt.bot is not None:
                view = game.view(game.current_player)
                for move in view.moves_from(nxt.seen):
                    nxt.bot.observe(event_of(move, view.n_ranks))
                nxt.seen = view.n_moves
                wrong += _check_tracking(view, nxt.bot)
    print(f"hint tracking: {wrong} cards disagree with PlayerView.card_hints; score {game.score}")


if __name__ == "__main__":
    main()
