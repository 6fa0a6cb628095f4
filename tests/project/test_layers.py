"""The packages stack in layers (docs/architecture.md §1): nothing imports upward.

hanabi_env < agents < qd < meta < hanabi_adhoc. Every import statement of every module counts,
also those inside functions (lazy imports are imports too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("hanabi_env", "agents", "qd", "meta", "hanabi_adhoc")


def imported_packages(path: Path) -> set[str]:
    """Top-level project packages that ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found |= {n.split(".")[0] for n in names} & set(LAYERS)
    return found


@pytest.mark.parametrize("package", LAYERS)
def test_no_package_imports_a_layer_above_it(package):
    rank = LAYERS.index(package)
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, package
    upward = {
        str(f.relative_to(ROOT)): sorted(p for p in imported_packages(f) if LAYERS.index(p) > rank)
        for f in files
    }
    upward = {f: p for f, p in upward.items() if p}
    assert not upward, f"imports from a higher layer: {upward}"


def test_the_check_sees_imports_inside_functions(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def g():\n    from meta.pools import load_pool\n    import qd.io\n")
    assert imported_packages(f) == {"meta", "qd"}


def test_agents_game_loops_stack_in_order():
    # agents.rule_games < agents.backend < agents.evaluate (docs/architecture.md §3): the
    # compiled loop, the runners that spread it, the protocols that use both; no lazy imports
    order = ["agents.rule_games", "agents.backend", "agents.evaluate"]
    for i, module in enumerate(order):
        path = ROOT / (module.replace(".", "/") + ".py")
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
                imported |= {f"{node.module}.{a.name}" for a in node.names}
        assert not imported & set(order[i + 1 :]), f"{module} imports {imported & set(order)}"
