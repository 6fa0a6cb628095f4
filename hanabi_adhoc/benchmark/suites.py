"""Partner suites: named, versioned data files of partners, deals and best-response scores.

A suite (docs/benchmark.md §2) is a JSON file shipped in ``hanabi_adhoc/benchmark/data/``:
``<name>.v<version>.json``. Its content never changes under its name and version: a new
content is a new version, and :data:`SUITE_SHA256` pins the hash of every shipped file (a test
checks it). Every report records the hash of the suite it played.

A suite is a list of **groups**, the strata of the bootstrap (docs/benchmark.md §4): one
population run, or the test pool. A group fixes everything a game needs:

* ``players``: the game sizes it is played at; ``ruleset`` and ``scoring`` of its partners'
  games; the hand size is the rulebook's (:func:`hanabi_env.config.rulebook_hand_size`);
* ``seed``, ``episodes``, ``games``: the deals. Episode ``j`` deals
  ``agents.evaluate.game_seeds(derive_seed(seed, 1, j), games, players)`` (at 2 players exactly
  the deals of the meta-agent protocol, :mod:`meta.evaluate`), to every partner and every agent;
  the agent plays every deal once in every seat (duplicate deals, seats rotated);
* ``partners``: each with an ``id`` (unique in the group), an agent ``spec``
  (:func:`agents.make`; e.g. a chromosome ``"3,17,4"``, a baseline name, or ``rl:NAME``), the
  ``cell`` of its population's grid (or null), and per game size its self-play score, its
  self-play measures and the best known response score ``br`` with the spec of the agent that
  made it (computed by ``tools/benchmark_suites.py``).

A suite file is data: its partners may only be agents the registry builds without running code
or reading other files (baselines, chromosomes, shipped partners such as ``rl:NAME``;
:func:`agents.registry.check_spec_allowed`). A file of your own that names code or model files
(``file.py:Name``, ``module:Name``, ``sb3:PATH``, ``rl:PATH.json``) is refused unless you trust
it (``trust_code=True``, ``--trust-code``). The shipped names and versions are reserved: a file
is reported as ``pool@1`` only when it is byte for byte the shipped ``pool.v1.json`` (its SHA-256
is :data:`SUITE_SHA256`'s); any other file is ``custom:<name>@<sha256[:12]>``, whatever it calls
itself (docs/benchmark.md §2).

The ``dev`` and ``test`` suites hold copies of the groups of the others (the same group, the
same content hash, so the same results); a group's hash (:func:`group_hash`) keys its results in
a report folder.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agents.evaluate import game_seeds
from agents.registry import check_spec_allowed
from hanabi_env.config import rulebook_hand_size
from hanabi_env.seeding import SEED_LIMIT, derive_seed
from hanabi_env.validate import check_bool

__all__ = [
    "BENCHMARK_VERSION",
    "BENCHMARK_VERSIONS",
    "DEFAULT_SUITES",
    "SUITES",
    "SUITE_SHA256",
    "Group",
    "Partner",
    "Suite",
    "benchmark_version",
    "data_dir",
    "episode_deals",
    "expand_suite_names",
    "fixed_slots_refusals",
    "group_hash",
    "load_suite",
    "load_suites",
]

FORMAT = "hanabi-adhoc/benchmark-suite"
"""The ``format`` field of a suite file."""

SUITES = ("pool", "published", "own", "dev", "test", "rl", "strong", "neural")
"""The shipped suites (docs/benchmark.md §2); ``rl`` holds the five PPO partners of version 1
(docs/rl_partners.md), ``strong`` the five reference bots (docs/bots.md), ``neural`` every
network shipped in ``agents/data/rl_partners/`` (PPO partners and behaviour clones), one group
per game size they play."""

BENCHMARK_VERSIONS: dict[int, tuple[str, ...]] = {
    1: ("pool@1", "published@1", "own@1"),
    2: ("pool@1", "published@1", "own@1", "strong@1"),
}
"""Version of the benchmark → the suites (``NAME@VERSION``) a default run of it plays
(docs/benchmark.md §2). ``--suite v1`` (``"v1"``) plays version 1, ``v2`` version 2."""

BENCHMARK_VERSION = 2
"""The benchmark's current version: what a run without ``--suite`` plays."""

DEFAULT_SUITES = BENCHMARK_VERSIONS[BENCHMARK_VERSION]
"""What ``hanabi-adhoc benchmark AGENT`` plays without ``--suite``: version 2 of the benchmark."""

SUITE_SHA256: dict[str, str] = {
    "pool.v1.json": "9485ca340c06a2de99be6cf2defaa69b8039206601bcc8473d38ab5e34694c4d",
    "published.v1.json": "6736571a72a7e87f6730a98f984b686f0d8c4b5b65589fa1eb14a05b6f90c391",
    "own.v1.json": "f178a1d1568d06b4809df7af87dc909c2ad48b7f762b98fc81533e886fe22432",
    "dev.v1.json": "0ef806aad75631a155d13c62586ec8e10de950060dc5a46d2c7193257ad1ed2a",
    "test.v1.json": "79eb77156e9654a84370a7eece428db1413925b1ba561879dadbabf895ebdb23",
    "rl.v1.json": "671183303155e98ada20bc4d1129a0e321ff64b8e3f70503bef7b7d9773df47b",
    "strong.v1.json": "9b1e28cb9f236963f8cba3d07e6a45cb5b4d35f1dd4d21316fb8b5f276aaa855",
    "neural.v1.json": "6b9fafe6199c3bfd964ce4475f252c1ed7e76554314d7467a3c27b4abc17ec3b",
}
"""``"<name>.v<version>.json"`` → the SHA-256 of the shipped file (its content is frozen)."""


def data_dir() -> Path:
    """The folder of the shipped suite files (``hanabi_adhoc/benchmark/data/``)."""
    return Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Partner:
    """One partner of a group.

    Attributes:
        id: Its id, unique in the group (a cell name ``"[i,j]"`` or a baseline name).
        spec: The agent spec that builds it (:func:`agents.make`).
        cell: ``(i, j)`` cell of its population's grid, or None.
        self_play: Game size → its mean self-play score on the group's deals (points).
        measures: Game size → its self-play ``(communicativeness, ipp)``.
        br: Game size → the best known response score with it (points; docs/benchmark.md §3).
        br_agent: Game size → the spec of the agent that made ``br``.
    """

    id: str
    spec: str
    cell: tuple[int, int] | None = None
    self_play: Mapping[int, float] = field(default_factory=dict)
    measures: Mapping[int, tuple[float, float]] = field(default_factory=dict)
    br: Mapping[int, float] = field(default_factory=dict)
    br_agent: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Group:
    """A stratum of a suite: partners played under one protocol (see the module docstring).

    Attributes:
        name: Unique name across the shipped suites (``"published-20x20-run2"``).
        label: Its name in words.
        players: Game sizes, each in 2..5.
        ruleset: ``"corrected"`` or ``"reference"``: the rules its partners play by.
        scoring: ``"lenient"`` or ``"strict"``.
        seed: Master seed of its deals.
        episodes: Episodes per (partner, game size, seat).
        games: Games per episode.
        partners: Its partners.
        grid: ``(d1, d2)`` of the population's grid (communicativeness × IPP), or None.
        source: Where the partners come from (free text, for the report).
        hash: :func:`group_hash` of the group's document.
    """

    name: str
    label: str
    players: tuple[int, ...]
    ruleset: str
    scoring: str
    seed: int
    episodes: int
    games: int
    partners: tuple[Partner, ...]
    grid: tuple[int, int] | None
    source: str
    hash: str

    @property
    def deals(self) -> int:
        """Deals per (partner, game size): ``episodes × games``."""
        return self.episodes * self.games

    def hand_size(self, players: int) -> int:
        """The rulebook's hand size at ``players`` (5 at 2–3, 4 at 4–5), as the BR was made."""
        return rulebook_hand_size(players)


@dataclass(frozen=True)
class Suite:
    """A loaded suite.

    Attributes:
        name: ``"pool"``, ``"published"``, ... (or a file's own name).
        version: Its version (an int).
        description: One paragraph.
        groups: Its groups.
        sha256: SHA-256 of the file's bytes.
        path: The file.
        shipped: Whether the file is byte for byte a shipped suite (:data:`SUITE_SHA256`).
    """

    name: str
    version: int
    description: str
    groups: tuple[Group, ...]
    sha256: str
    path: str
    shipped: bool = False

    @property
    def key(self) -> str:
        """``"name@version"`` for a shipped suite, else ``"custom:name@<sha256[:12]>"``."""
        if self.shipped:
            return f"{self.name}@{self.version}"
        return f"custom:{self.name}@{self.sha256[:12]}"

    @property
    def partners(self) -> int:
        """Number of partners over all groups."""
        return sum(len(g.partners) for g in self.groups)

    def games(self) -> int:
        """Games an agent that plays every game size of every group plays."""
        return sum(len(g.partners) * g.deals * sum(g.players) for g in self.groups)


def group_hash(doc: Mapping) -> str:
    """SHA-256 of a group's document in canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def episode_deals(group: Group, players: int, episode: int):
    """Deal seeds and seat seeds of one episode of a group at one game size.

    Returns:
        ``(deals, seat_seeds)``: ``(games,)`` int64 and ``(games, players)`` int64, from
        ``agents.evaluate.game_seeds(derive_seed(group.seed, 1, episode), games, players)``.
    """
    _, deals, seeds = game_seeds(derive_seed(group.seed, 1, episode), group.games, players, False)
    return deals, seeds


def _sizes(d: Mapping | None, cast) -> dict:
    return {int(k): cast(v) for k, v in (d or {}).items() if v is not None}


def _partner(doc: Mapping) -> Partner:
    cell = doc.get("cell")
    return Partner(
        id=str(doc["id"]),
        spec=str(doc["spec"]),
        cell=None if cell is None else (int(cell[0]), int(cell[1])),
        self_play=_sizes(doc.get("self_play"), float),
        measures=_sizes(doc.get("measures"), lambda v: (float(v[0]), float(v[1]))),
        br=_sizes(doc.get("br"), float),
        br_agent=_sizes(doc.get("br_agent"), str),
    )


def _group(doc: Mapping, where: str) -> Group:
    try:
        partners = tuple(_partner(p) for p in doc["partners"])
        grid = doc.get("grid")
        group = Group(
            name=str(doc["name"]),
            label=str(doc.get("label", doc["name"])),
            players=tuple(int(p) for p in doc["players"]),
            ruleset=str(doc["ruleset"]),
            scoring=str(doc["scoring"]),
            seed=int(doc["seed"]),
            episodes=int(doc["episodes"]),
            games=int(doc["games"]),
            partners=partners,
            grid=None if grid is None else (int(grid[0]), int(grid[1])),
            source=str(doc.get("source", "")),
            hash=group_hash(doc),
        )
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise ValueError(f"{where}: not a benchmark suite group ({err!r})") from None
    _check_group(group, where)
    return group


def _check_group(g: Group, where: str) -> None:
    bad = []
    if not g.partners:
        bad.append("no partners")
    if not g.players or any(not 2 <= p <= 5 for p in g.players):
        bad.append(f"players {list(g.players)} (allowed: 2..5)")
    if g.ruleset not in ("corrected", "reference"):
        bad.append(f"ruleset {g.ruleset!r}")
    if g.scoring not in ("lenient", "strict"):
        bad.append(f"scoring {g.scoring!r}")
    if g.episodes < 1 or g.games < 1 or not 0 <= g.seed < SEED_LIMIT:
        bad.append("episodes, games >= 1 and a seed in [0, 2**62)")
    ids = [p.id for p in g.partners]
    if len(set(ids)) != len(ids):
        bad.append("repeated partner ids")
    if bad:
        raise ValueError(f"{where}: group {g.name!r}: " + "; ".join(bad))


def _resolve(name: str) -> Path:
    """The file of a suite name (``pool``, ``pool@1``) or a path."""
    text = str(name).strip()
    if text.endswith(".json") or "/" in text or Path(text).is_file():
        path = Path(text).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"no suite file {text}")
        return path
    base, _, version = text.partition("@")
    if base not in SUITES:
        raise ValueError(
            f"unknown suite {text!r}; allowed: {', '.join(SUITES)} (NAME@VERSION for an older "
            "version), a benchmark version ("
            + ", ".join(f"v{v}" for v in BENCHMARK_VERSIONS)
            + ") or a suite JSON file"
        )
    files = sorted(data_dir().glob(f"{base}.v*.json"), key=lambda p: int(p.stem.split(".v")[1]))
    if version:
        want = data_dir() / f"{base}.v{version}.json"
        if want not in files:
            have = ", ".join(f"{base}@{p.stem.split('.v')[1]}" for p in files)
            raise ValueError(f"unknown suite version {text!r}; allowed: {have}")
        return want
    if not files:
        raise FileNotFoundError(f"suite {base!r} is not shipped in {data_dir()}")
    return files[-1]


def load_suite(name: str | Path, *, trust_code: bool = False) -> Suite:
    """Load a suite by name (latest version), ``NAME@VERSION`` or path.

    Args:
        name: ``"pool"``, ``"published"``, ``"own"``, ``"dev"``, ``"test"``, ``"rl"``,
            ``"strong"``, ``"neural"``, ``"pool@1"``, or the path of a suite JSON file of your
            own (same format).
        trust_code: Allow a file of your own to name partners whose building runs code or
            reads a model file (``file.py:Name``, ``module:Name``, ``sb3:PATH``,
            ``rl:PATH.json``, ...); refused otherwise (docs/benchmark.md §2).

    Returns:
        The :class:`Suite` (``shipped`` when the file is byte for byte a shipped one).

    Raises:
        ValueError: An unknown name or version, a file that is not a suite, or (without
            ``trust_code``) a partner whose building runs code or reads a file (the message
            names the file, the partner and its spec).
        FileNotFoundError: No such file.
    """
    path = _resolve(str(name))
    raw = path.read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    try:
        doc = json.loads(raw)
        if doc.get("format") != FORMAT:
            raise ValueError(
                f"{path}: not a benchmark suite (format {doc.get('format')!r}, not {FORMAT!r})"
            )
        groups = tuple(_group(g, str(path)) for g in doc["groups"])
        suite = Suite(
            name=str(doc["name"]),
            version=int(doc["version"]),
            description=str(doc.get("description", "")),
            groups=groups,
            sha256=sha,
            path=str(path),
            shipped=SUITE_SHA256.get(f"{doc['name']}.v{doc['version']}.json") == sha,
        )
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a benchmark suite ({err!r})") from None
    names = [g.name for g in groups]
    if not groups or len(set(names)) != len(names):
        raise ValueError(f"{path}: a suite needs groups with distinct names, got {names}")
    if not suite.shipped:
        _check_partners(suite, check_bool("trust_code", trust_code))
    return suite


def _check_partners(suite: Suite, trust_code: bool) -> None:
    """Refuse (untrusted) a partner whose building runs code or reads a file."""
    hint = (
        "; a suite file is data: pass --trust-code (trust_code=True) only for a file you "
        "trust, whose partners you are willing to run"
    )
    for g in suite.groups:
        for p in g.partners:
            check_spec_allowed(
                p.spec,
                allow_code=trust_code,
                allow_model_files=trust_code,
                parameter=f"{suite.path}: partner {g.name}/{p.id} spec",
                hint=hint,
            )


def expand_suite_names(names: Sequence[str | Path]) -> list[str | Path]:
    """``names`` with each benchmark version (``"v1"``, ``"v2"``) replaced by its suites.

    Args:
        names: Suite names, ``NAME@VERSION``, paths, or ``vN`` (:data:`BENCHMARK_VERSIONS`).

    Returns:
        The names in order, each suite once (``["v1", "strong"]`` →
        ``["pool@1", "published@1", "own@1", "strong"]``).

    Raises:
        ValueError: ``vN`` of an unknown version (the message lists the versions).
    """
    out: list[str | Path] = []
    for n in names:
        text = str(n).strip().lower()
        if isinstance(n, str) and len(text) > 1 and text[0] == "v" and text[1:].isdigit():
            version = int(text[1:])
            if version not in BENCHMARK_VERSIONS:
                have = ", ".join(f"v{v}" for v in BENCHMARK_VERSIONS)
                raise ValueError(f"unknown benchmark version {n!r}; allowed: {have}")
            out += [k for k in BENCHMARK_VERSIONS[version] if k not in out]
        elif n not in out:
            out.append(n)
    return out


def benchmark_version(keys: Sequence[str]) -> dict:
    """Which version of the benchmark the suites ``keys`` (``Suite.key``) make up.

    Args:
        keys: The keys of the suites played (``"pool@1"``, ``"custom:NAME@SHA"``).

    Returns:
        ``{"version": N or None, "suites": [...], "more": [...], "words": str}``: the highest
        version all of whose suites were played (None: none), its suites, the other suites
        played, and one line saying it (``"benchmark v2 (pool@1, published@1, own@1,
        strong@1)"``; docs/benchmark.md §2).
    """
    have = list(dict.fromkeys(keys))
    for v in sorted(BENCHMARK_VERSIONS, reverse=True):
        want = BENCHMARK_VERSIONS[v]
        if set(want) <= set(have):
            more = [k for k in have if k not in want]
            words = f"benchmark v{v} ({', '.join(want)})"
            if more:
                words += f" and {', '.join(more)}"
            return {"version": v, "suites": list(want), "more": more, "words": words}
    return {
        "version": None,
        "suites": [],
        "more": have,
        "words": f"no benchmark version (suites {', '.join(have)}; the default is "
        f"v{BENCHMARK_VERSION}, --suite v{BENCHMARK_VERSION})",
    }


def fixed_slots_refusals(groups: Sequence[Group]) -> dict[str, str]:
    """The groups whose partners refuse the Java framework's fixed hand slots, and why.

    A reference rule agent plays every game with fixed hand slots (docs/rules.md §12); the
    reference bots of ``strong`` refuse them (docs/bots.md §2), with their ``check_game``'s
    ``ValueError``. Each group's partners are built (:func:`agents.registry.make_policy`, seed
    0, the group's ruleset) and asked about a fixed-slot game at the group's smallest size.

    Args:
        groups: The groups.

    Returns:
        Group name → the first refusal's text (``"partner ID: ..."``); groups that play fixed
        slots are left out.
    """
    from agents.registry import make_policy
    from hanabi_env.config import HanabiConfig

    out: dict[str, str] = {}
    for g in groups:
        p = min(g.players)
        config = HanabiConfig(
            players=p, hand_size=g.hand_size(p), scoring=g.scoring, hand_order="fixed"
        )
        for partner in g.partners:
            check = getattr(make_policy(partner.spec, 0, ruleset=g.ruleset), "check_game", None)
            if not callable(check):
                continue
            try:
                check(config)
            except ValueError as err:
                out[g.name] = f"partner {partner.id}: {err}"
                break
    return out


def load_suites(names: Sequence[str | Path], *, trust_code: bool = False) -> list[Suite]:
    """:func:`load_suite` of each name; a group in two suites must be the same group.

    Args:
        names: As :func:`load_suite`'s ``name``, or a benchmark version ``"v1"``, ``"v2"``
            (:data:`BENCHMARK_VERSIONS`: its suites; :func:`expand_suite_names`).
        trust_code: As :func:`load_suite`.

    Raises:
        ValueError: As :func:`load_suite`, an unknown benchmark version, or two groups of one
            name with different contents.
    """
    suites = [load_suite(n, trust_code=trust_code) for n in expand_suite_names(names)]
    seen: dict[str, str] = {}
    for s in suites:
        for g in s.groups:
            if seen.setdefault(g.name, g.hash) != g.hash:
                raise ValueError(f"two different groups are named {g.name!r} ({s.key})")
    return suites
