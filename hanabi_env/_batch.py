"""Renamed :mod:`hanabi_env.batch` (public by name since 0.3.0); this path is removed in 0.4.0.

Importing ``hanabi_env._batch`` warns once and gives the module ``hanabi_env.batch`` itself.
"""

from hanabi_env.deprecation import moved_module

moved_module(__name__, "hanabi_env.batch", "0.4")
