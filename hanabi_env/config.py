"""Game configuration and its validation (hanabi_v5's bounds, docs/anchors.md §1)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from hanabi_env.engine import n_cards_of
from hanabi_env.validate import check_bool, check_choice, check_int, out_of_range

__all__ = [
    "BOUNDS",
    "HAND_ORDERS",
    "HLE_PRESETS",
    "MAX_TOKENS",
    "OBSERVATION_TYPE_NAMES",
    "SCORING_VARIANTS",
    "HanabiConfig",
    "check_choice",
    "check_field",
    "describe_settings",
    "game_hand_size",
    "hand_order_of",
    "hand_size_words",
    "hle_preset",
    "rulebook_hand_size",
]

SCORING_VARIANTS = ("strict", "lenient")
HAND_ORDERS = ("shift", "fixed")
OBSERVATION_TYPE_NAMES = ("minimal", "card_knowledge", "seer")
BOUNDS = ("hanabi_v5", "hle")
"""Which parameter bounds a :class:`HanabiConfig` enforces (see its ``bounds`` field)."""


def rulebook_hand_size(players: int) -> int:
    """Cards per hand by the rulebook: 5 for 2–3 players, 4 for 4–5 (docs/rules.md §0.1).

    The rule of every entry point that plays games for a user (``play``, ``evaluate``, the
    benchmark, the browser, the pipeline): HLE's default, the papers' Java framework and
    hanab.live deal these sizes. Only the PettingZoo env keeps hanabi_v5's default of 5 at
    every size (for drop-in compatibility); pass ``hand_size=rulebook_hand_size(players)``
    to it for the rulebook's game.

    Raises:
        TypeError, ValueError: ``players`` is not an int in [2, 5].
    """
    return 5 if check_int("players", players, 2, 5) <= 3 else 4


def game_hand_size(players: int, hand_size: int | None = None) -> int:
    """The hand size of a game: ``hand_size`` if given, else the rulebook's (docs/rules.md §0.1).

    The one place where "no hand size means the rulebook's" is written; every entry point that
    deals a game for a user goes through it (:meth:`HanabiConfig.for_game`).

    Args:
        players: Number of players, in [2, 5].
        hand_size: Cards per hand, or None for :func:`rulebook_hand_size` (not range-checked
            here: :class:`HanabiConfig` checks it with the deck).

    Returns:
        The hand size (an int).

    Raises:
        TypeError, ValueError: ``players`` is not an int in [2, 5] (when ``hand_size`` is None).
    """
    return rulebook_hand_size(players) if hand_size is None else hand_size


def hand_order_of(ruleset: str | None) -> str:
    """The hand order a ruleset's rule agents play in (docs/rules.md §12).

    The one place where "the reference ruleset means fixed hand slots" is written: ``"fixed"``
    (the papers' Java framework deals into the vacated slot) for ``"reference"``, else
    ``"shift"`` (HLE's order; ``"corrected"`` rule agents, every other agent, or None).

    Args:
        ruleset: ``"corrected"``, ``"reference"`` or None (no rule agents' ruleset).

    Returns:
        ``"fixed"`` or ``"shift"`` (one of :data:`HAND_ORDERS`).
    """
    return "fixed" if ruleset == "reference" else "shift"


def hand_size_words(sizes: dict[int, int]) -> str:
    """``{players: hand size}`` in words, saying whether they are the rulebook's (§0.1).

    E.g. ``"hand size 5 (the rulebook's)"`` for ``{2: 5}``, ``"hand sizes 5 at 2p, 5 at 4p
    (not the rulebook's)"`` for ``{2: 5, 4: 5}``.

    Args:
        sizes: Hand size by number of players (players in [2, 5]).

    Returns:
        The words (a str).
    """
    rule = all(h == rulebook_hand_size(p) for p, h in sizes.items())
    tag = "the rulebook's" if rule else "not the rulebook's"
    if len(sizes) == 1:
        return f"hand size {next(iter(sizes.values()))} ({tag})"
    return "hand sizes " + ", ".join(f"{h} at {p}p" for p, h in sizes.items()) + f" ({tag})"


def describe_settings(players: int, hand_size: int, scoring: str, ruleset: str | None) -> str:
    """A game's settings in one line, as every report and record states them.

    Players, hand size (and whether it is the rulebook's, docs/rules.md §0.1, through
    :func:`hand_size_words`), scoring and the rule agents' ruleset (omitted when None), e.g.
    ``"2 players, hand size 5 (the rulebook's), strict scoring, corrected ruleset"``.

    Args:
        players: Number of players, in [2, 5].
        hand_size: Cards per hand.
        scoring: ``"strict"`` or ``"lenient"``.
        ruleset: The rule agents' ruleset, or None to leave it out.

    Returns:
        The line (a str, no final full stop).
    """
    text = f"{players} players, {hand_size_words({players: hand_size})}, {scoring} scoring"
    return text if ruleset is None else f"{text}, {ruleset} ruleset"


MAX_TOKENS = 100
"""Upper bound of ``max_information_tokens`` and ``max_life_tokens`` (far above any variant)."""


def _check_int(name: str, value: object) -> int:
    """Forwards to :func:`hanabi_env.validate.check_int` (kept for old imports)."""
    return check_int(name, value)


def _check_range(name: str, value: int, lo: int, hi: int | None = None) -> None:
    """Forwards to :func:`hanabi_env.validate.check_int` (kept for old imports)."""
    check_int(name, value, lo, hi)


def check_field(obj: object, name: str, ok: bool, allowed: str) -> None:
    """Raise the project's standard error for a bad dataclass field unless ``ok``.

    Raises:
        ValueError: ``"<name>=<value> is out of range; allowed: <allowed>"``.
    """
    if not ok:
        raise out_of_range(name, getattr(obj, name), allowed)


@dataclass(frozen=True)
class HanabiConfig:
    """A validated Hanabi configuration.

    Attributes:
        colors: Number of colours, in [2, 5] (in [1, 5] with ``bounds="hle"``).
        ranks: Number of ranks, in [2, 5].
        players: Number of players, in [2, 5] and at most ``colors`` (hanabi_v5's rule; not
            required with ``bounds="hle"``).
        hand_size: Cards per hand, in [2, 5] (hanabi_v5 keeps 5 for 4-5 players; the papers and
            HLE's default use 4 there).
        max_information_tokens: Information (hint) tokens, in [0, 100].
        max_life_tokens: Life tokens, in [1, 100].
        observation_type: ``"minimal"``, ``"card_knowledge"`` or ``"seer"`` (docs/anchors.md §2.2).
        random_start_player: Whether the first player is drawn at random on each reset (a bool).
        scoring: ``"strict"`` (0 once the lives run out, as HLE/PettingZoo) or ``"lenient"``
            (keep the fireworks total, as the papers' Java framework; docs/papers.md §1).
        hand_order: ``"shift"`` (HLE and hanabi_v5: a card leaving the hand shifts the later
            cards left and the new card is appended, so slot 0 is the oldest card) or
            ``"fixed"`` (the papers' Java framework, docs/rules.md §12: the new card is dealt into
            the vacated slot; for comparisons with the Java reference).
        bounds: ``"hanabi_v5"`` (the default: PettingZoo hanabi_v5's bounds, which the
            drop-in env keeps) or ``"hle"`` (the Hanabi Learning Environment's own bounds: one
            colour allowed, and more players than colours), for HLE's small presets
            (:data:`HLE_PRESETS`); the engine, legality and observations are the same code,
            compared with OpenSpiel's HLE on these presets (docs/anchors.md §2.4).

    Raises:
        TypeError: A parameter has the wrong type.
        ValueError: A parameter is out of range; the message names it and the allowed range.
    """

    colors: int = 5
    ranks: int = 5
    players: int = 2
    hand_size: int = 5
    max_information_tokens: int = 8
    max_life_tokens: int = 3
    observation_type: str = "card_knowledge"
    random_start_player: bool = False
    scoring: str = "strict"
    hand_order: str = "shift"
    bounds: str = "hanabi_v5"

    def __post_init__(self) -> None:
        """Validate every field (see the class docstring)."""
        hle = check_choice("bounds", self.bounds, BOUNDS) == "hle"
        colors = check_int(
            "colors",
            self.colors,
            1 if hle else 2,
            5,
            allowed=None if hle else "[2, 5] ([1, 5] with bounds='hle')",
        )
        ranks = check_int("ranks", self.ranks, 2, 5)
        players = check_int("players", self.players, 2, 5)
        hand_size = check_int("hand_size", self.hand_size, 2, 5)
        info = check_int("max_information_tokens", self.max_information_tokens, 0, MAX_TOKENS)
        life = check_int("max_life_tokens", self.max_life_tokens, 1, MAX_TOKENS)
        if players > colors and not hle:
            raise ValueError(
                f"players={players} is out of range; allowed: players <= colors (colors={colors}; "
                "bounds='hle' lifts this hanabi_v5 rule)"
            )
        if players * hand_size > n_cards_of(colors, ranks):
            raise ValueError(
                f"hand_size={hand_size} is out of range; allowed: players * hand_size <= "
                f"{n_cards_of(colors, ranks)} cards in the deck"
            )
        check_choice("observation_type", self.observation_type, OBSERVATION_TYPE_NAMES)
        random_start = check_bool("random_start_player", self.random_start_player)
        check_choice("scoring", self.scoring, SCORING_VARIANTS)
        check_choice("hand_order", self.hand_order, HAND_ORDERS)
        # plain Python values (numpy ints and bools are accepted, stored as int/bool)
        for name, value in (
            ("colors", colors),
            ("ranks", ranks),
            ("players", players),
            ("hand_size", hand_size),
            ("max_information_tokens", info),
            ("max_life_tokens", life),
            ("random_start_player", random_start),
        ):
            object.__setattr__(self, name, value)

    @property
    def fixed_slots(self) -> bool:
        """Whether drawn cards go into the vacated slot (the Java framework's hand order)."""
        return self.hand_order == "fixed"

    @property
    def lenient(self) -> bool:
        """Whether the fireworks total is kept when the lives run out."""
        return self.scoring == "lenient"

    @property
    def n_cards(self) -> int:
        """Cards in the deck (50 for 5 colours x 5 ranks)."""
        return n_cards_of(self.colors, self.ranks)

    @property
    def max_score(self) -> int:
        """Highest possible score, ``colors * ranks``."""
        return self.colors * self.ranks

    def as_dict(self) -> dict:
        """The configuration as a plain dict (JSON-serialisable)."""
        return asdict(self)

    @classmethod
    def for_game(
        cls,
        players: int,
        hand_size: int | None = None,
        scoring: str = "strict",
        ruleset: str | None = None,
        **fields: object,
    ) -> HanabiConfig:
        """The settings of a game an entry point deals for a user (docs/how-to/game-settings.md).

        The hand size is the rulebook's unless given (:func:`game_hand_size`), and the hand
        order the one the rule agents' ruleset implies (:func:`hand_order_of`: fixed slots for
        ``"reference"``) unless ``hand_order`` is among ``fields``.

        Args:
            players: Number of players, in [2, 5].
            hand_size: Cards per hand, in [2, 5], or None for the rulebook's (5 at 2-3 players,
                4 at 4-5).
            scoring: ``"strict"`` or ``"lenient"``.
            ruleset: The rule agents' ruleset (``"corrected"``, ``"reference"``) or None.
            **fields: Other :class:`HanabiConfig` fields (e.g. ``hand_order``,
                ``observation_type``).

        Returns:
            The validated configuration.

        Raises:
            TypeError, ValueError: As :class:`HanabiConfig` (naming the field).
        """
        fields.setdefault("hand_order", hand_order_of(ruleset))
        return cls(
            players=players,
            hand_size=game_hand_size(players, hand_size),
            scoring=scoring,
            **fields,  # type: ignore[arg-type]
        )


HLE_PRESETS: dict[str, dict[str, int | str]] = {
    "Hanabi-Small": {
        "colors": 2,
        "ranks": 5,
        "hand_size": 2,
        "max_information_tokens": 3,
        "max_life_tokens": 1,
        "observation_type": "card_knowledge",
    },
    "Hanabi-Very-Small": {
        "colors": 1,
        "ranks": 5,
        "hand_size": 2,
        "max_information_tokens": 3,
        "max_life_tokens": 1,
        "observation_type": "card_knowledge",
    },
}
"""The small configurations of HLE's ``rl_env.make`` (docs/bad.md §2 gives the source).

The player count is the caller's (``rl_env.make(name, num_players)``, default 2).
"""


def hle_preset(name: str, players: int = 2, **overrides: object) -> HanabiConfig:
    """One of HLE's small presets as a :class:`HanabiConfig` (``bounds="hle"``).

    Args:
        name: ``"Hanabi-Small"`` or ``"Hanabi-Very-Small"`` (:data:`HLE_PRESETS`).
        players: Number of players, in [2, 5].
        **overrides: Other :class:`HanabiConfig` fields (e.g. ``scoring="lenient"``).

    Returns:
        The configuration.

    Raises:
        TypeError: ``name`` is not a str, or a field has the wrong type.
        ValueError: Unknown ``name``, or a field out of range.
    """
    preset = HLE_PRESETS[check_choice("name", name, HLE_PRESETS)]
    fields = {**preset, "players": players, "bounds": "hle", **overrides}
    return HanabiConfig(**fields)  # type: ignore[arg-type]
