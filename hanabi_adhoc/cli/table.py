"""Console tables of the commands: aligned columns, one spelling for a missing value.

Every command prints its results as a table (``--json`` gives the machine-readable form where
a command has one). A missing or undefined number (None, NaN) is always written
:data:`MISSING`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any, TextIO

__all__ = ["MISSING", "fmt", "print_table"]

MISSING = "n/a"
"""How every command writes a value that is missing or undefined."""


def fmt(x: Any, spec: str = ".2f") -> str:
    """``x`` formatted with ``spec``; :data:`MISSING` for None and NaN; strings unchanged."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return MISSING
    if isinstance(x, str):
        return x
    try:
        if math.isnan(float(x)):
            return MISSING
    except (TypeError, ValueError):
        return str(x)
    return format(x, spec)


def print_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    legend: Sequence[str] = (),
    file: TextIO | None = None,
) -> None:
    """Print ``rows`` under ``headers``, the first column left-aligned, the others right.

    Args:
        headers: Column titles.
        rows: One sequence of cells per row (strings, or numbers formatted with :func:`fmt`).
        legend: Lines printed under the table (what the columns mean).
        file: Where to print (default standard output).
    """
    out = sys.stdout if file is None else file
    cells = [[c if isinstance(c, str) else fmt(c) for c in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        first = values[0].ljust(widths[0])
        rest = (v.rjust(w) for v, w in zip(values[1:], widths[1:], strict=True))
        return "  ".join([first, *rest]).rstrip()

    print(line(list(headers)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in cells:
        print(line(row), file=out)
    for text in legend:
        print(text, file=out)
