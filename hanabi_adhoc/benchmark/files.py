"""The one place the benchmark writes and reads its report folder's files.

A report folder is a :class:`hanabi_env.outputs.OutputFolder` of kind ``"benchmark"``
(docs/reliability.md): one writer at a time (a second ``hanabi-adhoc benchmark`` on the same
folder is refused, or waits with ``--wait``), every file written atomically and recorded in the
folder's manifest with the settings that made it, and every saved game table verified against
its record before a resumed run trusts it. The folder is strict (docs/benchmark.md §1): one
that holds files but no manifest, or a file its manifest does not record (a ``summary.md`` of
the user's), is refused, never adopted or overwritten. The folder's own configuration is only
the format of its reports: one folder holds any number of agents (each unit of games records
its agent's options and identity), so that agents can be added to it later.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from hanabi_env.outputs import OutputFolder, atomic_write_csv, file_lock

__all__ = ["REPORT_FORMAT", "open_folder", "read_csv", "write_csv_file"]

REPORT_FORMAT = {"report": "hanabi-adhoc/benchmark-report", "version": 1}
"""The configuration of every benchmark folder (it holds several agents' runs)."""


def open_folder(out: str | Path, wait: bool = False) -> OutputFolder:
    """The report folder ``out`` as an :class:`~hanabi_env.outputs.OutputFolder` (enter it).

    Raises:
        FolderBusyError: On entering, another process writes it (without ``wait``).
        ResultFileError: On entering, it holds the outputs of another kind of run, files but no
            manifest, or a file its manifest does not record.
    """
    return OutputFolder(out, kind="benchmark", config=REPORT_FORMAT, wait=wait, strict=True)


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """Rows of a CSV file (empty if it does not exist)."""
    import csv

    path = Path(path)
    if not path.is_file():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def write_csv_file(
    folder: OutputFolder, path: Path, fields: Sequence[str], rows: Iterable[dict]
) -> Path:
    """A CSV file of the report: through ``folder`` when inside it, else on its own.

    A file outside the folder (a leaderboard shared by several folders) is written atomically
    under its own lock (:func:`hanabi_env.outputs.file_lock`).
    """
    try:
        name = path.resolve().relative_to(folder.path.resolve())
    except ValueError:
        with file_lock(path):
            return atomic_write_csv(path, fields, rows)
    return folder.write_csv(str(name), fields, rows, stage="report")
