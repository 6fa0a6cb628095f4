"""The terminal play mode: HumanPolicy, the view-drawn board, and ``hanabi-adhoc play``."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

import hanabi_env
from agents import make
from agents.human import (
    LEGEND,
    HumanPolicy,
    action_uid,
    describe_action,
    format_moves,
    legal_actions,
    render_view,
)
from hanabi_adhoc.cli import main
from hanabi_env import HanabiConfig, HanabiGame


def _game(seed=3):
    g = HanabiGame(HanabiConfig(players=2))
    g.reset(seed)
    return g


def test_board_hides_own_cards_and_shows_partner():
    g = _game()
    view = g.view(0)
    text = render_view(view)
    you = next(ln for ln in text.splitlines() if "you" in ln)
    assert you.count("??") == view.hand_lengths[0]
    partner = next(ln for ln in text.splitlines() if "player_1" in ln)
    for k in range(int(view.hand_lengths[1])):
        from hanabi_env.game import card_name

        assert f"{k}:{card_name(int(view.hands[1, k]), view.n_ranks)}" in partner


def test_legal_actions_match_engine_and_action_uid_roundtrip():
    g = _game()
    rng = np.random.default_rng(0)
    while not g.is_terminal:
        v = g.view(g.current_player)
        legal = legal_actions(v)
        assert legal.tolist() == g.legal_actions().tolist()
        for a in legal:
            desc = describe_action(v, int(a))
            assert desc == g.action_to_string(int(a))
            kind, _, rest = desc.partition(" ")
            if kind in ("play", "discard"):
                assert action_uid(v, kind, slot=int(rest.split()[-1])) == a
            elif rest.startswith("rank"):
                parts = rest.split()
                target, rank = int(parts[-1][7:]), int(parts[1]) - 1
                assert action_uid(v, "reveal_rank", target=target, rank=rank) == a
            else:
                parts = rest.split()
                uid = action_uid(v, "reveal_color", target=int(parts[-1][7:]), color=parts[0])
                assert uid == a
        g.step(int(rng.choice(legal)))


def test_action_uid_errors():
    v = _game().view(0)
    with pytest.raises(ValueError, match="kind"):
        action_uid(v, "hint")
    with pytest.raises(ValueError, match="slot"):
        action_uid(v, "play", slot=9)
    with pytest.raises(ValueError, match="target"):
        action_uid(v, "reveal_rank", target=0, rank=1)
    with pytest.raises(ValueError, match="color"):
        action_uid(v, "reveal_color", target=1, color="Q")


def test_human_policy_reprompts_then_accepts_commands():
    g = _game()
    said = []
    answers = iter(["banana", "99", "p0"])
    human = HumanPolicy(input_fn=lambda prompt: next(answers), output=said.append)
    action = human.act(g.view(0))
    assert action == action_uid(g.view(0), "play", slot=0)
    assert sum("not a legal move" in s for s in said) == 2
    answers2 = iter(["c1 " + "RYGWB"[int(g.view(0).hands[1, 0]) // 5]])
    human2 = HumanPolicy(input_fn=lambda prompt: next(answers2), output=said.append)
    a2 = human2.act(g.view(0))
    assert describe_action(g.view(0), a2).startswith("reveal ")


def _rejection(view, text):
    """What a person typing ``text`` in ``view`` is told (the game must go on afterwards)."""
    said = []
    answers = iter([text, "q"])
    human = HumanPolicy(input_fn=lambda prompt: next(answers), output=said.append, width=80)
    with pytest.raises(KeyboardInterrupt):
        human.act(view)
    assert all(len(ln) < 80 for ln in said[-1].splitlines())  # word-wrapped to the width
    return " ".join(said[-1].split())


def _no_tokens_view():
    """A 2-player view of the player on turn with 0 information tokens (8 hints given)."""
    g = _game()
    while g.view(g.current_player).information_tokens > 0:
        v = g.view(g.current_player)
        hints = [a for a in legal_actions(v) if describe_action(v, int(a)).startswith("reveal")]
        g.step(int(hints[0]))
    return g.view(g.current_player)


def test_every_rejection_says_why():
    v = _game().view(0)  # 8/8 information tokens, player_0 on turn
    hand = [int(v.hands[1, k]) for k in range(int(v.hand_lengths[1]))]
    absent_col = next(c for c in range(v.n_colors) if all(x // v.n_ranks != c for x in hand))
    absent_rank = next(r for r in range(v.n_ranks) if all(x % v.n_ranks != r for x in hand))
    present_cols = " ".join(sorted({"RYGWB"[x // v.n_ranks] for x in hand}, key="RYGWB".index))
    n_legal = len(legal_actions(v))
    cases = {
        "banana": r"cannot read it.*p<slot> play, d<slot> discard, c<player> <colour>",
        "": r"nothing typed.*c1 R",
        "99": rf"there is no move \[99\].*0-{n_legal - 1}",
        "p7": r"there is no slot 7: your slots are 0-4 \(0 = oldest\)",
        "d": r"which slot\?",
        "px": r"slot must be a number",
        "d0": r"cannot discard: the information tokens are full \(8/8\)",
        "c0 R": r"cannot hint yourself .*player_0",
        "r4 1": r"there is no player_4; you can hint player 1",
        "c1": rf"which colour\? colours that touch player_1's cards: {present_cols}",
        "r1": r"which rank\? ranks that touch",
        "c1 Q": r"unknown colour 'Q'; the colours are R Y G W B",
        "c1 3": r"3 is a rank, not a colour; for a rank hint type r1 3",
        "r1 G": r"'G' is a colour, not a rank; for a colour hint type c1 G",
        "r1 9": r"there is no rank 9; the ranks are 1-5",
        "r1 x": r"rank must be a number 1-5",
        "c x": r"'x' is not a player number",
        f"c1 {'RYGWB'[absent_col]}": rf"player_1 has no {'RYGWB'[absent_col]} card, so the hint "
        rf"would touch nothing; colours that touch something: {present_cols}",
        f"r1 {absent_rank + 1}": rf"player_1 has no rank {absent_rank + 1} card.*ranks that "
        r"touch something: \d",
    }
    for text, why in cases.items():
        msg = _rejection(v, text)
        assert msg.startswith("not a legal move"), (text, msg)
        assert re.search(why, msg), (text, msg)
    # 0 information tokens: hints are refused with the reason, discards are allowed again
    z = _no_tokens_view()
    other = 1 - z.seat
    msg = _rejection(z, f"r{other} 1")
    assert "cannot hint: no information tokens left (0/8)" in msg, msg
    said = []
    d0 = HumanPolicy(input_fn=lambda p: "d0", output=said.append).act(z)
    assert d0 == action_uid(z, "discard", slot=0)


def test_commands_accept_several_spellings():
    v = _game().view(0)
    hand = [int(v.hands[1, k]) for k in range(int(v.hand_lengths[1]))]
    col, rank = hand[0] // v.n_ranks, hand[0] % v.n_ranks
    letter = "RYGWB"[col]
    word = ("red", "yellow", "green", "white", "blue")[col]
    want_c = action_uid(v, "reveal_color", target=1, color=col)
    want_r = action_uid(v, "reveal_rank", target=1, rank=rank)
    for text in (
        f"c1 {letter}",
        f"c1{letter}",
        f"C1 {letter.lower()}",
        f"c1 {word}",
        f"c1,{letter}",
    ):
        assert HumanPolicy(input_fn=lambda p, t=text: t, output=lambda s: None).act(v) == want_c
    for text in (f"r1 {rank + 1}", f"r1{rank + 1}", f"R 1 {rank + 1}"):
        assert HumanPolicy(input_fn=lambda p, t=text: t, output=lambda s: None).act(v) == want_r
    assert HumanPolicy(input_fn=lambda p: "P3", output=lambda s: None).act(v) == action_uid(
        v, "play", slot=3
    )


@pytest.mark.parametrize("width", [40, 60, 80, 132])
def test_move_list_is_a_grid_grouped_by_kind(width):
    g = _game()
    g.step(int(legal_actions(g.view(0))[-1]))  # a hint: discards become legal
    v = g.view(1)
    legal = legal_actions(v)
    text = format_moves(v, legal, width)
    lines = text.splitlines()
    assert lines[0] == "Your moves:"
    heads = [ln.strip() for ln in lines if ln.startswith(" ") and not ln.startswith("  ")]
    assert [re.match(r"\w+", h).group() for h in heads] == ["Play", "Discard", "Hint"]
    assert all(len(ln) <= width for ln in lines), text
    # every entry is whole on one line and the numbers 0..n-1 name the move shown next to them
    entries = re.findall(r"\[(\d+)\] ((?:play|discard|reveal)[^\[]*?)(?=\s{2,}|$)", text, re.M)
    assert [int(i) for i, _ in entries] == list(range(len(legal)))
    for i, desc in entries:
        human = HumanPolicy(input_fn=lambda p, i=i: i, output=lambda s: None)
        assert describe_action(v, human.act(v)) == desc.strip()
    kinds = [d.split()[0] for _, d in entries]
    assert kinds == sorted(kinds, key=["play", "discard", "reveal"].index)


def test_move_list_uses_the_terminal_width(monkeypatch):
    import os
    import shutil

    v = _game().view(0)
    monkeypatch.setattr(
        shutil, "get_terminal_size", lambda fallback=None: os.terminal_size((45, 24))
    )
    lines = format_moves(v, legal_actions(v)).splitlines()
    assert all(len(ln) <= 45 for ln in lines)
    assert max(len(ln) for ln in format_moves(v, legal_actions(v), 200).splitlines()) > 45


def test_legend_on_first_turn_and_on_help():
    g = _game()
    said = []
    HumanPolicy(input_fn=lambda p: "0", output=said.append).act(g.view(0))
    assert LEGEND in "\n".join(said)
    assert "|2345 = not a 1" in LEGEND
    g.step(int(legal_actions(g.view(0))[-1]))
    g.step(int(legal_actions(g.view(1))[-1]))
    said.clear()
    answers = iter(["?", "0"])
    HumanPolicy(input_fn=lambda p: next(answers), output=said.append).act(g.view(0))
    board, *rest = said[1:]
    assert LEGEND not in board  # not repeated on every turn ...
    assert any(
        LEGEND in s and "c<player> <colour>" in " ".join(s.split()) for s in rest
    )  # ... but on "?"
    assert LEGEND in render_view(g.view(0), legend=True)


def test_board_is_word_wrapped_to_the_width():
    g = HanabiGame(HanabiConfig(players=3))
    g.reset(1)
    for _ in range(5):
        g.step(int(legal_actions(g.view(g.current_player))[-1]))  # hints: long "Last moves"
    v = g.view(g.current_player)
    wide = render_view(v, width=300)
    narrow = render_view(v, width=40)
    assert all(len(ln) < 40 for ln in narrow.splitlines()), narrow
    assert narrow.split() == wide.split()  # the same words: only line breaks were added


def test_human_policy_quit_and_eof():
    g = _game()
    with pytest.raises(KeyboardInterrupt):
        HumanPolicy(input_fn=lambda p: "q", output=lambda s: None).act(g.view(0))

    def eof(prompt):
        raise EOFError

    with pytest.raises(KeyboardInterrupt):
        HumanPolicy(input_fn=eof, output=lambda s: None).act(g.view(0))


def test_human_in_the_aec_loop_with_a_rule_agent():
    env = hanabi_env.env(players=2)
    env.reset(seed=5)
    # a "person" who always types the first listed move
    human = HumanPolicy(input_fn=lambda p: "0", output=lambda s: None)
    piers = make("piers")
    seats = {"player_0": human, "player_1": piers}
    for agent in env.agent_iter():
        *_, info = env.last()
        env.step(seats[agent](env, agent))
    assert 0 <= info["score"] <= 25


def test_cli_play_agents_only(capsys):
    assert main(["play", "piers", "iggi", "--games", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"^game \d: score \d+", out, flags=re.M)) == 2
    assert re.search(r"player_0 \(Piers\)\s+communicativeness \d\.\d\d\s+IPP", out)


def test_cli_play_human_reports_metrics(monkeypatch, capsys):
    answers = iter(["0"] * 200)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "human", "piers", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "Your moves:" in out
    assert re.search(r"player_0 \(human\)\s+communicativeness .*<- you", out)


def _cli_session(monkeypatch, capsys, answers, end):
    """Output of ``play human piers`` fed ``answers`` then ``end`` ("q" or EOF)."""
    feed = iter(answers)

    def fake_input(prompt=""):
        try:
            return next(feed)
        except StopIteration:
            if end == "eof":
                raise EOFError from None
            return end

    monkeypatch.setattr("builtins.input", fake_input)
    assert main(["play", "human", "piers", "--games", "1", "--seed", "2"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("answers", [[], ["r1 9", "0"], ["0", "0"]])
def test_cli_eof_ends_like_q(monkeypatch, capsys, answers):
    by_eof = _cli_session(monkeypatch, capsys, answers, "eof")
    by_q = _cli_session(monkeypatch, capsys, answers, "q")
    assert by_eof == by_q
    assert "stopped." in by_eof
    assert re.search(r"player_0 \(human\)\s+communicativeness .*<- you", by_eof)
    assert re.search(r"player_1 \(Piers\)\s+communicativeness", by_eof)


def test_cli_play_errors(capsys):
    assert main(["play", "piers"]) == 2
    assert main(["play", "nobody", "piers"]) == 2
    assert main(["play", "meta", "piers", "iggi"]) == 2
    err = capsys.readouterr().err
    assert "2 to 5 seats" in err
    assert "unknown agent" in err
    assert "2-player" in err


HAVE_RL = all(importlib.util.find_spec(m) for m in ("torch", "stable_baselines3", "sb3_contrib"))


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason='needs the rl extra: pip install ".[rl]"')
def test_cli_train_sb3_then_play_with_the_model(tmp_path, capsys):
    model = tmp_path / "partner"
    assert main(["train-sb3", "--steps", "256", "--games", "3", "--workers", "1",
                 "--out", str(model), "--quiet"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert (tmp_path / "partner.zip").exists()
    m = re.search(r"against the training pool: ([\d.]+) ±", out)
    assert m is not None
    assert 0.0 <= float(m.group(1)) <= 25.0
    assert main(["play", f"sb3:{tmp_path / 'partner.zip'}", "piers", "--games", "1",
                 "--trust-model"]) == 0  # fmt: skip
    assert re.search(r"player_0 \(sb3:partner\)\s+communicativeness", capsys.readouterr().out)


def test_cli_lists_every_stage():
    from hanabi_adhoc.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in ("pipeline", "play", "evaluate", "map-elites", "ga", "matchups",
                 "meta-evaluate", "meta-table", "train-sb3", "population"):  # fmt: skip
        assert name in sub.choices, name
