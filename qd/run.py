"""Running MAP-Elites end to end: backend, checkpoints/resume, re-evaluation, output files.

:func:`run_map_elites` writes into ``out_dir`` (every file atomically; never pickle):

| file | content |
|---|---|
| ``checkpoint.json`` | the resumable state (schema in :mod:`qd.scheduler`) |
| ``archive.json`` | the final archive (schema in :mod:`qd.archive`); ``metadata`` = the summary |
| ``elites.csv`` | one row per elite (columns in :meth:`qd.archive.Archive.elites_table`) |
| ``elites.parquet`` | the same table as Parquet (when ``pyarrow`` is installed) |
| ``summary.json`` | the summary below |
| ``heatmap.png`` | objective per cell (re-evaluated objective when ``reeval_games > 0``) |
| ``heatmap_archive.png`` | the stored (insertion-time) objective per cell |
| ``manifest.json`` | every file above with its sha256, the run's settings and seed |

The folder is a :class:`hanabi_env.outputs.OutputFolder` (:func:`run_folder`): locked while a
run writes it (a second writer is refused, or waits with ``wait=True``), and bound to the run's
settings and seed (a folder of another run is refused; docs/reliability.md).

``summary.json``: ``{"format": "hanabi-adhoc/qd-summary", "version": 1, "config": {...},
"candidates": int, "elapsed_s": float, "candidates_per_s": float, "games_per_s": float,
"counters": {...RunCounters...}, "archive_stats": {...ArchiveStats...}, "reeval_games": int,
"reeval_stats": {...} | null, "best": {"cell", "name", "solution", "objective",
"reeval_objective"} | null, "backend": str, "workers": int}``. Coverage, max and mean are the
papers' table entries (docs/papers.md §3).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from hanabi_env.outputs import OutputFolder
from hanabi_env.validate import (
    check_bool,
    check_optional_int,
    check_path_writable,
    check_str,
    check_workers,
    type_error,
)
from qd.analysis import reevaluate
from qd.config import RESULT_FIELDS, MapElitesConfig
from qd.evaluator import Backend, make_backend
from qd.io import save_archive
from qd.measures import Measure
from qd.scheduler import CheckpointError, MapElites

__all__ = ["SUMMARY_FORMAT", "run_folder", "run_map_elites", "summarize", "write_outputs"]

SUMMARY_FORMAT = "hanabi-adhoc/qd-summary"


def summarize(loop: MapElites, backend: Backend | None = None) -> dict:
    """The summary dict of a run (schema in the module docstring)."""
    archive = loop.archive
    reeval = "reeval_objective" in archive.fields
    best = archive.best_elite()
    elapsed = loop.elapsed
    return {
        "format": SUMMARY_FORMAT,
        "version": 1,
        "config": loop.config.as_dict(),
        "candidates": loop.n_evaluated,
        "elapsed_s": elapsed,
        "candidates_per_s": loop.n_evaluated / elapsed if elapsed else math.nan,
        "games_per_s": loop.counters.games / elapsed if elapsed else math.nan,
        "counters": dataclasses.asdict(loop.counters),
        "archive_stats": archive.stats().as_dict(),
        "reeval_games": loop.config.reeval_games if reeval else 0,
        "reeval_stats": archive.stats("reeval_objective").as_dict() if reeval else None,
        "best": None
        if best is None
        else {
            "cell": int(best["cell"]),
            "name": archive.cell_name(int(best["cell"])),
            "solution": [int(g) for g in best["solution"]],
            "objective": float(best["objective"]),
            "reeval_objective": float(best["reeval_objective"]) if reeval else None,
        },
        "backend": type(backend).__name__ if backend is not None else None,
        "workers": backend.workers if backend is not None else None,
    }


def run_folder(
    out_dir: str | Path, config: MapElitesConfig, wait: bool = False, adopt: bool = False
) -> OutputFolder:
    """The :class:`~hanabi_env.outputs.OutputFolder` of a MAP-Elites run (not yet entered).

    Its kind is ``"map-elites"``, its configuration the fields of ``config`` that change
    results (:data:`qd.config.RESULT_FIELDS`) and its seed ``config.seed``: a folder of a run
    with other settings is refused (docs/reliability.md), and so is a folder with files but no
    manifest unless ``adopt`` (a run made before manifests; :class:`~hanabi_env.outputs
    .OutputFolder`).
    """
    settings = config.as_dict()
    bound = {k: settings[k] for k in RESULT_FIELDS}
    return OutputFolder(
        out_dir, kind="map-elites", config=bound, seed=config.seed, wait=wait, adopt=adopt
    )


def write_outputs(
    loop: MapElites, out_dir: str | Path | OutputFolder, backend: Backend | None = None
) -> dict:
    """Write ``archive.json``, ``elites.csv``/``.parquet``, ``summary.json`` and the heatmaps.

    Every file goes through the run's :class:`~hanabi_env.outputs.OutputFolder` (``out_dir``
    itself when it is one, open; else :func:`run_folder` of ``out_dir``, locked meanwhile):
    written atomically and recorded in its manifest. ``summary.json`` comes last. Heatmaps are
    skipped (with a note in the summary) if ``ribs``/``matplotlib`` are missing, the Parquet
    table if ``pyarrow`` is.

    Returns:
        The summary dict.

    Raises:
        FolderBusyError: Another process writes ``out_dir``.
        OutputWriteError: A file could not be written (it is named).
    """
    if not isinstance(out_dir, OutputFolder):
        with run_folder(out_dir, loop.config) as folder:
            return write_outputs(loop, folder, backend)
    folder = out_dir
    summary = summarize(loop, backend)
    save = functools.partial(folder.staged, stage="outputs")
    with save("archive.json") as tmp:
        save_archive(loop.archive, tmp, metadata=summary)
    with save("elites.csv") as tmp:
        loop.archive.to_csv(tmp)
    try:
        with save("elites.parquet") as tmp:
            loop.archive.to_parquet(tmp)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        summary["parquet_error"] = str(exc)
    if loop.archive.measure_dim == 2 and len(loop.archive):
        try:
            from qd.plot import heatmap

            name = loop.config.name
            with save("heatmap_archive.png") as tmp:
                heatmap(loop.archive, tmp, "objective", title=f"{name}: stored objective")
            field = "reeval_objective" if "reeval_objective" in loop.archive.fields else "objective"
            with save("heatmap.png") as tmp:
                heatmap(loop.archive, tmp, field, title=f"{name}: {field}")
        except ImportError as exc:  # pragma: no cover - depends on the environment
            summary["heatmap_error"] = f"{exc} (the qd extra draws it: pip install '.[qd]')"
    folder.write_json("summary.json", summary, stage="outputs")
    return summary


def run_map_elites(
    config: MapElitesConfig,
    out_dir: str | Path | OutputFolder,
    resume: bool = False,
    workers: int | None = None,
    scheduler_address: str | None = None,
    dask: bool = False,
    progress: bool = True,
    measures: Sequence[str | Measure | Callable] | None = None,
    backend: Backend | None = None,
    stop_after: int | None = None,
    wait: bool = False,
    adopt: bool = False,
) -> tuple[MapElites, dict]:
    """Run (or resume) MAP-Elites, re-evaluate the elites and write the outputs.

    Args:
        config: The run configuration.
        out_dir: Output folder (created), or its :class:`~hanabi_env.outputs.OutputFolder`
            (:func:`run_folder`, entered by the caller). It is locked for the run and every
            file is recorded in its manifest (docs/reliability.md).
        resume: Continue from ``out_dir/checkpoint.json`` (it must match ``config``); with no
            checkpoint there yet (a run killed before its first one), start a new run and say
            so (one line on stdout).
        workers: Local threads or Dask LocalCluster workers (None = all local cores).
        scheduler_address: Dask scheduler address (implies the Dask backend).
        dask: Use a Dask LocalCluster.
        progress: Show progress bars.
        measures: Measure overrides (see :class:`~qd.scheduler.MapElites`).
        backend: A ready backend (overrides ``workers``/``scheduler_address``/``dask``; not
            closed here).
        stop_after: Stop after this many candidates (checkpointed; no re-evaluation/outputs).
        wait: When another process writes ``out_dir``, wait for it instead of refusing.
        adopt: Resume in a folder that holds files but no manifest (a run made by
            hanabi-adhoc before 0.2) instead of refusing it (docs/reliability.md §2).

    Returns:
        ``(loop, summary)``; ``summary`` is empty when stopped early.

    Raises:
        TypeError: An argument of the wrong type (checked before any work).
        ValueError: ``workers`` or ``stop_after`` < 1, or ``out_dir`` not a writable folder
            path.
        CheckpointError: ``resume`` with an invalid or mismatching checkpoint, or a
            checkpoint already in ``out_dir`` without ``resume``.
        ResultFileError: ``out_dir`` holds a run with other settings (another seed, ...), or
            files but no manifest (without ``adopt``).
        FolderBusyError: Another process writes ``out_dir`` (without ``wait``).
        OutputWriteError: A file could not be written (e.g. a full disk; it is named).
    """
    if not isinstance(config, MapElitesConfig):
        raise type_error("config", "a MapElitesConfig", config)
    run = _RunSettings(
        resume=resume,
        workers=workers,
        scheduler_address=scheduler_address,
        dask=dask,
        progress=progress,
        measures=measures,
        backend=backend,
        stop_after=stop_after,
        wait=wait,
        adopt=adopt,
    )
    if isinstance(out_dir, OutputFolder):
        folder_cm: contextlib.AbstractContextManager = contextlib.nullcontext(out_dir)
    else:
        out = check_path_writable("out_dir", out_dir)
        folder_cm = run_folder(out, config, run.wait, run.adopt)
    with folder_cm as folder:
        return _run(config, folder, run)


@dataclasses.dataclass(frozen=True)
class _RunSettings:
    """The settings of :func:`run_map_elites` but ``config`` and ``out_dir``, checked once.

    Its fields are :func:`run_map_elites`'s keywords, with their meaning and defaults; the
    inner functions take this object and trust it.

    Raises:
        TypeError: A field of the wrong type (the message names it).
        ValueError: ``workers`` or ``stop_after`` < 1.
    """

    resume: bool = False
    workers: int | None = None
    scheduler_address: str | None = None
    dask: bool = False
    progress: bool = True
    measures: Sequence[str | Measure | Callable] | None = None
    backend: Backend | None = None
    stop_after: int | None = None
    wait: bool = False
    adopt: bool = False

    def __post_init__(self) -> None:
        checked = {
            "wait": check_bool("wait", self.wait),
            "adopt": check_bool("adopt", self.adopt),
            "resume": check_bool("resume", self.resume),
            "workers": check_workers("workers", self.workers),
        }
        if self.scheduler_address is not None:
            check_str("scheduler_address", self.scheduler_address)
        checked["dask"] = check_bool("dask", self.dask)
        checked["progress"] = check_bool("progress", self.progress)
        measures = self.measures
        if measures is not None and (
            isinstance(measures, (str, bytes)) or not isinstance(measures, Sequence)
        ):
            raise type_error("measures", "a sequence of measures or None", measures)
        if self.backend is not None and not isinstance(self.backend, Backend):
            raise type_error("backend", "a qd.evaluator.Backend or None", self.backend)
        checked["stop_after"] = check_optional_int("stop_after", self.stop_after, 1)
        for name, value in checked.items():
            object.__setattr__(self, name, value)


def _run(
    config: MapElitesConfig, folder: OutputFolder, run: _RunSettings
) -> tuple[MapElites, dict]:
    """:func:`run_map_elites` in its locked folder (arguments checked)."""
    ckpt = folder.file("checkpoint.json")
    resume = run.resume
    if not resume and ckpt.exists():
        raise CheckpointError(
            f"{ckpt} exists: pass resume=True (--resume) to continue it, or use another out_dir"
        )
    if resume and not ckpt.exists():
        print(f"no checkpoint in {folder.path} yet: starting a new run", flush=True)
        resume = False
    folder.expect("checkpoint.json", stage="search", hashed=False)  # self-checking
    own = run.backend is None
    backend = run.backend or make_backend(run.workers, run.scheduler_address, run.dask)
    try:
        if resume:
            loop = MapElites.from_checkpoint(ckpt, config, backend, run.measures)
        else:
            loop = MapElites(config, backend, run.measures)
        loop.run(progress=run.progress, checkpoint=ckpt, stop_after=run.stop_after)
        if not loop.done:
            return loop, {}
        if config.reeval_games > 0:
            reevaluate(
                loop.archive,
                config.reeval_games,
                config.seed,
                config.players,
                config.scoring,
                backend,
                loop.measures,
            )
        summary = write_outputs(loop, folder, backend)
    finally:
        if own:
            backend.close()
    return loop, summary
