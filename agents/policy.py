"""The policy protocol shared by every agent of the project, and rule-based policies.

A policy decides from the **player view** of its seat (never the state), returns a legal action
index (HLE move uid), and can be reset between games. It plugs into a
plain PettingZoo loop with one line::

    for agent in env.agent_iter():
        env.step(policies[agent](env, agent))   # None on dead steps, else policy.act(view)

and, when it is a :class:`RuleAgent`, into the compiled evaluator (:mod:`agents.evaluate`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from agents import rulebase
from agents import rules as R
from agents.faults import (
    DEFAULT_MOVE_TIME_LIMIT,
    AgentFault,
    ReferenceGameEnd,  # defined there (the fault rule passes it through); public here too
    agent_label,
    check_move_time_limit,
    policy_move,
)
from agents.reference import RULESETS, WRAPPERS, baseline_rules
from agents.rules import reference as RR
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.deprecation import moved_names
from hanabi_env.game import PlayerView
from hanabi_env.rng import new_rng, rng_seed
from hanabi_env.validate import check_choice, check_seed, check_str, type_error

__all__ = [
    "AgentFault",
    "Policy",
    "ReferenceGameEnd",
    "RuleAgent",
    "make_baseline",
    "play_out",
    "rule_ids",
]


def end_game(game, code: int) -> None:
    """End ``game`` (a :class:`hanabi_env.HanabiGame`) as the reference did on ``code``.

    ``code`` comes from :class:`ReferenceGameEnd`; the turn is counted as the reference's
    ``ReportAgent`` counted it.
    """
    RR.count_final_turn(game.state, int(code))
    game.state.scal[E.S_DONE] = 1


def play_out(
    game,
    seats: Sequence[Policy],
    actions: np.ndarray | None = None,
    *,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    game_index: int = -1,
    agents: Sequence[str] | None = None,
) -> int:
    """Play ``game`` (a dealt :class:`hanabi_env.HanabiGame`) to its end, ``seats[p]`` in seat p.

    Each move is the seat's ``act`` on its view; a :class:`ReferenceGameEnd` ends the game as
    the reference did (:func:`end_game`). The policies must have been reset for this game.

    A policy that raises, returns anything but a legal move id (a Python or numpy int; never
    rounded: ``5.7``, ``"3"``, ``None``, ``True`` are faults) or takes longer than
    ``move_time_limit`` seconds for a move ends the game with an
    :class:`~agents.faults.AgentFault` naming it, the game and the move (docs/reliability.md
    §9; how the limit interrupts a policy: :mod:`agents.faults`).

    Args:
        game: The game, dealt.
        seats: One policy per seat.
        actions: If given, ``actions[i]`` receives the action of move ``i`` (``(max_moves,)``).
        move_time_limit: Seconds per move (default
            :data:`~agents.faults.DEFAULT_MOVE_TIME_LIMIT`, 10 s); None or 0: no limit.
        game_index: The game's index in its batch, for a fault's message (-1: none).
        agents: Each seat's name for a fault's message (default: the policy's name).

    Returns:
        The number of moves played (a move ended by :class:`ReferenceGameEnd` does not count).

    Raises:
        AgentFault: A policy's fault (above).
        TypeError, ValueError: A bad ``move_time_limit``.
    """
    limit = check_move_time_limit("move_time_limit", move_time_limit)
    names = [agent_label(p) for p in seats] if agents is None else [str(a) for a in agents]
    legal = np.zeros(game.n_actions, dtype=np.int8)
    moves = 0
    while not game.is_terminal:
        cur = game.current_player
        move = game.n_moves
        game.legal_mask(out=legal)
        try:
            action = policy_move(
                seats[cur], game.view(cur), legal, agent=names[cur], limit=limit,
                game=game_index, move=move,
            )  # fmt: skip
        except ReferenceGameEnd as end:  # the reference ended the game here
            end_game(game, end.code)
            break
        if actions is not None:
            actions[move] = action
        game.step(action)
        moves += 1
    return moves


class Policy(ABC):
    """Base class of every policy (rule-based, random, meta-agent, SB3 model).

    Subclasses implement :meth:`act`; :meth:`reset` is called before each game.
    """

    name: str = "policy"

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Prepare for a new game (reseed the policy's generator when ``seed`` is given)."""

    @abstractmethod
    def act(self, view: PlayerView) -> int:
        """Return a legal action index for the seat of ``view`` (which must be on turn).

        The index is a Python ``int`` or a numpy integer. The game loops of this package
        (:func:`play_out`, :func:`agents.evaluate.play_games`) take anything else (``None``,
        ``5.7``, ``"3"``, ``True``), an illegal index, an exception or a move slower than
        their per-move time limit (10 s by default) as the policy's fault and end the run
        with an :class:`~agents.faults.AgentFault` naming it, the game and the move
        (docs/reliability.md §9).
        """

    def __call__(self, env, agent: str) -> int | None:
        """One-line PettingZoo integration: ``env.step(policy(env, agent))``.

        Returns ``None`` for a terminated or truncated agent (PettingZoo's dead step),
        otherwise ``self.act(env.unwrapped.view(agent))``.
        """
        base = env.unwrapped
        if base.terminations.get(agent, False) or base.truncations.get(agent, False):
            return None
        view = base.view(agent)
        return policy_move(self, view, view.legal_mask(), move=view.n_moves)


def rule_ids(rules: Sequence[int | str], reference: bool = False) -> np.ndarray:
    """Compiled rule ids (``int64``) from alphabet indices and/or rule names.

    Ints 0–104 are the alphabet (docs/rules.md §1); 105 and 106 are VanDenBergh's extra rules X1 and
    X2 (docs/rules.md §4), 107 is X3, rule 14 as the Java reference ran it (usable in rule lists,
    never chromosome genes). Names are published labels or canonical names (whitespace and
    commas ignored), or ``"X1"``, ``"X2"``, ``"X3"``. With ``reference=True`` the reference-only
    id :data:`agents.reference.RULE_DPU_1` (111) is accepted too.

    Raises:
        ValueError: An index is out of range or a name is unknown.
        TypeError: ``rules`` is not a sequence (a single str is not), or an element is neither
            int nor str.
    """
    if isinstance(rules, (str, bytes)) or not isinstance(rules, (Sequence, np.ndarray)):
        raise type_error("rules", "a sequence of rule indices or names", rules)
    out = []
    for r in rules:
        if isinstance(r, str):
            if r in rulebase.EXTRA_RULES:
                out.append(rulebase.EXTRA_RULES[r].rule_id)
                continue
            try:
                out.append(rulebase.index_of(r))
            except KeyError:
                raise ValueError(
                    f"unknown rule name {r!r} (see agents.rulebase.ALPHABET)"
                ) from None
        elif isinstance(r, (int, np.integer)) and not isinstance(r, bool):
            if not 0 <= int(r) < rulebase.N_RULE_IDS + int(bool(reference)):
                raise ValueError(
                    f"rule index {r} is out of range; allowed: [0, {rulebase.N_ALPHABET - 1}] "
                    f"(and {rulebase.RULE_X1}, {rulebase.RULE_X2} for X1, X2)"
                )
            out.append(int(r))
        else:
            raise TypeError(f"rules must be ints or names, got {type(r).__name__} {r!r}")
    return np.asarray(out, dtype=np.int64)


def _agent_key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


_BASELINE_KEYS = {_agent_key(k): k for k in rulebase.BASELINES}


class RuleAgent(Policy):
    """An ordered rule list plus the always-legal fallback (docs/rules.md §2.9).

    The rules run in the compiled kernel :func:`agents.rules.choose_action`; the first rule that
    fires gives the action, else one uniformly random legal move. Randomised rules and the
    fallback draw from the agent's own generator.

    With ``ruleset="reference"`` the rules behave as the Java reference ran them, bugs
    included (docs/rules.md §12; kernels in :mod:`agents.rules.reference`), inside the reference's
    agent wrapper: ``"histogram"`` (Hanabi-Map-Elites' HistogramAgent, every chromosome agent
    of the papers: the first rule that fires wins even without a move, a rule that throws is
    skipped, no rule: a random legal move) or ``"production"`` (the framework's
    ProductionRuleAgent, the baselines: a rule without a move is skipped, no rule: the agent
    raises). Such an agent may end the game (:class:`ReferenceGameEnd`), needs a game with
    fixed hand slots (``HanabiConfig(hand_order="fixed")``) and numbers colours in the Java
    order (RED, BLUE, GREEN, ORANGE, WHITE = colours 0..4 of the game it plays; only the names
    differ, the game is symmetric in its colours).

    Args:
        rules: Alphabet indices (a chromosome) and/or rule names, tried in order.
        seed: Seed of the agent's generator (re-seeded by :meth:`reset` when given a seed).
        name: Display name.
        ruleset: ``"corrected"`` (default) or ``"reference"``.
        wrapper: Reference agents only: ``"histogram"`` (default) or ``"production"``.

    Raises:
        TypeError: ``rules`` not a sequence of ints/names, ``seed`` not an int, ``name`` not a
            str or None, ``ruleset`` or ``wrapper`` not a str.
        ValueError: Empty rule list, an unknown rule, ``seed`` outside ``[0, 2**62)``, an
            unknown ``ruleset`` or ``wrapper``, or a ``wrapper`` with ``ruleset="corrected"``.
    """

    def __init__(
        self,
        rules: Sequence[int | str],
        seed: int = 0,
        name: str | None = None,
        ruleset: str = "corrected",
        wrapper: str | None = None,
    ):
        """See the class docstring."""
        check_choice("ruleset", ruleset, RULESETS)
        if wrapper is not None:
            check_choice("wrapper", wrapper, WRAPPERS)
            if ruleset != "reference":
                raise ValueError("wrapper applies to ruleset='reference' agents only")
        self.rules = rule_ids(rules, reference=ruleset == "reference")
        if self.rules.size == 0:
            raise ValueError("rules must contain at least one rule")
        seed = check_seed("seed", seed)
        if name is not None:
            check_str("name", name)
        self.rng = new_rng(seed)
        self.name = name or "rules" + str(self.rules.tolist())
        self.ruleset = ruleset
        self.wrapper = (wrapper or "histogram") if ruleset == "reference" else None
        self._view: V.View | None = None
        self._mask: np.ndarray | None = None

    @property
    def mode(self) -> int:
        """The evaluator's agent mode (``agents.rules.reference.MODE_*``)."""
        if self.ruleset == "corrected":
            return RR.MODE_FALLBACK
        return RR.MODE_PRODUCTION if self.wrapper == "production" else RR.MODE_HISTOGRAM

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the generator when ``seed`` is given (rules keep no other memory).

        Raises:
            TypeError, ValueError: ``seed`` is not None or an int in ``[0, 2**62)``.
        """
        seed = check_seed("seed", seed, allow_none=True)
        if seed is not None:
            rng_seed(self.rng, seed)

    @property
    def chromosome(self) -> tuple[int, ...]:
        """The rule ids as a tuple."""
        return tuple(int(r) for r in self.rules)

    def act(self, view: PlayerView) -> int:
        """Decide from ``view`` (see the class docstring); always a legal move."""
        raw = view.raw
        if (
            self._view is None
            or self._view.cards.shape != raw.cards.shape
            or (self._view.hist.shape != raw.hist.shape)
        ):
            self._view = V.View(*(np.array(a, copy=True) for a in raw))
            self._mask = np.zeros(int(raw.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
        else:
            for dst, src in zip(self._view, raw, strict=True):
                np.copyto(dst, src)
        if self.ruleset == "corrected":
            return int(
                R.choose_action(self.rules, self.rules.size, self._view, self.rng, self._mask)
            )
        if raw.cfg[E.CFG_HAND_ORDER] != E.HAND_FIXED:
            raise ValueError(
                "ruleset='reference' agents need the Java framework's fixed hand slots: play "
                "them in a game with HanabiConfig(..., hand_order='fixed')"
            )
        a = int(
            RR.choose_reference(
                self.rules, self.rules.size, self._view, self.rng, self._mask, self.mode
            )
        )
        if a < 0:
            raise ReferenceGameEnd(a)
        return a

    def __repr__(self) -> str:
        """Name, rules and (if not corrected) ruleset."""
        extra = (
            ""
            if self.ruleset == "corrected"
            else f", ruleset={self.ruleset!r}, wrapper={self.wrapper!r}"
        )
        return f"RuleAgent({self.name!r}, rules={self.rules.tolist()}{extra})"


def make_baseline(
    name: str, seed: int = 0, ruleset: str = "corrected", preset: str | None = None
) -> RuleAgent:
    """A baseline agent by name (case-insensitive; docs/rules.md §4), e.g. ``make("piers")``.

    Names (case, inner spaces, ``_`` and ``-`` ignored): IGGI, Internal, Outer, LegalRandom,
    VanDenBergh, Flawed, Piers, Cautious.

    With ``ruleset="reference"`` the agent is the baseline as Hanabi-Map-Elites registers it
    (:data:`agents.reference.REFERENCE_BASELINES`), run as the framework's ProductionRuleAgent
    (docs/rules.md §12.2). ``preset="cig18"`` gives the agent of that name as [CIG18]'s 2018
    framework built it (:data:`agents.reference.CIG18_POOL`; implies the reference ruleset).

    Raises:
        TypeError: ``name`` is not a str, or ``seed`` not an int.
        ValueError: Unknown name (the message lists the known ones; a name with leading or
            trailing spaces is unknown), ``seed`` outside ``[0, 2**62)``, or an unknown
            ``ruleset`` or ``preset``.
    """
    check_str("name", name)
    return baseline_agent(name, check_seed("seed", seed), ruleset, preset)


def baseline_agent(name: str, seed: int, ruleset: str, preset: str | None) -> RuleAgent:
    """:func:`make_baseline` for a caller that checked ``name`` (a str) and ``seed`` already.

    Checked once where a spec enters (:func:`agents.registry.make_policy`), not again here.

    Raises:
        ValueError: An unknown name, ``ruleset`` or ``preset``.
    """
    check_choice("ruleset", ruleset, RULESETS)
    if preset is not None:
        check_choice("preset", preset, ("cig18",))
        ruleset = "reference"
    key = _BASELINE_KEYS.get(_agent_key(name)) if name == name.strip() else None
    if key is None or (preset == "cig18" and key == "Cautious"):
        known = ", ".join(k for k in rulebase.BASELINES if preset is None or k != "Cautious")
        raise ValueError(f"unknown agent {name!r}; known: {known}")
    if ruleset == "corrected":
        return RuleAgent(rulebase.BASELINES[key], seed=seed, name=key)
    return RuleAgent(
        baseline_rules(key, preset),
        seed=seed,
        name=key,
        ruleset="reference",
        wrapper="production",
    )


# agents.make lives in agents.registry since 0.3.0 (the registry builds on this module)
__getattr__ = moved_names(__name__, {"make": "agents.registry:make"}, "0.4.0")
