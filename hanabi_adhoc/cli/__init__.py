"""The ``hanabi-adhoc`` command line: :func:`main` and :func:`build_parser`.

* :mod:`hanabi_adhoc.cli.main` — the parser, the entry point, and the commands ``play``,
  ``demo``, ``evaluate``, ``train-sb3`` and ``pipeline``;
* :mod:`hanabi_adhoc.cli.qd` — ``map-elites``, ``ga``, ``population``, ``matchups``;
* :mod:`hanabi_adhoc.cli.meta` — ``meta-table``, ``meta-eval``;
* :mod:`hanabi_adhoc.cli.options` — what they share: option types, checks, one-line errors.
"""

from hanabi_adhoc.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
