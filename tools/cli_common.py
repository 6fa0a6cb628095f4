"""What the scripts in ``tools/`` share on their command lines: one-line usage errors.

``python tools/NAME.py`` puts ``tools/`` first on ``sys.path``, so a tool imports this module as
``cli_common``; every tool also puts the repository root on it (``from tools.cli_common ...``
works from tests).
"""

from __future__ import annotations

import argparse

__all__ = ["OneLineParser", "positive_int"]


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, ``error: ... (see: PROG --help)``, exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        """Print the one line and exit with code 2."""
        self.exit(2, f"error: {message} (see: {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1.

    Raises:
        argparse.ArgumentTypeError: Not an integer, or below 1 (the message says which).
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not allowed; allowed: an integer >= 1")
    return value
