#!/usr/bin/env python3
"""Compare our rule agents with the Java reference's recorded games, decision by decision.

    python tools/reference_trace/compare.py [CATEGORIES] [--labels a,b] [--genes 9,50]
        [--apply MODULE:FUNCTION] [--ruleset reference|corrected] [--show N]

CATEGORIES: comma-separated among baselines, single_rules, published, random_chromosomes
(default: all). ``--genes`` keeps the jobs whose chromosome contains one of the genes.
``--apply`` names a Python callable ``f(rule_id, view, rng) -> int`` used to evaluate each
rule (default: the ruleset's own evaluator); ``--show`` prints that many first divergences per
job. Per job it prints games, games without a randomised move, exact games and the share of
decisions that agree; then totals per category.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from tests.agents import reference_replay as RR  # noqa: E402


def main() -> None:
    """Parse the arguments and print the comparison."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("categories", nargs="?", default=",".join(RR.CATEGORIES))
    ap.add_argument("--labels", default="")
    ap.add_argument("--genes", default="")
    ap.add_argument("--apply", default="")
    ap.add_argument("--ruleset", default="reference", choices=("reference", "corrected"))
    ap.add_argument("--show", type=int, default=2)
    ap.add_argument(
        "--all", action="store_true", help="print every job, not only those that differ"
    )
    args = ap.parse_args()
    labels = {x for x in args.labels.split(",") if x}
    genes = {int(x) for x in args.genes.split(",") if x}
    apply = None
    if args.apply:
        mod, fn = args.apply.split(":")
        apply = getattr(importlib.import_module(mod), fn)
    elif args.ruleset == "reference":
        apply = RR.reference_apply_rule()
    t0 = time.time()
    for cat in args.categories.split(","):
        tot: Counter = Counter()
        for job, games in RR.load(cat):
            if labels and job["label"] not in labels:
                continue
            if genes and not (job["chromosome"] and genes & set(job["chromosome"])):
                continue
            rules = RR.job_rules(job, args.ruleset)
            if rules is None:
                continue
            c: Counter = Counter()
            firsts = []
            for g in games:
                r = RR.replay_game(job, g, rules, apply)
                c["games"] += 1
                c["det"] += r.deterministic
                c["exact_det"] += r.exact and r.deterministic
                c["exact"] += r.exact
                c["decisions"] += r.compared
                c["agree"] += r.agreed
                if r.first and len(firsts) < args.show:
                    firsts.append(f"P{g['players']} g{g['game']} {r.first}")
            tot.update(c)
            if args.all or c["exact"] < c["games"]:
                share = c["agree"] / max(c["decisions"], 1)
                print(
                    f"{job['label']:>10} games {c['games']:4d} det {c['det']:4d} exact_det "
                    f"{c['exact_det']:4d} exact {c['exact']:4d} agree {share:.4f}  {job['rules']}"
                )
                for f in firsts:
                    print("            ", f)
        share = tot["agree"] / max(tot["decisions"], 1)
        print(f"== {cat}: {dict(tot)} agree {share:.4f} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
