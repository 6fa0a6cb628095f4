"""Agent faults: a policy's own error, told apart from the toolkit's (docs/reliability.md).

A policy that raises, returns something that is not a legal move id, or takes longer than the
per-move limit ends the run it plays in with an :class:`AgentFault` naming the agent, the game
and the move; the command line prints it as one ``error:`` line and exits 2. Nothing a policy
returns is rounded, truncated or clipped into a legal move.
"""

from __future__ import annotations

__all__ = ["AgentFault"]


class AgentFault(ValueError):
    """A policy failed to make a legal move (it raised, returned a non-move, or was too slow).

    A ``ValueError`` so that every entry point that turns bad input into one ``error:`` line
    (exit 2) does so for it too.

    Attributes:
        agent: The agent's name or spec, as the run knows it.
        game: The game's index in its batch (0-based), or ``-1`` when unknown.
        move: The move's index in the game (0-based), or ``-1`` when unknown.
        reason: What went wrong, e.g. ``"raised KeyError: 3"``, ``"returned 5.7, not an int"``,
            ``"returned 1000000, not a legal move"``, ``"took 12.3 s (limit 10 s)"``.
    """

    def __init__(self, agent: str, reason: str, *, game: int = -1, move: int = -1):
        self.agent = str(agent)
        self.reason = str(reason)
        self.game = int(game)
        self.move = int(move)
        where = []
        if self.game >= 0:
            where.append(f"game {self.game}")
        if self.move >= 0:
            where.append(f"move {self.move}")
        at = f" ({', '.join(where)})" if where else ""
        super().__init__(f"agent {self.agent!r}{at} {self.reason}")

    def __reduce__(self):  # picklable across worker processes with its fields
        return (_rebuild, (self.agent, self.reason, self.game, self.move))


def _rebuild(agent: str, reason: str, game: int, move: int) -> AgentFault:
    return AgentFault(agent, reason, game=game, move=move)
