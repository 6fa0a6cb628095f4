"""An agent's faults on the real command line: one ``error:`` line naming it, exit 2.

``hanabi-adhoc play`` and ``evaluate`` run in a fresh interpreter with a user's policy file
(``path/to/file.py:Name``): a policy that raises, returns ``None``, ``5.7`` or ``10**6``, or
never returns (with a small ``--move-time-limit``) ends the command with one line naming the
agent, the game and the move, and no traceback; a batch policy that asks for the ``"seer"``
observation (every hand face up) is refused before any game, while its honest twin plays
(docs/reliability.md §9).
"""

from __future__ import annotations

import re
import textwrap
import time

import pytest

from tests.helpers import run_python

CHEATS = textwrap.dedent(
    """
    import time

    from agents import Policy
    from agents.batch import UniformBatchPolicy


    class Seer(UniformBatchPolicy):
        observation_type = "seer"
        observation_dtype = "int8"


    class Honest(UniformBatchPolicy):
        pass


    class Raiser(Policy):
        def act(self, view):
            raise KeyError("boom")


    class NoneMove(Policy):
        def act(self, view):
            return None


    class FloatMove(Policy):
        def act(self, view):
            return 5.7


    class HugeMove(Policy):
        def act(self, view):
            return 10**6


    class Hang(Policy):
        def act(self, view):
            while True:
                try:
                    time.sleep(1000)
                except Exception:
                    pass
    """
)

FAULTS = {  # the end of the error line (regular expressions)
    "Raiser": r"raised KeyError: 'boom'",
    "NoneMove": r"returned None, not an int move id",
    "FloatMove": r"returned 5\.7 \(float\), not an int move id",
    "HugeMove": r"returned 1000000, not a move id; allowed: 0\.\.19, legal now: \[.*\]",
    "Hang": r"was stopped after 3\.\d s \(limit 0\.5 s per move; 3 s for its first call\)",
}


def _expect(cheats, name: str, game: str, move: int) -> str:
    return rf"error: agent '{re.escape(str(cheats))}:{name}' \(game {game}, move {move}\) "


@pytest.fixture(scope="module")
def cheats(tmp_path_factory):
    path = tmp_path_factory.mktemp("user") / "cheat.py"
    path.write_text(CHEATS)
    return path


def _cli(args: list[str], cwd, timeout: float = 240):
    t0 = time.monotonic()
    proc = run_python(["-m", "hanabi_adhoc", *args], cwd=cwd, timeout=timeout)
    return proc, time.monotonic() - t0


def _one_error_line(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("compiling kernels", "  ["))]  # warm-up
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize("name", list(FAULTS))
def test_evaluate_ends_with_one_line_naming_the_agent_the_game_and_the_move(cheats, tmp_path, name):
    args = ["evaluate", f"{cheats}:{name}", "--players", "2", "--games", "3", "--quiet"]
    proc, took = _cli([*args, "--workers", "1", "--move-time-limit", "0.5"], tmp_path)
    line = _one_error_line(proc)
    assert re.fullmatch(_expect(cheats, name, "0", 0) + FAULTS[name], line), line
    if name == "Hang":
        assert took < 120


@pytest.mark.parametrize("name", ["Raiser", "FloatMove", "Hang"])
def test_play_ends_with_one_line_naming_the_seat_the_game_and_the_move(cheats, tmp_path, name):
    proc, _ = _cli(["play", "piers", f"{cheats}:{name}", "--move-time-limit", "0.5"], tmp_path)
    line = _one_error_line(proc)
    assert re.fullmatch(_expect(cheats, name, "0", 1) + FAULTS[name], line), line
    assert "game 0: score" not in proc.stdout  # the game did not count


def test_a_hang_in_a_worker_process_is_stopped_too(cheats, tmp_path):
    args = ["evaluate", f"{cheats}:Hang", "--players", "2", "--games", "400", "--quiet"]
    proc, took = _cli([*args, "--workers", "2", "--move-time-limit", "0.5"], tmp_path)
    line = _one_error_line(proc)
    assert re.fullmatch(_expect(cheats, "Hang", "(0|200)", 0) + FAULTS["Hang"], line), line
    assert took < 120


def test_the_seer_cheat_is_refused_and_its_honest_twin_plays(cheats, tmp_path):
    args = ["--players", "2", "--games", "5", "--quiet", "--workers", "1"]
    proc, _ = _cli(["evaluate", f"{cheats}:Seer", *args], tmp_path)
    line = _one_error_line(proc)
    assert line.startswith(f"error: argument AGENT: {cheats}:Seer: policy "), line
    assert "asks for observation_type='seer'" in line
    assert "allowed for a policy: 'card_knowledge', 'minimal'" in line
    proc, _ = _cli(["play", f"{cheats}:Seer", "piers"], tmp_path)
    line = _one_error_line(proc)
    assert line.startswith(f"error: argument SEAT: {cheats}:Seer: policy "), line
    assert "observation_type='seer'" in line
    proc, _ = _cli(["evaluate", f"{cheats}:Honest", *args], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "overall:" in proc.stdout


@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "soon"])
def test_a_bad_move_time_limit_is_an_option_error(cheats, tmp_path, bad):
    proc, _ = _cli(["evaluate", "piers", "--move-time-limit", bad], tmp_path)
    line = _one_error_line(proc)
    assert line.startswith("error: argument --move-time-limit: "), line


def test_the_options_default_is_the_librarys():
    from agents.faults import DEFAULT_MOVE_TIME_LIMIT
    from hanabi_adhoc.cli.options import MOVE_TIME_LIMIT

    assert MOVE_TIME_LIMIT == DEFAULT_MOVE_TIME_LIMIT
