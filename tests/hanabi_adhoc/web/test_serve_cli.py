"""``hanabi-adhoc serve``: a real server process on this computer, and its option errors."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from hanabi_adhoc.cli import main
from tests.helpers import ROOT

pytest.importorskip("flask", reason="hanabi-adhoc serve needs Flask: pip install '.[web]'")


def _get(url: str, host: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_serve_listens_on_this_computer_and_prints_its_address(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    out = tmp_path / "records"
    cmd = [sys.executable, "-m", "hanabi_adhoc", "serve", "--port", "0", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
        line = lines.get(timeout=120)  # a cold start imports numpy, numba, flask
        assert lines.get(timeout=10).startswith(f"sessions are saved in {out}/")
        assert line.startswith("Hanabi in the browser: open http://127.0.0.1:"), line
        url = line.split("open ")[1].split()[0]
        status, options = _get(url + "api/options")
        assert status == 200
        assert options["defaults"]["partners"] == ["Piers"]
        assert _get(url + "api/options", host="attacker.example")[0] == 400
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert lines.get(timeout=10).strip() == ""
        assert lines.get(timeout=10).strip() == "stopped."
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        ("--partner nobody", "--partner: 'nobody'"),
        ("--partner human", "is you"),
        ("--partner meta --partner Piers", "2-player games only"),
        (
            "--partner Piers --partner Piers --partner Piers --partner Piers --partner Piers",
            "1 to 4 partners",
        ),
        ("--port 70000", "--port"),
        ("--games 101", "--games"),
        ("--agent-delay -1", "--agent-delay"),
        ("--study missing-study.json", "--study"),
        ("--partner sb3:model.zip", "--partner"),
        ("--max-sessions 10001", "--max-sessions"),
        ("--session-rate 10001", "--session-rate"),
    ],
)
def test_bad_options_are_one_error_line(argv, text, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["serve", *argv.split()]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:")
    assert "\n" not in err
    assert text in err
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("flag", ["--max-sessions", "--session-rate"])
def test_limits_below_one_are_one_error_line_of_the_real_command(flag, tmp_path):
    from tests.helpers import run_python

    done = run_python(["-m", "hanabi_adhoc", "serve", flag, "0"], cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: argument {flag}: 0 is out of range")
    assert done.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_serve_without_flask_says_which_extra_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "flask", None)  # as if the web extra were not installed
    assert main(["serve"]) == 2
    assert "pip install 'hanabi-adhoc[web]'" in capsys.readouterr().err
