"""What a resumed study trusts: its configuration file, timings and stage outputs, checked.

:func:`hanabi_adhoc.study.pipeline.run_pipeline` keeps every file of a study in one
:class:`hanabi_env.outputs.OutputFolder` (lock, ``manifest.json``, atomic writes). A resume
loads the outputs of finished stages through the functions here, which check each file twice
(docs/reliability.md):

* **bound to the run**: the manifest must record the file with its content hash and, for a
  MAP-Elites run's files, the configuration and seed of that run
  (:meth:`~hanabi_env.outputs.OutputFolder.verify`): an edited, swapped-in or foreign file is
  refused;
* **meaningful**: the values must be possible ones (scores within ``[0, 25]``, counts
  non-negative, the elites and partners the study's pools hold), so that a damaged file of a
  folder made before manifests existed is refused too.

Every refusal is a :class:`hanabi_env.outputs.ResultFileError`: one line naming the file and
what to do.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from hanabi_env.outputs import OutputFolder, ResultFileError

__all__ = [
    "PIPELINE_FORMAT",
    "TIMING_FORMAT",
    "Timing",
    "check_pipeline_file",
    "checkpoint_elapsed",
    "load_evaluation",
    "load_run_archive",
]

PIPELINE_FORMAT = "hanabi-adhoc/pipeline"
TIMING_FORMAT = "hanabi-adhoc/pipeline-timing"
MAX_SCORE = 25
"""Highest score of a 5-colour, 5-rank game (every stage of the study plays those)."""
_DELETE = "delete it to recompute it"


def check_pipeline_file(out: Path, config: dict) -> bool:
    """Whether ``out/pipeline.json`` exists, after checking that it holds ``config``.

    Read-only (it runs before the folder is locked, so that a study of another ruleset or
    configuration is refused with the reason). A file written before the ruleset existed holds
    a corrected-ruleset study.

    Args:
        out: The study folder.
        config: :meth:`PipelineConfig.as_dict` of the study asked for.

    Raises:
        ResultFileError: The file is not a pipeline configuration (damaged, ``[]``, ``null``),
            or holds another ruleset or configuration; the message says what to do.
    """
    path = out / "pipeline.json"
    if not path.exists():
        return False
    fix = "remove it or use another out_dir"
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
        raise ResultFileError(f"{path} is not valid JSON ({err}); {fix}") from None
    old_config = old.get("config") if isinstance(old, dict) else None
    if not isinstance(old_config, dict) or old.get("format", PIPELINE_FORMAT) != PIPELINE_FORMAT:
        raise ResultFileError(f"{path} is not a pipeline configuration ({old!r:.60}); {fix}")
    if "ruleset" not in old_config:  # written before the ruleset existed: all ran corrected
        old_config = {**old_config, "ruleset": "corrected"}
    if old_config["ruleset"] != config["ruleset"]:
        made = old_config["ruleset"]
        raise ResultFileError(
            f"{out} holds a study run in the {made!r} ruleset, not {config['ruleset']!r}: its "
            "populations, tables and evaluations cannot be resumed in another ruleset; use "
            f"another out_dir, or ruleset={made!r} (--ruleset {made}) to resume it"
        )
    if old_config != config:
        raise ResultFileError(
            f"{out} holds a pipeline with another configuration ({old.get('config')}); "
            "use another out_dir or the same settings to resume"
        )
    return True


class Timing:
    """Compute time of each finished unit of work, kept in ``timing.json`` of the study folder.

    Units are ``"populations/run<i>"``, ``"matchups/run<i>"`` and ``"meta/run<h>__run<e>"``. A
    unit is recorded when it finishes (so a later kill loses nothing recorded); a unit loaded
    from an earlier invocation keeps its recorded time. A MAP-Elites run resumed from its
    checkpoint counts the search time stored in the checkpoint too. ``"compile/invocation<n>"``
    is the time invocation n spent compiling kernels (:mod:`hanabi_adhoc.warmup`), reported
    apart from the compute time.

    Args:
        folder: The study's open :class:`~hanabi_env.outputs.OutputFolder`.

    Raises:
        ResultFileError: ``timing.json`` is damaged, edited or foreign (delete it: the report
            then gives the time of the units computed from then on).
    """

    def __init__(self, folder: OutputFolder):
        """See the class docstring."""
        self.folder = folder
        self.path = folder.file("timing.json")
        self.units: dict[str, dict] = {}
        self.invocations = 0
        if folder.verify("timing.json"):
            doc = folder.load_json("timing.json")
            try:
                if not isinstance(doc, dict) or doc.get("format") != TIMING_FORMAT:
                    raise TypeError("not a timing document")
                units = dict(doc.get("units") or {})
                for name, unit in units.items():
                    seconds = unit.get("seconds")
                    if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
                        raise ValueError(f"{name} has seconds={seconds!r}")
                invocations = int(doc.get("invocations") or 0)
                if invocations < 0:
                    raise ValueError(f"invocations={invocations}")
            except (TypeError, ValueError, AttributeError) as exc:
                raise ResultFileError(
                    f"{self.path} is not a timing record ({exc}); delete it (the report then "
                    "counts the compute time of the units finished from now on)"
                ) from None
            self.units, self.invocations = units, invocations
        self.invocations += 1
        self.computed: list[str] = []
        self.loaded: list[str] = []
        self._save()

    def _save(self) -> None:
        doc = {
            "format": TIMING_FORMAT,
            "version": 1,
            "invocations": self.invocations,
            "units": self.units,
        }
        self.folder.write_json("timing.json", doc, stage="timing")

    def record(self, unit: str, seconds: float, resumed: bool = False) -> None:
        """``unit`` finished in this invocation after ``seconds`` (plus earlier sessions)."""
        self.units[unit] = {"seconds": float(seconds), "resumed": bool(resumed)}
        self.computed.append(unit)
        self._save()

    def record_compile(self, seconds: float) -> None:
        """This invocation compiled kernels for ``seconds`` (kept apart from compute time)."""
        self.units[f"compile/invocation{self.invocations}"] = {"seconds": float(seconds)}
        self._save()

    def loaded_earlier(self, unit: str, fallback: float | None = None) -> None:
        """``unit`` was finished by an earlier invocation; ``fallback`` if it has no record."""
        self.loaded.append(unit)
        if unit not in self.units:
            self.units[unit] = {
                "seconds": None if fallback is None else float(fallback),
                "resumed": False,
                "estimated": True,
            }
            self._save()

    def stage_seconds(self, stage: str) -> float:
        """Recorded compute time of a stage's units (unknown times count as 0)."""
        return sum(
            float(u.get("seconds") or 0.0)
            for k, u in self.units.items()
            if k.startswith(f"{stage}/")
        )

    def total_seconds(self) -> float:
        """Recorded compute time of the whole study (seconds)."""
        return sum(self.stage_seconds(s) for s in ("populations", "matchups", "meta"))

    def unknown(self) -> list[str]:
        """Units whose compute time is not known."""
        return sorted(k for k, u in self.units.items() if u.get("seconds") is None)

    def resumed_units(self) -> list[str]:
        """Units that were resumed from a checkpoint."""
        return sorted(k for k, u in self.units.items() if u.get("resumed"))


def checkpoint_elapsed(path: Path) -> float:
    """Search time stored in a MAP-Elites checkpoint (0 when unreadable)."""
    try:
        return float(json.loads(path.read_text())["payload"].get("elapsed") or 0.0)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return 0.0


def load_run_archive(folder: OutputFolder, run: str, me_config, ruleset: str):
    """The archive of a finished MAP-Elites run of the study, checked; and its elapsed time.

    Args:
        folder: The study folder.
        run: The run's folder in it (``"runs/run0"``).
        me_config: The run's :class:`qd.config.MapElitesConfig` (its files must be recorded
            with it).
        ruleset: The study's ruleset (the archive's binning must be its).

    Returns:
        ``(archive, elapsed seconds or None)``, or None when the run has not finished.

    Raises:
        ResultFileError: A file edited, swapped in or of another run, an archive that is not
            valid (:func:`qd.io.load_archive`: impossible objectives included), or a summary
            that is not one.
    """
    from qd.io import load_archive

    names = (f"{run}/archive.json", f"{run}/summary.json")
    bind = {"config": me_config.as_dict(), "seed": me_config.seed}
    present = [folder.verify(n, **bind) for n in names]  # every file checked
    if not all(present):
        return None
    try:
        archive = load_archive(folder.file(names[0]))
    except ValueError as exc:
        raise ResultFileError(str(exc)) from None
    made = "reference" if archive.binning == "reference" else "corrected"
    if made != ruleset:
        raise ResultFileError(
            f"{folder.file(run)} holds a MAP-Elites run made in the {made!r} ruleset, not "
            f"{ruleset!r}; use another out_dir"
        )
    summary = folder.load_json(names[1], **bind)
    if not isinstance(summary, dict) or summary.get("format") != "hanabi-adhoc/qd-summary":
        raise ResultFileError(f"{folder.file(names[1])} is not a MAP-Elites summary; {_DELETE}")
    for name in names:
        folder.record(name)
    elapsed = summary.get("elapsed_s")
    return archive, (float(elapsed) if isinstance(elapsed, (int, float)) else None)


def load_evaluation(folder: OutputFolder, name: str, expected: dict) -> dict | None:
    """The ``evaluation.json`` document of a finished meta-agent evaluation, checked.

    The document and its ``games.csv`` must be recorded in the manifest, and agree with each
    other and with the evaluation asked for (:meth:`meta.results.MetaEvaluation.load`: every
    game once, scores in ``[0, 25]``, known partners and responses).

    Args:
        folder: The study folder.
        name: The evaluation's folder in it (``"meta/run0__run1"``).
        expected: The values the document must hold: ``variants``, ``partner_ids``,
            ``response_ids``, ``episodes``, ``games``, ``seed``, ``ruleset``.

    Returns:
        The document, or None when the evaluation has not finished.

    Raises:
        ResultFileError: A file edited, swapped in, damaged or of another evaluation.
    """
    from meta.results import MetaEvaluation

    j_name, g_name = f"{name}/evaluation.json", f"{name}/games.csv"
    present = [folder.verify(j_name), folder.verify(g_name)]  # both checked
    if not all(present):
        return None
    doc = folder.load_json(j_name)
    path = folder.file(j_name)
    for key, value in expected.items():
        if not isinstance(doc, dict) or doc.get(key) != value:
            got = doc.get(key) if isinstance(doc, dict) else None
            raise ResultFileError(
                f"{path} is the evaluation of another study ({key}: {got!r:.60} there, "
                f"{value!r:.60} here); {_DELETE}"
            )
    ev = MetaEvaluation.load(path, folder.file(g_name))
    summary = ev.to_dict()["summary"]
    if json.loads(json.dumps(summary)) != doc.get("summary"):
        raise ResultFileError(f"{path}: its summary disagrees with {g_name}; {_DELETE}")
    folder.record(j_name)
    folder.record(g_name)
    return doc
