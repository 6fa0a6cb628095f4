"""What every ``hanabi-adhoc`` command shares: option types, checks and their one-line errors.

Every check runs before any work and raises :class:`OptionError`, which the entry point prints
as ``error: argument OPTION: MESSAGE`` (exit code 2); an error of the work itself that is the
user's (:func:`command_errors`) is printed as ``error: MESSAGE`` (exit code 2).

Subcommands are built from tables (:func:`add_command`, :func:`add_options`): one row per
option, ``(flag, kind, help[, default])``, the kinds in :data:`OPTION_KINDS`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
from pathlib import Path

from hanabi_env.seeding import MASTER_SEED_LIMIT
from hanabi_env.validate import writable_ancestor
from qd.io import load_archive_source

__all__ = [
    "EXTRAS",
    "MAX_COUNT",
    "MAX_WORKERS",
    "MOVE_TIME_LIMIT",
    "MOVE_TIME_LIMIT_HELP",
    "OPTION_KINDS",
    "QUIET_HELP",
    "SCORING_HELP",
    "SEED_HELP",
    "SEED_LIMIT",
    "STRICT_SCORING_HELP",
    "WAIT_HELP",
    "CommandError",
    "OptionError",
    "add_backend_options",
    "add_command",
    "add_option",
    "add_options",
    "backend_from",
    "backend_settings",
    "check_archive",
    "check_out_dir",
    "check_out_file",
    "check_players",
    "command_errors",
    "config_error",
    "int_range",
    "load_source",
    "nonnegative_int",
    "option_dest",
    "output_files",
    "parse_players",
    "positive_int",
    "rate_float",
    "require_extra",
    "scheduler_address",
    "seconds_float",
    "seed_int",
    "unit_float",
    "workers_int",
]


MAX_COUNT = 10**9
"""Largest count an option accepts (games, candidates, steps, ...): more could never finish."""
MAX_WORKERS = 1024
"""Largest ``--workers``."""
SEED_LIMIT = MASTER_SEED_LIMIT
"""Seeds on the command line: ints in ``[0, 2**32)`` (``hanabi_env.seeding.MASTER_SEED_LIMIT``)."""


class OptionError(ValueError):
    """A user error in one option, found before any work: ``error: argument OPTION: MESSAGE``.

    The ``hanabi-adhoc`` entry point prints it on one line and exits with code 2.
    """

    def __init__(self, option: str, message: str):
        """See the class docstring."""
        super().__init__(f"argument {option}: {message}")
        self.option = option


class CommandError(Exception):
    """An error of the work a command does, not of one option: ``error: MESSAGE``.

    The ``hanabi-adhoc`` entry point prints it on one line and exits with code 2.
    """


EXTRAS = {
    "qd": ("matplotlib", "ribs"),
    "web": ("flask",),
    "dist": ("distributed",),
}
"""The modules whose absence means an extra is not installed (pyproject.toml's extras)."""


def require_extra(what: str, extra: str) -> None:
    """Stop a command that needs an extra which is not installed, before any work.

    Args:
        what: What needs it, for the message (e.g. ``"pipeline"``, ``"--figures"``).
        extra: A key of :data:`EXTRAS`.

    Raises:
        CommandError: ``what needs the EXTRA extra (missing: ...): pip install '.[EXTRA]'``.
    """
    import importlib.util

    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if missing:
        raise CommandError(
            f"{what} needs the {extra} extra (missing: {', '.join(missing)}): "
            f"pip install '.[{extra}]' (or 'hanabi-adhoc[{extra}]')"
        )


@contextlib.contextmanager
def command_errors(*kinds: type[Exception]):
    """An error of ``kinds`` raised inside ends the command as a :class:`CommandError`."""
    try:
        yield
    except kinds as exc:
        raise CommandError(str(exc)) from None


def _to_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def int_range(lo: int, hi: int | None = None, name: str = "int"):
    """An ``argparse`` type: an integer in ``[lo, hi]`` (a one-line usage error otherwise)."""

    def convert(text: str) -> int:
        value = _to_int(text)
        if value < lo:
            raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: >= {lo}")
        if hi is not None and value > hi:
            raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: <= {hi}")
        return value

    convert.__name__ = name
    return convert


positive_int = int_range(1, MAX_COUNT, "positive_int")
positive_int.__doc__ = "An ``argparse`` type: an integer in ``[1, 10**9]``."
nonnegative_int = int_range(0, MAX_COUNT, "nonnegative_int")
nonnegative_int.__doc__ = "An ``argparse`` type: an integer in ``[0, 10**9]``."
workers_int = int_range(1, MAX_WORKERS, "workers_int")
workers_int.__doc__ = "An ``argparse`` type: a process/thread count in ``[1, 1024]``."


def seed_int(text: str) -> int:
    """An ``argparse`` type: a seed, an integer in ``[0, 2**32)``."""
    value = _to_int(text)
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: [0, 2**32)")
    return value


def unit_float(text: str) -> float:
    """An ``argparse`` type: a probability, a finite float in ``[0, 1]``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: [0, 1]")
    return value


def rate_float(text: str) -> float:
    """An ``argparse`` type: a step size (a learning rate), a float in ``(0, 1]``."""
    value = unit_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("0.0 is out of range; allowed: (0, 1]")
    return value


def seconds_float(text: str) -> float:
    """An ``argparse`` type: a duration in seconds, a finite float >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value < float("inf"):  # NaN fails too
        raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: finite, >= 0")
    return value


MOVE_TIME_LIMIT = 10.0
"""``--move-time-limit``'s default: :data:`agents.faults.DEFAULT_MOVE_TIME_LIMIT` (a test checks
it; not imported, so that the parser stays light)."""

MOVE_TIME_LIMIT_HELP = (
    "seconds an agent may take per move; an agent that takes longer is stopped and the "
    "command ends with one error line naming it, the game and the move; 0 = no limit "
    "(default 10; docs/reliability.md §9)"
)
"""The help of ``--move-time-limit`` (``play``, ``evaluate``; :mod:`agents.faults`)."""


def scheduler_address(text: str) -> str:
    """An ``argparse`` type: a Dask scheduler address, ``[PROTOCOL://]HOST:PORT``."""
    if not re.fullmatch(r"(\w+://)?[^\s:/]+:\d{1,5}", text.strip()):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a scheduler address; allowed: [PROTOCOL://]HOST:PORT, e.g. "
            "tcp://127.0.0.1:8786"
        )
    return text.strip()


def parse_players(text: str) -> tuple[int, ...]:
    """``"2"``, ``"2-5"`` or ``"2,4"`` → a tuple of distinct player counts in ``[2, 5]``.

    Raises:
        argparse.ArgumentTypeError: Malformed text, a count outside ``[2, 5]``, an empty range
            or a repeated count (a size listed twice would count its games twice).
    """
    out: list[int] = []
    try:
        for part in str(text).split(","):
            if "-" in part.strip()[1:]:
                a, b = part.split("-")
                lo, hi = int(a), int(b)
                if lo > hi:
                    raise argparse.ArgumentTypeError(
                        f"empty range {part.strip()!r} in {text!r} (e.g. 2-5)"
                    )
                out.extend(range(lo, hi + 1))
            else:
                out.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad player counts {text!r} (e.g. 2, 2-5, 2,4)") from None
    bad = [p for p in out if not 2 <= p <= 5]
    if bad:
        raise argparse.ArgumentTypeError(
            f"player count {bad[0]} in {text!r} is out of range; allowed: 2 to 5"
        )
    repeated = sorted({p for p in out if out.count(p) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(
            f"player count {repeated[0]} is repeated in {text!r} (its games would count twice)"
        )
    return tuple(out)


def check_players(option: str, text: str) -> tuple[int, ...]:
    """:func:`parse_players` raising :class:`OptionError` naming ``option``."""
    try:
        return parse_players(text)
    except argparse.ArgumentTypeError as exc:
        raise OptionError(option, str(exc)) from None


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _writable_folder(option: str, path: Path, shown: str) -> None:
    """The nearest existing ancestor of ``path`` (itself included) is a folder we can write."""
    probe, why = writable_ancestor(path)
    if why == "is not a folder":
        raise OptionError(option, f"cannot create {shown!r}: {str(probe)!r} {why}")
    if why is not None:
        raise OptionError(option, f"cannot write {shown!r}: {str(probe)!r} {why}")


def check_out_dir(option: str, text: str | None) -> None:
    """An output folder: empty or missing (created later) or a folder, in a writable place.

    Raises:
        OptionError: Empty, an existing file, a file on the way, or not writable.
    """
    if text is None:
        return
    if not str(text).strip():
        raise OptionError(option, "an empty path is not allowed; give a folder")
    path = Path(text).expanduser()
    if _exists(path) and not path.is_dir():
        raise OptionError(option, f"{text!r} exists and is not a folder")
    _writable_folder(option, path, str(text))


def check_out_file(option: str, text: str | None) -> None:
    """An output file: missing (its folders created later) or a writable regular file.

    Raises:
        OptionError: Empty, a folder, a file on the way, or not writable.
    """
    if text is None:
        return
    if not str(text).strip() or str(text).endswith(("/", os.sep)):
        raise OptionError(option, f"{text!r} is not a file path")
    path = Path(text).expanduser()
    if path.is_dir():
        raise OptionError(option, f"{text!r} is a folder; give a file path")
    if _exists(path):
        if not path.is_file():
            raise OptionError(option, f"{text!r} is not a regular file")
        try:
            with open(path, "r+b"):
                pass
        except OSError as exc:
            raise OptionError(option, f"cannot write {text!r} ({exc.strerror})") from None
        return
    _writable_folder(option, path.parent, str(text))


def config_error(exc: ValueError, options: dict[str, str]) -> OptionError:
    """A configuration's ``ValueError`` (``"<field>=<v> is out of range; ..."``) naming the option.

    Args:
        exc: The error of a configuration's validation.
        options: Configuration field -> command-line option (e.g. ``"crossover_rate"`` ->
            ``"--crossover-rate"``).
    """
    msg = str(exc)
    m = re.match(r"(\w+)=", msg)
    field = m.group(1) if m else None
    option = options.get(field or "", "--config")
    for name, opt in sorted(options.items(), key=lambda kv: -len(kv[0])):
        msg = re.sub(rf"\b{name}\b", opt, msg)
    if field in options:
        msg = msg[len(options[field]) + 1 :]  # "--opt=v is ..." -> "v is ..."
    return OptionError(option, msg)


def load_source(option: str, source: str):
    """The archive of a population SOURCE, checked for usable elites.

    SOURCE is what :func:`qd.io.load_archive_source` reads.

    Raises:
        OptionError: No such population, not a population, no elites, or elites with
            chromosomes that are not rule lists.
    """
    if not str(source).strip():
        raise OptionError(option, "an empty SOURCE is not allowed; give 5x5, 20x20 or a path")
    try:
        archive = load_archive_source(source)
    except FileNotFoundError as exc:
        raise OptionError(option, str(exc)) from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OSError) as exc:
        raise OptionError(option, f"{source}: not a population or archive ({exc})") from None
    check_archive(option, archive, source)
    return archive


def check_archive(option: str, archive, source: str) -> None:
    """Elites exist and every chromosome is a valid rule list."""
    from agents.policy import rule_ids

    cells = archive.occupied_cells()
    if len(cells) == 0:
        raise OptionError(option, f"{source}: the population has no elites")
    for c in cells:
        try:
            rule_ids([int(g) for g in archive.solution[c]])
        except (ValueError, TypeError) as exc:
            raise OptionError(
                option, f"{source}: elite {archive.cell_name(int(c))} is not a rule list ({exc})"
            ) from None


SEED_HELP = "random seed (default 0)"
"""Help of a ``--seed`` that defaults to 0."""
SCORING_HELP = "lenient (the papers) or strict (HLE) (default lenient)"
"""``--scoring`` of the commands whose default is lenient (``evaluate``, ``train-sb3``, ...)."""
STRICT_SCORING_HELP = (
    "strict (the default, as HLE/hanabi_v5): losing the last life scores 0; lenient (the "
    "papers' Java framework): the fireworks total is kept"
)
"""``--scoring`` of the commands whose default is strict (``play``, ``demo``)."""
"""Help of a ``--scoring`` that defaults to lenient."""
QUIET_HELP = "no progress bar (default: shown)"
"""Help of ``--quiet``."""
WAIT_HELP = (
    "when another hanabi-adhoc process writes the same output, wait for it to finish (default: "
    "refuse at once, naming it)"
)
"""Help of ``--wait`` (one writer per output folder or file, docs/reliability.md)."""

ADOPT_HELP = (
    "resume in a folder made by hanabi-adhoc before 0.2 (files but no manifest.json), recording "
    "its files as they are (default: such a folder is refused, since its files may be yours)"
)
"""Help of ``--adopt`` (folders made before manifests, docs/reliability.md §2)."""


@contextlib.contextmanager
def output_files(paths, wait: bool = False):
    """Hold the lock of every output file in ``paths`` (None entries skipped) meanwhile.

    For commands that write single files (``evaluate --json/--csv``, ``ga --json``): two
    processes never write one file at once (:func:`hanabi_env.outputs.file_lock`).

    Raises:
        FolderBusyError: (an ``OSError``) Another process writes one of them (without ``wait``).
    """
    from hanabi_env.outputs import file_lock

    with contextlib.ExitStack() as stack:
        for path in dict.fromkeys(p for p in paths if p):
            stack.enter_context(file_lock(Path(path).expanduser(), wait=wait))
        yield


OPTION_KINDS: dict[str, dict] = {
    "N": {"type": positive_int, "metavar": "N"},
    "N0": {"type": nonnegative_int, "metavar": "N"},
    "COUNT": {"type": positive_int},
    "GAMES": {"type": nonnegative_int, "metavar": "GAMES"},
    "P": {"type": unit_float, "metavar": "P"},
    "SECONDS": {"type": seconds_float, "metavar": "SECONDS"},
    "SIZES": {"type": parse_players, "metavar": "SIZES"},
    "PLAYERS": {"type": int, "choices": range(2, 6)},
    "HAND_SIZE": {"type": int, "choices": range(2, 6), "metavar": "H"},
    "SEED": {"type": seed_int},
    "SEED_N": {"type": seed_int, "metavar": "N"},
    "WORKERS": {"type": workers_int, "metavar": "N"},
    "ADDRESS": {"type": scheduler_address, "metavar": "ADDRESS"},
    "DIR": {"metavar": "DIR"},
    "SOURCE": {"metavar": "SOURCE"},
    "PATH": {"metavar": "PATH"},
    "FLAG": {"action": "store_true"},
    "strict|lenient": {"choices": ["strict", "lenient"]},
    "lenient|strict": {"choices": ["lenient", "strict"]},
    "corrected|reference": {"choices": ["corrected", "reference"]},
}
"""Kinds of option for :func:`add_options`: ``argparse`` type, metavar, action or choices.

Without a metavar, ``argparse`` shows the option's dest in capitals (``--seed SEED``).
"""


def option_dest(prefix: str, flag: str) -> str:
    """The dest of ``flag`` under ``prefix``: ``--reeval-games``, ``me`` -> ``me_reeval_games``."""
    return f"{prefix}_{flag.lstrip('-').replace('-', '_')}"


def add_option(p, flag: str, help: str, prefix: str | None = None, **kw) -> None:
    """``p.add_argument(flag, help=help, **kw)``, the dest :func:`option_dest` under ``prefix``.

    Without ``prefix`` (or with an explicit ``dest``), ``argparse`` names the dest; a positional
    ``flag`` is its own dest.
    """
    if prefix is not None and flag.startswith("-"):
        kw.setdefault("dest", option_dest(prefix, flag))
    p.add_argument(flag, help=help, **kw)


def add_options(p, prefix: str | None, rows) -> None:
    """One option per row ``(flag, kind, help[, default])``, in order, with :func:`add_option`.

    ``kind`` is a key of :data:`OPTION_KINDS` or the ``argparse`` keywords themselves; without
    a default the option's value is None when it is not given.
    """
    for flag, kind, text, *default in rows:
        kw = dict(OPTION_KINDS[kind] if isinstance(kind, str) else kind)
        if default:
            kw["default"] = default[0]
        add_option(p, flag, text, prefix, **kw)


def add_backend_options(p: argparse.ArgumentParser, prefix: str) -> None:
    """``--workers``, ``--dask`` and ``--scheduler-address`` (dests ``<prefix>_...``)."""
    g = p.add_argument_group("parallelism (results never depend on it)")
    add_options(g, prefix, (
        ("--workers", "WORKERS", "local threads or LocalCluster workers, >= 1 (default: all "
         "cores; 1 = serial)"),
        ("--dask", "FLAG", "evaluate on a Dask LocalCluster (default: local threads)"),
        ("--scheduler-address", {**OPTION_KINDS["ADDRESS"], "dest": f"{prefix}_scheduler"},
         "evaluate on an existing Dask cluster, e.g. tcp://host:8786 (default: none)"),
    ))  # fmt: skip


def add_command(sub, name: str, func, prefix: str | None, rows, backend=False, **texts):
    """Subcommand ``name`` of ``sub`` (an ``argparse`` subparsers object), run by ``func``.

    Its options are those of ``rows`` (:func:`add_options`, dests under ``prefix``), then with
    ``backend`` those of :func:`add_backend_options`; ``texts`` go to ``add_parser`` (``help``,
    ``description``, ``aliases``). Returns the subcommand's parser.
    """
    p = sub.add_parser(name, **texts)
    add_options(p, prefix, rows)
    if backend:
        assert prefix is not None, "the parallelism options need a dest prefix"
        add_backend_options(p, prefix)
    p.set_defaults(func=func)
    return p


def backend_settings(args: argparse.Namespace, prefix: str) -> dict:
    """``workers``, ``scheduler_address`` and ``dask`` as :func:`add_backend_options` took them.

    The keywords of :func:`agents.backend.make_backend` and :func:`qd.run.run_map_elites`.
    """
    return {
        "workers": getattr(args, f"{prefix}_workers"),
        "scheduler_address": getattr(args, f"{prefix}_scheduler"),
        "dask": getattr(args, f"{prefix}_dask"),
    }


def backend_from(args: argparse.Namespace, prefix: str):
    """The :class:`agents.backend.Backend` that :func:`add_backend_options` asked for."""
    from agents.backend import make_backend

    return make_backend(**backend_settings(args, prefix))
