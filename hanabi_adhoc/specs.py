"""Agent and seat specs: every string the toolkit turns into an agent or a seat, in one place.

Every form of :mod:`agents.registry` (a baseline name, a reference bot, a chromosome
``3,17,4``, ``sb3:PATH``, ``package.module:Name``, ``path/to/file.py:Name``, registered prefixes
such as ``rl:NAME``) and ``meta`` / ``meta:VARIANT``: the Bayesian meta-agent of [Bayes21]
(:mod:`meta.bayes`) over the published 5×5 population (run 1), its response table played here
first (``train_games`` games per pair; 2-player games). A SEAT of ``play`` is any of those or
``human`` (a person at the terminal).

``play``, ``evaluate``, ``train-sb3``, ``meta-eval``, ``benchmark`` and ``serve`` (and the web
app and the benchmark's library functions) resolve their agents here: :func:`make_agent` (any
agent), :func:`make_plain_agent` (not the meta-agent), :func:`parse_seat` (a seat of play);
:func:`is_meta` is the one test of "is this the meta-agent?" and :func:`seat_kind` says what a
seat is without building it. The help texts (:data:`SEAT_HELP`, :data:`SEAT_FORMS`,
:func:`agent_help`) are generated from the registry (its baselines, bots and prefixes), so
that an agent registered there is listed in every help text. docs/architecture.md §2.
"""

from __future__ import annotations

from agents.bots import BOTS
from agents.policy import Policy
from agents.registry import SPEC_FORMS, make_policy, registered_prefixes
from agents.rulebase import BASELINES

__all__ = [
    "META_VARIANTS",
    "SEAT_FORMS",
    "SEAT_HELP",
    "SEAT_KINDS",
    "agent_help",
    "baseline_names",
    "bot_names",
    "check_meta_variant",
    "is_meta",
    "make_agent",
    "make_plain_agent",
    "meta_agent",
    "meta_variant",
    "parse_seat",
    "prefix_forms",
    "seat_kind",
]

META_VARIANTS = ("adaptive", "generalist", "random")
"""Meta-agent variants a spec may name (``meta:VARIANT``; the Oracle needs the true partner)."""

SEAT_KINDS = ("human", "meta", "sb3", "agent")
"""What a SEAT is (:func:`seat_kind`): a person, the meta-agent, an SB3 model, another agent."""


def baseline_names() -> str:
    """The baseline agents' names, comma-separated (:data:`agents.rulebase.BASELINES`)."""
    return ", ".join(BASELINES)


def bot_names() -> str:
    """The reference bots' names, comma-separated (:data:`agents.bots.BOTS`, docs/bots.md)."""
    return ", ".join(target.rpartition(":")[2] for target in BOTS.values())


def prefix_forms(skip: tuple[str, ...] = ()) -> list[str]:
    """The registered prefixes' forms (``bad:NAME``, ``rl:NAME``, ...), ``skip`` left out.

    Each form is the first word of the prefix's summary (:func:`agents.registry
    .registered_prefixes`).
    """
    return [
        summary.split()[0]
        for prefix, summary in registered_prefixes().items()
        if prefix not in skip
    ]


def _meta_forms() -> str:
    return ", ".join(["meta", *(f"meta:{v}" for v in META_VARIANTS)])


def _variants_words() -> str:
    first, *rest = META_VARIANTS
    return f"{first} (default), " + ", ".join(rest[:-1]) + f" or {rest[-1]}"


SEAT_HELP = (
    f"SEAT is 'human' (you, at the terminal), a baseline name ({baseline_names()}), a reference "
    f"bot ({bot_names()}; docs/bots.md), a comma-separated chromosome of rule indices, 'meta' "
    "or 'meta:VARIANT' (the Bayesian meta-agent over the published 5x5 population; VARIANT "
    f"{_variants_words()}; 2 players), 'rl:NAME' (a shipped RL partner, docs/rl_partners.md; 2 "
    "players), 'sb3:PATH' (a saved MaskablePPO model; needs the rl extra and --trust-model, "
    "because loading a model runs code stored in the file), "
    + "".join(f"another registered prefix ('{form}'), " for form in prefix_forms(("rl", "sb3")))
    + "or your own Policy: 'package.module:Name' or 'path/to/file.py:Name' (a Policy subclass "
    "or a function returning one; importing runs the module's code)."
)
"""The help of ``play``'s SEAT (generated from the registry)."""

SEAT_FORMS = (
    f"human, {_meta_forms()}, a baseline name ({baseline_names()}), a reference bot "
    f"({bot_names()}), a chromosome of comma-separated rule indices (e.g. 3,17,4), "
    + ", ".join(prefix_forms())
    + ", package.module:Name or path/to/file.py:Name"
)
"""The SEAT forms an unknown seat's error lists (generated from the registry)."""


def agent_help(meta: bool) -> str:
    """The forms of an AGENT in a help text: ``evaluate``'s (``meta=False``) or ``benchmark``'s.

    Generated from the registry (its baselines, bots and prefixes) and :data:`META_VARIANTS`.
    """
    meta_words = (
        "meta or meta:VARIANT (the Bayesian meta-agent over the published 5x5 population; "
        "2 players), "
        if meta
        else ""
    )
    return (
        f"a baseline name ({baseline_names()}), a reference bot ({bot_names()}), a "
        f"comma-separated chromosome of rule indices, {meta_words}sb3:PATH (with --trust-model), "
        f"a registered prefix ({', '.join(prefix_forms(('sb3',)))}), or your own Policy as "
        "package.module:Name or path/to/file.py:Name"
    )


def meta_variant(spec: str) -> str | None:
    """The variant of a ``meta``/``meta:VARIANT`` spec (lower case), None for other specs.

    The variant is not checked here (:func:`check_meta_variant`): ``meta:foo`` gives ``"foo"``.
    """
    if not isinstance(spec, str):
        return None
    key = spec.strip().lower()
    if key == "meta":
        return "adaptive"
    if key.startswith("meta:"):
        return key.partition(":")[2].strip()
    return None


def is_meta(spec: object) -> bool:
    """Whether ``spec`` names the meta-agent (``meta`` or ``meta:ANYTHING``, any case).

    The one test of the toolkit: a spec for which it is True is built by :func:`meta_agent`
    (and refused there when its variant is not one of :data:`META_VARIANTS`).
    """
    return isinstance(spec, str) and meta_variant(spec) is not None


def check_meta_variant(variant: str) -> str:
    """``variant`` when it is one of :data:`META_VARIANTS`.

    Raises:
        ValueError: Another variant (the message lists the meta specs allowed).
    """
    if variant not in META_VARIANTS:
        raise ValueError(f"meta variant {variant!r} is not allowed here; allowed: {_meta_forms()}")
    return variant


def seat_kind(spec: str) -> str:
    """What a SEAT is, from its text alone (nothing is built): one of :data:`SEAT_KINDS`.

    ``"human"``, ``"meta"`` (:func:`is_meta`), ``"sb3"`` (``sb3:PATH``, loaded and checked
    against the game size by :func:`parse_seat`) or ``"agent"`` (any other agent spec).
    """
    key = spec.strip().lower()
    if key == "human":
        return "human"
    if is_meta(key):
        return "meta"
    if key.startswith("sb3:"):
        return "sb3"
    return "agent"


def meta_agent(
    variant: str = "adaptive",
    seed: int = 0,
    train_games: int = 20,
    ruleset: str = "corrected",
    progress: bool = True,
    workers: int | None = 1,
):
    """The Bayesian meta-agent over the published 5×5 population (R = H = its 22 elites).

    Args:
        variant: ``adaptive``, ``generalist`` or ``random`` ([Bayes21]).
        seed: Seed of the response table's games and of the agent.
        train_games: Games per (response, hypothesis) pair of the table.
        ruleset: Rules of the population's agents (docs/rules.md §12).
        progress: Show a progress bar while the table is played.
        workers: Threads for the table's games (results do not depend on it).

    Returns:
        A :class:`meta.bayes.BayesianMetaAgent` named ``meta-<variant>``.

    Raises:
        ValueError: An unknown variant.
    """
    check_meta_variant(variant)
    from meta.bayes import BayesianMetaAgent
    from meta.pools import load_pool
    from meta.table import build_table

    pool, ids = load_pool("5x5", ruleset=ruleset)
    n = len(pool) * len(pool) * train_games
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="meta-agent response table (published 5x5)", unit="game")
    try:
        table = build_table(
            pool,
            pool,
            train_games,
            seed,
            ids,
            ids,
            workers=workers or 1,
            progress=None if bar is None else bar.update,
        )
    finally:
        if bar is not None:
            bar.close()
    return BayesianMetaAgent(table, pool, variant=variant, seed=seed, name=f"meta-{variant}")


def make_agent(
    spec: str,
    seed: int = 0,
    *,
    ruleset: str = "corrected",
    preset: str | None = None,
    trust_model: bool = False,
    train_games: int = 20,
    progress: bool = True,
    workers: int | None = 1,
) -> Policy:
    """The policy of an agent spec (see the module docstring for the forms).

    Args:
        spec: The spec.
        seed: Seed of the policy.
        ruleset: Rule agents' ruleset (and the meta-agent's pool's).
        preset: ``"cig18"`` for [CIG18]'s 2018 agent lists (baselines only).
        trust_model: Allow specs whose loading runs code from a file (``sb3:PATH``).
        train_games: The meta-agent's games per response-table pair.
        progress: Show the meta-agent's table progress bar.
        workers: Threads for the meta-agent's table.

    Returns:
        The policy.

    Raises:
        TypeError, ValueError: As :func:`agents.registry.make_policy` (an unknown name, module,
            file, a refused model, ...), or an unknown meta variant; ``human`` is refused.
    """
    variant = meta_variant(spec)
    if variant is not None:
        return meta_agent(variant, seed, train_games, ruleset, progress, workers)
    if isinstance(spec, str) and spec.strip().lower() == "human":
        raise ValueError(f"'human' is a seat of play only; allowed here: meta, {SPEC_FORMS}")
    return make_policy(spec, seed, ruleset=ruleset, preset=preset, trust_model=trust_model)


def make_plain_agent(
    spec: str,
    seed: int,
    ruleset: str = "corrected",
    preset: str | None = None,
    trust_model: bool = False,
) -> Policy:
    """The agent of a spec that is not the meta-agent (``evaluate``'s AGENT, a training pool).

    A baseline name, a reference bot, a chromosome of comma-separated rule indices, a
    registered prefix (``sb3:PATH`` with ``trust_model``), ``package.module:Name`` or
    ``path/to/file.py:Name``. ``ruleset="reference"`` (or ``preset="cig18"``): the Java
    reference's rules; a chromosome then runs as Hanabi-Map-Elites' HistogramAgent, a baseline
    as its ProductionRuleAgent.

    Raises:
        ValueError: An empty spec, the meta-agent, an unknown name, a rule index out of range,
            or a spec that does not load.
        TypeError: A ``module:Name`` that is not a policy.
    """
    if not spec.strip():
        raise ValueError("unknown agent ''; an empty name is not allowed")
    if is_meta(spec):
        raise ValueError(f"{spec!r}: the meta-agent is a seat of play, meta-eval and benchmark")
    return make_agent(spec, seed, ruleset=ruleset, preset=preset, trust_model=trust_model)


def parse_seat(
    text: str,
    seed: int,
    train_games: int = 20,
    trust_model: bool = False,
    players: int = 2,
    ruleset: str = "corrected",
):
    """A policy from a SEAT string (see :data:`SEAT_HELP`); names must match exactly.

    ``ruleset`` is that of rule agents and of the meta-agent's pool (docs/rules.md §12).

    An ``sb3:PATH`` model is loaded here (``trust_model`` must be True: loading runs code from
    the file) and checked against the game size, so that a bad file fails before any game.

    Args:
        text: The SEAT.
        seed: Seed of the policy (and of the meta-agent's response table).
        train_games: The meta-agent's games per response-table pair.
        trust_model: Allow ``sb3:PATH``.
        players: Players of the game the seat plays (an SB3 model must fit it).
        ruleset: ``"corrected"`` or ``"reference"``.

    Returns:
        The policy (:class:`agents.human.HumanPolicy` for ``human``).

    Raises:
        ValueError: Unknown seat, agent name or meta variant; a model file refused, missing,
            unreadable or made for another game size.
    """
    key = text.strip()
    kind = seat_kind(key)
    if kind == "human":
        from agents.human import HumanPolicy

        return HumanPolicy()
    if kind == "meta":
        return meta_agent(meta_variant(key) or "adaptive", seed, train_games, ruleset)
    if kind == "sb3":
        return _sb3_seat(key[4:].strip(), seed, trust_model, players)
    try:
        return make_plain_agent(key, seed, ruleset, trust_model=trust_model)
    except ValueError as err:
        if "unknown agent" in str(err):
            raise ValueError(f"unknown agent {key!r}; allowed seats: {SEAT_FORMS}") from None
        raise


def _sb3_seat(path: str, seed: int, trust_model: bool, players: int):
    """A trusted, loadable SB3 model that fits ``players``-player games (see :func:`parse_seat`)."""
    from agents.sb3.policy import from_spec
    from hanabi_env.config import HanabiConfig
    from hanabi_env.game import HanabiGame

    policy = from_spec(path, seed=seed, trust_model=trust_model)
    game = HanabiGame(HanabiConfig(players=players))
    game.reset(0)
    try:
        policy.observation_type_for(game.view(0).raw.cfg)
    except ValueError as err:
        raise ValueError(f"sb3:{path}: {err}") from None
    return policy
