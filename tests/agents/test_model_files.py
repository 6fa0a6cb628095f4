"""Model files are checked before use: damaged, oversized or changed RL partners, BAD agents and
SB3 zips are one ``ValueError`` line naming the file (API) and one ``error:`` line, exit 2
(the real CLI); no command writes into the installed package."""

from __future__ import annotations

import importlib.util
import io
import json
import shutil
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

import agents.rl.partners as rl
from agents.bad.policy import (
    PACKAGE_ROOT,
    SHIPPED_DIR,
    BADPolicy,
    export_files,
    from_spec,
    weights_sha256,
)
from agents.rl import load_partner, partner_config
from hanabi_env.safe_npz import read_npz
from tests.helpers import run_python

ROOT = Path(__file__).resolve().parents[2]
RL_NAME = rl.partner_names()[0]
BAD_NAME = "very-small"


def _copy_rl(dest: Path) -> Path:
    """A shipped partner's two files copied to ``dest``; the JSON's path."""
    cfg = partner_config(RL_NAME)
    shutil.copy(rl.PARTNER_DIR / f"{RL_NAME}.json", dest / "p.json")
    shutil.copy(rl.PARTNER_DIR / cfg["weights"]["file"], dest / cfg["weights"]["file"])
    return dest / "p.json"


def _copy_bad(dest: Path) -> Path:
    src = SHIPPED_DIR / f"{BAD_NAME}.json"
    shutil.copy(src, dest / "a.json")
    shutil.copy(src.with_suffix(".npz"), dest / "a.npz")
    return dest / "a.json"


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, allow_pickle=False)
    return buf.getvalue()


def _declare_huge(npz: Path, member: str) -> None:
    """Patch ``member``'s uncompressed size in the zip's central directory to ~4 GB."""
    with zipfile.ZipFile(npz) as z:
        at = z.start_dir  # the central directory's first entry
    data = bytearray(npz.read_bytes())
    while data[at : at + 4] == b"PK\x01\x02":
        (name_len,) = struct.unpack_from("<H", data, at + 28)
        if data[at + 46 : at + 46 + name_len].decode() == member:
            struct.pack_into("<I", data, at + 24, 0xFFFFFFF0)
            npz.write_bytes(bytes(data))
            return
        at += 46 + name_len + sum(struct.unpack_from("<HH", data, at + 30))
    raise AssertionError(f"no member {member}")


# --- damaged RL partners ------------------------------------------------------------------


def _rl_truncated(json_path: Path, npz: Path) -> str:
    npz.write_bytes(npz.read_bytes()[: npz.stat().st_size // 2])
    return "not a readable NPZ"


def _rl_not_a_zip(json_path: Path, npz: Path) -> str:
    npz.write_bytes(b"not a zip file at all")
    return "not a readable NPZ"


def _rl_declared_bomb(json_path: Path, npz: Path) -> str:
    _declare_huge(npz, "w0.npy")
    return "before decompressing"


def _rl_real_bomb(json_path: Path, npz: Path) -> str:
    """~80 MB of zeros that compress to ~80 kB, under a layer's name."""
    arrays = dict(np.load(npz))
    arrays["w0"] = np.zeros((32_000, arrays["w0"].shape[1]), np.float32)
    np.savez_compressed(npz, **arrays)
    assert npz.stat().st_size < 1_000_000
    return "before decompressing"


def _rl_missing_sha(json_path: Path, npz: Path) -> str:
    cfg = json.loads(json_path.read_text())
    del cfg["weights"]["sha256"]
    json_path.write_text(json.dumps(cfg))
    return "weights.sha256 is missing"


def _rl_changed_weights(json_path: Path, npz: Path) -> str:
    arrays = dict(np.load(npz))
    arrays["b1"] = arrays["b1"] + np.float32(0.5)
    np.savez(npz, **arrays)
    return "does not hold the weights its config records"


def _rl_wrong_shapes(json_path: Path, npz: Path) -> str:
    arrays = dict(np.load(npz))
    arrays["w1"] = np.ascontiguousarray(arrays["w1"][:, :100])
    np.savez(npz, **arrays)
    return "has shape"


def _rl_wrong_dtype(json_path: Path, npz: Path) -> str:
    np.savez(npz, **{k: v.astype(np.float64) for k, v in np.load(npz).items()})
    return "dtype float64"


def _rl_pickled(json_path: Path, npz: Path) -> str:
    arrays: dict = dict(np.load(npz))
    arrays["w0"] = np.array([object()], dtype=object)
    np.savez(npz, **arrays)
    return "Python objects"


def _rl_bad_json(json_path: Path, npz: Path) -> str:
    json_path.write_text('{"format": "hanabi-adhoc rl partner", ')
    return "not a JSON partner config"


def _rl_changed_activation(json_path: Path, npz: Path) -> str:
    """Same weights (their sha matches), another network: the check games catch it."""
    cfg = json.loads(json_path.read_text())
    cfg["architecture"]["activation"] = "relu"
    json_path.write_text(json.dumps(cfg))
    return "does not play the moves its config records"


def _rl_no_check(json_path: Path, npz: Path) -> str:
    cfg = json.loads(json_path.read_text())
    del cfg["check"]
    json_path.write_text(json.dumps(cfg))
    return "check must record"


def _rl_weights_elsewhere(json_path: Path, npz: Path) -> str:
    cfg = json.loads(json_path.read_text())
    cfg["weights"]["file"] = "../" + cfg["weights"]["file"]
    json_path.write_text(json.dumps(cfg))
    return "no folder"


def _rl_huge_layers(json_path: Path, npz: Path) -> str:
    cfg = json.loads(json_path.read_text())
    cfg["architecture"]["layers"][1] = 10**8
    json_path.write_text(json.dumps(cfg))
    return "the limit is"


RL_DAMAGES = [
    _rl_truncated, _rl_not_a_zip, _rl_declared_bomb, _rl_real_bomb, _rl_missing_sha,
    _rl_changed_weights, _rl_wrong_shapes, _rl_wrong_dtype, _rl_pickled, _rl_bad_json,
    _rl_changed_activation, _rl_no_check, _rl_weights_elsewhere, _rl_huge_layers,
]  # fmt: skip


@pytest.mark.parametrize("damage", RL_DAMAGES, ids=lambda f: f.__name__[4:])
def test_damaged_rl_partner_is_one_value_error_naming_the_file(damage, tmp_path):
    path = _copy_rl(tmp_path)
    npz = tmp_path / partner_config(RL_NAME)["weights"]["file"]
    load_partner(str(path))  # the intact copy loads
    text = damage(path, npz)
    with pytest.raises(ValueError, match=text) as err:
        load_partner(str(path))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"rl:{path}")
    assert str(tmp_path) in message.removeprefix(f"rl:{path}")  # names the file, not only spec


def test_the_check_games_are_replayed_once_per_pair_of_files(tmp_path, monkeypatch):
    calls = []
    real = rl.self_play_record
    monkeypatch.setattr(rl, "self_play_record", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(rl, "_VERIFIED", set())
    path = _copy_rl(tmp_path)
    for _ in range(3):
        load_partner(str(path))
        load_partner(RL_NAME)  # the same files: the same pair of digests
    assert len(calls) == 1
    cfg = json.loads(path.read_text())
    path.write_text(json.dumps({**cfg, "description": "mine"}))  # another JSON: replayed again
    load_partner(str(path))
    assert len(calls) == 2


def test_a_sampling_partner_is_checked_with_its_deterministic_moves(tmp_path, monkeypatch):
    monkeypatch.setattr(rl, "_VERIFIED", set())
    partner = load_partner(str(_copy_rl(tmp_path)), deterministic=False)
    assert not partner.deterministic


# --- damaged BAD agents -------------------------------------------------------------------


def _bad_truncated(json_path: Path, npz: Path) -> str:
    npz.write_bytes(npz.read_bytes()[:-300])
    return "not a readable NPZ"


def _bad_declared_bomb(json_path: Path, npz: Path) -> str:
    _declare_huge(npz, "w2.npy")
    return "before decompressing"


def _bad_missing_sha(json_path: Path, npz: Path) -> str:
    meta = json.loads(json_path.read_text())
    del meta["weights_sha256"]
    json_path.write_text(json.dumps(meta))
    return "records no weights_sha256"


def _bad_changed_weights(json_path: Path, npz: Path) -> str:
    arrays = dict(np.load(npz))
    arrays["b_pi"] = arrays["b_pi"] + np.float32(1)
    np.savez(npz, **arrays)
    return "does not hold the weights its JSON records"


def _bad_wrong_shapes(json_path: Path, npz: Path) -> str:
    arrays = dict(np.load(npz))
    arrays["w2"] = np.zeros((3, 3), np.float32)
    np.savez(npz, **arrays)
    return "has shape"


def _bad_pickled(json_path: Path, npz: Path) -> str:
    arrays: dict = dict(np.load(npz))
    arrays["b_v"] = np.array([object()], dtype=object)
    np.savez(npz, **arrays)
    return "Python objects"


def _bad_huge_network(json_path: Path, npz: Path) -> str:
    meta = json.loads(json_path.read_text())
    json_path.write_text(json.dumps({**meta, "hidden": 10**6}))
    return "bytes of weights"


def _bad_not_json(json_path: Path, npz: Path) -> str:
    json_path.write_bytes(b"\xff\xfe not json")
    return "not a readable JSON"


BAD_DAMAGES = [
    _bad_truncated, _bad_declared_bomb, _bad_missing_sha, _bad_changed_weights,
    _bad_wrong_shapes, _bad_pickled, _bad_huge_network, _bad_not_json,
]  # fmt: skip


@pytest.mark.parametrize("damage", BAD_DAMAGES, ids=lambda f: f.__name__[5:])
def test_damaged_bad_agent_is_one_value_error_naming_the_file(damage, tmp_path):
    path = _copy_bad(tmp_path)
    from_spec(str(path))  # the intact copy loads
    text = damage(path, path.with_suffix(".npz"))
    with pytest.raises(ValueError, match=text) as err:
        from_spec(str(path))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"bad:{path}: {tmp_path}")


def test_shipped_bad_agents_record_the_sha256_of_their_weights():
    for path in sorted(SHIPPED_DIR.glob("*.json")):
        meta = json.loads(path.read_text())
        arrays = dict(np.load(path.with_suffix(".npz"), allow_pickle=False))
        assert meta["weights_sha256"] == weights_sha256(arrays)
        assert all(a.dtype == np.float32 for a in arrays.values())
        assert isinstance(BADPolicy.load(path), BADPolicy)


def test_bad_export_refuses_the_package_and_records_the_sha(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    meta = json.loads((SHIPPED_DIR / f"{BAD_NAME}.json").read_text())
    del meta["weights_sha256"]  # a run trained before the field existed
    (run / "agent.json").write_text(json.dumps(meta))
    shutil.copy(SHIPPED_DIR / f"{BAD_NAME}.npz", run / "agent.npz")
    for dest in (SHIPPED_DIR, PACKAGE_ROOT, PACKAGE_ROOT / "data" / "new"):
        with pytest.raises(ValueError, match="inside the installed package"):
            export_files(run, BAD_NAME, dest)
    assert not (PACKAGE_ROOT / "data" / "new").exists()
    path = export_files(run, BAD_NAME, tmp_path / "mine")
    assert json.loads(path.read_text())["weights_sha256"] == weights_sha256(
        read_npz(path.with_suffix(".npz"))
    )
    assert path.with_suffix(".npz").read_bytes() == (run / "agent.npz").read_bytes()
    arrays = dict(np.load(run / "agent.npz"))
    arrays["b1"] = arrays["b1"] + np.float32(1)
    np.savez(run / "agent.npz", **arrays)
    (run / "agent.json").write_text(json.dumps({**meta, "weights_sha256": "0" * 64}))
    with pytest.raises(ValueError, match="does not hold the weights"):
        export_files(run, "other", tmp_path / "mine")
    assert not (tmp_path / "mine" / "other.json").exists()


# --- the real CLI ---------------------------------------------------------------------------


def _cli(*args: str) -> tuple[int, list[str]]:
    out = run_python(["-m", "hanabi_adhoc", *args], cwd=ROOT, timeout=600)
    return out.returncode, out.stderr.strip().splitlines()


@pytest.mark.parametrize(
    "damage", [_rl_truncated, _rl_real_bomb, _rl_missing_sha, _rl_changed_weights],
    ids=lambda f: f.__name__[4:],
)  # fmt: skip
def test_cli_refuses_a_damaged_rl_partner_in_one_line(damage, tmp_path):
    path = _copy_rl(tmp_path)
    text = damage(path, tmp_path / partner_config(RL_NAME)["weights"]["file"])
    code, err = _cli("evaluate", f"rl:{path}", "--games", "2", "--quiet")
    assert code == 2, err
    assert len(err) == 1, err
    assert err[0].startswith("error: ")
    assert text in err[0]
    assert str(tmp_path) in err[0]


@pytest.mark.parametrize("damage", [_bad_truncated, _bad_missing_sha], ids=["truncated", "sha"])
def test_cli_refuses_a_damaged_bad_agent_in_one_line(damage, tmp_path):
    path = _copy_bad(tmp_path)
    text = damage(path, path.with_suffix(".npz"))
    code, err = _cli("bad", "eval", f"bad:{path}", "--games", "1")
    assert code == 2, err
    assert len(err) == 1, err
    assert err[0].startswith("error: ")
    assert text in err[0]
    assert str(tmp_path) in err[0]


def test_cli_bad_export_never_writes_into_the_package(tmp_path):
    before = {p.name: p.read_bytes() for p in SHIPPED_DIR.iterdir()}
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(SHIPPED_DIR / "small.json", run / "agent.json")
    shutil.copy(SHIPPED_DIR / "very-small.npz", run / "agent.npz")  # would replace small's
    code, err = _cli("bad", "export", str(run), "small")
    assert (code, len(err)) == (2, 1), err
    assert err[0].startswith("error: argument --out: required")
    code, err = _cli("bad", "export", str(run), "small", "--out", str(SHIPPED_DIR))
    assert (code, len(err)) == (2, 1), err
    assert "inside the installed package" in err[0]
    assert {p.name: p.read_bytes() for p in SHIPPED_DIR.iterdir()} == before


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="needs sb3-contrib")
@pytest.mark.parametrize("kind", ["truncated", "bomb"])
def test_cli_refuses_a_damaged_sb3_zip_in_one_line(kind, tmp_path):
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "data",
            json.dumps({"policy_class": {"__module__": "sb3_contrib.common.maskable.policies"}}),
        )
        z.writestr("policy.pth", b"\0" * 100_000)
    if kind == "truncated":
        path.write_bytes(path.read_bytes()[:-40])
    else:
        _declare_huge(path, "policy.pth")
    code, err = _cli("evaluate", f"sb3:{path}", "--trust-model", "--games", "2", "--quiet")
    assert (code, len(err)) == (2, 1), err
    assert err[0].startswith("error: ")
    assert str(path) in err[0]
    assert ("not a saved SB3 model" if kind == "truncated" else "declare") in err[0]
