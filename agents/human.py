"""A person at the terminal as a policy, and a text board drawn from one seat's view.

:class:`HumanPolicy` follows the same :class:`~agents.policy.Policy` protocol as every agent, so a
person can sit in any seat of a PettingZoo loop next to rule-based agents, meta-agents or SB3
models (``hanabi-adhoc play human piers``). It sees only what its seat may see: the board is
drawn by :func:`render_view` from the seat's :class:`~hanabi_env.game.PlayerView`, with the
person's own cards shown as ``??`` plus what the hints told about them.

Input: the number of a listed legal move, or a short command — ``p2`` (play slot 2), ``d0``
(discard slot 0), ``c1 R`` (reveal red to player_1), ``r1 3`` (reveal rank 3 to player_1);
``q`` quits (raises :class:`KeyboardInterrupt`). Anything else re-prompts: a typo never ends
the game.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.policy import Policy
from hanabi_env import _engine as E
from hanabi_env.game import COLOR_NAMES, PlayerView, card_name, describe_move

__all__ = ["HumanPolicy", "action_uid", "describe_action", "legal_actions", "render_view"]

_KINDS = {"discard": E.DISCARD, "play": E.PLAY, "reveal_color": E.REVEAL_COLOR,
          "reveal_rank": E.REVEAL_RANK}  # fmt: skip


def legal_actions(view: PlayerView) -> np.ndarray:
    """Legal move uids (ascending int64) of the seat of ``view``, computed from the view only.

    Raises:
        ValueError: It is not this seat's turn, or the game is over.
    """
    from agents._rules import legal_mask_view

    if view.is_terminal or view.current_player != view.seat:
        raise ValueError(f"player_{view.seat} is not on turn")
    mask = np.zeros(int(view.raw.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
    legal_mask_view(view.raw, mask)
    return np.flatnonzero(mask)


def action_uid(
    view: PlayerView,
    kind: str,
    slot: int | None = None,
    target: int | None = None,
    color: int | str | None = None,
    rank: int | None = None,
) -> int:
    """The move uid (HLE action order, ANCHORS.md §2.3) of a move of the seat of ``view``.

    Args:
        view: The mover's view.
        kind: ``"play"``, ``"discard"``, ``"reveal_color"`` or ``"reveal_rank"``.
        slot: Hand slot (0 = oldest) for plays and discards.
        target: Absolute seat receiving a reveal (not the mover).
        color: Colour index or letter (``"R"``, ``"Y"``, ``"G"``, ``"W"``, ``"B"``) revealed.
        rank: Rank revealed, 0-based (0 = rank 1).

    Returns:
        The uid (it may still be illegal in the position, e.g. without information tokens).

    Raises:
        ValueError: Unknown ``kind`` or a missing/out-of-range argument for it.
    """
    if kind not in _KINDS:
        raise ValueError(f"kind={kind!r} is not allowed; allowed: {list(_KINDS)}")
    k = _KINDS[kind]
    if k in (E.PLAY, E.DISCARD):
        if slot is None or not 0 <= int(slot) < view.hand_size:
            raise ValueError(f"slot={slot} is out of range; allowed: [0, {view.hand_size - 1}]")
        return int(E.encode_action(view.raw.cfg, view.seat, k, int(slot), -1, -1))
    if target is None or not 0 <= int(target) < view.n_players or int(target) == view.seat:
        raise ValueError(
            f"target={target} is not allowed; allowed: another seat in [0, {view.n_players - 1}]"
        )
    if k == E.REVEAL_COLOR:
        if isinstance(color, str):
            color = COLOR_NAMES.find(color.upper()) if len(color) == 1 else -1
        if color is None or not 0 <= int(color) < view.n_colors:
            raise ValueError(f"color={color!r} is out of range for {view.n_colors} colours")
        value = int(color)
    else:
        if rank is None or not 0 <= int(rank) < view.n_ranks:
            raise ValueError(f"rank={rank} is out of range; allowed: [0, {view.n_ranks - 1}]")
        value = int(rank)
    return int(E.encode_action(view.raw.cfg, view.seat, k, -1, int(target), value))


def describe_action(view: PlayerView, action: int) -> str:
    """Readable description of move uid ``action`` for the seat of ``view``.

    Example: ``"play slot 2"``, ``"reveal R to player_1"``, ``"reveal rank 3 to player_1"``.
    """
    return describe_move(view.raw.cfg, view.seat, action)


def _knowledge(view: PlayerView, p: int, k: int) -> str:
    """Plausible colours then ranks; a dimension still fully open is left out ("" = no hint)."""
    col = np.flatnonzero(view.color_plausible[p, k])
    rank = np.flatnonzero(view.rank_plausible[p, k])
    cols = "" if len(col) == view.n_colors else "".join(COLOR_NAMES[c] for c in col)
    ranks = "" if len(rank) == view.n_ranks else "".join(str(r + 1) for r in rank)
    return cols + ranks


def _move_text(view: PlayerView, m) -> str:
    who = "you" if m.actor == view.seat else f"player_{m.actor}"
    if m.kind in ("play", "discard"):
        card = card_name(m.card, view.n_ranks)
        if m.kind == "play":
            return f"{who} played {card} from slot {m.slot}" + ("" if m.scored else " (misplay)")
        return f"{who} discarded {card} from slot {m.slot}"
    to = "you" if m.target == view.seat else f"player_{m.target}"
    what = COLOR_NAMES[m.color] if m.kind == "reveal_color" else f"rank {m.rank + 1}"
    return f"{who} revealed {what} to {to} (slots {', '.join(map(str, m.touched_slots))})"


def render_view(view: PlayerView) -> str:
    """Text board of what the seat of ``view`` may see (its own cards as ``??``).

    Each card is ``slot:name`` followed by ``|knowledge`` when hints narrowed it: the colours
    and/or ranks still plausible (HLE card knowledge). The seat's own last move and everything
    after it come last.
    """
    lines = [
        f"Score {view.score}  Info {view.information_tokens}/{view.max_information_tokens}  "
        f"Lives {view.life_tokens}  Deck {view.deck_size}"
        + ("  (game over)" if view.is_terminal else ""),
        "Fireworks: " + " ".join(f"{COLOR_NAMES[c]}{int(h)}" for c, h in enumerate(view.fireworks)),
    ]
    for p in range(view.n_players):
        marker = "->" if p == view.current_player and not view.is_terminal else "  "
        who = "you     " if p == view.seat else f"player_{p}"
        cards = []
        for k in range(int(view.hand_lengths[p])):
            name = "??" if p == view.seat else card_name(int(view.hands[p, k]), view.n_ranks)
            know = _knowledge(view, p, k)
            cards.append(f"{k}:{name}" + (f"|{know}" if know else ""))
        lines.append(f"{marker} {who}: " + "  ".join(cards))
    disc = [
        f"{card_name(c, view.n_ranks)}x{int(n)}" for c, n in enumerate(view.discard_counts) if n > 0
    ]
    lines.append("Discards: " + (" ".join(disc) if disc else "-"))
    moves = view.moves
    own = [m.index for m in moves if m.actor == view.seat]
    recent = moves[own[-1] :] if own else moves
    if recent:
        lines.append("Last moves: " + "; ".join(_move_text(view, m) for m in recent))
    return "\n".join(lines)


def _parse(text: str, view: PlayerView, legal: np.ndarray) -> int | None:
    """The move uid a typed command names (None if it names no legal move)."""
    t = text.strip()
    if t.isdigit():
        i = int(t)
        return int(legal[i]) if 0 <= i < len(legal) else None
    parts = t.replace(",", " ").split()
    if not parts:
        return None
    head = parts[0].lower()
    for a in legal:
        kind, slot, target, color, rank = E.decode_action(view.raw.cfg, view.seat, int(a))
        if kind == E.PLAY and head == f"p{slot}":
            return int(a)
        if kind == E.DISCARD and head == f"d{slot}":
            return int(a)
        if len(parts) == 2 and head[1:].isdigit() and int(head[1:]) == target:
            arg = parts[1].upper()
            if kind == E.REVEAL_COLOR and head[0] == "c" and arg == COLOR_NAMES[color]:
                return int(a)
            if kind == E.REVEAL_RANK and head[0] == "r" and arg == str(rank + 1):
                return int(a)
    return None


class HumanPolicy(Policy):
    """A person choosing moves at the terminal (see the module docstring for the input).

    Args:
        input_fn: Reads one line given a prompt (None = the built-in :func:`input`).
        output: Prints one string (None = :func:`print`).
        name: Display name.
    """

    def __init__(
        self,
        input_fn: Callable[[str], str] | None = None,
        output: Callable[[str], None] | None = None,
        name: str = "human",
    ):
        """See the class docstring."""
        self.input_fn = input_fn
        self.output = output
        self.name = name

    def act(self, view: PlayerView) -> int:
        """Show the board and the legal moves, read a choice until it names a legal move.

        Raises:
            KeyboardInterrupt: The person typed ``q`` (or closed the input).
        """
        read = self.input_fn or input
        say = self.output or print
        legal = legal_actions(view)
        say("")
        say(render_view(view))
        say(
            "Your moves: "
            + "  ".join(f"[{i}] {describe_action(view, a)}" for i, a in enumerate(legal))
        )
        while True:
            try:
                text = read(f"player_{view.seat}> ")
            except EOFError:
                raise KeyboardInterrupt from None
            if text.strip().lower() in ("q", "quit", "exit"):
                raise KeyboardInterrupt
            action = _parse(text, view, legal)
            if action is not None:
                return action
            say(
                f"not a legal move: {text.strip()!r}; type a number 0-{len(legal) - 1}, "
                "or p<slot>, d<slot>, c<player> <colour>, r<player> <rank>, q to quit"
            )
