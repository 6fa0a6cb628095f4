"""Reproduction of the rule-based agents' published numbers (issue 3; not a test).

1. Mixed evaluation of IGGI, Outer, Legal Random, Van den Bergh, Flawed and Piers against the
   7-agent test pool (lenient scoring, game sizes 2–5), compared with [CIG18]'s validation table
   (docs/papers.md §2); then (``variants``) the same with the 2018 Java reference's behaviour added
   step by step: the strict era's "no rule fired ends the game", the 2018 pool definitions, the
   Java framework's fixed hand slots (``hand_order="fixed"``), its rule 14 (X3), and the
   exceptions its early TellDispensable and TellMostInformation raised at a final-round gap
   (X4–X6), which ended strict-era games.
2. Mirror scores per game size of the pool agents, compared with docs/rules.md §11.
3. The published chromosomes (``agents/data/published_chromosomes.json``) in mirror play
   at their own player count, compared with their claimed scores.

Usage::

    python3 benchmarks/reproduce_agents.py --games 400 --out bench_results/reproduce_agents.json

Prints Markdown tables (mean ± s.e.m.) ready for the README.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.evaluate import evaluate
from agents.policy import RuleAgent
from agents.published import published_chromosomes
from agents.registry import make
from agents.rulebase import BASELINES, RULE_X3, RULE_X4, RULE_X5, RULE_X6, TEST_POOL

CIG18_MIXED = {  # agent: (original authors, [CIG18] re-implementation); docs/papers.md §2
    "IGGI": (10.96, 10.98),
    "Outer": (10.2, 9.70),
    "LegalRandom": (4.59, 4.52),
    "VanDenBergh": (10.88, 11.02),
    "Flawed": (5.02, 4.46),
    "Piers": (11.18, 11.28),
}
REFERENCE_MIRROR = {  # docs/rules.md §11 (Java reference, lenient, 200 games per size)
    "IGGI": (16.5, 16.8, 16.1, 15.0),
    "Internal": (11.0, 10.8, 10.3, 9.8),
    "Outer": (14.5, 14.7, 13.1, 12.7),
    "LegalRandom": ("1.1–1.4",) * 4,
    "VanDenBergh": (13.2, 17.3, 17.1, 16.1),
    "Flawed": ("1.5–1.8",) * 4,
    "Piers": (17.3, 17.6, 17.0, 16.2),
}


def _pm(m: float, s: float) -> str:
    return f"{m:.2f} ± {s:.2f}"


def mixed_table(games: int, seed: int, workers: int | None) -> tuple[list[str], dict]:
    lines = [
        "| agent | ours (mixed, lenient) | [CIG18] re-impl. | original | ours − [CIG18] |",
        "|---|---|---|---|---|",
    ]
    out = {}
    for name, (orig, cig) in CIG18_MIXED.items():
        r = evaluate(
            make(name), mode="mixed", games=games, seed=seed, workers=workers, progress=True
        )
        out[name] = r.to_dict()
        lines.append(
            f"| {name} | {_pm(r.mean, r.sem)} | {cig:.2f} | {orig:.2f} | {r.mean - cig:+.2f} |"
        )
    return lines, out


# Pool definitions before 2018-05-06 (docs/rules.md §4): IGGI without the final LegalRandom, Outer
# with TellRandomly instead of TellUnknown. Until 2019-07-31 the reference also registered the
# Internal list under the name "Outer" and vice versa, so [CIG18]'s "Outer" row is the Internal
# list's score.
POOL_2018 = {
    "IGGI": (2, 8, 13, 38, 27),
    "Internal": BASELINES["Internal"],
    "Outer": (8, 38, 21, 22, 34),
    "LegalRandom": BASELINES["LegalRandom"],
    "VanDenBergh": BASELINES["VanDenBergh"],
    "Flawed": BASELINES["Flawed"],
    "Piers": BASELINES["Piers"],
}


_JAVA_14 = {14: RULE_X3}
"""Rule 14 as the Java reference ran it (X3)."""
_JAVA_RAISES = {15: RULE_X4, 48: RULE_X5, 19: RULE_X6}
"""Rules 15, 48 and 19 raising at a final-round gap, as in the early Java code (X4–X6)."""


def _replace(rules: tuple[int, ...], mapping: dict[int, int]) -> tuple[int, ...]:
    """A rule list with the rules in ``mapping`` replaced."""
    return tuple(mapping.get(r, r) for r in rules)


# The steps from our agents to the 2018 reference, each adding to the previous one:
# (column title, no_rule, 2018 pool definitions, hand order, Java rule 14, Java exceptions)
VARIANTS = (
    ("ours", "fallback", False, "shift", False, False),
    ("strict era", "end_game", False, "shift", False, False),
    ("+ 2018 pool", "end_game", True, "shift", False, False),
    ("+ fixed slots", "end_game", True, "fixed", False, False),
    ("+ Java rule 14", "end_game", True, "fixed", True, False),
    ("+ Java exceptions", "end_game", True, "fixed", True, True),
)


def mixed_variants_table(games: int, seed: int, workers: int | None) -> tuple[list[str], dict]:
    """Trace the mixed-score gaps to the 2018 reference (docs/rules.md §2.9, §4, §12)."""
    titles = [v[0] for v in VARIANTS]
    lines = [
        "| agent (row of [CIG18]) | " + " | ".join(titles) + " | [CIG18] | gap left |",
        "|---|" + "---|" * (len(titles) + 2),
    ]
    partner_lines = [
        "| agent | " + " | ".join(TEST_POOL) + " |",
        "|---|" + "---|" * len(TEST_POOL),
    ]
    out = {}
    for name, (_, cig) in CIG18_MIXED.items():
        cells = []
        last = None
        for title, no_rule, pool_2018, hand_order, java_14, raises in VARIANTS:
            defs = POOL_2018 if pool_2018 else {n: BASELINES[n] for n in TEST_POOL}
            if java_14:
                defs = {n: _replace(r, _JAVA_14) for n, r in defs.items()}
            if raises:
                defs = {n: _replace(r, _JAVA_RAISES) for n, r in defs.items()}
            # the list that carried this name in 2018 (Internal and Outer were swapped)
            listed = {"Outer": "Internal"}.get(name, name) if pool_2018 else name
            agent = RuleAgent(defs[listed], name=name)
            pool = [RuleAgent(defs[n], name=n) for n in TEST_POOL]
            last = evaluate(
                agent,
                mode="mixed",
                pool=pool,
                games=games,
                seed=seed,
                workers=workers,
                no_rule=no_rule,
                hand_order=hand_order,
            )
            out[f"{name}/{title}"] = last.to_dict()
            cells.append(_pm(last.mean, last.sem))
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {cig:.2f} | {last.mean - cig:+.2f} |"
        )
        per_partner = {}
        for row in last.rows:
            per_partner.setdefault(row["partner"], []).append(row["mean"])
        partner_lines.append(
            f"| {name} | " + " | ".join(f"{np.mean(per_partner[n]):.2f}" for n in TEST_POOL) + " |"
        )
    lines += ["", "Per partner, last column's setting (mean over sizes 2–5):", ""]
    return lines + partner_lines, out


def mirror_table(games: int, seed: int, workers: int | None) -> tuple[list[str], dict]:
    """Mirror scores per size under our hand order and the Java framework's fixed slots."""
    lines = [
        "| agent | 2p | 3p | 4p | 5p | fixed slots 2p/3p/4p/5p "
        "| reference 2p/3p/4p/5p (docs/rules.md §11) |",
        "|---|---|---|---|---|---|---|",
    ]
    out = {}
    deviations: dict[str, list[float]] = {"shift": [], "fixed": []}
    for name, ref in REFERENCE_MIRROR.items():
        per_order = {}
        for order in ("shift", "fixed"):
            r = evaluate(
                make(name),
                mode="mirror",
                games=games,
                seed=seed,
                workers=workers,
                progress=order == "shift",
                hand_order=order,
            )
            out[f"{name}/{order}"] = r.to_dict()
            per_order[order] = r.per_size()
            for p, x in zip((2, 3, 4, 5), ref, strict=True):
                if isinstance(x, float):
                    deviations[order].append(abs(r.per_size()[p][0] - x))
        cells = [_pm(*per_order["shift"][p]) for p in (2, 3, 4, 5)]
        fixed = "/".join(f"{per_order['fixed'][p][0]:.2f}" for p in (2, 3, 4, 5))
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {fixed} | {'/'.join(map(str, ref))} |"
        )
    lines.append("")
    lines.append(
        "Mean |ours − reference| over the numeric reference cells: "
        + ", ".join(f"{o} {np.mean(d):.3f}" for o, d in deviations.items())
    )
    return lines, out


def chromosome_table(games: int, seed: int, workers: int | None) -> tuple[list[str], dict]:
    lines = [
        "| chromosome | players | ours (mirror, lenient) | claimed |",
        "|---|---|---|---|",
    ]
    out = {}
    data = published_chromosomes()
    for entry in data:
        agent = RuleAgent(entry["chromosome"], name=entry["name"])
        p = int(entry["players"])
        r = evaluate(
            agent,
            mode="mirror",
            players=(p,),
            games=games,
            seed=seed,
            workers=workers,
            progress=True,
        )
        out[entry["name"]] = r.to_dict()
        claim = entry["claimed_mirror_score"]
        lines.append(
            f"| {entry['name']} | {p} | {_pm(r.mean, r.sem)} | {'—' if claim is None else claim} |"
        )
    return lines, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per cell (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None, help="write all results as JSON")
    parser.add_argument(
        "--only", choices=["mixed", "variants", "mirror", "chromosomes"], default=None
    )
    args = parser.parse_args()
    t0 = time.perf_counter()
    results = {}
    sections = [
        ("mixed", mixed_table),
        ("variants", mixed_variants_table),
        ("mirror", mirror_table),
        ("chromosomes", chromosome_table),
    ]
    for key, fn in sections:
        if args.only and key != args.only:
            continue
        lines, results[key] = fn(args.games, args.seed, args.workers)
        print(f"\n### {key} ({args.games} games per cell, seed {args.seed})\n")
        print("\n".join(lines))
    print(f"\n(total {time.perf_counter() - t0:.0f} s)")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
