"""Every file the project resumes from is validated whole (issue "Nothing silently wrong").

For each format the real writer makes a valid file at toy scale; the file is then truncated at
every byte offset of its last record (and at a few offsets inside earlier records), extended
with garbage, or edited. Each case must be either repaired to exactly the complete prefix (only
the append-only response-table CSV, whose torn last line is the expected crash artefact; the
resumed build must then equal an uninterrupted one, byte for byte) or refused with a one-line
``ValueError`` naming the file — never accepted with wrong values.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from agents import make
from meta.table import ResponseTable, TableFileError, build_table
from qd.analysis import MatchupTable, matchup_table
from qd.io import load_archive, save_archive
from qd.scheduler import CheckpointError, MapElites
from tests.qd.helpers import toy_config

GAMES, SEED = 3, 5
IDS = ["piers", "iggi"]
N_PAIRS = len(IDS) ** 2


def pool():
    return [make(n) for n in IDS]


def build(path: Path) -> tuple[ResponseTable, int, list[str]]:
    """Resume ``path``; returns the table, the games played and the warnings issued."""
    played: list[int] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = build_table(pool(), pool(), GAMES, SEED, IDS, IDS, path=path, progress=played.append)
    return t, sum(played), [str(w.message) for w in caught]


def same_table(a: ResponseTable, b: ResponseTable) -> bool:
    return (a.response_ids, a.hypothesis_ids, a.games, a.seed, a.scoring) == (
        b.response_ids,
        b.hypothesis_ids,
        b.games,
        b.seed,
        b.scoring,
    ) and all(
        np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True)
        for f in ("scores", "sem", "communicativeness", "ipp", "risk_aversion", "sums")
    )


def names(path: Path) -> str:
    """``match`` pattern: the message names the file."""
    return re.escape(str(path))


def refused(exc_info, path: Path) -> None:
    msg = str(exc_info.value)
    assert "\n" not in msg, msg
    assert str(path) in msg, msg


def record_starts(data: bytes) -> list[int]:
    """Byte offsets where each line (record) starts; the writers quote no newlines here."""
    return [0] + [i + 1 for i, b in enumerate(data[:-1]) if b == ord("\n")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted build: its table and its file's bytes."""
    path = tmp_path_factory.mktemp("ref") / "table.csv"
    t, played, warned = build(path)
    assert played == N_PAIRS * GAMES
    assert not warned
    return t, path.read_bytes()


# ---- response table (append-only CSV: repair a torn tail, refuse anything else) -----------


def check_repairs(tmp_path: Path, reference, damaged: bytes, complete_rows: int) -> None:
    """``damaged`` is resumed from its ``complete_rows`` data rows into the reference table."""
    ref, full = reference
    path = tmp_path / "table.csv"
    path.write_bytes(damaged)
    torn = damaged != b"" and not damaged.endswith(b"\n")
    if torn or complete_rows < N_PAIRS:  # the read-only reader never accepts a partial table
        with pytest.raises(ValueError, match=names(path)) as exc:
            ResponseTable.from_csv(path, IDS, IDS)
        refused(exc, path)
    t, played, warned = build(path)
    assert same_table(t, ref)
    assert played == (N_PAIRS - complete_rows) * GAMES  # exactly the complete rows were kept
    assert path.read_bytes() == full  # appending continued on a clean line boundary
    assert len(warned) == int(torn), warned
    if torn:
        assert "dropped an incomplete last line" in warned[0]
        assert str(path) in warned[0]
        assert "\n" not in warned[0]
    assert same_table(ResponseTable.from_csv(path, IDS, IDS), ref)


def test_response_table_torn_at_every_offset_of_the_last_row(tmp_path, reference):
    _, full = reference
    last = record_starts(full)[-1]
    for k in range(last, len(full)):
        check_repairs(tmp_path, reference, full[:k], N_PAIRS - 1)


def test_response_table_torn_inside_earlier_rows_and_the_header(tmp_path, reference):
    _, full = reference
    starts = record_starts(full)  # header, then one line per pair
    cases = [0, 1, starts[1] - 2, starts[1] - 1, starts[1], starts[1] + 1]
    cases += [starts[2] - 1, starts[2], starts[2] + 17, starts[3] - 1, starts[3] + 5]
    for k in cases:
        complete = max(0, sum(1 for s in starts[1:] if s <= k) - 1)
        check_repairs(tmp_path, reference, full[:k], complete)


def test_response_table_incomplete_garbage_tail_is_dropped(tmp_path, reference):
    _, full = reference
    for tail in (b"garbage", b"\x00" * 64, b"piers,piers,3", b"\r", b"\xff\xfe"):
        check_repairs(tmp_path, reference, full + tail, N_PAIRS)


def _edit(full: bytes, line: int, field: int, new: bytes) -> bytes:
    """``full`` with field ``field`` of line ``line`` replaced by ``new`` (None: removed)."""
    lines = full.split(b"\n")
    fields = lines[line].rstrip(b"\r").split(b",")
    if new is None:
        del fields[field]
    else:
        fields[field] = new
    lines[line] = b",".join(fields) + b"\r"
    assert lines != full.split(b"\n")
    return b"\n".join(lines)


def refusals(full: bytes) -> dict[str, bytes]:
    starts = record_starts(full)
    last = full[starts[-1] :]
    header = full[: starts[1]]
    count = full.split(b"\n")[3].split(b",")[10]
    return {
        "complete garbage line": full + b"garbage\n",
        "blank line": full + b"\r\n",
        "NUL line": full + b"\x00" * 10 + b"\n",
        "repeated pair": full + last,
        "torn row glued to the next": full[: starts[-1] + 10] + last,
        "too few fields": _edit(full, 2, 6, None),
        "NaN score": _edit(full, 1, 5, b"nan"),
        "infinite score": _edit(full, 1, 5, b"inf"),
        "negative score": _edit(full, 1, 5, b"-1.5"),
        "text score": _edit(full, 1, 5, b"abc"),
        "ratio above 1": _edit(full, 2, 7, b"1.5"),
        "ratio disagrees with sums": _edit(full, 2, 7, b"0.123"),
        "fractional count": _edit(full, 3, 10, count + b".5"),
        "bad games": _edit(full, 1, 2, b"x"),
        "bad scoring": _edit(full, 1, 4, b"lenient2"),
        "not UTF-8": _edit(full, 2, 0, b"pi\xffrs"),
        "open quote": _edit(full, 1, 0, b'"piers'),
        "reordered header": header.replace(
            b"response_id,hypothesis_id", b"hypothesis_id,response_id"
        )
        + full[starts[1] :],
        "not a table": b"hello world\n",
        "not a table, torn": b"hello",
    }


def test_response_table_corrupt_files_are_refused_untouched(tmp_path, reference):
    _, full = reference
    for name, damaged in refusals(full).items():
        path = tmp_path / "table.csv"
        path.write_bytes(damaged)
        with pytest.raises(TableFileError) as exc:
            build_table(pool(), pool(), GAMES, SEED, IDS, IDS, path=path)
        refused(exc, path)
        assert path.read_bytes() == damaged, name  # a refused file is left as it is
        if name != "reordered header":  # the read-only reader allows reordered columns
            with pytest.raises(ValueError, match=names(path)) as exc:
                ResponseTable.from_csv(path)
            refused(exc, path)


def test_response_table_other_settings_are_refused(tmp_path, reference):
    _, full = reference
    path = tmp_path / "table.csv"
    path.write_bytes(full)
    with pytest.raises(TableFileError, match="seed") as exc:
        build_table(pool(), pool(), GAMES, SEED + 1, IDS, IDS, path=path)
    refused(exc, path)
    assert path.read_bytes() == full


def test_response_table_to_csv_is_atomic_and_resumable(tmp_path, reference):
    ref, full = reference
    path = tmp_path / "table.csv"
    ref.to_csv(path)
    assert path.read_bytes() == full
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]
    _, played, warned = build(path)
    assert played == 0
    assert not warned


# ---- match-up table (written whole: refuse anything incomplete) ---------------------------


@pytest.fixture(scope="module")
def matchups(tmp_path_factory):
    sols = np.random.default_rng(4).choice(105, (2, 15))
    t = matchup_table(sols, ids=["a", "b,c"], games=2, seed=1)  # a quoted id
    path = tmp_path_factory.mktemp("mu") / "m.csv"
    t.to_csv(path)
    assert [p.name for p in path.parent.iterdir()] == ["m.csv"]
    return t, path.read_bytes()


def same_matchups(a: MatchupTable, b: MatchupTable) -> bool:
    return (a.ids, a.games) == (b.ids, b.games) and all(
        np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True)
        for f in ("scores", "sem", "communicativeness", "ipp", "risk_aversion")
    )


def test_matchup_table_truncated_anywhere_is_refused(tmp_path, matchups):
    t, full = matchups
    path = tmp_path / "m.csv"
    path.write_bytes(full)
    assert same_matchups(MatchupTable.from_csv(path), t)
    assert same_matchups(MatchupTable.from_csv(path, t.ids, t.games), t)
    one_row = record_starts(full)[2]
    for k in range(len(full)):  # the whole file is a few hundred bytes: every offset
        path.write_bytes(full[:k])
        with pytest.raises(ValueError, match=names(path)) as exc:
            MatchupTable.from_csv(path, t.ids, t.games)
        refused(exc, path)
        if k != one_row:  # cut after the first row: a valid 1 × 1 table unless ids are given
            with pytest.raises(ValueError, match=names(path)):
                MatchupTable.from_csv(path)
    path.write_bytes(full)
    with pytest.raises(ValueError, match=names(path)):
        MatchupTable.from_csv(path, t.ids, t.games + 1)
    with pytest.raises(ValueError, match=names(path)):
        MatchupTable.from_csv(path, t.ids[::-1])


def test_matchup_table_corrupt_files_are_refused(tmp_path, matchups):
    _, full = matchups
    starts = record_starts(full)
    rows = [full[a:b] for a, b in zip(starts, [*starts[1:], len(full)], strict=True)]
    score = rows[1].split(b",")[3]
    cases = {
        "garbage tail": full + b"garbage",
        "garbage line": full + b"garbage\n",
        "blank line": full + b"\r\n",
        "extra row": full + rows[-1],
        "repeated pair": b"".join([rows[0], rows[1], rows[1], *rows[3:]]),
        "unknown seat1 id": full.replace(b'a,"b,c"', b'a,"b,d"', 1),
        "mixed games": b"".join([rows[0], rows[1], rows[2].replace(b",2,", b",3,", 1), *rows[3:]]),
        "NaN score": full.replace(b"," + score + b",", b",nan,", 1),
        "metric above 1": full.replace(rows[1], rows[1][:-8] + b",7.5\r\n"),
        "not UTF-8": full.replace(b"a,a", b"\xff,a", 1),
    }
    path = tmp_path / "m.csv"
    for name, damaged in cases.items():
        assert damaged != full, name
        path.write_bytes(damaged)
        with pytest.raises(ValueError, match=names(path)) as exc:
            MatchupTable.from_csv(path)
        refused(exc, path)


# ---- MAP-Elites checkpoint and archive (atomic JSON; the checkpoint is sha256-checked) -------


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cfg = toy_config(20, 20, games=2, batch=10, every=10, seed=3)
    folder = tmp_path_factory.mktemp("me")
    loop = MapElites(cfg)
    loop.run(progress=False, checkpoint=folder / "checkpoint.json")
    save_archive(loop.archive, folder / "archive.json")
    return loop, (folder / "checkpoint.json").read_bytes(), (folder / "archive.json").read_bytes()


def test_checkpoint_truncated_anywhere_is_refused(tmp_path, run):
    loop, full, _ = run
    path = tmp_path / "checkpoint.json"
    payload = loop.state_dict()
    assert full.endswith(b"}\n")
    for k in range(len(full) + 1):
        path.write_bytes(full[:k])
        if k >= len(full) - 1:  # only the final newline missing: the whole, hashed document
            assert MapElites.read_checkpoint(path)["archive"] == payload["archive"]
            continue
        with pytest.raises(CheckpointError) as exc:
            MapElites.read_checkpoint(path)
        refused(exc, path)


def test_checkpoint_corrupt_files_are_refused(tmp_path, run):
    _, full, _ = run
    doc = json.loads(full)
    cell = doc["payload"]["archive"]["elites"][0]
    edited = json.loads(full)
    edited["payload"]["archive"]["elites"][0]["solution"][0] = (cell["solution"][0] + 1) % 105
    nan = json.loads(full)
    nan["payload"]["elapsed"] = math.nan
    cases = {
        "garbage appended": full + b"garbage",
        "second document": full + full,
        "edited value": json.dumps(edited).encode(),
        "NaN": json.dumps(nan).encode(),
        "not UTF-8": full[:50] + b"\xff" + full[51:],
    }
    path = tmp_path / "checkpoint.json"
    for damaged in cases.values():
        path.write_bytes(damaged)
        with pytest.raises(CheckpointError) as exc:
            MapElites.read_checkpoint(path)
        refused(exc, path)


def test_archive_truncated_anywhere_is_refused(tmp_path, run):
    loop, _, full = run
    path = tmp_path / "archive.json"
    assert full.endswith(b"}\n")
    for k in range(len(full) + 1):
        path.write_bytes(full[:k])
        if k >= len(full) - 1:
            assert load_archive(path).equals(loop.archive)
            continue
        with pytest.raises(ValueError, match=names(path)) as exc:
            load_archive(path)
        refused(exc, path)


def test_archive_corrupt_files_are_refused(tmp_path, run):
    _, _, full = run
    doc = json.loads(full)
    twice = json.loads(full)
    twice["elites"].append(dict(twice["elites"][0], index=999))
    moved = json.loads(full)
    moved["elites"][0]["grid_index"] = [g + 1 for g in moved["elites"][0]["grid_index"]]
    short = json.loads(full)
    short["elites"][0]["solution"] = short["elites"][0]["solution"][:-1]
    cases = {
        "garbage appended": full + b"garbage",
        "second document": full + full,
        "repeated cell": json.dumps(twice).encode(),
        "grid index disagrees with cell": json.dumps(moved).encode(),
        "short solution": json.dumps(short).encode(),
        "NaN literal": json.dumps(
            dict(doc, elites=[dict(doc["elites"][0], objective=math.nan)])
        ).encode(),
        "not UTF-8": full[:50] + b"\xff" + full[51:],
        "not an archive": b'{"format": "x"}\n',
    }
    path = tmp_path / "archive.json"
    for damaged in cases.values():
        path.write_bytes(damaged)
        with pytest.raises(ValueError, match=names(path)) as exc:
            load_archive(path)
        refused(exc, path)
