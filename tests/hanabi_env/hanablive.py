"""An independent model of hanab.live's server, for testing records against it.

It plays a record's JSON (deck, players, actions, options) the way hanab.live's Go server does
(``server/src/command_action.go``, ``game_player.go``, ``game.go`` of Hanabi-Live/hanabi-live,
commit 8503cd84; summarised in :mod:`hanabi_env.records`): cards are *orders* (deck positions)
held in lists, not the engine's arrays, and the end check runs after every action. It knows
nothing of :mod:`hanabi_env`, so that a record is checked by a second reading of the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HAND = {2: 5, 3: 5, 4: 4, 5: 4}
MAX_CLUES = 8
MAX_STRIKES = 3


class Refused(AssertionError):
    """hanab.live refuses an action (``InvalidActionOccurred``) or one comes after the end."""


@dataclass
class Server:
    """The state of one replayed game (suit, rank per card order; hands as lists of orders)."""

    deck: list[tuple[int, int]]
    n: int
    hand_size: int
    active: int = 0
    turn: int = 0
    end_turn: int = -1
    clues: int = MAX_CLUES
    strikes: int = 0
    stacks: list[int] = field(default_factory=lambda: [0] * 5)
    hands: list[list[int]] = field(default_factory=list)
    discarded: set[int] = field(default_factory=set)
    dead: set[int] = field(default_factory=set)  # CannotBePlayed
    next_card: int = 0
    end: str = ""
    ended_after: int | None = None

    def draw(self, p: int) -> None:
        if self.next_card >= len(self.deck):
            return
        self.hands[p].append(self.next_card)
        self.next_card += 1
        if self.next_card == len(self.deck):
            self.end_turn = self.turn + self.n + 1

    @property
    def score(self) -> int:
        return sum(self.stacks)

    def max_score(self) -> int:
        total = 0
        for suit in range(5):
            for rank in range(1, 6):
                copies = [o for o, c in enumerate(self.deck) if c == (suit, rank)]
                if all(o in self.discarded for o in copies):
                    break
                total += 1
        return total

    def all_dead(self) -> bool:
        for suit, height in enumerate(self.stacks):
            if height == 5:
                continue
            for o, c in enumerate(self.deck):
                if c == (suit, height + 1) and o not in self.discarded and o not in self.dead:
                    return False
        return True

    def check_end(self) -> str:
        if self.strikes == MAX_STRIKES:
            return "strikeout"
        if self.turn == self.end_turn:
            return "final_round"
        if self.score == self.max_score():
            return "max_score"
        return "no_playable_card" if self.all_dead() else ""

    def act(self, i: int, action: dict) -> None:
        if self.end:
            raise Refused(f"action {i} comes after the end ({self.end})")
        p, kind, target = self.active, action["type"], action["target"]
        hand = self.hands[p]
        if kind in (0, 1):
            assert "value" not in action or action["value"] == 0, action
            if target not in hand:
                raise Refused(f"action {i}: card {target} is not in the hand of {p}")
            if kind == 1 and self.clues == MAX_CLUES:
                raise Refused(f"action {i}: discard at {MAX_CLUES} clues")
            hand.remove(target)
            suit, rank = self.deck[target]
            if kind == 0 and self.stacks[suit] + 1 == rank:
                self.stacks[suit] = rank
                if rank == 5 and self.clues < MAX_CLUES:
                    self.clues += 1
            else:
                if kind == 0:
                    self.strikes += 1
                else:
                    self.clues += 1
                self.discarded.add(target)
            self.draw(p)
        elif kind in (2, 3):
            if self.clues == 0:
                raise Refused(f"action {i}: clue without a clue token")
            if not 0 <= target < self.n or target == p:
                raise Refused(f"action {i}: clue to {target} by {p}")
            index = 0 if kind == 2 else 1
            if not any(self.deck[o][index] == action["value"] for o in self.hands[target]):
                raise Refused(f"action {i}: a clue that touches no card")
            self.clues -= 1
        else:
            raise Refused(f"action {i}: type {kind}")
        if self.end_turn != -1 and self.end_turn != self.turn + self.n + 1:
            self.dead.update(hand)
        self.turn += 1
        self.active = (self.active + 1) % self.n
        self.end = self.check_end()
        if self.end:
            self.ended_after = i + 1
            if self.end == "strikeout":
                self.stacks = [0] * 5  # a strikeout scores 0 (game_end.go)


def replay(record: dict) -> Server:
    """Play ``record`` on the model; raises :class:`Refused` where hanab.live would refuse."""
    options = record.get("options", {})
    assert options.get("variant", "No Variant") == "No Variant"
    n = len(record["players"])
    hand = HAND[n] + bool(options.get("oneExtraCard")) - bool(options.get("oneLessCard"))
    deck = [(c["suitIndex"], c["rank"]) for c in record["deck"]]
    assert sorted(deck) == sorted((s, r) for s in range(5) for r in (1, 1, 1, 2, 2, 3, 3, 4, 4, 5))
    server = Server(deck, n, hand, hands=[[] for _ in range(n)])
    for p in range(n):
        for _ in range(hand):
            server.draw(p)
    server.active = options.get("startingPlayer", 0)
    for i, action in enumerate(record["actions"]):
        server.act(i, action)
    return server
