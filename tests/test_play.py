"""The terminal play mode: HumanPolicy, the view-drawn board, and ``hanabi-adhoc play``."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

import hanabi_env
from agents import make
from agents.human import HumanPolicy, action_uid, describe_action, legal_actions, render_view
from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env.cli import main


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
    assert main(["play", f"sb3:{tmp_path / 'partner.zip'}", "piers", "--games", "1"]) == 0
    assert re.search(r"player_0 \(sb3:partner\)\s+communicativeness", capsys.readouterr().out)


def test_cli_lists_every_stage():
    from hanabi_env.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in ("pipeline", "play", "evaluate", "map-elites", "ga", "matchups",
                 "meta-evaluate", "meta-table", "train-sb3", "population"):  # fmt: skip
        assert name in sub.choices, name
