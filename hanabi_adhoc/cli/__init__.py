"""The ``hanabi-adhoc`` command line: :func:`main` and :func:`build_parser`.

* :mod:`hanabi_adhoc.cli.main` — the parser and the entry point (one ``error:`` line per known
  failure), with Ctrl-C handled by :mod:`hanabi_adhoc.cli.interrupt`;
* one module per command: :mod:`~hanabi_adhoc.cli.play`, :mod:`~hanabi_adhoc.cli.evaluate`,
  :mod:`~hanabi_adhoc.cli.demo`, :mod:`~hanabi_adhoc.cli.warmup`,
  :mod:`~hanabi_adhoc.cli.train_sb3`, :mod:`~hanabi_adhoc.cli.pipeline`,
  :mod:`~hanabi_adhoc.cli.qd` (``map-elites``, ``ga``, ``population``, ``matchups``),
  :mod:`~hanabi_adhoc.cli.meta` (``meta-table``, ``meta-eval``), :mod:`~hanabi_adhoc.cli.serve`,
  :mod:`~hanabi_adhoc.cli.benchmark`, :mod:`~hanabi_adhoc.cli.bad`;
* :mod:`hanabi_adhoc.cli.options` — what they share: option types, checks, one-line errors.

Agents and seats come from :mod:`hanabi_adhoc.specs`; nothing imports this package but
``python -m hanabi_adhoc`` (docs/architecture.md §1.1).
"""

from hanabi_adhoc.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
