"""Renamed :mod:`hanabi_env.engine` (public by name since 0.3.0); this path is removed in 0.4.0.

Importing ``hanabi_env._engine`` warns once and gives the module ``hanabi_env.engine`` itself.
"""

from hanabi_env.deprecation import moved_module

moved_module(__name__, "hanabi_env.engine", "0.4")
