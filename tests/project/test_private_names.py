"""No private name crosses a package (issue 42; docs/architecture.md §1).

A name that starts with ``_`` belongs to its package: no module of another package imports it
(``from X import _y``, ``import X._y``) or reads it off a module (``X._y``). The modules every
floor builds on (the engine, the views, the compiled-code set-up, the file and worker helpers)
are public by name (``hanabi_env.engine``, ``hanabi_env.jit``, ...), so there is no exception.
"""

from __future__ import annotations

import ast

from tests.project.module_graph import PACKAGES, project_modules


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _takes(full: str) -> bool:
    """Whether importing ``full`` (a module, or ``module.name``) takes a private name."""
    return any(_private(p) for p in full.split(".")[1:])


def crossings(modules) -> set[tuple[str, str]]:
    """``(module, private name)`` for every private name a module takes from another package."""
    found = set()
    for name, path in modules.items():
        package = name.split(".")[0]
        tree = ast.parse(path.read_text(), filename=str(path))
        aliases: dict[str, str] = {}  # local name -> project module
        taken: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] in PACKAGES:
                        local = a.asname or a.name.split(".")[0]
                        aliases[local] = a.name if a.asname else local
                        taken.append(a.name)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] not in PACKAGES:
                    continue
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in modules:
                        aliases[a.asname or a.name] = full
                    taken.append(full)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and _private(node.attr)
            ):
                taken.append(f"@{node.value.id}.{node.attr}")
        for full in taken:
            if full.startswith("@"):  # an attribute: resolve its module once all are known
                local, _, attr = full[1:].partition(".")
                if local not in aliases:
                    continue
                full = f"{aliases[local]}.{attr}"
                private = True
            else:
                private = _takes(full)
            if private and full.split(".")[0] != package:
                found.add((name, full))
    return found


def test_no_private_name_crosses_a_package():
    found = sorted(crossings(project_modules()))
    assert not found, f"private names used outside their package (make them public): {found}"


def test_the_check_sees_an_import_and_an_attribute(tmp_path):
    files = {
        "hanabi_env/__init__.py": "",
        "hanabi_env/engine.py": "def _kernel(): ...\ndef step(): ...\n",
        "hanabi_env/table.py": "def _rows(): ...\n",
        "agents/__init__.py": "",
        "agents/a.py": (
            "from hanabi_env.table import _rows\n"
            "from hanabi_env import engine as E\n"
            "import hanabi_env._old\n"
            "import os\n"
            "def f():\n    E.step()\n    E._kernel()\n    os._exit(0)\n"
        ),
        "hanabi_env/b.py": "from hanabi_env.table import _rows\n",  # its own package: fine
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    modules = project_modules(tmp_path, ("hanabi_env", "agents"))
    assert crossings(modules) == {
        ("agents.a", "hanabi_env.table._rows"),
        ("agents.a", "hanabi_env.engine._kernel"),
        ("agents.a", "hanabi_env._old"),
    }
