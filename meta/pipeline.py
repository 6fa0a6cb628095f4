"""The whole study in one call: populations → match-ups → meta-agents → a report folder.

:func:`run_pipeline` chains the stages of the papers' study ([ToG20], [Bayes21];
PAPERS.md §3–4) on one configuration (:data:`PIPELINE_CONFIGS`):

1. **populations** — ``runs`` independent MAP-Elites runs (:func:`qd.run.run_map_elites`,
   communicativeness × IPP, 2-player self-play), each ending with the re-evaluation of its
   elites on common deals;
2. **match-ups** — every ordered pair of each population plays ``matchup_games`` games
   (:func:`qd.analysis.archive_matchups`; intra-population score, [ToG20] eq. 1);
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
    runs/run<i>/                  MAP-Elites outputs (archive.json, elites.csv, summary.json, ...)
    tables/matchups_run<i>.csv    match-up tables (qd.analysis.MATCHUP_COLUMNS)
    tables/response_run<i>.csv    I(R=H=run i) (meta.table.TABLE_COLUMNS)
    tables/oracle_run<i>_run<j>.csv  I(R=run i, E=run j)
    meta/<H>__<E>/evaluation.json, games.csv   meta-agent evaluations
    report/summary.md, report/tables/*.csv, report/figures/*.png

**Resumable**: every stage writes its files atomically and is skipped when its output exists;
a killed MAP-Elites run resumes from its checkpoint and response tables from their CSV, so
rerunning the same command finishes the study with the same results as an uninterrupted run.
Elite ids are prefixed with the run (``"run0:[2,3]"``) so that pools of different runs never
share ids.
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

    def as_dict(self) -> dict:
        """JSON-serialisable fields."""
        d = dataclasses.asdict(self)
        d["variants"] = list(self.variants)
        return d

    def map_elites_config(self, run: int):
        """The :class:`qd.config.MapElitesConfig` of run ``run``."""
        from qd.config import get_config

        over = {"seed": self.seed + run, "scoring": self.scoring}
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


def _pool(archive, prefix: str) -> dict:
    """Policies, ids, grid cells and self-play (communicativeness, IPP) of an archive's elites."""
    cells = archive.occupied_cells()
    ids = [f"{prefix}:{archive.cell_name(int(c))}" for c in cells]
    pols = [
        RuleAgent([int(g) for g in archive.solution[c]], name=i)
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
        if old.get("config") != doc["config"]:
            raise ValueError(
                f"{out} holds a pipeline with another configuration ({old.get('config')}); "
                "use another out_dir or the same settings to resume"
            )
    else:
        out.mkdir(parents=True, exist_ok=True)
        _write_json(path, doc)


# --------------------------------------------------------------------------------------------
# stages
# --------------------------------------------------------------------------------------------


def _populations(out, config, workers, scheduler_address, quiet) -> list:
    from qd.io import load_archive
    from qd.run import run_map_elites

    archives = []
    for r in range(config.runs):
        run_dir = out / "runs" / f"run{r}"
        if (run_dir / "summary.json").exists() and (run_dir / "archive.json").exists():
            _say(f"[populations] run{r}: done earlier, loading {run_dir}", quiet)
            archives.append(load_archive(run_dir / "archive.json"))
            continue
        resume = (run_dir / "checkpoint.json").exists()
        me = config.map_elites_config(r)
        _say(
            f"[populations] run{r}: MAP-Elites {me.name}, {me.candidates} candidates × "
            f"{me.games} games, seed {me.seed}{' (resuming)' if resume else ''}",
            quiet,
        )
        loop, _ = run_map_elites(
            me,
            run_dir,
            resume=resume,
            workers=workers,
            scheduler_address=scheduler_address,
            progress=not quiet,
        )
        archives.append(loop.archive)
    return archives


def _matchups(out, config, archives, workers, scheduler_address, quiet) -> list:
    from qd.analysis import MatchupTable, archive_matchups
    from qd.evaluator import make_backend

    tables = []
    todo = [
        r for r in range(len(archives)) if not (out / "tables" / f"matchups_run{r}.csv").exists()
    ]
    backend = make_backend(workers, scheduler_address) if todo else None
    try:
        for r, archive in enumerate(archives):
            path = out / "tables" / f"matchups_run{r}.csv"
            if path.exists():
                tables.append(MatchupTable.from_csv(path))
                continue
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
                backend=backend,
            )
            t.ids = [f"run{r}:{i}" for i in t.ids]
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.tmp")
            t.to_csv(tmp)
            tmp.replace(path)
            tables.append(t)
    finally:
        if backend is not None:
            backend.close()
    return tables


def _response_table(path, responses, r_ids, hyps, h_ids, config, workers, quiet, desc):
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
            workers=workers,
            progress=bar.update,
        )


def _pool_pairs(n_runs: int) -> list[tuple[int, int]]:
    """(H run, E run) pairs: every run in distribution, then run i vs run i+1 out of it."""
    pairs = [(i, i) for i in range(n_runs)]
    if n_runs > 1:
        pairs += [(i, (i + 1) % n_runs) for i in range(n_runs)]
    return pairs


def _meta(out, config, archives, workers, quiet) -> dict[tuple[int, int], dict]:
    from meta.evaluate import evaluate_meta

    pools = [_pool(a, f"run{r}") for r, a in enumerate(archives)]
    tables = {}
    results = {}
    for h, e in _pool_pairs(len(archives)):
        name = f"run{h}__run{e}"
        folder = out / "meta" / name
        if (folder / "evaluation.json").exists() and (folder / "games.csv").exists():
            _say(f"[meta] H=run{h}, E=run{e}: done earlier", quiet)
            results[(h, e)] = json.loads((folder / "evaluation.json").read_text())
            continue
        r_pols, r_ids = pools[h]["policies"], pools[h]["ids"]
        if h not in tables:
            tables[h] = _response_table(
                out / "tables" / f"response_run{h}.csv",
                r_pols,
                r_ids,
                r_pols,
                r_ids,
                config,
                workers,
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
                workers,
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
            workers=max(1, int(workers or _cores())),
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
        doc = res.to_dict()
        _write_json(folder / "evaluation.json", doc)
        results[(h, e)] = doc
    return results


def _cores() -> int:
    from agents.evaluate import default_workers

    return default_workers()


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


def _figures(out, report, archives, matchups, meta_docs, config) -> list[str]:
    """Write the PNG figures; returns their paths relative to ``report``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from qd.plot import heatmap, matchup_heatmap

    fig_dir = report / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for r, archive in enumerate(archives):
        field = "reeval_objective" if "reeval_objective" in archive.fields else "objective"
        if archive.measure_dim == 2 and len(archive):
            p = fig_dir / f"archive_run{r}.png"
            heatmap(archive, p, field, title=f"run{r}: {field}")
            written.append(p)
    for r, t in enumerate(matchups):
        p = fig_dir / f"matchups_run{r}.png"
        matchup_heatmap(t, p, title=f"run{r}: match-up scores")
        written.append(p)
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
            written.append(p)
        if ev.self_play is not None and "response-adaptive" in ev.variants:
            p = fig_dir / f"niche_estimates_run{h}.png"
            plot_niche_estimates(ev, p, variant="response-adaptive", title=f"run{h}")
            written.append(p)
    if evaluations:
        p = fig_dir / "variant_scores.png"
        plot_variant_scores(evaluations, p, title="meta-agents")
        written.append(p)
    # score distributions: episode means per variant and pool pair
    pairs = list(meta_docs)
    if pairs:
        fig, axes = plt.subplots(
            1, len(pairs), figsize=(2.6 * len(pairs) + 1, 3.6), sharey=True, squeeze=False
        )
        for ax, (h, e) in zip(axes[0], pairs, strict=True):
            eps = _read_games(out / "meta" / f"run{h}__run{e}" / "games.csv")
            names = [v for v in config.variants if v in eps]
            ax.boxplot([eps[v] for v in names], showmeans=True)
            ax.set_xticks(range(1, len(names) + 1), names, rotation=45, fontsize=8)
            ax.set_title(f"H=run{h}, E=run{e}", fontsize=9)
        axes[0][0].set_ylabel("episode mean score (points)")
        fig.suptitle("Meta-agent episode scores (box: quartiles, triangle: mean)", fontsize=10)
        fig.tight_layout()
        p = fig_dir / "score_distributions.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    return [str(p.relative_to(report)) for p in written]


def _report(out, config, archives, matchups, meta_docs, elapsed) -> Path:
    report = out / "report"
    tab_dir = report / "tables"
    tab_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        f"# Hanabi ad-hoc cooperation study — `{config.name}` configuration",
        "",
        f"Output folder `{out}`; wall time of the last invocation {elapsed / 60:.1f} min. "
        "Settings: " + ", ".join(f"{k}={v}" for k, v in config.as_dict().items()) + ".",
        "",
        "## MAP-Elites populations (re-evaluated elites)",
        "",
        "| run | seed | candidates | coverage | best | mean | QD score | self-play (match-ups) "
        "| intra-population score |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    pop_rows = []
    for r, (archive, mt) in enumerate(zip(archives, matchups, strict=True)):
        field = "reeval_objective" if "reeval_objective" in archive.fields else "objective"
        st = archive.stats(field)
        me = config.map_elites_config(r)
        intra = mt.intra_population_scores()
        row = {
            "run": f"run{r}",
            "seed": me.seed,
            "candidates": me.candidates,
            "coverage": f"{st.num_elites}/{archive.cells}",
            "best": st.obj_max,
            "mean": st.obj_mean,
            "qd_score": st.qd_score,
            "self_play_mean": float(mt.self_play().mean()),
            "intra_population_mean": float(intra.mean()),
        }
        pop_rows.append(row)
        lines.append(
            f"| run{r} | {me.seed} | {me.candidates} | {row['coverage']} | {st.obj_max:.2f} | "
            f"{st.obj_mean:.2f} | {st.qd_score:.1f} | {row['self_play_mean']:.2f} | "
            f"{row['intra_population_mean']:.2f} |"
        )
    _write_csv(tab_dir / "populations.csv", pop_rows)
    for r in range(len(matchups)):
        shutil.copyfile(out / "tables" / f"matchups_run{r}.csv", tab_dir / f"matchups_run{r}.csv")
    lines += [
        "",
        "Coverage, best and mean are over the elites' re-evaluated self-play scores "
        "(PAPERS.md §3: the papers report 22/25 cells and best 19.5–20.0 at 10⁶ candidates).",
        "",
    ]
    if meta_docs:
        variants = list(config.variants)
        lines += [
            "## Meta-agents ([Bayes21] protocol; mean ± s.e.m. of episode scores)",
            "",
            "| H (responses) | E (partners) | " + " | ".join(variants) + " |",
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
                            "mean": s[v]["mean"],
                            "sem": s[v]["sem"],
                            "n_episodes": s[v]["n_episodes"],
                        }
                    )
        _write_csv(tab_dir / "meta_agents.csv", meta_rows)
        lines += [
            "",
            "Welch's t-tests on episode scores (scipy):",
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
            "Niche-estimate error ([ToG20]): the partner's communicativeness and IPP observed "
            "while the meta-agent played, against the partner's re-evaluated self-play measures "
            "(mean absolute error over (partner, response) pairs; [ToG20] reported 0.11 and "
            "0.27; `in niche` = fraction of pairs whose observed behaviour falls in the "
            "partner's self-play cell):",
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
    lines += [f"![{Path(f).stem}]({f})" for f in figures]
    lines += [
        "",
        "## Files",
        "",
        "- `tables/populations.csv`, `tables/matchups_run*.csv`, `tables/meta_agents.csv`, "
        "`tables/ttests.csv` (this folder);",
        "- `../runs/run*/` MAP-Elites archives (`archive.json`, `elites.csv`, `summary.json`);",
        "- `../meta/*/evaluation.json`, `games.csv` every meta-agent game.",
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
        workers: Local processes (None = all cores). Results never depend on it.
        scheduler_address: Dask scheduler for the MAP-Elites and match-up games (the meta-agent
            evaluation runs on local processes).
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
    t0 = time.perf_counter()
    archives = _populations(out, config, workers, scheduler_address, quiet)
    if stop_after == "populations":
        return out
    matchups = _matchups(out, config, archives, workers, scheduler_address, quiet)
    if stop_after == "matchups":
        return out
    meta_docs = _meta(out, config, archives, workers, quiet)
    if stop_after == "meta":
        return out
    path = _report(out, config, archives, matchups, meta_docs, time.perf_counter() - t0)
    _say(f"[report] {path}", quiet)
    return path
