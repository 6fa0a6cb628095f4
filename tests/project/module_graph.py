"""The project's module graph, read from the source (AST), for the layer and circle tests.

Every import statement counts, also those inside functions (a lazy import is an import too),
except those under ``if TYPE_CHECKING:`` (never run). ``from X import y`` is an edge to the
module ``X.y`` when ``y`` is a module of the project, to ``X`` otherwise; relative imports are
resolved. Importing ``a.b.c`` is an edge to ``a.b.c`` only (its packages' ``__init__`` modules
run too, but a package that re-exports its modules would then be a circle with each of them).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hanabi_env", "agents", "qd", "meta", "hanabi_adhoc")


def module_name(path: Path, root: Path = ROOT) -> str:
    """``hanabi_adhoc/cli/main.py`` -> ``hanabi_adhoc.cli.main`` (a package: its folder)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path = ROOT, packages=PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``: dotted name -> file."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST, type_checking: bool = False):
    """Import statements of ``tree`` that run (and, with ``type_checking``, the guarded ones)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test) and not type_checking:
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, modules, type_checking: bool = False) -> set[str]:
    """The project modules that module ``name`` (file ``path``) imports.

    ``type_checking``: count the imports under ``if TYPE_CHECKING:`` too.
    """
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in _import_nodes(tree, type_checking):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names
            ]
        for target in targets:
            while target and target not in modules:  # `import a.b.c` of a package path
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def module_graph(
    root: Path = ROOT, packages=PACKAGES, type_checking: bool = False
) -> dict[str, set[str]]:
    """Module -> the project modules it imports (``type_checking``: see :func:`imports_of`)."""
    modules = project_modules(root, packages)
    return {name: imports_of(name, path, modules, type_checking) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of 2 or more modules.

    Tarjan's algorithm, iterative; each circle sorted, the list sorted.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycle_path(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One circle through ``component``'s first module, as a path ``[a, b, ..., a]``."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(graph.get(node, ())):
                if child == start:
                    return [*paths[node], start]
                if child in members and child not in paths:
                    paths[child] = [*paths[node], child]
                    nxt.append(child)
        frontier = nxt
    return component
