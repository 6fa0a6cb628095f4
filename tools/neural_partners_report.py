r"""Measure the shipped neural partners: self-play, cross-play, the test pool, the strong bots.

docs/rl_partners.md §7 (issue 44 item 3). For every shipped network (``rl:NAME`` of
``agents.rl.partner_specs(clones=True)``, or ``--partners``), at its own game size, lenient
scoring, HLE hand order, the same deals for every cell (``agents.evaluate.evaluate``'s common
random numbers, seed ``--seed``):

* **self-play**: ``--games`` mirror games, mean ± s.e.m., with its communicativeness and IPP
  (docs/rules.md §5);
* **cross-play ratios** (with ``--crossplay DIR``, the folder of a ``tools/bots_crossplay.py
  --agents rl:A,rl:B,...`` run, which plays and draws the cross-play table): for each ordered
  pair, its cross-play over the mean of the two self-play scores of that table's diagonal (the
  issue's "another convention" test: ratio ≤ 0.85);
* **with the test pool** (``agents.TEST_POOL``, the seven baselines) and **with the strong
  bots** (``simplebot``, ``valuebot``, ``holmesbot``, ``smartbot``, ``infobot``): the mean over
  the pool's members of ``--games`` mixed games each, and each member's mean;
* **training cost**: the CPU-hours the partner's JSON records (``training.cpu_s``, the clone's
  and the fine-tuning's together where both ran).

Writes ``--out`` (JSON, every number above) and prints a Markdown table. Bad options give one
``error: ...`` line on stderr and exit code 2::

    python tools/neural_partners_report.py --games 500 --out docs/results/neural_partners.json
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hanabi_env.outputs import atomic_write_json  # noqa: E402
from tools.cli_common import OneLineParser, positive_int  # noqa: E402

BOTS = ("simplebot", "valuebot", "holmesbot", "smartbot", "infobot")


def build_parser() -> argparse.ArgumentParser:
    """The command line (module docstring)."""
    p = OneLineParser(prog="tools/neural_partners_report.py",
                description="Self-play, cross-play and play with the test pool and the strong "
                "bots of the shipped neural partners. docs/rl_partners.md §7.")  # fmt: skip
    p.add_argument("--partners", default=None,
                   help="comma-separated rl: specs (default: every shipped network)")  # fmt: skip
    p.add_argument("--games", type=positive_int, default=500, help="games per cell (default 500)")
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    p.add_argument("--out", type=Path, default=None, help="write every number here (JSON)")
    p.add_argument("--no-pools", action="store_true", help="self-play only (no pools)")
    p.add_argument("--crossplay", type=Path, default=None,
                   help="a tools/bots_crossplay.py output folder: its pairs' ratios")  # fmt: skip
    return p


def _row(row: dict) -> dict:
    return {"mean": round(float(row["mean"]), 3), "sem": round(float(row["sem"]), 3),
            "games": int(row["games"])}  # fmt: skip


def _with_pool(partner, pool: Sequence[str], players: int, args) -> dict:
    from agents.evaluate import evaluate

    res = evaluate(partner, "mixed", players=[players], games=args.games, pool=list(pool),
                   seed=args.seed, workers=1)  # fmt: skip
    members = {str(r["partner"]): _row(r) for r in res.rows}
    means = [m["mean"] for m in members.values()]
    return {"mean": round(sum(means) / len(means), 3), "members": members}


def measure(specs: Sequence[str], args: argparse.Namespace) -> dict:
    """Every number of the module docstring, as a JSON-ready dict."""
    import agents
    from agents.evaluate import evaluate

    partners = {s: agents.make(s) for s in specs}
    size = {s: int(p.config["game"]["players"]) for s, p in partners.items()}
    out: dict = {"games": args.games, "seed": args.seed, "partners": {}}
    for spec, p in partners.items():
        mirror = evaluate(p, "mirror", players=[size[spec]], games=args.games, seed=args.seed,
                          workers=1).rows[0]  # fmt: skip
        training = p.config.get("training", {})
        entry = {"players": size[spec], "self_play": _row(mirror),
                 "communicativeness": round(float(mirror["communicativeness"]), 4),
                 "ipp": round(float(mirror["ipp"]), 4),
                 "cpu_hours": round(float(training.get("cpu_s", math.nan)) / 3600, 3),
                 "teacher": training.get("teacher", {}).get("seats", [None])[0]}  # fmt: skip
        if not args.no_pools:
            entry["test_pool"] = _with_pool(p, list(agents.TEST_POOL), size[spec], args)
            entry["strong_bots"] = _with_pool(p, BOTS, size[spec], args)
        out["partners"][spec] = entry
        print(f"{spec}: self-play {entry['self_play']['mean']}", flush=True)
    return out


def crossplay_ratios(folder: Path) -> list[dict]:
    """Each ordered pair's cross-play over its two self-play scores (``folder/cells.csv``).

    Raises:
        OSError: No ``cells.csv`` in ``folder``.
    """
    import csv

    with (folder / "cells.csv").open(newline="", encoding="utf-8") as fh:
        cells = [r for r in csv.DictReader(fh) if not r.get("error")]
    own = {
        (r["agent"], r["players"]): float(r["mean"]) for r in cells if r["agent"] == r["partner"]
    }
    out = []
    for r in cells:
        a, b, n = r["agent"], r["partner"], r["players"]
        if a == b or (a, n) not in own or (b, n) not in own:
            continue
        mean_sp = (own[a, n] + own[b, n]) / 2
        out.append(
            {
                "agent": a,
                "partner": b,
                "players": int(n),
                "mean": float(r["mean"]),
                "ratio": round(float(r["mean"]) / mean_sp, 3) if mean_sp > 0 else None,
            }
        )
    return out


def table(result: dict) -> str:
    """The Markdown table of the partners (one row each)."""
    lines = ["| partner | players | self-play | communicativeness | IPP | test pool | strong bots "
             "| CPU-hours |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for spec, e in result["partners"].items():
        sp = e["self_play"]
        pool = e.get("test_pool", {}).get("mean", "")
        bots = e.get("strong_bots", {}).get("mean", "")
        lines.append(f"| `{spec}` | {e['players']} | {sp['mean']:.2f} ± {sp['sem']:.2f} | "
                     f"{e['communicativeness']:.3f} | {e['ipp']:.3f} | {pool} | {bots} | "
                     f"{e['cpu_hours']} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool (module docstring); returns the exit code."""
    from agents.registry import make
    from agents.rl import partner_specs

    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    specs = partner_specs(clones=True) if args.partners is None else args.partners.split(",")
    for spec in specs:
        if not spec.startswith("rl:"):
            parser.error(f"--partners: {spec!r} is not allowed; allowed: rl: specs")
        try:
            make(spec)
        except (ValueError, TypeError, OSError) as err:
            parser.error(f"--partners: {err}")
    t0 = time.process_time()
    result = measure(specs, args)
    result["cpu_s"] = round(time.process_time() - t0, 1)
    result["command"] = "python tools/neural_partners_report.py " + " ".join(
        sys.argv[1:] if argv is None else list(argv)
    )
    print(table(result))
    if args.crossplay is not None:
        result["cross_play"] = crossplay_ratios(args.crossplay)
        for c in result["cross_play"]:
            print(f"cross-play {c['agent']} with {c['partner']}: {c['mean']:.2f} "
                  f"(ratio {c['ratio']})")  # fmt: skip
    if args.out is not None:
        atomic_write_json(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
