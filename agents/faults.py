"""Agent faults: a policy's own error, told apart from the toolkit's (docs/reliability.md §9).

A policy that raises, returns something that is not a legal move id, or takes longer than the
per-move limit ends the run it plays in with an :class:`AgentFault` naming the agent, the game
and the move; the command line prints it as one ``error:`` line and exits 2. Nothing a policy
returns is rounded, truncated or clipped into a legal move.

The rule, applied by every game loop of :mod:`agents` (:func:`agents.policy.play_out`, the
per-game path and the lockstep player of :func:`agents.evaluate.play_games`, hence
:func:`agents.evaluate`, :func:`agents.play` and everything built on them) and by the
``play`` and ``evaluate`` commands:

* **a move is an int**: a Python ``int`` or a numpy integer (``np.int64``, ...); a ``bool``, a
  float (``5.7``, ``np.float64(3.0)``), a str (``"3"``) or ``None`` is a fault; an
  ``act_batch`` answer is a ``(B,)`` array of an integer dtype;
* **a move is legal**: in ``[0, n_actions)`` and legal for the seat to move;
* **a call returns in time**: each ``act`` within the per-move limit
  (:data:`DEFAULT_MOVE_TIME_LIMIT`, 10 s unless the caller passes ``move_time_limit``;
  ``None`` or ``0``: no limit), each ``act_batch`` of ``B`` decisions within ``B`` times it.
  The first call of each policy object in a process may take 6 times as long (loading a
  model, importing torch), and time spent compiling numba kernels (a cold cache compiles on
  first use, possibly inside a policy's first move) is not counted;
* **an exception raised by the policy** is the policy's fault (:class:`AgentFault`, chained to
  the original); :class:`agents.policy.ReferenceGameEnd` is not a fault but the reference's
  way to end a game, and ``KeyboardInterrupt`` passes through untouched.

**How the limit is enforced.** On the main thread of a POSIX process (the command line, a
script, each worker process of :class:`agents.backend.ProcessBackend`) a ``SIGALRM`` timer
(``signal.setitimer``) interrupts a policy that runs past its limit, even one that never returns
(a loop, a ``time.sleep``), and re-fires every 0.25 s until the call is left, so that a policy
catching the interruption cannot hold on. Compiled code (numba, C extensions, a torch forward
pass) cannot be interrupted while it runs: the fault is raised when it next returns to Python,
and compiled code that never returns hangs the run. Elsewhere (another thread, Windows, or an
``ITIMER_REAL`` timer already in use, e.g. by a test runner) the time is measured and a call
that returns late is a fault, but a call that never returns cannot be stopped.
"""

from __future__ import annotations

import reprlib
import signal
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from hanabi_env.validate import check_float, is_int

__all__ = [
    "DEFAULT_MOVE_TIME_LIMIT",
    "AgentFault",
    "ReferenceGameEnd",
    "agent_label",
    "call_policy",
    "check_move",
    "check_move_time_limit",
    "check_moves",
    "policy_move",
]

DEFAULT_MOVE_TIME_LIMIT = 10.0
"""Seconds a policy may take per move (``act``; ``act_batch``: per decision) unless told."""

_REFIRE_S = 0.25  # the timer fires again this often until the late call is left


class ReferenceGameEnd(RuntimeError):
    """A ``ruleset="reference"`` agent ended the game, as the Java reference did.

    The reference's game runner stopped a game when an agent returned no move (a
    ``HistogramAgent`` rule that fired without a move), returned a tell it rejected (rules
    78–82's colourless tell) or raised (a ``ProductionRuleAgent`` on which no rule fired);
    docs/rules.md §12.2. The game loops of this package (:func:`agents.play_games`, the
    meta-agent evaluation) end the game at the current score and count the turn as the
    reference did (:func:`end_game`); a loop of your own can do the same.

    Attributes:
        code: ``agents.rules.reference.END_RAISED``, ``END_NULL`` or ``END_REJECTED``.
    """

    def __init__(self, code: int):
        """See the class docstring."""
        super().__init__(f"the reference agent ended the game (code {code})")
        self.code = int(code)


class AgentFault(ValueError):
    """A policy failed to make a legal move (it raised, returned a non-move, or was too slow).

    A ``ValueError`` so that every entry point that turns bad input into one ``error:`` line
    (exit 2) does so for it too. It pickles with its fields, so a fault in a worker process
    reaches the parent unchanged.

    Attributes:
        agent: The agent's name or spec, as the run knows it.
        game: The game's index in its batch (0-based), or ``-1`` when unknown.
        move: The move's index in the game (0-based), or ``-1`` when unknown.
        reason: What went wrong, e.g. ``"raised KeyError: 3"``, ``"returned 5.7, not an int"``,
            ``"returned 1000000, not a legal move"``, ``"took 12.3 s (limit 10 s)"``.
    """

    def __init__(self, agent: str, reason: str, *, game: int = -1, move: int = -1):
        """See the class docstring."""
        self.agent = str(agent)
        self.reason = str(reason)
        self.game = int(game)
        self.move = int(move)
        where = []
        if self.game >= 0:
            where.append(f"game {self.game}")
        if self.move >= 0:
            where.append(f"move {self.move}")
        at = f" ({', '.join(where)})" if where else ""
        super().__init__(f"agent {self.agent!r}{at} {self.reason}")

    def __reduce__(self):  # picklable across worker processes with its fields
        return (_rebuild, (self.agent, self.reason, self.game, self.move))


def _rebuild(agent: str, reason: str, game: int, move: int) -> AgentFault:
    return AgentFault(agent, reason, game=game, move=move)


_BASE_NAMES = ("", "policy", "batch-policy")  # the base classes' placeholder names


def agent_label(policy: object) -> str:
    """The name a fault gives ``policy``: its ``name``, else its class name."""
    name = getattr(policy, "name", None)
    if isinstance(name, str) and name.strip() not in _BASE_NAMES:
        return name
    return type(policy).__name__


def check_move_time_limit(name: str, value: object) -> float | None:
    """A per-move time limit in seconds: ``None`` (no limit) or a finite number > 0.

    ``0`` means no limit too (returned as ``None``).

    Raises:
        TypeError: Not a number or None (a bool is not a number).
        ValueError: Negative, NaN or infinite (pass None or 0 for no limit).
    """
    if value is None:
        return None
    limit = check_float(name, value, 0.0)
    return limit if limit > 0 else None


_show = reprlib.Repr()
_show.maxstring = 40
_show.maxother = 40


def _shown(value: object) -> str:
    """``value`` and its type, short: ``5.7 (float)``, ``None``, ``'3' (str)``."""
    if value is None:
        return "None"
    text = str(value) if isinstance(value, np.generic) else _show.repr(value)
    return f"{text} ({type(value).__name__})"


def _legal_list(legal: np.ndarray) -> str:
    ids = np.flatnonzero(legal).tolist()
    return str(ids) if len(ids) <= 24 else f"{ids[:24]}"[:-1] + ", ...]"


def check_move(
    agent: str, value: object, legal: np.ndarray, *, game: int = -1, move: int = -1
) -> int:
    """``value`` as a legal move id, or the policy's fault.

    Args:
        agent: The agent's name for the message.
        value: What the policy returned.
        legal: ``(n_actions,)`` 0/1 (or bool) legal moves of the seat to move.
        game: The game's index in its batch (for the message).
        move: The move's index in the game (for the message).

    Returns:
        The move id, a Python ``int``.

    Raises:
        AgentFault: Not an int (``bool``, float, str, None, ...; numpy integers are ints), out
            of ``[0, n_actions)``, or illegal here.
    """
    if not is_int(value):
        raise AgentFault(
            agent, f"returned {_shown(value)}, not an int move id", game=game, move=move
        )
    action = int(value)
    n = len(legal)
    if not 0 <= action < n:
        raise AgentFault(
            agent,
            f"returned {action}, not a move id; allowed: 0..{n - 1}, legal now: "
            f"{_legal_list(legal)}",
            game=game,
            move=move,
        )
    if not legal[action]:
        raise AgentFault(
            agent,
            f"returned {action}, not a legal move; legal now: {_legal_list(legal)}",
            game=game,
            move=move,
        )
    return action


def check_moves(
    agent: str,
    value: object,
    masks: np.ndarray,
    games: np.ndarray,
    moves: np.ndarray,
) -> np.ndarray:
    """An ``act_batch`` answer as ``(B,)`` int64 legal move ids, or the policy's fault.

    Args:
        agent: The agent's name for the message.
        value: What ``act_batch`` returned.
        masks: ``(B, n_actions)`` int8 legal moves of each decision.
        games: ``(B,)`` int64 each decision's game (its index in the run's batch).
        moves: ``(B,)`` int64 each decision's move index in its game.

    Returns:
        ``(B,)`` int64 move ids, each legal under its mask.

    Raises:
        AgentFault: Not an array (``None``, ragged), of another shape than ``(B,)``, of a
            non-integer dtype (float, bool, object), or a move out of range or illegal (the
            fault names the first such decision's game and move).
    """
    b = len(masks)
    g0, m0 = (int(games[0]), int(moves[0])) if b else (-1, -1)
    try:
        acts = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise AgentFault(
            agent, f"act_batch returned {_shown(value)}, not an array ({exc})", game=g0, move=m0
        ) from None
    if acts.shape != (b,) or acts.dtype.kind not in "iu":
        what = "None" if value is None else f"{acts.dtype} of shape {acts.shape}"
        raise AgentFault(
            agent,
            f"act_batch returned {what}; allowed: ({b},) integer move ids",
            game=g0,
            move=m0,
        )
    n = masks.shape[1]
    for j in np.flatnonzero((acts < 0) | (acts >= n))[:1]:
        check_move(agent, int(acts[j]), masks[j], game=int(games[j]), move=int(moves[j]))
    acts = acts.astype(np.int64)
    bad = np.flatnonzero(masks[np.arange(b), acts] == 0)
    for j in bad[:1]:
        check_move(agent, int(acts[j]), masks[j], game=int(games[j]), move=int(moves[j]))
    return acts


class _Late(BaseException):
    """Raised by the timer into a late policy.

    A ``BaseException``: a policy's ``except Exception`` does not swallow it.
    """


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Late


try:  # the C function under signal.signal: the same, without its enum conversions (~20 us)
    from _signal import signal as _set_handler
except ImportError:  # pragma: no cover - not CPython
    _set_handler = signal.signal
_SIGALRM = int(getattr(signal, "SIGALRM", 14))


def _alarm_usable() -> bool:
    """Whether this call may own ``SIGALRM``: the main thread, POSIX, no timer running."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return False
    return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


class _Clock:
    """The time a policy call has spent, compilation excluded (paused while numba compiles)."""

    def __init__(self, budget: float, alarm: bool):
        self.budget = budget
        self.alarm = alarm
        self.spent = 0.0
        self.since = time.perf_counter()
        self.paused = 0

    def elapsed(self) -> float:
        return self.spent + (0.0 if self.paused else time.perf_counter() - self.since)

    def pause(self) -> None:
        if not self.paused:
            self.spent += time.perf_counter() - self.since
            if self.alarm:
                signal.setitimer(signal.ITIMER_REAL, 0.0)
        self.paused += 1

    def resume(self) -> None:
        self.paused -= 1
        if not self.paused:
            self.since = time.perf_counter()
            if self.alarm:
                left = max(self.budget - self.spent, 1e-3)
                signal.setitimer(signal.ITIMER_REAL, left, _REFIRE_S)


_clocks = threading.local()  # the running call's clock, per thread
_listening: list[bool] = []


def _listen_to_numba() -> None:
    """Pause the running call's clock while numba compiles (the toolkit's time, not the policy's).

    A cold numba cache compiles a kernel on its first call, which may be inside a policy's
    first move (its view's encoding, a rule agent's rules) and take minutes.
    """
    if _listening:
        return
    from numba.core import event

    class Pause(event.Listener):
        def on_start(self, ev) -> None:
            clock = getattr(_clocks, "clock", None)
            if clock is not None:
                clock.pause()

        def on_end(self, ev) -> None:
            clock = getattr(_clocks, "clock", None)
            if clock is not None:
                clock.resume()

    event.register("numba:compile", Pause())
    _listening.append(True)


_FIRST_CALL_FACTOR = 6
"""The first call of each policy (per process) may take this many times its budget: loading a
model, importing torch."""

_called: weakref.WeakSet = weakref.WeakSet()  # policies that made their first timed call


def _first_call(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` (a bound method) is its policy's first timed call in this process."""
    owner = getattr(fn, "__self__", None)
    if owner is None:
        return False
    try:
        if owner in _called:
            return False
        _called.add(owner)
    except TypeError:  # not weakly referenceable: no grace
        return False
    return True


def _timed(fn: Callable[..., Any], args: tuple, kwargs: dict, budget: float) -> tuple:
    """``(result, seconds, interrupted)`` of ``fn(*args, **kwargs)`` under a ``budget`` s timer.

    Seconds spent compiling (numba) are not counted, and the timer waits meanwhile.
    """
    _listen_to_numba()
    alarm = _alarm_usable()
    clock = _clocks.clock = _Clock(budget, alarm)
    try:
        if not alarm:
            result = fn(*args, **kwargs)
            return result, clock.elapsed(), False
        result, interrupted = None, False
        old = _set_handler(_SIGALRM, _on_alarm)
        try:
            try:
                try:
                    signal.setitimer(signal.ITIMER_REAL, budget, _REFIRE_S)
                    result = fn(*args, **kwargs)
                finally:
                    clock.alarm = False  # no re-arming after this point
                    signal.setitimer(signal.ITIMER_REAL, 0.0)
            except _Late:  # (also one that lands just after the call: the call was late anyway)
                interrupted = True
        finally:
            _set_handler(_SIGALRM, old)
        return result, clock.elapsed(), interrupted
    finally:
        _clocks.clock = None


def call_policy(
    agent: str,
    fn: Callable[..., Any],
    *args: Any,
    limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    game: int = -1,
    move: int = -1,
    moves: int = 1,
    **kwargs: Any,
) -> Any:
    """``fn(*args, **kwargs)``, a policy's call, under the fault rule (module docstring).

    Args:
        agent: The agent's name for the message.
        fn: The policy's method (``act``, ``act_batch``).
        *args: Its arguments.
        limit: Seconds per move, or None (no limit).
        game: The game's index in its batch (for the message).
        move: The move's index in the game (for the message).
        moves: Decisions the call makes (an ``act_batch`` of ``B`` games: ``B``); the call
            may take ``moves * limit`` seconds.
        **kwargs: Its keyword arguments.

    Returns:
        What ``fn`` returned (not checked: see :func:`check_move`, :func:`check_moves`).

    Raises:
        AgentFault: ``fn`` raised an exception (chained to it) or ran past its limit. An
            :class:`AgentFault` that ``fn`` raises passes through (given this call's game and
            move if it had none), a :class:`ReferenceGameEnd` unchanged.
    """
    try:
        if limit is None:
            return fn(*args, **kwargs)
        budget = limit * max(1, moves) * (_FIRST_CALL_FACTOR if _first_call(fn) else 1)
        result, took, interrupted = _timed(fn, args, kwargs, budget)
    except AgentFault as inner:  # a fault found inside (a batch policy's act): where it was
        if inner.game >= 0 or inner.move >= 0 or (game < 0 and move < 0):
            raise
        raise AgentFault(inner.agent, inner.reason, game=game, move=move) from inner
    except ReferenceGameEnd:
        raise
    except Exception as exc:
        text = " ".join(str(exc).split())
        reason = f"raised {type(exc).__name__}" + (f": {text}" if text else "")
        raise AgentFault(agent, reason, game=game, move=move) from exc
    if interrupted or took > budget:
        per = "per move" if moves == 1 else f"per move, {limit * moves:g} s for {moves} decisions"
        if budget > limit * max(1, moves):
            per += f"; {budget:g} s for its first call"
        what = f"was stopped after {took:.1f} s" if interrupted else f"took {took:.1f} s"
        raise AgentFault(agent, f"{what} (limit {limit:g} s {per})", game=game, move=move)
    return result


def policy_move(
    policy: Any,
    view: Any,
    legal: np.ndarray,
    *,
    agent: str | None = None,
    limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    game: int = -1,
    move: int = -1,
) -> int:
    """``policy.act(view)`` under the fault rule: a legal move id, or an :class:`AgentFault`.

    Args:
        policy: The policy (:class:`agents.policy.Policy`).
        view: The :class:`hanabi_env.PlayerView` of the seat to move.
        legal: ``(n_actions,)`` legal moves of that seat.
        agent: The agent's name for the message (default :func:`agent_label`).
        limit: Seconds for the move, or None (no limit).
        game: The game's index in its batch (for the message).
        move: The move's index in the game (for the message).

    Returns:
        The move id, a Python ``int``.

    Raises:
        AgentFault: As :func:`call_policy` and :func:`check_move`.
    """
    name = agent_label(policy) if agent is None else agent
    value = call_policy(name, policy.act, view, limit=limit, game=game, move=move)
    return check_move(name, value, legal, game=game, move=move)
