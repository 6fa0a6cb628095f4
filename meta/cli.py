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
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.evaluate import default_workers
from agents.policy import RuleAgent, make

__all__ = ["CONFIGS", "add_subcommands", "load_archive_source", "load_pool", "main"]

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
            return load_archive(path)
    return load_population(str(source))


def load_pool(source: str, prefix: str = "") -> tuple[list[RuleAgent], list[str]]:
    """Policies and ids of a pool SOURCE (see the module docstring).

    Args:
        source: ``baselines:NAME,...`` or a population (:func:`load_archive_source`).
        prefix: Prepended to every id (e.g. ``"B"`` → ``"B[1,3]"``), to keep the partners of
            another run apart from H's elites of the same cells.

    Returns:
        ``(policies, ids)``; population ids are cell names ``"[i,j]"`` (docs/rules.md §9.1).

    Raises:
        ValueError: An empty pool or an unknown baseline name.
        FileNotFoundError: No such population.
    """
    if source.startswith("baselines:"):
        names = [n for n in source.split(":", 1)[1].split(",") if n.strip()]
        if not names:
            raise ValueError(f"source={source!r} names no baseline agent")
        pols = [make(n.strip()) for n in names]
        return pols, [prefix + p.name for p in pols]
    archive = load_archive_source(source)
    cells = archive.occupied_cells()
    if len(cells) == 0:
        raise ValueError(f"source={source!r} has no elites")
    ids = [prefix + archive.cell_name(int(c)) for c in cells]
    pols = [
        RuleAgent([int(g) for g in archive.solution[c]], name=i)
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


def _pool_option(option: str, source: str, prefix: str = ""):
    """:func:`load_pool` with its errors as one-line usage errors naming ``option``."""
    from qd.cli import OptionError, check_archive

    if not str(source).strip():
        raise OptionError(option, "an empty SOURCE is not allowed")
    try:
        if not source.startswith("baselines:"):
            check_archive(option, load_archive_source(source), source)
        return load_pool(source, prefix=prefix)
    except OptionError:
        raise
    except FileNotFoundError as err:
        raise OptionError(option, str(err)) from None
    except KeyError as err:
        raise OptionError(option, str(err.args[0] if err.args else err)) from None
    except (ValueError, TypeError, IndexError, AttributeError, OSError) as err:
        raise OptionError(option, f"{source}: not a pool ({err})") from None


def _check_table_file(option: str, path: Path, games: int, seed: int) -> None:
    """An existing table file to resume is a response table made with these settings."""
    from meta.table import TableFileError, _read_table
    from qd.cli import OptionError

    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        rows, _ = _read_table(path, exact_header=True)
    except (TableFileError, OSError) as err:
        raise OptionError(option, str(err)) from None
    for row in rows:
        if (int(row["games"]), int(row["seed"])) != (games, seed):
            raise OptionError(
                option,
                f"{path} holds a table made with games={row['games']}, seed={row['seed']}, not "
                f"--train-games {games} --seed {seed}; use another path or those settings",
            )


def _table(args) -> int:
    from meta.table import build_table
    from qd.cli import check_out_file

    check_out_file("--out", args.out)
    _check_table_file("--out", Path(args.out), args.train_games, args.seed)
    r, r_ids = _pool_option("--responses", args.responses)
    h_opt = "--hypotheses" if args.hypotheses else "--responses"
    h, h_ids = _pool_option(h_opt, args.hypotheses or args.responses)
    args.workers = args.workers or default_workers()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    bar = _bar(len(r) * len(h) * args.train_games, "meta table")
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
        )
    finally:
        bar.close()
    print(
        json.dumps(
            {"table": str(out), "generalist": t.response_ids[t.generalist()], "shape": t.shape}
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
    for name in ("table.csv", "oracle_table.csv"):
        _check_table_file("--out", Path(args.out) / name, train, args.seed)
    h_src = args.hypotheses or args.responses
    e_src = args.partners or h_src
    # elites of another population share cell ids with H's elites: keep them apart
    e_prefix = "E" if e_src != h_src and not e_src.startswith("baselines:") else ""
    r, r_ids = _pool_option("--responses", args.responses)
    h, h_ids = _pool_option("--hypotheses" if args.hypotheses else "--responses", h_src)
    e_opt = "--partners" if args.partners else "--hypotheses" if args.hypotheses else "--responses"
    e, e_ids = _pool_option(e_opt, e_src, prefix=e_prefix)
    args.workers = args.workers or default_workers()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table, oracle = _tables(args, out, train, (r, r_ids), (h, h_ids), (e, e_ids))
    dims = (5, 5)
    if not h_src.startswith("baselines:"):
        dims = tuple(load_archive_source(h_src).dims)
    self_play = None
    if args.self_play_games > 0:
        self_play = self_play_measures(e, args.self_play_games, args.seed, workers=args.workers)
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
    )
    res.to_json(out / "evaluation.json")
    res.to_csv(out / "games.csv")
    res.observed_to_csv(out / "observed.csv")
    doc = res.to_dict()
    report = {
        "summary": {v: {k: s[k] for k in ("mean", "sem")} for v, s in doc["summary"].items()},
        "ttests": doc["ttests"],
        "niche_mae": doc["niche_mae"],
    }
    if args.figures:
        report["figures"] = [str(p) for p in _figures(res, table, Path(args.figures))]
    print(json.dumps(report, indent=1))
    return 0


def _tables(args, out: Path, train: int, rp, hp, ep):
    """I(R, H), and I(R, E) when some partners are not in H (for the Oracle)."""
    from meta.table import build_table

    (r, r_ids), (h, h_ids), (e, e_ids) = rp, hp, ep
    bar = _bar(len(r) * len(h) * train, "meta table")
    try:
        table = build_table(
            r, h, train, args.seed, r_ids, h_ids, path=out / "table.csv",
            workers=args.workers, progress=bar.update,
        )  # fmt: skip
        oracle = None
        if set(e_ids) - set(h_ids):
            bar.total += len(r) * len(e) * train
            oracle = build_table(
                r, e, train, args.seed, r_ids, e_ids, path=out / "oracle_table.csv",
                workers=args.workers, progress=bar.update,
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
    from qd.cli import seed_int, workers_int

    p.add_argument(
        "--responses",
        default="5x5",
        metavar="SOURCE",
        help="pool R of responses the meta-agent can play (default 5x5)",
    )
    p.add_argument(
        "--hypotheses", metavar="SOURCE", help="pool H of partner hypotheses (default: R)"
    )
    p.add_argument("--seed", type=seed_int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--workers",
        type=workers_int,
        default=None,
        metavar="N",
        help="processes, >= 1 (default: all cores; results do not depend on it)",
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
