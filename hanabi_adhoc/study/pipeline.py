"""The whole study in one call: populations → match-ups → meta-agents → a report folder.

:func:`run_pipeline` chains the stages of the papers' study ([ToG20], [Bayes21];
docs/papers.md §3–4) on one configuration (:data:`PIPELINE_CONFIGS`):

1. **populations** — ``runs`` independent MAP-Elites runs (:func:`qd.run.run_map_elites`,
   communicativeness × IPP, 2-player self-play), each ending with the re-evaluation of its
   elites on common deals;
2. **match-ups** — every ordered pair of each population plays ``matchup_games`` games
   (:func:`qd.analysis.archive_matchups`; intra-population scores, [ToG20] eq. 1, and the mean
   pairwise score, [Bayes21]);
3. **response tables** — I(R, H) with R = H = one population (:func:`meta.table.build_table`),
   and I(R, E) for the Oracle out of distribution;
4. **meta-agent evaluation** — the [Bayes21] protocol (:func:`meta.evaluate.evaluate_meta`;
   k episodes × g games per partner, every variant) **in distribution** (E = H's population)
   and **out of distribution** (E = the next run's population);
5. **report** — ``report/summary.md`` with the tables, ``report/tables/*.csv`` and
   ``report/figures/*.png`` (archive heatmaps, match-up heatmaps, belief evolution, score
   distributions).

Output layout of ``out_dir``::

    pipeline.json                 the configuration (a rerun must use the same one)
    manifest.json                 every file below with its SHA-256, settings and seed
    timing.json                   compute time of every finished unit of work (all invocations),
                                  and the time spent compiling kernels (apart from it)
    runs/run<i>/                  MAP-Elites outputs (archive.json, elites.csv, summary.json, ...)
    tables/matchups_run<i>.csv    match-up tables (qd.analysis.MATCHUP_COLUMNS)
    tables/response_run<i>.csv    I(R=H=run i) (meta.table.TABLE_COLUMNS)
    tables/oracle_run<i>_run<j>.csv  I(R=run i, E=run j)
    meta/<H>__<E>/evaluation.json, games.csv   meta-agent evaluations
    report/summary.md, report/tables/*.csv, report/figures/*.png

**One writer, results bound to the run** (docs/reliability.md): the folder is an
:class:`hanabi_env.outputs.OutputFolder` -- locked while a study writes it, with a
``manifest.json`` recording every file's SHA-256 and the settings and seed that made it; a
resume trusts a finished stage's file only after checking it against the manifest and for
meaning (:mod:`hanabi_adhoc.study.resume`).

**Resumable**: every stage writes its files atomically and is skipped when its output exists;
a killed MAP-Elites run resumes from its checkpoint and response tables from their CSV, so
rerunning the same command finishes the study with the same results as an uninterrupted run.
The compute time of every finished unit of work (a MAP-Elites run, a match-up table, a
meta-agent evaluation) is kept in ``timing.json``, so the report of a resumed study gives the
total compute time of the study, not only that of the last invocation.
Elite ids are prefixed with the run (``"run0:[2,3]"``) so that pools of different runs never
share ids.

**Ruleset** (:attr:`PipelineConfig.ruleset`, docs/rules.md §12): one ruleset for every stage.
With ``"reference"`` the MAP-Elites runs search and bin as the papers' Java code did
(:attr:`qd.config.MapElitesConfig.ruleset`), and the match-ups, response tables and meta-agent
evaluations play the elites as the reference's chromosome agents (fixed hand slots). The
ruleset is part of the configuration in ``pipeline.json``: a folder made in one ruleset is
never resumed in the other (:func:`run_pipeline` refuses, naming both).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.reference import RULESETS
from hanabi_adhoc.study.report import write_report
from hanabi_adhoc.study.resume import (
    PIPELINE_FORMAT,
    Timing,
    check_pipeline_file,
    checkpoint_elapsed,
    load_evaluation,
    load_run_archive,
)
from hanabi_env.outputs import OutputFolder
from hanabi_env.seeding import MASTER_SEED_LIMIT
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_int,
    check_optional_int,
    check_path_writable,
    check_str,
    check_workers,
    type_error,
)
from meta.evaluate import ALL_VARIANTS

DEFAULT_VARIANTS = ("adaptive", "generalist", "oracle", "random", "response-adaptive")
"""The Bayesian meta-agent's four variants ([Bayes21]) and [ToG20]'s adaptive response-table
agent."""

COMPILE_STEPS = ("rule games", "meta")
"""The warm-up steps (:mod:`hanabi_adhoc.warmup`) whose kernels the stages use: compiled (on a
cold cache) before the first stage and timed apart from the study's compute time."""

__all__ = [
    "PIPELINE_CONFIGS",
    "PipelineConfig",
    "Timing",
    "get_pipeline_config",
    "run_pipeline",
]

SEED_LIMIT = MASTER_SEED_LIMIT
"""Master seeds are in ``[0, 2**32)`` (run ``i`` seeds MAP-Elites with ``seed + i``;
:data:`hanabi_env.seeding.MASTER_SEED_LIMIT`)."""
MAX_COUNT = 10**9
"""Largest count of games, candidates or episodes: more could never finish."""
MAX_RUNS = 1000
"""Largest number of MAP-Elites populations of one study."""


@dataclass(frozen=True)
class PipelineConfig:
    """Everything that defines a study run by :func:`run_pipeline`.

    Attributes:
        name: Label.
        map_elites: Name of the MAP-Elites configuration (:data:`qd.config.CONFIGS`).
        candidates: Override of the MAP-Elites candidates (None = the configuration's).
        me_games: Override of the MAP-Elites self-play games per candidate (None = the
            configuration's).
        runs: Independent MAP-Elites populations, >= 1 (3 in [Bayes21]); out-of-distribution
            evaluation needs >= 2.
        seed: Master seed; run ``i`` uses MAP-Elites seed ``seed + i``.
        matchup_games: Games per ordered pair of the match-up tables (400 in [Bayes21]).
        train_games: Games per (r, h) pair of the response tables (400 in [Bayes21]).
        episodes: Episodes per partner and variant, k (200 in [Bayes21]).
        games: Games per episode, g (10 in [Bayes21]).
        variants: Meta-agent variants (:data:`meta.evaluate.ALL_VARIANTS`; default
            :data:`DEFAULT_VARIANTS`).
        scoring: ``"lenient"`` (the papers) or ``"strict"``.
        ruleset: ``"corrected"`` (default) or ``"reference"``: the rule semantics of every
            stage (MAP-Elites search and binning, match-ups, response tables, meta-agent
            games; docs/rules.md §12).
    """

    name: str = "quick"
    map_elites: str = "quick"
    candidates: int | None = None
    me_games: int | None = None
    runs: int = 3
    seed: int = 0
    matchup_games: int = 100
    train_games: int = 50
    episodes: int = 5
    games: int = 10
    variants: tuple[str, ...] = DEFAULT_VARIANTS
    scoring: str = "lenient"
    ruleset: str = "corrected"

    def __post_init__(self) -> None:
        """Validate (TypeError/ValueError naming the parameter); store plain Python values."""
        from qd.config import CONFIGS

        if isinstance(self.variants, (str, bytes)) or not isinstance(self.variants, Sequence):
            raise type_error("variants", "a sequence of variant names", self.variants)
        values = {
            "name": check_str("name", self.name),
            "map_elites": check_choice("map_elites", self.map_elites, sorted(CONFIGS)),
            "candidates": check_optional_int("candidates", self.candidates, 1, MAX_COUNT),
            "me_games": check_optional_int("me_games", self.me_games, 1, MAX_COUNT),
            "runs": check_int("runs", self.runs, 1, MAX_RUNS),
            "seed": check_int("seed", self.seed, 0, SEED_LIMIT - 1, allowed="[0, 2**32)"),
            **{
                name: check_int(name, getattr(self, name), 1, MAX_COUNT)
                for name in ("matchup_games", "train_games", "episodes", "games")
            },
            "variants": tuple(check_choice("variants", v, ALL_VARIANTS) for v in self.variants),
            "scoring": check_choice("scoring", self.scoring, ("lenient", "strict")),
            "ruleset": check_choice("ruleset", self.ruleset, RULESETS),
        }
        variants: tuple[str, ...] = values["variants"]  # type: ignore[assignment]
        if not variants:
            raise ValueError(
                f"variants=() is not allowed; allowed: a non-empty subset of {ALL_VARIANTS}"
            )
        repeated = sorted({v for v in variants if variants.count(v) > 1})
        if repeated:
            raise ValueError(
                f"variants={variants!r} is not allowed; allowed: each variant once "
                f"(repeated: {', '.join(repeated)})"
            )
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def as_dict(self) -> dict:
        """JSON-serialisable fields."""
        d = dataclasses.asdict(self)
        d["variants"] = list(self.variants)
        return d

    def map_elites_config(self, run: int):
        """The :class:`qd.config.MapElitesConfig` of run ``run``."""
        from qd.config import get_config

        over = {"seed": self.seed + run, "scoring": self.scoring, "ruleset": self.ruleset}
        if self.me_games is not None:
            over["games"] = self.me_games
        if self.candidates is not None:
            cfg = get_config(self.map_elites)
            over["candidates"] = self.candidates
            over["random_candidates"] = min(cfg.random_candidates, self.candidates)
        return get_config(self.map_elites, **over)


PIPELINE_CONFIGS: dict[str, PipelineConfig] = {
    "quick": PipelineConfig(),
    "paper": PipelineConfig(
        name="paper",
        map_elites="paper",
        matchup_games=400,
        train_games=400,
        episodes=200,
        games=10,
    ),
}
"""``quick`` (the default: ~10 minutes on 2 cores) and ``paper`` ([Bayes21]: three 5×5 runs
of 10⁶ candidates, 400 games per table pair, k = 200 episodes of g = 10 games)."""


def get_pipeline_config(name: str = "quick", **overrides) -> PipelineConfig:
    """A named configuration with field overrides (None values are ignored).

    Raises:
        ValueError: Unknown name or an invalid override.
        TypeError: Unknown field.
    """
    if name not in PIPELINE_CONFIGS:
        raise ValueError(f"config={name!r} is unknown; allowed: {sorted(PIPELINE_CONFIGS)}")
    over = {k: v for k, v in overrides.items() if v is not None}
    return dataclasses.replace(PIPELINE_CONFIGS[name], **over)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _say(msg: str, quiet: bool) -> None:
    if not quiet:
        print(msg, flush=True)


def _pool(archive, prefix: str, ruleset: str = "corrected") -> dict:
    """Policies, ids, grid cells and self-play (communicativeness, IPP) of an archive's elites.

    The policies are rule agents of ``ruleset`` (reference: the papers' chromosome agents).
    """
    from meta.pools import archive_pool

    cells = archive.occupied_cells()
    pols, ids = archive_pool(archive, f"{prefix}:", ruleset)
    grid = [tuple(int(x) for x in archive.int_to_grid_index(int(c))) for c in cells]
    names = ("reeval_communicativeness", "reeval_ipp")
    if all(n in archive.fields for n in names):
        self_play = np.stack([archive.fields[n][cells] for n in names], axis=1)
    else:
        self_play = archive.measures[cells][:, :2]
    return {"policies": pols, "ids": ids, "cells": grid, "self_play": self_play}


def _check_manifest(out: Path, config: PipelineConfig, folder: OutputFolder | None = None) -> None:
    """Refuse a folder of another study (:func:`hanabi_adhoc.study.resume.check_pipeline_file`).

    With ``folder`` (the study's, open), write ``pipeline.json`` when it is missing and verify
    it against the manifest otherwise.

    Raises:
        ResultFileError: (a ``ValueError``) ``pipeline.json`` damaged, or of another study.
    """
    exists = check_pipeline_file(Path(out), config.as_dict())
    if folder is None:
        return
    if exists and folder.verify("pipeline.json"):
        return
    doc = {"format": PIPELINE_FORMAT, "version": 1, "config": config.as_dict()}
    folder.write_json("pipeline.json", doc, stage="config")


# --------------------------------------------------------------------------------------------
# stages
# --------------------------------------------------------------------------------------------


def _populations(folder, config, runner, quiet, timing) -> list:
    from qd.run import run_map_elites

    archives = []
    for r in range(config.runs):
        run = f"runs/run{r}"
        me = config.map_elites_config(r)
        done = load_run_archive(folder, run, me, config.ruleset)
        if done is not None:
            _say(f"[populations] run{r}: done earlier, loading {folder.file(run)}", quiet)
            archives.append(done[0])
            timing.loaded_earlier(f"populations/run{r}", done[1])
            continue
        run_dir = folder.file(run)
        resume = (run_dir / "checkpoint.json").exists()
        before = checkpoint_elapsed(run_dir / "checkpoint.json") if resume else 0.0
        t0 = time.perf_counter()
        _say(
            f"[populations] run{r}: MAP-Elites {me.name}, {me.candidates} candidates × "
            f"{me.games} games, seed {me.seed}, {me.ruleset} ruleset"
            f"{' (resuming)' if resume else ''}",
            quiet,
        )
        outputs = (f"{run}/archive.json", f"{run}/summary.json")
        for name in outputs:  # a nested run folder writes them (its own lock and manifest)
            folder.expect(name, stage="populations", config=me.as_dict(), seed=me.seed)
        loop, _ = run_map_elites(
            me, run_dir, resume=resume, progress=not quiet, backend=runner.backend(),
            adopt=folder.adopt,  # a study adopted from before manifests: its runs too
        )  # fmt: skip
        for name in outputs:
            folder.record(name)
        archives.append(loop.archive)
        timing.record(f"populations/run{r}", before + time.perf_counter() - t0, resume)
    return archives


def _matchups(folder, config, archives, runner, quiet, timing) -> list:
    from qd.analysis import MatchupTable, archive_matchups

    tables = []
    for r, archive in enumerate(archives):
        name = f"tables/matchups_run{r}.csv"
        if folder.verify(name):  # validated whole: the elites it must hold and its game count
            ids = [f"run{r}:{archive.cell_name(int(c))}" for c in archive.occupied_cells()]
            tables.append(
                MatchupTable.from_csv(folder.file(name), ids=ids, games=config.matchup_games)
            )
            timing.loaded_earlier(f"matchups/run{r}")
            continue
        t0 = time.perf_counter()
        n = len(archive)
        _say(
            f"[match-ups] run{r}: {n}×{n} ordered pairs × {config.matchup_games} games",
            quiet,
        )
        t = archive_matchups(
            archive,
            games=config.matchup_games,
            seed=config.seed,
            scoring=config.scoring,
            backend=runner.backend(),
            ruleset=config.ruleset,
        )
        t.ids = [f"run{r}:{i}" for i in t.ids]
        with folder.staged(name, stage="matchups") as tmp:
            t.to_csv(tmp)
        tables.append(t)
        timing.record(f"matchups/run{r}", time.perf_counter() - t0)
    return tables


def _response_table(folder, name, responses, r_ids, hyps, h_ids, config, runner, quiet, desc):
    """I(R, H) in ``name``: resumed from its rows (checked by ``build_table``), then recorded."""
    from tqdm.auto import tqdm

    from meta.table import build_table

    folder.verify(name)  # a complete table must be the one recorded; a partial one is checked
    folder.expect(name, stage="response tables")  # by build_table (settings, pools, rows)
    total = len(responses) * len(hyps) * config.train_games
    with tqdm(total=total, desc=desc, unit="game", disable=quiet) as bar:
        table = build_table(
            responses,
            hyps,
            config.train_games,
            config.seed,
            r_ids,
            h_ids,
            scoring=config.scoring,
            path=folder.file(name),
            workers=runner.workers,
            progress=bar.update,
            backend=runner.backend(),
        )
    folder.record(name)
    return table


def _pool_pairs(n_runs: int) -> list[tuple[int, int]]:
    """(H run, E run) pairs: every run in distribution, then run i vs run i+1 out of it."""
    pairs = [(i, i) for i in range(n_runs)]
    if n_runs > 1:
        pairs += [(i, (i + 1) % n_runs) for i in range(n_runs)]
    return pairs


def _meta(folder, config, archives, runner, quiet, timing) -> dict[tuple[int, int], dict]:
    from meta.evaluate import evaluate_meta

    pools = [_pool(a, f"run{r}", config.ruleset) for r, a in enumerate(archives)]
    tables = {}
    results = {}
    for h, e in _pool_pairs(len(archives)):
        name = f"run{h}__run{e}"
        r_pols, r_ids = pools[h]["policies"], pools[h]["ids"]
        e_pols, e_ids = pools[e]["policies"], pools[e]["ids"]
        expected = {
            "variants": list(config.variants),
            "partner_ids": list(e_ids),
            "response_ids": list(r_ids),
            "episodes": config.episodes,
            "games": config.games,
            "seed": config.seed,
            "ruleset": config.ruleset,
        }
        doc = load_evaluation(folder, f"meta/{name}", expected)
        if doc is not None:
            _say(f"[meta] H=run{h}, E=run{e}: done earlier", quiet)
            results[(h, e)] = doc
            timing.loaded_earlier(f"meta/{name}")
            continue
        t0 = time.perf_counter()
        if h not in tables:
            tables[h] = _response_table(
                folder, f"tables/response_run{h}.csv", r_pols, r_ids, r_pols, r_ids, config,
                runner, quiet, f"response table run{h}",
            )  # fmt: skip
        oracle = None
        if e != h and ({"oracle", "response-oracle"} & set(config.variants)):
            oracle = _response_table(
                folder, f"tables/oracle_run{h}_run{e}.csv", r_pols, r_ids, e_pols, e_ids,
                config, runner, quiet, f"oracle table run{h}×run{e}",
            )  # fmt: skip
        kind = "in distribution" if h == e else "out of distribution"
        _say(
            f"[meta] H=run{h}, E=run{e} ({kind}): {len(e_pols)} partners × "
            f"{config.episodes} episodes × {config.games} games × {len(config.variants)} variants",
            quiet,
        )
        res = evaluate_meta(
            tables[h],
            r_pols,
            e_pols,
            e_ids,
            variants=config.variants,
            episodes=config.episodes,
            games=config.games,
            seed=config.seed,
            oracle_table=oracle,
            scoring=config.scoring,
            workers=runner.workers,
            backend=runner.backend(),
            progress=not quiet,
            hypothesis_cells=pools[h]["cells"],
            partner_cells=pools[e]["cells"],
            niche_dims=archives[h].dims,
            self_play=pools[e]["self_play"],
        )
        with folder.staged(f"meta/{name}/games.csv", stage="meta") as tmp:
            res.to_csv(tmp)
        doc = {**res.to_dict(), "ruleset": config.ruleset}
        folder.write_json(f"meta/{name}/evaluation.json", doc, stage="meta")
        results[(h, e)] = doc
        timing.record(f"meta/{name}", time.perf_counter() - t0)
    return results


class _Runner:
    """The study's one backend (:mod:`agents.backend`), started at its first use.

    Every stage plays on it: local threads (``workers``), or the Dask cluster at
    ``scheduler_address``. ``workers`` also sizes the local processes of the meta-agents'
    Python path (pools with policies that are not plain rule agents).
    """

    def __init__(self, workers: int | None, scheduler_address: str | None):
        from agents.backend import default_workers

        self.workers = max(1, int(workers or default_workers()))
        self.scheduler_address = scheduler_address
        self._backend = None

    def backend(self):
        """The backend (created on the first call)."""
        if self._backend is None:
            from agents.backend import make_backend

            self._backend = make_backend(self.workers, self.scheduler_address)
        return self._backend

    def close(self) -> None:
        """Release the backend's workers (idempotent)."""
        if self._backend is not None:
            self._backend.close()
            self._backend = None


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def run_pipeline(
    config: PipelineConfig | str = "quick",
    out_dir: str | Path = "runs/pipeline",
    workers: int | None = None,
    scheduler_address: str | None = None,
    quiet: bool = False,
    stop_after: str | None = None,
    wait: bool = False,
    adopt: bool = False,
) -> Path:
    """Run (or resume) the whole study and write the report.

    The folder is written by one process at a time (its lock), and every file a resume loads
    is checked against the folder's manifest and for meaning (:mod:`hanabi_adhoc.study.resume`,
    docs/reliability.md).

    Args:
        config: A :class:`PipelineConfig` or a name of :data:`PIPELINE_CONFIGS`.
        out_dir: Output folder (layout in the module docstring); rerunning with the same
            configuration resumes.
        workers: Local threads of the backend (None = all cores), and local processes of
            the meta-agents' Python path, >= 1. Results never depend on it.
        scheduler_address: Dask scheduler that plays every stage's games: MAP-Elites,
            match-ups, response tables and the compiled meta-agent evaluation (one backend,
            :mod:`agents.backend`). Results are identical to a local run.
        quiet: No progress bars or stage messages.
        stop_after: Stop after this stage (``"populations"``, ``"matchups"``, ``"meta"``);
            None runs everything.
        wait: When another process writes ``out_dir``, wait for it instead of refusing.
        adopt: Resume a study folder made before manifests existed (hanabi-adhoc < 0.2: files
            but no ``manifest.json``), recording its files as they are; without it such a
            folder is refused, since its files may be the user's (docs/reliability.md §2).

    Returns:
        The path of ``report/summary.md`` (or of ``out_dir`` when stopped early).

    Raises:
        TypeError: An argument of the wrong type.
        ValueError: Unknown configuration or stage, or ``workers`` < 1.
        ResultFileError: (a ``ValueError``) ``out_dir`` holds another study, or a file of it
            is damaged, edited, swapped in or foreign (the message names it), or files but no
            manifest (without ``adopt``).
        FolderBusyError: (an ``OSError``) Another process writes ``out_dir`` (without
            ``wait``).
        OutputWriteError: (an ``OSError``) A file cannot be written (e.g. a full disk).
    """
    if isinstance(config, str):
        config = get_pipeline_config(config)
    if not isinstance(config, PipelineConfig):
        raise type_error("config", "a PipelineConfig or a name", config)
    stages = ("populations", "matchups", "meta")
    if stop_after is not None and stop_after not in stages:
        raise ValueError(f"stop_after={stop_after!r} is not allowed; allowed: {stages} or None")
    workers = check_workers("workers", workers)
    if scheduler_address is not None:
        check_str("scheduler_address", scheduler_address)
    quiet, wait = check_bool("quiet", quiet), check_bool("wait", wait)
    adopt = check_bool("adopt", adopt)
    out = check_path_writable("out_dir", out_dir)
    _check_manifest(out, config)  # read-only: another study is refused before any lock
    study = OutputFolder(
        out, kind="pipeline", config=config.as_dict(), seed=config.seed, wait=wait, adopt=adopt
    )
    with study as folder:
        _check_manifest(out, config, folder)
        _say(f"[pipeline] {config.name} configuration, ruleset: {config.ruleset}, folder {out}",
             quiet)  # fmt: skip
        timing = Timing(folder)
        _compile_kernels(timing, quiet)
        runner = _Runner(workers, scheduler_address)
        try:
            results = _stages(folder, config, runner, quiet, timing, stop_after)
        finally:
            runner.close()
        if results is None:
            return out
        path = write_report(out, config, *results, timing, folder)
    _say(f"[report] {path}", quiet)
    return path


def _compile_kernels(timing: Timing, quiet: bool) -> None:
    """Compile the stages' kernels on a cold cache, timed apart from their compute time."""
    from hanabi_adhoc.warmup import ensure_compiled

    compiled = ensure_compiled(COMPILE_STEPS, say=(lambda line: None) if quiet else None)
    if compiled > 0:  # kept apart from the stages' compute time
        timing.record_compile(compiled)


def _stages(
    folder: OutputFolder,
    config: PipelineConfig,
    runner: _Runner,
    quiet: bool,
    timing: Timing,
    stop_after: str | None,
) -> tuple[list, list, dict[tuple[int, int], dict]] | None:
    """The study's stages in order: ``(archives, matchups, meta_docs)``, or None when stopped.

    ``stop_after`` (``"populations"``, ``"matchups"`` or ``"meta"``) stops after that stage.
    """
    archives = _populations(folder, config, runner, quiet, timing)
    if stop_after == "populations":
        return None
    matchups = _matchups(folder, config, archives, runner, quiet, timing)
    if stop_after == "matchups":
        return None
    meta_docs = _meta(folder, config, archives, runner, quiet, timing)
    if stop_after == "meta":
        return None
    return archives, matchups, meta_docs
