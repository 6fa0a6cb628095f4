"""Every ``hanabi-adhoc`` command the README documents works as written.

The README's commands are collected from its ```` ```bash ```` blocks and from its inline code
spans (the command table's rows ``| `hanabi-adhoc ...` |`` included). :data:`COMMANDS` maps
each of them to the small-scale options appended to run it in a few seconds (argparse keeps the
last value of an option, so they override the README's). The tests

* fail when the README documents a command that :data:`COMMANDS` does not cover (or the
  mapping keeps a command the README dropped): docs and tests stay in sync;
* parse every documented command exactly as written, the paper-scale ones included;
* run every documented command at small scale, in a scratch folder as the working directory
  (``play human`` with its input piped; ``train-sb3`` only with the ``rl`` extra);
* check that every subcommand answers ``--help``, that every option has a help text, that user
  errors end in one ``error: ...`` line with exit code 2, and ``demo``'s explanation.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from hanabi_adhoc.cli import build_parser, main
from tests.helpers import run_python

ROOT = Path(__file__).resolve().parents[2]


def documented_commands(text: str | None = None) -> list[str]:
    """The distinct ``hanabi-adhoc ...`` invocations of the README and the docs, in order.

    From the README: lines of ```bash blocks (comments dropped, ``&&`` chains split) and
    inline code spans outside code blocks. From the documentation pages (``docs/**/*.md``):
    the lines of their runnable ```bash blocks (a block after a ``<!-- no-run: ... -->``
    comment is not run; see tests/project/test_docs.py). Whitespace-normalised.
    """
    if text is None:
        found = documented_commands((ROOT / "README.md").read_text())
        for page in sorted((ROOT / "docs").rglob("*.md")):
            found += _block_commands(page.read_text())
        return list(dict.fromkeys(found))
    found = _block_commands(text, marked_too=True)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for span in re.findall(r"`(hanabi-adhoc\b[^`]*)`", prose):
        found.append(" ".join(span.split()))
    return list(dict.fromkeys(found))


def _block_commands(text: str, marked_too: bool = False) -> list[str]:
    """``hanabi-adhoc`` lines of the ```bash blocks of a page (unmarked blocks only unless
    ``marked_too``)."""
    found: list[str] = []
    for marker, block in re.findall(r"(<!-- no-run:[^>]*-->\s*)?```bash\n(.*?)```", text, re.S):
        if marker and not marked_too:
            continue
        for line in block.replace("\\\n", " ").splitlines():  # continued lines joined
            line = re.sub(r"(^|\s)#.*$", "", line)
            for part in line.split("&&"):
                part = " ".join(part.split())
                if part.startswith("hanabi-adhoc "):
                    found.append(part)
    return found


@dataclass(frozen=True)
class Case:
    """How to run one documented command quickly.

    Attributes:
        small: Options appended to the README's argv (small scale; outputs stay relative).
        insert: Tokens inserted after the subcommand, for a README fragment that names an
            option only.
        after: A documented command to run first in the same folder (resume commands).
        workspace: Commands with the same workspace share one working directory.
        outputs: Files the run must create (relative to the working directory).
        expect: Text the run must print (stdout).
        stdin: Piped to a subprocess ``python3 -m hanabi_adhoc`` (interactive commands).
        needs: A module that must be importable to run it (an optional extra).
    """

    small: tuple[str, ...] = ()
    insert: tuple[str, ...] = ()
    after: str | None = None
    workspace: str | None = None
    outputs: tuple[str, ...] = ()
    expect: str = ""
    stdin: str | None = None
    needs: str | None = None


CLONE = ("--games", "6", "--epochs", "1", "--hidden", "8", "--eval-games", "2", "--quiet")
FINETUNE = ("--steps", "64", "--envs", "2", "--n-steps", "16", "--epochs", "1", "--eval-games", "2")
PIPELINE = (
    "--runs", "2", "--candidates", "60", "--me-games", "2", "--matchup-games", "2",
    "--train-games", "1", "--episodes", "1", "--games", "2", "--workers", "1", "--quiet",
)  # fmt: skip
MAP_ELITES = (
    "--candidates", "40", "--random", "20", "--games", "2", "--reeval-games", "2",
    "--workers", "1", "--quiet",
)  # fmt: skip
GA = (
    "--population", "4", "--generations", "1", "--elitism", "1", "--tournament", "2",
    "--games", "1", "--players", "2", "--final-top", "1", "--final-games", "1",
    "--workers", "1", "--quiet",
)  # fmt: skip
BENCHMARK = ("--suite", "pool", "--players", "2", "--deals", "1", "--workers", "1", "--quiet")
META_EVAL = ("--train-games", "1", "--episodes", "1", "--games", "2", "--self-play-games", "2")
EVALUATE = ("--games", "2", "--workers", "1", "--quiet")
POPULATION = ("--reeval", "2", "--matchups", "1", "--workers", "1")
TRAIN_SB3 = ("--steps", "64", "--games", "1", "--workers", "1", "--quiet")
ME_FILES = ("checkpoint.json", "archive.json", "elites.csv", "summary.json", "heatmap.png")

COMMANDS: dict[str, Case] = {
    "hanabi-adhoc pipeline": Case(
        PIPELINE, workspace="pipeline", outputs=("runs/pipeline/report/summary.md",)
    ),
    "hanabi-adhoc pipeline --out runs/pipeline": Case(
        PIPELINE, after="hanabi-adhoc pipeline", workspace="pipeline", expect="report:"
    ),
    "hanabi-adhoc pipeline --config paper --out runs/paper": Case(
        PIPELINE, outputs=("runs/paper/report/summary.md",)
    ),
    "hanabi-adhoc pipeline --config paper --workers 2": Case(
        PIPELINE, outputs=("runs/pipeline/report/summary.md",)
    ),
    "hanabi-adhoc pipeline --config paper --ruleset reference --workers 2 --out "
    "runs/pipeline_paper_ref": Case(
        PIPELINE, outputs=("runs/pipeline_paper_ref/report/summary.md",)
    ),
    "hanabi-adhoc pipeline --runs 2 --candidates 2000 --episodes 10 --out runs/small": Case(
        PIPELINE, outputs=("runs/small/report/summary.md",)
    ),
    "hanabi-adhoc pipeline --ruleset reference --out runs/pipeline-reference": Case(
        PIPELINE, outputs=("runs/pipeline-reference/report/summary.md",)
    ),
    "hanabi-adhoc map-elites --out runs/me1": Case(
        MAP_ELITES, workspace="me1", outputs=tuple(f"runs/me1/{f}" for f in ME_FILES)
    ),
    "hanabi-adhoc map-elites --out runs/me1 --resume": Case(
        MAP_ELITES, after="hanabi-adhoc map-elites --out runs/me1", workspace="me1"
    ),
    "hanabi-adhoc map-elites --config paper --out runs/me_paper --workers 2": Case(
        MAP_ELITES, outputs=("runs/me_paper/archive.json",)
    ),
    "hanabi-adhoc map-elites --config paper --workers 2 --seed 1 --out "
    "bench_results/me_5x5_paper_v5": Case(
        MAP_ELITES, outputs=("bench_results/me_5x5_paper_v5/summary.json",)
    ),
    "hanabi-adhoc map-elites --config paper --ruleset reference --seed 0 --workers 2 --out "
    "runs/me_ref": Case(MAP_ELITES, outputs=("runs/me_ref/summary.json",)),
    "hanabi-adhoc population 5x5 --reeval 1000 --matchups 400 --out runs/pop1": Case(
        POPULATION,
        outputs=("runs/pop1/report.json", "runs/pop1/matchups.csv"),
        expect="cell = the elite's niche",  # the table's legend
    ),
    "hanabi-adhoc ga --mode mixed --json runs/ga1.json": Case(GA, outputs=("runs/ga1.json",)),
    "hanabi-adhoc ga --config paper-mirror-old --ruleset reference --seed 1 --out "
    "runs/ga_mirror_old": Case(GA, outputs=("runs/ga_mirror_old/result.json",)),
    "hanabi-adhoc ga --config paper-mixed-old --preset cig18 --seed 1 --out runs/ga_mixed_old": (
        Case(GA, outputs=("runs/ga_mixed_old/result.json",))
    ),
    "hanabi-adhoc ga --config paper-mirror-new --ruleset reference --situational --seed 1 --out "
    "runs/ga_mirror_sit": Case(GA, outputs=("runs/ga_mirror_sit/result.json",)),
    "hanabi-adhoc ga --config paper-mixed-new --preset cig18 --situational --seed 1 --out "
    "runs/ga_mixed_sit": Case(GA, outputs=("runs/ga_mixed_sit/result.json",)),
    "hanabi-adhoc ga --config paper-mixed-old --preset cig18 --out runs/ga_cig18": Case(
        GA, outputs=("runs/ga_cig18/result.json", "runs/ga_cig18/checkpoint.json")
    ),
    "hanabi-adhoc matchups 5x5 --games 100 --out runs/mu": Case(
        ("--games", "1", "--workers", "1"), outputs=("runs/mu/matchups.csv", "runs/mu/matchups.png")
    ),
    "hanabi-adhoc meta-eval --config quick --responses 5x5 --out runs/meta1 --figures "
    "runs/meta1": Case(
        META_EVAL, outputs=("runs/meta1/evaluation.json", "runs/meta1/variant_scores.png")
    ),
    "hanabi-adhoc meta-eval --config paper --responses 5x5 --ruleset reference": Case(
        META_EVAL, outputs=("runs/meta/evaluation.json", "runs/meta/table.csv.ruleset")
    ),
    "hanabi-adhoc meta-eval --config paper --responses 5x5 --ruleset reference --variants "
    "adaptive,generalist,oracle,random,response-adaptive --out runs/t4": Case(
        META_EVAL, outputs=("runs/t4/evaluation.json",), expect="response-adaptive"
    ),
    "hanabi-adhoc meta-eval --config paper --responses 5x5 --partners 20x20 --ruleset reference "
    "--variants adaptive,generalist,oracle,random,response-adaptive --out runs/t4-ood": Case(
        META_EVAL, outputs=("runs/t4-ood/evaluation.json", "runs/t4-ood/oracle_table.csv")
    ),
    "hanabi-adhoc meta-eval --config paper --responses "
    "docs/results/pipeline-paper/populations/run0/archive.json --variants "
    "adaptive,generalist,oracle,random,response-adaptive --out runs/own-run0": Case(
        META_EVAL, outputs=("runs/own-run0/evaluation.json",), expect="response-adaptive"
    ),
    "hanabi-adhoc meta-eval --config paper --responses "
    "docs/results/pipeline-paper/populations/run0/archive.json --partners 20x20 --ruleset "
    "corrected --variants adaptive,generalist,oracle,random,response-adaptive --out "
    "runs/own-run0-ood20": Case(
        META_EVAL,
        outputs=("runs/own-run0-ood20/evaluation.json", "runs/own-run0-ood20/oracle_table.csv"),
        expect="response-adaptive",
    ),
    "hanabi-adhoc meta-table --responses baselines:piers,iggi,outer --train-games 400 --out "
    "runs/t.csv": Case(("--train-games", "2"), outputs=("runs/t.csv",)),
    "hanabi-adhoc clone smartbot --out c.json": Case(
        CLONE,
        workspace="clone",
        outputs=("c.json", "c.npz"),
        expect="clone self-play:",
        needs="torch",
    ),
    "hanabi-adhoc finetune c.json --steps 200000 --out ft": Case(
        FINETUNE,
        after="hanabi-adhoc clone smartbot --out c.json",
        workspace="clone",
        outputs=("ft/finetuned.json", "ft/finetuned.npz", "ft/curves.csv"),
        needs="torch",
    ),
    "hanabi-adhoc clone smartbot --games 2000 --epochs 10 --out runs/clones/smartbot-clone.json": (
        Case(CLONE, outputs=("runs/clones/smartbot-clone.json",), expect="wrote", needs="torch")
    ),
    "hanabi-adhoc play human piers": Case(stdin="q\n", expect="(unfinished): score so far 0"),
    "hanabi-adhoc play human rl:ppo-sp1": Case(stdin="q\n", expect="(unfinished): score so far 0"),
    "hanabi-adhoc evaluate rl:ppo-pool --mode mixed --players 2 --games 400": Case(
        EVALUATE, expect="overall:"
    ),
    "hanabi-adhoc meta-table --responses baselines:piers,iggi,outer --hypotheses rl:all "
    "--train-games 20 --out runs/rl_table.csv": Case(
        ("--train-games", "1"), outputs=("runs/rl_table.csv",)
    ),
    "hanabi-adhoc benchmark piers --suite rl": Case(
        ("--deals", "1", "--workers", "1", "--quiet"), expect="rl@1"
    ),
    "hanabi-adhoc meta-eval --responses baselines:piers,iggi,outer,vandenbergh --hypotheses "
    "rl:all --out runs/meta-rl": Case(
        (*META_EVAL, "--workers", "1"), outputs=("runs/meta-rl/evaluation.json",)
    ),
    "hanabi-adhoc benchmark piers": Case(
        BENCHMARK,
        outputs=("runs/benchmark/summary.md", "runs/benchmark/per_partner.csv"),
        expect="report:",
    ),
    "hanabi-adhoc benchmark piers iggi examples/custom_policy.py:HintThenPlay --out runs/bench": (
        Case(BENCHMARK, outputs=("runs/bench/summary.md",), expect="report:")
    ),
    "hanabi-adhoc benchmark meta --suite published,own --out runs/bench-meta": Case(
        BENCHMARK, outputs=("runs/bench-meta/summary.md",), expect="report:"
    ),
    "hanabi-adhoc benchmark sb3:runs/sb3_partner.zip --trust-model --suite test": Case(
        BENCHMARK,
        needs="sb3_contrib",
        after="hanabi-adhoc train-sb3 --steps 200000",
        workspace="sb3",
        expect="report:",
    ),
    "hanabi-adhoc bad eval bad:small piers --games 400": Case(("--games", "2")),
    "hanabi-adhoc bad eval bad:very-small --games 400": Case(("--games", "2")),
    "hanabi-adhoc evaluate piers --mode mixed --games 400 --players 2-5": Case(
        EVALUATE, expect="overall:"
    ),
    "hanabi-adhoc evaluate IGGI --mode mixed --preset cig18 --games 1000 --seed 1": Case(
        (*EVALUATE, "--players", "2"), expect="overall:"
    ),
    "hanabi-adhoc evaluate piers --hand-order fixed": Case(
        (*EVALUATE, "--players", "2"), expect="overall:"
    ),
    "hanabi-adhoc play human sb3:runs/sb3_partner.zip --trust-model": Case(
        stdin="q\n",
        expect="stopped.",
        needs="sb3_contrib",
        after="hanabi-adhoc train-sb3 --steps 200000",
        workspace="sb3",
    ),
    "hanabi-adhoc train-sb3 --steps 200000": Case(
        TRAIN_SB3, needs="sb3_contrib", workspace="sb3", outputs=("runs/sb3_partner.zip",)
    ),
    "hanabi-adhoc meta-eval --config paper --responses "
    "docs/results/pipeline-paper/populations/run2/archive.json --partners "
    "docs/results/pipeline-paper/populations/run0/archive.json --variants "
    "adaptive,generalist,oracle,random,response-adaptive --out runs/own-run2-run0": Case(
        META_EVAL, outputs=("runs/own-run2-run0/evaluation.json",), expect="response-adaptive"
    ),
    "hanabi-adhoc evaluate examples/custom_policy.py:HintThenPlay --mode mixed --players 2 "
    "--games 50": Case(EVALUATE, expect="overall:"),
    "hanabi-adhoc play examples/custom_policy.py:HintThenPlay piers --games 3": Case(
        ("--games", "1"), expect="game 0: score"
    ),
    "hanabi-adhoc demo": Case(expect="mean score over 5 games"),
    "hanabi-adhoc warmup": Case(expect="all kernels ready in"),
}


def readme_argv(command: str) -> list[str]:
    """The argv of a documented command as written (``[--opt X]`` brackets dropped)."""
    tokens = [t.strip("[]") for t in shlex.split(command)[1:]]
    insert = COMMANDS[command].insert if command in COMMANDS else ()
    return [tokens[0], *insert, *tokens[1:]]


def test_readme_commands_are_collected():
    sample = (
        "| `hanabi-adhoc demo` | x |\n```bash\n# c\nhanabi-adhoc ga --mode mixed  # comment\n"
        "pip install . && hanabi-adhoc pipeline\n```\nsee `hanabi-adhoc train-sb3 --steps\n1`"
    )
    assert documented_commands(sample) == [
        "hanabi-adhoc ga --mode mixed",
        "hanabi-adhoc pipeline",
        "hanabi-adhoc demo",
        "hanabi-adhoc train-sb3 --steps 1",
    ]
    assert len(documented_commands()) >= 10


def test_every_documented_command_is_covered():
    documented = documented_commands()
    missing = [c for c in documented if c not in COMMANDS]
    stale = [c for c in COMMANDS if c not in documented]
    assert not missing, f"README commands without a small-scale case in COMMANDS: {missing}"
    assert not stale, f"COMMANDS entries the README no longer documents: {stale}"
    for case in COMMANDS.values():
        assert case.after is None or case.after in COMMANDS


@pytest.mark.parametrize("command", documented_commands())
def test_documented_command_parses_as_written(command):
    argv = readme_argv(command)
    args = build_parser().parse_args(argv)
    assert callable(args.func), command


_DONE: dict[str, str] = {}  # command -> its stdout, for the commands others run after


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory):
    made: dict[str, Path] = {}

    def get(name: str | None) -> Path:
        if name is None:
            return tmp_path_factory.mktemp("cmd")
        if name not in made:
            made[name] = tmp_path_factory.mktemp(name)
        return made[name]

    return get


def _run(command: str, cwd: Path, capsys, monkeypatch) -> str:
    case = COMMANDS[command]
    # the docs' commands run from the clone's root: its files (docs/..., examples/...) are
    # found there
    argv = [
        str(ROOT / a) if a.startswith(("docs/", "examples/")) else a
        for a in [*readme_argv(command), *case.small]
    ]
    if case.stdin is not None:  # a real pipe into a real process (the `__main__` guard too)
        proc = run_python(["-m", "hanabi_adhoc", *argv], cwd, timeout=300, stdin=case.stdin)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err[-3000:]
    return capsys.readouterr().out


@pytest.mark.parametrize("command", list(COMMANDS))
def test_documented_command_runs_at_small_scale(command, workspaces, capsys, monkeypatch):
    case = COMMANDS[command]
    if case.needs and importlib.util.find_spec(case.needs) is None:
        pytest.skip(f"{command!r} needs {case.needs} (pip install '.[rl]')")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    cwd = workspaces(case.workspace)
    if case.after is not None and case.after not in _DONE:
        _DONE[case.after] = _run(case.after, cwd, capsys, monkeypatch)
    before = {p: p.stat().st_mtime_ns for p in cwd.rglob("*") if p.is_file()}
    out = _run(command, cwd, capsys, monkeypatch)
    _DONE.setdefault(command, out)
    assert case.expect in out, out[-2000:]
    for name in case.outputs:
        assert (cwd / name).is_file(), f"{command}: no {name}"
    if command.endswith("--out runs/pipeline"):  # the same study again: resumed, not redone
        evals = [p for p in before if p.name == "evaluation.json"]
        assert evals
        assert all(p.stat().st_mtime_ns == before[p] for p in evals)


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    unique: dict[int, tuple[str, argparse.ArgumentParser]] = {}
    for name, p in sub.choices.items():
        unique.setdefault(id(p), (name, p))  # aliases (meta-evaluate) share a parser
    return dict(unique.values())


def test_every_documented_subcommand_exists():
    names = set(_subcommands())
    used = {readme_argv(c)[0] for c in documented_commands()}
    assert used <= names, used - names


@pytest.mark.parametrize("name", list(_subcommands()))
def test_every_subcommand_has_help(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([name, "--help"])
    assert exit_info.value.code == 0
    assert f"usage: hanabi-adhoc {name}" in capsys.readouterr().out


def test_every_option_and_positional_has_help():
    parser = build_parser()
    missing = []
    for name, p in [("hanabi-adhoc", parser), *_subcommands().items()]:
        for action in p._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, f"options without help: {missing}"


@pytest.mark.parametrize(
    "argv",
    [
        ["meta-table", "--responses", "no-such-population"],
        ["meta-eval", "--responses", "baselines:nobody"],
        ["meta-eval", "--variants", "psychic"],
        ["population", "no-such-population"],
        ["matchups", "no-such-population"],
        ["evaluate", "nobody", "--games", "1"],
        ["evaluate", "piers", "--players", "x", "--games", "1"],
        ["map-elites", "--config", "quick", "--grid", "5", "--measures", "ipp", "ipp", "ipp"],
    ],
)
def test_user_errors_are_one_line(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: "), err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["no-such-command"],
        ["demo", "--games", "0"],
        ["demo", "--players", "7"],
        ["meta-eval", "--games", "0"],
        ["pipeline", "--runs", "0"],
        ["matchups", "5x5", "--workers", "0"],
        ["evaluate"],
    ],
)
def test_usage_errors_are_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: "), err


def test_meta_eval_takes_its_defaults_from_the_config():
    parser = build_parser()
    args = parser.parse_args(["meta-eval", "--config", "paper"])
    assert (args.train_games, args.episodes, args.games) == (None, None, None)
    from hanabi_adhoc.cli.meta import CONFIGS

    assert "paper = 400/200/10" in _subcommands()["meta-eval"].format_help().replace("\n", " ")
    assert CONFIGS["paper"] == {"train_games": 400, "episodes": 200, "games": 10}


def test_demo_explains_its_scores(capsys):
    assert main(["demo", "--games", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("note: random play lost all 3 lives in 3 of 3 games")
    assert "strict scoring (the default" in lines[-1]
    assert "--scoring lenient" in lines[-1]
    assert lines[0].startswith("2 players, hand size 5")
    assert "fireworks" in lines[1]
    assert main(["demo", "--games", "3", "--scoring", "lenient"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("note: ")
    assert "lenient scoring" in last
    assert "would score" in last


def test_train_sb3_torch_threads(tmp_path, monkeypatch, capsys):
    parser = build_parser()
    assert parser.parse_args(["train-sb3"]).torch_threads == 1
    assert parser.parse_args(["train-sb3", "--torch-threads", "2"]).torch_threads == 2
    with pytest.raises(SystemExit):
        parser.parse_args(["train-sb3", "--torch-threads", "0"])
    pytest.importorskip("sb3_contrib", reason="train-sb3 needs the rl extra")
    import agents.sb3

    seen = {}

    def fake_training(*args, **kwargs):
        seen.update(kwargs)
        return SimpleNamespace(num_timesteps=args[1])  # the model, as far as the CLI reads it

    monkeypatch.setattr(agents.sb3, "train_maskable_ppo", fake_training)
    out = tmp_path / "m.zip"
    assert main(["train-sb3", "--steps", "1", "--games", "0", "--torch-threads", "3",
                 "--out", str(out), "--quiet"]) == 0  # fmt: skip
    assert seen["torch_threads"] == 3
    assert seen["path"] == str(out)


def test_meta_table_prints_json(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["meta-table", "--responses", "baselines:piers,iggi", "--train-games", "1"]
    assert main([*argv, "--out", "t.csv", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert doc["shape"] == [2, 2]
    assert doc["table"] == "t.csv"
