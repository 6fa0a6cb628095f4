"""agents.identity: the SHA-256 of what an agent is made of follows its files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents import make
from agents.identity import agent_identity, policy_identity, toolkit_identity
from hanabi_env import __version__

POLICY = """
from agents import Policy


class Mine(Policy):
    def act(self, view):
        return int(view.legal_actions()[{index}])
"""


def _names(ident: dict) -> list[str]:
    return [Path(f["path"]).name for f in ident["files"]]


def test_baselines_and_chromosomes_are_their_spec_and_the_version():
    a, b = agent_identity("Piers"), agent_identity(" Piers ")
    assert a == b
    want = ("baseline", "Piers", __version__, [])
    assert (a["kind"], a["spec"], a["version"], a["files"]) == want
    assert len(a["sha256"]) == 64
    assert agent_identity("IGGI")["sha256"] != a["sha256"]
    chrom = agent_identity("3,17,4")
    assert chrom["kind"] == "chromosome"
    assert chrom["sha256"] != agent_identity("3,17,5")["sha256"]
    assert toolkit_identity("meta", "meta")["kind"] == "meta"


def test_a_python_file_agent_follows_its_source(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(POLICY.format(index=0))
    first = agent_identity(f"{path}:Mine")
    assert first["kind"] == "code"
    assert first["files"] == [{"path": str(path.resolve()), "sha256": first["files"][0]["sha256"]}]
    assert agent_identity(f"{path}:Mine") == first
    path.write_text(POLICY.format(index=-1))
    assert agent_identity(f"{path}:Mine")["sha256"] != first["sha256"]
    with pytest.raises(ValueError, match="no Python file"):
        agent_identity(f"{tmp_path / 'gone.py'}:Mine")


def test_a_package_agent_follows_every_file_of_the_package(tmp_path, monkeypatch):
    pkg = tmp_path / "mypkg_identity"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from mypkg_identity.impl import Mine\n")
    (pkg / "impl.py").write_text(POLICY.format(index=0))
    monkeypatch.syspath_prepend(str(tmp_path))
    whole = agent_identity("mypkg_identity:Mine")
    assert sorted(_names(whole)) == ["__init__.py", "impl.py"]
    module = agent_identity("mypkg_identity.impl:Mine")
    assert _names(module) == ["impl.py"]
    (pkg / "impl.py").write_text(POLICY.format(index=1))
    assert agent_identity("mypkg_identity:Mine")["sha256"] != whole["sha256"]
    assert agent_identity("mypkg_identity.impl:Mine")["sha256"] != module["sha256"]
    with pytest.raises(ValueError, match=r"cannot locate|no source file"):
        agent_identity("no_such_module_here_x:Mine")


def test_shipped_partners_and_model_files_follow_their_weights(tmp_path):
    shipped = agent_identity("rl:ppo-pool")
    assert shipped["kind"] == "shipped"
    assert _names(shipped) == ["ppo-pool.json", "ppo-pool.npz"]
    assert _names(agent_identity("bad:small")) == ["small.json", "small.npz"]

    src = Path(shipped["files"][0]["path"]).parent
    for ext in ("json", "npz"):
        shutil.copyfile(src / f"ppo-pool.{ext}", tmp_path / f"ppo-pool.{ext}")
    spec = f"rl:{tmp_path / 'ppo-pool.json'}"
    mine = agent_identity(spec)
    assert mine["kind"] == "model_file"
    assert [f["sha256"] for f in mine["files"]] == [f["sha256"] for f in shipped["files"]]
    weights = tmp_path / json.loads((tmp_path / "ppo-pool.json").read_text())["weights"]["file"]
    weights.write_bytes(weights.read_bytes() + b"\0")  # other weights, same config
    assert agent_identity(spec)["sha256"] != mine["sha256"]

    model = tmp_path / "model.zip"
    model.write_bytes(b"one")
    one = agent_identity(f"sb3:{tmp_path / 'model'}")  # as SB3 loads it: .zip appended
    assert _names(one) == ["model.zip"]
    model.write_bytes(b"two")
    assert agent_identity(f"sb3:{model}")["sha256"] != one["sha256"]
    with pytest.raises(ValueError, match="no such file"):
        agent_identity(f"rl:{tmp_path / 'gone.json'}")


def test_a_policy_object_is_known_by_its_class_source():
    ident = policy_identity(make("Piers"))
    assert (ident["spec"], ident["kind"]) == (None, "object")
    assert _names(ident) == ["policy.py"]
    assert policy_identity(make("Piers")) == ident
    with pytest.raises(TypeError):
        agent_identity(3)  # type: ignore[arg-type]
