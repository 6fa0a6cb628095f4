"""A resumed study trusts no file it did not write: damaged, edited, swapped, foreign.

Two tiny studies are made once (seeds 0 and 1). Each case copies the first, damages one file
the way the issue found it trusted or crashing (``pipeline.json`` = ``[]``/``null``,
``evaluation.json`` = ``{}`` or truncated, a truncated ``games.csv``, an unknown partner id in
it, an elite's objective edited to 92.3, files swapped between two evaluations or taken from the
other study, a garbage ``timing.json``, a damaged manifest), and resumes it with the same
``hanabi-adhoc pipeline`` command: exit code 2, exactly one ``error:`` line naming the file, no
traceback, no report written. The same damages in a folder made before manifests existed (no
``manifest.json``) resumed with ``--adopt`` are caught by the checks of meaning (scores in
[0, 25], known ids, complete files), and an undamaged old folder still resumes with it; without
``--adopt`` such a folder is refused, since its files may be the user's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hanabi_adhoc.cli import main
from hanabi_adhoc.study.pipeline import get_pipeline_config, run_pipeline

TINY = {
    "candidates": 60,
    "me_games": 2,
    "runs": 2,
    "matchup_games": 2,
    "train_games": 1,
    "episodes": 1,
    "games": 2,
}
ARGS = [
    *("--runs", "2", "--candidates", "60", "--me-games", "2", "--matchup-games", "2"),
    *("--train-games", "1", "--episodes", "1", "--games", "2", "--workers", "1", "--quiet"),
]


def make_studies(a: Path, b: Path) -> tuple[Path, Path]:
    """Two finished tiny studies in ``a`` and ``b``, seeds 0 and 1."""
    run_pipeline(get_pipeline_config("quick", **TINY), a, workers=1, quiet=True)
    run_pipeline(get_pipeline_config("quick", seed=1, **TINY), b, workers=1, quiet=True)
    return a, b


@pytest.fixture(scope="module")
def studies(tmp_path_factory) -> tuple[Path, Path]:
    """Two finished tiny studies, seeds 0 and 1 (copied by each case, never changed)."""
    return make_studies(tmp_path_factory.mktemp("study0"), tmp_path_factory.mktemp("study1"))


def _edit_json(path: Path, change: Callable[[dict], None]) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _set_objective(path: Path) -> None:
    def change(doc):
        doc["elites"][0]["objective"] = 92.3

    _edit_json(path, change)


def _swap(x: Path, y: Path) -> None:
    tx, ty = x.read_bytes(), y.read_bytes()
    x.write_bytes(ty)
    y.write_bytes(tx)


def _edit_cell(path: Path, column: int, value: str) -> None:
    """Set field ``column`` of the first row of a ``games.csv`` (partner id 1, score 4)."""
    lines = path.read_text().splitlines(keepends=True)
    cells = lines[1].split(",")
    cells[column] = value
    lines[1] = ",".join(cells)
    path.write_text("".join(lines))


E00, E01 = "meta/run0__run0", "meta/run0__run1"
# name -> (damage(study folder, other study), the file the error must name)
DAMAGES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "pipeline.json = []": (lambda d, o: (d / "pipeline.json").write_text("[]"), "pipeline.json"),
    "pipeline.json = null": (
        lambda d, o: (d / "pipeline.json").write_text("null"),
        "pipeline.json",
    ),
    "pipeline.json truncated": (lambda d, o: _truncate(d / "pipeline.json"), "pipeline.json"),
    "evaluation.json = {}": (
        lambda d, o: (d / E00 / "evaluation.json").write_text("{}"),
        f"{E00}/evaluation.json",
    ),
    "evaluation.json truncated": (
        lambda d, o: _truncate(d / E00 / "evaluation.json"),
        f"{E00}/evaluation.json",
    ),
    "games.csv truncated": (lambda d, o: _truncate(d / E01 / "games.csv"), f"{E01}/games.csv"),
    "games.csv: an unknown partner": (
        lambda d, o: _edit_cell(d / E00 / "games.csv", 1, "run9:[9,9]"),
        f"{E00}/games.csv",
    ),
    "games.csv: a score of 99": (
        lambda d, o: _edit_cell(d / E00 / "games.csv", 4, "99"),
        f"{E00}/games.csv",
    ),
    "archive.json: objective 92.3": (
        lambda d, o: _set_objective(d / "runs/run1/archive.json"),
        "runs/run1/archive.json",
    ),
    "evaluations swapped": (
        lambda d, o: _swap(d / E00 / "evaluation.json", d / E01 / "evaluation.json"),
        "evaluation.json",
    ),
    "games.csv swapped": (
        lambda d, o: _swap(d / E00 / "games.csv", d / E01 / "games.csv"),
        "games.csv",
    ),
    "archive.json of the other study": (
        lambda d, o: shutil.copyfile(o / "runs/run0/archive.json", d / "runs/run0/archive.json"),
        "runs/run0/archive.json",
    ),
    "match-up table of the other study": (
        lambda d, o: shutil.copyfile(
            o / "tables/matchups_run0.csv", d / "tables/matchups_run0.csv"
        ),
        "tables/matchups_run0.csv",
    ),
    "timing.json garbage": (lambda d, o: (d / "timing.json").write_text("[1, 2"), "timing.json"),
    "manifest.json edited": (
        lambda d, o: (d / "manifest.json").write_text(
            (d / "manifest.json").read_text().replace('"meta"', '"x"', 1)
        ),
        "manifest.json",
    ),
}
# caught without a manifest too (a folder made before manifests existed)
LEGACY = [
    "pipeline.json = []",
    "pipeline.json = null",
    "evaluation.json = {}",
    "evaluation.json truncated",
    "games.csv truncated",
    "games.csv: an unknown partner",
    "games.csv: a score of 99",
    "archive.json: objective 92.3",
    "evaluations swapped",
    "timing.json garbage",
]


def _resume(folder: Path, capsys, *extra: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["pipeline", "--out", str(folder), *ARGS, *extra])
    return code, capsys.readouterr().err.strip().splitlines()


def damaged_resume(name: str, studies: tuple[Path, Path], folder: Path, manifests: bool):
    """Copy study 0 to ``folder``, apply damage ``name``, resume it with the CLI in a process.

    Returns:
        ``(exit code, stderr lines, the file the error must name)``.
    """
    damage, named = DAMAGES[name]
    _copy(studies[0], folder, manifests)
    damage(folder, studies[1])
    proc = subprocess.run(
        [sys.executable, "-m", "hanabi_adhoc", "pipeline", "--out", str(folder), *ARGS],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])),
    )  # fmt: skip
    return proc.returncode, proc.stderr.strip().splitlines(), named


def _copy(src: Path, dst: Path, manifests: bool) -> Path:
    shutil.copytree(src, dst)
    (dst / "report" / "summary.md").unlink()
    if not manifests:
        for m in dst.rglob("manifest.json"):
            m.unlink()
    return dst


@pytest.mark.parametrize("name", list(DAMAGES))
def test_a_damaged_or_foreign_file_is_refused_naming_it(name, studies, tmp_path, capsys):
    damage, named = DAMAGES[name]
    folder = _copy(studies[0], tmp_path / "study", manifests=True)
    damage(folder, studies[1])
    code, lines = _resume(folder, capsys)
    assert code == 2, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("error:")
    assert named in lines[0], lines[0]
    assert not (folder / "report" / "summary.md").exists()


@pytest.mark.parametrize("name", LEGACY)
def test_without_a_manifest_the_values_are_checked(name, studies, tmp_path, capsys):
    damage, named = DAMAGES[name]
    folder = _copy(studies[0], tmp_path / "study", manifests=False)
    damage(folder, studies[1])
    code, lines = _resume(folder, capsys, "--adopt")
    errors = [x for x in lines if not x.startswith("note:")]
    assert code == 2, lines
    assert len(errors) == 1, lines
    assert errors[0].startswith("error:")
    assert named in errors[0], errors[0]


def test_an_old_folder_is_refused_without_adopt_and_nothing_is_written(studies, tmp_path, capsys):
    folder = _copy(studies[0], tmp_path / "study", manifests=False)
    (folder / "report" / "summary.md").write_text("my own notes")

    def files() -> dict:
        return {p: p.read_bytes() for p in folder.rglob("*")
                if p.is_file() and not p.name.startswith(".")}  # fmt: skip

    before = files()
    code, lines = _resume(folder, capsys)
    assert code == 2, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("error:"), lines
    assert "no manifest.json" in lines[0], lines[0]
    assert "--adopt" in lines[0], lines[0]
    assert files() == before  # nothing written, nothing replaced


def test_an_old_folder_resumes_with_adopt_and_is_recorded(studies, tmp_path, capsys):
    folder = _copy(studies[0], tmp_path / "study", manifests=False)
    code, lines = _resume(folder, capsys, "--adopt")
    assert code == 0, lines
    assert lines == [f"note: {folder} has no manifest (made by an older version): its files "
                     "are recorded as they are now, unchecked"]  # fmt: skip
    assert (folder / "report" / "summary.md").exists()
    recorded = json.loads((folder / "manifest.json").read_text())["payload"]["files"]
    assert {"runs/run0/archive.json", f"{E01}/games.csv", "timing.json"} <= set(recorded)
    # the report equals the one the study wrote uninterrupted
    tables = sorted(p.name for p in (studies[0] / "report" / "tables").glob("*.csv"))
    for name in tables:
        assert (folder / "report/tables" / name).read_text() == (
            studies[0] / "report/tables" / name
        ).read_text()
    assert _resume(folder, capsys) == (0, [])  # now recorded: no note


def test_an_intact_study_resumes_without_a_word(studies, tmp_path, capsys):
    folder = _copy(studies[0], tmp_path / "study", manifests=True)
    assert _resume(folder, capsys) == (0, [])
    assert (folder / "report" / "summary.md").exists()
