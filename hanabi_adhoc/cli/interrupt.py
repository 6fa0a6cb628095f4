"""Ctrl-C in ``hanabi-adhoc``: one ``error:`` line and exit code 2, never a lost interrupt.

:func:`hanabi_adhoc.cli.main.main` runs every command inside :func:`ctrl_c` and turns the
``KeyboardInterrupt`` into its error line; a command that handles a Ctrl-C itself (``play``
prints the unfinished game's standing) calls ``CTRL_C.handled()``. docs/reliability.md §4.
"""

from __future__ import annotations

import _thread
import contextlib
import ctypes
import signal
import sys
import threading

__all__ = ["CTRL_C", "CtrlC", "ctrl_c", "forget_unhandled_interrupt"]


def forget_unhandled_interrupt() -> None:
    """Tell CPython that the Ctrl-C was handled, so that the exit status stays 2.

    CPython records a ``KeyboardInterrupt`` that ends a nested top-level run
    (``run_eval_code_obj``, which compiled code reached by numba's compiler goes through) in
    the C global ``_Py_UnhandledKeyboardInterrupt`` and, at exit, kills the process with
    SIGINT when it is set, even though the command caught the interrupt (seen as exit status
    -2 after the one ``error:`` line). It is reset here; on another Python nothing is done.
    """
    try:
        flag = ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt")
    except (AttributeError, ValueError, OSError):  # not CPython, or not exported
        return
    flag.value = 0


class CtrlC:
    """The SIGINT handler of ``hanabi-adhoc``: ``KeyboardInterrupt``, raised until it is caught.

    Python drops an exception raised inside a ``ctypes`` callback (numba's compiler has some),
    (printing "Exception ignored"), so a Ctrl-C that lands there would be lost and the run go
    on. The first Ctrl-C therefore raises ``KeyboardInterrupt`` and starts a thread that raises
    it again every 0.5 s (``_thread.interrupt_main``) until the command has caught it
    (:meth:`handled`); the message of a dropped one is not printed (:func:`ctrl_c`).
    """

    def __init__(self) -> None:
        self._caught = threading.Event()
        self._pressed = False
        self._lock = threading.Lock()  # no interrupt_main once handled() has returned

    def __call__(self, signum, frame) -> None:
        """The SIGINT handler: raise ``KeyboardInterrupt`` until :meth:`handled`."""
        if not self._pressed:
            self._pressed = True
            again = threading.Thread(
                target=self._again, args=(self._caught, self._lock), daemon=True
            )
            again.start()
        if not self._caught.is_set():
            raise KeyboardInterrupt

    @staticmethod
    def _again(caught: threading.Event, lock: threading.Lock) -> None:
        while not caught.wait(0.5):
            with lock:
                if caught.is_set():  # handled meanwhile: a late interrupt would outlive it
                    return
                _thread.interrupt_main()

    def handled(self) -> None:
        """The interrupt was caught: stop raising it (no interrupt is sent after this)."""
        with self._lock:
            self._caught.set()

    def reset(self) -> None:
        """Ready for the next command (an in-process caller may run several)."""
        self.handled()  # (a thread of the last command stops)
        self._caught = threading.Event()
        self._lock = threading.Lock()
        self._pressed = False


CTRL_C = CtrlC()
"""The handler of this process (one per process: SIGINT has one handler)."""


@contextlib.contextmanager
def ctrl_c():
    """:class:`CtrlC` as the SIGINT handler meanwhile (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    CTRL_C.reset()
    old = signal.signal(signal.SIGINT, CTRL_C)
    old_hook = sys.unraisablehook

    def hook(unraisable) -> None:  # a dropped Ctrl-C is raised again: no message for it
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            old_hook(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        CTRL_C.handled()
        signal.signal(signal.SIGINT, old)
        sys.unraisablehook = old_hook
