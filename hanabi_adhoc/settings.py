"""A game's settings in words, as every command's output, report and record states them.

``hanabi_adhoc.cli``, the web app and the benchmark's report describe the games they played
here (players, hand size and whether it is the rulebook's, docs/rules.md §0.1, scoring,
ruleset). docs/architecture.md §2.
"""

from __future__ import annotations

from hanabi_env.config import rulebook_hand_size

__all__ = ["game_settings", "hand_size_words"]


def hand_size_words(sizes: dict[int, int]) -> str:
    """``{players: hand size}`` in words, saying whether they are the rulebook's (§0.1)."""
    rule = all(h == rulebook_hand_size(p) for p, h in sizes.items())
    tag = "the rulebook's" if rule else "not the rulebook's"
    if len(sizes) == 1:
        return f"hand size {next(iter(sizes.values()))} ({tag})"
    return "hand sizes " + ", ".join(f"{h} at {p}p" for p, h in sizes.items()) + f" ({tag})"


def game_settings(players: int, hand_size: int, scoring: str, ruleset: str | None) -> str:
    """The configuration a command played, in one line (every report and record states it).

    Players, hand size (and whether it is the rulebook's, docs/rules.md §0.1), scoring and
    the rule agents' ruleset (omitted when None).
    """
    text = f"{players} players, {hand_size_words({players: hand_size})}, {scoring} scoring"
    return text if ruleset is None else f"{text}, {ruleset} ruleset"
