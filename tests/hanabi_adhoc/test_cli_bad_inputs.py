"""Bad command-line input fails fast: one ``error:`` line, exit code 2, nothing written.

Every case runs ``hanabi-adhoc`` in-process in a workspace holding valid result files (a JSON
result, a response table, a MAP-Elites-style run folder) and files of the wrong kind. Each bad
invocation must be refused before any game is played (well under 5 s), print exactly one line
on stderr that starts with ``error:`` and names the offending option, exit with code 2, and
leave every file of the workspace as it was (nothing created, nothing changed).

``play sb3:PATH`` needs ``--trust-model`` (loading a Stable-Baselines3 model unpickles code from
the file); the refusal is tested without torch, the accepted path with a tiny model when
sb3-contrib is installed.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hanabi_adhoc.cli import main

ROOT = Path(__file__).resolve().parents[2]
HAVE_PROC = os.path.isdir("/proc/self")
UNWRITABLE = "/proc/hanabi-adhoc-no-such-dir"  # not creatable, not even by root

RESULT = {"agent": "Piers", "mean": 17.5, "note": "a valid earlier result that must survive"}

# (the command line as a user types it, text that names the offending option)
BAD: list[tuple[str, str]] = [
    # --- demo ---
    ("demo --games 0", "--games"),
    ("demo --games -1", "--games"),
    ("demo --games 1.5", "--games"),
    ("demo --games abc", "--games"),
    ("demo --games ''", "--games"),
    ("demo --games 99999999999999999999999999", "--games"),
    ("demo --players 1", "--players"),
    ("demo --players 2.5", "--players"),
    ("demo --seed -1", "--seed"),
    ("demo --seed 1e3", "--seed"),
    ("demo --seed 99999999999999999999999999", "--seed"),
    ("demo --scoring foo", "--scoring"),
    ("demo --workers 3", "--workers"),
    # --- play ---
    ("play piers", "SEAT"),
    ("play piers iggi a b c d", "SEAT"),
    ("play rl:ppo-sp1 piers iggi", "SEAT"),  # an RL partner trained for 2 players
    ("play rl:ppo-sp1 piers --hand-size 4", "SEAT"),
    ("play rl:no-such-partner piers", "SEAT"),
    ("play metafoo piers", "SEAT"),
    ("play meta:foo piers", "SEAT"),
    ("play meta:oracle piers", "SEAT"),
    ("play meta piers iggi", "SEAT"),
    ("play meta nobody", "SEAT"),
    ("play meta 1,,2", "SEAT"),
    ("play nobody piers", "SEAT"),
    ("play humanx piers", "SEAT"),
    ("play 1,2,x piers", "SEAT"),
    ("play 1,999 piers", "SEAT"),
    ("play 1,-2 piers", "SEAT"),
    ("play , piers", "SEAT"),
    ("play '' piers", "SEAT"),
    ("play sb3: piers", "--trust-model"),
    ("play sb3:no-such-model.zip piers", "--trust-model"),
    ("play sb3:fake_model.zip piers", "--trust-model"),
    ("play sb3:adir piers", "--trust-model"),
    ("play piers iggi --games 0", "--games"),
    ("play piers iggi --seed -5", "--seed"),
    ("play piers iggi --seed 99999999999999999999999", "--seed"),
    ("play piers iggi --train-games 0", "--train-games"),
    ("play piers iggi --scoring x", "--scoring"),
    # --- train-sb3 (all refused before torch is touched) ---
    ("train-sb3 --pool nobody", "--pool"),
    ("train-sb3 --pool ''", "--pool"),
    ("train-sb3 --pool ,,,", "--pool"),
    ("train-sb3 --pool piers,1,,2", "--pool"),
    ("train-sb3 --steps 0", "--steps"),
    ("train-sb3 --players 6", "--players"),
    ("train-sb3 --games -1", "--games"),
    ("train-sb3 --workers 0", "--workers"),
    ("train-sb3 --workers 100000", "--workers"),
    ("train-sb3 --torch-threads 0", "--torch-threads"),
    ("train-sb3 --seed -1", "--seed"),
    ("train-sb3 --out afile/m.zip", "--out"),
    ("train-sb3 --out ''", "--out"),
    ("train-sb3 --out adir/", "--out"),
    # --- evaluate ---
    ("evaluate piers --players 2,2 --json result.json", "--players"),
    ("evaluate piers --players 2-3,3", "--players"),
    ("evaluate piers --players 1", "--players"),
    ("evaluate piers --players 6", "--players"),
    ("evaluate piers --players 5-2", "--players"),
    ("evaluate piers --players ''", "--players"),
    ("evaluate piers --players 2-3-4", "--players"),
    ("evaluate piers --players 2-", "--players"),
    ("evaluate piers --players 2,,3", "--players"),
    ("evaluate piers --players x", "--players"),
    ("evaluate piers --games 0", "--games"),
    ("evaluate piers --games x", "--games"),
    ("evaluate piers --seed -1", "--seed"),
    ("evaluate piers --seed 4294967296", "--seed"),
    ("evaluate piers --workers 0", "--workers"),
    ("evaluate piers --mode foo", "--mode"),
    ("evaluate piers --hand-order foo", "--hand-order"),
    ("evaluate nobody", "AGENT"),
    ("evaluate ''", "AGENT"),
    ("evaluate 1,999", "AGENT"),
    ("evaluate 1,-3", "AGENT"),
    ("evaluate 1,,2", "AGENT"),
    ("evaluate piers --json adir", "--json"),
    ("evaluate piers --json afile/x.json", "--json"),
    ("evaluate piers --json ''", "--json"),
    ("evaluate piers --csv adir", "--csv"),
    ("evaluate piers --csv afile/sub/x.csv", "--csv"),
    ("evaluate piers --json result.json --csv adir", "--csv"),
    # --- pipeline ---
    ("pipeline --runs 0", "--runs"),
    ("pipeline --runs -1", "--runs"),
    ("pipeline --candidates 0", "--candidates"),
    ("pipeline --me-games 0", "--me-games"),
    ("pipeline --seed -1", "--seed"),
    ("pipeline --matchup-games 0", "--matchup-games"),
    ("pipeline --train-games 0", "--train-games"),
    ("pipeline --episodes 0", "--episodes"),
    ("pipeline --games 0", "--games"),
    ("pipeline --workers 0", "--workers"),
    ("pipeline --config foo", "--config"),
    ("pipeline --out afile", "--out"),
    ("pipeline --out afile/sub", "--out"),
    ("pipeline --out ''", "--out"),
    ("pipeline --scheduler-address ''", "--scheduler-address"),
    ("pipeline --scheduler-address 'not an address'", "--scheduler-address"),
    # --- map-elites ---
    ("map-elites --candidates 0", "--candidates"),
    ("map-elites --random 0", "--random"),
    ("map-elites --candidates 10 --random 20", "--random"),
    ("map-elites --games 0", "--games"),
    ("map-elites --reeval-games -1", "--reeval-games"),
    ("map-elites --grid 0", "--grid"),
    ("map-elites --grid -5", "--grid"),
    ("map-elites --grid 100000", "--grid"),
    ("map-elites --grid 1000 1000 1000", "--grid"),
    ("map-elites --grid 5 5 5", "--measures"),
    ("map-elites --measures foo", "--measures"),
    ("map-elites --players 1", "--players"),
    ("map-elites --players 2,2", "--players"),
    ("map-elites --players x", "--players"),
    ("map-elites --crossover-rate 2", "--crossover-rate"),
    ("map-elites --crossover-rate nan", "--crossover-rate"),
    ("map-elites --crossover-rate -0.1", "--crossover-rate"),
    ("map-elites --mutation-rate inf", "--mutation-rate"),
    ("map-elites --mutation-rate x", "--mutation-rate"),
    ("map-elites --batch-size 0", "--batch-size"),
    ("map-elites --seed -1", "--seed"),
    ("map-elites --checkpoint-every 0", "--checkpoint-every"),
    ("map-elites --matchups -1", "--matchups"),
    ("map-elites --workers 0", "--workers"),
    ("map-elites --scheduler-address 'x y'", "--scheduler-address"),
    ("map-elites --out afile", "--out"),
    ("map-elites --out afile/sub", "--out"),
    ("map-elites --scoring foo", "--scoring"),
    ("map-elites --config foo", "--config"),
    # --- ga ---
    ("ga --population 1", "--population"),
    ("ga --generations 0", "--generations"),
    ("ga --rules 999", "--rules"),
    ("ga --genes 0", "--genes"),
    ("ga --rules 50 --genes 60", "--genes"),
    ("ga --elitism -1", "--elitism"),
    ("ga --population 3 --elitism 5", "--elitism"),
    ("ga --tournament 999", "--tournament"),
    ("ga --crossover-rate 2", "--crossover-rate"),
    ("ga --mutation-rate -1", "--mutation-rate"),
    ("ga --mode foo", "--mode"),
    ("ga --players 7", "--players"),
    ("ga --players 2,2", "--players"),
    ("ga --games 0", "--games"),
    ("ga --final-top 999", "--final-top"),
    ("ga --final-games 0", "--final-games"),
    ("ga --seed -1", "--seed"),
    ("ga --situational --groups '2;x'", "--groups"),
    ("ga --situational --groups '2;2-3'", "--groups"),
    ("ga --situational --groups ''", "--groups"),
    ("ga --situational --groups '2;7'", "--groups"),
    ("ga --groups '2;3-5'", "--groups"),
    ("ga --json adir", "--json"),
    ("ga --json afile/x.json", "--json"),
    ("ga --workers 0", "--workers"),
    # --- population ---
    ("population no-such-population", "SOURCE"),
    ("population ''", "SOURCE"),
    ("population garbage.txt", "SOURCE"),
    ("population notpop.json", "SOURCE"),
    ("population list.json", "SOURCE"),
    ("population empty.json", "SOURCE"),
    ("population binary.bin", "SOURCE"),
    ("population adir", "SOURCE"),
    ("population badrule.json", "SOURCE"),
    ("population badcell.json", "SOURCE"),
    ("population nocells.json", "SOURCE"),
    ("population fakearchive.json", "SOURCE"),
    ("population 5x5 --reeval -1", "--reeval"),
    ("population 5x5 --reeval 2 --matchups -1", "--matchups"),
    ("population 5x5 --compare no-such-population", "--compare"),
    ("population 5x5 --compare garbage.txt", "--compare"),
    ("population 5x5 --compare 20x20", "--compare"),
    ("population 5x5 --cross-games 0", "--cross-games"),
    ("population 5x5 --action-games -1", "--action-games"),
    ("population 5x5 --reeval 2 --seed -1", "--seed"),
    ("population 5x5 --out afile", "--out"),
    ("population 5x5 --out afile/sub", "--out"),
    ("population 5x5 --workers 0", "--workers"),
    # --- matchups ---
    ("matchups no-such-population", "SOURCE"),
    ("matchups garbage.txt", "SOURCE"),
    ("matchups adir", "SOURCE"),
    ("matchups badrule.json", "SOURCE"),
    ("matchups nocells.json", "SOURCE"),
    ("matchups 5x5 --games 0", "--games"),
    ("matchups 5x5 --seed -1", "--seed"),
    ("matchups 5x5 --scoring foo", "--scoring"),
    ("matchups 5x5 --out afile", "--out"),
    # --- meta-table ---
    ("meta-table --responses no-such-population", "--responses"),
    ("meta-table --responses baselines:", "--responses"),
    ("meta-table --responses baselines:nobody", "--responses"),
    ("meta-table --responses garbage.txt", "--responses"),
    ("meta-table --responses adir", "--responses"),
    ("meta-table --responses badrule.json", "--responses"),
    ("meta-table --responses nocells.json", "--responses"),
    ("meta-table --hypotheses no-such-population", "--hypotheses"),
    ("meta-table --train-games 0", "--train-games"),
    ("meta-table --seed -1", "--seed"),
    ("meta-table --workers 0", "--workers"),
    ("meta-table --out adir", "--out"),
    ("meta-table --out afile/t.csv", "--out"),
    ("meta-table --out garbage.txt", "--out"),
    ("meta-table --out ''", "--out"),
    ("meta-table --train-games 2 --out table.csv", "--out"),
    # --- meta-eval ---
    ("meta-eval --responses no-such-population", "--responses"),
    ("meta-eval --hypotheses baselines:nobody", "--hypotheses"),
    ("meta-eval --partners no-such-population", "--partners"),
    ("meta-eval --partners garbage.txt", "--partners"),
    ("meta-eval --config foo", "--config"),
    ("meta-eval --train-games 0", "--train-games"),
    ("meta-eval --episodes 0", "--episodes"),
    ("meta-eval --games 0", "--games"),
    ("meta-eval --variants psychic", "--variants"),
    ("meta-eval --variants ''", "--variants"),
    ("meta-eval --variants adaptive,adaptive", "--variants"),
    ("meta-eval --response-threshold -1", "--response-threshold"),
    ("meta-eval --empty-niche foo", "--empty-niche"),
    ("meta-eval --self-play-games -1", "--self-play-games"),
    ("meta-eval --seed -1", "--seed"),
    ("meta-eval --workers 0", "--workers"),
    ("meta-eval --out afile", "--out"),
    ("meta-eval --out afile/sub", "--out"),
    ("meta-eval --figures afile", "--figures"),
    ("meta-eval --figures afile/sub", "--figures"),
    ("meta-eval --out meta_run --train-games 3", "--out"),
    # --- empty output paths (never the default folder) ---
    ("map-elites --out ''", "--out"),
    ("ga --out ''", "--out"),
    ("population 5x5 --out ''", "--out"),
    ("matchups 5x5 --out ''", "--out"),
    ("meta-eval --out ''", "--out"),
    # --- the command itself ---
    ("", "COMMAND"),
    ("no-such-command", "no-such-command"),
    ("evaluate", "AGENT"),
]
CASES: list[tuple[list[str], str]] = [(shlex.split(line), option) for line, option in BAD]

if os.path.exists("/dev/zero"):  # a SOURCE that is not a regular file: refused, never read
    DEVICE_BAD = [
        ("population /dev/zero", "SOURCE"),
        ("matchups /dev/zero", "SOURCE"),
        ("population 5x5 --compare /dev/zero", "--compare"),
        ("meta-table --responses /dev/zero", "--responses"),
        ("meta-eval --partners /dev/zero", "--partners"),
    ]
    CASES += [(shlex.split(line), opt) for line, opt in DEVICE_BAD]

if HAVE_PROC:  # unwritable places (root can write almost anywhere else); {u}: UNWRITABLE
    UNWRITABLE_BAD = [
        ("evaluate piers --json {u}/x.json", "--json"),
        ("evaluate piers --csv {u}/x.csv", "--csv"),
        ("pipeline --out {u}", "--out"),
        ("map-elites --out {u}", "--out"),
        ("ga --json {u}/ga.json", "--json"),
        ("population 5x5 --out {u}", "--out"),
        ("matchups 5x5 --out {u}", "--out"),
        ("meta-table --out {u}/t.csv", "--out"),
        ("meta-eval --out {u}", "--out"),
        ("meta-eval --figures {u}", "--figures"),
        ("train-sb3 --out {u}/m.zip", "--out"),
    ]
    CASES += [(shlex.split(line.format(u=UNWRITABLE)), opt) for line, opt in UNWRITABLE_BAD]


def _population(cells) -> dict:
    return {"grid": [5, 5], "measures": ["communicativeness", "ipp"], "cells": cells}


@pytest.fixture(scope="module")
def table_csv(tmp_path_factory) -> bytes:
    """A valid response table file (Piers and IGGI, 1 game per pair, seed 0)."""
    from agents.registry import make
    from meta.table import build_table

    path = tmp_path_factory.mktemp("table") / "table.csv"
    pool = [make("piers"), make("iggi")]
    build_table(pool, pool, 1, 0, path=path)
    return path.read_bytes()


@pytest.fixture
def workspace(tmp_path, table_csv) -> Path:
    """A fresh folder with valid results (to keep) and files of every wrong kind."""
    ws = tmp_path
    (ws / "result.json").write_text(json.dumps(RESULT))
    (ws / "garbage.txt").write_text("hello world\n")
    (ws / "notpop.json").write_text('{"a": 1}')
    (ws / "list.json").write_text("[1, 2, 3]")
    (ws / "empty.json").write_text("")
    (ws / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (ws / "afile").write_text("a regular file, not a folder\n")
    (ws / "adir").mkdir()
    (ws / "fake_model.zip").write_text("not a zip file")
    cell = {"chromosome": [1] * 15, "comm_index": 0, "ipp_index": 0}
    (ws / "badrule.json").write_text(json.dumps(_population([{**cell, "chromosome": [999] * 15}])))
    (ws / "badcell.json").write_text(json.dumps(_population([{**cell, "comm_index": 9}])))
    (ws / "nocells.json").write_text(json.dumps(_population([])))
    (ws / "fakearchive.json").write_text(json.dumps({"format": "hanabi-adhoc/qd-archive"}))
    (ws / "table.csv").write_bytes(table_csv)
    (ws / "meta_run").mkdir()
    (ws / "meta_run" / "table.csv").write_bytes(table_csv)
    return ws


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file and folder under ``root``: content hash (files) and mtime."""
    out = {}
    for p in sorted(root.rglob("*")):
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        out[str(p.relative_to(root))] = (digest, p.stat().st_mtime_ns)
    return out


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _guard(seconds: int):
    """Abort a case that started real work instead of failing (Unix; a no-op elsewhere)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def handler(signum, frame):
        raise _Timeout(f"still running after {seconds} s: the input was not refused up front")

    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        return exc.code


def test_there_are_enough_cases():
    assert len(CASES) >= 80
    assert len({tuple(a) for a, _ in CASES}) == len(CASES), "duplicate cases"
    commands = {a[0] for a, _ in CASES if a}
    assert {"demo", "play", "train-sb3", "evaluate", "pipeline", "map-elites", "ga",
            "population", "matchups", "meta-table", "meta-eval"} <= commands  # fmt: skip


@pytest.mark.parametrize(("argv", "option"), CASES, ids=[" ".join(a) or "(none)" for a, _ in CASES])
def test_bad_input_is_refused_up_front(argv, option, workspace, capsys, monkeypatch):
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    before = _snapshot(workspace)
    capsys.readouterr()
    start = time.process_time()  # CPU time: the work done, whatever the machine's load
    with _guard(30):
        code = _run(argv)
    elapsed = time.process_time() - start
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, (code, err[-2000:])
    assert len(lines) == 1, err[-3000:]
    assert lines[0].startswith("error:"), lines
    assert option in lines[0], (option, lines[0])
    assert "Traceback" not in err
    assert elapsed < 5.0, f"{elapsed:.1f} CPU-s: refused only after some work"
    assert _snapshot(workspace) == before, "a refused command created or changed files"
    assert json.loads((workspace / "result.json").read_text()) == RESULT


def test_an_oversized_source_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    from qd.io import MAX_SOURCE_BYTES

    big = tmp_path / "huge.json"
    with open(big, "wb") as fh:  # sparse: no disk used, no time spent
        fh.truncate(MAX_SOURCE_BYTES + 1)
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    for argv in (["population", "huge.json"], ["meta-table", "--responses", "huge.json"]):
        assert _run(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert (
            f"huge.json is {MAX_SOURCE_BYTES + 1:,} bytes; allowed: population files up " in err[0]
        )
    assert time.perf_counter() - start < 10


def test_duplicate_player_counts_are_refused_with_the_reason(capsys):
    assert _run(["evaluate", "piers", "--players", "2,2"]) == 2
    err = capsys.readouterr().err
    assert "player count 2 is repeated" in err


def test_play_seat_names_must_match_exactly(capsys):
    assert _run(["play", "metafoo", "piers"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'metafoo'; allowed seats:" in err
    for form in ("human", "meta:adaptive", "sb3:PATH", "Piers", "chromosome"):
        assert form in err


# --- play sb3:PATH needs --trust-model -----------------------------------------------------


def test_sb3_seat_is_refused_without_trust_model_and_without_torch(tmp_path):
    """The refusal comes before anything imports torch or reads the file."""
    model = tmp_path / "model.zip"
    model.write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip: never opened
    code = (
        "import sys\n"
        "for m in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "    sys.modules[m] = None  # importing them now raises ImportError\n"
        "from hanabi_adhoc.cli import main\n"
        f"rc = main(['play', 'sb3:{model}', 'piers'])\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "raise SystemExit(rc)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error:")
    assert "executes code stored in the file" in lines[0]
    assert "--trust-model" in lines[0]
    assert proc.stdout == ""


def test_trust_model_is_documented_in_play_help(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--trust-model" in text
    assert "executes code" in text


HAVE_RL = all(importlib.util.find_spec(m) for m in ("torch", "stable_baselines3", "sb3_contrib"))


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason='needs the rl extra: pip install ".[rl]"')
def test_sb3_seat_with_trust_model(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["train-sb3", "--steps", "64", "--games", "0", "--workers", "1",
                 "--out", "partner.zip", "--quiet"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "--trust-model" in out  # the hint to play with it says so
    seat = f"sb3:{tmp_path / 'partner.zip'}"
    assert main(["play", seat, "piers", "--games", "1"]) == 2
    assert "--trust-model" in capsys.readouterr().err
    assert main(["play", seat, "piers", "--games", "1", "--trust-model"]) == 0
    assert "game 0: score" in capsys.readouterr().out
    # a file that is not a model, and a model of another game size: one line, before any game
    (tmp_path / "fake.zip").write_text("not a zip")
    for argv in (
        ["play", f"sb3:{tmp_path / 'fake.zip'}", "piers", "--trust-model"],
        ["play", seat, "piers", "iggi", "--trust-model"],
        ["play", f"sb3:{tmp_path / 'missing.zip'}", "piers", "--trust-model"],
    ):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert len(err.strip().splitlines()) == 1, err
        assert err.startswith("error: argument SEAT: sb3:"), err
        assert "game 0" not in out
