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
    timing.json                   compute time of every finished unit of work (all invocations),
                                  and the time spent compiling kernels (apart from it)
    runs/run<i>/                  MAP-Elites outputs (archive.json, elites.csv, summary.json, ...)
    tables/matchups_run<i>.csv    match-up tables (qd.analysis.MATCHUP_COLUMNS)
    tables/response_run<i>.csv    I(R=H=run i) (meta.table.TABLE_COLUMNS)
    tables/oracle_run<i>_run<j>.csv  I(R=run i, E=run j)
    meta/<H>__<E>/evaluation.json, games.csv   meta-agent evaluations
    report/summary.md, report/tables/*.csv, report/figures/*.png

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
import functools
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.reference import RULESETS
from hanabi_adhoc.report import write_report
from hanabi_env.config import check_field
from meta.evaluate import ALL_VARIANTS

DEFAULT_VARIANTS = ("adaptive", "generalist", "oracle", "random", "response-adaptive")
"""The Bayesian meta-agent's four variants ([Bayes21]) and [ToG20]'s adaptive response-table
agent."""

COMPILE_STEPS = ("rule games", "meta")
"""The warm-up steps (:mod:`hanabi_adhoc.warmup`) whose kernels the stages use: compiled (on a
cold cache) before the first stage and timed apart from the study's compute time."""

__all__ = ["PIPELINE_CONFIGS", "PipelineConfig", "get_pipeline_config", "run_pipeline"]

PIPELINE_FORMAT = "hanabi-adhoc/pipeline"


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
        """Validate (ValueError naming the parameter)."""
        from qd.config import CONFIGS

        object.__setattr__(self, "variants", tuple(str(v) for v in self.variants))

        check = functools.partial(check_field, self)

        check("map_elites", self.map_elites in CONFIGS, f"one of {sorted(CONFIGS)}")
        check("candidates", self.candidates is None or self.candidates >= 1, "None or >= 1")
        check("me_games", self.me_games is None or self.me_games >= 1, "None or >= 1")
        check("runs", self.runs >= 1, ">= 1")
        for name in ("matchup_games", "train_games", "episodes", "games"):
            check(name, getattr(self, name) >= 1, ">= 1")
        check(
            "variants",
            bool(self.variants) and set(self.variants) <= set(ALL_VARIANTS),
            f"a non-empty subset of {ALL_VARIANTS}",
        )
        check("scoring", self.scoring in ("lenient", "strict"), "'lenient', 'strict'")
        check("ruleset", self.ruleset in RULESETS, "'corrected', 'reference'")

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


def _write_json(path: Path, obj) -> None:
    from qd.io import atomic_write_json

    atomic_write_json(path, obj)


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


def _check_manifest(out: Path, config: PipelineConfig) -> None:
    path = out / "pipeline.json"
    doc = {"format": PIPELINE_FORMAT, "version": 1, "config": config.as_dict()}
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise ValueError(
                f"{path} is not valid JSON ({err}); remove it or use another out_dir"
            ) from err
        old_config = old.get("config")
        if isinstance(old_config, dict) and "ruleset" not in old_config:
            # written before the ruleset existed: everything then ran corrected
            old_config = {**old_config, "ruleset": "corrected"}
        if isinstance(old_config, dict) and old_config["ruleset"] != config.ruleset:
            raise ValueError(
                f"{out} holds a study run in the {old_config['ruleset']!r} ruleset, not "
                f"{config.ruleset!r}: its populations, tables and evaluations cannot be resumed "
                f"in another ruleset; use another out_dir, or ruleset={old_config['ruleset']!r} "
                f"(--ruleset {old_config['ruleset']}) to resume it"
            )
        if old_config != doc["config"]:
            raise ValueError(
                f"{out} holds a pipeline with another configuration ({old.get('config')}); "
                "use another out_dir or the same settings to resume"
            )
    else:
        out.mkdir(parents=True, exist_ok=True)
        _write_json(path, doc)


TIMING_FORMAT = "hanabi-adhoc/pipeline-timing"


class Timing:
    """Compute time of each finished unit of work, kept in ``out/timing.json``.

    Units are ``"populations/run<i>"``, ``"matchups/run<i>"`` and ``"meta/run<h>__run<e>"``. A
    unit is recorded when it finishes (so a later kill loses nothing recorded); a unit loaded
    from an earlier invocation keeps its recorded time. A MAP-Elites run resumed from its
    checkpoint counts the search time stored in the checkpoint too. ``"compile/invocation<n>"``
    is the time invocation n spent compiling kernels (:mod:`hanabi_adhoc.warmup`), reported
    apart from the compute time.
    """

    def __init__(self, out: Path):
        self.path = out / "timing.json"
        self.units: dict[str, dict] = {}
        self.invocations = 0
        if self.path.exists():
            try:
                doc = json.loads(self.path.read_text())
                self.units = dict(doc.get("units") or {})
                self.invocations = int(doc.get("invocations") or 0)
            except (json.JSONDecodeError, TypeError, ValueError):
                self.units, self.invocations = {}, 0
        self.invocations += 1
        self.computed: list[str] = []
        self.loaded: list[str] = []
        self._save()

    def _save(self) -> None:
        _write_json(
            self.path,
            {
                "format": TIMING_FORMAT,
                "version": 1,
                "invocations": self.invocations,
                "units": self.units,
            },
        )

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
        return sum(self.stage_seconds(s) for s in ("populations", "matchups", "meta"))

    def unknown(self) -> list[str]:
        return sorted(k for k, u in self.units.items() if u.get("seconds") is None)

    def resumed_units(self) -> list[str]:
        return sorted(k for k, u in self.units.items() if u.get("resumed"))


def _checkpoint_elapsed(path: Path) -> float:
    """Search time stored in a MAP-Elites checkpoint (0 when unreadable)."""
    try:
        return float(json.loads(path.read_text())["payload"].get("elapsed") or 0.0)
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return 0.0


# --------------------------------------------------------------------------------------------
# stages
# --------------------------------------------------------------------------------------------


def _populations(out, config, runner, quiet, timing) -> list:
    from qd.io import load_archive
    from qd.run import run_map_elites

    archives = []
    for r in range(config.runs):
        run_dir = out / "runs" / f"run{r}"
        if (run_dir / "summary.json").exists() and (run_dir / "archive.json").exists():
            _say(f"[populations] run{r}: done earlier, loading {run_dir}", quiet)
            archive = load_archive(run_dir / "archive.json")
            made = "reference" if archive.binning == "reference" else "corrected"
            if made != config.ruleset:
                raise ValueError(
                    f"{run_dir} holds a MAP-Elites run made in the {made!r} ruleset, not "
                    f"{config.ruleset!r}; use another out_dir"
                )
            archives.append(archive)
            try:
                fallback = json.loads((run_dir / "summary.json").read_text()).get("elapsed_s")
            except (OSError, json.JSONDecodeError):
                fallback = None
            timing.loaded_earlier(f"populations/run{r}", fallback)
            continue
        resume = (run_dir / "checkpoint.json").exists()
        before = _checkpoint_elapsed(run_dir / "checkpoint.json") if resume else 0.0
        t0 = time.perf_counter()
        me = config.map_elites_config(r)
        _say(
            f"[populations] run{r}: MAP-Elites {me.name}, {me.candidates} candidates × "
            f"{me.games} games, seed {me.seed}, {me.ruleset} ruleset"
            f"{' (resuming)' if resume else ''}",
            quiet,
        )
        loop, _ = run_map_elites(
            me, run_dir, resume=resume, progress=not quiet, backend=runner.backend()
        )
        archives.append(loop.archive)
        timing.record(f"populations/run{r}", before + time.perf_counter() - t0, resume)
    return archives


def _matchups(out, config, archives, runner, quiet, timing) -> list:
    from qd.analysis import MatchupTable, archive_matchups

    tables = []
    for r, archive in enumerate(archives):
        path = out / "tables" / f"matchups_run{r}.csv"
        if path.exists():  # validated whole: the elites it must hold and its game count
            ids = [f"run{r}:{archive.cell_name(int(c))}" for c in archive.occupied_cells()]
            tables.append(MatchupTable.from_csv(path, ids=ids, games=config.matchup_games))
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
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        t.to_csv(tmp)
        tmp.replace(path)
        tables.append(t)
        timing.record(f"matchups/run{r}", time.perf_counter() - t0)
    return tables


def _response_table(path, responses, r_ids, hyps, h_ids, config, runner, quiet, desc):
    from tqdm.auto import tqdm

    from meta.table import build_table

    total = len(responses) * len(hyps) * config.train_games
    with tqdm(total=total, desc=desc, unit="game", disable=quiet) as bar:
        return build_table(
            responses,
            hyps,
            config.train_games,
            config.seed,
            r_ids,
            h_ids,
            scoring=config.scoring,
            path=path,
            workers=runner.workers,
            progress=bar.update,
            backend=runner.backend(),
        )


def _pool_pairs(n_runs: int) -> list[tuple[int, int]]:
    """(H run, E run) pairs: every run in distribution, then run i vs run i+1 out of it."""
    pairs = [(i, i) for i in range(n_runs)]
    if n_runs > 1:
        pairs += [(i, (i + 1) % n_runs) for i in range(n_runs)]
    return pairs


def _meta(out, config, archives, runner, quiet, timing) -> dict[tuple[int, int], dict]:
    from meta.evaluate import evaluate_meta

    pools = [_pool(a, f"run{r}", config.ruleset) for r, a in enumerate(archives)]
    tables = {}
    results = {}
    for h, e in _pool_pairs(len(archives)):
        name = f"run{h}__run{e}"
        folder = out / "meta" / name
        if (folder / "evaluation.json").exists() and (folder / "games.csv").exists():
            _say(f"[meta] H=run{h}, E=run{e}: done earlier", quiet)
            results[(h, e)] = json.loads((folder / "evaluation.json").read_text())
            timing.loaded_earlier(f"meta/{name}")
            continue
        t0 = time.perf_counter()
        r_pols, r_ids = pools[h]["policies"], pools[h]["ids"]
        if h not in tables:
            tables[h] = _response_table(
                out / "tables" / f"response_run{h}.csv",
                r_pols,
                r_ids,
                r_pols,
                r_ids,
                config,
                runner,
                quiet,
                f"response table run{h}",
            )
        oracle = None
        e_pols, e_ids = pools[e]["policies"], pools[e]["ids"]
        if e != h and ({"oracle", "response-oracle"} & set(config.variants)):
            oracle = _response_table(
                out / "tables" / f"oracle_run{h}_run{e}.csv",
                r_pols,
                r_ids,
                e_pols,
                e_ids,
                config,
                runner,
                quiet,
                f"oracle table run{h}×run{e}",
            )
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
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / ".games.csv.tmp"
        res.to_csv(tmp)
        tmp.replace(folder / "games.csv")
        doc = {**res.to_dict(), "ruleset": config.ruleset}
        _write_json(folder / "evaluation.json", doc)
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
) -> Path:
    """Run (or resume) the whole study and write the report.

    Args:
        config: A :class:`PipelineConfig` or a name of :data:`PIPELINE_CONFIGS`.
        out_dir: Output folder (layout in the module docstring); rerunning with the same
            configuration resumes.
        workers: Local threads of the backend (None = all cores), and local processes of
            the meta-agents' Python path. Results never depend on it.
        scheduler_address: Dask scheduler that plays every stage's games: MAP-Elites,
            match-ups, response tables and the compiled meta-agent evaluation (one backend,
            :mod:`agents.backend`). Results are identical to a local run.
        quiet: No progress bars or stage messages.
        stop_after: Stop after this stage (``"populations"``, ``"matchups"``, ``"meta"``);
            None runs everything.

    Returns:
        The path of ``report/summary.md`` (or of ``out_dir`` when stopped early).

    Raises:
        ValueError: Unknown configuration or stage, or ``out_dir`` holding another
            configuration.
    """
    if isinstance(config, str):
        config = get_pipeline_config(config)
    if not isinstance(config, PipelineConfig):
        raise TypeError(f"config must be a PipelineConfig or a name, got {type(config).__name__}")
    stages = ("populations", "matchups", "meta")
    if stop_after is not None and stop_after not in stages:
        raise ValueError(f"stop_after={stop_after!r} is not allowed; allowed: {stages} or None")
    out = Path(out_dir)
    _check_manifest(out, config)
    _say(f"[pipeline] {config.name} configuration, ruleset: {config.ruleset}, folder {out}", quiet)
    timing = Timing(out)
    from hanabi_adhoc.warmup import ensure_compiled

    compiled = ensure_compiled(COMPILE_STEPS, say=(lambda line: None) if quiet else None)
    if compiled > 0:  # kept apart from the stages' compute time
        timing.record_compile(compiled)
    runner = _Runner(workers, scheduler_address)
    try:
        archives = _populations(out, config, runner, quiet, timing)
        if stop_after == "populations":
            return out
        matchups = _matchups(out, config, archives, runner, quiet, timing)
        if stop_after == "matchups":
            return out
        meta_docs = _meta(out, config, archives, runner, quiet, timing)
        if stop_after == "meta":
            return out
    finally:
        runner.close()
    path = write_report(out, config, archives, matchups, meta_docs, timing)
    _say(f"[report] {path}", quiet)
    return path
