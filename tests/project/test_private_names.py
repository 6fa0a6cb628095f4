"""No private name crosses a package (issue 42; docs/architecture.md §1).

A name that starts with ``_`` belongs to its package: no module of another package imports it
(``from X import _y``) or reads it off a module (``X._y``). The modules of :data:`SHARED`,
private by name because they are not the API a researcher uses, are the one exception: the
project's other packages build on them (the engine, the views, the compiled-code set-up), which
docs/architecture.md §1 says.
"""

from __future__ import annotations

import ast

from tests.project.module_graph import PACKAGES, project_modules

SHARED = frozenset(
    {
        "hanabi_env._engine",
        "hanabi_env._view",
        "hanabi_env._batch",
        "hanabi_env._jit",
        "hanabi_env._rng",
        "hanabi_env._workers",
        "hanabi_env._files",
    }
)
"""Modules private by name that every floor may import (docs/architecture.md §1)."""

KNOWN = {
    ("agents.lockstep", "hanabi_env._engine._state_over"): "renaming it changes a kernel "
    "source, and with it every compiled-code cache key: rename with the next kernel change",
}
"""Crossings left as they are, each with its reason."""


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _takes(full: str, modules) -> bool:
    """Whether importing ``full`` (a module, or ``module.name``) takes a private name."""
    if full in SHARED:
        return False
    parts = full.split(".")
    module = full if full in modules else full.rpartition(".")[0]
    if module in SHARED:
        return _private(parts[-1]) and full != module
    return any(_private(p) for p in parts[1:])


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
                private = _takes(full, modules)
            if private and full.split(".")[0] != package:
                found.add((name, full))
    return found


def test_no_private_name_crosses_a_package():
    found = crossings(project_modules())
    new = sorted(found - set(KNOWN))
    assert not new, f"private names used outside their package (make them public): {new}"
    assert set(KNOWN) <= found, f"fixed: remove from KNOWN {sorted(set(KNOWN) - found)}"


def test_the_check_sees_an_import_and_an_attribute(tmp_path):
    files = {
        "hanabi_env/__init__.py": "",
        "hanabi_env/_engine.py": "def _kernel(): ...\ndef step(): ...\n",
        "hanabi_env/table.py": "def _rows(): ...\n",
        "agents/__init__.py": "",
        "agents/a.py": (
            "from hanabi_env.table import _rows\n"
            "from hanabi_env import _engine as E\n"
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
        ("agents.a", "hanabi_env._engine._kernel"),
    }
