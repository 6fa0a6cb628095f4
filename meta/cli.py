"""Command-line entry points of the meta package: ``meta-table`` and ``meta-eval``.

Pools are given as SOURCE strings (:func:`load_pool`): ``5x5``/``20x20``/a population or archive
JSON path or a MAP-Elites run directory (its elites, ids ``"[i,j]"``; docs/rules.md §9.1), or
``baselines:NAME,NAME,...`` (baseline agents, docs/rules.md §4). Elites of a partner population
other than H get ids ``"E[i,j]"``, so that the Oracle uses I(R, E) for them.

``meta-eval`` evaluates the Bayesian variants of [Bayes21] and, on request
(``--variants ...,response-adaptive,response-oracle``), the response-table agent of [ToG20]
(:mod:`meta.response`); it prints mean ± s.e.m., Welch's t-tests and the niche-estimate MAE
(partner behaviour observed vs self-play), and ``--figures DIR`` writes the figures of
:mod:`meta.plot`. Presets (``--config``): ``quick`` (minutes on 2 cores) and ``paper``
([Bayes21]: n_train = 400, k = 200 episodes of g = 10 games).

**Ruleset** (``--ruleset``, docs/rules.md §12): every agent of every pool plays in one ruleset,
``corrected`` or ``reference`` (the papers' Java agents, bug for bug). Without the option the
ruleset is the one the pools record (:func:`recorded_ruleset`: a MAP-Elites run of this
toolkit records its ruleset in its archive's binning), else ``corrected``, the toolkit's
default, also for the published ``5x5``/``20x20`` populations (which the papers' Java code
made: ``--ruleset reference`` replays them as the papers ran them). Pools that record
different rulesets need ``--ruleset``. The command prints the ruleset it uses and why (one
``ruleset:`` line on stderr) and keeps it beside each response table (``TABLE.ruleset``; a
table without one was made in the corrected ruleset): resuming a table made in another ruleset
is refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from agents.evaluate import default_workers
from agents.policy import RuleAgent, make
from agents.reference import RULESETS
from hanabi_env.validate import check_choice

__all__ = [
    "CONFIGS",
    "add_subcommands",
    "load_archive_source",
    "load_pool",
    "main",
    "recorded_ruleset",
    "resolve_ruleset",
]

CONFIGS = {
    "quick": {"train_games": 50, "episodes": 5, "games": 10},
    "paper": {"train_games": 400, "episodes": 200, "games": 10},
}
"""Presets of ``meta-eval`` (``--train-games``, ``--episodes``, ``--games`` override them)."""


def load_archive_source(source: str | Path):
    """The :class:`qd.archive.Archive` of a population SOURCE.

    Args:
        source: A MAP-Elites run directory (holding ``archive.json``), an archive JSON written
            by :mod:`qd` (``"format": "hanabi-adhoc/qd-archive"``), or anything
            :func:`qd.io.load_population` reads (``5x5``, ``20x20``, fixture files, the
            reference's formats).

    Raises:
        FileNotFoundError: No such population.
        ValueError: Not a population.
    """
    return _load_archive(source)[0]


def _load_archive(source: str | Path):
    """``(archive, run)``: the population of SOURCE, and whether it is a qd archive (a run)."""
    from qd.io import load_archive, load_population

    path = Path(source)
    if path.is_dir():
        path = path / "archive.json"
        if not path.exists():
            raise FileNotFoundError(f"{source}: a directory without archive.json")
    if path.is_file() and path.suffix == ".json":
        try:
            fmt = json.loads(path.read_text()).get("format")
        except (json.JSONDecodeError, AttributeError):
            fmt = None
        if fmt == "hanabi-adhoc/qd-archive":
            return load_archive(path), True
    return load_population(str(source)), False


def recorded_ruleset(source: str | Path) -> str | None:
    """The ruleset a pool SOURCE was made with, when it records one.

    A MAP-Elites run of this toolkit (a run folder or its ``archive.json``) records it in its
    archive's binning: ``"reference"`` binning for a ``ruleset="reference"`` run
    (:class:`qd.config.MapElitesConfig`), ``"floor"`` for a corrected one. Baselines, the
    published populations and other population files record none (None); the published ones
    were made by the papers' Java code, which ``"reference"`` replays.

    Raises:
        FileNotFoundError, ValueError: As :func:`load_archive_source`.
    """
    if str(source).startswith("baselines:"):
        return None
    archive, run = _load_archive(source)
    if getattr(archive, "binning", "floor") == "reference":
        return "reference"
    return "corrected" if run else None


def resolve_ruleset(
    requested: str | None, recorded: dict[str, str | None]
) -> tuple[str, str, list[str]]:
    """The ruleset of a meta command: ``(ruleset, why, notes)``.

    Args:
        requested: ``--ruleset`` (None: not given).
        recorded: Option name → :func:`recorded_ruleset` of its SOURCE.

    Returns:
        The ruleset, the reason in words, and notes (a pool played in a ruleset other than the
        one it records).

    Raises:
        ValueError: ``requested`` is not a ruleset, or it is None and the pools record
            different rulesets.
    """
    if requested is not None:
        check_choice("ruleset", requested, RULESETS)
        notes = [
            f"{opt} was made with ruleset {rec}; it plays as {requested} here"
            for opt, rec in recorded.items()
            if rec is not None and rec != requested
        ]
        return requested, "--ruleset", notes
    known = {opt: rec for opt, rec in recorded.items() if rec is not None}
    if len(set(known.values())) > 1:
        made = ", ".join(f"{opt} {rec}" for opt, rec in known.items())
        raise ValueError(
            f"the pools were made with different rulesets ({made}); choose the ruleset all of "
            "them play in with --ruleset corrected or --ruleset reference"
        )
    if known:
        opts = " and ".join(dict.fromkeys(known))
        ruleset = next(iter(known.values()))
        return ruleset, f"recorded by the MAP-Elites run of {opts}", []
    return (
        "corrected",
        "the default; --ruleset reference plays the agents as the papers' Java code did, "
        "the code that made the published populations",
        [],
    )


def load_pool(
    source: str, prefix: str = "", ruleset: str = "corrected"
) -> tuple[list[RuleAgent], list[str]]:
    """Policies and ids of a pool SOURCE (see the module docstring).

    Args:
        source: ``baselines:NAME,...`` or a population (:func:`load_archive_source`).
        prefix: Prepended to every id (e.g. ``"B"`` → ``"B[1,3]"``), to keep the partners of
            another run apart from H's elites of the same cells.
        ruleset: ``"corrected"`` (default) or ``"reference"``: the rule agents' semantics
            (docs/rules.md §12). Reference elites play as the papers' chromosome agents
            (HistogramAgent), reference baselines as the framework's ProductionRuleAgent
            (:func:`agents.make`).

    Returns:
        ``(policies, ids)``; population ids are cell names ``"[i,j]"`` (docs/rules.md §9.1).

    Raises:
        ValueError: An empty pool, an unknown baseline name or an unknown ``ruleset``.
        FileNotFoundError: No such population.
    """
    check_choice("ruleset", ruleset, RULESETS)
    if source.startswith("baselines:"):
        names = [n for n in source.split(":", 1)[1].split(",") if n.strip()]
        if not names:
            raise ValueError(f"source={source!r} names no baseline agent")
        pols = [make(n.strip(), ruleset=ruleset) for n in names]
        return pols, [prefix + p.name for p in pols]
    archive = load_archive_source(source)
    cells = archive.occupied_cells()
    if len(cells) == 0:
        raise ValueError(f"source={source!r} has no elites")
    ids = [prefix + archive.cell_name(int(c)) for c in cells]
    pols = [
        RuleAgent([int(g) for g in archive.solution[c]], name=i, ruleset=ruleset)
        for c, i in zip(cells, ids, strict=True)
    ]
    return pols, ids


def _bar(total: int, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="game")


def _error(err: Exception) -> int:
    """Report a user error in one line (exit code 2)."""
    msg = err.args[0] if isinstance(err, KeyError) and err.args else err
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _pool_option(option: str, source: str, prefix: str = "", ruleset: str = "corrected"):
    """:func:`load_pool` with its errors as one-line usage errors naming ``option``."""
    _recorded_option(option, source)
    with _source_errors(option, source):
        return load_pool(source, prefix=prefix, ruleset=ruleset)


@contextlib.contextmanager
def _source_errors(option: str, source: str):
    """Turn the errors of reading a pool SOURCE into one-line usage errors naming ``option``."""
    from qd.cli import OptionError

    try:
        yield
    except OptionError:
        raise
    except FileNotFoundError as err:
        raise OptionError(option, str(err)) from None
    except KeyError as err:
        raise OptionError(option, str(err.args[0] if err.args else err)) from None
    except (ValueError, TypeError, IndexError, AttributeError, OSError) as err:
        raise OptionError(option, f"{source}: not a pool ({err})") from None


def _recorded_option(option: str, source: str) -> str | None:
    """:func:`recorded_ruleset` of a checked SOURCE, errors as usage errors naming ``option``."""
    from qd.cli import OptionError, check_archive

    if not str(source).strip():
        raise OptionError(option, "an empty SOURCE is not allowed")
    if source.startswith("baselines:"):
        return None
    with _source_errors(option, source):
        check_archive(option, load_archive_source(source), source)
        return recorded_ruleset(source)


def _ruleset_option(args, sources: dict[str, str]) -> tuple[str, str, list[str]]:
    """:func:`resolve_ruleset` of the pool options ``sources`` (option → SOURCE)."""
    from qd.cli import OptionError

    recorded = {opt: _recorded_option(opt, src) for opt, src in sources.items()}
    try:
        return resolve_ruleset(args.ruleset, recorded)
    except ValueError as err:
        raise OptionError("--ruleset", str(err)) from None


def _say_ruleset(ruleset: str, why: str, notes: list[str]) -> None:
    """The ruleset line of a meta command (stderr: stdout holds its JSON result)."""
    print(f"ruleset: {ruleset} ({why})", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def ruleset_file(table: Path) -> Path:
    """Where the ruleset of a response table file is kept: ``TABLE.ruleset``."""
    return table.with_name(table.name + ".ruleset")


def _table_ruleset(table: Path) -> str:
    """The ruleset a table file was made in (no ``.ruleset`` file: ``corrected``)."""
    path = ruleset_file(table)
    return path.read_text().strip() if path.is_file() else "corrected"


def _mark_ruleset(table: Path, ruleset: str) -> None:
    """Record ``ruleset`` beside a table before any of its rows is written."""
    from qd.io import atomic_write_text

    if not ruleset_file(table).is_file() or _table_ruleset(table) != ruleset:
        atomic_write_text(ruleset_file(table), ruleset + "\n")


def _check_table_file(
    option: str, path: Path, games: int, seed: int, ruleset: str = "corrected"
) -> None:
    """An existing table file to resume is a response table made with these settings."""
    from meta.table import TableFileError, _read_table
    from qd.cli import OptionError

    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        rows, _ = _read_table(path, exact_header=True)
        made = _table_ruleset(path)
    except (TableFileError, OSError) as err:
        raise OptionError(option, str(err)) from None
    for row in rows:
        if (int(row["games"]), int(row["seed"])) != (games, seed):
            raise OptionError(
                option,
                f"{path} holds a table made with games={row['games']}, seed={row['seed']}, not "
                f"--train-games {games} --seed {seed}; use another path or those settings",
            )
    if rows and made != ruleset:
        raise OptionError(
            option,
            f"{path} holds a table made in the {made} ruleset, not {ruleset} (see "
            f"{ruleset_file(path).name}); use another path or --ruleset {made}",
        )


def _table(args) -> int:
    from meta.table import build_table
    from qd.cli import check_out_file

    check_out_file("--out", args.out)
    h_opt = "--hypotheses" if args.hypotheses else "--responses"
    ruleset, why, notes = _ruleset_option(
        args, {"--responses": args.responses, h_opt: args.hypotheses or args.responses}
    )
    _check_table_file("--out", Path(args.out), args.train_games, args.seed, ruleset)
    r, r_ids = _pool_option("--responses", args.responses, ruleset=ruleset)
    h, h_ids = _pool_option(h_opt, args.hypotheses or args.responses, ruleset=ruleset)
    args.workers = args.workers or default_workers()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _say_ruleset(ruleset, why, notes)
    _mark_ruleset(out, ruleset)
    bar = _bar(len(r) * len(h) * args.train_games, "meta table")
    backend = _backend(args)
    try:
        t = build_table(
            r,
            h,
            args.train_games,
            args.seed,
            r_ids,
            h_ids,
            path=out,
            workers=args.workers,
            progress=bar.update,
            backend=backend,
        )
    finally:
        bar.close()
        if backend is not None:
            backend.close()
    print(
        json.dumps(
            {
                "table": str(out),
                "generalist": t.response_ids[t.generalist()],
                "shape": t.shape,
                "ruleset": ruleset,
            }
        )
    )
    return 0


def _eval(args) -> int:
    from meta.evaluate import ALL_VARIANTS, evaluate_meta, self_play_measures
    from qd.cli import OptionError, check_out_dir

    preset = CONFIGS[args.config]  # --train-games, --episodes, --games override the preset
    train = preset["train_games"] if args.train_games is None else args.train_games
    episodes = preset["episodes"] if args.episodes is None else args.episodes
    games = preset["games"] if args.games is None else args.games
    variants = [v.strip() for v in args.variants.split(",")]
    unknown = [v for v in variants if v not in ALL_VARIANTS]
    if unknown:
        raise OptionError(
            "--variants",
            f"{unknown[0]!r} is not a variant; allowed: a comma-separated subset of "
            + ", ".join(ALL_VARIANTS),
        )
    repeated = sorted({v for v in variants if variants.count(v) > 1})
    if repeated:
        raise OptionError("--variants", f"{repeated[0]!r} is listed twice")
    check_out_dir("--out", args.out)
    check_out_dir("--figures", args.figures)
    h_src = args.hypotheses or args.responses
    e_src = args.partners or h_src
    h_opt = "--hypotheses" if args.hypotheses else "--responses"
    e_opt = "--partners" if args.partners else h_opt
    ruleset, why, notes = _ruleset_option(
        args, {"--responses": args.responses, h_opt: h_src, e_opt: e_src}
    )
    for name in ("table.csv", "oracle_table.csv"):
        _check_table_file("--out", Path(args.out) / name, train, args.seed, ruleset)
    # elites of another population share cell ids with H's elites: keep them apart
    e_prefix = "E" if e_src != h_src and not e_src.startswith("baselines:") else ""
    r, r_ids = _pool_option("--responses", args.responses, ruleset=ruleset)
    h, h_ids = _pool_option(h_opt, h_src, ruleset=ruleset)
    e, e_ids = _pool_option(e_opt, e_src, prefix=e_prefix, ruleset=ruleset)
    args.workers = args.workers or default_workers()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    _say_ruleset(ruleset, why, notes)
    backend = _backend(args)
    try:
        table, oracle = _tables(
            args, out, train, (r, r_ids), (h, h_ids), (e, e_ids), ruleset, backend
        )
        dims = (5, 5)
        if not h_src.startswith("baselines:"):
            dims = tuple(load_archive_source(h_src).dims)
        self_play = None
        if args.self_play_games > 0:
            self_play = self_play_measures(
                e, args.self_play_games, args.seed, workers=args.workers, backend=backend
            )
        res = evaluate_meta(
            table,
            r,
            e,
            e_ids,
            variants=variants,
            episodes=episodes,
            games=games,
            seed=args.seed,
            oracle_table=oracle,
            workers=args.workers,
            progress=True,
            niche_dims=dims,
            response_threshold=args.response_threshold,
            empty_niche=args.empty_niche,
            self_play=self_play,
            backend=backend,
        )
    finally:
        if backend is not None:
            backend.close()
    doc = {**res.to_dict(), "ruleset": ruleset}
    (out / "evaluation.json").write_text(json.dumps(doc, indent=1))
    res.to_csv(out / "games.csv")
    res.observed_to_csv(out / "observed.csv")
    report = {
        "ruleset": ruleset,
        "summary": {v: {k: s[k] for k in ("mean", "sem")} for v, s in doc["summary"].items()},
        "ttests": doc["ttests"],
        "niche_mae": doc["niche_mae"],
    }
    if args.figures:
        report["figures"] = [str(p) for p in _figures(res, table, Path(args.figures))]
    print(json.dumps(report, indent=1))
    return 0


def _backend(args):
    """The Dask backend of ``--scheduler-address``, or None (local workers)."""
    if not getattr(args, "scheduler_address", None):
        return None
    from agents.backend import make_backend

    return make_backend(args.workers, args.scheduler_address)


def _tables(args, out: Path, train: int, rp, hp, ep, ruleset: str = "corrected", backend=None):
    """I(R, H), and I(R, E) when some partners are not in H (for the Oracle)."""
    from meta.table import build_table

    (r, r_ids), (h, h_ids), (e, e_ids) = rp, hp, ep
    bar = _bar(len(r) * len(h) * train, "meta table")
    try:
        _mark_ruleset(out / "table.csv", ruleset)
        table = build_table(
            r, h, train, args.seed, r_ids, h_ids, path=out / "table.csv",
            workers=args.workers, progress=bar.update, backend=backend,
        )  # fmt: skip
        oracle = None
        if set(e_ids) - set(h_ids):
            bar.total += len(r) * len(e) * train
            _mark_ruleset(out / "oracle_table.csv", ruleset)
            oracle = build_table(
                r, e, train, args.seed, r_ids, e_ids, path=out / "oracle_table.csv",
                workers=args.workers, progress=bar.update, backend=backend,
            )  # fmt: skip
    finally:
        bar.close()
    return table, oracle


def _figures(res, table, fig_dir: Path) -> list[Path]:
    """The meta figures of one evaluation (see :mod:`meta.plot`)."""
    import numpy as np

    from meta import plot
    from meta.response import parse_cell_id

    paths = [plot.plot_variant_scores(res, fig_dir / "variant_scores.png")]
    bayes = [v for v in ("adaptive", "generalist", "oracle", "random") if v in res.variants]
    if bayes:
        # the partner for whom knowing it pays most (largest Oracle − Generalist), if in H
        e = 0
        in_h = [table.hypothesis_ids.index(p) for p in res.partner_ids if p in table.hypothesis_ids]
        if in_h:
            gap = table.scores.max(axis=0) - table.scores[table.generalist()]
            best = table.hypothesis_ids[in_h[int(np.argmax(gap[in_h]))]]
            e = res.partner_ids.index(best)
        paths.append(plot.plot_belief_evolution(res, fig_dir / "belief.png", e, bayes[0]))
        try:
            [parse_cell_id(i) for i in res.hypothesis_ids]
        except ValueError:
            pass
        else:
            paths.append(plot.plot_belief_grid(res, fig_dir / "belief_grid.png", e, bayes[0]))
    if res.self_play is not None:
        paths.append(plot.plot_niche_estimates(res, fig_dir / "niche.png", res.variants[0]))
    return paths


SOURCE_HELP = (
    "SOURCE is 5x5 or 20x20 (the published populations), a population or archive JSON, a "
    "MAP-Elites run folder, or baselines:NAME,NAME,... (e.g. baselines:piers,iggi,outer)."
)


def _common(p) -> None:
    from qd.cli import scheduler_address, seed_int, workers_int

    p.add_argument(
        "--responses",
        default="5x5",
        metavar="SOURCE",
        help="pool R of responses the meta-agent can play (default 5x5)",
    )
    p.add_argument(
        "--hypotheses", metavar="SOURCE", help="pool H of partner hypotheses (default: R)"
    )
    p.add_argument(
        "--ruleset",
        choices=RULESETS,
        default=None,
        help="corrected or reference: every rule agent of every pool plays with the rules as "
        "the papers' Java code ran them, bugs included (docs/rules.md §12) (default: the "
        "ruleset the pools' MAP-Elites run recorded, else corrected, also for the published "
        "5x5/20x20; the command prints which it uses)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--workers",
        type=workers_int,
        default=None,
        metavar="N",
        help="processes, >= 1 (default: all cores; results do not depend on it)",
    )
    p.add_argument(
        "--scheduler-address",
        default=None,
        type=scheduler_address,
        metavar="ADDRESS",
        help="play the rule agents' games on this Dask cluster, e.g. tcp://host:8786: response "
        "tables, self-play measures and the compiled meta-agent evaluation (default: local; "
        "results are identical)",
    )


def _all_variants() -> tuple[str, ...]:
    from meta.evaluate import ALL_VARIANTS

    return ALL_VARIANTS


def add_subcommands(subparsers) -> None:
    """Add ``meta-table`` and ``meta-eval`` to an ``argparse`` subparsers object."""
    from qd.cli import nonnegative_int, positive_int

    p = subparsers.add_parser(
        "meta-table",
        help="offline table I(r, h) (resumable CSV)",
        description="Plays every (response r, hypothesis h) pair and writes the response table "
        "I(r, h) (score, h's communicativeness and IPP) as a resumable CSV. " + SOURCE_HELP,
    )
    _common(p)
    p.add_argument(
        "--train-games",
        type=positive_int,
        default=400,
        metavar="N",
        help="games per (r, h) pair (default 400, as [Bayes21])",
    )
    p.add_argument(
        "--out",
        default="runs/meta/table.csv",
        metavar="CSV",
        help="table path; an existing table is resumed (default runs/meta/table.csv)",
    )
    p.set_defaults(func=_table)
    p = subparsers.add_parser(
        "meta-eval",
        aliases=["meta-evaluate"],
        help="evaluate the meta-agent variants ([Bayes21], [ToG20])",
        description="Builds the response table I(R, H) (and I(R, E) for the Oracle), then "
        "plays K episodes of G games with every partner of E for each variant; writes "
        "OUT/evaluation.json, games.csv, observed.csv and prints mean +- s.e.m., Welch's "
        "t-tests and the niche-estimate MAE. " + SOURCE_HELP,
    )
    _common(p)
    p.add_argument("--partners", metavar="SOURCE", help="pool E of partners (default: H)")
    quick, paper = CONFIGS["quick"], CONFIGS["paper"]
    p.add_argument(
        "--config",
        choices=sorted(CONFIGS),
        default="quick",
        help="preset of --train-games/--episodes/--games: quick = "
        f"{quick['train_games']}/{quick['episodes']}/{quick['games']}, paper = "
        f"{paper['train_games']}/{paper['episodes']}/{paper['games']} (default quick)",
    )
    p.add_argument(
        "--train-games",
        type=positive_int,
        metavar="N",
        help="games per pair of the response tables (default: from --config)",
    )
    p.add_argument(
        "--episodes",
        type=positive_int,
        metavar="K",
        help="episodes per partner and variant (default: from --config)",
    )
    p.add_argument(
        "--games",
        type=positive_int,
        metavar="G",
        help="games per episode (default: from --config)",
    )
    p.add_argument(
        "--variants",
        default="adaptive,generalist,oracle,random",
        help="comma-separated subset of: "
        + ",".join(_all_variants())
        + " (default adaptive,generalist,oracle,random)",
    )
    p.add_argument(
        "--response-threshold",
        type=nonnegative_int,
        default=0,
        metavar="N",
        help="response-adaptive: partner moves observed before leaving the Generalist "
        "(default 0, as [ToG20])",
    )
    p.add_argument(
        "--empty-niche",
        choices=("generalist", "nearest"),
        default="generalist",
        help="response-* variants: what to play when the estimated niche has no response "
        "(default generalist)",
    )
    p.add_argument(
        "--self-play-games",
        type=nonnegative_int,
        default=200,
        metavar="N",
        help="mirror games per partner for the niche-estimate MAE, 0 = skip (default 200)",
    )
    p.add_argument(
        "--figures",
        metavar="DIR",
        help="write the PNG figures of meta.plot here (default: no figures)",
    )
    p.add_argument(
        "--out",
        default="runs/meta",
        metavar="DIR",
        help="output folder: table.csv, evaluation.json, games.csv, observed.csv "
        "(default runs/meta)",
    )
    p.set_defaults(func=_eval)


def main(argv: list[str] | None = None) -> int:
    """Standalone entry point (``python -m meta.cli``)."""
    parser = argparse.ArgumentParser(prog="python -m meta.cli", description=__doc__.split("\n")[0])
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    from qd.cli import OptionError

    try:
        return args.func(args)
    except OptionError as err:
        return _error(err)


if __name__ == "__main__":
    raise SystemExit(main())
