"""Names that moved keep working for one release, with a :class:`DeprecationWarning`.

A module whose public names moved elsewhere keeps the old spelling importable through a
module-level ``__getattr__`` (PEP 562) built here::

    __getattr__ = moved_names(__name__, {"old_name": "new.module:new_name"}, "0.3.0")

``from old.module import old_name`` and ``old.module.old_name`` then import the new location,
warn once per access with both spellings and the release that removes the old one, and return
the same object. The names moved in 0.1.0 and kept until 0.3.0 are listed in the changelog
(``CHANGELOG.md``, "Deprecated").

A whole module that moved keeps its old path as a file of one call, :func:`moved_module`::

    moved_module(__name__, "hanabi_adhoc.study.pipeline", "0.4")
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_module", "moved_names", "moved_to"]


def moved_names(module: str, moves: Mapping[str, str], removed_in: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that forwards moved names to their new home, with a warning.

    Args:
        module: The old module's ``__name__`` (named in the warning and in the AttributeError
            for any other missing name).
        moves: Old name → ``"package.module:name"``, the new location.
        removed_in: The release that removes the old names, e.g. ``"0.3.0"``.

    Returns:
        A function to assign to the old module's ``__getattr__``.
    """

    def __getattr__(name: str) -> Any:
        target = moves.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_module, _, new_name = target.partition(":")
        warnings.warn(
            f"{module}.{name} moved to {new_module}.{new_name}; the old name is removed in "
            f"{removed_in}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(new_module), new_name)

    return __getattr__


def moved_to(
    module: str, new_module: str, names: tuple[str, ...], removed_in: str
) -> Callable[[str], Any]:
    """:func:`moved_names` for names that all moved to one module under the same names.

    Args:
        module: The old module's ``__name__``.
        new_module: Where they live now, e.g. ``"agents.rule_games"``.
        names: The moved names.
        removed_in: The release that removes the old spellings.

    Returns:
        A function to assign to the old module's ``__getattr__``.
    """
    return moved_names(module, {n: f"{new_module}:{n}" for n in names}, removed_in)


def moved_module(old: str, new: str, removed_in: str) -> None:
    """Make the module being imported as ``old`` the module ``new``, with one warning.

    Called from the old path's file, at module level: it imports ``new``, warns once (a
    :class:`DeprecationWarning` pointing at the line that imported ``old``) and puts ``new``
    in ``sys.modules`` under ``old``, so every name of it (and a patch of one) is the same
    object by either path.

    Args:
        old: The old module's ``__name__``.
        new: Where it lives now, e.g. ``"hanabi_env.engine"``.
        removed_in: The release that removes the old path, e.g. ``"0.4"``.
    """
    module = importlib.import_module(new)
    warnings.warn(
        f"{old} moved to {new}; the old path goes in {removed_in}",
        DeprecationWarning,
        stacklevel=3,  # this function, the old module's body, then its importer
    )
    sys.modules[old] = module
