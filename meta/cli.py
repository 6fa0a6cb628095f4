"""Command-line entry points of the meta package: ``meta-table`` and ``meta-eval``.

Pools are given as SOURCE strings (:func:`load_pool`): ``5x5``/``20x20``/a population or archive
JSON path (its elites, ids ``"[i,j]"``; RULES.md §9.1), or ``baselines:NAME,NAME,...`` (baseline
agents, RULES.md §4). Presets (``--config``): ``quick`` (minutes on 2 cores) and ``paper``
([Bayes21]: n_train = 400, k = 200 episodes of g = 10 games).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agents.policy import RuleAgent, make

__all__ = ["CONFIGS", "add_subcommands", "load_pool", "main"]

CONFIGS = {
    "quick": {"train_games": 50, "episodes": 5, "games": 10},
    "paper": {"train_games": 400, "episodes": 200, "games": 10},
}
"""Presets of ``meta-eval`` (``--train-games``, ``--episodes``, ``--games`` override them)."""


def load_pool(source: str) -> tuple[list[RuleAgent], list[str]]:
    """Policies and ids of a pool SOURCE (see the module docstring).

    Raises:
        ValueError: An empty pool or an unknown baseline name.
        FileNotFoundError: No such population.
    """
    if source.startswith("baselines:"):
        names = [n for n in source.split(":", 1)[1].split(",") if n.strip()]
        if not names:
            raise ValueError(f"source={source!r} names no baseline agent")
        pols = [make(n.strip()) for n in names]
        return pols, [p.name for p in pols]
    from qd.io import load_population

    archive = load_population(source)
    cells = archive.occupied_cells()
    if len(cells) == 0:
        raise ValueError(f"source={source!r} has no elites")
    ids = [archive.cell_name(int(c)) for c in cells]
    pols = [
        RuleAgent([int(g) for g in archive.solution[c]], name=i)
        for c, i in zip(cells, ids, strict=True)
    ]
    return pols, ids


def _bar(total: int, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="game")


def _table(args) -> int:
    from meta.table import build_table

    r, r_ids = load_pool(args.responses)
    h, h_ids = load_pool(args.hypotheses or args.responses)
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
    from meta.evaluate import evaluate_meta
    from meta.table import build_table

    preset = CONFIGS[args.config]
    train = args.train_games or preset["train_games"]
    episodes = args.episodes or preset["episodes"]
    games = args.games or preset["games"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    r, r_ids = load_pool(args.responses)
    h, h_ids = load_pool(args.hypotheses or args.responses)
    e, e_ids = load_pool(args.partners or args.hypotheses or args.responses)
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
    res = evaluate_meta(
        table,
        r,
        e,
        e_ids,
        variants=args.variants.split(","),
        episodes=episodes,
        games=games,
        seed=args.seed,
        oracle_table=oracle,
        workers=args.workers,
        progress=True,
    )
    res.to_json(out / "evaluation.json")
    res.to_csv(out / "games.csv")
    doc = res.to_dict()
    print(
        json.dumps(
            {
                "summary": {
                    v: {k: s[k] for k in ("mean", "sem")} for v, s in doc["summary"].items()
                },
                "ttests": doc["ttests"],
            },
            indent=1,
        )
    )
    return 0


def _common(p) -> None:
    p.add_argument("--responses", default="5x5", metavar="SOURCE", help="pool R (default 5x5)")
    p.add_argument("--hypotheses", metavar="SOURCE", help="pool H (default: R)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)


def add_subcommands(subparsers) -> None:
    """Add ``meta-table`` and ``meta-eval`` to an ``argparse`` subparsers object."""
    p = subparsers.add_parser("meta-table", help="offline table I(r, h) (resumable CSV)")
    _common(p)
    p.add_argument("--train-games", type=int, default=400, metavar="N")
    p.add_argument("--out", default="runs/meta/table.csv", metavar="CSV")
    p.set_defaults(func=_table)
    p = subparsers.add_parser("meta-eval", help="evaluate the meta-agent variants ([Bayes21])")
    _common(p)
    p.add_argument("--partners", metavar="SOURCE", help="pool E (default: H)")
    p.add_argument("--config", choices=sorted(CONFIGS), default="quick")
    p.add_argument("--train-games", type=int, metavar="N")
    p.add_argument("--episodes", type=int, metavar="K")
    p.add_argument("--games", type=int, metavar="G")
    p.add_argument("--variants", default="adaptive,generalist,oracle,random")
    p.add_argument("--out", default="runs/meta", metavar="DIR")
    p.set_defaults(func=_eval)


def main(argv: list[str] | None = None) -> int:
    """Standalone entry point (``python -m meta.cli``)."""
    parser = argparse.ArgumentParser(prog="python -m meta.cli", description=__doc__.split("\n")[0])
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
