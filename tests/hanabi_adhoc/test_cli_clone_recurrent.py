"""``hanabi-adhoc clone --recurrent gru``, run as a user runs it (a real process).

The command trains a GRU clone, writes a ``"gru"`` partner and reports its play; the partner
then loads and plays in a process where torch cannot be imported; a bad ``--recurrent`` or
``--threads`` is one ``error:`` line with exit code 2 and nothing written.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_python

pytest.importorskip("torch", reason="training needs torch (the rl extra)")

NO_TORCH = """
import sys
sys.modules["torch"] = None  # any import of torch now fails
import agents
from agents.rl.partners import self_play_record
p = agents.make("rl:{path}")
print(type(p).__name__, len(self_play_record(p, games=3, seed=1)["scores"]))
"""


def test_the_command_trains_a_gru_clone_that_plays_without_torch(tmp_path):
    out = tmp_path / "g.json"
    run = run_python(
        ["-m", "hanabi_adhoc", "clone", "iggi", "--recurrent", "gru", "--games", "8",
         "--epochs", "1", "--hidden", "12,8", "--threads", "1", "--eval-games", "2",
         "--quiet", "--out", str(out)],
        cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "epoch 1:" in run.stdout
    assert "clone self-play:" in run.stdout
    doc = json.loads(out.read_text())
    assert doc["architecture"]["kind"] == "gru"
    assert doc["architecture"]["layers"][1:3] == [12, 8]
    assert (tmp_path / "g.npz").is_file()
    play = run_python(["-c", NO_TORCH.format(path=out)], cwd=tmp_path, timeout=600)
    assert play.returncode == 0, play.stderr
    assert play.stdout.split() == ["RecurrentPartner", "3"]


@pytest.mark.parametrize(("option", "value"), [("--recurrent", "lstm"), ("--threads", "0")])
def test_a_bad_recurrent_option_is_one_error_line(tmp_path, option, value):
    out = tmp_path / "x.json"
    run = run_python(
        ["-m", "hanabi_adhoc", "clone", "iggi", option, value, "--out", str(out)],
        cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "error:" in last
    assert option in last
    assert not out.exists()
