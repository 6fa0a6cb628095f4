"""Atomic writes: whole files only, with the permissions the umask gives."""

from __future__ import annotations

import json
import os
import stat

import pytest

from qd.io import atomic_write_json, atomic_write_text


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_atomic_write_respects_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        path = tmp_path / "sub" / "out.json"
        atomic_write_json(path, {"a": 1})
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
    finally:
        os.umask(old)
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode == 0o666 & ~umask
    assert mode == stat.S_IMODE(plain.stat().st_mode)  # like a plain open(path, "w")
    assert json.loads(path.read_text()) == {"a": 1}


def test_atomic_write_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "x.txt"
    atomic_write_text(path, "one")
    atomic_write_text(path, "two")
    assert path.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]
