"""Faults: worker processes die with a SIGKILLed main process, and killed runs resume exactly.

Every scenario runs a real command (``hanabi-adhoc ...`` or a ``python -c`` script) in a
subprocess: once uninterrupted (the reference), then again in another folder where it is
SIGKILLed after random delays (drawn from a seeded generator, as fractions of the reference's
wall time) and rerun until it finishes; the final outputs must be IDENTICAL to the reference's.
After every kill, every descendant of the killed process (pool workers, Dask workers) must be
gone within 5 s. ``benchmarks/fault_soak.py`` runs the same scenarios with many more kills.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil
import pytest

CLI = [sys.executable, "-m", "hanabi_adhoc"]
GONE_WITHIN = 5.0  # seconds


# --------------------------------------------------------------------------------------------
# processes
# --------------------------------------------------------------------------------------------


def _alive(p: psutil.Process) -> bool:
    """Running and not a zombie (a killed, not yet reaped child counts as gone)."""
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def kill_and_check(proc: subprocess.Popen, timeout: float = GONE_WITHIN) -> list[str]:
    """SIGKILL ``proc``; return the descendants still alive ``timeout`` s later (then killed)."""
    kids = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + timeout
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [k for k in kids if _alive(k)]
    names = []
    for k in left:  # clean up before failing
        try:
            names.append(f"{k.pid} {' '.join(k.cmdline())[:80]}")
            k.kill()
        except psutil.NoSuchProcess:
            pass
    return names


def wait_for_workers(proc: subprocess.Popen, n: int, timeout: float = 120.0) -> None:
    """Wait until ``proc`` has ``n`` descendants (its workers)."""
    deadline = time.monotonic() + timeout
    while len(descendants(proc.pid)) < n:
        if proc.poll() is not None:
            raise AssertionError(f"the run ended (code {proc.returncode}) before its workers")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"no {n} workers after {timeout} s")
        time.sleep(0.05)


def kill_with_workers(argv: list[str], cwd: Path, settle: float) -> list[str]:
    """Start ``argv`` in ``cwd`` (output to ``log.txt``), wait for 2 workers, let them work for
    ``settle`` s, SIGKILL it; return the descendants left (:func:`kill_and_check`)."""
    log = open(cwd / "log.txt", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(argv, cwd=cwd, stdout=log, stderr=log)
    try:
        wait_for_workers(proc, 2)
        time.sleep(settle)
        return kill_and_check(proc)
    finally:
        log.close()
        if proc.poll() is None:
            proc.kill()


def _stamp(path: Path | None) -> tuple | None:
    try:
        st = path.stat()
    except (AttributeError, OSError):
        return None
    return st.st_mtime_ns, st.st_size


def run(argv: list[str], cwd: Path, progress: str | None = None, timeout: float = 600) -> dict:
    """Run to completion (exit code 0).

    Returns:
        ``{"seconds": wall time, "first"/"last": seconds until ``cwd/progress`` was first/last
        written (None without ``progress``), "stdout": str}``.
    """
    log = cwd / "run.log"
    path = cwd / progress if progress else None
    t0 = time.monotonic()
    first = last = stamp = None
    with open(log, "wb") as fh:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT)
        while proc.poll() is None:
            now = _stamp(path)
            if now != stamp:
                stamp, last = now, time.monotonic() - t0
                first = last if first is None else first
            if time.monotonic() - t0 > timeout:
                proc.kill()
            time.sleep(0.01)
    text = log.read_text()
    assert proc.returncode == 0, f"{argv} failed:\n{text[-3000:]}"
    return {"seconds": time.monotonic() - t0, "first": first, "last": last, "stdout": text}


def killed_run(argv: list[str], cwd: Path, delays: list[float], progress: str | None) -> dict:
    """Start ``argv``, SIGKILL it after each delay (while it runs), then run it to completion.

    With ``progress`` (a file the run checkpoints into), each delay counts from the moment
    that file changes (this invocation has made progress); otherwise from the start.

    Returns:
        ``{"kills": int, "resumable": kills that left saved progress, "orphans": [...],
        "stdout": final stdout}``; ``orphans`` lists the descendants still alive 5 s after a
        kill.
    """
    kills, resumable, orphans = 0, 0, []
    log = cwd / "killed.log"
    path = cwd / progress if progress else None
    for delay in delays:
        before = _stamp(path)
        with open(log, "ab") as fh:
            proc = subprocess.Popen(argv, cwd=cwd, stdout=fh, stderr=fh)
        try:
            t0 = time.monotonic()
            while path is not None and _stamp(path) == before and proc.poll() is None:
                assert time.monotonic() - t0 < 600, f"{argv} made no progress in 600 s"
                time.sleep(0.01)
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            orphans += kill_and_check(proc)
            kills += 1
            resumable += _stamp(path) is not None
            continue
        assert proc.returncode == 0, f"{argv} failed: {log.read_text()[-2000:]}"
    out = run(argv, cwd)["stdout"]
    return {"kills": kills, "resumable": resumable, "orphans": orphans, "stdout": out}


# --------------------------------------------------------------------------------------------
# scenarios: a resumable command and its comparable outputs
# --------------------------------------------------------------------------------------------


def _json_without(path: Path, *keys: str) -> dict:
    doc = json.loads(path.read_text())
    for k in keys:
        doc.pop(k, None)
    return doc


def _me_result(d: Path) -> dict:
    return {
        "archive": _json_without(d / "out" / "archive.json", "metadata"),
        "elites": (d / "out" / "elites.csv").read_text(),
    }


def _ga_result(d: Path) -> dict:
    return json.loads((d / "out" / "result.json").read_text())


def _matchups_result(d: Path) -> str:
    return (d / "out" / "matchups.csv").read_text()


def _table_result(d: Path) -> str:
    return (d / "table.json").read_text()


def _sorted_rows(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    return lines[:1] + sorted(lines[1:])


def _pipeline_result(d: Path) -> dict:
    out = d / "out"
    res = {p.name: p.read_text() for p in sorted((out / "report" / "tables").glob("*.csv"))}
    for p in sorted((out / "tables").glob("*.csv")):  # response tables: rows in any order
        res[f"tables/{p.name}"] = _sorted_rows(p)
    for p in sorted((out / "meta").glob("*/games.csv")):
        res[f"meta/{p.parent.name}"] = _sorted_rows(p)
    for p in sorted((out / "runs").glob("run*/archive.json")):
        res[f"runs/{p.parent.name}"] = _json_without(p, "metadata")
    return res


TABLE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from agents.policy import RuleAgent
    from meta.table import build_table
    from qd.io import load_population

    archive = load_population("5x5")
    pool = [RuleAgent(archive.solution[c], name=archive.cell_name(int(c)))
            for c in archive.occupied_cells()]
    table = build_table(pool[:12], pool, games=150, seed=7, path="table.csv",
                        workers=int(sys.argv[1]), max_games_per_call=1500)
    with open("table.json", "w") as fh:
        json.dump(table.rows(), fh, sort_keys=True)
    """
)


def cli(line: str) -> Callable[[int], list[str]]:
    """``hanabi-adhoc LINE`` as an argv factory (workers -> argv; ``{w}`` is the worker count)."""
    return lambda w: [*CLI, *line.format(w=w).split()]


@dataclass
class Scenario:
    """A resumable command (run in a folder ``d``; ``--resume``-style: rerun to continue)."""

    name: str
    argv: Callable[[int], list[str]]  # workers -> argv
    result: Callable[[Path], object]
    kills: int = 1
    progress: str | None = None  # the file its progress is saved in (None: not resumable)


SCENARIOS = {
    "map-elites": Scenario(
        "map-elites",
        cli(
            "map-elites --candidates 4000 --random 200 --games 5 --batch-size 100 "
            "--checkpoint-every 100 --reeval-games 10 --seed 3 --quiet "
            "--workers {w} --out out --resume"
        ),
        _me_result,
        progress="out/checkpoint.json",
    ),
    "ga": Scenario(
        "ga",
        cli(
            "ga --generations 200 --population 16 --games 3 --final-games 20 --seed 5 "
            "--quiet --workers {w} --out out --resume"
        ),
        _ga_result,
        progress="out/checkpoint.json",
    ),
    "matchups": Scenario(
        "matchups",
        cli("matchups 5x5 --games 100 --seed 2 --workers {w} --out out"),
        _matchups_result,
    ),
    "response-table": Scenario(
        "response-table",
        lambda w: [sys.executable, "-c", TABLE_SCRIPT, str(w)],
        _table_result,
        progress="table.csv",
    ),
    "pipeline": Scenario(
        "pipeline",
        cli(
            "pipeline --out out --runs 2 --candidates 300 --me-games 4 --matchup-games 3 "
            "--train-games 3 --episodes 1 --games 2 --seed 1 --workers {w} --quiet"
        ),
        _pipeline_result,
        kills=2,
    ),
}


def reference(scenario: Scenario, d: Path) -> dict:
    """The uninterrupted run (1 worker): :func:`run`'s dict plus ``result``."""
    d.mkdir(parents=True, exist_ok=True)
    ref = run(scenario.argv(1), d, scenario.progress)
    ref["result"] = scenario.result(d)
    return ref


def check_scenario(
    scenario: Scenario,
    tmp: Path,
    rng: np.random.Generator,
    kills: int | None = None,
    ref: dict | None = None,
) -> dict:
    """Reference run, then a run killed ``kills`` times at random points; compare.

    Returns:
        ``{"kills", "resumable", "orphans", "identical", "reference_s", "delays"}``.
    """
    ref = ref if ref is not None else reference(scenario, tmp / "reference")
    n = scenario.kills if kills is None else kills
    if scenario.progress and ref["first"] is not None:
        # counted from this invocation's first saved progress: the first kill while it saves
        # progress, the later ones anywhere up to the end of the run
        busy = max(0.05, ref["last"] - ref["first"])
        window = max(0.05, ref["seconds"] - ref["first"])
        # (the killed run has 2 workers, up to twice as fast as the 1-worker reference: the
        # first delay stays within the first 30% of the reference's busy span so it lands)
        delays = [float(rng.uniform(0.0, 0.3 * busy))]
        delays += [float(rng.uniform(0.0, window)) for _ in range(n - 1)]
    else:  # anywhere in the run (the first kill inside the fresh run, as above)
        delays = [float(rng.uniform(0.1, 0.4) * ref["seconds"]) for _ in range(n)]
    d = tmp / "killed"
    d.mkdir(parents=True, exist_ok=True)
    report = killed_run(scenario.argv(2), d, delays, scenario.progress)
    return {
        "kills": report["kills"],
        "resumable": report["resumable"],
        "orphans": report["orphans"],
        "identical": scenario.result(d) == ref["result"],
        "reference_s": ref["seconds"],
        "delays": delays,
    }


# --------------------------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_killed_run_resumes_identically(name, tmp_path):
    scenario = SCENARIOS[name]
    rng = np.random.default_rng([2024, list(SCENARIOS).index(name)])
    ref = reference(scenario, tmp_path / "reference")
    # --resume on an empty folder starts a new run, and says so
    if name == "map-elites":
        assert "no checkpoint in out yet: starting a new run" in ref["stdout"]
    if name == "ga":
        assert "starting a new run" in ref["stdout"]
    res = check_scenario(scenario, tmp_path, rng, ref=ref)
    assert not res["orphans"], f"workers outlived the killed run: {res['orphans']}"
    assert res["identical"], f"{name}: the resumed result differs from the uninterrupted one"
    if name in ("map-elites", "pipeline"):
        assert res["kills"] >= 1, f"no kill landed (delays {res['delays']})"
    if name == "map-elites":
        assert res["resumable"] >= 1, "no kill after a checkpoint"


ORPHAN_SCRIPTS = {
    # every pool is an agents.backend one. agents.evaluate.play_games plays rule agents on
    # threads (no process to orphan) and Python policies on a ProcessBackend (with the
    # one_thread_worker initializer):
    "policy-pool": """
        from agents.evaluate import evaluate
        from agents.rulebase import BASELINES
        from qd.situational import SituationalAgent
        agent = SituationalAgent({(2, 3, 4, 5): BASELINES["IGGI"]})
        evaluate(agent, "mirror", (2, 3, 4, 5), 100_000, seed=0, workers=2)
    """,
    # qd.evaluator.ProcessBackend
    "process-backend": """
        import numpy as np
        from qd.evaluator import ProcessBackend, evaluate_solutions
        pop = np.stack([np.random.default_rng(i).permutation(50) for i in range(400)])
        with ProcessBackend(2, min_chunk=10) as backend:
            evaluate_solutions(pop, list(range(400)), 2000, (2, 3, 4, 5), "lenient", backend)
    """,
    # meta.evaluate: the ProcessBackend of _run_tasks (the Python path; the compiled path uses
    # threads)
    "meta-evaluate": """
        from agents import make
        from meta.evaluate import evaluate_meta
        from meta.table import build_table
        pool = [make(n) for n in ("IGGI", "Outer", "Piers", "VanDenBergh")]
        table = build_table(pool, pool, games=2, workers=1)
        print("table ready", flush=True)
        evaluate_meta(table, pool, pool, variants=("adaptive",), episodes=20_000, games=10,
                      workers=2, compiled=False)
    """,
}


@pytest.mark.parametrize("name", list(ORPHAN_SCRIPTS))
def test_pool_workers_die_with_the_main_process(name, tmp_path):
    script = textwrap.dedent(ORPHAN_SCRIPTS[name])
    argv = [sys.executable, "-c", script]
    left = kill_with_workers(argv, tmp_path, settle=0.5)  # busy after 0.5 s
    assert not left, f"orphaned workers: {left}; log: {(tmp_path / 'log.txt').read_text()}"


def test_dask_local_cluster_workers_die_with_the_client(tmp_path):
    pytest.importorskip("distributed")
    argv = [*CLI, "map-elites", "--dask", "--workers", "2", "--candidates", "100000"]
    argv += ["--quiet", "--out", "out"]
    left = kill_with_workers(argv, tmp_path, settle=3.0)  # the workers registered and play games
    assert not left, f"orphaned Dask processes: {left}"


def _sleep_forever() -> None:  # pragma: no cover - runs in a worker
    time.sleep(3600)


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_process_pool_any_start_method(method, tmp_path):
    """Workers die with the main process under every start method (forkserver included)."""
    script = textwrap.dedent(
        f"""
        import multiprocessing, time
        from hanabi_env.workers import process_pool
        if __name__ == "__main__":
            pool = process_pool(2, mp_context=multiprocessing.get_context("{method}"))
            list(pool.map(time.sleep, [0.01] * 8))
            print("ready", flush=True)
            pool.map(time.sleep, [3600] * 2)
            time.sleep(3600)
        """
    )
    (tmp_path / "probe.py").write_text(script)
    proc = subprocess.Popen(
        [sys.executable, "probe.py"], cwd=tmp_path, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        left = kill_and_check(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not left, f"orphaned ({method}): {left}"


def test_worker_whose_parent_already_died_exits():
    """The race: a parent gone before prctl leaves a re-parented worker, which must exit."""
    from hanabi_env.workers import die_with_parent

    if not sys.platform.startswith("linux"):
        pytest.skip("Linux only")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            die_with_parent(os.getppid() + 1_000_000)  # not our parent: as if re-parented
        finally:
            os._exit(0)
    assert os.waitpid(pid, 0)[1] >> 8 == 1
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            die_with_parent(os.getppid())
        finally:
            os._exit(0)
    assert os.waitpid(pid, 0)[1] >> 8 == 0


# --------------------------------------------------------------------------------------------
# Ctrl-C and a full disk: one error line, exit 2, then the same command resumes
# --------------------------------------------------------------------------------------------

INTERRUPTIBLE = {
    "map-elites": (
        "map-elites --candidates 1000 --random 100 --games 3 --reeval-games 0 "
        "--checkpoint-every 100 --workers 2 --quiet --out out",
        "out/checkpoint.json",
        " plus --resume",
    ),
    "pipeline": (
        "pipeline --out out --runs 1 --candidates 200 --me-games 3 --matchup-games 2 "
        "--train-games 2 --episodes 1 --games 2 --seed 1 --workers 2 --quiet",
        "out/timing.json",
        "",
    ),
    "meta-table": (
        "meta-table --responses 5x5 --train-games 40 --workers 2 --out out/table.csv",
        "out/table.csv",
        "",
    ),
}


def _sigint_run(line: str, cwd: Path, started: str) -> subprocess.CompletedProcess:
    """``hanabi-adhoc LINE``, interrupted as Ctrl-C does (SIGINT to its whole process group)
    once ``cwd/started`` exists."""
    proc = subprocess.Popen(
        [*CLI, *line.split()], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while not (cwd / started).exists():
            assert proc.poll() is None, f"ended before {started}: {proc.stderr.read()[-2000:]}"
            assert time.monotonic() < deadline, f"no {started} after 300 s"
            time.sleep(0.02)
        time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return subprocess.CompletedProcess(line, proc.returncode, out, err)


@pytest.mark.parametrize("name", list(INTERRUPTIBLE))
def test_ctrl_c_is_one_error_line_and_the_same_command_resumes(name, tmp_path):
    line, started, hint = INTERRUPTIBLE[name]
    stopped = _sigint_run(line, tmp_path, started)
    lines = stopped.stderr.strip().splitlines()
    assert stopped.returncode == 2, stopped.stderr[-3000:]
    assert "Traceback" not in stopped.stderr, stopped.stderr[-3000:]
    errors = [x for x in lines if "error" in x.lower() or "interrupt" in x.lower()]
    assert len(errors) == 1, stopped.stderr[-3000:]  # (meta-table also shows its bar)
    assert lines[-1] == (
        "error: interrupted (Ctrl-C); finished work is saved: resume with the same command" + hint
    )
    argv = line.split() + (["--resume"] if hint else [])
    done = subprocess.run([*CLI, *argv], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def _can_mount_tmpfs() -> bool:
    if not sys.platform.startswith("linux") or not shutil.which("unshare"):
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


FULL_DISK = textwrap.dedent(
    """
    set -e
    mount -t tmpfs -o size={size}k tmpfs "$1"
    cd "$1"
    rc=0
    {cli} map-elites --candidates 200 --random 100 --games 3 --reeval-games 0 \\
        --checkpoint-every 100 --workers 1 --quiet --out out 2> err.txt || rc=$?
    echo "rc=$rc"
    cat err.txt
    ls -a out
    mount -o remount,size=16m "$1"
    rc=0
    {cli} map-elites --candidates 200 --random 100 --games 3 --reeval-games 0 \
        --checkpoint-every 100 --workers 1 --quiet --out out --resume > /dev/null || rc=$?
    echo "resumed rc=$rc"
    """
)


def test_a_full_disk_is_one_error_line_naming_the_file(tmp_path):
    """A real full disk (a small tmpfs in a user namespace; skipped where none can be made)."""
    if not _can_mount_tmpfs():
        pytest.skip("needs unshare -rm and tmpfs (a user namespace) to make a small disk")
    cli = " ".join([sys.executable, "-m", "hanabi_adhoc"])
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", FULL_DISK.format(size=48, cli=cli), "sh", str(mnt)],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    report = proc.stdout.splitlines()
    assert report[0] == "rc=2", proc.stdout + proc.stderr
    errors = [x for x in report[1:] if x.startswith("error:")]
    assert len(errors) == 1, proc.stdout
    assert "No space left on device" in errors[0], errors[0]
    assert "cannot write out/" in errors[0], errors[0]  # names the file it could not write
    assert errors[0].count("cannot write") == 1, errors[0]
    assert "resume with the same command" in errors[0]
    assert "Traceback" not in proc.stdout
    assert not any(".tmp" in x for x in report), "a temporary file was left behind"
    assert report[-1] == "resumed rc=0", proc.stdout + proc.stderr
