"""A tiny suite file for the benchmark tests (two groups, a few deals)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from hanabi_adhoc.benchmark.suites import FORMAT

CHROMOSOMES = {  # three elites of the published 5x5 population, run 1, by cell
    (1, 0): "85,8,29,62,3,94,24,75,40,69,46,17,69,31,65",
    (2, 3): "61,21,46,1,8,69,59,33,88,21,90,28,29,19,38",
    (4, 4): "61,21,46,88,8,67,58,33,88,23,11,28,29,0,38",
}


def tiny_suite(path: Path, *, pool_players=(2, 3), episodes: int = 2, games: int = 3) -> Path:
    """Write a suite: 'tiny-pool' (Piers, IGGI; corrected) and 'tiny-pop' (3 chromosomes)."""
    doc = {
        "format": FORMAT,
        "name": "tiny",
        "version": 1,
        "description": "test suite",
        "groups": [
            {
                "name": "tiny-pool",
                "label": "two baselines",
                "players": list(pool_players),
                "ruleset": "corrected",
                "scoring": "lenient",
                "seed": 7,
                "episodes": episodes,
                "games": games,
                "grid": None,
                "source": "test",
                "partners": [
                    {
                        "id": n,
                        "spec": n,
                        "cell": None,
                        "br": {str(p): 18.0 for p in pool_players},
                        "self_play": {str(p): 15.0 for p in pool_players},
                    }
                    for n in ("Piers", "IGGI")
                ],
            },
            {
                "name": "tiny-pop-run1",
                "label": "three elites",
                "players": [2],
                "ruleset": "corrected",
                "scoring": "lenient",
                "seed": 7,
                "episodes": episodes,
                "games": games,
                "grid": [5, 5],
                "source": "test",
                "partners": [
                    {
                        "id": f"[{i},{j}]",
                        "spec": spec,
                        "cell": [i, j],
                        "br": {"2": 20.0},
                        "self_play": {"2": 10.0},
                    }
                    for (i, j), spec in CHROMOSOMES.items()
                ],
            },
        ],
    }
    path.write_text(json.dumps(doc, indent=1))
    return path


def suites_tool():
    """``tools/benchmark_suites.py`` loaded as a module (the tool is a script, not a package)."""
    root = Path(__file__).resolve().parents[3]
    spec = importlib.util.spec_from_file_location(
        "benchmark_suites", root / "tools" / "benchmark_suites.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
