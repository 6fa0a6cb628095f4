"""Each game-settings rule and each seed limit is written once (issue 42, items 2 and 3).

"No hand size means the rulebook's" and "the reference ruleset means fixed hand slots" live in
``hanabi_env/config.py`` (``HanabiConfig.for_game``, ``game_hand_size``, ``hand_order_of``);
the seed limits in ``hanabi_env/seeding.py``. A copy elsewhere is the bug this test catches.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hanabi_env", "agents", "qd", "meta", "hanabi_adhoc")

COPIES = {
    "hanabi_env/config.py": [
        # "fixed" if ... == "reference" else "shift"  (or the other way round)
        re.compile(r"""["']fixed["']\s+if\s+[^\n]*==\s*["']reference["']"""),
        # rulebook_hand_size(p) if hand_size is None else hand_size  (either order)
        re.compile(r"rulebook_hand_size\([^)]*\)\s+if\s+\w+(\.\w+)*\s+is\s+None"),
        re.compile(r"if\s+\w+(\.\w+)*\s+is\s+not\s+None\s+else\s+rulebook_hand_size"),
        re.compile(r"if\s+\w+(\.\w+)*\s+is\s+None\s+else\s+rulebook_hand_size"),
    ],
    "hanabi_env/seeding.py": [re.compile(r"^\s*SEED_LIMIT\s*=\s*2\s*\*\*", re.MULTILINE)],
}


def _sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


@pytest.mark.parametrize("home", sorted(COPIES))
def test_each_rule_has_one_home(home):
    found = [
        f"{rel}: {m.group(0).strip()}"
        for rel, text in _sources()
        if rel != home
        for pattern in COPIES[home]
        for m in pattern.finditer(text)
    ]
    assert not found, f"written again outside {home} (call it instead): {found}"


def test_the_patterns_see_a_copy():
    copies = (
        'order = "fixed" if args.ruleset == "reference" else "shift"\n'
        "hs = rulebook_hand_size(p) if hand_size is None else hand_size\n"
        "hand = self.hand_size if self.hand_size is not None else rulebook_hand_size(n)\n"
        "SEED_LIMIT = 2**32\n"
    )
    hits = [p for pats in COPIES.values() for p in pats if p.search(copies)]
    assert len(hits) == 4


def test_the_seed_limits_are_the_seeding_modules():
    from hanabi_adhoc.cli import options
    from hanabi_adhoc.study import pipeline
    from hanabi_env import seeding, validate

    assert options.SEED_LIMIT == pipeline.SEED_LIMIT == seeding.MASTER_SEED_LIMIT == 2**32
    assert validate.SEED_LIMIT == seeding.SEED_LIMIT == 2**62
    assert seeding.MASTER_SEED_LIMIT < seeding.SEED_LIMIT
