"""No function of the packages is longer than 80 lines, compiled kernels apart (issue 42, item 4).

A function's length is every line from its first decorator (or its ``def``) to its last line:
signature, docstring, comments and blank lines included, as an editor shows it. Functions
compiled by numba (decorated with ``njit``) are kernels: splitting them costs calls in the hot
loop, so they are not counted. Nested functions count inside their parent and on their own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hanabi_env", "agents", "qd", "meta", "hanabi_adhoc")
MAX_LINES = 80

ALLOWED: set[str] = set()
"""``"path:function"`` allowed past the limit (none: every function fits)."""


def _is_kernel(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether numba compiles ``node``: ``@njit``, ``@njit(...)``, ``@kernel``, ``@inline``."""
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("njit", "jit", "kernel", "inline"):  # the last two: hanabi_env.jit's njit
            return True
    return False


def function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of ``node`` from its first decorator or ``def`` to its last line."""
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    return (node.end_lineno or node.lineno) - first + 1


def long_functions(source: str, max_lines: int = MAX_LINES) -> dict[str, int]:
    """``{qualified name: lines}`` of the functions of ``source`` over ``max_lines``."""
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                if not _is_kernel(child) and function_lines(child) > max_lines:
                    out[name] = function_lines(child)
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def test_the_count_takes_decorators_and_docstrings_skips_kernels_and_sees_nested_functions():
    body = "\n".join(f"    x{i} = {i}" for i in range(78))
    inner = body.replace("    ", "        ") + "\n        y = 1\n        z = 2"
    source = (
        f'def long():\n    """Doc.\n    """\n{body}\n\n'  # def + 2 docstring lines + 78 = 81
        f"def short():\n    '''Doc.'''\n{body}\n\n"  # 80
        f"@decorated\ndef deco():\n    '''Doc.'''\n{body}\n\n"  # 81
        f"@numba.njit(cache=True)\ndef kernel():\n{body}\n{body}\n\n"
        f"class C:\n    def method(self):\n{inner}\n\n"  # 81
        f"def outer():\n    def inner():\n{inner}\n"  # inner 81, outer 82
    )
    found = long_functions(source)
    assert found == {"long": 81, "deco": 81, "C.method": 81, "outer": 82, "outer.inner": 81}


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_is_longer_than_80_lines(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, package
    found = {}
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for name, n in long_functions(path.read_text(encoding="utf-8")).items():
            if f"{rel}:{name}" not in ALLOWED:
                found[f"{rel}:{name}"] = n
    assert not found, f"functions over {MAX_LINES} lines (split them): {found}"
