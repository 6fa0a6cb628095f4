"""``benchmark --scheduler-address``: the units played on a Dask cluster, the local results."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hanabi_adhoc.cli import main
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite

POLICY = """
from agents import Policy


class LastLegal(Policy):
    name = "last-legal"

    def act(self, view):
        return int(view.legal_actions()[-1])
"""


def _numbers(out):
    """The report's files that hold numbers, without the time it took."""
    doc = json.loads((out / "summary.json").read_text())
    for a in doc["agents"]:
        a.pop("seconds")
    games = {  # every array of each unit's table (the .npz zip holds its write time)
        p.relative_to(out).as_posix(): {k: v.tolist() for k, v in np.load(p).items()}
        for p in out.glob("agents/*/games/*.npz")
    }
    return {
        "summary.json": doc,
        "per_partner.csv": (out / "per_partner.csv").read_text(),
        "seats.csv": (out / "seats.csv").read_text(),
        "leaderboard.csv": (out / "leaderboard.csv").read_text(),
        "games": games,
    }


def test_a_dask_cluster_plays_the_units_with_the_local_results(tmp_path, capsys):
    distributed = pytest.importorskip("dask.distributed")
    suite = str(tiny_suite(tmp_path / "tiny.json"))
    user = tmp_path / "mine.py"
    user.write_text(POLICY)
    argv = ["benchmark", "Piers", f"{user}:LastLegal", "--suite", suite, "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "local"), "--workers", "2"]) == 0
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        rc = main([*argv, "--out", str(tmp_path / "dask"), "--scheduler-address",
                   cluster.scheduler_address])  # fmt: skip
        ran = set(cluster.scheduler.task_prefixes)
    assert rc == 0, capsys.readouterr().err
    assert "unit_task" in ran, ran  # Dask drops the leading underscore
    local, dask = _numbers(tmp_path / "local"), _numbers(tmp_path / "dask")
    assert len(local["games"]) == 12  # 2 agents x (self-play + partners) x 3 group sizes
    assert dask == local


def test_no_scheduler_at_the_address_is_one_error_line(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    argv = ["benchmark", "Piers", "--suite", str(tiny_suite(tmp_path / "tiny.json")), "--quiet"]
    port = _free_port()
    # Dask waits distributed.comm.timeouts.connect for a scheduler; a short one for the test
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        rc = main([*argv, "--out", str(tmp_path / "b"), "--scheduler-address",
                   f"tcp://127.0.0.1:{port}"])  # fmt: skip
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: ")
    assert "scheduler_address" in err[0]
    assert "cannot connect" in err[0]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
