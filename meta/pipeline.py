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
    timing.json                   compute time of every finished unit of work (all invocations)
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

import csv
import dataclasses
import functools
import json
import math
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.policy import RuleAgent
from agents.reference import RULESETS
from hanabi_env.config import check_field
from meta.evaluate import ALL_VARIANTS

DEFAULT_VARIANTS = ("adaptive", "generalist", "oracle", "random", "response-adaptive")
"""The Bayesian meta-agent's four variants ([Bayes21]) and [ToG20]'s adaptive response-table
agent."""

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
    cells = archive.occupied_cells()
    ids = [f"{prefix}:{archive.cell_name(int(c))}" for c in cells]
    pols = [
        RuleAgent([int(g) for g in archive.solution[c]], name=i, ruleset=ruleset)
        for c, i in zip(cells, ids, strict=True)
    ]
    grid = [tuple(int(x) for x in archive.int_to_grid_index(int(c))) for c in cells]
    names = ("reeval_communicativeness", "reeval_ipp")
    if all(n in archive.fields for n in names):
        self_play = np.stack([archive.fields[n][cells] for n in names], axis=1)
    else:
        self_play = archive.measures[cells][:, :2]
    return {"policies": pols, "ids": ids, "cells": grid, "self_play": self_play}


def _fmt(mean: float, sem: float) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "n/a"
    if sem is None or (isinstance(sem, float) and math.isnan(sem)):
        return f"{mean:.2f}"
    return f"{mean:.2f} ± {sem:.2f}"


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


class _Timing:
    """Compute time of each finished unit of work, kept in ``out/timing.json``.

    Units are ``"populations/run<i>"``, ``"matchups/run<i>"`` and ``"meta/run<h>__run<e>"``. A
    unit is recorded when it finishes (so a later kill loses nothing recorded); a unit loaded
    from an earlier invocation keeps its recorded time. A MAP-Elites run resumed from its
    checkpoint counts the search time stored in the checkpoint too.
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
        from agents.evaluate import default_workers

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
# report
# --------------------------------------------------------------------------------------------


def _read_games(path: Path) -> dict[str, np.ndarray]:
    """Variant → episode mean scores from a ``games.csv``."""
    per: dict[str, dict[tuple[str, int], list[int]]] = {}
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            key = (row["partner_id"], int(row["episode"]))
            per.setdefault(row["variant"], {}).setdefault(key, []).append(int(row["score"]))
    return {v: np.array([np.mean(s) for s in d.values()]) for v, d in per.items()}


def _niche(archive, cell_id: str, compact: bool = False) -> str:
    """A cell id (``"run0:[1,3]"``) named by its bin ranges (:func:`qd.plot.cell_label`)."""
    from qd.plot import cell_label

    return cell_label(cell_id, archive.dims, archive.ranges, archive.measure_names, compact)


NICHE_NAMES = (
    "Elites are named by the bin ranges of their niche: `C 0.2–0.4 / IPP 0.6–0.8` is the elite "
    "whose self-play communicativeness is in [0.2, 0.4) and whose IPP (information per play) is "
    "in [0.6, 0.8) (docs/rules.md §5 and §7.1); where space is tight the same niche is written "
    "`c.2–.4 i.6–.8`. In the CSV files the elite ids are `run<i>:[a,b]`: run i, "
    "communicativeness bin a, IPP bin b, counted from 0."
)


def _figures(out, report, archives, matchups, meta_docs, config) -> list[tuple[str, str, str]]:
    """Write the PNG figures; returns (path relative to ``report``, title, caption) each."""
    from qd.plot import heatmap, matchup_heatmap

    fig_dir = report / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    written: list[tuple[Path, str, str]] = []
    for r, archive in enumerate(archives):
        reeval = "reeval_objective" in archive.fields
        field = "reeval_objective" if reeval else "objective"
        if archive.measure_dim == 2 and len(archive):
            p = fig_dir / f"archive_run{r}.png"
            what = "re-evaluated self-play score" if reeval else "self-play score (search games)"
            heatmap(archive, p, field, title=f"run{r}: {what} of each niche's elite")
            d1, d2 = archive.dims
            written.append(
                (
                    p,
                    f"MAP-Elites archive of run{r}",
                    f"Each square is a niche of the {d1} × {d2} grid: x = communicativeness, "
                    "y = IPP (information per play) of the elite's self-play, both in [0, 1] "
                    "(docs/rules.md §5). Colour and number = the "
                    f"{what} of the niche's elite (points, 0–25; brighter is better); a blank "
                    "square is a niche where no elite was found. The title gives coverage "
                    "(filled niches), best and mean. A good population fills most niches "
                    "(the papers: 22 of 25) with high scores (best 19.5–20.0, docs/papers.md "
                    "§3).",
                )
            )
    for r, t in enumerate(matchups):
        p = fig_dir / f"matchups_run{r}.png"
        a = archives[r]
        matchup_heatmap(
            t,
            p,
            title=f"run{r}: mean score of every pair of elites",
            dims=a.dims,
            ranges=a.ranges,
            measures=a.measure_names,
        )
        written.append(
            (
                p,
                f"Match-ups within run{r}",
                f"Row = elite in seat 0, column = elite in seat 1 (its partner); colour = the "
                f"pair's mean score over {t.games} games (points, 0–25; brighter is better). "
                "Both axes list the elites in the same order, by intra-population score, best "
                "first: the top row and left column are the Generalist, and the diagonal is "
                "self-play. Bright rows and columns are elites that cooperate with many "
                "partners; a bright diagonal over a dark background means specialists that "
                "score well only with copies of themselves. The title gives the mean pairwise "
                "score. " + NICHE_NAMES.split(" In the CSV")[0],
            )
        )
    from meta.evaluate import MetaEvaluation
    from meta.plot import plot_belief_evolution, plot_niche_estimates, plot_variant_scores

    evaluations = {
        f"H=run{h}, E=run{e}": MetaEvaluation.load(
            out / "meta" / f"run{h}__run{e}" / "evaluation.json",
            out / "meta" / f"run{h}__run{e}" / "games.csv",
        )
        for h, e in meta_docs
    }
    for (h, e), ev in zip(meta_docs, evaluations.values(), strict=True):
        if h != e:
            continue
        if "adaptive" in ev.variants:
            # the population's best elite (re-evaluated self-play) as the example partner
            arch = archives[e]
            values = arch.fields.get("reeval_objective", arch.objective)[arch.occupied_cells()]
            best = int(np.nanargmax(values))
            p = fig_dir / f"belief_run{h}.png"
            plot_belief_evolution(
                ev, p, partner=best, variant="adaptive", title=f"run{h}, best elite as partner"
            )
            written.append(
                (
                    p,
                    f"Belief of the adaptive meta-agent, run{h}",
                    "How the Bayesian adaptive meta-agent ([Bayes21], docs/papers.md §4.2) "
                    f"updates its belief during the first episode ({config.games} games) with "
                    f"run{h}'s best elite as partner. Top: the belief (colour, 0–1) in each "
                    "hypothesis h (rows: the elites of H, named by niche) in force during each "
                    "game (columns); the red outline marks the partner's true hypothesis; "
                    "above each column, the response the meta-agent played (compact niche "
                    "name) and the score of that game. Bottom: the belief in the true "
                    "hypothesis (red) and the largest belief (grey) per game. A good result: "
                    "the red row turns bright and the red line climbs towards 1 within a few "
                    "games.",
                )
            )
        if ev.self_play is not None and "response-adaptive" in ev.variants:
            p = fig_dir / f"niche_estimates_run{h}.png"
            plot_niche_estimates(
                ev, p, variant="response-adaptive", title=f"run{h}: niche estimates"
            )
            written.append(
                (
                    p,
                    f"Niche estimates of the response-adaptive meta-agent, run{h}",
                    "Each black dot is a partner's behaviour in self-play (x = communicativeness, "
                    "y = IPP), i.e. where its elite sits in the archive; the arrow leads to the "
                    "orange dot, the same partner's behaviour observed while it played with the "
                    "response-adaptive meta-agent ([ToG20], docs/papers.md §4.1), pooled over "
                    "responses. Grey lines are the niche boundaries. Short arrows that stay in "
                    "their square mean the partner behaves as in self-play, so its niche can be "
                    "estimated online; the title gives the mean absolute errors ([ToG20] "
                    "reported 0.11 for communicativeness and 0.27 for IPP).",
                )
            )
    if evaluations:
        p = fig_dir / "variant_scores.png"
        plot_variant_scores(evaluations, p, title="meta-agents: mean episode score")
        written.append(
            (
                p,
                "Meta-agent scores",
                "Mean episode score (points, ± s.e.m. over the partners' episodes) of each "
                "meta-agent variant, one group of bars per pool pair: H = the run whose elites "
                "are the meta-agent's hypotheses and responses, E = the run whose elites are "
                "the partners (H = E: in distribution; H ≠ E: out of distribution). Higher is "
                "better; [Bayes21] expects Oracle ≥ Adaptive ≥ Generalist, with Random lowest.",
            )
        )
    # score distributions: episode scores per variant and pool pair
    pairs = list(meta_docs)
    if pairs:
        from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

        fig = Figure(figsize=(3.2 * len(pairs) + 1, 4.4))
        axes = fig.subplots(1, len(pairs), sharey=True, squeeze=False)
        for ax, (h, e) in zip(axes[0], pairs, strict=True):
            eps = _read_games(out / "meta" / f"run{h}__run{e}" / "games.csv")
            names = [v for v in config.variants if v in eps]
            ax.boxplot([eps[v] for v in names], showmeans=True)
            ax.set_xticks(range(1, len(names) + 1), names, rotation=45, ha="right", fontsize=9)
            ax.set_title(f"H=run{h}, E=run{e}", fontsize=10)
        axes[0][0].set_ylabel("episode score (points)")
        fig.suptitle(
            "Meta-agent episode scores (box: quartiles, line: median, triangle: mean)",
            fontsize=11,
        )
        fig.tight_layout()
        p = fig_dir / "score_distributions.png"
        fig.savefig(p, dpi=110)
        written.append(
            (
                p,
                "Distribution of the episode scores",
                "One panel per pool pair (H, E as in the previous figure), one box per "
                "variant over all its episodes (every partner of E × "
                f"{config.episodes} episodes): the box spans the middle half of the episode "
                "scores, the line is the median, the triangle the mean, the whiskers reach "
                "the most extreme scores within 1.5 box lengths and circles are the scores "
                "beyond. Higher boxes are better; a tall box means the variant's score "
                "depends strongly on the partner.",
            )
        )
    return [(str(p.relative_to(report)), t, c) for p, t, c in written]


DEFINITIONS = (
    "Each statistic has one name, used in the tables, the figures and the CSV files:",
    "",
    "- **self-play score** of an elite: its mean score when paired with a copy of itself; the "
    "**re-evaluated self-play score** is measured after the search on {reeval} new games with "
    "common deals, and is what coverage, best, mean and QD score use;",
    "- **intra-population score** of an elite ([ToG20] eq. 1, docs/papers.md §4.1): its mean "
    "score over its 2n − 1 match-ups with the n elites of its own run (either seat, self-play "
    "counted once); the elite with the highest one is the run's **Generalist**;",
    "- **mean pairwise score** of a run ([Bayes21], docs/papers.md §3): the mean score over all "
    "n² ordered pairs of the run's elites, self-play included (the mean of a match-up heatmap);",
    "- **episode score**: a meta-agent's mean score over the g = {games} games of one episode "
    "with one partner; results are the mean ± s.e.m. over every partner's {episodes} episodes;",
    "- **H** is the run whose elites are a meta-agent's hypotheses and responses, **E** the run "
    "whose elites are its partners: H = E is *in distribution*, H ≠ E *out of distribution*.",
    "",
)

VARIANT_WORDS = {
    "adaptive": "[Bayes21]'s Bayesian meta-agent: updates a belief over H from the partner's "
    "observed communicativeness and IPP after each game and plays the best response to it",
    "generalist": "never updates: always the best response to the uniform belief over H",
    "oracle": "the best response to the partner's true type (out of distribution: from a "
    "response table measured against E itself)",
    "random": "Random-Response: a uniformly random response for each game",
    "response-adaptive": "[ToG20]'s response-table meta-agent: estimates the partner's niche "
    "from its observed communicativeness and IPP and plays that niche's specialised response",
    "response-generalist": "[ToG20]'s agent that always plays the Generalist",
    "response-oracle": "[ToG20]'s agent given the partner's true niche",
}


RULESET_WORDS = {
    "corrected": "Ruleset: **corrected** (the toolkit's default): the rule agents play with the "
    "rules as docs/rules.md §1–§4 define them, the Java reference's bugs fixed.",
    "reference": "Ruleset: **reference**: every stage (the MAP-Elites search and its binning, "
    "the match-ups, the response tables and the meta-agent games) plays the rule agents "
    "exactly as the papers' Java code ran them, bugs included, in its fixed hand slots "
    "(docs/rules.md §12).",
}


def _time(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.1f} s"


def _timing_lines(timing: _Timing) -> list[str]:
    parts = ", ".join(
        f"{words} {_time(timing.stage_seconds(stage))}"
        for stage, words in (
            ("populations", "populations"),
            ("matchups", "match-ups"),
            ("meta", "meta-agents"),
        )
    )
    text = (
        f"**Compute time of the study: {_time(timing.total_seconds())}** ({parts}; writing "
        "the report is not counted), summed over the units of work of all "
        f"{timing.invocations} invocation(s) of the pipeline on this folder."
    )
    if timing.loaded:
        text += (
            f" This invocation resumed the study: it reused {len(timing.loaded)} unit(s) "
            f"finished earlier and computed {len(timing.computed)}."
        )
    else:
        text += " Everything was computed by this invocation."
    resumed = timing.resumed_units()
    if resumed:
        text += (
            " Resumed from a checkpoint (the search time of earlier sessions is included): "
            + ", ".join(f"`{u}`" for u in resumed)
            + "."
        )
    unknown = timing.unknown()
    if unknown:
        text += (
            " No time was recorded for "
            + ", ".join(f"`{u}`" for u in unknown)
            + " (computed by an older version of the pipeline)."
        )
    return [text, ""]


def _report(out, config, archives, matchups, meta_docs, timing) -> Path:
    report = out / "report"
    tab_dir = report / "tables"
    tab_dir.mkdir(parents=True, exist_ok=True)
    reeval = config.map_elites_config(0).reeval_games
    lines = [
        f"# Hanabi ad-hoc cooperation study — `{config.name}` configuration",
        "",
        f"Output folder `{out}`. Settings: "
        + ", ".join(f"{k}={v}" for k, v in config.as_dict().items())
        + ".",
        "",
        RULESET_WORDS[config.ruleset],
        "",
        *_timing_lines(timing),
        "## Definitions",
        "",
        *(
            line.format(reeval=reeval, games=config.games, episodes=config.episodes)
            for line in DEFINITIONS
        ),
        NICHE_NAMES,
        "",
        "## MAP-Elites populations",
        "",
        "Coverage = niches holding an elite; best, mean and QD score (their sum) are over the "
        "elites' re-evaluated self-play scores (docs/papers.md §3: the papers report 22/25 "
        "niches and best 19.5–20.0 at 10⁶ candidates). The last two columns come from the "
        f"match-ups ({config.matchup_games} games per ordered pair).",
        "",
        "| run | seed | candidates | coverage | best | mean | QD score | mean pairwise score "
        "| Generalist (its intra-population score) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    pop_rows = []
    for r, (archive, mt) in enumerate(zip(archives, matchups, strict=True)):
        field = "reeval_objective" if "reeval_objective" in archive.fields else "objective"
        st = archive.stats(field)
        me = config.map_elites_config(r)
        intra = mt.intra_population_scores()
        g = mt.generalist()
        row = {
            "run": f"run{r}",
            "seed": me.seed,
            "candidates": me.candidates,
            "elites": st.num_elites,
            "cells": archive.cells,
            "best_self_play_score": st.obj_max,
            "mean_self_play_score": st.obj_mean,
            "qd_score": st.qd_score,
            "mean_pairwise_score": mt.population_score(),
            "generalist": mt.ids[g],
            "generalist_intra_population_score": float(intra[g]),
        }
        pop_rows.append(row)
        lines.append(
            f"| run{r} | {me.seed} | {me.candidates} | {st.num_elites}/{archive.cells} | "
            f"{st.obj_max:.2f} | {st.obj_mean:.2f} | {st.qd_score:.1f} | "
            f"{row['mean_pairwise_score']:.2f} | {_niche(archive, mt.ids[g])} ({intra[g]:.2f}) |"
        )
    _write_csv(tab_dir / "populations.csv", pop_rows)
    for r in range(len(matchups)):
        shutil.copyfile(out / "tables" / f"matchups_run{r}.csv", tab_dir / f"matchups_run{r}.csv")
    lines.append("")
    if meta_docs:
        variants = list(config.variants)
        lines += [
            "## Meta-agents",
            "",
            "The [Bayes21] protocol (docs/papers.md §4): the meta-agent plays "
            f"{config.episodes} episode(s) of {config.games} games with every partner of E; "
            "each cell is the mean ± s.e.m. of the episode scores. Variants:",
            "",
            *(f"- `{v}`: {VARIANT_WORDS.get(v, v)};" for v in variants),
            "",
            "| H (hypotheses) | E (partners) | " + " | ".join(variants) + " |",
            "|---|---|" + "---|" * len(variants),
        ]
        meta_rows = []
        for (h, e), doc in meta_docs.items():
            s = doc["summary"]
            cells = [_fmt(s[v]["mean"], s[v]["sem"]) if v in s else "n/a" for v in variants]
            lines.append(f"| run{h} | run{e} | " + " | ".join(cells) + " |")
            for v in variants:
                if v in s:
                    meta_rows.append(
                        {
                            "hypotheses": f"run{h}",
                            "partners": f"run{e}",
                            "distribution": "in" if h == e else "out",
                            "variant": v,
                            "mean_episode_score": s[v]["mean"],
                            "sem_episode_score": s[v]["sem"],
                            "n_episodes": s[v]["n_episodes"],
                        }
                    )
        _write_csv(tab_dir / "meta_agents.csv", meta_rows)
        lines += [
            "",
            "Welch's t-tests on the episode scores (scipy; mean difference = first variant "
            "minus second, in points; a small p means the difference is unlikely to be noise):",
            "",
            "| H | E | test | mean difference | t | p |",
            "|---|---|---|---|---|---|",
        ]
        t_rows = []
        for (h, e), doc in meta_docs.items():
            for name, t in (doc.get("ttests") or {}).items():
                md, tt, p = t.get("mean_diff"), t.get("t"), t.get("p")
                lines.append(
                    f"| run{h} | run{e} | {name.replace('_', ' ')} | "
                    f"{_num(md, '+.2f')} | {_num(tt, '.2f')} | {_num(p, '.3g')} |"
                )
                t_rows.append({"hypotheses": f"run{h}", "partners": f"run{e}", "test": name, **t})
        _write_csv(tab_dir / "ttests.csv", t_rows)
        lines += ["", _findings(meta_docs), ""]
        lines += [
            "Niche-estimate error ([ToG20], docs/papers.md §4.1): the partner's "
            "communicativeness and IPP observed while the meta-agent played, against the "
            "partner's re-evaluated self-play behaviour (mean absolute error over (partner, "
            "response) pairs; [ToG20] reported 0.11 and 0.27; `in niche` = fraction of pairs "
            "whose observed behaviour falls in the partner's self-play niche):",
            "",
            "| H | E | variant | MAE communicativeness | MAE IPP | in niche |",
            "|---|---|---|---|---|---|",
        ]
        mae_rows = []
        for (h, e), doc in meta_docs.items():
            for v, m in (doc.get("niche_mae") or {}).items():
                if v not in ("adaptive", "response-adaptive"):
                    continue
                lines.append(
                    f"| run{h} | run{e} | {v} | {_num(m.get('comm'), '.3f')} | "
                    f"{_num(m.get('ipp'), '.3f')} | {_num(m.get('niche_accuracy'), '.2f')} |"
                )
                mae_rows.append({"hypotheses": f"run{h}", "partners": f"run{e}", "variant": v,
                                 **{k: m.get(k) for k in ("comm", "ipp", "niche_accuracy",
                                                          "n_pairs")}})  # fmt: skip
        _write_csv(tab_dir / "niche_mae.csv", mae_rows)
        lines.append("")
    figures = _figures(out, report, archives, matchups, meta_docs, config)
    lines += ["## Figures", ""]
    for k, (f, title, caption) in enumerate(figures, 1):
        lines += [f"![Figure {k}: {title}]({f})", "", f"*Figure {k} — {title}.* {caption}", ""]
    lines += [
        "## Files",
        "",
        "In this folder (`tables/`, one row per line, empty field = not available):",
        "",
        "- `populations.csv` — one row per run: `run`, `seed`, `candidates`, `elites` (filled "
        "niches) of `cells`, `best_self_play_score`, `mean_self_play_score` and `qd_score` "
        "(best, mean and sum of the re-evaluated self-play scores), `mean_pairwise_score`, "
        "`generalist` (elite id) and `generalist_intra_population_score`;",
        "- `matchups_run<i>.csv` — one row per ordered pair of run i's elites: `seat0_id`, "
        "`seat1_id`, `games`, `mean_score` and `sem_score` (the pair's mean score and its "
        "standard error, points), then each seat's communicativeness, IPP and risk aversion in "
        "those games;",
        "- `meta_agents.csv` — one row per (H, E, variant): `hypotheses` (H), `partners` (E), "
        "`distribution` (`in`: H = E, `out`: H ≠ E), `variant`, `mean_episode_score`, "
        "`sem_episode_score`, `n_episodes`;",
        "- `ttests.csv` — the Welch's t-tests above, one row per (H, E, test);",
        "- `niche_mae.csv` — the niche-estimate errors above: `comm`, `ipp` (mean absolute "
        "errors), `niche_accuracy` (`in niche`), `n_pairs`.",
        "",
        "Elsewhere: `../runs/run*/` the MAP-Elites archives (`archive.json`, `elites.csv`, "
        "`summary.json`); `../meta/*/evaluation.json` and `games.csv`, every meta-agent game; "
        "`../timing.json`, the compute time of every unit of work.",
        "",
    ]
    path = report / "summary.md"
    from qd.io import atomic_write_text

    atomic_write_text(path, "\n".join(lines))
    return path


def _num(x, spec: str) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _findings(meta_docs: dict) -> str:
    """The papers' qualitative checks, stated as measured."""
    out = ["Checks of the papers' qualitative findings (in distribution):", ""]
    for (h, e), doc in meta_docs.items():
        if h != e:
            continue
        s = doc["summary"]
        if not all(v in s for v in ("oracle", "adaptive", "generalist", "random")):
            continue
        o, a, g, r = (s[v]["mean"] for v in ("oracle", "adaptive", "generalist", "random"))
        order = "holds" if o >= a >= g else "does not hold"
        lowest = "yes" if r < min(o, a, g) else "no"
        out.append(
            f"- run{h}: Oracle ≥ Adaptive ≥ Generalist {order} ({o:.2f}, {a:.2f}, {g:.2f}; "
            f"Oracle − Generalist = {o - g:+.2f}); Random-Response lowest: {lowest} ({r:.2f})."
        )
    return "\n".join(out)


def _write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        return
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for row in rows:
            w.writerow({k: ("" if _isnan(v) else v) for k, v in row.items()})
    tmp.replace(path)


def _isnan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


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
    timing = _Timing(out)
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
    path = _report(out, config, archives, matchups, meta_docs, timing)
    _say(f"[report] {path}", quiet)
    return path
