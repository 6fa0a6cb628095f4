"""Command-line subcommands of the ``qd`` package: ``map-elites``, ``ga`` and ``population``.

Wire them into a parser with :func:`add_subcommands`; every subcommand sets ``func`` (called
with the parsed namespace, returns an exit code). Standalone: ``python -m qd.cli map-elites``.

* ``map-elites`` — a MAP-Elites run from a named configuration (``quick`` default, ``paper``,
  ``paper-20x20``, ``paper-cog19``; :mod:`qd.config`) with every setting overridable; writes the
  outputs of :mod:`qd.run` into ``--out``; ``--resume`` continues a killed run.
* ``ga`` — the [CIG18] genetic algorithm (``quick``, ``paper-mirror-old``, ``paper-mirror-new``,
  ``paper-mixed-old``, ``paper-mixed-new``); ``--situational`` evolves one chromosome per group
  of game sizes; ``--ruleset reference`` evolves the papers' Java agents and ``--preset cig18``
  uses [CIG18]'s mixed fitness against the 2018 pool (docs/rules.md §12).
* ``population`` — analysis of an archive JSON or a published population (``5x5``, ``20x20``):
  re-evaluation, heatmap, match-up table, cross-run comparison with a second archive.
* ``matchups`` — the match-up table of a population and its heatmap.

``population`` and ``matchups`` take ``--ruleset``; without it the elites play in the SOURCE's
own ruleset (:func:`qd.analysis.archive_ruleset`: reference for the archive of a ``--ruleset
reference`` MAP-Elites run, corrected for any other, the published populations included).

Overrides use their own ``dest`` names (``me_*``, ``ga_*``, ``pop_*``) and default to None
(= the configuration's value), so they never clash with other subcommands' options.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from pathlib import Path

from hanabi_adhoc.cli.options import (
    ADOPT_HELP,
    MAX_COUNT,
    QUIET_HELP,
    SCORING_HELP,
    SEED_HELP,
    WAIT_HELP,
    CommandError,
    OptionError,
    add_command,
    backend_from,
    backend_settings,
    check_out_dir,
    check_out_file,
    check_players,
    config_error,
    int_range,
    load_source,
    nonnegative_int,
    option_dest,
    output_files,
)
from hanabi_adhoc.warmup import ensure_compiled

__all__ = ["add_subcommands"]


# --------------------------------------------------------------------------------------------
# map-elites
# --------------------------------------------------------------------------------------------

ME_OPTIONS = {
    "candidates": "--candidates",
    "random_candidates": "--random",
    "reeval_games": "--reeval-games",
    "games": "--games",
    "dims": "--grid",
    "measures": "--measures",
    "players": "--players",
    "crossover_rate": "--crossover-rate",
    "mutation_rate": "--mutation-rate",
    "batch_size": "--batch-size",
    "seed": "--seed",
    "scoring": "--scoring",
    "checkpoint_every": "--checkpoint-every",
    "ruleset": "--ruleset",
}
"""MapElitesConfig fields -> ``map-elites`` options (for errors naming the option)."""
MAX_CELLS = 1_000_000
"""Largest MAP-Elites grid (cells)."""


SOURCE_RULESET_HELP = (
    "corrected or reference: the elites play as the papers' Java code ran them (HistogramAgent, "
    "bugs included, fixed hand slots; docs/rules.md §12) (default: the SOURCE's: reference for "
    "the archive of a --ruleset reference MAP-Elites run, corrected otherwise, the published "
    "5x5 and 20x20 included)"
)
"""Help of ``--ruleset`` of a command that plays the elites of a SOURCE (``None``: its own)."""


def _map_elites(args: argparse.Namespace) -> int:
    from qd.config import MapElitesConfig, get_config
    from qd.run import run_folder, run_map_elites
    from qd.scheduler import MapElites

    dims = None
    if args.me_grid is not None:
        dims = tuple(args.me_grid) if len(args.me_grid) > 1 else (args.me_grid[0],) * 2
    overrides = {f: getattr(args, option_dest("me", o)) for f, o in ME_OPTIONS.items()}
    overrides["dims"] = dims
    overrides["measures"] = tuple(args.me_measures) if args.me_measures else None
    name = args.me_config or "quick"
    check_out_dir("--out", args.me_out)  # (an empty --out is refused, not the default)
    out = Path(args.me_out or f"runs/map-elites-{name}-seed{args.me_seed or 0}")
    check_out_dir("--out", str(out))
    if dims is not None and math.prod(dims) > MAX_CELLS:
        raise OptionError("--grid", f"{' x '.join(map(str, dims))} cells; allowed: <= {MAX_CELLS}")
    if not (args.me_resume and args.me_config is None):  # (resume: checked against the file)
        try:
            get_config(name, **overrides)
        except ValueError as exc:
            raise config_error(exc, ME_OPTIONS) from None
    try:
        if args.me_resume and args.me_config is None and (out / "checkpoint.json").exists():
            # continue with the checkpoint's own settings; explicit options must agree with it
            # (no checkpoint yet: a new run of --config/quick, run_map_elites says so)
            saved = MapElites.read_checkpoint(out / "checkpoint.json")["config"]
            config = MapElitesConfig.from_dict(saved).replace(**overrides)
        else:
            config = get_config(name, **overrides)
        if args.me_resume and (out / "checkpoint.json").exists():
            MapElites.from_checkpoint(out / "checkpoint.json", config)  # another run's: refused
    except (TypeError, ValueError) as exc:  # a CheckpointError included: one line
        raise CommandError(str(exc)) from None
    ensure_compiled(("rule games",))
    with run_folder(out, config, wait=args.me_wait, adopt=args.me_adopt) as folder:
        loop, summary = run_map_elites(
            config,
            folder,
            resume=args.me_resume,
            progress=not args.me_quiet,
            **backend_settings(args, "me"),
        )
        if args.me_matchups:
            from qd.analysis import archive_matchups

            with backend_from(args, "me") as backend:
                table = archive_matchups(
                    loop.archive,
                    args.me_matchups,
                    config.seed,
                    ruleset=config.ruleset,
                    backend=backend,
                )
            with folder.staged("matchups.csv", stage="matchups") as tmp:
                table.to_csv(tmp)
    _print_summary(summary, out)
    return 0


def _print_summary(summary: dict, out: Path) -> None:
    c = summary["config"]
    a = summary["archive_stats"]
    print(
        f"MAP-Elites {c['name']}: {summary['candidates']} candidates, grid "
        f"{'x'.join(str(d) for d in c['dims'])} {' x '.join(c['measures'])}, seed {c['seed']}"
    )
    print(
        f"  time {summary['elapsed_s']:.1f} s, {summary['candidates_per_s']:.1f} candidates/s, "
        f"{summary['games_per_s']:.0f} games/s"
    )
    print(
        f"  archive: coverage {a['num_elites']} ({a['coverage']:.3f}), max {a['obj_max']:.2f}, "
        f"mean {a['obj_mean']:.2f}, QD score {a['qd_score']:.1f}"
    )
    r = summary.get("reeval_stats")
    if r:
        print(
            f"  re-evaluated ({summary['reeval_games']} games): max {r['obj_max']:.2f}, "
            f"mean {r['obj_mean']:.2f}, QD score {r['qd_score']:.1f}"
        )
    print(f"  outputs in {out}/")


def _configured(what: str, default: str) -> str:
    """The help of an option that overrides a setting of the named configuration."""
    return f"{what} (default: the configuration's; {default})"


def _add_map_elites(sub) -> None:
    from qd.config import CONFIGS
    from qd.measures import MEASURES

    config = {"choices": list(CONFIGS), "default": None}
    grid = {"type": int_range(1, 1000, "grid_int"), "nargs": "+", "metavar": "D"}
    measures = {"nargs": "+", "choices": list(MEASURES), "metavar": "NAME"}
    matchups = {"type": nonnegative_int, "metavar": "GAMES"}
    add_command(sub, "map-elites", _map_elites, "me", (
        ("--config", config, "named configuration (default quick; with --resume, the "
         "checkpoint's settings); every other option overrides one of its settings"),
        ("--candidates", "N", _configured("total candidates, phase 1 included",
                                          "quick 4000, paper 10^6")),
        ("--random", "N", _configured("phase-1 uniformly random candidates", "quick 400")),
        ("--games", "N", _configured("self-play games per candidate evaluation",
                                     "quick 25, paper 100")),
        ("--reeval-games", "N0", _configured("games per elite in the final re-evaluation, "
                                             "0 = none", "quick 200")),
        ("--grid", grid, _configured("cells per dimension, e.g. 5 or 20 20", "quick 5 5")),
        ("--measures", measures, _configured("measure names, one per grid dimension; allowed: "
                                             + ", ".join(MEASURES),
                                             "quick communicativeness ipp")),
        ("--players", "SIZES", _configured("player counts, e.g. 2, 2-5 or 2,4", "quick 2")),
        ("--crossover-rate", "P", _configured("probability of crossover per child, in [0, 1]",
                                              "quick 0.5")),
        ("--mutation-rate", "P", _configured("probability of mutation per gene, in [0, 1]",
                                             "quick 0.1")),
        ("--batch-size", "N", _configured("candidates per batch; part of the algorithm, not a "
                                          "parallelism knob", "quick 100")),
        ("--seed", "SEED_N", SEED_HELP),
        ("--scoring", "lenient|strict", _configured("lenient keeps the fireworks total when "
                                                    "the last life is lost (the papers), strict "
                                                    "scores 0 (HLE)", "lenient")),
        ("--ruleset", "corrected|reference", _configured(
            "corrected or reference: candidates play as the papers' Java code ran them, bugs "
            "included, and measures are binned as it binned them (docs/rules.md §12)",
            "corrected")),
        ("--checkpoint-every", "N", _configured("candidates between checkpoints", "quick 1000")),
        ("--out", "DIR", "output folder (default runs/map-elites-NAME-seedS)"),
        ("--resume", "FLAG", "continue from OUT/checkpoint.json (default: start a new run)"),
        ("--matchups", matchups, "also write OUT/matchups.csv with GAMES games per ordered pair "
         "(default 0: none)"),
        ("--quiet", "FLAG", QUIET_HELP),
        ("--wait", "FLAG", WAIT_HELP),
        ("--adopt", "FLAG", ADOPT_HELP),
    ), backend=True, help="MAP-Elites over rule-based agents ([CoG19] Algorithm 1)",
        description="Run MAP-Elites from a named configuration; every option overrides it. "
        "Outputs (checkpoint.json, archive.json, elites.csv, summary.json, heatmap.png) go "
        "to --out.",
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# ga
# --------------------------------------------------------------------------------------------


GA_OPTIONS = {
    "population": "--population",
    "generations": "--generations",
    "n_rules": "--rules",
    "n_genes": "--genes",
    "elitism": "--elitism",
    "tournament": "--tournament",
    "crossover_rate": "--crossover-rate",
    "mutation_rate": "--mutation-rate",
    "mode": "--mode",
    "players": "--players",
    "games": "--games",
    "final_top": "--final-top",
    "final_games": "--final-games",
    "seed": "--seed",
    "scoring": "--scoring",
    "ruleset": "--ruleset",
    "preset": "--preset",
}
"""GAConfig fields -> ``ga`` options (for errors naming the option)."""


def parse_groups(text: str) -> list[tuple[int, ...]]:
    """``"2;3-5"`` → size groups for ``ga --situational`` (each size in one group only).

    Raises:
        OptionError: Malformed, out of range or overlapping groups (naming ``--groups``).
    """
    groups = [check_players("--groups", g) for g in str(text).split(";")]
    sizes = [p for g in groups for p in g]
    repeated = sorted({p for p in sizes if sizes.count(p) > 1})
    if repeated:
        raise OptionError("--groups", f"player count {repeated[0]} is in two groups of {text!r}")
    return groups


def _ga(args: argparse.Namespace) -> int:
    from hanabi_env.outputs import OutputFolder, atomic_write_json
    from qd.ga import GA_CONFIGS, read_ga_checkpoint

    check_out_file("--json", args.ga_json)
    if args.ga_groups is not None and not args.ga_situational:
        raise OptionError("--groups", "only used with --situational")
    groups = parse_groups("2;3-5" if args.ga_groups is None else args.ga_groups)
    groups = groups if args.ga_situational else []
    ruleset = args.ga_ruleset
    if args.ga_preset is not None:
        mode = args.ga_mode or GA_CONFIGS[args.ga_config].mode
        if mode != "mixed":
            raise OptionError(
                "--preset", f"{args.ga_preset} is a mixed fitness, not {mode}: add --mode mixed"
            )
        if ruleset == "corrected":
            raise OptionError(
                "--preset", f"{args.ga_preset} runs the reference rules: drop --ruleset corrected"
            )
        if args.ga_scoring == "strict":
            raise OptionError(
                "--preset",
                f"{args.ga_preset} scores leniently, as the 2018 framework: drop --scoring strict",
            )
        ruleset = "reference"  # the preset implies the reference ruleset
    try:
        overrides = {f: getattr(args, option_dest("ga", o)) for f, o in GA_OPTIONS.items()}
        config = GA_CONFIGS[args.ga_config].replace(**{**overrides, "ruleset": ruleset})
    except ValueError as exc:
        raise config_error(exc, GA_OPTIONS) from None
    check_out_dir("--out", args.ga_out)
    if args.ga_resume and args.ga_out is None:
        raise OptionError("--resume", "needs --out DIR (the folder of the checkpoint)")
    ensure_compiled(("rule games",))
    folder: contextlib.AbstractContextManager = contextlib.nullcontext()
    ckpt = None if args.ga_out is None else Path(args.ga_out) / "checkpoint.json"
    if args.ga_resume and not args.ga_situational and ckpt is not None and ckpt.exists():
        read_ga_checkpoint(ckpt, config)  # another run's checkpoint: refused, saying how
    if args.ga_out is not None:  # the run's folder: locked, bound to these settings
        settings = {**config.as_dict(), "groups": [list(g) for g in groups]}
        folder = OutputFolder(
            args.ga_out, kind="ga", config=settings, seed=config.seed, wait=args.ga_wait,
            adopt=args.ga_adopt,
        )  # fmt: skip
    with output_files([args.ga_json], args.ga_wait), folder as out:
        doc = _ga_run(args, config, groups, out)
        if out is not None:
            out.write_json("result.json", doc, stage="result")
        if args.ga_json:
            atomic_write_json(args.ga_json, doc)
    return 0


def _ga_run(args: argparse.Namespace, config, groups, out) -> dict:
    """The GA (or the situational agent's) run; its checkpoints in ``out``, an open folder."""
    from qd.ga import run_ga
    from qd.situational import checkpoint_name, evaluate_situational, evolve_situational

    names = [checkpoint_name(g) for g in groups] if args.ga_situational else ["checkpoint.json"]
    for name in names if out is not None else []:
        out.expect(name, stage="search", hashed=False)  # self-checking, rewritten as it runs
    with backend_from(args, "ga") as backend:
        if args.ga_situational:
            agent, results = evolve_situational(
                config, groups, backend, not args.ga_quiet, args.ga_out, args.ga_resume
            )
            score = evaluate_situational(
                agent,
                config.mode,
                sorted({p for g in groups for p in g}),
                config.final_games,
                _report_seed(config.seed),
                backend.workers,
                config.scoring,
                pool=config.pool,
                preset=config.preset,
            )
            doc = {
                "agent": agent.as_dict(),
                "evaluation": {k: v for k, v in score.items() if k != "results"},
                "runs": [r.as_dict() for r in results],
            }
            print(f"situational agent ({config.ruleset} rules): {agent.as_dict()['groups']}")
            print(
                f"  {config.mode} fitness {score['mean']:.2f}; per size "
                + ", ".join(f"{p}p {m:.2f}" for p, m in score["per_size"].items())
            )
        else:
            ckpt = None if out is None else out.file("checkpoint.json")
            result = run_ga(
                config, backend, not args.ga_quiet, checkpoint=ckpt, resume=args.ga_resume
            )
            doc = result.as_dict()
            print(
                f"GA {config.name}: {config.mode}"
                + (f" ({config.preset})" if config.preset else "")
                + f", {config.ruleset} rules, players {list(config.players)}, "
                f"{config.generations} generations x {config.population}"
            )
            for f in result.final:
                print(
                    f"  final {f['final_fitness']:.2f} (gen {f['fitness']:.2f}): {f['chromosome']}"
                )
    return doc


def _report_seed(seed: int) -> int:
    """Seed of the final situational evaluation (distinct from the GA's own seeds)."""
    from qd.evaluator import derive_seed

    return derive_seed(seed, 14)


def _add_ga(sub) -> None:
    from qd.ga import GA_CONFIGS

    config = {"choices": list(GA_CONFIGS), "default": "quick"}
    population = {"type": int_range(2, MAX_COUNT, "population_int"), "metavar": "N"}
    rules = {"type": int_range(2, 105, "rules_int"), "metavar": "N"}
    genes = {"type": int_range(2, 105, "genes_int"), "metavar": "N"}
    add_command(sub, "ga", _ga, "ga", (
        ("--config", config, "named configuration; every other option overrides one of its "
         "settings (default quick: 20 chromosomes x 5 generations)"),
        ("--population", population, _configured("chromosomes per generation", "quick 20")),
        ("--generations", "N", _configured("generations", "quick 5")),
        ("--rules", rules, _configured("rule indices permuted: 50 (the old base) or 72 (the "
                                       "new one)", "quick 50")),
        ("--genes", genes, _configured("keep only the first N genes", "quick: all")),
        ("--elitism", "N0", _configured("best chromosomes copied unchanged into the next "
                                        "generation", "quick 4")),
        ("--tournament", "N", _configured("tournament size of the selection", "quick 3")),
        ("--crossover-rate", "P", _configured("probability of ordered crossover, in [0, 1]",
                                              "quick 0.9")),
        ("--mutation-rate", "P", _configured("probability of a swap mutation, in [0, 1]",
                                             "quick 0.1")),
        ("--mode", {"choices": ["mirror", "mixed"]}, _configured(
            "fitness: mirror (self-play) or mixed (with the test pool)", "quick mirror")),
        ("--players", "SIZES", _configured("player counts, e.g. 2-5, 2,4 or 3", "quick 2-5")),
        ("--games", "N", _configured("games per size (and partner) per generation", "quick 5")),
        ("--final-top", "N", _configured("best chromosomes re-evaluated at the end", "quick 3")),
        ("--final-games", "N", _configured("games per size (and partner) of that final "
                                           "evaluation", "quick 50")),
        ("--seed", "SEED_N", SEED_HELP),
        ("--scoring", "lenient|strict", _configured("lenient (the papers) or strict (HLE)",
                                                    "lenient")),
        ("--ruleset", "corrected|reference", "corrected or reference: chromosomes play as the "
         "papers' Java code ran them (HistogramAgent, bugs included, fixed hand slots) and "
         "mixed-mode partners are its baselines (docs/rules.md §12) (default: the "
         "configuration's, corrected; reference with --preset cig18)"),
        ("--preset", {"choices": ["cig18"]}, "cig18: [CIG18]'s mixed fitness, against the 2018 "
         "pool as the framework built it (reference rules, random seat, lenient scoring; "
         "docs/rules.md §12.3); needs --mode mixed or a mixed --config (default: none)"),
        ("--situational", "FLAG", "evolve one chromosome per group of sizes, see --groups "
         "(default: one chromosome for all sizes)"),
        ("--groups", {"metavar": "GROUPS"}, "size groups for --situational, each size in one "
         "group (default '2;3-5')"),
        ("--json", "PATH", "write the result as JSON (default: none)"),
        ("--out", "DIR", "checkpoint every generation into DIR (checkpoint.json; with "
         "--situational checkpoint-SIZESp.json per group) and write DIR/result.json at the end "
         "(default: none)"),
        ("--resume", "FLAG", "continue from the checkpoint in --out, with the same settings "
         "(default: start a new run)"),
        ("--quiet", "FLAG", QUIET_HELP),
        ("--wait", "FLAG", WAIT_HELP),
        ("--adopt", "FLAG", ADOPT_HELP),
    ), backend=True, help="the 2018 genetic algorithm over rule permutations ([CIG18])",
        description="Evolve rule permutations with ordered crossover, tournament selection, "
        "swap mutation and elitism; mirror or mixed fitness over game sizes.",
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# population
# --------------------------------------------------------------------------------------------


def _source(args: argparse.Namespace, prefix: str):
    """The archive of a command's SOURCE (its ``--out`` checked first) and the ruleset to play.

    The ruleset is ``--ruleset``, else the SOURCE's own (:func:`qd.analysis.archive_ruleset`).
    """
    from qd.analysis import archive_ruleset

    check_out_dir("--out", getattr(args, f"{prefix}_out"))
    archive = load_source("SOURCE", getattr(args, f"{prefix}_source"))
    ensure_compiled(("rule games",))
    return archive, getattr(args, f"{prefix}_ruleset") or archive_ruleset(archive)


def _add_source_command(sub, name: str, func, prefix: str, rows, scoring, texts: dict) -> None:
    """A command on the elites of a SOURCE population (``population``, ``matchups``).

    SOURCE, the command's own ``rows`` (:func:`add_options`), ``--seed``, the ``scoring`` rows,
    ``--ruleset`` (default: the SOURCE's), ``--out`` and the parallelism options; ``texts``
    holds the command's ``help``, ``description``, ``source`` (SOURCE's help) and ``out`` (the
    help and default of ``--out``).
    """
    add_command(sub, name, func, prefix, (
        (f"{prefix}_source", "SOURCE", texts["source"]),
        *rows,
        ("--seed", "SEED_N", SEED_HELP, 0),
        *scoring,
        ("--ruleset", "corrected|reference", SOURCE_RULESET_HELP),
        ("--out", "DIR", *texts["out"]),
        ("--wait", "FLAG", WAIT_HELP),
    ), backend=True, help=texts["help"], description=texts["description"])  # fmt: skip


def _population(args: argparse.Namespace) -> int:
    archive, ruleset = _source(args, "pop")
    other = None
    if args.pop_compare is not None:
        other = load_source("--compare", args.pop_compare)
        if archive.dims != other.dims or archive.solution_dim != other.solution_dim:
            raise OptionError(
                "--compare",
                f"{args.pop_compare} has a {'x'.join(map(str, other.dims))} grid of "
                f"{other.solution_dim}-gene chromosomes, {args.pop_source} a "
                f"{'x'.join(map(str, archive.dims))} grid of {archive.solution_dim}-gene ones; "
                "cross-run metrics need the same grid and length",
            )
    names = ("source", "reeval", "matchups", "compare", "cross_games", "action_games")
    settings = {"ruleset": ruleset, **{n: getattr(args, f"pop_{n}") for n in names}}
    with _analysis_folder(args, "pop", "population", settings) as folder:
        return _population_into(folder, args, archive, other, ruleset)


def _analysis_folder(args: argparse.Namespace, prefix: str, kind: str, settings: dict):
    """The locked output folder of an analysis command (a rerun replaces its outputs)."""
    from hanabi_env.outputs import OutputFolder

    return OutputFolder(
        getattr(args, f"{prefix}_out"), kind=kind, config=settings,
        seed=getattr(args, f"{prefix}_seed"), wait=getattr(args, f"{prefix}_wait"), fresh=True,
    )  # fmt: skip


def _population_into(folder, args: argparse.Namespace, archive, other, ruleset: str) -> int:
    """``population``'s analyses, written into ``folder`` (an open OutputFolder)."""
    import numpy as np

    from qd.analysis import archive_matchups, cross_run_metrics, reevaluate
    from qd.io import save_archive

    report: dict = {
        "source": args.pop_source,
        "ruleset": ruleset,
        "archive_stats": archive.stats().as_dict(),
    }
    with backend_from(args, "pop") as backend:
        if args.pop_reeval:
            reevaluate(archive, args.pop_reeval, args.pop_seed, backend=backend, ruleset=ruleset)
            report["reeval_games"] = args.pop_reeval
            report["reeval_stats"] = archive.stats("reeval_objective").as_dict()
            if not args.pop_json:
                _print_reevaluation(archive, args.pop_reeval)
        if args.pop_matchups:
            table = archive_matchups(
                archive, args.pop_matchups, args.pop_seed, ruleset=ruleset, backend=backend
            )
            with folder.staged("matchups.csv", stage="matchups") as tmp:
                table.to_csv(tmp)
            report["matchups"] = {
                "games": args.pop_matchups,
                "population_score": table.population_score(),
                "generalist": table.ids[table.generalist()],
                "intra_population_scores": dict(
                    zip(table.ids, table.intra_population_scores().tolist(), strict=True)
                ),
            }
        if other is not None:
            rows, summary = cross_run_metrics(
                archive,
                other,
                args.pop_cross_games,
                args.pop_seed,
                args.pop_action_games,
                backend=backend,
                ruleset=ruleset,
            )
            report["cross_run"] = summary
            doc = {"summary": summary, "cells": rows}
            folder.write_json("cross_run.json", doc, stage="cross-run")
    with folder.staged("archive.json", stage="population") as tmp:
        save_archive(archive, tmp, metadata={"source": args.pop_source})
    with folder.staged("elites.csv", stage="population") as tmp:
        archive.to_csv(tmp)
    field = "reeval_objective" if "reeval_objective" in archive.fields else "objective"
    if archive.measure_dim == 2 and not np.isnan(archive.data()[field]).any():
        from qd.plot import heatmap

        with folder.staged("heatmap.png", stage="population") as tmp:
            heatmap(archive, tmp, field, title=f"{args.pop_source}: {field}")
    folder.write_json("report.json", report, stage="population")
    if args.pop_json:
        print(json.dumps({k: v for k, v in report.items() if k != "matchups"}, indent=1))
    else:
        _print_population_report(report, folder.path)
    return 0


def _print_reevaluation(archive, games: int) -> None:
    """One row per elite: its niche, stored and re-evaluated scores, behaviour; a legend."""
    from hanabi_adhoc.cli.table import print_table

    d = archive.data()
    published = "published_fitness" in archive.fields
    headers = ["cell", *(["published"] if published else []), "archive", "re-eval", "s.e.m.",
               "comm", "IPP"]  # fmt: skip
    rows = [
        [archive.cell_name(int(cell)), *([d["published_fitness"][k]] if published else []),
         d["objective"][k], d["reeval_objective"][k], d["reeval_sem"][k],
         d["reeval_communicativeness"][k], d["reeval_ipp"][k]]
        for k, cell in enumerate(d["cell"])
    ]  # fmt: skip
    legend = [
        "cell = the elite's niche [communicativeness bin, IPP bin], counted from 0",
        *(["published = the fitness stored in the published population"] if published else []),
        "archive = the elite's stored self-play score; re-eval = its mean self-play score over "
        f"{games} new games (points), s.e.m. its standard error",
        "comm, IPP = communicativeness and information per play measured in those games "
        "(docs/rules.md §5)",
    ]
    print_table(headers, rows, legend)
    print()


def _print_population_report(report: dict, out: Path) -> None:
    """The population's statistics as a table (``--json`` prints the document instead)."""
    from hanabi_adhoc.cli.table import fmt, print_table

    rows = []
    for key, words in (("archive_stats", "stored"), ("reeval_stats", "re-evaluated")):
        st = report.get(key)
        if st:
            rows.append([words, f"{st['num_elites']}", fmt(st["coverage"], ".2f"),
                         st["obj_max"], st["obj_mean"], fmt(st["qd_score"], ".1f")])  # fmt: skip
    print(f"{report['source']} ({report['ruleset']} ruleset)")
    print_table(
        ["scores", "elites", "coverage", "best", "mean", "QD score"],
        rows,
        legend=["coverage = share of the grid's niches holding an elite; best, mean and QD "
                "score (their sum) are over the elites' self-play scores (points)"],
    )  # fmt: skip
    mu = report.get("matchups")
    if mu:
        print(
            f"match-ups ({mu['games']} games per ordered pair): mean pairwise score "
            f"{fmt(mu['population_score'])}, Generalist {mu['generalist']}"
        )
    cross = report.get("cross_run")
    if cross:
        print("cross-run: " + ", ".join(f"{k} {fmt(v, '.3g')}" for k, v in cross.items()))
    print(f"wrote {out}/ (report.json, archive.json, elites.csv, ...)")


def _matchups(args: argparse.Namespace) -> int:
    from qd.analysis import archive_matchups

    archive, ruleset = _source(args, "mu")
    out = Path(args.mu_out)
    settings = {"source": args.mu_source, "games": args.mu_games, "scoring": args.mu_scoring,
                "ruleset": ruleset}  # fmt: skip
    with _analysis_folder(args, "mu", "matchups", settings) as folder:
        with backend_from(args, "mu") as backend:
            table = archive_matchups(
                archive,
                args.mu_games,
                args.mu_seed,
                ruleset=ruleset,
                scoring=args.mu_scoring,
                backend=backend,
            )
        with folder.staged("matchups.csv", stage="matchups") as tmp:
            table.to_csv(tmp)
        try:
            from qd.plot import matchup_heatmap

            with folder.staged("matchups.png", stage="matchups") as tmp:
                matchup_heatmap(table, tmp, title=f"{args.mu_source}: match-ups")
        except ImportError as exc:  # pragma: no cover - depends on the environment
            print(f"note: no figure ({exc}; the qd extra draws it: pip install '.[qd]')",
                  file=sys.stderr)  # fmt: skip
    intra = table.intra_population_scores()
    g = table.generalist()
    print(
        f"{len(table.ids)} agents ({ruleset} rules), {table.games} games per ordered pair: "
        "population score "
        f"{table.population_score():.2f}, mean self-play {table.self_play().mean():.2f}, "
        f"generalist {table.ids[g]} (intra-population score {intra[g]:.2f})"
    )
    print(f"wrote {out / 'matchups.csv'} and {out / 'matchups.png'}")
    return 0


def _add_source_commands(sub) -> None:
    """``population`` and ``matchups``, the commands on the elites of a SOURCE population."""
    _add_source_command(sub, "population", _population, "pop", (
        ("--reeval", "GAMES", "re-evaluate every elite with GAMES self-play games (default: no "
         "re-evaluation)"),
        ("--matchups", "GAMES", "write matchups.csv with GAMES games per ordered pair (default: "
         "none)"),
        ("--compare", {"metavar": "OTHER"}, "cross-run metrics against a second "
         "archive/population (default: none)"),
        ("--cross-games", "N", "2-player games per self-play and seat order of the --compare "
         "cross-play (default 100)", 100),
        ("--action-games", "N0", "recorded games per agent for the --compare action agreement, "
         "0 = skip (default 10)", 10),
        ("--json", "FLAG", "print the report as JSON instead of tables"),
    ), (), {
        "help": "analyse a MAP-Elites archive or a published population",
        "description": "SOURCE is an archive.json, a population JSON, or 5x5 / 20x20 (the "
        "published populations shipped in qd/data/).",
        "source": "5x5 or 20x20 (the published populations), an archive.json, a MAP-Elites "
        "run's archive or a population JSON",
        "out": ("output folder: report.json, archive.json, elites.csv, heatmap.png, "
                "matchups.csv (default runs/population)", "runs/population"),
    })  # fmt: skip
    _add_source_command(sub, "matchups", _matchups, "mu", (
        ("--games", "N", "games per ordered pair (default 100)", 100),
    ), (
        ("--scoring", "lenient|strict", SCORING_HELP, "lenient"),
    ), {
        "help": "match-up table of a population (every ordered pair, 2 players)",
        "description": "SOURCE is an archive.json, a population JSON, or 5x5 / 20x20. Writes "
        "OUT/matchups.csv (qd.analysis.MATCHUP_COLUMNS) and OUT/matchups.png.",
        "source": "5x5 or 20x20 (the published populations), an archive.json or a population JSON",
        "out": ("output folder for matchups.csv and matchups.png (default runs/matchups)",
                "runs/matchups"),
    })  # fmt: skip


# --------------------------------------------------------------------------------------------


def add_subcommands(subparsers) -> None:
    """Add ``map-elites``, ``ga``, ``population`` and ``matchups`` to an argparse subparsers."""
    _add_map_elites(subparsers)
    _add_ga(subparsers)
    _add_source_commands(subparsers)
