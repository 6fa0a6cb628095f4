"""Argument checkers: the one validation layer of the env, the game, agents, qd, meta and CLIs.

Every checker returns the value in its plain Python type (``np.int64`` -> ``int``) and coerces
nothing else: a wrong type raises :class:`TypeError`, a value of the right type outside the
allowed set raises :class:`ValueError`; both messages name the parameter.

* ``TypeError``: ``"<name> must be <what>, got <type> <value!r>"``.
* ``ValueError``: ``"<name>=<value!r> is out of range; allowed: <allowed>"`` or
  ``"<name>=<value!r> is not allowed; allowed: <a>, <b>"``.

Types: a ``bool`` is not an int (``True`` is refused where a count or seat belongs), a float is
not an int (``1.5`` and ``2.0`` alike), numpy integers are ints, ints are accepted as floats;
NaN and infinities are out of range for every float parameter.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
import reprlib
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeGuard, overload

import numpy as np

from hanabi_env.seeding import SEED_LIMIT

__all__ = [
    "SEED_LIMIT",
    "check_bool",
    "check_callable",
    "check_choice",
    "check_float",
    "check_int",
    "check_int_sequence",
    "check_mapping",
    "check_memory",
    "check_optional_int",
    "check_path_writable",
    "check_seed",
    "check_str",
    "check_workers",
    "is_int",
    "memory_limit",
    "out_of_range",
    "settings_keywords",
    "type_error",
    "writable_ancestor",
]


_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60
_repr.maxlist = _repr.maxtuple = 8


def _show(value: object) -> str:
    """A short ``repr`` (long strings and sequences are abbreviated)."""
    return _repr.repr(value)


def type_error(name: str, what: str, value: object) -> TypeError:
    """The project's ``TypeError`` for ``name`` (to raise)."""
    return TypeError(f"{name} must be {what}, got {type(value).__name__} {_show(value)}")


def out_of_range(name: str, value: object, allowed: str) -> ValueError:
    """The project's ``ValueError`` for a value of the right type outside ``allowed``."""
    return ValueError(f"{name}={_show(value)} is out of range; allowed: {allowed}")


def _bounds(lo, hi, lo_open: bool = False, hi_open: bool = False) -> str:
    if lo is not None and hi is not None:
        return f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{'>' if lo_open else '>='} {lo}"
    if hi is not None:
        return f"{'<' if hi_open else '<='} {hi}"
    return "any"


def is_int(value: object) -> TypeGuard[numbers.Integral]:
    """Whether ``value`` is an integer (numpy integers included) and not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(
    name: str,
    value: object,
    lo: int | None = None,
    hi: int | None = None,
    *,
    allowed: str | None = None,
) -> int:
    """``value`` as an ``int`` in ``[lo, hi]`` (either bound may be None).

    Args:
        name: Parameter name for the messages.
        value: The value to check.
        lo: Smallest allowed value (None: unbounded).
        hi: Largest allowed value (None: unbounded).
        allowed: Text for the message instead of the bounds (e.g. ``"[0, players - 1]"``).

    Raises:
        TypeError: Not an integer (bools and floats are not).
        ValueError: Outside ``[lo, hi]``.
    """
    if not is_int(value):
        raise type_error(name, "an int", value)
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise out_of_range(name, v, allowed or _bounds(lo, hi))
    return v


def check_optional_int(
    name: str, value: object, lo: int | None = None, hi: int | None = None
) -> int | None:
    """``None``, or ``value`` checked by :func:`check_int` (the message says "or None")."""
    if value is None:
        return None
    if not is_int(value):
        raise type_error(name, "an int or None", value)
    return check_int(name, value, lo, hi, allowed=f"{_bounds(lo, hi)} or None")


def check_float(
    name: str,
    value: object,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """``value`` as a finite ``float`` in the range (``lo_open``: ``value > lo``).

    Ints (numpy's included) are accepted; bools, strings and None are not.

    Raises:
        TypeError: Not a real number.
        ValueError: NaN, infinite, or outside the range.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise type_error(name, "a number", value)
    v = float(value)
    bad = (
        not math.isfinite(v)
        or (lo is not None and (v <= lo if lo_open else v < lo))
        or (hi is not None and (v >= hi if hi_open else v > hi))
    )
    if bad:
        allowed = _bounds(lo, hi, lo_open, hi_open)
        raise out_of_range(name, v, "finite" if allowed == "any" else f"finite, {allowed}")
    return v


def check_bool(name: str, value: object) -> bool:
    """``value`` as a ``bool``: only ``True``/``False`` (and numpy's bools); 0/1 are refused.

    Raises:
        TypeError: Anything else.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise type_error(name, "a bool", value)


def check_str(name: str, value: object, *, empty: bool = False) -> str:
    """``value`` as a ``str`` (non-empty unless ``empty``).

    Raises:
        TypeError: Not a str.
        ValueError: Empty string when not allowed.
    """
    if not isinstance(value, str):
        raise type_error(name, "a str", value)
    if not empty and not value.strip():
        raise ValueError(f"{name}={value!r} is not allowed; allowed: a non-empty string")
    return value


def check_choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """Check that a string option is one of ``allowed``.

    Raises:
        TypeError: ``value`` is not a str.
        ValueError: ``"<name>=<value> is not allowed; allowed: <a>, <b>, ..."``.
    """
    allowed = tuple(allowed)
    if not isinstance(value, str):
        raise type_error(name, "a str", value)
    if value not in allowed:
        raise ValueError(f"{name}={_show(value)} is not allowed; allowed: {', '.join(allowed)}")
    return value


@overload
def check_seed(name: str, value: object, *, allow_none: Literal[False] = False) -> int: ...
@overload
def check_seed(name: str, value: object, *, allow_none: bool) -> int | None: ...
def check_seed(name: str, value: object, *, allow_none: bool = False) -> int | None:
    """A seed: an int in ``[0, 2**62)`` (or None when ``allow_none``).

    Raises:
        TypeError: Not an int (or None where allowed).
        ValueError: Negative or ``>= 2**62``.
    """
    if value is None and allow_none:
        return None
    if not is_int(value):
        raise type_error(name, "an int or None" if allow_none else "an int", value)
    v = int(value)
    if not 0 <= v < SEED_LIMIT:
        raise out_of_range(name, v, "[0, 2**62)" + (" or None" if allow_none else ""))
    return v


def check_workers(name: str, value: object) -> int | None:
    """A worker count: None (all local cores) or an int >= 1.

    Raises:
        TypeError: Not an int or None.
        ValueError: Below 1.
    """
    return check_optional_int(name, value, 1)


def check_callable(name: str, value: object, *, allow_none: bool = False):
    """``value`` if it is callable (or None when ``allow_none``).

    Raises:
        TypeError: Not callable.
    """
    if (value is None and allow_none) or callable(value):
        return value
    raise type_error(name, "callable" + (" or None" if allow_none else ""), value)


def check_int_sequence(
    name: str,
    value: object,
    lo: int | None = None,
    hi: int | None = None,
    *,
    min_len: int = 1,
    max_len: int | None = None,
    unique: bool = True,
    what: str = "ints",
) -> tuple[int, ...]:
    """A non-string sequence of ints (each in ``[lo, hi]``), as a tuple.

    Args:
        name: Parameter name for the messages.
        value: The value to check.
        lo: Smallest allowed element (None: unbounded).
        hi: Largest allowed element (None: unbounded).
        min_len: Shortest allowed length.
        max_len: Longest allowed length (None: unbounded).
        unique: Refuse repeated values (the message names them).
        what: Noun for the elements in messages (e.g. ``"player counts"``).

    Raises:
        TypeError: Not a sequence (a str, a set, a scalar), or an element not an int.
        ValueError: Wrong length, an element out of range, or repeated elements.
    """
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
        raise type_error(name, f"a sequence of {what}", value)
    items = list(value)  # type: ignore[arg-type]
    for x in items:
        if not is_int(x):
            raise TypeError(
                f"{name} must be a sequence of {what}, got an element {type(x).__name__} "
                f"{_show(x)} in {_show(value)}"
            )
    out = tuple(int(x) for x in items)
    if len(out) < min_len or (max_len is not None and len(out) > max_len):
        if max_len is not None and max_len == min_len:
            length = f"exactly {min_len}"
        else:
            length = _bounds(min_len, max_len)
        raise ValueError(
            f"{name}={_show(out)} is not allowed; allowed: {length} {what} (got {len(out)})"
        )
    bad = [x for x in out if (lo is not None and x < lo) or (hi is not None and x > hi)]
    if bad:
        raise out_of_range(name, out, f"{what} in {_bounds(lo, hi)} (not {_show(bad[0])})")
    if unique:
        seen: set[int] = set()
        repeated = [x for x in out if x in seen or seen.add(x)]  # type: ignore[func-returns-value]
        if repeated:
            shown = ", ".join(str(x) for x in dict.fromkeys(repeated))
            raise ValueError(
                f"{name}={_show(out)} is not allowed; allowed: distinct {what} (repeated: {shown})"
            )
    return out


def check_mapping(name: str, value: object, *, allow_none: bool = True) -> dict:
    """A mapping (None -> ``{}`` when ``allow_none``), copied into a dict.

    Raises:
        TypeError: Not a mapping.
    """
    if value is None and allow_none:
        return {}
    if not isinstance(value, Mapping):
        raise type_error(name, "a dict" + (" or None" if allow_none else ""), value)
    return dict(value)


def memory_limit() -> int:
    """Bytes of physical memory of this machine (``2**40`` where the OS does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):  # pragma: no cover - non-POSIX
        return 2**40


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"


def check_memory(name: str, value: int, bytes_each: int, what: str, *, times: int = 1) -> int:
    """Refuse a size whose arrays could not fit in this machine's memory, before allocating.

    Args:
        name: The parameter that sets the size, for the message.
        value: Its value (a count, already checked as an int).
        bytes_each: Bytes each unit takes (an upper bound).
        what: What the units are, for the message (e.g. ``"games' seeds and results"``).
        times: Units per ``value`` (e.g. game sizes x partners for ``games``).

    Returns:
        ``value``.

    Raises:
        ValueError: ``value * times * bytes_each`` exceeds :func:`memory_limit`; the message
            names ``name``, the memory needed and the largest value allowed here.
    """
    need = int(value) * max(1, int(times)) * int(bytes_each)
    limit = memory_limit()
    if need > limit:
        most = limit // (max(1, int(times)) * int(bytes_each))
        raise ValueError(
            f"{name}={_show(value)} is out of range: its {what} would need about {_gib(need)} "
            f"of memory and this machine has {_gib(limit)}; allowed: <= {most:,}"
        )
    return int(value)


def check_path_writable(name: str, value: object) -> Path:
    """A path (str or ``os.PathLike``) whose nearest existing ancestor is a writable folder.

    Raises:
        TypeError: Not a str or path.
        ValueError: Empty, an existing non-folder on the way, or not writable.
    """
    if not isinstance(value, (str, os.PathLike)):
        raise type_error(name, "a path (str or os.PathLike)", value)
    path = Path(value)
    if str(value) == "":
        raise ValueError(f"{name}='' is not allowed; allowed: a folder path")
    probe, why = writable_ancestor(path)
    if why is not None:
        raise ValueError(f"{name}={str(value)!r} is not allowed; {probe} {why}")
    return path


def writable_ancestor(path: Path) -> tuple[Path, str | None]:
    """The nearest existing ancestor of ``path`` (itself included); why it cannot take a file.

    The reason is ``"is not a folder"``, ``"is not writable (<reason>)"``, or None when a file
    can be created there. Writability is probed with a real temporary file, removed at once:
    ``os.access`` answers yes for root everywhere, even on read-only file systems.
    """
    probe = path
    while not _exists(probe) and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return probe, "is not a folder"
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        return probe, f"is not writable ({exc.strerror})"
    return probe, None


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # e.g. a path through a regular file
        return False


def settings_keywords(
    name: str, cls: type, given: object, values: Mapping[str, Any]
) -> dict[str, Any]:
    """The keywords that build a function's settings object, or ``{}`` when it was given.

    The functions that take their settings as one frozen dataclass (``protocol=``, e.g.
    :class:`meta.evaluate.MetaProtocol`) keep their old keywords: ``values`` holds the
    function's arguments (its ``locals()``; only the names of ``cls``'s fields are read).
    Without ``given`` they are returned, for the caller to build the object (whose
    ``__post_init__`` checks them); with it, each must be left at its default (the field's),
    so that no setting is silently dropped. Nothing of ``cls`` is called here.

    Args:
        name: The parameter of the object, for the messages (``"protocol"``).
        cls: The settings class (a dataclass whose field defaults are the keywords' defaults).
        given: The object passed, or None.
        values: The keywords' values by name.

    Returns:
        ``{field: value}`` of ``values`` when ``given`` is None, else ``{}``.

    Raises:
        TypeError: ``given`` is not a ``cls``, or it comes with a keyword not at its default.
    """
    fields = dataclasses.fields(cls)
    if given is None:
        return {f.name: values[f.name] for f in fields if f.name in values}
    if not isinstance(given, cls):
        raise type_error(name, f"a {cls.__name__} or None", given)
    clash = [f.name for f in fields if f.name in values and not _same(values[f.name], f.default)]
    if clash:
        raise TypeError(
            f"{name} and {', '.join(clash)} are given together; allowed: the settings in "
            f"{name} or as keywords, not both"
        )
    return {}


def _same(value: object, default: object) -> bool:
    """Whether a keyword is left at its default (the same object, or an equal plain value)."""
    if value is default:
        return True
    if type(value) is not type(default) or isinstance(value, np.ndarray):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # pragma: no cover - an uncomparable value
        return False
