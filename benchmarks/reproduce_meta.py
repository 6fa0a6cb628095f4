r"""Reproduction of the meta-agent experiments of [Bayes21] and [ToG20] (issue 5; not a test).

For several 5×5 communicativeness × IPP MAP-Elites populations (our own runs, created here if
missing, plus the published population 1 fixture), for every pool pair (H, E):

1. the offline table I(R, H) with R = H (``--train-games`` games per pair; [Bayes21] used 400),
   and, out of distribution, I(R, E) for the Oracle (docs/papers.md §4.2);
2. the evaluation of the Bayesian variants (Adaptive, Generalist, Oracle, Random-Response) and
   of the [ToG20] response-table agent (``response-adaptive``, threshold 0; and, out of
   distribution, ``response-oracle``, which knows the partner's niche) under the [Bayes21]
   protocol: k episodes × g games per partner, 2 players, meta-agent in seat 0;
3. the niche-estimate mean absolute error of [ToG20] (docs/papers.md §4.1): partner behaviour
   observed while the meta-agent plays vs the partner's self-play behaviour, per evaluation and
   over every (r, h) pair of each table.

In distribution E = H; out of distribution E is another population (default: each population
against the next one, cyclically). Prints a Markdown table like [Bayes21] Table IV (mean ±
s.e.m. of the episode scores per variant and pool pair), the Welch t-tests, the MAE and the
papers' qualitative checks; writes JSON/CSV/PNG into ``--out``.

Usage (≈ 35 min on 2 shared cores with the two new runs already made, ≈ 20 min more to
make them; the command used for the numbers in the report)::

    nice -n 5 python3 benchmarks/reproduce_meta.py --out bench_results/meta \\
        --populations bench_results/me_5x5_20k 5x5 --new-seeds 2 3 --candidates 12000 \\
        --me-games 50 --train-games 100 --episodes 30 --games 10 --workers 2

Populations are given as run directories (holding ``archive.json``), archive/population JSON
files or fixture names; ``--new-seeds`` adds runs ``out/populations/me_5x5_s{seed}_c{N}``
(config ``paper`` with ``--candidates``, ``--me-games``; resumed or reused when present).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from meta.evaluate import MetaEvaluation, evaluate_meta, self_play_measures, table_niche_mae
from meta.pools import load_pool
from meta.response import parse_cell_id
from meta.table import build_table
from qd.io import load_archive_source

BAYES21_TABLE_IV = {  # docs/papers.md §4.2 (qualitative)
    "in": "Oracle ≥ Adaptive ≥ Generalist when Oracle − Generalist is large (p < 0.0002)",
    "out": "Adaptive ≈ or slightly below Generalist",
    "random": "Random-Response ≈ 4 points below the other three",
}
TOG20 = {"in": (12.99, 12.25, 10.37), "mae": (0.11, 0.27)}  # Oracle/Generalist/Adaptive; MAE
IN_VARIANTS = ["adaptive", "generalist", "oracle", "random", "response-adaptive"]
OUT_VARIANTS = [*IN_VARIANTS, "response-oracle"]


def ensure_run(out: Path, seed: int, candidates: int, games: int, reeval: int) -> Path:
    """Create (or resume, or reuse) a 5×5 MAP-Elites run; return its directory."""
    from qd.config import get_config
    from qd.run import run_map_elites

    run_dir = out / "populations" / f"me_5x5_s{seed}_c{candidates}"
    if (run_dir / "archive.json").exists():
        return run_dir
    cfg = get_config(
        "paper",
        candidates=candidates,
        random_candidates=max(1, candidates // 10),
        games=games,
        reeval_games=reeval,
        seed=seed,
        checkpoint_every=1000,
    )
    print(f"MAP-Elites run {run_dir} ({candidates} candidates, {games} games, seed {seed})")
    run_map_elites(
        cfg, run_dir, resume=(run_dir / "checkpoint.json").exists(), workers=1, progress=True
    )
    return run_dir


def label_of(source: str, taken: set[str]) -> str:
    """A short unique label for a population source."""
    name = Path(source).name if Path(source).exists() else f"published-{source}"
    name = name.removesuffix(".json")
    label, k = name, 2
    while label in taken:
        label, k = f"{name}-{k}", k + 1
    taken.add(label)
    return label


def _evaluate_pair(task: dict) -> dict:
    """One (H, E) pair (a process-pool task): evaluation + files; returns a JSON-able dict."""
    ev = evaluate_meta(**task["kwargs"])
    stem = task["out"] / "evaluations" / f"{task['h']}__{task['e']}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    ev.to_json(stem.with_suffix(".json"))
    ev.to_csv(stem.with_name(stem.name + "_games.csv"))
    ev.observed_to_csv(stem.with_name(stem.name + "_observed.csv"))
    return {"h": task["h"], "e": task["e"], "path": str(stem.with_suffix(".json")), "ev": ev}


def pm(s: dict) -> str:
    """``mean ± sem``."""
    return f"{s['mean']:.2f} ± {s['sem']:.2f}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--populations", nargs="*", default=["bench_results/me_5x5_20k", "5x5"])
    ap.add_argument("--new-seeds", nargs="*", type=int, default=[2, 3], metavar="SEED")
    ap.add_argument("--candidates", type=int, default=12000)
    ap.add_argument("--me-games", type=int, default=50, help="games per MAP-Elites evaluation")
    ap.add_argument("--reeval-games", type=int, default=1000)
    ap.add_argument("--train-games", type=int, default=100, help="games per table pair")
    ap.add_argument("--episodes", type=int, default=30, help="k")
    ap.add_argument("--games", type=int, default=10, help="g")
    ap.add_argument("--self-play-games", type=int, default=500)
    ap.add_argument("--ood", default="cyclic", help="'cyclic', 'none' or H:E,H:E (labels)")
    ap.add_argument("--response-threshold", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="pool pairs evaluated in parallel")
    ap.add_argument("--out", default="bench_results/meta")
    ap.add_argument(
        "--replot", action="store_true", help="only redraw the figures from the files in --out"
    )
    args = ap.parse_args(argv)
    if args.replot:
        return replot(Path(args.out))
    t_start = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    sources = list(args.populations)
    for s in args.new_seeds:
        run = ensure_run(out, s, args.candidates, args.me_games, args.reeval_games)
        sources.append(str(run))
    taken: set[str] = set()
    pops: dict[str, dict] = {}
    for src in sources:
        lab = label_of(src, taken)
        pols, ids = load_pool(src, prefix=lab)
        archive = load_archive_source(src)
        cells = [parse_cell_id(i) for i in ids]
        sp = self_play_measures(pols, args.self_play_games, seed=args.seed + 7)
        pops[lab] = {
            "source": src,
            "pols": pols,
            "ids": ids,
            "cells": cells,
            "self_play": sp,
            "coverage": len(ids),
            "dims": tuple(archive.dims),
        }
        print(f"population {lab}: {len(ids)} elites from {src}")
    labels = list(pops)
    pairs = [(x, x) for x in labels]
    if args.ood == "cyclic" and len(labels) > 1:
        pairs += [(labels[i], labels[(i + 1) % len(labels)]) for i in range(len(labels))]
    elif args.ood not in ("cyclic", "none"):
        pairs += [tuple(p.split(":")) for p in args.ood.split(",") if p]

    from tqdm.auto import tqdm

    tables, oracle_tables = {}, {}
    need = {(h, e) for h, e in pairs if h != e}
    total = sum(len(pops[x]["ids"]) ** 2 for x in labels) + sum(
        len(pops[h]["ids"]) * len(pops[e]["ids"]) for h, e in need
    )
    (out / "tables").mkdir(exist_ok=True)
    with tqdm(total=total * args.train_games, desc="tables", unit="game") as bar:
        for x in labels:
            p = pops[x]
            tables[x] = build_table(
                p["pols"], p["pols"], args.train_games, args.seed, p["ids"], p["ids"],
                path=out / "tables" / f"{x}.csv", progress=bar.update,
            )  # fmt: skip
        for h, e in sorted(need):
            oracle_tables[h, e] = build_table(
                pops[h]["pols"], pops[e]["pols"], args.train_games, args.seed,
                pops[h]["ids"], pops[e]["ids"], path=out / "tables" / f"{h}__{e}.csv",
                progress=bar.update,
            )  # fmt: skip

    tasks = []
    for h, e in pairs:
        ph, pe = pops[h], pops[e]
        kwargs = {
            "table": tables[h],
            "responses": ph["pols"],
            "partners": pe["pols"],
            "partner_ids": pe["ids"],
            "variants": IN_VARIANTS if h == e else OUT_VARIANTS,
            "episodes": args.episodes,
            "games": args.games,
            "seed": args.seed,
            "oracle_table": oracle_tables.get((h, e)),
            "hypothesis_cells": ph["cells"],
            "partner_cells": pe["cells"],
            "niche_dims": ph["dims"],
            "response_threshold": args.response_threshold,
            "self_play": pe["self_play"],
        }
        tasks.append({"h": h, "e": e, "out": out, "kwargs": kwargs})
    results: dict[tuple[str, str], MetaEvaluation] = {}
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    try:
        it = pool.map(_evaluate_pair, tasks) if pool else map(_evaluate_pair, tasks)
        for r in tqdm(it, total=len(tasks), desc="pool pairs", unit="pair"):
            results[r["h"], r["e"]] = r["ev"]
    finally:
        if pool is not None:
            pool.shutdown()

    report = build_report(pops, tables, results, args)
    report["elapsed_s"] = time.time() - t_start
    (out / "reproduce_meta.json").write_text(json.dumps(report, indent=1, default=_json))
    write_summary_csv(report, out / "reproduce_meta.csv")
    figures(pops, tables, results, out / "figures")
    print_report(report)
    print(f"\nwrote {out}/reproduce_meta.json, .csv and figures/ ({report['elapsed_s']:.0f} s)")
    return 0


def _json(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(type(x))


def _nan_none(x):
    if isinstance(x, float) and np.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _nan_none(v) for k, v in x.items()}
    return x


def build_report(pops, tables, results, args) -> dict:
    """The JSON report: settings, populations, per-pair summaries, t-tests, MAE, checks."""
    rep = {
        "settings": dict(vars(args)),
        "populations": {},
        "pairs": [],
        "table_mae": {},
    }
    for lab, p in pops.items():
        t = tables[lab]
        cells_sp = [
            tuple(min(int(v * d), d - 1) for v, d in zip(sp, p["dims"], strict=True))
            for sp in p["self_play"]
        ]
        rep["populations"][lab] = {
            "source": p["source"],
            "elites": p["coverage"],
            "generalist": t.response_ids[t.generalist()],
            "generalist_intra_population_score": float(t.scores.mean(axis=1).max()),
            "self_play_niche_equals_cell": float(
                np.mean([a == tuple(c) for a, c in zip(cells_sp, p["cells"], strict=True)])
            ),
        }
        rep["table_mae"][lab] = _nan_none(table_niche_mae(t, p["self_play"], p["dims"]))
    for (h, e), ev in results.items():
        s = ev.summary()
        rep["pairs"].append(
            {
                "h": h,
                "e": e,
                "distribution": "in" if h == e else "out",
                "summary": {v: {"mean": s[v]["mean"], "sem": s[v]["sem"]} for v in ev.variants},
                "ttests": ev.ttests(),
                "niche_mae": _nan_none(ev.niche_mae()),
                "oracle_minus_generalist": s["oracle"]["mean"] - s["generalist"]["mean"],
            }
        )
    rep["checks"] = checks(rep)
    return rep


def checks(rep: dict) -> dict:
    """The papers' qualitative checks on the measured numbers."""
    out = {}
    for p in rep["pairs"]:
        s, key = p["summary"], f"{p['h']} / {p['e']}"
        m = {v: s[v]["mean"] for v in s}
        others = min(m["adaptive"], m["generalist"], m["oracle"])
        tt = p["ttests"].get("adaptive_vs_generalist", {})
        out[key] = {
            "oracle>=adaptive>=generalist": bool(m["oracle"] >= m["adaptive"] >= m["generalist"]),
            "adaptive_vs_generalist_p": tt.get("p"),
            "oracle_minus_generalist": m["oracle"] - m["generalist"],
            "random_below_others_by": others - m["random"],
            "response_adaptive_minus_generalist": m["response-adaptive"] - m["generalist"],
        }
    return out


def write_summary_csv(rep: dict, path: Path) -> None:
    """One row per (pool pair, variant): mean, sem, MAE."""
    import csv

    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["h", "e", "distribution", "variant", "mean", "sem", "mae_comm", "mae_ipp"])
        for p in rep["pairs"]:
            for v, s in p["summary"].items():
                mae = p["niche_mae"].get(v, {})
                w.writerow(
                    [p["h"], p["e"], p["distribution"], v, s["mean"], s["sem"],
                     mae.get("comm"), mae.get("ipp")]
                )  # fmt: skip


def print_report(rep: dict) -> None:
    """Markdown tables: Table IV-like scores, t-tests, MAE, checks."""
    print("\n## Populations\n")
    print("| label | elites | generalist (intra-pop. score) | self-play niche = cell | source |")
    print("|---|---|---|---|---|")
    for lab, p in rep["populations"].items():
        print(
            f"| {lab} | {p['elites']} | {p['generalist']} "
            f"({p['generalist_intra_population_score']:.2f}) | "
            f"{p['self_play_niche_equals_cell']:.2f} | {p['source']} |"
        )
    variants = OUT_VARIANTS
    print("\n## Mean episode score ± s.e.m. ([Bayes21] Table IV layout)\n")
    print("| H | E | " + " | ".join(variants) + " |")
    print("|---|---|" + "---|" * len(variants))
    for p in rep["pairs"]:
        cells = [pm(p["summary"][v]) if v in p["summary"] else "=oracle" for v in variants]
        print(f"| {p['h']} | {p['e']} | " + " | ".join(cells) + " |")
    print("\n## Welch t-tests on episode scores\n")
    print("| H | E | test | mean diff | t | p |")
    print("|---|---|---|---|---|---|")
    for p in rep["pairs"]:
        for name, t in p["ttests"].items():
            print(
                f"| {p['h']} | {p['e']} | {name} | {t['mean_diff']:+.2f} | {t['t']:.2f} | "
                f"{t['p']:.2g} |"
            )
    print("\n## Niche-estimate MAE vs self-play ([ToG20]: 0.11 comm, 0.27 IPP)\n")
    print("| H | E | variant | MAE comm | MAE IPP | pairs | niche accuracy |")
    print("|---|---|---|---|---|---|---|")
    for p in rep["pairs"]:
        for v in ("generalist", "adaptive", "response-adaptive", "random"):
            m = p["niche_mae"].get(v)
            if m:
                print(
                    f"| {p['h']} | {p['e']} | {v} | {m['comm']:.3f} | {m['ipp']:.3f} | "
                    f"{m['n_pairs']} | {m['niche_accuracy']:.2f} |"
                )
    for lab, m in rep["table_mae"].items():
        print(
            f"| {lab} | (table, all r ≠ h) | — | {m['comm']:.3f} | {m['ipp']:.3f} | "
            f"{m['n_pairs']} | {m['niche_accuracy']:.2f} |"
        )
    print("\n## Qualitative checks ([Bayes21] Table IV, [ToG20])\n")
    for k, v in BAYES21_TABLE_IV.items():
        print(f"- paper ({k}): {v}")
    print("\n| H / E | O ≥ A ≥ G | A vs G p | O − G | others − Random | respA − G |")
    print("|---|---|---|---|---|---|")
    for key, c in rep["checks"].items():
        p = c["adaptive_vs_generalist_p"]
        print(
            f"| {key} | {c['oracle>=adaptive>=generalist']} | "
            f"{'nan' if p is None else f'{p:.2g}'} | {c['oracle_minus_generalist']:+.2f} | "
            f"{c['random_below_others_by']:+.2f} | "
            f"{c['response_adaptive_minus_generalist']:+.2f} |"
        )


def replot(out: Path) -> int:
    """Redraw the figures from ``out/evaluations`` and ``out/tables`` (no games played)."""
    from meta.table import ResponseTable

    results, tables = {}, {}
    for path in sorted((out / "evaluations").glob("*__*.json")):
        h, e = path.stem.split("__")
        results[h, e] = MetaEvaluation.load(path, path.with_name(path.stem + "_games.csv"))
        if h not in tables:
            tables[h] = ResponseTable.from_csv(out / "tables" / f"{h}.csv")
    order = sorted(results, key=lambda k: (k[0] != k[1], list(results).index(k)))
    figures(None, tables, {k: results[k] for k in order}, out / "figures")
    print(f"redrew {out / 'figures'} from {len(results)} evaluations")
    return 0


def figures(pops, tables, results, fig_dir: Path) -> None:
    """Bar chart of all pairs; belief evolution and niche estimates per in-distribution pair."""
    from meta.plot import (
        plot_belief_evolution,
        plot_belief_grid,
        plot_niche_estimates,
        plot_variant_scores,
    )

    fig_dir.mkdir(parents=True, exist_ok=True)
    groups = {f"{h}\n/ {e}": ev for (h, e), ev in results.items()}
    plot_variant_scores(groups, fig_dir / "variant_scores.png", variants=OUT_VARIANTS)
    for (h, e), ev in results.items():
        if h != e:
            continue
        t = tables[h]
        # the partner where knowing it pays most: largest Oracle − Generalist in the table
        gap = t.scores.max(axis=0) - t.scores[t.generalist()]
        part = int(np.argmax(gap))
        plot_belief_evolution(ev, fig_dir / f"belief_{h}.png", partner=part)
        plot_belief_grid(ev, fig_dir / f"belief_grid_{h}.png", partner=part)
        plot_niche_estimates(ev, fig_dir / f"niche_{h}.png", variant="generalist")


if __name__ == "__main__":
    raise SystemExit(main())
