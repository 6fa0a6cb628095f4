"""Files: atomic writes, the published populations, and run outputs (never pickle).

Published populations (package data in ``qd/data/``, docs/rules.md §10, read with
:func:`load_population`) become an :class:`~qd.archive.Archive` whose ``objective`` is the
fitness MAP-Elites stored (``archive_fitness``; NaN when the file has none) with extra fields
``published_fitness`` (the authors' re-evaluation) and ``line_index`` (20×20 files). Their
measures are unknown and set to the cell centres; re-evaluate them (:func:`qd.analysis.reevaluate`)
to measure them in our engine.
"""

from __future__ import annotations

import csv
import json
import math
import stat
from pathlib import Path

import numpy as np

from hanabi_env.outputs import (
    ResultFileError,
    atomic_write_csv,
    atomic_write_json,
    atomic_write_text,
    check_recorded,
)
from hanabi_env.outputs import read_checksummed_json as _read_checksummed_json
from hanabi_env.outputs import write_checksummed_json as _write_checksummed_json
from qd.archive import Archive

__all__ = [
    "CheckpointError",
    "archive_source",
    "atomic_write_csv",
    "atomic_write_json",
    "atomic_write_text",
    "csv_records",
    "data_dir",
    "load_archive",
    "load_archive_source",
    "load_population",
    "read_checksummed_json",
    "save_archive",
    "write_checksummed_json",
]

POPULATIONS = {
    "5x5": "population_5x5_run1.json",
    "20x20": "population_20x20_run1.json",
}
"""Short names of the published populations shipped in ``qd/data/``."""


def save_archive(archive: Archive, path: str | Path, metadata: dict | None = None) -> None:
    """Write ``archive`` (schema in :mod:`qd.archive`) atomically as JSON."""
    atomic_write_json(path, archive.as_dict(metadata))


def load_archive(path: str | Path) -> Archive:
    """Read an archive JSON written by :func:`save_archive`.

    The file is validated whole: it must be one strict-JSON archive document (a truncated or
    extended file is not valid JSON), each elite's ``grid_index`` must match its ``cell``, and no
    cell may appear twice (the elite count must equal the number of occupied cells).

    Raises:
        ValueError: One line naming the file, what is wrong and what to do.
    """
    fix = "delete it and rerun the command that wrote it"

    def reject(name):  # save_archive writes strict JSON (NaN as null)
        raise ValueError(f"non-standard number {name}")

    check_recorded(path)  # the run's manifest, when it has one, must record this content
    try:
        doc = json.loads(_read_source(Path(path)).decode("utf-8"), parse_constant=reject)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc}); {fix}") from exc
    try:
        archive = Archive.from_dict(doc)
        elites = doc["elites"]
        for e in elites:
            grid = [int(i) for i in archive.int_to_grid_index(int(e["cell"]))]
            if "grid_index" in e and e["grid_index"] != grid:
                raise ValueError(f"elite of cell {e['cell']} has grid_index {e['grid_index']}")
        if len(archive) != len(elites):
            raise ValueError(f"{len(elites)} elites in {len(archive)} cells (a repeated cell)")
        _check_values(archive)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{path}: not a valid archive ({exc}); {fix}") from exc
    return archive


MAX_SCORE = 25
"""Highest score of one game of the 5-colour, 5-rank deck every population is played with."""


def _check_values(archive: Archive) -> None:
    """Values an archive of this toolkit can hold: scores in [0, 25], no infinite measure, rules.

    Raises:
        ValueError: The first impossible value, named (an edited or foreign file).
    """
    from agents.rulebase import N_RULE_IDS

    cells = archive.occupied_cells()
    for name in ("objective", "reeval_objective"):
        values = archive.objective if name == "objective" else archive.fields.get(name)
        if values is None:
            continue
        v = values[cells]
        bad = np.flatnonzero(~np.isnan(v) & ((v < 0) | (v > MAX_SCORE)))
        if len(bad):
            cell = archive.cell_name(int(cells[bad[0]]))
            raise ValueError(
                f"elite {cell} has {name}={float(v[bad[0]])!r}, outside [0, {MAX_SCORE}]"
            )
    if np.isinf(archive.measures[cells]).any():  # NaN is a measure of 0/0, never infinite
        raise ValueError("an elite has an infinite measure")
    genes = archive.solution[cells]
    if genes.size and (genes.min() < 0 or genes.max() >= N_RULE_IDS):
        raise ValueError(f"an elite has a gene outside the rule ids [0, {N_RULE_IDS})")


MAX_SOURCE_BYTES = 256 * 2**20
"""Largest population file read (256 MiB; the 20x20 population is 100 kB)."""


def _read_source(path: Path) -> bytes:
    """The bytes of a population file: a regular file of at most :data:`MAX_SOURCE_BYTES`.

    Checked before reading, so that ``/dev/zero``, a FIFO or a huge file is refused at once
    instead of hanging or filling memory.

    Raises:
        FileNotFoundError: No such file.
        ValueError: Not a regular file, or larger than the limit (both named).
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path} is not a regular file; give a population file or folder")
    if st.st_size > MAX_SOURCE_BYTES:
        raise ValueError(
            f"{path} is {st.st_size:,} bytes; allowed: population files up to "
            f"{MAX_SOURCE_BYTES:,} bytes ({MAX_SOURCE_BYTES // 2**20} MiB)"
        )
    with open(path, "rb") as fh:
        return fh.read(MAX_SOURCE_BYTES + 1)


def data_dir() -> Path:
    """The folder of the published populations shipped with the package (``qd/data/``).

    Its README gives each file's provenance and licence.
    """
    return Path(__file__).resolve().parent / "data"


def load_population(source: str | Path = "5x5") -> Archive:
    """Load a published MAP-Elites population (docs/rules.md §10) into an :class:`Archive`.

    Besides the shipped populations (``"cells"`` documents), the reference's own formats load
    too: its MAP-Elites JSON (``"population"`` entries with string chromosomes) and its text
    populations (d² lines of genes, all-zero = empty; docs/rules.md §10).

    Args:
        source: ``"5x5"``, ``"20x20"``, a file name inside :func:`data_dir`, or a path.

    Returns:
        An archive with the file's ``grid`` and ``measures``; objective = ``archive_fitness``
        (NaN if absent); fields ``published_fitness`` and ``line_index`` (NaN if absent);
        measures = cell centres; ``index`` = -1. The document's top-level fields (without the
        cells) are kept in ``archive.metadata``.

    Raises:
        FileNotFoundError: No such population.
        ValueError: The file is not a population document, not a regular file, or larger
            than :data:`MAX_SOURCE_BYTES`.
    """
    path = Path(source)
    if str(source) in POPULATIONS:
        path = data_dir() / POPULATIONS[str(source)]
    elif not path.exists() and (data_dir() / str(source)).exists():
        path = data_dir() / str(source)
    if not path.exists():
        raise FileNotFoundError(
            f"population {source!r} not found (looked for {path} and in {data_dir()})"
        )
    try:
        text = _read_source(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a population (not UTF-8 text: {exc})") from None
    if not text.lstrip().startswith("{"):
        return _load_text_population(text, path)
    try:
        doc = json.loads(text)
        if "population" in doc and "cells" not in doc:
            return _load_reference_json(doc, path)
        dims = [int(d) for d in doc["grid"]]
        measures = [str(m) for m in doc["measures"]]
        cells = doc["cells"]
        lengths = {len(c["chromosome"]) for c in cells}
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a population document ({exc!r})") from exc
    if len(lengths) > 1:
        raise ValueError(f"{path}: chromosomes of different lengths {sorted(lengths)}")
    archive = Archive(
        dims,
        measures=measures,
        solution_dim=lengths.pop() if lengths else 15,
        fields=("published_fitness", "line_index"),
    )
    for c in cells:
        grid = np.array([[int(c["comm_index"]), int(c["ipp_index"])]])
        cell = int(archive.grid_to_int_index(grid)[0])
        fitness = c.get("archive_fitness")
        archive.insert(
            cell,
            c["chromosome"],
            math.nan if fitness is None else float(fitness),
            archive.cell_centers(np.array([cell]))[0],
            published_fitness=_num(c.get("published_fitness")),
            line_index=_num(c.get("line_index")),
        )
    archive.metadata = {k: v for k, v in doc.items() if k != "cells"}
    archive.metadata["path"] = str(path)
    return archive


def _num(x) -> float:
    return math.nan if x is None else float(x)


def _load_text_population(text: str, path: Path) -> Archive:
    """Parse a reference text population (docs/rules.md §10).

    d² lines of comma-separated genes, row-major (line k = cell (k div d, k mod d)); an all-zero
    line is an empty cell.
    """
    lines = [ln for ln in text.splitlines() if ln.strip()]
    d = round(math.sqrt(len(lines)))
    if d * d != len(lines):
        raise ValueError(f"{path}: {len(lines)} lines is not a square grid")
    try:
        genes = [[int(g) for g in ln.replace(" ", "").split(",") if g] for ln in lines]
    except ValueError as exc:
        raise ValueError(f"{path}: not a population text file ({exc})") from exc
    archive = Archive(
        (d, d), solution_dim=len(genes[0]), fields=("published_fitness", "line_index")
    )
    for k, g in enumerate(genes):
        if any(g):
            archive.insert(k, g, math.nan, archive.cell_centers(np.array([k]))[0], line_index=k)
    archive.metadata = {"path": str(path), "format": "reference text population"}
    return archive


def _load_reference_json(doc: dict, path: Path) -> Archive:
    """Parse the reference MAP-Elites JSON (docs/rules.md §10).

    ``"info"`` + ``"population"`` entries with ``Communicativeness_index``, ``IPP_index``,
    ``Fitness``, ``valid`` and a string ``Chromosome`` such as ``"[1, 2, 3]"``.
    """
    try:
        dims = [int(x) for x in str(doc["info"]["Map Dimensions"]).strip("{}[] ").split(",")]
        entries = [e for e in doc["population"] if e.get("valid", True)]
        genes = [
            [int(g) for g in str(e["Chromosome"]).strip("[] ").split(",") if g.strip()]
            for e in entries
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a reference population JSON ({exc!r})") from exc
    archive = Archive(dims, solution_dim=len(genes[0]) if genes else 15)
    for e, g in zip(entries, genes, strict=True):
        grid = np.array([[int(e["Communicativeness_index"]), int(e["IPP_index"])]])
        cell = int(archive.grid_to_int_index(grid)[0])
        fit = _num(e.get("Fitness"))
        archive.insert(cell, g, fit, archive.cell_centers(np.array([cell]))[0])
    archive.metadata = {"path": str(path), "info": doc.get("info", {})}
    return archive


def csv_records(
    data: bytes, path, fix: str, error: type[Exception] = ValueError
) -> tuple[list[tuple[list[str], int]], int]:
    """The complete CSV records of ``data``: ``([(fields, line number), ...], complete_len)``.

    A record is complete when it ends with a newline; ``data[complete_len:]`` is the incomplete
    tail (empty for an intact file). A quoted field still open at the last newline is an error,
    not a tail: only bytes after the last newline are ever dropped.

    Raises:
        ValueError: (or ``error``, a subclass) Text that is not UTF-8 or not CSV before the
            tail; the message names ``path`` and ends with ``fix``.
    """
    end = data.rfind(b"\n") + 1
    lines = data[:end].split(b"\n")[:-1]
    ends = np.cumsum([len(x) + 1 for x in lines]).tolist()
    consumed = [0]

    def feed():
        for k, raw in enumerate(lines):
            consumed[0] = k + 1
            try:
                yield raw.decode("utf-8") + "\n"
            except UnicodeDecodeError as exc:
                raise error(f"{path}: line {k + 1} is not UTF-8 text; {fix}") from exc

    records: list[tuple[list[str], int]] = []
    complete = 0
    reader = csv.reader(feed(), strict=True)
    try:
        for fields in reader:
            records.append((fields, reader.line_num))
            complete = ends[consumed[0] - 1]
    except csv.Error as exc:
        raise error(f"{path}: line {reader.line_num}: not CSV ({exc}); {fix}") from exc
    return records, complete


class CheckpointError(ResultFileError):
    """A checkpoint is unreadable, corrupt, or belongs to a different run (a ``ValueError``)."""


CHECKPOINT_FIX = "delete it to start the run over"


def write_checksummed_json(path: str | Path, fmt: str, payload: dict) -> None:
    """:func:`hanabi_env.outputs.write_checksummed_json` (kept here for its callers).

    Raises:
        ValueError: ``payload`` holds NaN or an infinity.
        OutputWriteError: The file could not be written.
    """
    _write_checksummed_json(path, fmt, payload)


def read_checksummed_json(path: str | Path, fmt: str) -> dict:
    """Read and verify a document of :func:`write_checksummed_json`; returns its payload.

    The payload must hash to the recorded sha256, so a truncated, extended or edited file is
    refused (:func:`hanabi_env.outputs.read_checksummed_json`).

    Raises:
        CheckpointError: Missing, unreadable, not valid strict JSON, another ``format`` or
            version, or a checksum mismatch; one line naming the file and what to do.
    """
    return _read_checksummed_json(path, fmt, CheckpointError, CHECKPOINT_FIX)


def archive_source(source: str | Path) -> tuple[Archive, bool]:
    """The population of a SOURCE, and whether it is the archive of a MAP-Elites run.

    Args:
        source: A MAP-Elites run folder (holding ``archive.json``), an archive JSON written by
            :func:`save_archive` (``"format": "hanabi-adhoc/qd-archive"``), or anything
            :func:`load_population` reads (``5x5``, ``20x20``, fixture files, the reference's
            formats).

    Returns:
        ``(archive, run)``: the :class:`Archive`, and True for a qd archive (a run's).

    Raises:
        FileNotFoundError: No such population (or a folder without ``archive.json``).
        ValueError: Not a population.
    """
    path = Path(source)
    if path.is_dir():  # a MAP-Elites run folder
        path = path / "archive.json"
        if not path.is_file():
            raise FileNotFoundError(f"{source}: a folder without archive.json")
    if path.exists() and not path.is_file():
        _read_source(path)  # a device, FIFO or socket: refused, never read
    if path.is_file():
        try:
            doc = json.loads(_read_source(path))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return load_population(path), False  # the reference's text format
        if isinstance(doc, dict) and doc.get("format") == "hanabi-adhoc/qd-archive":
            return load_archive(path), True
        return load_population(path), False
    return load_population(str(source)), False


def load_archive_source(source: str | Path) -> Archive:
    """The :class:`Archive` of a population SOURCE (see :func:`archive_source`).

    Raises:
        FileNotFoundError: No such population.
        ValueError: Not a population.
    """
    return archive_source(source)[0]
