"""One person's session in the browser app: the engine game, the partners, the log, the study.

A :class:`PlaySession` holds the engine state of its game (:class:`hanabi_env.HanabiGame`) and
checks every request against it: a move must come from the person, on their turn, for the move
the page last saw (``turn``, the number of moves played), and be legal; anything else is a
:class:`Refused` with the reason and changes nothing. The partners play one move per
:meth:`PlaySession.advance` call, so that the page can show each of their moves.

A session is ``games`` games with the same partners. A Bayesian meta-agent seat
(``meta``, ``meta:generalist``, ``meta:random``; 2 players) keeps its belief about the person
across the games (:class:`meta.bayes.BayesianMetaAgent`, the person is its partner
:data:`PERSON`); the session updates it at the end of each game, so that the belief shown
between games already counts that game (the evaluation protocol's agent makes the same update
at its first move of the next game, docs/browser.md §2).

Phases: ``consent`` and ``pre`` (study only), ``play``, ``post`` (study only), ``done``.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from hanabi_adhoc.web import board, store
from hanabi_adhoc.web.study import check_answers
from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env import engine as E
from hanabi_env.metrics import metric_ratios
from hanabi_env.records import to_hanablive
from hanabi_env.seeding import derive_seed
from hanabi_env.validate import check_choice, check_int, check_seed

__all__ = [
    "DROP_SECONDS",
    "IDLE_SECONDS",
    "PERSON",
    "AppOptions",
    "PlaySession",
    "Refused",
    "Settings",
    "check_request_partner",
    "draw_seed",
    "restore_sessions",
    "settings_from",
]

PERSON = "person"
"""The meta-agent's partner id for the person (one partner over the whole session)."""

MAX_GAMES = 100
"""Most games in one session."""

IDLE_SECONDS = 3600.0
"""A session without a request for this long no longer counts as live (its client's limit)."""

DROP_SECONDS = 6 * 3600.0
"""A session without a request for this long is dropped from the server's memory (its files
stay; its page is told to start a new session)."""


class Refused(Exception):
    """A request the session refuses: nothing changed.

    ``status`` is the HTTP status to answer; ``retry_after``, seconds to wait before asking
    again (a 429's ``Retry-After`` header), or None.
    """

    def __init__(self, status: int, message: str, retry_after: int | None = None):
        """See the class docstring."""
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class Settings:
    """What a session plays.

    Attributes:
        partners: One agent spec per partner seat, in seat order without the person's seat
            (``agents.make`` specs, or ``meta``/``meta:VARIANT``).
        seat: The person's seat, in ``[0, players)``.
        games: Games in the session, 1 to :data:`MAX_GAMES`.
        scoring: ``"strict"`` or ``"lenient"``.
        hand_size: Cards per hand; None: the rulebook's (5 at 2–3 players, 4 at 4–5).
        seed: Master seed of the deals and the agents; None: each session draws its own
            (:func:`draw_seed`) and records it, so that sessions deal different games.
        ruleset: The rule agents' ruleset, ``"corrected"`` or ``"reference"``.
    """

    partners: tuple[str, ...] = ("piers",)
    seat: int = 0
    games: int = 3
    scoring: str = "strict"
    hand_size: int | None = None
    seed: int | None = None
    ruleset: str = "corrected"

    @property
    def players(self) -> int:
        """Seats, the person's included."""
        return len(self.partners) + 1

    def config(self) -> HanabiConfig:
        """The engine configuration (rulebook hand size unless chosen; fixed slots for reference).

        Raises:
            ValueError: A hand size the engine refuses.
        """
        return HanabiConfig.for_game(self.players, self.hand_size, self.scoring, self.ruleset)


def check_request_partner(spec: str, trust_model: bool, parameter: str = "partners") -> None:
    """Refuse a partner spec from a request that would run code or read a file, unless trusted.

    Checked from the spec's text alone, before anything is built or imported
    (:func:`agents.registry.check_spec_allowed`): baseline names, chromosomes, shipped
    partners (``rl:NAME``, ``bad:NAME``) and the meta-agent (``meta``, ``meta:VARIANT`` of
    :data:`hanabi_adhoc.specs.META_VARIANTS`) are always allowed; code (``module:Name``,
    ``file.py:Name``) and model files (``sb3:PATH``, ``rl:PATH.json``, ``bad:PATH.json``) only
    when the server trusts them (``serve --trust-model``, docs/browser.md §6).

    Args:
        spec: The agent spec the page sent.
        trust_model: The server's ``--trust-model``.
        parameter: The name the error gives the spec.

    Raises:
        TypeError: ``spec`` is not a str.
        ValueError: A spec the server does not allow, naming it and what is allowed.
    """
    from agents.registry import check_spec_allowed
    from hanabi_adhoc.specs import META_VARIANTS, meta_variant

    if meta_variant(spec) in META_VARIANTS:  # the meta-agent (a known variant)
        return
    check_spec_allowed(
        spec,
        allow_code=trust_model,
        allow_model_files=trust_model,
        parameter=parameter,
        hint=(
            ", the meta-agent (meta, "
            + ", ".join(f"meta:{v}" for v in META_VARIANTS)
            + "); code and model files need a server started with --trust-model"
        ),
    )


def settings_from(
    data: object, defaults: Settings, fixed: bool, trust_model: bool = False
) -> Settings:
    """The settings a page asked for, checked; ``fixed``: the server's partners and games only.

    Every partner spec is checked by :func:`check_request_partner` (``trust_model``: the
    server's ``--trust-model``) before anything is built.

    Raises:
        ValueError: A bad field; the message names it and what is allowed.
    """
    if not isinstance(data, Mapping):
        raise ValueError("the request must be a JSON object of settings")
    s = defaults
    if fixed:  # a study: the server's partners and games, the person may choose their seat
        return replace(s, seat=check_int("seat", data.get("seat", s.seat), 0, s.players - 1))
    partners = data.get("partners", list(s.partners))
    if not isinstance(partners, list) or not all(isinstance(p, str) for p in partners):
        raise ValueError("partners must be a list of agent specs (texts)")
    if not 1 <= len(partners) <= 4 or not all(p.strip() for p in partners):
        raise ValueError(f"partners={partners!r}: give 1 to 4 non-empty agent specs (2-5 players)")
    for i, spec in enumerate(partners):
        check_request_partner(spec, trust_model, f"partners[{i}]")
    players = len(partners) + 1
    hand = data.get("hand_size", s.hand_size)
    seed = data.get("seed", s.seed)
    return Settings(
        partners=tuple(p.strip() for p in partners),
        seat=check_int("seat", data.get("seat", s.seat), 0, players - 1),
        games=check_int("games", data.get("games", s.games), 1, MAX_GAMES),
        scoring=check_choice("scoring", data.get("scoring", s.scoring), ("strict", "lenient")),
        hand_size=None if hand in (None, "") else check_int("hand_size", hand, 2, 5),
        seed=None if seed in (None, "") else check_seed("seed", seed),
        ruleset=check_choice("ruleset", data.get("ruleset", s.ruleset), ("corrected", "reference")),
    )


@dataclass
class AppOptions:
    """What the server sets for every session (``hanabi-adhoc serve`` options).

    Attributes:
        out: Output folder (one sub-folder per session).
        defaults: The settings the page starts from.
        fixed: Sessions play ``defaults``' partners and games (a study); the page may only
            choose the person's seat.
        study: The study (:func:`hanabi_adhoc.web.study.load_study`), or None: no consent, no
            questionnaires.
        show_belief: Show the meta-agent's belief between games (it is logged either way).
        train_games: Games per pair of the meta-agent's response table.
        trust_model: Allow partners from the page that run code or read a file
            (``module:Name``, ``file.py:Name``, ``sb3:PATH``, ``rl:PATH.json``,
            ``bad:PATH.json``) and ``sb3:PATH`` partners at all (loading a model runs code
            from the file).
        agent_delay_ms: Pause of the page before each partner move (milliseconds).
        publish_records: Serve every session's finished games to every browser; False: to
            the browser that played them only.
        max_sessions: Most live sessions (not done, used in the last
            :data:`IDLE_SECONDS`) of one client address.
        session_rate: Most sessions one client address may start per minute.
        max_body: Largest request body, in bytes (a larger one is refused with 413).
        meta_table_seed: Seed of the meta-agent's response table, built once and shared by
            every session (:func:`hanabi_adhoc.web.partners.meta_partner`).
    """

    out: Path
    defaults: Settings = field(default_factory=Settings)
    fixed: bool = False
    study: dict | None = None
    show_belief: bool = True
    train_games: int = 20
    trust_model: bool = False
    agent_delay_ms: int = 700
    publish_records: bool = False
    max_sessions: int = 20
    session_rate: int = 10
    max_body: int = 64 * 1024
    meta_table_seed: int = 0


def draw_seed() -> int:
    """A fresh master seed for a session without one, in ``[0, 2**31)`` (``--seed`` takes it)."""
    import secrets

    return secrets.randbelow(2**31)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def make_partner(spec: str, seed: int, settings: Settings, options: AppOptions):
    """The policy of one partner seat (an ``agents.make`` spec, or the CLI's ``meta`` seat).

    Raises:
        ValueError: An unknown spec, a meta-agent in a game of more than 2, ``human``, or a
            model refused (``sb3:PATH`` without ``--trust-model``) or of another game size.
    """
    from hanabi_adhoc.specs import parse_seat, seat_kind

    kind = seat_kind(spec)
    if kind == "human":
        raise ValueError("'human' is you: give the agents that play with you")
    if kind == "meta" and settings.players != 2:
        raise ValueError("the meta-agent plays 2-player games only")
    if kind == "meta":  # the server's shared response table (built once, before serving)
        from hanabi_adhoc.specs import meta_variant
        from hanabi_adhoc.web.partners import meta_partner

        return meta_partner(meta_variant(spec) or "", seed, options, settings.ruleset)
    if kind == "sb3":
        policy = parse_seat(spec, seed, options.train_games, options.trust_model,
                            settings.players, settings.ruleset)  # fmt: skip
    else:
        import agents

        policy = agents.make(spec, seed, ruleset=settings.ruleset, trust_model=options.trust_model)
    if hasattr(policy, "check_game"):  # a bot or a trained partner: its game sizes only
        policy.check_game(settings.config())
    return policy


def _names(specs: list[str | None], policies: list) -> list[str]:
    """Display names per seat: ``You`` and each agent's name, made distinct."""
    raw = [str(getattr(p, "name", s) or s) for s, p in zip(specs, policies, strict=True)]
    raw = ["You" if p is None else name for name, p in zip(raw, policies, strict=True)]
    return [
        f"{name} {i}" if p is not None and (raw.count(name) > 1 or name == "You") else name
        for i, (name, p) in enumerate(zip(raw, policies, strict=True))
    ]


_CELL = re.compile(r"\[(\d+),(\d+)\]")


class PlaySession:
    """One person's session (module docstring); every public method is thread-safe.

    Only the SHA-256 of the owner's secret is kept (:func:`store.owner_digest`), in memory and
    in ``session.json``; a session restored after a restart (:meth:`restore`) is owned by the
    same browser.

    Args:
        sid: The session id (16 hex digits).
        owner: The secret of the browser that owns it (its cookie).
        settings: What it plays; ``seed=None`` draws a seed (:func:`draw_seed`), recorded in
            ``session.json``.
        options: The server's options.
        save: Write the session's files (False: a scratch session that writes nothing, as
            the warm-up of :mod:`hanabi_adhoc.web.partners` plays).

    Raises:
        ValueError: A partner spec that no agent answers to, or that does not play this game
            (the message names it).
    """

    def __init__(
        self,
        sid: str,
        owner: str,
        settings: Settings,
        options: AppOptions,
        *,
        save: bool = True,
        _saved: dict | None = None,
    ):
        """See the class docstring (``_saved``: the files :meth:`restore` replays)."""
        seed = draw_seed() if settings.seed is None else settings.seed
        settings = replace(settings, seed=seed)
        self.id, self.settings, self.options = sid, settings, options
        self.owner_sha256 = (
            store.owner_digest(owner) if _saved is None else str(_saved["owner_sha256"])
        )
        self.config = settings.config()
        self.seat = settings.seat
        self.specs: list[str | None] = list(settings.partners)
        self.specs.insert(self.seat, None)
        self.policies: list = []
        for i, spec in enumerate(self.specs):
            if spec is None:
                self.policies.append(None)
                continue
            try:  # seeded as `hanabi-adhoc play` seeds its seats
                self.policies.append(make_partner(spec, derive_seed(seed, i), settings, options))
            except (ValueError, ImportError, TypeError) as exc:
                raise ValueError(f"partner {spec!r}: {exc}") from None
        self.names = _names(self.specs, self.policies)
        metas = [i for i, p in enumerate(self.policies) if hasattr(p, "belief")]
        self.meta_seat = metas[0] if metas else None
        self.lock = threading.Lock()
        self.folder = Path(options.out) / sid
        self.created = _now()
        self.study: dict = {}
        self.results: list[dict] = []
        self.counters = np.zeros((self.config.players, 8), dtype=np.float64)
        self.phase = "consent" if options.study else "play"
        self.game: HanabiGame | None = None
        self.log: list[dict] = []
        self.turn_started = time.monotonic()
        self.touched = time.monotonic()  # the last request (the live-session limit)
        self.played_response: str | None = None
        # the deals and agent seeds of `hanabi-adhoc play` with the same seed (issue 37)
        from agents.evaluate import game_seeds

        _, self.deals, self.agent_seeds = game_seeds(seed, settings.games,
                                                     self.config.players, False)  # fmt: skip
        self._saving = save and _saved is None
        if _saved is not None:
            self._replay(_saved)
            self._saving = save
            return
        if self.phase == "play":
            self._start_game()
        self._save_session()

    @classmethod
    def restore(cls, sid: str, options: AppOptions) -> PlaySession:
        """The session ``sid`` saved under ``options.out``, as it was when the server stopped.

        Its partners are built again with their seeds and every saved move is played again in
        order (each partner chooses its move again, so that its memory, and a meta-agent's
        belief, are what they were); the saved logs and results are kept as they are.

        Raises:
            ValueError: No such session, one saved before sessions could be resumed (no
                ``settings``), a partner the server no longer allows, or logs that do not
                replay to the saved results (the message says which).
        """
        data = store.read_session(options.out, sid)
        if data is None:
            raise ValueError(f"session {sid} has no readable {store.SESSION_FILE}")
        saved = data.get("settings")
        if not isinstance(saved, dict) or not isinstance(data.get("owner_sha256"), str):
            raise ValueError(f"session {sid} was saved before sessions could be resumed")
        partners = saved.get("partners")
        operator = isinstance(partners, list) and tuple(partners) == options.defaults.partners
        try:  # the same checks as a request's, the operator's own partners excepted
            settings = settings_from(saved, options.defaults, False,
                                     options.trust_model or operator)  # fmt: skip
        except (TypeError, ValueError) as exc:
            raise ValueError(f"session {sid}: {exc}") from None
        if settings.seed is None:
            raise ValueError(f"session {sid} has no seed")
        return cls(sid, "", settings, options, _saved=data)

    def _replay(self, saved: dict) -> None:
        """Play the saved games of ``saved`` (a ``session.json``) again (:meth:`restore`)."""
        results = saved.get("results")
        results = results if isinstance(results, list) else []
        phase = saved.get("phase")
        if phase not in ("consent", "pre", "play", "post"):
            raise ValueError(f"session {self.id} is at phase {phase!r}; it cannot be resumed")
        self.created = str(saved.get("created", self.created))
        study = saved.get("study")
        self.study = study if isinstance(study, dict) else {}
        if len(results) > self.settings.games:
            raise ValueError(f"session {self.id} has more results than games")
        current = len(results) + 1
        unfinished = (
            phase == "play"
            and current <= self.settings.games
            and store.game_path(self.options.out, self.id, current).is_file()
        )
        self.phase = "play"
        log: list[dict] = []
        for k in range(1, len(results) + 1 + int(unfinished)):
            log = self._replay_game(k)
            if k <= len(results) and (
                len(self.results) != k or self.results[-1]["score"] != results[k - 1].get("score")
            ):
                raise ValueError(f"game {k} of session {self.id} does not replay to its score")
        if phase == "play" and not unfinished and not results:
            self._start_game()  # stopped between the questionnaire and the deal
            log = []
        self.phase, self.results, self.log = phase, results, log
        self.touched = self.turn_started = time.monotonic()

    def _replay_game(self, k: int) -> list[dict]:
        """Deal game ``k`` and play its saved moves again; its saved per-move log.

        Each partner chooses its move again and must choose the saved one (the partners are
        seeded as before): a log that differs was not written by this session.
        """
        saved = store.read_game(self.options.out, self.id, k)
        self._start_game()
        game = self.game
        assert game is not None
        moves = saved.get("moves")
        if saved.get("deck") != [int(c) for c in game.state.deck] or not isinstance(moves, list):
            raise ValueError(f"game {k} of session {self.id} is not the deal of its seed")
        where = f"of game {k} of session {self.id}"
        for entry in moves:
            if (
                game.is_terminal
                or not isinstance(entry, dict)
                or entry.get("seat") != (seat := game.current_player)
            ):
                raise ValueError(f"the saved moves {where} are not those of its seats")
            chosen = self._choose_again(seat)
            if "ended" in entry or chosen == "ended":
                if chosen != "ended" or entry.get("ended") is None:
                    raise ValueError(f"the saved end {where} is not the partner's")
                from agents.policy import end_game

                end_game(game, int(entry["ended"]))
                self._game_over()
                break
            uid = entry.get("action")
            if type(uid) is not int or not 0 <= uid < game.n_actions or not game.legal_mask()[uid]:
                raise ValueError(f"move {entry.get('move')!r} {where} is not a legal move")
            if chosen is not None and chosen != uid:
                why = f"it chooses {chosen} again, the log says {uid}"
                raise ValueError(f"move {entry.get('move')!r} {where} is not the partner's ({why})")
            self._apply(uid, 0.0)
        return moves

    def _choose_again(self, seat: int) -> int | str | None:
        """The partner of ``seat``'s move now (``"ended"``: it ends the game); None: the person."""
        from agents.faults import policy_move
        from agents.policy import ReferenceGameEnd

        if seat == self.seat:
            return None
        assert self.game is not None
        view = self.game.view(seat)
        try:
            return policy_move(self.policies[seat], view, view.legal_mask())
        except ReferenceGameEnd:
            return "ended"

    # ------------------------------------------------------------------ requests
    def is_live(self, now: float) -> bool:
        """Not done, and asked for in the last :data:`IDLE_SECONDS` (``now``: monotonic)."""
        return self.phase != "done" and now - self.touched < IDLE_SECONDS

    def owned_by(self, owner: str | None) -> bool:
        """Whether the browser holding the secret ``owner`` (its cookie) started the session."""
        return store.owned_by({"owner_sha256": self.owner_sha256}, owner)

    def check_owner(self, owner: str | None) -> None:
        """Refuse (403) a browser that is not the one that started the session."""
        if not self.owned_by(owner):
            raise Refused(403, f"session {self.id} belongs to another browser; start your own")

    def summary(self) -> dict:
        """Where the session stands, for its owner's list of sessions (``GET /api/sessions``).

        Returns:
            ``session``, ``phase``, ``game`` (being played, or the last finished), ``games``,
            ``partners`` (names), ``created`` and ``touched`` (seconds, monotonic clock).
        """
        with self.lock:
            game = self.game
            return {
                "session": self.id,
                "phase": self.phase,
                "game": len(self.results) + (0 if game is None or game.is_terminal else 1),
                "games": self.settings.games,
                "partners": [n for i, n in enumerate(self.names) if i != self.seat],
                "created": self.created,
                "touched": self.touched,
            }

    def answer(self, stage: object, answers: object) -> dict:
        """Record the consent (``stage="consent"``, ``answers={"agree": true}``) or a questionnaire.

        Raises:
            Refused: Not the stage the session is at, no consent, or answers that do not fit
                the questions (the message says which).
        """
        with self.lock:
            if stage != self.phase or stage not in ("consent", "pre", "post"):
                raise Refused(409, f"the session is at {self.phase!r}, not at {stage!r}")
            study = self.options.study
            assert study is not None  # the phases exist only with a study
            if stage == "consent":
                if not isinstance(answers, Mapping) or answers.get("agree") is not True:
                    raise Refused(400, "you can take part only after agreeing")
                self.study["consent"] = {"agreed": True, "text": study["consent"], "time": _now()}
                self.phase = "pre" if study["pre"] else "play"
            else:
                try:
                    checked = check_answers(study[stage], answers)
                except ValueError as exc:
                    raise Refused(400, str(exc)) from None
                self.study[stage] = {"answers": checked, "time": _now()}
                self.phase = "play" if stage == "pre" else "done"
            if self.phase == "play" and self.game is None:
                self._start_game()
            self._save_session()
            return self._state()

    def state(self) -> dict:
        """What the page shows now (:meth:`_state`)."""
        with self.lock:
            return self._state()

    def move(self, action: object, turn: object) -> dict:
        """The person's move ``action`` (a move id), sent when the game was at move ``turn``.

        Raises:
            Refused: Not playing, the game is over, a stale ``turn`` (a replayed request), not
                the person's turn, or a move id that is not a legal move (with the reason).
        """
        with self.lock:
            game = self._check_turn(turn)
            if game.current_player != self.seat:
                who = self.names[game.current_player]
                raise Refused(
                    409, f"not your turn: {who} (player_{game.current_player}) is to move"
                )
            uid = self._legal_uid(game, action)
            self._apply(uid, time.monotonic() - self.turn_started)
            return self._state()

    def advance(self, turn: object) -> dict:
        """Play one move of the partner on turn (the game must be at move ``turn``).

        Raises:
            Refused: Not playing, the game is over, a stale ``turn``, or the person's turn.
        """
        from agents.faults import AgentFault, policy_move
        from agents.policy import ReferenceGameEnd, end_game

        with self.lock:
            game = self._check_turn(turn)
            seat = game.current_player
            if seat == self.seat:
                raise Refused(409, "it is your turn: the partners wait for your move")
            t0 = time.perf_counter()
            try:
                view = game.view(seat)
                uid = policy_move(self.policies[seat], view, view.legal_mask(),
                                  agent=self.names[seat], game=len(self.results),
                                  move=view.n_moves)  # fmt: skip
            except AgentFault as fault:  # the partner's own error: the game cannot go on
                raise Refused(500, f"the partner failed: {fault}") from None
            except ReferenceGameEnd as end:  # as the Java reference ended such games
                end_game(game, end.code)
                self.log.append({"seat": seat, "name": self.names[seat], "ended": end.code})
                self._game_over()
                self._save_game()
                return self._state()
            self._apply(uid, time.perf_counter() - t0)
            return self._state()

    def next_game(self, game_number: object) -> dict:
        """After game ``game_number`` (1-based) is over: deal the next, or end the session.

        Raises:
            Refused: The game is not over, or ``game_number`` is not the current game (a
                replayed request).
        """
        with self.lock:
            if self.phase != "play" or self.game is None:
                raise Refused(409, f"the session is at {self.phase!r}, not playing")
            current = len(self.results) if self.game.is_terminal else len(self.results) + 1
            if game_number != current:
                raise Refused(
                    409, f"stale request for game {game_number!r}; this is game {current}"
                )
            if not self.game.is_terminal:
                raise Refused(409, f"game {current} is not over yet")
            if len(self.results) < self.settings.games:
                self._start_game()
            else:
                self.phase = "post" if self.options.study and self.options.study["post"] else "done"
            self._save_session()
            return self._state()

    # ------------------------------------------------------------------ checks
    def _check_turn(self, turn: object) -> HanabiGame:
        if self.phase != "play" or self.game is None:
            raise Refused(409, f"the session is at {self.phase!r}, not playing")
        game = self.game
        if game.is_terminal:
            raise Refused(409, f"game {len(self.results)} is over")
        if type(turn) is not int or turn != game.n_moves:
            raise Refused(
                409,
                f"stale request: it was sent at move {turn!r}, the game is at move "
                f"{game.n_moves}; the board has been reloaded",
            )
        return game

    def _legal_uid(self, game: HanabiGame, action: object) -> int:
        from agents.human import interpret_move

        if type(action) is not int:
            raise Refused(400, f"action must be a move id (an int), got {action!r}")
        if not 0 <= action < game.n_actions:
            raise Refused(
                400, f"move id {action} does not exist; move ids are 0-{game.n_actions - 1}"
            )
        if game.legal_mask()[action]:
            return action
        view = game.view(self.seat)
        _, why = interpret_move(view, board.move_command(game, self.seat, action))
        raise Refused(400, f"{game.action_to_string(action)} is not legal: {why}")

    # ------------------------------------------------------------------ the game
    def _start_game(self) -> None:
        k = len(self.results)
        game = HanabiGame(self.config)
        game.reset(int(self.deals[k]))
        for i, pol in enumerate(self.policies):
            if pol is None:
                continue
            if hasattr(pol, "start_game"):
                pol.start_game(PERSON)
            pol.reset(int(self.agent_seeds[k, i]))
        if self.meta_seat is not None:
            meta = self.policies[self.meta_seat]
            self.played_response = meta.table.response_ids[meta.response]
        self.game, self.log = game, []
        self.turn_started = time.monotonic()
        self._save_game()

    def _apply(self, uid: int, seconds: float) -> None:
        game = self.game
        assert game is not None
        seat = game.current_player
        text = game.action_to_string(uid)
        if not game.try_step(uid)[0]:  # an agent's illegal move: its bug, not the person's
            raise Refused(500, f"{self.names[seat]} chose an illegal move ({text}); game stopped")
        m = game.view(seat).moves[-1]
        self.log.append(
            {
                "move": m.index,
                "seat": seat,
                "player": "person" if seat == self.seat else "agent",
                "name": self.names[seat],
                "action": uid,
                "text": board.move_text(m, self.names, self.config.ranks),
                "kind": m.kind,
                "seconds": round(seconds, 3),
                "time": _now(),
                "score": game.score,
            }
        )
        if game.is_terminal:
            self._game_over()
        elif game.current_player == self.seat:
            self.turn_started = time.monotonic()
        self._save_game()

    def _game_over(self) -> None:
        game = self.game
        assert game is not None
        for i, pol in enumerate(self.policies):
            if pol is not None and hasattr(pol, "end_game"):
                pol.end_game(game.view(i))
        counters = np.array(game.state.counters, dtype=np.float64)
        self.counters += counters
        meta = None
        if self.meta_seat is not None:
            agent = self.policies[self.meta_seat]
            if agent.variant == "adaptive":
                agent.update()
            meta = self._meta_summary()
        k = len(self.results) + 1
        extra = {"session": self.id, "game": k, "ruleset": self.settings.ruleset,
                 "seats": [s or "person" for s in self.specs]}  # fmt: skip
        record = to_hanablive(game, players=self.names, extra=extra)
        self.results.append(
            {
                "game": k,
                "score": game.score,
                "moves": game.n_moves,
                "fireworks": int(game.fireworks_total),
                "lives": int(game.view(0).life_tokens),
                "metrics": self._metrics(counters),
                "session_metrics": self._metrics(self.counters),
                "hanablive": {key: record["hanabi_adhoc"][key] for key in _RECORD_KEYS},
                "meta": meta,
                "time": _now(),
            }
        )
        if self._saving:
            store.write_json(store.game_path(self.options.out, self.id, k, record=True), record)
        self._save_session()

    def _metrics(self, counters: np.ndarray) -> list[dict]:
        r = metric_ratios(counters)
        return [
            {
                "seat": i,
                "name": self.names[i],
                "communicativeness": _finite(r["communicativeness"][i]),
                "ipp": _finite(r["ipp"][i]),
            }
            for i in range(self.config.players)
        ]

    def _meta_summary(self) -> dict:
        """The meta-agent's belief about the person after the game, for the log and the page."""
        assert self.meta_seat is not None
        agent = self.policies[self.meta_seat]
        table = agent.table
        belief = agent.belief(PERSON)
        ids = list(table.hypothesis_ids)
        cells = [_CELL.fullmatch(h) for h in ids]
        grid: list[list[float | None]] | None = None
        if all(cells):
            dims = [max(int(c.group(j)) for c in cells if c) + 1 for j in (1, 2)]
            grid = [[None] * dims[1] for _ in range(dims[0])]
            for c, b in zip(cells, belief, strict=True):
                assert c is not None
                grid[int(c.group(1))][int(c.group(2))] = float(b)
        # the games so far, this one included
        person = {k: float(v) for k, v in metric_ratios(self.counters[self.seat]).items()}
        return {
            "variant": agent.variant,
            "hypotheses": ids,
            "belief": belief.tolist(),
            "grid": grid,  # rows: communicativeness bins, columns: IPP bins
            "estimate": ids[int(np.argmax(belief))],
            "played_response": self.played_response,
            "next_response": None
            if agent.variant == "random"
            else table.response_ids[agent.response],
            "updates": agent.record(PERSON).updates,
            "person": {
                "communicativeness": _finite(person["communicativeness"]),
                "ipp": _finite(person["ipp"]),
            },
        }

    # ------------------------------------------------------------------ output
    def _state(self) -> dict:
        game = self.game
        out: dict = {
            "session": self.id,
            "phase": self.phase,
            "games": self.settings.games,
            "game": len(self.results) + (0 if game is None or game.is_terminal else 1),
            "you": self.seat,
            "names": self.names,
            "config": self._config(),
            "results": self._visible_results(),
            "show_belief": self.options.show_belief,
            "agent_delay_ms": self.options.agent_delay_ms,
        }
        if self.phase in ("consent", "pre", "post") and self.options.study:
            study = self.options.study
            out["study"] = (
                {"consent": study["consent"]}
                if self.phase == "consent"
                else {"questions": study[self.phase]}
            )
        if game is not None and self.phase == "play":
            out["turn"] = game.n_moves
            out["board"] = board.board_json(game, self.names, self.seat)
            out["your_turn"] = not game.is_terminal and game.current_player == self.seat
            out["game_over"] = bool(game.is_terminal)
            out["more_games"] = len(self.results) < self.settings.games
            if out["your_turn"]:
                out["menu"] = board.move_menu(game, self.seat)
        return out

    def _visible_results(self) -> list[dict]:
        if self.options.show_belief:
            return self.results
        return [{k: v for k, v in r.items() if k != "meta"} for r in self.results]

    def _config(self) -> dict:
        from hanabi_env.config import describe_settings

        cfg, ruleset = self.config, self.settings.ruleset
        return {
            "settings": describe_settings(cfg.players, cfg.hand_size, cfg.scoring, ruleset),
            "players": self.config.players,
            "hand_size": self.config.hand_size,
            "scoring": self.config.scoring,
            "ruleset": self.settings.ruleset,
            "hand_order": self.config.hand_order,
            "games": self.settings.games,
            "seed": self.settings.seed,
        }

    def _seats(self) -> list[dict]:
        return [
            {
                "seat": i,
                "name": self.names[i],
                "spec": s,
                "player": "person" if s is None else "agent",
            }
            for i, s in enumerate(self.specs)
        ]

    def _save_session(self) -> None:
        if not self._saving:
            return
        store.write_json(
            self.folder / store.SESSION_FILE,
            {
                "session": self.id,
                "created": self.created,
                "updated": _now(),
                "owner_sha256": self.owner_sha256,
                "phase": self.phase,
                "settings": {
                    "partners": list(self.settings.partners),
                    "seat": self.settings.seat,
                    "games": self.settings.games,
                    "scoring": self.settings.scoring,
                    "hand_size": self.settings.hand_size,
                    "seed": self.settings.seed,
                    "ruleset": self.settings.ruleset,
                },
                "config": self._config(),
                "seats": self._seats(),
                "study": self.study,
                "results": self.results,
                "show_belief": self.options.show_belief,
            },
        )

    def _save_game(self) -> None:
        if not self._saving:
            return
        game = self.game
        assert game is not None
        k = len(self.results) + (0 if game.is_terminal else 1)
        store.write_json(
            store.game_path(self.options.out, self.id, k),
            {
                "session": self.id,
                "game": k,
                "config": self._config(),
                "engine_config": self.config.as_dict(),
                "seats": self._seats(),
                "deal_seed": int(self.deals[k - 1]),
                "start_player": int(game.state.scal[E.S_START]),
                "deck": [int(c) for c in game.state.deck],
                "moves": self.log,
                "result": self.results[-1] if game.is_terminal and self.results else None,
            },
        )


def restore_sessions(options: AppOptions, say=None) -> list[PlaySession]:
    """The sessions under ``options.out`` that were live when the server stopped, restored.

    A session is restored when its ``session.json`` is not at phase ``done``, records its
    settings and owner, and was updated less than :data:`DROP_SECONDS` ago
    (:meth:`PlaySession.restore`); its files are not rewritten.

    Args:
        options: The server's options.
        say: Called with one line per session that cannot be restored (the reason); None:
            silent.

    Returns:
        The restored sessions, oldest first.
    """
    root = Path(options.out)
    now = datetime.now(timezone.utc)
    out = []
    for folder in sorted(root.iterdir()) if root.is_dir() else ():
        if not store.SESSION_ID.fullmatch(folder.name):
            continue
        data = store.read_session(root, folder.name)
        if data is None or data.get("phase") == "done" or "settings" not in data:
            continue
        try:
            age = (now - datetime.fromisoformat(str(data.get("updated")))).total_seconds()
        except ValueError:
            continue
        if age >= DROP_SECONDS:
            continue
        try:
            out.append(PlaySession.restore(folder.name, options))
        except Exception as exc:  # one bad folder must not stop the server
            if say is not None:
                say(f"session {folder.name} not resumed: {exc}")
    return sorted(out, key=lambda s: s.created)


_RECORD_KEYS = ("moves", "ended", "end_reason", "hanablive_score", "truncated")
