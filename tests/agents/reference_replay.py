"""Replay the Java reference's recorded games (tests/data/reference_traces/) against our rules.

A helper of the differential tests (``tests/agents/test_reference_traces.py``) and of the
investigation script ``tools/reference_trace/compare.py``; not a test module itself. Reading the
files (the record format, the flags) is ``tools/reference_trace/read_traces.py``'s, reused here.

Each recorded game gives the deck in draw order and every move the reference made. The replay
deals the same deck into an engine with the reference's hand order, and at each decision asks our
rule list (in the requested ruleset) which rule fires and which move it gives, then applies the
*recorded* move, so that every decision of the game is compared on the reference's own state.
A move the reference drew from a randomised source is compared on the firing rule only.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents import rules as R
from agents.reference import FROM_JAVA_COLOUR, TO_JAVA_COLOUR, reference_rule_list, to_java_card
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig


def _read_traces():
    """``tools/reference_trace/read_traces.py`` (a script, not a package) as a module."""
    path = Path(__file__).resolve().parents[2] / "tools" / "reference_trace" / "read_traces.py"
    spec = importlib.util.spec_from_file_location("read_traces", path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RT = _read_traces()
TRACE_DIR: Path = RT.DEFAULT_DIR
CATEGORIES = tuple(RT.CATEGORIES)

# Move record: [seat, kind, x, y, rule, info_before, known, flags]
J_PLAY, J_DISCARD, J_TELL_COLOUR, J_TELL_RANK = RT.PLAY, RT.DISCARD, RT.TELL_COLOUR, RT.TELL_RANK
F_RANDOM, F_ILLEGAL, F_NULL = RT.F_RANDOM, RT.F_ILLEGAL, RT.F_NULL
F_LEGALITY_RAISED = RT.F_LEGALITY_RAISED
F_ENDS = RT.F_ILLEGAL | RT.F_FAILED | RT.F_LEGALITY_RAISED | RT.F_NULL


def load(category: str, directory: Path = TRACE_DIR) -> Iterator[tuple[dict, list[dict]]]:
    """Yield ``(job, [game, ...])`` of one trace file in file order."""
    return RT.load(directory / f"{category}.jsonl.gz")


@dataclass
class Divergence:
    """The first decision on which our rules and the reference disagree."""

    move: int
    seat: int
    java: tuple[int, int, int, int]  # kind, x, y, rule position
    ours: tuple[int, int, int, int]

    def __str__(self) -> str:
        return f"move {self.move} seat {self.seat}: java {self.java} ours {self.ours}"


@dataclass
class GameReplay:
    """What one replayed game showed."""

    decisions: int = 0
    compared: int = 0
    agreed: int = 0
    deterministic: bool = True
    first: Divergence | None = None
    rule_disagreements: dict[int, int] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return self.first is None


def _java_to_uid(cfg, cur: int, kind: int, slot: int, x: int, y: int) -> int:
    if kind == J_PLAY:
        return int(E.encode_action(cfg, cur, E.PLAY, slot, -1, 0))
    if kind == J_DISCARD:
        return int(E.encode_action(cfg, cur, E.DISCARD, slot, -1, 0))
    if kind == J_TELL_COLOUR:
        return int(E.encode_action(cfg, cur, E.REVEAL_COLOR, -1, x, TO_JAVA_COLOUR[y]))
    return int(E.encode_action(cfg, cur, E.REVEAL_RANK, -1, x, y - 1))


def _uid_to_java(cfg, cur: int, uid: int, java_slots: list) -> tuple[int, int, int]:
    if uid < 0:
        return (-1, -1, -1)
    kind, slot, target, colour, rank = (int(a) for a in E.decode_action(cfg, cur, uid))
    if kind in (E.PLAY, E.DISCARD):
        # our compacted slot -> the reference's fixed slot (gaps appear once the deck is empty)
        filled = [k for k, c in enumerate(java_slots) if c is not None]
        js = filled[slot] if slot < len(filled) else -1
        return (J_PLAY if kind == E.PLAY else J_DISCARD, js, -1)
    if kind == E.REVEAL_COLOR:
        return (J_TELL_COLOUR, target, FROM_JAVA_COLOUR[colour])
    return (J_TELL_RANK, target, rank + 1)


def replay_game(job: dict, game: dict, rules: list[int], apply_rule=None) -> GameReplay:
    """Replay one recorded game; compare our decisions under ``rules`` with the recorded ones.

    ``apply_rule(rule_id, view, rng) -> int`` evaluates one rule (default
    :func:`agents.rules.apply_rule`): a move uid, -1 (does not fire), -2 (raised: the
    reference's HistogramAgent skips it), -3 (fires but gives no move) or -4 (gives a move the
    reference's runner rejects).
    """
    apply_rule = R.apply_rule if apply_rule is None else apply_rule
    n, h = game["players"], game["hand_size"]
    s = E.new_state(HanabiConfig(players=n, hand_size=h, scoring="lenient", hand_order="fixed"))
    deck = [to_java_card(c) for c in game["deck"]]
    E.reset_with_deck(s, np.asarray(deck, dtype=np.int32), 0)
    v = V.new_view(s)
    rng = np.zeros(4, dtype=np.int64)
    out = GameReplay()
    java_slots = [[game["deck"][p * h + k] for k in range(h)] for p in range(n)]
    ptr = n * h
    rule_ids = np.asarray(rules, dtype=np.int64)
    for t, (seat, kind, x, y, jrule, _info, _known, flags) in enumerate(game["moves"]):
        if s.scal[E.S_DONE]:
            break
        assert seat == s.scal[E.S_CUR], (t, seat, s.scal[E.S_CUR])
        V.fill_view(s, seat, v, False)
        out.decisions += 1
        # which of our rules fires first, and its move
        pos, uid = -1, -1
        for i, rid in enumerate(rule_ids):
            a = int(apply_rule(int(rid), v, rng))
            if a >= 0 or a <= -3:
                pos, uid = i, a
                break
        ours = (*_uid_to_java(s.cfg, seat, uid, java_slots[seat]), pos)
        if kind in (J_PLAY, J_DISCARD):
            java = (kind, x, -1, jrule)
        else:
            java = (kind, x, y, jrule)
        randomised = bool(flags & F_RANDOM)
        out.deterministic &= not randomised
        if job["policy"] != "SampleLegalRandom":
            out.compared += 1
            same = ours[3] == java[3] if randomised else ours == java
            if uid == -3:  # fires without a move: the reference's agent returned null
                same = pos == jrule and bool(flags & F_NULL)
            elif uid in (-4, -5):  # a move the reference's runner rejects (the game ends)
                same = pos == jrule and bool(flags & (F_ILLEGAL | F_LEGALITY_RAISED))
            if jrule < 0 and pos < 0:
                same = True  # both fell back (random): nothing to compare
            if same:
                out.agreed += 1
            else:
                key = java[3]
                out.rule_disagreements[key] = out.rule_disagreements.get(key, 0) + 1
                if out.first is None:
                    out.first = Divergence(t, seat, java, ours)
        if flags & F_ENDS or kind < 0:
            break
        # apply the recorded move
        filled = [k for k, c in enumerate(java_slots[seat]) if c is not None]
        slot = filled.index(x) if kind in (J_PLAY, J_DISCARD) else -1
        uid = _java_to_uid(s.cfg, seat, kind, slot, x, y)
        E.apply_move(s, uid)
        if kind in (J_PLAY, J_DISCARD):
            java_slots[seat][x] = game["deck"][ptr] if ptr < len(game["deck"]) else None
            ptr += ptr < len(game["deck"])
    return out


def job_rules(job: dict, ruleset: str = "reference") -> list[int] | None:
    """Our compiled rule list for a recorded job (None for the LegalRandom agent)."""
    if job["policy"] == "SampleLegalRandom":
        return None
    if job["chromosome"] is not None:
        return reference_rule_list(job["chromosome"], ruleset=ruleset)
    return reference_rule_list(job["label"], ruleset=ruleset)


def reference_apply_rule():
    """The reference ruleset's evaluator of one gene (``f(gene, view, rng) -> int``)."""
    try:
        from agents.rules.reference import apply_reference_gene
    except ImportError:  # not built yet: the corrected rules
        return R.apply_rule
    return apply_reference_gene


@dataclass
class PlayedGame:
    """A recorded deal played from start to end by our reference agents."""

    moves: list[tuple[int, int, int, int]]  # seat, kind, x, y in the trace's notation
    score: int
    counters: np.ndarray  # (players, N_COUNTERS)
    ended_by: int  # 0, or the ReferenceGameEnd code that ended the game


def play_recorded_deal(job: dict, game: dict, seed: int = 0) -> PlayedGame:
    """Play the recorded deal with reference agents in every seat (as the job ran them)."""
    from agents.policy import ReferenceGameEnd, RuleAgent, end_game
    from hanabi_env import HanabiConfig, HanabiGame

    n, h = game["players"], game["hand_size"]
    wrapper = "histogram" if job["policy"] == "HistogramAgent" else "production"
    rules = job_rules(job) or [39]
    cfg = HanabiConfig(players=n, hand_size=h, scoring="lenient", hand_order="fixed")
    g = HanabiGame(cfg)
    g.reset_with_deck([to_java_card(c) for c in game["deck"]], 0)
    agents = [
        RuleAgent(rules, seed=seed + p, ruleset="reference", wrapper=wrapper) for p in range(n)
    ]
    java_slots = [[game["deck"][p * h + k] for k in range(h)] for p in range(n)]
    ptr = n * h
    moves = []
    ended = 0
    while not g.is_terminal:
        cur = g.current_player
        try:
            uid = agents[cur].act(g.view(cur))
        except ReferenceGameEnd as end:
            end_game(g, end.code)
            ended = end.code
            break
        kind, x, y = _uid_to_java(g.state.cfg, cur, uid, java_slots[cur])
        moves.append((cur, kind, x, y))
        if kind in (J_PLAY, J_DISCARD):
            # the card that leaves, in the trace's colour numbering
            java_slots[cur][x] = game["deck"][ptr] if ptr < len(game["deck"]) else None
            ptr += ptr < len(game["deck"])
        g.step(uid)
    return PlayedGame(moves, g.score, g.state.counters.copy(), ended)


def recorded_moves(game: dict) -> list[tuple[int, int, int, int]]:
    """The applied moves of a recorded game, as :attr:`PlayedGame.moves`."""
    out = []
    for seat, kind, x, y, _rule, _info, _known, flags in game["moves"]:
        if flags & F_ENDS or kind < 0:
            break
        out.append((seat, kind, x, -1 if kind in (J_PLAY, J_DISCARD) else y))
    return out
