"""A study's report (:mod:`hanabi_adhoc.study.pipeline`): ``report/summary.md``, tables, figures.

:func:`write_report` reads what the stages wrote (MAP-Elites archives, match-up tables,
meta-agent evaluations) and writes ``report/summary.md`` (tables, the papers' checks, the
definitions of every statistic, compute time), ``report/tables/*.csv`` and
``report/figures/*.png`` (archive heatmaps, match-up heatmaps, belief evolution, score
distributions). It plays no games.
"""

from __future__ import annotations

import csv
import math
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hanabi_env.outputs import OutputFolder, atomic_path

if TYPE_CHECKING:  # types only: hanabi_adhoc.study.pipeline imports this module
    from hanabi_adhoc.study.pipeline import PipelineConfig, Timing

__all__ = ["write_report"]


def _fmt(mean: float, sem: float) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "n/a"
    if sem is None or (isinstance(sem, float) and math.isnan(sem)):
        return f"{mean:.2f}"
    return f"{mean:.2f} ± {sem:.2f}"


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


def _figures(out, report, archives, matchups, meta_docs, config, put) -> list[tuple[str, str, str]]:
    """Write the PNG figures through ``put``; (path relative to ``report``, title, caption)."""
    fig_dir = report / "figures"
    written = _archive_figures(fig_dir, archives, put)
    written += _matchup_figures(fig_dir, archives, matchups, put)
    written += _meta_figures(out, fig_dir, archives, meta_docs, config, put)
    written += _score_distributions(out, fig_dir, meta_docs, config, put)
    return [(str(p.relative_to(report)), t, c) for p, t, c in written]


def _archive_figures(fig_dir: Path, archives, put) -> list[tuple[Path, str, str]]:
    """The heatmap of each 2-D archive: (path, title, caption) of each figure written."""
    from qd.plot import heatmap

    written: list[tuple[Path, str, str]] = []
    for r, archive in enumerate(archives):
        reeval = "reeval_objective" in archive.fields
        field = "reeval_objective" if reeval else "objective"
        if archive.measure_dim == 2 and len(archive):
            p = fig_dir / f"archive_run{r}.png"
            what = "re-evaluated self-play score" if reeval else "self-play score (search games)"
            with put(p) as tmp:
                heatmap(archive, tmp, field, title=f"run{r}: {what} of each niche's elite")
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
    return written


def _matchup_figures(fig_dir: Path, archives, matchups, put) -> list[tuple[Path, str, str]]:
    """The match-up heatmap of each run: (path, title, caption) of each figure written."""
    from qd.plot import matchup_heatmap

    written: list[tuple[Path, str, str]] = []
    for r, t in enumerate(matchups):
        p = fig_dir / f"matchups_run{r}.png"
        a = archives[r]
        with put(p) as tmp:
            matchup_heatmap(
                t,
                tmp,
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
    return written


def _meta_figures(out, fig_dir: Path, archives, meta_docs, config, put) -> list:
    """Belief evolution, niche estimates (in distribution) and the variants' scores."""
    from meta.evaluate import MetaEvaluation
    from meta.plot import plot_variant_scores

    evaluations = {
        f"H=run{h}, E=run{e}": MetaEvaluation.load(
            out / "meta" / f"run{h}__run{e}" / "evaluation.json",
            out / "meta" / f"run{h}__run{e}" / "games.csv",
        )
        for h, e in meta_docs
    }
    written: list[tuple[Path, str, str]] = []
    for (h, e), ev in zip(meta_docs, evaluations.values(), strict=True):
        if h != e:
            continue
        if "adaptive" in ev.variants:
            written += _belief_figure(fig_dir, archives[e], h, ev, config, put)
        if ev.self_play is not None and "response-adaptive" in ev.variants:
            written += _niche_figure(fig_dir, h, ev, put)
    if evaluations:
        p = fig_dir / "variant_scores.png"
        with put(p) as tmp:
            plot_variant_scores(evaluations, tmp, title="meta-agents: mean episode score")
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
    return written


def _belief_figure(fig_dir: Path, arch, h: int, ev, config, put) -> list[tuple[Path, str, str]]:
    """The adaptive meta-agent's belief with run ``h``'s best elite (of ``arch``) as partner."""
    from meta.plot import plot_belief_evolution

    written: list[tuple[Path, str, str]] = []
    # the population's best elite (re-evaluated self-play) as the example partner
    values = arch.fields.get("reeval_objective", arch.objective)[arch.occupied_cells()]
    best = int(np.nanargmax(values))
    p = fig_dir / f"belief_run{h}.png"
    with put(p) as tmp:
        plot_belief_evolution(
            ev, tmp, partner=best, variant="adaptive",
            title=f"run{h}, best elite as partner",
        )  # fmt: skip
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
    return written


def _niche_figure(fig_dir: Path, h: int, ev, put) -> list[tuple[Path, str, str]]:
    """The response-adaptive meta-agent's niche estimates of run ``h``'s partners."""
    from meta.plot import plot_niche_estimates

    written: list[tuple[Path, str, str]] = []
    p = fig_dir / f"niche_estimates_run{h}.png"
    with put(p) as tmp:
        plot_niche_estimates(ev, tmp, variant="response-adaptive", title=f"run{h}: niche estimates")
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
    return written


def _score_distributions(out, fig_dir: Path, meta_docs, config, put) -> list:
    """Box plots of the episode scores per variant and pool pair (none without meta-agents)."""
    written: list[tuple[Path, str, str]] = []
    # score distributions: episode scores per variant and pool pair
    pairs = list(meta_docs)
    if pairs:
        from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

        # a grid: one row in distribution (H = E), one out of it, one column per run
        rows = [[p for p in pairs if p[0] == p[1]], [p for p in pairs if p[0] != p[1]]]
        rows = [r for r in rows if r]
        cols = max(len(r) for r in rows)
        fig = Figure(figsize=(3.4 * cols + 0.8, 3.9 * len(rows) + 0.6))
        axes = fig.subplots(len(rows), cols, sharey=True, squeeze=False)
        for i, row in enumerate(rows):
            for j in range(cols):
                ax = axes[i][j]
                if j >= len(row):
                    ax.set_visible(False)
                    continue
                h, e = row[j]
                eps = _read_games(out / "meta" / f"run{h}__run{e}" / "games.csv")
                names = [v for v in config.variants if v in eps]
                ax.boxplot([eps[v] for v in names], showmeans=True)
                ax.set_xticks(range(1, len(names) + 1), names, rotation=35, ha="right")
                kind = "in distribution" if h == e else "out of distribution"
                ax.set_title(f"H=run{h}, E=run{e} ({kind})", fontsize=11)
                ax.tick_params(labelsize=10)
            axes[i][0].set_ylabel("episode score (points)", fontsize=10)
        fig.suptitle(
            "Meta-agent episode scores (box: quartiles, line: median, triangle: mean)",
            fontsize=12,
        )
        fig.tight_layout()
        p = fig_dir / "score_distributions.png"
        with put(p) as tmp:
            fig.savefig(tmp, dpi=110)
        written.append(
            (
                p,
                "Distribution of the episode scores",
                "One panel per pool pair (H, E as in the previous figure; top row in "
                "distribution, bottom row out of distribution), one box per "
                "variant over all its episodes (every partner of E × "
                f"{config.episodes} episodes): the box spans the middle half of the episode "
                "scores, the line is the median, the triangle the mean, the whiskers reach "
                "the most extreme scores within 1.5 box lengths and circles are the scores "
                "beyond. Higher boxes are better; a tall box means the variant's score "
                "depends strongly on the partner.",
            )
        )
    return written


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


def _settings(config: PipelineConfig) -> str:
    """The configuration as ``name=value`` pairs; an unset override shows the value in force."""
    me = config.map_elites_config(0)
    in_force = {"candidates": me.candidates, "me_games": me.games}
    items = {k: in_force.get(k) if v is None else v for k, v in config.as_dict().items()}
    return ", ".join(
        f"{k}={','.join(map(str, v)) if isinstance(v, list | tuple) else v}"
        for k, v in items.items()
        if v is not None
    )


def _time(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.1f} s"


def _timing_lines(timing: Timing) -> list[str]:
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
    text += _units(
        " Resumed from a checkpoint (the search time of earlier sessions is included): ",
        timing.resumed_units(),
        ".",
    )
    text += _units(
        " No time was recorded for ",
        timing.unknown(),
        " (computed by an older version of the pipeline).",
    )
    compiled = timing.stage_seconds("compile")
    if compiled > 0:
        text += (
            f" Compiling the kernels took {_time(compiled)} more, not counted above: it is paid "
            "once per installed version (later studies load the kernels in seconds), so budget "
            "a larger study from the compute time alone."
        )
    else:
        text += " The compiled kernels came from the cache (no compile time)."
    return [text, ""]


def _units(before: str, units, after: str) -> str:
    """``before``, the units of work in backquotes, comma-separated, ``after``; "" for none."""
    if not units:
        return ""
    return before + ", ".join(f"`{u}`" for u in units) + after


def write_report(
    out: Path,
    config: PipelineConfig,
    archives: list,
    matchups: list,
    meta_docs: dict,
    timing: Timing,
    folder: OutputFolder | None = None,
) -> Path:
    """Write ``out/report/`` from the stages' outputs and return the summary's path.

    Every file is written atomically: through ``folder`` (the study's, open: each file is
    recorded in its manifest, stage ``"report"``) when given, else on its own.

    Args:
        out: The study folder.
        config: Its configuration.
        archives: One :class:`qd.archive.Archive` per MAP-Elites run.
        matchups: One :class:`qd.analysis.MatchupTable` per run.
        meta_docs: ``(H run, E run)`` → the ``evaluation.json`` document of that evaluation.
        timing: The study's :class:`hanabi_adhoc.study.pipeline.Timing`.
        folder: The study's :class:`~hanabi_env.outputs.OutputFolder` (``out``), or None.

    Returns:
        The path of ``out/report/summary.md``.

    Raises:
        OutputWriteError: A file could not be written (it is named).
    """
    report = out / "report"
    tab_dir = report / "tables"
    put = _putter(folder)
    lines = _header_lines(out, config, timing)
    lines += _population_lines(out, config, archives, matchups, tab_dir, put)
    if meta_docs:
        lines += _meta_lines(meta_docs, config, tab_dir, put)
    figures = _figures(out, report, archives, matchups, meta_docs, config, put)
    lines += ["## Figures", ""]
    for k, (f, title, caption) in enumerate(figures, 1):
        lines += [f"![Figure {k}: {title}]({f})", "", f"*Figure {k} — {title}.* {caption}", ""]
    lines += FILES_LINES
    path = report / "summary.md"
    with put(path) as tmp:
        tmp.write_text("\n".join(lines), encoding="utf-8")
    return path


def _putter(folder: OutputFolder | None):
    """``put(path)``: a context giving the temporary path whose file becomes ``path``.

    Through ``folder`` (recorded in its manifest, stage ``"report"``) when given, else
    :func:`hanabi_env.outputs.atomic_path`.
    """

    def put(path: Path):
        if folder is None:
            return atomic_path(path)
        return folder.staged(path.relative_to(folder.path).as_posix(), stage="report")

    return put


def _header_lines(out: Path, config: PipelineConfig, timing: Timing) -> list[str]:
    """The summary's title, settings, timing, definitions and the populations' table head."""
    reeval = config.map_elites_config(0).reeval_games
    return [
        f"# Hanabi ad-hoc cooperation study — `{config.name}` configuration",
        "",
        f"Output folder `{out}`. Settings: " + _settings(config) + ".",
        "",
        f"Games: 2 players, hand size 5 (the rulebook's, docs/rules.md §0.1), "
        f"{config.scoring} scoring, {config.ruleset} ruleset. " + RULESET_WORDS[config.ruleset],
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


def _population_lines(out: Path, config, archives, matchups, tab_dir: Path, put) -> list[str]:
    """The populations' table rows; writes ``populations.csv`` and ``matchups_run<i>.csv``."""
    lines: list[str] = []
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
    _write_csv(tab_dir / "populations.csv", pop_rows, put)
    for r in range(len(matchups)):
        with put(tab_dir / f"matchups_run{r}.csv") as tmp:
            shutil.copyfile(out / "tables" / f"matchups_run{r}.csv", tmp)
    lines.append("")
    return lines


def _meta_lines(meta_docs: dict, config, tab_dir: Path, put) -> list[str]:
    """The meta-agents' section; writes ``meta_agents.csv``, ``ttests.csv``, ``niche_mae.csv``."""
    lines: list[str] = []
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
    _write_csv(tab_dir / "meta_agents.csv", meta_rows, put)
    lines += ["", TTESTS_TEXT, ""]
    header = ["test", "mean difference", "t", "p"]
    lines += _pair_table(meta_docs, "ttests", header, _ttest_row, tab_dir / "ttests.csv", put)
    lines += ["", _findings(meta_docs, config), ""]
    lines += [NICHE_MAE_TEXT, ""]
    header = ["variant", "MAE communicativeness", "MAE IPP", "in niche"]
    path = tab_dir / "niche_mae.csv"
    lines += _pair_table(meta_docs, "niche_mae", header, _niche_mae_row, path, put)
    lines.append("")
    return lines


FILES_LINES = [
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
"""The summary's last section: what each file of the report holds."""


TTESTS_TEXT = (
    "Welch's t-tests on the episode scores for every pair of variants, [Bayes21]'s headline "
    "pairs first (scipy; mean difference = first variant minus second, in points; a small p "
    "means the difference is unlikely to be noise):"
)
NICHE_MAE_TEXT = (
    "Niche-estimate error ([ToG20], docs/papers.md §4.1): the partner's communicativeness and "
    "IPP observed while the meta-agent played, against the partner's re-evaluated self-play "
    "behaviour (mean absolute error over (partner, response) pairs; [ToG20] reported 0.11 and "
    "0.27; `in niche` = fraction of pairs whose observed behaviour falls in the partner's "
    "self-play niche):"
)


def _ttest_row(name: str, t: dict) -> tuple[list[str], dict] | None:
    """A t-test's table cells and CSV fields (see :func:`_pair_table`)."""
    md, tt, p = t.get("mean_diff"), t.get("t"), t.get("p")
    cells = [name.replace("_", " "), _num(md, "+.2f"), _num(tt, ".2f"), _num(p, ".3g")]
    return cells, {"test": name, **t}


def _niche_mae_row(v: str, m: dict) -> tuple[list[str], dict] | None:
    """An adaptive variant's niche-estimate errors, cells and CSV fields; None for the others."""
    if v not in ("adaptive", "response-adaptive"):
        return None
    fields = ("comm", "ipp", "niche_accuracy")
    cells = [v, *(_num(m.get(k), s) for k, s in zip(fields, (".3f", ".3f", ".2f"), strict=True))]
    return cells, {"variant": v, **{k: m.get(k) for k in (*fields, "n_pairs")}}


def _pair_table(meta_docs: dict, key: str, header: list[str], row, path: Path, put) -> list[str]:
    """A Markdown table of one entry of every (H, E) evaluation, also written as CSV ``path``.

    The CSV goes through ``put`` (the report's atomic writer).
    ``row(name, value)`` turns each item of ``doc[key]`` into its cells under ``header`` (after
    H and E) and its CSV fields after ``hypotheses`` and ``partners`` (None: left out).
    """
    lines = ["| H | E | " + " | ".join(header) + " |", "|---|---|" + "---|" * len(header)]
    rows = []
    for (h, e), doc in meta_docs.items():
        for name, value in (doc.get(key) or {}).items():
            made = row(name, value)
            if made is not None:
                lines.append(f"| run{h} | run{e} | " + " | ".join(made[0]) + " |")
                rows.append({"hypotheses": f"run{h}", "partners": f"run{e}", **made[1]})
    _write_csv(path, rows, put)
    return lines


def _num(x, spec: str) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


FINDINGS = (
    ("adaptive", "generalist", "Adaptive > Generalist"),
    ("oracle", "adaptive", "Oracle > Adaptive"),
    ("generalist", "random", "Generalist > Random-Response"),
)
"""The papers' in-distribution findings the report tests ([Bayes21], docs/papers.md §4.2):
``(a, b, words)``, each the claim that variant ``a`` scores more than ``b``."""

ALPHA = 0.05
"""Level of the report's tests, after the multiple-comparison correction."""

POWER = 0.8
"""Power at which the report estimates the episodes a non-significant test would need."""


def _findings(meta_docs: dict, config) -> str:
    """The papers' findings, each stated as holding only when its test says so.

    Every finding of :data:`FINDINGS` in every in-distribution evaluation is one Welch's
    t-test (:meth:`meta.results.MetaEvaluation.ttests`); their p-values are adjusted together
    (Benjamini–Hochberg, :func:`hanabi_env.stats.adjust_pvalues`). A finding *holds* when its
    adjusted p is below :data:`ALPHA` and the difference has the claimed sign, is *contradicted*
    when significant with the other sign, and is otherwise *not significant at this scale*,
    with the episodes per variant a test would need to detect the measured difference
    (:func:`hanabi_env.stats.samples_needed`, power :data:`POWER`).
    """
    from hanabi_env.stats import adjust_pvalues, samples_needed

    tests = []  # (run, words, a, b, diff, p, summary)
    for (h, e), doc in meta_docs.items():
        s, tt = doc["summary"], doc.get("ttests") or {}
        if h != e:
            continue
        for a, b, words in FINDINGS:
            t = tt.get(f"{a}_vs_{b}")
            if t is None or a not in s or b not in s:
                continue
            tests.append((h, words, s[a], s[b], t.get("mean_diff"), t.get("p")))
    if not tests:
        return ""
    adjusted = adjust_pvalues([np.nan if _isnan(t[5]) else t[5] for t in tests], "bh")
    out = [
        "Checks of the papers' findings in distribution ([Bayes21], docs/papers.md §4.2). A "
        f"finding **holds** only where its Welch's t-test is significant at α = {ALPHA} after "
        f"the Benjamini–Hochberg correction over the {len(tests)} tests of this list (`p adj`); "
        "otherwise it is **not significant at this scale**, with the episodes per variant a "
        f"test would need to detect a difference of the measured size with {POWER:.0%} power (now "
        f"{_episodes(tests[0][2])} per variant: {config.episodes} per partner).",
        "",
    ]
    for (h, words, sa, sb, diff, p), p_adj in zip(tests, adjusted, strict=True):
        head = f"- run{h}: {words}: "
        stat = f"({_num(diff, '+.2f')} points, p = {_num(p, '.2g')}, p adj = {_num(p_adj, '.2g')})"
        if _isnan(p_adj) or _isnan(diff):
            out.append(head + f"not tested (no variance) {stat}.")
        elif p_adj < ALPHA and diff > 0:
            out.append(head + f"**holds** {stat}.")
        elif p_adj < ALPHA:
            out.append(head + f"**contradicted**: significantly the other way {stat}.")
        else:
            sd_a, sd_b = (_sd(x) for x in (sa, sb))
            need = samples_needed(abs(diff), sd_a, sd_b, alpha=ALPHA / len(tests), power=POWER)
            scale = (
                "no difference measured, so no scale estimate"
                if not np.isfinite(need)
                else f"about {need:,.0f} episodes per variant would tell a difference of "
                f"{abs(diff):.2f} points from noise"
            )
            out.append(head + f"not significant at this scale {stat}; {scale}.")
    out.append("")
    out.append(
        "The scale estimate uses the Bonferroni level α/m, the strictest level the correction "
        "can ask of one test, so it is an upper bound of what the corrected test needs."
    )
    return "\n".join(out)


def _sd(summary: dict) -> float:
    """Standard deviation of a variant's episode scores, from its s.e.m. and episode count."""
    sem, n = summary.get("sem"), summary.get("n_episodes")
    if sem is None or not n:
        return math.nan
    return float(sem) * math.sqrt(int(n))  # NaN stays NaN


def _episodes(summary: dict) -> str:
    n = summary.get("n_episodes")
    return "n/a" if not n else f"{int(n):,}"


def _write_csv(path: Path, rows: list[dict], put) -> None:
    if not rows:
        return
    with put(path) as tmp, open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for row in rows:
            w.writerow({k: ("" if _isnan(v) else v) for k, v in row.items()})


def _isnan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))
