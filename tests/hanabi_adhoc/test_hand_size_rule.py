"""One rule of play at 2–5 players (docs/rules.md §0.1): every entry point deals the same hands.

``play``, ``evaluate`` and ``agents.play`` give the same games on the same seeds at every
player count; only the PettingZoo env keeps hanabi_v5's 5 cards (drop-in), and says so.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import agents
import hanabi_env
from hanabi_adhoc.cli import main
from hanabi_env.config import rulebook_hand_size

SEATS = ["piers", "iggi", "outer", "flawed", "vandenbergh"]


def _cli_scores(capsys, argv) -> tuple[str, list[int]]:
    assert main(argv) == 0
    out = capsys.readouterr().out
    return out, [int(x) for x in re.findall(r"^game \d+: score (\d+)$", out, re.MULTILINE)]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_play_cli_agents_play_and_evaluate_deal_the_same_games(capsys, players):
    seats = SEATS[:players]
    out, cli = _cli_scores(capsys, ["play", *seats, "--games", "4", "--seed", "7"])
    size = rulebook_hand_size(players)
    assert out.splitlines()[0].startswith(f"{players} players, hand size {size} (the rulebook's)")
    batch = agents.play(seats, games=4, seed=7)
    assert cli == batch.scores.tolist()
    # a mirror evaluation plays the same deals and seat seeds as play() with one agent in every seat
    out, mirror = _cli_scores(
        capsys, ["play", *(["piers"] * players), "--games", "4", "--seed", "7"]
    )
    result = agents.evaluate(
        "piers", mode="mirror", players=(players,), games=4, seed=7, scoring="strict", workers=1
    )
    assert result.rows[0]["mean"] == pytest.approx(np.mean(mirror))
    assert result.rows[0]["hand_size"] == size == result.hand_sizes[players]


def test_hand_size_option_is_played_and_reported(capsys):
    out, scores = _cli_scores(capsys, ["play", "piers", "iggi", "iggi", "iggi", "--hand-size", "5"])
    assert "hand size 5 (not the rulebook's)" in out
    assert scores == agents.play(["piers", "iggi", "iggi", "iggi"], hand_size=5).scores.tolist()
    with pytest.raises(SystemExit) as exit_:
        main(["play", "piers", "iggi", "--hand-size", "9"])
    assert exit_.value.code == 2
    assert "--hand-size" in capsys.readouterr().err


def test_evaluate_reports_its_hand_sizes(tmp_path, capsys):
    path = tmp_path / "e.json"
    argv = ["evaluate", "piers", "--players", "3,4", "--games", "3", "--quiet", "--json", str(path)]
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "hand sizes 5 at 3p, 4 at 4p (the rulebook's)" in first
    doc = json.loads(path.read_text())
    assert doc["hand_sizes"] == {"3": 5, "4": 4}
    assert [r["hand_size"] for r in doc["rows"]] == [5, 4]
    fixed = agents.evaluate("piers", players=(4,), games=3, hand_size=5, workers=1)
    assert fixed.hand_sizes == {4: 5}


def test_the_pettingzoo_env_keeps_hanabi_v5s_default_and_documents_it():
    env = hanabi_env.env(players=4)
    env.reset(seed=0)
    assert env.unwrapped.view("player_0").hand_size == 5
    assert "rulebook_hand_size" in hanabi_env.env.__doc__
    env = hanabi_env.env(players=4, hand_size=hanabi_env.rulebook_hand_size(4))
    env.reset(seed=0)
    assert env.unwrapped.view("player_0").hand_size == 4
    with pytest.raises(ValueError, match="players"):
        rulebook_hand_size(6)


BATCH_POLICY = '''
import numpy as np
from agents.batch import BatchPolicy, masked_choice


class Linear(BatchPolicy):
    """A seeded random linear scorer: a stand-in for a neural policy (no torch needed)."""

    observation_dtype = "float64"

    def __init__(self, seed=0):
        self.name = "linear"
        self.weights = {}
        self.reset(seed)

    def act_batch(self, obs, mask, seats, draws):
        key = (obs.shape[1], mask.shape[1])
        if key not in self.weights:
            self.weights[key] = np.random.default_rng(key).normal(size=key)
        return masked_choice(obs @ self.weights[key], mask, draws, deterministic=False)
'''


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_batched_path_plays_the_same_games(tmp_path, capsys, players):
    """A batch policy at the table: play (one decision at a time through the AEC env) and
    agents.play (the lockstep batches) deal and play the same games."""
    path = tmp_path / "linear.py"
    path.write_text(BATCH_POLICY)
    seats = [f"{path}:Linear", *SEATS[1:players]]
    _, cli = _cli_scores(capsys, ["play", *seats, "--games", "3", "--seed", "2"])
    batch = agents.play([agents.make(seats[0]), *seats[1:]], games=3, seed=2)
    assert cli == batch.scores.tolist()
