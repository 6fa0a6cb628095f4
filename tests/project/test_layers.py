"""The packages stack in layers (docs/architecture.md §1): nothing imports upward.

hanabi_env < agents < qd < meta < hanabi_adhoc. Every import statement of every module counts,
also those inside functions (lazy imports are imports too). Inside ``hanabi_adhoc`` (§1.1): the
spec module and its peers < the study | the benchmark | the web app < the command line, which
nothing imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.project.module_graph import module_graph

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


# --- inside hanabi_adhoc (docs/architecture.md §1.1) -----------------------------------------

INNER_LAYERS: tuple[dict[str, tuple[str, ...]], ...] = (
    {
        "base": (
            "hanabi_adhoc",
            "hanabi_adhoc.specs",
            "hanabi_adhoc.settings",
            "hanabi_adhoc.warmup",
        )
    },
    {
        # the study's subpackage, and its old paths (forwards until 0.4.0)
        "study": (
            "hanabi_adhoc.study",
            "hanabi_adhoc.pipeline",
            "hanabi_adhoc.resume",
            "hanabi_adhoc.report",
        ),
        "benchmark": ("hanabi_adhoc.benchmark",),
        "web": ("hanabi_adhoc.web",),
    },
    {"cli": ("hanabi_adhoc.cli",)},
)
"""The floors of ``hanabi_adhoc``, bottom to top; a floor's groups stand side by side."""
ENTRY_POINTS = ("hanabi_adhoc.__main__",)
"""Modules that only start the command line (``python -m hanabi_adhoc``)."""


def inner_place(module: str) -> tuple[int, str] | None:
    """(floor, group) of a ``hanabi_adhoc`` module, or None for a module of another package."""
    if module in ENTRY_POINTS or module.split(".")[0] != "hanabi_adhoc":
        return None
    found = None
    for floor, groups in enumerate(INNER_LAYERS):
        for group, prefixes in groups.items():
            for prefix in prefixes:
                exact = prefix == "hanabi_adhoc"
                if module == prefix or (not exact and module.startswith(prefix + ".")):
                    found = (floor, group)
    return found


def test_every_hanabi_adhoc_module_has_a_floor():
    graph = module_graph()
    homeless = [m for m in graph if m.startswith("hanabi_adhoc") and m not in ENTRY_POINTS
                and inner_place(m) is None]  # fmt: skip
    assert not homeless, f"add them to INNER_LAYERS and docs/architecture.md §1.1: {homeless}"


def test_hanabi_adhoc_floors_import_only_downward_and_groups_not_sideways():
    bad = []
    for module, imported in sorted(module_graph().items()):
        here = inner_place(module)
        if here is None:
            continue
        for target in sorted(imported):
            there = inner_place(target)
            if there is None or there[1] == here[1]:
                continue
            if there[0] >= here[0]:  # upward, or sideways on the same floor
                bad.append(f"{module} ({here[1]}) imports {target} ({there[1]})")
    assert not bad, "\n".join(bad)


def test_the_command_line_is_imported_by_nothing():
    users = sorted(
        module
        for module, imported in module_graph().items()
        if module not in ENTRY_POINTS
        and not module.startswith("hanabi_adhoc.cli")
        and any(t == "hanabi_adhoc.cli" or t.startswith("hanabi_adhoc.cli.") for t in imported)
    )
    assert not users, f"only the entry point may import hanabi_adhoc.cli: {users}"


def test_the_inner_layer_check_sees_a_sideways_import(tmp_path):
    pkg = tmp_path / "hanabi_adhoc"
    (pkg / "web").mkdir(parents=True)
    (pkg / "benchmark").mkdir()
    for f in ("__init__.py", "web/__init__.py", "benchmark/__init__.py", "benchmark/run.py"):
        (pkg / f).write_text("")
    (pkg / "web" / "app.py").write_text(
        "def f():\n    from hanabi_adhoc.benchmark.run import x\n    from ..cli import main\n"
    )
    (pkg / "cli").mkdir()
    (pkg / "cli" / "__init__.py").write_text("")
    graph = module_graph(tmp_path, ("hanabi_adhoc",))
    assert graph["hanabi_adhoc.web.app"] == {"hanabi_adhoc.benchmark.run", "hanabi_adhoc.cli"}
    assert inner_place("hanabi_adhoc.web.app") == (1, "web")
    assert inner_place("hanabi_adhoc.benchmark.run") == (1, "benchmark")
    assert inner_place("hanabi_adhoc.cli") == (2, "cli")
    assert inner_place("hanabi_adhoc") == (0, "base")
    assert inner_place("hanabi_adhoc.study.report") == (1, "study")
    assert inner_place("hanabi_adhoc.studying") is None
