"""No import circles anywhere in the project (issue 42; docs/architecture.md §1).

The module graph comes from the source (:mod:`tests.project.module_graph`): every import
statement counts, also those inside functions; an import under ``if TYPE_CHECKING:`` (a type
only, never run) does not, and must say why in a comment beside it.
"""

from __future__ import annotations

from tests.project.module_graph import ROOT, circles, cycle_path, module_graph, project_modules


def test_the_project_has_no_import_circle():
    graph = module_graph()
    found = circles(graph)
    paths = [" -> ".join(cycle_path(graph, c)) for c in found]
    assert not found, "import circles:\n" + "\n".join(paths)


def test_a_type_only_import_that_would_close_a_circle_says_so():
    runtime, full = module_graph(), module_graph(type_checking=True)
    modules = project_modules()
    bare = []
    for component in circles(full):
        for module in component:
            if not (full[module] - runtime[module]) & set(component):
                continue
            lines = modules[module].read_text().splitlines()
            guards = [i for i, line in enumerate(lines) if line.startswith("if TYPE_CHECKING:")]
            if not any("#" in lines[i] for i in guards):
                bare.append(str(modules[module].relative_to(ROOT)))
    assert not bare, f"say beside `if TYPE_CHECKING:` that the import is a type only: {bare}"


def _package(root, files: dict[str, str]):
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return module_graph(root, ("pkg",))


def test_the_finder_sees_a_circle_through_an_import_inside_a_function(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import f\n",
            "b.py": "def f():\n    from pkg import c\n",
            "c.py": "def g():\n    from .a import x\n",
            "d.py": "import pkg.a\n",
        },
    )
    assert graph["pkg.b"] == {"pkg.c"}
    assert graph["pkg.c"] == {"pkg.a"}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert cycle_path(graph, ["pkg.a", "pkg.b", "pkg.c"]) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


def test_a_type_checking_import_is_no_circle(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import f\n",
            "b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:  # types only\n    from pkg.a import A\n"
            ),
        },
    )
    assert graph["pkg.b"] == set()
    assert circles(graph) == []
