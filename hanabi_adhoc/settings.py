"""A game's settings in words, as every command's output, report and record states them.

The one home of these words is :mod:`hanabi_env.config` (:func:`~hanabi_env.config
.describe_settings`, :func:`~hanabi_env.config.hand_size_words`); this module names them for the
command line, the web app and the benchmark's report (``game_settings`` is
``describe_settings``). docs/architecture.md §2.
"""

from __future__ import annotations

from hanabi_env.config import describe_settings as game_settings
from hanabi_env.config import hand_size_words

__all__ = ["game_settings", "hand_size_words"]
