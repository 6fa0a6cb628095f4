"""Agent identity: the SHA-256 of what an agent is made of, so that results follow its code.

A result saved for an agent (a benchmark unit, docs/benchmark.md §1) records the agent's
identity; a resumed run that finds another identity knows the agent changed and plays again.
What is hashed, by the spec's kind (:func:`agents.registry.spec_kind`):

* ``baseline``, ``chromosome``: the spec and the toolkit's version (the rules are the
  toolkit's);
* ``shipped`` (``rl:NAME``, ``bad:NAME``): the shipped files, its JSON and its weights ``.npz``;
* ``model_file``: ``sb3:PATH`` the model file; ``rl:PATH.json`` the JSON and the weights file it
  names; ``bad:PATH.json`` the JSON and the ``.npz`` beside it;
* ``code``: ``file.py:Name`` that file; ``module:Name`` the module's file, or every ``.py`` file
  under the package's folder when the module is a package; ``PREFIX:ARG`` of a prefix
  registered by someone else: its loader's module file (and ``ARG`` when it is a file).

Only these files are seen: a change in another module that a ``file.py:Name`` or a plain module
imports is not. Keep an agent's code in one file, or in a package named as ``package:Name``, to
have every change seen. A :class:`~agents.policy.Policy` object given without a spec is known
by its class's source file (:func:`policy_identity`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
from pathlib import Path

from agents.registry import spec_kind
from hanabi_env import __version__
from hanabi_env.files import sha256_file
from hanabi_env.validate import check_str

__all__ = ["MAX_PACKAGE_FILES", "agent_identity", "policy_identity", "toolkit_identity"]

MAX_PACKAGE_FILES = 2000
"""The most ``.py`` files hashed for a package (more is refused: name a smaller package)."""

_DATA = Path(__file__).resolve().parent / "data"


def _digest(doc: dict) -> str:
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _files(paths: list[Path], spec: str) -> list[dict]:
    out = []
    for p in paths:
        try:
            digest = sha256_file(p)[0]
        except OSError as err:
            raise ValueError(f"agent {spec!r}: cannot read {p} ({err.strerror})") from None
        out.append({"path": str(p), "sha256": digest})
    return out


def _identity(spec: str, kind: str, paths: list[Path], version: str | None) -> dict:
    files = _files(paths, spec)
    doc = {"spec": spec, "kind": kind, "version": version, "files": [f["sha256"] for f in files]}
    return {"spec": spec, "kind": kind, "sha256": _digest(doc), "version": version, "files": files}


def toolkit_identity(spec: str, kind: str) -> dict:
    """The identity of an agent made by the toolkit's own code: its spec and the version.

    For baselines and chromosomes (:func:`agent_identity` uses it) and for agents built by a
    layer above this one (the command line's ``meta`` agent, kind ``"meta"``).

    Args:
        spec: The agent spec.
        kind: Its kind, recorded as given.

    Returns:
        As :func:`agent_identity`, with ``files`` empty.

    Raises:
        TypeError: ``spec`` or ``kind`` is not a str.
    """
    check_str("spec", spec)
    check_str("kind", kind)
    return _identity(spec.strip(), kind, [], __version__)


def agent_identity(spec: str) -> dict:
    """The identity of the agent ``spec`` names: the SHA-256 of what it is made of.

    Nothing is run: modules are located (``importlib.util.find_spec``, which imports a dotted
    module's parent packages, as building the agent does) and files read.

    Args:
        spec: An agent spec (:mod:`agents.registry`).

    Returns:
        ``{"spec", "kind", "sha256", "version", "files"}``: the stripped spec, its kind
        (:data:`agents.registry.SPEC_KINDS`), the hex SHA-256 of the spec, kind, version and
        the files' hashes, the toolkit's version for baselines and chromosomes (else None),
        and ``files``: ``[{"path", "sha256"}, ...]`` of every file hashed (see the module
        docstring; source: docs/benchmark.md §1).

    Raises:
        TypeError: ``spec`` is not a str.
        ValueError: An empty spec, a file or module that is not found or cannot be read, or
            a package of more than :data:`MAX_PACKAGE_FILES` files (the message names the
            spec).
    """
    kind = spec_kind(spec)
    text = spec.strip()
    if kind in ("baseline", "chromosome"):  # spec_kind checked the spec: not again
        return _identity(text, kind, [], __version__)
    head, _, rest = text.partition(":")
    key, arg = head.strip().lower(), rest.strip()
    if kind == "shipped":
        folder = _DATA / ("rl_partners" if key == "rl" else key)
        return _identity(text, kind, _with_weights(key, folder / f"{arg}.json", text), None)
    if kind == "model_file":
        path = Path(arg).expanduser()
        if key == "sb3" and not path.is_file() and path.with_name(path.name + ".zip").is_file():
            path = path.with_name(path.name + ".zip")  # as Stable-Baselines3 loads it
        paths = [path] if key == "sb3" else _with_weights(key, path, text)
        return _identity(text, kind, [p.resolve() for p in paths], None)
    return _identity(text, kind, _code_files(head.strip(), arg, text), None)


def _with_weights(key: str, config: Path, spec: str) -> list[Path]:
    """An rl/bad agent's JSON and its weights: the file the JSON names (rl), else ``.npz``."""
    if not config.is_file():
        raise ValueError(f"agent {spec!r}: no such file {config}")
    weights = config.with_suffix(".npz")
    if key == "rl":
        try:
            doc = json.loads(config.read_text(encoding="utf-8"))
            weights = config.parent / str(doc["weights"]["file"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ValueError(f"agent {spec!r}: {config} names no weights file ({err!r})") from None
    return [config, weights] if weights.is_file() else [config]


def _code_files(where: str, arg: str, spec: str) -> list[Path]:
    from agents import registry

    if where.endswith(".py"):
        path = Path(where).expanduser()
        if not path.is_file():
            raise ValueError(f"agent {spec!r}: no Python file at {where}")
        return [path.resolve()]
    loader = registry.prefix_loader(where)
    if loader is not None:  # a prefix registered by someone else: its loader (and a file ARG)
        files = _module_files(loader.partition(":")[0], spec)
        arg_path = Path(arg).expanduser()
        return files + ([arg_path.resolve()] if arg and arg_path.is_file() else [])
    return _module_files(where, spec)


def _module_files(module: str, spec: str) -> list[Path]:
    """The file of ``module``, or every ``.py`` file under its folder when it is a package."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError) as err:
        raise ValueError(f"agent {spec!r}: cannot locate module {module!r} ({err})") from None
    if found is None or found.origin in (None, "built-in", "frozen"):
        raise ValueError(f"agent {spec!r}: module {module!r} has no source file to hash")
    origin = Path(found.origin).resolve()
    if not found.submodule_search_locations:
        return [origin]
    files = sorted(origin.parent.rglob("*.py"))
    if len(files) > MAX_PACKAGE_FILES:
        raise ValueError(
            f"agent {spec!r}: package {module!r} holds {len(files)} Python files (allowed: "
            f"<= {MAX_PACKAGE_FILES}); name the module that holds the agent instead"
        )
    return [f.resolve() for f in files]


def policy_identity(policy: object) -> dict:
    """The identity of a policy object given without a spec: its class's source file.

    Args:
        policy: The policy.

    Returns:
        As :func:`agent_identity`, with ``spec`` None, ``kind`` ``"object"``, and the hash of
        the class's qualified name, the policy's ``name`` and its class's source file (none
        when the class has no file, e.g. one defined at an interactive prompt). Its
        parameters are not seen: give differently built policies different names.
    """
    cls = type(policy)
    try:
        source = inspect.getsourcefile(cls)
    except TypeError:  # a built-in class
        source = None
    paths = [Path(source).resolve()] if source and Path(source).is_file() else []
    what = f"{cls.__module__}.{cls.__qualname__}:{getattr(policy, 'name', '')}"
    ident = _identity(what, "object", paths, None)
    return {**ident, "spec": None}
