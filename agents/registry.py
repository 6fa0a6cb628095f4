"""Agent specs: one registry that turns a string into a policy, for the API, pools and the CLI.

Every place that names an agent by a string (``agents.make``, pool SOURCEs, the command line,
the benchmark) resolves it here, so a form that works in one works in all. The forms:

| spec | policy |
|---|---|
| ``piers``, ``IGGI``, ... | a baseline rule agent (:func:`make`, docs/rules.md §4) |
| ``smartbot``, ``SmartBot``, ``smart``, ... | a reference bot (:mod:`agents.bots`, docs/bots.md) |
| ``3,17,4`` | a chromosome: a :class:`~agents.policy.RuleAgent` of those alphabet rules |
| ``PREFIX:REST`` | a registered prefix (:func:`register_prefix`), e.g. ``sb3:PATH``, ``bad:NAME`` |
| ``package.module:Name`` | ``Name`` imported from an importable module |
| ``path/to/file.py:Name`` | ``Name`` loaded from a Python file |

For the last two, ``Name`` is a :class:`~agents.policy.Policy` subclass or a function that
returns a policy; it is called with ``seed=seed`` when it accepts a ``seed`` argument, with no
argument otherwise. Importing the module runs its code: name only your own modules.

**Options.** Those two forms take keyword arguments for ``Name`` after a ``?``, as in a URL:
``path/to/file.py:Name?level=2&greedy=true`` calls ``Name(seed=seed, level=2, greedy=True)``
(:func:`split_options`). A value is read as a JSON scalar where it parses as one (``2``,
``0.5``, ``true``, ``false``, ``null``, ``"2"``), as a string otherwise (``mode=fast``);
``%XX`` escapes are decoded (``%26`` for ``&``). A keyword ``Name`` does not accept is refused
with the list of those it does, before anything is built. The first ``?`` of a spec starts its
options; the other forms take none. Quote such a spec in a shell (``?`` and ``&`` are special
there).

Prefixes are looked up before modules (a registered prefix cannot be shadowed by a module of
the same name). Each prefix names its loader as a ``"module:function"`` string imported on
first use, so that heavy dependencies (torch, Stable-Baselines3) load only when such an agent
is asked for.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from agents.bots import bot_key, make_bot
from agents.policy import Policy, RuleAgent, baseline_agent
from hanabi_env.validate import check_bool, check_seed, check_str, type_error

__all__ = [
    "SPEC_FORMS",
    "SPEC_KINDS",
    "check_spec_allowed",
    "make",
    "make_policy",
    "prefix_loader",
    "register_prefix",
    "registered_prefixes",
    "spec_kind",
    "split_options",
    "split_prefix",
]

_CHROMOSOME = re.compile(r"\s*-?\d+\s*(,\s*-?\d+\s*)*")
_MODULE = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*")
_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class _Prefix:
    loader: str  # "module:function", imported on first use
    summary: str  # one line for help texts, e.g. "sb3:PATH  a saved MaskablePPO model"


_PREFIXES: dict[str, _Prefix] = {
    "sb3": _Prefix(
        "agents.sb3.policy:from_spec",
        "sb3:PATH  a saved Stable-Baselines3 MaskablePPO model (rl extra; loading runs code "
        "from the file, so it needs trust)",
    ),
    "rl": _Prefix(
        "agents.rl.partners:from_spec",
        "rl:NAME  a shipped RL partner (agents.rl.partner_names(); numpy, no trust needed), "
        "or rl:PATH.json one you exported",
    ),
    "bad": _Prefix(
        "agents.bad.policy:from_spec",
        "bad:NAME  a trained Bayesian Action Decoder agent: a shipped one (very-small, small: "
        "HLE's small presets, 2 players) or an agent file bad:PATH.json (docs/bad.md)",
    ),
}

SPEC_FORMS = (
    "a baseline name (IGGI, Internal, Outer, LegalRandom, VanDenBergh, Flawed, Piers, "
    "Cautious), a reference bot (SimpleBot, ValueBot, HolmesBot, SmartBot, InfoBot; "
    "docs/bots.md), a chromosome of comma-separated rule indices (e.g. 3,17,4), PREFIX:ARG for a "
    "registered prefix (see agents.registry.registered_prefixes), package.module:Name or "
    "path/to/file.py:Name for a Policy of your own (options as keyword arguments: "
    "path/to/file.py:Name?key=value&key2=value2)"
)
"""The forms of an agent spec, for error messages and help texts."""


SPEC_KINDS = ("baseline", "chromosome", "shipped", "model_file", "code")
"""What building a spec reads or runs, from the safest to the least safe (:func:`spec_kind`)."""

# prefixes of this project whose files hold data only (numpy arrays and JSON, no pickle)
_DATA_PREFIXES = frozenset({"rl", "bad"})


def spec_kind(spec: str) -> str:
    """What building the agent ``spec`` names would read or run, without building it.

    Nothing is imported, opened or run: the answer comes from the spec's text alone, so a
    server or a suite file can check a spec from an untrusted source before anything loads.

    Args:
        spec: An agent spec (the module docstring's forms).

    Returns:
        One of :data:`SPEC_KINDS`: ``"baseline"`` (a baseline name), ``"chromosome"``,
        ``"shipped"`` (``rl:NAME`` or ``bad:NAME``: data shipped in the package),
        ``"model_file"`` (``sb3:PATH``, ``rl:PATH.json``, ``bad:PATH.json``: a file on disk)
        or ``"code"`` (``module:Name``, ``file.py:Name``, or a prefix registered by someone
        else, whose loader is code this module cannot vouch for). Options (``?key=value``)
        do not change the kind.

    Raises:
        TypeError: ``spec`` is not a str.
        ValueError: An empty spec.
    """
    check_str("spec", spec)
    text = spec.partition("?")[0].strip()  # options change what is built, not what loads
    if not text:
        raise ValueError(f"spec={spec!r} is not allowed; allowed: {SPEC_FORMS}")
    if _CHROMOSOME.fullmatch(text):
        return "chromosome"
    key, arg = _split_prefix(text)
    if key is None:
        return "baseline"
    if key == "sb3":
        return "model_file"
    if key in _DATA_PREFIXES:
        is_path = arg.endswith(".json") or "/" in arg or "\\" in arg or arg.startswith(".")
        return "model_file" if is_path else "shipped"
    return "code"


def split_prefix(spec: str) -> tuple[str | None, str]:
    """A spec's prefix (lower case) and its argument, read from its text alone.

    ``"rl:clone-smartbot"`` gives ``("rl", "clone-smartbot")``; a spec of no prefix (a
    baseline, a bot, a chromosome) gives ``(None, spec)``. Options (``?key=value``) stay in the
    argument; nothing is imported or loaded.

    The one place a prefix is read off a spec (docs/architecture.md §1.1): a command taking one
    kind of agent (``clone --init rl:NAME``) asks this instead of parsing the spec itself.

    Raises:
        TypeError: ``spec`` is not a str.
    """
    check_str("spec", spec)
    return _split_prefix(spec.strip())


def _split_prefix(text: str) -> tuple[str | None, str]:
    """:func:`split_prefix` of a checked, stripped spec (this module's readers trust it)."""
    head, sep, rest = text.partition(":")
    if not sep or _CHROMOSOME.fullmatch(text):
        return None, text
    return head.strip().lower(), rest.strip()


def check_spec_allowed(
    spec: str,
    *,
    allow_code: bool = False,
    allow_model_files: bool = False,
    parameter: str = "spec",
    hint: str = "",
) -> str:
    """Refuse a spec from an untrusted source (a request, a suite file) that runs code.

    Args:
        spec: The agent spec.
        allow_code: Allow ``module:Name``, ``file.py:Name`` and third-party prefixes.
        allow_model_files: Allow model files named by path (``sb3:PATH`` also needs
            ``allow_code``: loading it unpickles).
        parameter: The name the error gives the spec.
        hint: Appended to the error, e.g. ``" (start the server with --trust-model)"``.

    Returns:
        The spec's kind (:func:`spec_kind`).

    Raises:
        TypeError: ``spec`` is not a str.
        ValueError: A spec of a kind not allowed, naming it and what is allowed.
    """
    kind = spec_kind(spec)
    needs_code = kind == "code" or spec.strip().lower().startswith("sb3:")
    allowed = ["baseline names", "chromosomes", "shipped partners (rl:NAME, bad:NAME)"]
    if allow_model_files:
        allowed.append("model files")
    if allow_code:
        allowed.append("code")
    if (needs_code and not allow_code) or (kind == "model_file" and not allow_model_files):
        what = "runs code" if needs_code else "reads a model file"
        raise ValueError(
            f"{parameter}={spec!r} is not allowed: building it {what}; allowed: "
            f"{', '.join(allowed)}{hint}"
        )
    return kind


def register_prefix(prefix: str, loader: str, summary: str) -> None:
    """Register ``PREFIX:ARG`` specs, resolved by ``loader`` (imported on first use).

    Args:
        prefix: Lower-case letters, digits and ``_`` (e.g. ``"rl"``); a new prefix or the
            same registration again.
        loader: ``"module:function"``; the function is called as
            ``function(arg, seed=seed, trust_model=trust_model)`` and returns a
            :class:`Policy` (or raises ``ValueError`` naming the spec).
        summary: One line for help texts (``"rl:NAME  a shipped RL partner"``).

    Raises:
        TypeError: A non-str argument.
        ValueError: A malformed prefix or loader, or a prefix already registered to
            another loader.
    """
    check_str("prefix", prefix)
    check_str("loader", loader)
    check_str("summary", summary)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", prefix):
        raise ValueError(f"prefix={prefix!r} is not allowed; allowed: [a-z][a-z0-9_]*")
    module, _, func = loader.partition(":")
    if not (_MODULE.fullmatch(module) and _NAME.fullmatch(func)):
        raise ValueError(f"loader={loader!r} is not allowed; allowed: 'package.module:function'")
    old = _PREFIXES.get(prefix)
    if old is not None and old.loader != loader:
        raise ValueError(f"prefix {prefix!r} is already registered to {old.loader}")
    _PREFIXES[prefix] = _Prefix(loader, summary)


def registered_prefixes() -> dict[str, str]:
    """The registered prefixes and their one-line summaries."""
    return {k: v.summary for k, v in sorted(_PREFIXES.items())}


def prefix_loader(prefix: str) -> str | None:
    """The ``"module:function"`` loader registered for ``prefix`` (any case), or None."""
    check_str("prefix", prefix)
    found = _PREFIXES.get(prefix.strip().lower())
    return None if found is None else found.loader


def make_policy(
    spec: str,
    seed: int = 0,
    *,
    ruleset: str = "corrected",
    preset: str | None = None,
    trust_model: bool = False,
) -> Policy:
    """The policy an agent spec names (see the module docstring for the forms).

    Args:
        spec: The spec, e.g. ``"piers"``, ``"3,17,4"``, ``"sb3:runs/model.zip"``,
            ``"my_agents:MyPolicy"`` or ``"agents/mine.py:MyPolicy?level=2"`` (options:
            keyword arguments of ``MyPolicy``, see the module docstring).
        seed: Seed of the policy's generator (a baseline's or chromosome's rules, a model's
            sampling, passed as ``seed=`` to a user's class when it accepts one).
        ruleset: Rule agents' ruleset, ``"corrected"`` or ``"reference"`` (docs/rules.md §12);
            a chromosome then runs as the papers' HistogramAgent, a baseline as the
            framework's ProductionRuleAgent.
        preset: ``"cig18"`` for [CIG18]'s 2018 agent lists (baselines only).
        trust_model: Allow specs whose loading runs code stored in a file (``sb3:PATH``:
            Stable-Baselines3 unpickles its zip); pass True only for files you trust.

    Returns:
        The policy.

    Raises:
        TypeError: ``spec`` is not a str, or the named object is not a Policy (class).
        ValueError: An unknown name, prefix, module, file or attribute, a rule index out of
            range, a loader's refusal, malformed options, options on a form that takes none,
            or a keyword the named class or function does not accept (the message names the
            spec, and the keywords it accepts).
    """
    check_str("spec", spec)
    text = spec.strip()
    if not text:
        raise ValueError(f"spec={spec!r} is not allowed; allowed: {SPEC_FORMS}")
    base, options = _split_options(text)  # spec checked above
    head, sep, rest = base.partition(":")
    if sep and head.strip().lower() not in _PREFIXES:
        return _from_object(head.strip(), rest.strip(), check_seed("seed", seed), text, options)
    if "?" in text:
        raise ValueError(
            f"spec={text!r}: options (?key=value) are allowed only in module:Name and "
            "file.py:Name specs"
        )
    if _CHROMOSOME.fullmatch(text):
        genes = [int(x) for x in text.split(",")]
        # the seed is checked once, by the constructor (as for baselines below)
        return RuleAgent(genes, seed=seed, name="chromosome", ruleset=_ruleset(ruleset, preset))
    key, arg = _split_prefix(text)
    if key is None:
        if any(ch.isdigit() for ch in text) and "," in text:
            raise ValueError(
                f"{text!r} is not a chromosome; allowed: rule indices separated by commas, "
                "e.g. 3,17,4"
            )
        if bot_key(text) is not None:  # the reference bots, before baselines
            return make_bot(text, seed=check_seed("seed", seed))
        return baseline_agent(spec, seed, ruleset, preset)  # its RuleAgent checks the seed
    seed = check_seed("seed", seed)
    return _from_prefix(key, arg, seed, check_bool("trust_model", trust_model), text)


def make(
    name: str,
    seed: int = 0,
    ruleset: str = "corrected",
    preset: str | None = None,
    trust_model: bool = False,
) -> Policy:
    """An agent by name or spec, e.g. ``make("piers")``, ``make("3,17,4")``, ``make("rl:NAME")``.

    Resolved by :func:`make_policy`, which lists every form: a baseline name
    (:func:`agents.policy.make_baseline`), a reference bot, a chromosome, a registered prefix
    (``sb3:PATH``, ...) or ``package.module:Name`` / ``path/to/file.py:Name`` for a policy of
    your own.

    Args:
        name: The agent spec.
        seed: Seed of the policy's generator.
        ruleset: Rule agents' ruleset, ``"corrected"`` or ``"reference"``.
        preset: ``"cig18"``: [CIG18]'s 2018 agent lists (baselines only).
        trust_model: Allow specs whose loading runs code from a file (``sb3:PATH``).

    Returns:
        The policy (a :class:`RuleAgent` for baseline names and chromosomes).

    Raises:
        TypeError, ValueError: As :func:`make_policy`.
    """
    check_str("name", name)
    return make_policy(name, seed, ruleset=ruleset, preset=preset, trust_model=trust_model)


def _ruleset(ruleset: str, preset: str | None) -> str:
    return "reference" if preset is not None else ruleset


def _from_prefix(key: str, arg: str, seed: int, trust_model: bool, text: str) -> Policy:
    module, _, func = _PREFIXES[key].loader.partition(":")
    loader = getattr(importlib.import_module(module), func)
    policy = loader(arg, seed=seed, trust_model=trust_model)
    if not isinstance(policy, Policy):  # pragma: no cover - a loader of the project's
        raise type_error(text, "a spec naming a Policy", policy)
    return policy


def split_options(spec: str) -> tuple[str, dict[str, Any]]:
    """A spec without its options, and the options (``"f.py:Bot?level=2"``).

    Args:
        spec: An agent spec; the first ``?`` starts its options, ``key=value`` pairs joined
            by ``&``. Keys are Python names; a value is a JSON scalar where it parses as one
            (int, float, ``true``/``false``, ``null``, a quoted string), else the text itself;
            ``%XX`` escapes are decoded in both.

    Returns:
        ``(spec before the "?", {key: value})``; the dict is empty without a ``?``.

    Raises:
        TypeError: ``spec`` is not a str.
        ValueError: An empty option list after ``?``, a pair without ``=``, a key that is
            not a Python name, or a key given twice.
    """
    return _split_options(check_str("spec", spec, empty=True))


def _split_options(spec: str) -> tuple[str, dict[str, Any]]:
    """:func:`split_options` of a spec already checked to be a str."""
    base, sep, query = spec.partition("?")
    if not sep:
        return base, {}
    if not query.strip():
        raise ValueError(f"spec={spec!r} has no options after '?'; allowed: ?key=value&key2=value2")
    options: dict[str, Any] = {}
    for pair in query.split("&"):
        key, eq, raw = pair.partition("=")
        key = unquote(key).strip()
        if not eq or not key.isidentifier():
            raise ValueError(
                f"spec={spec!r}: option {pair!r} is not allowed; allowed: key=value with key a "
                "Python name, pairs joined by '&'"
            )
        if key in options:
            raise ValueError(f"spec={spec!r}: option {key!r} is given twice")
        options[key] = _option_value(unquote(raw))
    return base, options


def _option_value(text: str) -> Any:
    """``text`` as a JSON scalar where it is one (finite numbers only), else ``text``."""
    try:
        value = json.loads(text, parse_constant=_refuse)
    except ValueError:
        return text
    if isinstance(value, float) and not math.isfinite(value):  # 1e999
        return text
    return value if value is None or isinstance(value, (bool, int, float, str)) else text


def _refuse(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity: not JSON numbers here


def _from_object(
    where: str, name: str, seed: int, text: str, options: dict[str, Any] | None = None
) -> Policy:
    """``Name`` from a module or a ``.py`` file, called into a policy (with ``options``)."""
    options = options or {}
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"{text!r}: {name!r} is not a Python name; allowed: {SPEC_FORMS}"
            if name
            else f"{text!r} names no object after ':'; allowed: {SPEC_FORMS}"
        )
    module = _load_file(where, text) if where.endswith(".py") else _import(where, text)
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{text!r}: {where} has no attribute {name!r}")
        obj = getattr(obj, part)
    if isinstance(obj, Policy):
        if options:
            raise ValueError(f"{text!r}: {name} is a Policy object, which takes no options")
        return obj
    if not callable(obj):
        raise TypeError(f"{text!r}: {name} must be a Policy subclass or a function returning one")
    if options:
        _check_options(obj, name, options, text)
    kwargs = dict(options, seed=seed) if _takes_seed(obj) else options
    try:
        policy = obj(**kwargs)
    except TypeError as err:
        what = "with its options" if options else "with no argument or with seed="
        raise TypeError(f"{text!r}: {name} must be callable {what} ({err})") from None
    if not isinstance(policy, Policy):
        raise TypeError(
            f"{text!r}: {name}() returned {type(policy).__name__}, not an agents.Policy "
            "(subclass agents.Policy and implement act(view))"
        )
    return policy


def _check_options(obj: Callable, name: str, options: dict[str, Any], text: str) -> None:
    """Refuse options ``obj`` cannot take as keywords, naming those it accepts."""
    if "seed" in options:
        raise ValueError(f"{text!r}: 'seed' is not an option; the seed argument sets it")
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):  # builtins without a signature
        raise ValueError(f"{text!r}: {name} has no signature to check options against") from None
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    keywords = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    accepted = [k for k, p in params.items() if p.kind in keywords and k != "seed"]
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise ValueError(
            f"{text!r}: {name} accepts no option {', '.join(map(repr, unknown))}; allowed: "
            + (", ".join(accepted) if accepted else "none (it takes no keyword arguments)")
        )


def _takes_seed(obj: Callable) -> bool:
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False
    return "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _import(module: str, text: str):
    if not _MODULE.fullmatch(module):
        raise ValueError(
            f"unknown agent {text!r}: {module!r} is neither a registered prefix "
            f"({', '.join(sorted(_PREFIXES))}) nor a module name; allowed: {SPEC_FORMS}"
        )
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and module.startswith(err.name):
            raise ValueError(
                f"unknown agent {text!r}: no module named {err.name!r} (not a registered prefix "
                f"either: {', '.join(sorted(_PREFIXES))})"
            ) from None
        raise


def _load_file(path: str, text: str):
    p = Path(path).expanduser()
    if not p.is_file():
        raise ValueError(f"{text!r}: no Python file at {path}")
    name = "hanabi_adhoc_user_" + re.sub(r"\W", "_", str(p.resolve()))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has one
        raise ValueError(f"{text!r}: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # so that pickling its classes by reference works in workers
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
