"""The one place that decides how kernels are compiled and where their machine code is cached.

Every kernel of the project is decorated with :func:`njit` from here: numba's ``njit`` with an
on-disk cache of the project's own (or with one of its presets: :data:`kernel`, :data:`alloc`,
:data:`inline`). ``NUMBA_DISABLE_JIT=1`` turns every kernel into plain Python for debugging.

**No global side effects.** Importing the package changes no numba setting: the cache is
attached to this project's dispatchers only (a :class:`numba.core.caching.FunctionCache`
subclass with its own locator), so a user's own ``@numba.njit(cache=True)`` functions are
cached exactly where numba would put them without this package.

**Where.** The cache root is, in order of precedence: ``$HANABI_ADHOC_CACHE``;
``$NUMBA_CACHE_DIR/hanabi-adhoc``; ``$XDG_CACHE_HOME/hanabi-adhoc/numba``;
``~/.cache/hanabi-adhoc/numba``. Inside it, one folder per hash of the kernel sources, and in
that one folder per package (``hanabi_env`` and so on). Nothing in these names
depends on where the sources are installed or when: reinstalling the same version, or running
the tests from a clone after ``pip install .``, loads the kernels compiled by the first run
instead of compiling them again
(numba's own cache keys a kernel on its file's absolute path and modification time).

**Staleness.** numba invalidates a cached kernel only when *its own* source file changes, so a
kernel that calls into a changed module (or reads a changed constant) would keep stale machine
code. The cache folder is therefore keyed on a hash of every file that defines kernels or
constants they read (:func:`kernel_sources`, checked by a test): any change there gives a fresh
folder, while edits to the rest of the project (CLI, env wrapper, search, analysis) keep the
cache. The files are found, not listed: in every top-level package of the project, each module
that imports this one at module level (every kernel is decorated from here; an import inside a
function, such as the CLI's for :func:`cache_root`, defines no kernel), and each module carrying
the marker line ``# kernel-source: constants read by compiled kernels`` (modules whose
constants are frozen into kernels without defining any).

**Read-only caches.** A cache built once (e.g. into a container image, then shared read-only
through ``NUMBA_CACHE_DIR``) is loaded as it is. When a kernel must be compiled and the folder
is not writable (read-only HOME, say), it is compiled in memory for this process and one
warning says so; nothing fails.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tempfile
import warnings
from importlib import metadata
from pathlib import Path

import numba
from numba.core import caching
from numba.core.dispatcher import Dispatcher

_ROOT = Path(__file__).resolve().parents[1]
#: Package folders of a checkout that are not installed code, so never kernel sources.
_NOT_SHIPPED = ("tests",)
_DISTRIBUTION = "hanabi-adhoc"  # this project's distribution (its name, not a package's)
_IMPORTS_JIT = re.compile(  # at module level: no indentation
    r"^(?:from[ \t]+(?:hanabi_env)?\.jit[ \t]+import\b"
    r"|from[ \t]+hanabi_env[ \t]+import[ \t(]+(?:[\w, \t]*,[ \t]*)?jit\b"
    r"|import[ \t]+hanabi_env\.jit\b)",
    re.MULTILINE,
)
KERNEL_SOURCE_MARKER = "# kernel-source:"
"""A line starting with this marks a module whose constants compiled kernels read."""


def _package_dirs(root: Path) -> list[Path]:
    """The folders of the project's top-level packages under ``root``.

    A source checkout (``root`` holds ``pyproject.toml``): every package folder in it but the
    test suite's (:data:`_NOT_SHIPPED`: tests may compile helpers of their own, and editing a
    test must not invalidate the cache). An installed copy: the packages the installed
    distribution names (``top_level.txt``).
    """
    if (root / "pyproject.toml").is_file():
        shipped = (d for d in root.iterdir() if d.name not in _NOT_SHIPPED)
        return sorted(d for d in shipped if (d / "__init__.py").is_file())
    try:
        names = (metadata.distribution(_DISTRIBUTION).read_text("top_level.txt") or "").split()
    except metadata.PackageNotFoundError:  # pragma: no cover - neither installed nor a checkout
        names = []
    dirs = [root / name for name in names if (root / name / "__init__.py").is_file()]
    return sorted(dirs) or [Path(__file__).resolve().parent]


def kernel_sources(root: Path | None = None) -> tuple[str, ...]:
    """The files the compiled kernels depend on, as paths relative to ``root``, sorted.

    Every ``.py`` file of the project's top-level packages (:func:`_package_dirs`) that
    imports this module at module level (a text scan of its unindented import lines) or
    carries a line starting with :data:`KERNEL_SOURCE_MARKER`; and this module itself.

    Args:
        root: The folder holding the packages (default: the one holding ``hanabi_env``).

    Returns:
        POSIX relative paths, e.g. ``"hanabi_env/engine.py"``.
    """
    root = _ROOT if root is None else Path(root)
    found = set()
    for pkg in _package_dirs(root):
        for path in pkg.rglob("*.py"):
            text = path.read_text(encoding="utf-8", errors="replace")
            marked = any(ln.startswith(KERNEL_SOURCE_MARKER) for ln in text.splitlines())
            if marked or _IMPORTS_JIT.search(text):
                found.add(path.relative_to(root).as_posix())
    this = Path(__file__).resolve()
    if this.is_relative_to(root.resolve()):
        found.add(this.relative_to(root.resolve()).as_posix())
    return tuple(sorted(found))


def _source_hash(root: Path | None = None) -> str:
    """Hash of numba's version and of every :func:`kernel_sources` file (path and contents)."""
    root = _ROOT if root is None else Path(root)
    h = hashlib.sha256(numba.__version__.encode())
    for rel in kernel_sources(root):
        h.update(rel.encode())
        h.update((root / rel).read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> Path | None:
    """The folder this process reads and writes compiled kernels in (``None``: no cache).

    Returns:
        ``<base>/<hash of the kernel sources>`` with the base chosen as the module docstring
        says, or ``None`` when no base can be named (no HOME and no variable set).
    """
    if os.environ.get("HANABI_ADHOC_CACHE"):
        base = Path(os.environ["HANABI_ADHOC_CACHE"])
    elif os.environ.get("NUMBA_CACHE_DIR"):
        base = Path(os.environ["NUMBA_CACHE_DIR"]) / "hanabi-adhoc"
    elif os.environ.get("XDG_CACHE_HOME"):
        base = Path(os.environ["XDG_CACHE_HOME"]) / "hanabi-adhoc" / "numba"
    else:
        try:
            base = Path.home() / ".cache" / "hanabi-adhoc" / "numba"
        except (RuntimeError, KeyError):  # no HOME and no passwd entry
            return None
    return base / _source_hash()


_CACHE_ROOT = cache_root()
_warned = False


def _warn_unwritable(path: str, err: OSError) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(
            f"hanabi-adhoc: cannot write compiled kernels to {path} ({err.strerror or err}); "
            "compiling in memory for this process (set HANABI_ADHOC_CACHE to a writable folder "
            "to keep them)",
            RuntimeWarning,
            stacklevel=2,
        )


def _module_folder(py_file: str) -> str:
    """The cache sub-folder of a kernel's source file: its package path, not its location.

    ``.../site-packages/hanabi_env/engine.py`` and ``/clone/hanabi_env/engine.py`` both give
    ``"hanabi_env"``: numba's own locator names the folder after a hash of the file's
    absolute path, so the same sources installed elsewhere (a reinstall, a checkout beside
    an installed copy) would compile again. A file outside the project's root keeps numba's
    naming.
    """
    path = Path(py_file).resolve()
    if path.is_relative_to(_ROOT):
        return ".".join(path.relative_to(_ROOT).parent.parts) or "_root"
    return caching._CacheLocator.get_suitable_cache_subpath(py_file)


@functools.cache
def _content_stamp(py_file: str) -> str:
    """SHA-256 of a source file's bytes: the freshness stamp numba stores with each kernel."""
    return hashlib.sha256(Path(py_file).read_bytes()).hexdigest()


class _ProjectLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Locates one kernel's cache files under :func:`cache_root`, writable or not.

    Keyed on the sources, not on where they are installed: the folder is named by the
    module's package path (:func:`_module_folder`) and the stamp numba checks before loading
    is the file's content hash (:func:`_content_stamp`; older numba versions stamp the file's
    modification time, which every reinstall changes). The cache root itself is keyed on the
    hash of every kernel source (:func:`cache_root`), so a stale kernel is never loaded.
    """

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(str(_CACHE_ROOT), _module_folder(py_file))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return _content_stamp(self._py_file)

    def ensure_cache_path(self):
        path = self.get_cache_path()
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()

    @classmethod
    def from_function(cls, py_func, py_file):
        # Unlike numba's locators, a folder that is readable but not writable is accepted: a
        # pre-built read-only cache still loads; saving is handled by _ProjectCache.
        if _CACHE_ROOT is None or not os.path.exists(py_file):
            return None
        return cls(py_func, py_file)


class _ProjectCacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [_ProjectLocator]  # noqa: RUF012 (numba's own class attribute)


class _ProjectCache(caching.FunctionCache):
    """numba's per-function cache with this project's locator; a failed save only warns."""

    _impl_class = _ProjectCacheImpl

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except OSError:  # an unreachable folder is a cache miss
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except OSError as err:
            _warn_unwritable(self.cache_path, err)
            self.disable()  # loading stays off too: nothing new can appear in this folder


def _attach_cache(dispatcher):
    if _CACHE_ROOT is None or not isinstance(dispatcher, Dispatcher):
        return dispatcher  # NUMBA_DISABLE_JIT=1 gives the plain function
    try:
        dispatcher._cache = _ProjectCache(dispatcher.py_func)  # what Dispatcher.enable_caching does
    except (OSError, RuntimeError) as err:  # pragma: no cover - unreadable source file
        _warn_unwritable(str(_CACHE_ROOT), OSError(str(err)))
    return dispatcher


def njit(*args, **kwargs):
    """``numba.njit`` with this project's on-disk cache; usable bare or with options.

    ``cache=False`` compiles in memory only. Other keyword arguments go to ``numba.njit``
    (explicit signatures are not supported: kernels compile lazily, so they can be cached).
    """
    cache = kwargs.pop("cache", True)

    def decorate(func):
        dispatcher = numba.njit(**kwargs)(func)
        return _attach_cache(dispatcher) if cache else dispatcher

    if len(args) == 1 and callable(args[0]):
        return decorate(args[0])
    if args:
        raise TypeError("njit: pass options as keywords; explicit signatures are not supported")
    return decorate


kernel = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy", _nrt=False)
"""Decorator of internal kernels: compiled without Python wrappers (callable only from
compiled code) and without numba's reference counting (``_nrt=False``).

Without NRT a kernel cannot allocate: its buffers come from the caller (the rule kernels work
in rows of a scratch table). In exchange a call passes arrays without reference-count
updates: with NRT, numba surrounds each call that passes a player view (13 arrays) with 26 of
them, which cost more than most rules (measured: a third of the time of a decision)."""

alloc = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")
"""Decorator of internal helpers that allocate (called only from compiled code)."""

inline = njit(inline="always", error_model="numpy")
"""Decorator of small helpers inlined into their callers by numba. Inlined code is compiled
with its caller's options; called from Python, such a helper compiles on its own."""
