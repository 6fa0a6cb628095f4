"""No command writes into a folder of the user's: files without a manifest are refused.

A folder that holds files but no ``manifest.json`` cannot be told from a folder of the user's
own files (docs/reliability.md §2): every command that writes an output folder refuses it with
one ``error:`` line and writes nothing, unless ``--adopt`` says it is a run made before
manifests existed. One case is recognised as the toolkit's own: a folder holding only response
tables of ``meta-table --out DIR/table.csv`` (their header names their settings), which
``meta-eval --out DIR`` resumes.
"""

from __future__ import annotations

import pytest

from hanabi_adhoc.cli import main

COMMANDS = {
    "map-elites": ["map-elites", "--config", "quick", "--quiet"],
    "ga": ["ga", "--generations", "1", "--quiet"],
    "meta-eval": ["meta-eval", "--responses", "baselines:piers,iggi", "--train-games", "4",
                  "--episodes", "1", "--games", "2"],
    "pipeline": ["pipeline", "--config", "quick", "--quiet"],
}  # fmt: skip


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_folder_of_the_users_files_is_refused_and_left_alone(name, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.md").write_text("my own notes")
    capsys.readouterr()
    code = main([*COMMANDS[name], "--out", str(out)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("error:"), lines
    assert "summary.md) but no manifest.json" in lines[0], lines[0]
    assert "--adopt" in lines[0], lines[0]
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["summary.md"]
    assert (out / "summary.md").read_text() == "my own notes"


def test_meta_eval_resumes_the_tables_meta_table_wrote_into_its_folder(tmp_path, capsys):
    out = tmp_path / "meta"
    pools = ["--responses", "baselines:piers,iggi", "--train-games", "4"]
    assert main(["meta-table", *pools, "--out", str(out / "table.csv")]) == 0
    table = (out / "table.csv").read_text()
    capsys.readouterr()
    assert main(["meta-eval", *pools, "--episodes", "1", "--games", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "error:" not in err, err
    assert (out / "manifest.json").is_file()
    assert (out / "evaluation.json").is_file()
    assert (out / "table.csv").read_text() == table  # the table was resumed, not remade
