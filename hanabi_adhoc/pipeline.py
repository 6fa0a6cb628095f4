"""Moved to :mod:`hanabi_adhoc.study.pipeline`; this path is removed in 0.4.0.

Importing ``hanabi_adhoc.pipeline`` warns once and gives the module ``hanabi_adhoc.study.pipeline``
itself.
"""

from hanabi_env.deprecation import moved_module

moved_module(__name__, "hanabi_adhoc.study.pipeline", "0.4")
