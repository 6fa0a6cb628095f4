"""MAP-Elites on a small grid: communicativeness × IPP, 3×3 cells, a few hundred candidates.

Evolves 15-rule chromosomes over the 105-rule alphabet with the papers' operators and paired
replacement ([CoG19] Algorithm 1), re-evaluates the elites, and writes ``archive.json``,
``elites.csv``, ``summary.json`` and ``heatmap.png`` into ``--out``. Rerun with ``--resume``
after an interruption.

Run::

    python3 examples/map_elites_small.py --candidates 600 --out runs/example_me
"""

from __future__ import annotations

import argparse

from qd.config import get_config
from qd.run import run_map_elites


def main() -> None:
    """Run a small MAP-Elites search and print the elites."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidates", type=int, default=600)
    parser.add_argument("--games", type=int, default=20, help="self-play games per candidate")
    parser.add_argument("--workers", type=int, default=None, help="default: all cores")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/example_me")
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    config = get_config(
        "quick",
        dims=(3, 3),
        candidates=args.candidates,
        random_candidates=max(1, args.candidates // 5),
        games=args.games,
        reeval_games=50,
        batch_size=50,
        seed=args.seed,
        checkpoint_every=200,
    )
    loop, summary = run_map_elites(
        config, args.out, resume=args.resume, workers=args.workers, progress=True
    )
    archive = loop.archive
    stats = summary["reeval_stats"]
    print(
        f"coverage {stats['num_elites']}/{archive.cells}, best {stats['obj_max']:.2f}, "
        f"mean {stats['obj_mean']:.2f} (re-evaluated); outputs in {args.out}"
    )
    data = archive.data()
    for k, cell in enumerate(data["cell"]):
        print(
            f"cell {archive.cell_name(int(cell))}: score {data['reeval_objective'][k]:5.2f}  "
            f"comm {data['measures'][k, 0]:.2f}  IPP {data['measures'][k, 1]:.2f}  "
            f"rules {data['solution'][k].tolist()}"
        )


if __name__ == "__main__":
    main()
